package briefing

import (
	"strings"
	"testing"
	"time"
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

// TestMegabyteIsFast: 1 MB of compact history in well under 100 ms (best of
// five, so a busy machine does not fail it; skipped under the race detector
// and in -short mode).
func TestMegabyteIsFast(t *testing.T) {
	if raceEnabled || testing.Short() {
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
	t.Logf("1 MB (%d bytes) in %v, briefing %d bytes", len(in), best, len(out))
	if best > 100*time.Millisecond {
		t.Errorf("1 MB took %v, want well under 100ms", best)
	}
	for _, e := range ruleErrors(out, Options{}, 0) {
		t.Error(e)
	}
}
