package mdtext

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The scanners of scan.go against the regular expressions they replace (the
// mount-path matcher they use is tested the same way in paths_test.go).
var (
	refLinkRe      = regexp.MustCompile(`\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"\n]*")?\)`)
	refColorFuncRe = regexp.MustCompile(`(?i)\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\([^()\n]{1,60}\)`)
)

func randomText(r *rand.Rand, pieces []string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

func TestScannersMatchTheirRegularExpressions(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	pieces := []string{"[", "]", "(", ")", " ", "\n", "\"", "t", "path:", "w1", "w1a2", "/", "src", ".", "é", "x", ":",
		"rgb", "RGBA", "hsl", "oklch", "_", "9", "#", "fff", "0f766e", "-", "abcdefgh", "w", "A"}
	for n := 0; n < 5000; n++ {
		s := randomText(r, pieces, 1+r.Intn(30))
		var wantLinks, gotLinks [][2]int
		for _, m := range refLinkRe.FindAllStringIndex(s, -1) {
			wantLinks = append(wantLinks, [2]int{m[0], m[1]})
		}
		for _, l := range scanLinks(s) {
			gotLinks = append(gotLinks, [2]int{l.start, l.end})
		}
		if d := cmp.Diff(wantLinks, gotLinks); d != "" {
			t.Fatalf("links of %q (-want +got):\n%s", s, d)
		}
		want := refColorFuncRe.FindAllString(s, -1)
		if got := colorFuncValues(s); !cmp.Equal(want, got, cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") })) {
			t.Fatalf("colour functions of %q: want %q, got %q", s, want, got)
		}
	}
}

// TestScanLinksIsLinear: a long line full of '[' and no ']' (a terminal
// escape sequence repeated, "\x1b[2J"), or of "[a](" and no ')', or of
// `[a](b "` and no closing '"', is scanned once, not once from each '['
// (1.5 MB took minutes in diff, eval and report before).
func TestScanLinksIsLinear(t *testing.T) {
	for _, unit := range []string{"\x1b[2J ", "[a](b", `[a](b "c`, "[", "[a]("} {
		s := strings.Repeat(unit, (4<<20)/len(unit))
		start := time.Now()
		if ls := scanLinks(s); len(ls) != 0 {
			t.Errorf("%q: %d links", unit, len(ls))
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("%q × %d: %v", unit, len(s)/len(unit), el)
		}
	}
	// And the longer texts of the random test.
	r := rand.New(rand.NewSource(8))
	pieces := []string{"[", "]", "(", ")", " ", "\n", "\"", "t", "path:", "x", "[a](", "b \""}
	for n := 0; n < 500; n++ {
		s := randomText(r, pieces, 1+r.Intn(400))
		var want, got [][2]int
		for _, m := range refLinkRe.FindAllStringIndex(s, -1) {
			want = append(want, [2]int{m[0], m[1]})
		}
		for _, l := range scanLinks(s) {
			got = append(got, [2]int{l.start, l.end})
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("links of %q (-want +got):\n%s", s, d)
		}
	}
}
