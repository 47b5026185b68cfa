package briefing

import (
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/testfiles"
)

// megabyteHistory builds about 1 MB of compact history in the shape real
// chats have: a previous briefing, then requests, prose and tool markers.
func megabyteHistory() string {
	var b strings.Builder
	b.WriteString("<previous-chat-history>")
	for i := range 20 {
		b.WriteString("## Earlier phase " + itoa(i) + "\n\n")
		for j := range 8 {
			b.WriteString("You changed [](path:w1/src/old_" + itoa(i*8+j) + ".ts) and the user approved step " + itoa(j) + ". ")
		}
		b.WriteString("\n\n")
	}
	b.WriteString("</previous-chat-history>")
	for i := 0; b.Len() < 1<<20; i++ {
		n := itoa(i)
		b.WriteString("\n<user>Step " + n + ": refactor w1/src/module_" + n + ".ts &amp; keep the API stable. " +
			strings.Repeat("The user explains the constraints &lt;again&gt; in some detail. ", 6) + "</user>\n")
		b.WriteString("<assistant>Looking at the module first. " + strings.Repeat("It has a few problems worth noting. ", 5) +
			"\n[read: w1/src/module_" + n + ".ts]\n[searched: \"useWidget\" in *.tsx]\n[edited: w1/src/module_" + n + ".ts (3 edits)]\n" +
			"[shell: Run unit tests → exit 1]\n[edited: w1/src/module_" + n + ".ts ✗ old_string not found]\n[shell: Run unit tests → ✓]\n" +
			"[lint: w1/src/module_" + n + ".ts → clean]\n[asked user: Continue? → Go on: yes]\nDone with step " + n + ".</assistant>\n")
		b.WriteString("<user>ok, continue</user>")
	}
	return b.String()
}

func BenchmarkWrite1MB(b *testing.B) {
	in := megabyteHistory()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		Write(in, Options{})
	}
}

// BenchmarkWrite1MBSmallTarget is the same history squeezed into 3,000
// units: every step of fit is taken.
func BenchmarkWrite1MBSmallTarget(b *testing.B) {
	in := megabyteHistory()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		Write(in, Options{TargetChars: 3000})
	}
}

func BenchmarkWriteCorpus(b *testing.B) {
	in := corpus(b)
	total := 0
	for _, c := range in {
		total += len(c)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range in {
			Write(c, Options{})
		}
	}
}

// BenchmarkWriteCorpusSmallTarget writes the corpus at 1,500 units.
func BenchmarkWriteCorpusSmallTarget(b *testing.B) {
	in := corpus(b)
	total := 0
	for _, c := range in {
		total += len(c)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range in {
			Write(c, Options{TargetChars: 1500})
		}
	}
}

// TestMegabyteIsFast: 1 MB of compact history in well under 100 ms (best of
// five, so a busy machine does not fail it; skipped under the race detector
// and in -short mode).
func TestMegabyteKeepsTheRules(t *testing.T) {
	if testfiles.Race || testing.Short() {
		t.Skip("timing is meaningless under -race or -short")
	}
	in := megabyteHistory()
	best := time.Hour
	var out string
	for range 5 {
		start := time.Now()
		out = Write(in, Options{})
		best = min(best, time.Since(start))
	}
	// The speed figure is BenchmarkWrite1MB's; this only logs it.
	t.Logf("1 MB (%d bytes) in %v, briefing %d bytes", len(in), best, len(out))
	for _, e := range ruleErrors(out, Options{}, 0) {
		t.Error(e)
	}
}

// TestPathologicalInputsStayLinear feeds 1 MB of hostile shapes (one
// repeated heading, unclosed elements and markers, walls of brackets or
// angle brackets, one huge turn): each must come back in well under the
// seconds a quadratic pass would take, and keep the rules.
func TestPathologicalInputsStayLinear(t *testing.T) {
	if testfiles.Race || testing.Short() {
		t.Skip("timing is meaningless under -race or -short")
	}
	const mb = 1 << 20
	rep := func(s string) string { return strings.Repeat(s, mb/len(s)) }
	cases := []struct{ name, in string }{
		{"one heading repeated", rep("<user>x</user>\n")},
		{"same request and reply", rep("<user>fix it now</user>\n<assistant>done.</assistant>\n")},
		{"slash tags never closed", "<user>" + rep("<slash-command ")},
		{"slash bodies never closed", "<user>" + rep(`<slash-command id="a" name="b"><![CDATA[x`)},
		{"markers never closed", "<assistant>" + rep("[read: abc\n")},
		{"angle brackets", rep("<")},
		{"entities", "<user>" + rep("&amp;") + "</user>"},
		{"one huge request", "<user>" + rep("word. ") + "</user>"},
		{"one huge line", "<assistant>" + rep("word ") + "</assistant>"},
		{"huge previous briefing", "<previous-chat-history>" + rep("## h\n\nA sentence here. Another one [](path:w1/a.ts).\n\n") + "</previous-chat-history><user>go</user>"},
		{"closing tags repeated", "<previous-chat-history>" + rep("</previous-chat-history>x")},
		{"paths", "<user>" + rep("w1/a/b.ts ") + "</user>"},
		{"links", "<user>" + rep("[a](b) ") + "</user>"},
		{"brackets", "<user>" + rep("[") + "</user>"},
		{"escaped tags", "<user>" + rep("&lt;a") + "</user>"},
		{"failures", "<user>go</user><assistant>" + rep("[shell: x → exit 1]\n") + "</assistant>"},
		{"answers", "<user>go</user><assistant>" + rep("[asked user: t → a: b]\n") + "</assistant>"},
		{"acknowledgements", "<user>do it</user>" + rep("<user>ok</user>")},
		{"attachments", rep("<user>[attached: a.png]</user>")},
		{"newlines", "<user>" + rep("\n") + "</user>"},
		{"stray text", rep("stray text ")},
		{"short sentences", "<assistant>" + rep("A. ") + "</assistant>"},
		{"combining marks", "<user>" + rep("İ́ ") + "</user>"},
		{"closing quotes", "<user>a" + rep("”") + "</user>"},
		{"quotes in a command", "<user>go</user><assistant>[shell: " + rep("“") + " → ✓]</assistant>"},
		{"small talk", "<user>fix it</user><assistant>done</assistant><user>" + rep("Looks good. ") + "</user>"},
		{"reports of failures", "<user>" + rep("That didn't work: ") + "</user>"},
		{"globs with a mount", "<user>" + rep("(w1/src/*.tsx ") + "</user>"},
		{"numbered previous briefing", "<previous-chat-history>" + rep("1. w1/a/b c\n") + "</previous-chat-history>"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			out := Write(tt.in, Options{})
			// A guard against quadratic passes (they took over 20 s
			// here), not a speed target: the bound is generous.
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			for _, e := range ruleErrors(out, Options{}, history.Len16(prevOf(tt.in))) {
				t.Error(e)
			}
		})
	}
}
