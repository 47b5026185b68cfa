package diff

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/testfiles"
)

// lcsDP is the textbook O(n·m) LCS, the reference for the bit-parallel one.
func lcsDP(a, b []int32) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case cur[j] >= prev[j+1]:
				cur[j+1] = cur[j]
			default:
				cur[j+1] = prev[j+1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestLCSScratchMatchesDP(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	sc := newLCSScratch(300)
	// Small alphabets make dense masks (a symbol at least once per 64
	// positions), large ones sparse masks; lengths cross word boundaries.
	for _, alpha := range []int{2, 5, 40, 300} {
		for _, n := range []int{1, 63, 64, 65, 200, 700} {
			for _, m := range []int{1, 64, 130, 900} {
				a, b := make([]int32, n), make([]int32, m)
				for i := range a {
					a[i] = int32(r.Intn(alpha))
				}
				for i := range b {
					b[i] = int32(r.Intn(alpha))
				}
				if got, want := sc.lcs(a, b), lcsDP(a, b); got != want {
					t.Fatalf("alphabet %d, %d×%d: lcs = %d, want %d", alpha, n, m, got, want)
				}
			}
		}
	}
}

func TestLCSLengthStrings(t *testing.T) {
	a := mdtext.Words("the cat sat on the mat and the dog sat on the log")
	b := mdtext.Words("a cat sat on a mat and a dog lay on the log")
	if got := LCSLength(a, b); got != 9 {
		t.Errorf("LCSLength = %d, want 9", got)
	}
}

// genBriefing writes about size bytes of varied sentences in sections from
// a vocabulary of 5000 words; with seed != 0, a share mut of the sentences
// are replaced (the others are those of seed 0, in the same order).
func genBriefing(size int, seed int64, mut float64) string {
	base := rand.New(rand.NewSource(1))
	m := rand.New(rand.NewSource(seed))
	var sb strings.Builder
	sec := 0
	for sb.Len() < size {
		if sec == 0 || base.Intn(60) == 0 {
			fmt.Fprintf(&sb, "## Section %d\n\n", sec)
			sec++
		}
		k := 6 + base.Intn(14)
		var s strings.Builder
		for i := 0; i < k; i++ {
			if i > 0 {
				s.WriteByte(' ')
			}
			fmt.Fprintf(&s, "w%x", base.Intn(5000))
		}
		line := "You " + s.String() + ". "
		if seed != 0 && m.Float64() < mut {
			line = fmt.Sprintf("You replaced w%x with w%x. ", m.Intn(5000), m.Intn(5000))
		}
		sb.WriteString(line)
		if base.Intn(5) == 0 {
			sb.WriteString("\n\n")
		}
	}
	sb.WriteString("\n")
	return sb.String()
}

func TestBoundedLCSIsALowerBound(t *testing.T) {
	a := genBriefing(40000, 0, 0)
	b := genBriefing(40000, 3, 0.2)
	exact, bounded := computeRougeL(a, b, LCSWorkBudget)
	if bounded {
		t.Fatal("40 KB briefings were bounded")
	}
	// A budget of 0 forces the approximation (each gap then gets its
	// first boundedWindow words only).
	approx, bounded := computeRougeL(a, b, 0)
	if !bounded {
		t.Fatal("budget 0: want bounded")
	}
	if approx.LCS > exact.LCS || approx.LCS < exact.LCS*9/10 {
		t.Errorf("bounded LCS %d, exact %d: want a lower bound within 10%%", approx.LCS, exact.LCS)
	}
	if approx.WordsA != exact.WordsA || approx.WordsB != exact.WordsB {
		t.Errorf("word counts differ: %+v vs %+v", approx, exact)
	}
	same, _ := computeRougeL(a, a, 0)
	if same.LCS != same.WordsA || same.F1 != 1 {
		t.Errorf("bounded LCS of a text with itself = %d of %d words", same.LCS, same.WordsA)
	}
}

func TestTokensMatchWords(t *testing.T) {
	s := "Ünïcode Words, UPPER case. And i.e. w1/src/A.ts!\nNext line? ÉTÉ été"
	d := newWordDict()
	tk := d.tokens(s)
	ws := mdtext.Words(s)
	if len(tk.ids) != len(ws) {
		t.Fatalf("%d ids for %d words", len(tk.ids), len(ws))
	}
	name := map[int32]string{}
	for w, k := range d.ids {
		name[k] = w
	}
	for i, k := range tk.ids {
		if name[k] != ws[i] {
			t.Errorf("word %d: %q, want %q", i, name[k], ws[i])
		}
	}
	if tk.segs[len(tk.segs)-1] != int32(len(tk.ids)) || len(tk.segs) < 4 {
		t.Errorf("segments %v", tk.segs)
	}
}

func TestSentenceReuseBudget(t *testing.T) {
	a := mdtext.NewBriefing("You changed the teal button. The user approved the change. Tests passed.")
	b := mdtext.NewBriefing("You changed the teal button. The change was approved by the user.")
	total, reused, bounded := sentenceReuse(a, b, ReuseVisitBudget)
	if total != 3 || reused != 2 || bounded {
		t.Fatalf("exact: %d/%d bounded %v, want 2/3 false", reused, total, bounded)
	}
	// Budget 1: the first paraphrase query spends it; later sentences
	// count only when repeated verbatim.
	b = mdtext.NewBriefing("The change was approved by the user. You changed the teal button.")
	a = mdtext.NewBriefing("The user approved the change. Tests passed. You changed the teal button.")
	total, reused, bounded = sentenceReuse(a, b, 1)
	if total != 3 || reused != 2 || !bounded {
		t.Fatalf("budget 1: %d/%d bounded %v, want 2/3 true", reused, total, bounded)
	}
}

// TestCompareHugeBriefingsIsBounded compares two runaway briefings (about
// 4 MB each, 1 MB under the race detector): it must finish in seconds, not
// minutes, and say which measures were approximated.
func TestCompareHugeBriefingsIsBounded(t *testing.T) {
	size, limit := 4<<20, 8*time.Second
	if testfiles.Race {
		size, limit = 1<<20, 20*time.Second
	}
	if testing.Short() {
		size = 1 << 20
	}
	a := genBriefing(size, 0, 0)
	b := genBriefing(size, 2, 0.1)
	start := time.Now()
	c := Compare(Input{Bundle: "huge", AFile: "a.md", BFile: "b.md", A: a, B: b, WithDiffs: true})
	took := time.Since(start)
	t.Logf("%d+%d bytes: %v; bounded %v; %+v", len(a), len(b), took, c.Bounded, c.Similarity)
	if took > limit {
		t.Errorf("Compare took %v, want under %v", took, limit)
	}
	if !slices.Contains(c.Bounded, BoundedRougeL) {
		t.Errorf("bounded = %v, want rougeL", c.Bounded)
	}
	// 10% of the sentences replaced: the approximation stays close.
	if f := c.Similarity.RougeL.F1; f < 0.85 || f > 0.95 {
		t.Errorf("ROUGE-L F1 = %v, want about 0.9", f)
	}
	var txt, js bytes.Buffer
	r := NewReport([]*Comparison{c}, nil, nil)
	if err := r.WriteText(&txt, TextOptions{Stat: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "\nbounded     rougeL") {
		t.Errorf("text output has no bounded line:\n%s", firstLines(txt.String(), 20))
	}
	r.Comparisons[0].Sections = nil // keep the JSON small
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"bounded": [`+"\n") || !strings.Contains(js.String(), `"rougeL"`+"\n") {
		t.Errorf("JSON has no bounded field")
	}
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	return strings.Join(ls[:min(n, len(ls))], "\n")
}

// TestNormalSizeIsExact: briefings of normal size are measured exactly
// and report nothing bounded (the goldens hold the values themselves).
func TestNormalSizeIsExact(t *testing.T) {
	a := genBriefing(100<<10, 0, 0)
	b := genBriefing(100<<10, 4, 0.3)
	c := Compare(Input{A: a, B: b})
	if c.Bounded != nil {
		t.Errorf("bounded = %v, want none", c.Bounded)
	}
	d := newWordDict()
	want := lcsDP(d.tokens(a).ids[:3000], d.tokens(b).ids[:3000])
	if got := LCSLength(mdtext.Words(a)[:3000], mdtext.Words(b)[:3000]); got != want {
		t.Errorf("LCSLength = %d, want %d", got, want)
	}
	for _, g := range []*Comparison{goldenReport(true).Comparisons[0], goldenReport(true).Comparisons[1]} {
		if g.Bounded != nil {
			t.Errorf("%s: bounded %v", g.Bundle, g.Bounded)
		}
	}
}
