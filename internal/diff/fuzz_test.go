package diff

import (
	"testing"
	"unicode/utf8"
)

// FuzzCompare feeds arbitrary briefings and histories through every measure:
// nothing may panic, and the counts must add up.
func FuzzCompare(f *testing.F) {
	f.Add(goldenA1, goldenB1, goldenHistory1)
	f.Add(goldenA2, goldenB2, goldenHistory2)
	f.Add("", "", "")
	f.Add("## A\n\n```\n## B", "#fff rgb( [](path:", "<previous-chat-history><user><slash-command><![CDATA[")
	f.Add("[x](y \"t\") w1/ w1a/b w9/é.ts.", "- a\n| b |\n# c", "<user>No, don't. Use x instead, not y.</user><assistant>[a: w1/b ✗ c]\n[shell: d → exit -2]\n[e → timed out]</assistant>")
	f.Fuzz(func(t *testing.T, a, b, h string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || !utf8.ValidString(h) {
			return
		}
		c := Compare(Input{A: a, B: b, History: h, HasHistory: true, WithDiffs: true, PreviousChars: 10, HasPrevious: true})
		for _, s := range []Side{c.A, c.B} {
			if len(s.Kept)+len(s.Lost) != c.ItemCount {
				t.Fatalf("kept %d + lost %d != %d items", len(s.Kept), len(s.Lost), c.ItemCount)
			}
		}
		if f := c.Similarity.RougeL.F1; f < 0 || f > 1 {
			t.Fatalf("F1 %v", f)
		}
		if c.Similarity.SentencesReused > c.Similarity.SentencesA {
			t.Fatalf("reuse %+v", c.Similarity)
		}
	})
}
