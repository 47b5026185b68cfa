package eval

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// history and continuation in the layout the renderers write.
const groundedHistory = `<user>The export times out on big projects. Fix it in src/export/run.ts.</user>
<assistant>[read: src/export/run.ts]
[read: src/export/batch.ts]
[shell: npm run test:export → exit 1]
The loop calls ` + "`flushChunk`" + ` once per row; ERR_STREAM_PREMATURE_CLOSE comes from the writer. I will batch rows with ` + "`BATCH_ROWS = 500`" + `.</assistant>
<user>Keep the CSV header order.</user>
<assistant>[edited: src/export/run.ts (2 edits)]
[shell: git status → ✓]</assistant>`

const groundedContinuation = `<assistant>Carrying on with the batching; the CSV header order stays.
[read: src/export/run.ts]
[shell: npm run test:export → ✓]
[shell: git status → ✓]
[read: src/export/format.ts]</assistant>
<tool-output>export function formatRow(row) { return toCsvLine(row) }</tool-output>
<assistant>Calling toCsvLine and flushChunk with BATCH_ROWS from the batch; see src/export/batch.ts.</assistant>
<user>Also rename exportAll to exportProject.</user>
<assistant>Renamed exportAll to exportProject.</assistant>`

func expectedOf(ps []Probe, k Kind) []string {
	var out []string
	for _, p := range ps {
		if p.Kind == k {
			out = append(out, p.Expected[0])
		}
	}
	return out
}

func TestMineGrounded(t *testing.T) {
	ps := MineGrounded(groundedHistory, groundedContinuation)
	cases := []struct {
		kind Kind
		want []string
	}{
		// run.ts and batch.ts came from the compacted part; format.ts is new.
		{KindFileUsed, []string{"src/export/run.ts", "src/export/batch.ts"}},
		// The project's test command again; git status says nothing.
		{KindCommandRerun, []string{"npm run test:export"}},
		// flushChunk and BATCH_ROWS were only in the compacted part;
		// toCsvLine came from a tool output of the continuation,
		// exportAll from the user there.
		{KindNameUsed, []string{"flushChunk", "BATCH_ROWS"}},
		// The last request, which its first turn goes on with.
		{KindRequestCarried, []string{"Keep the CSV header order."}},
	}
	for _, c := range cases {
		got := expectedOf(ps, c.kind)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: got %q, want %q", c.kind, got, c.want)
		}
	}
	for i, p := range ps {
		if p.ID == "" || p.Question == "" || p.Match == "" {
			t.Errorf("probe %d incomplete: %+v", i, p)
		}
	}
}

func TestMineGroundedNewRequest(t *testing.T) {
	// The continuation starts with a new request: nothing was carried on.
	ps := MineGrounded(groundedHistory, "<user>Now something else.</user>\n"+groundedContinuation)
	if got := expectedOf(ps, KindRequestCarried); len(got) != 0 {
		t.Errorf("request carried %q after a new request", got)
	}
}

func TestMineGroundedNotMeasurable(t *testing.T) {
	redact := func(s string) string {
		var b strings.Builder
		for _, line := range strings.Split(s, "\n") {
			open := line[:strings.IndexByte(line, '>')+1]
			if strings.HasPrefix(line, "<user>") || strings.HasPrefix(line, "<assistant>") || strings.HasPrefix(line, "<tool-output>") {
				b.WriteString(open + "[REDACTED 120 chars]" + strings.Replace(open, "<", "</", 1) + "\n")
			}
		}
		return b.String()
	}
	for name, c := range map[string][2]string{
		"no continuation":      {groundedHistory, ""},
		"redacted":             {redact(groundedHistory), redact(groundedContinuation)},
		"nothing of the past":  {groundedHistory, "<assistant>[read: README.md]\nAll new work.</assistant>\n<user>ok</user>"},
		"continuation only ui": {"", groundedContinuation},
	} {
		if ps := MineGrounded(c[0], c[1]); len(ps) != 0 {
			t.Errorf("%s: %d probes, want none: %+v", name, len(ps), ps)
		}
		if _, ok := NewGrounded(c[0], c[1]).Score("a briefing", 100); ok {
			t.Errorf("%s: measurable", name)
		}
	}
}

func TestGroundedScoreSizeAware(t *testing.T) {
	g := NewGrounded(groundedHistory, groundedContinuation)
	score := func(text string, target int) (GroundedResult, float64, bool) {
		r, ok := g.Score(text, target)
		return r, r.Score, ok
	}
	good := "Fixing the export timeout in [](path:src/export/run.ts) and src/export/batch.ts: rows are batched (BATCH_ROWS) instead of one flushChunk per row; `npm run test:export` passes. Keep the CSV header order."
	target := len(good) + 10
	_, h, ok := score(good, target)
	if !ok || h < 0.8 {
		t.Fatalf("good briefing scores %.2f", h)
	}
	// The same briefing after padding up to the target keeps its score;
	// copying more past the target only lowers it, down to 0 at twice
	// the target.
	padded := good + strings.Repeat(" x", 5)
	_, hp, _ := score(padded, target)
	if hp != h {
		t.Errorf("padding within the target changed the score: %.3f → %.3f", h, hp)
	}
	prev := h
	for _, extra := range []int{20, 60, 120, target} {
		long := good + strings.Repeat("y", target-len(good)+extra)
		_, hl, _ := score(long, target)
		if hl >= prev {
			t.Errorf("%d units over the target: %.3f, not below %.3f", extra, hl, prev)
		}
		prev = hl
	}
	if prev != 0 {
		t.Errorf("twice the target scores %.3f, want 0", prev)
	}
	// What lies past the target does not count.
	late := strings.Repeat("z", target) + good
	if tl, _, _ := score(late, target); tl.Kept != 0 || tl.Named != 0 {
		t.Errorf("answers past the target counted: %+v", tl)
	}
}

func TestCutAt(t *testing.T) {
	for _, c := range []struct {
		in     string
		target int
		want   string
	}{
		{"abc", 0, "abc"},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"a😀b", 2, "a"}, // a surrogate pair is never split
		{"a😀b", 3, "a😀"},
		{"été", 2, "ét"},
	} {
		if got := CutAt(c.in, c.target); got != c.want {
			t.Errorf("CutAt(%q, %d) = %q, want %q", c.in, c.target, got, c.want)
		}
	}
}

// TestEachNameTokenIsTheRegexp: the hand-written scanner finds what the
// nameTokens expression defines, on texts of every shape; isOneNameToken
// is a whole text's being one of them.
func TestEachNameTokenIsTheRegexp(t *testing.T) {
	texts := []string{"", "a", "a.b", "a..b", "a.", ".a", "a::b::c", "a:b", "a->b->", "x-y", "9a b9 _x $y", "fooBar.baz(qux) -> a::b",
		"w1a2/src/x.ts", "日本 abc.def", "a.1b", "a.b1.c2", "#0f766e", "-> ::", "a::", "a->"}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := "ab_$9.:->/ \n"
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		var got [][]int
		eachNameToken(s, func(a, b int) { got = append(got, []int{a, b}) })
		want := nameTokens.FindAllStringIndex(s, -1)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: got %v, want %v", s, got, want)
		}
		if one, want := isOneNameToken(s), s != "" && nameTokens.FindString(s) == s; one != want {
			t.Fatalf("isOneNameToken(%q) = %v, want %v", s, one, want)
		}
	}
}

// TestSplitMarkerIsTheRegexp: splitMarker matches what the marker
// expression it replaced matched, with the same groups, on marker lines
// and near misses of every shape.
func TestSplitMarkerIsTheRegexp(t *testing.T) {
	markerRe := regexp.MustCompile(`^\[([a-z][a-z -]*?): (.*)\]$`)
	texts := []string{"", "[", "]", "[]", "[a]", "[a: ]", "[a:]", "[a: b]", "[read: src/x.ts]", "[shell: npm test → exit 1]",
		"[edited: a.go ✗ no such file]", "[docs-read: x]", "[a b: c: d]", "[a: b: c]", "[A: b]", "[1a: b]", "[a- -: b]",
		"[a: b\n]", "[a\n: b]", "[a: b]\n", " [a: b]", "[a: b] ", "[a: \xff]", "[a: ]]", "[a:  ]", "[ a: b]", "[-a: b]", "[a:: b]"}
	rng := rand.New(rand.NewPCG(5, 6))
	pick := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		// "[verb: subject]" of bytes that may break it (half of them),
		// any bytes, or such a line cut short.
		s := "[" + pick("az -:A1", 1+rng.IntN(4)) + pick(": ", rng.IntN(3)) + pick("ab :]\n\xff", rng.IntN(6)) + "]"
		switch rng.IntN(4) {
		case 0:
			s = pick("[]a z-: \n\xffA1", 1+rng.IntN(10))
		case 1:
			s = s[:rng.IntN(len(s)+1)]
		}
		texts = append(texts, s)
	}
	for _, s := range texts {
		verb, subject, ok := splitMarker(s)
		sm := markerRe.FindStringSubmatch(s)
		if ok != (sm != nil) || ok && (verb != sm[1] || subject != sm[2]) {
			t.Fatalf("splitMarker(%q) = %q, %q, %v; the expression gives %q", s, verb, subject, ok, sm)
		}
	}
}

// TestEachCodeSpanIsTheRegexp: eachCodeSpan finds the code spans the
// expression it replaced found, on texts of every shape (spans too short
// or too long, counted in characters; newlines; invalid UTF-8).
func TestEachCodeSpanIsTheRegexp(t *testing.T) {
	codeSpan := regexp.MustCompile("`([^`\n]{3,80})`")
	texts := []string{"", "`", "``", "`ab`", "`abc`", "`abc``def`", "a `b c d` e `f`", "`日本語`", "`日本`", "`\xff\xfe\xfd`",
		"`" + strings.Repeat("x", 80) + "`", "`" + strings.Repeat("x", 81) + "`", "`" + strings.Repeat("é", 80) + "`",
		"`" + strings.Repeat("é", 81) + "`", "`ab\ncd`", "``abc``", "`abc` `"}
	rng := rand.New(rand.NewPCG(7, 8))
	alphabet := []string{"`", "a", "b", " ", "\n", "é", "\xff", strings.Repeat("x", 30)}
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(16) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		var got []string
		eachCodeSpan(s, func(inner string) { got = append(got, inner) })
		var want []string
		for _, sm := range codeSpan.FindAllStringSubmatch(s, -1) {
			want = append(want, sm[1])
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q: got %q, want %q", s, got, want)
		}
	}
}

// TestTrimEditCount: trimEditCount is the expression's replacement.
func TestTrimEditCount(t *testing.T) {
	editCount := regexp.MustCompile(` \(\d+ edits?\)$`)
	for _, s := range []string{"", "a.go", "a.go (2 edits)", "a.go (1 edit)", "a.go (edits)", "a.go (2 edits) x", "(3 edits)", " (3 edits)", "a (2 edits))"} {
		if got, want := trimEditCount(s), editCount.ReplaceAllString(s, ""); got != want {
			t.Errorf("trimEditCount(%q) = %q, want %q", s, got, want)
		}
	}
}
