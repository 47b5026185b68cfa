package convo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/testfiles"
)

// cycleJSONL is a tree: a root u0 with one child, then a cycle of n
// messages c0 … c{n-1}, each the parent of the next and c{n-1} the parent
// of c0, then a chain of below messages hanging from c0.
func cycleJSONL(n, below int) string {
	var b strings.Builder
	b.WriteString(`{"id":"u0","role":"user","content":"root"}` + "\n")
	b.WriteString(`{"id":"a0","parent_id":"u0","role":"assistant","content":"fine"}` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id":"c%d","parent_id":"c%d","role":"user","content":"m"}`+"\n", i, (i+n-1)%n)
	}
	for i := 0; i < below; i++ {
		parent := fmt.Sprintf("b%d", i-1)
		if i == 0 {
			parent = "c0"
		}
		fmt.Fprintf(&b, `{"id":"b%d","parent_id":%q,"role":"assistant","content":"m"}`+"\n", i, parent)
	}
	return b.String()
}

// TestReadJSONLCycleReportedOnce is the regression test of issue 14: a
// cycle of n messages was reported on each of its n lines with the whole
// cycle spelled out (n² output: 2.4 GB of problems for n = 10,000, and the
// process killed for memory at 100,000). Now a cycle is one problem, on
// its first line, naming its length and a few of its ids; what hangs below
// it gets a short problem each; memory and time are linear.
func TestReadJSONLCycleReportedOnce(t *testing.T) {
	parent := t
	// The large cycle has 100,000 members; 10,000 under the race detector
	// (one goroutine: it finds no race in a larger input, only takes ten
	// times longer). The output bound below is per problem, not per
	// member, so 10,000 members already show n² output (100 MB of
	// problems before issue 14); BenchmarkReadJSONLCycle times 100,000.
	large := 100_000
	if testfiles.Race {
		large = 10_000
	}
	for _, tc := range []struct {
		n, below int
	}{
		{n: 1000, below: 10},
		{n: large, below: 1000},
	} {
		t.Run(fmt.Sprintf("%d members", tc.n), func(t *testing.T) {
			if parent.Failed() {
				t.Skip("the small cycle failed already")
			}
			in := cycleJSONL(tc.n, tc.below)
			h, err := ReadJSONL(strings.NewReader(in), "cycle.jsonl", JSONLOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(h.Branch); got != "u0 a0" {
				t.Errorf("branch = %q, want the root's branch", got)
			}
			if len(h.Problems) != 1+tc.below {
				t.Fatalf("%d problems, want 1 for the cycle and %d for the lines below it; first: %.300s",
					len(h.Problems), tc.below, h.Problems[0].Message)
			}
			p := h.Problems[0]
			// "→" reads "whose parent is": c0's parent is c{n-1}.
			n := tc.n
			wantHead := fmt.Sprintf(`parent cycle of %d messages: "c0" (line 3) → "c%d" (line %d) → "c%d" (line %d) → "c%d" (line %d) → … %d more … → "c1" (line 4) → "c0": `,
				n, n-1, n+2, n-2, n+1, n-3, n, n-5)
			if p.Line != 3 || p.ID != "c0" || !strings.HasPrefix(p.Message, wantHead) {
				t.Errorf("cycle problem = line %d id %q %.300q, want line 3 id c0 %q…", p.Line, p.ID, p.Message, wantHead)
			}
			if n := strings.Count(p.Message, "(line "); n > cycleShown {
				t.Errorf("the cycle problem names %d members, want at most %d", n, cycleShown)
			}
			total := 0
			for i, q := range h.Problems {
				total += len(q.String())
				if i == 0 {
					continue
				}
				if want := "below the parent cycle reported on line 3; left out"; q.Message != want {
					t.Fatalf("problem %d = %q, want %q", i, q, want)
				}
			}
			// Linear output: a bounded number of bytes per problem.
			if limit := 300 + 100*tc.below; total > limit {
				t.Errorf("problems take %d bytes, want at most %d", total, limit)
			}
			// The cycle's members cannot be the branch's leaf.
			if _, err := ReadJSONL(strings.NewReader(in), "cycle.jsonl", JSONLOptions{Leaf: fmt.Sprintf("c%d", tc.n/2)}); err == nil ||
				!strings.Contains(err.Error(), fmt.Sprintf("line %d was left out", tc.n/2+3)) {
				t.Errorf("--leaf on the cycle: err = %v", err)
			}
		})
	}
}

// TestReadJSONLCycleEnteredFromBelow: the walk that finds a cycle may
// enter it anywhere (here from a child on an earlier line); the cycle is
// still reported on its first line, starting with that member.
func TestReadJSONLCycleEnteredFromBelow(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"z","parent_id":"y","role":"user","content":"below, first in the file"}`,
		`{"id":"x","parent_id":"y","role":"user","content":"x"}`,
		`{"id":"y","parent_id":"x","role":"assistant","content":"y"}`,
		`{"id":"r","role":"user","content":"root"}`,
	}, "\n")
	h, err := ReadJSONL(strings.NewReader(in), "f", JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(problemLines(h.Problems), "\n")
	want := `line 1: below the parent cycle reported on line 2; left out
line 2: parent cycle of 2 messages: "x" (line 2) → "y" (line 3) → "x": no root above it; the cycle and everything below it are left out`
	if got != want {
		t.Errorf("problems:\n%s\nwant:\n%s", got, want)
	}
	if ids(h.Branch) != "r" {
		t.Errorf("branch = %q", ids(h.Branch))
	}
}

// TestCycleDesc: every member of a short cycle, a few of a long one.
func TestCycleDesc(t *testing.T) {
	mk := func(n int) []*rec {
		var out []*rec
		for i := 0; i < n; i++ {
			rc := &rec{line: i + 1}
			rc.msg.ID = fmt.Sprintf("m%d", i)
			out = append(out, rc)
		}
		return out
	}
	for n, want := range map[int]string{
		1: `"m0" (line 1) → "m0"`,
		5: `"m0" (line 1) → "m1" (line 2) → "m2" (line 3) → "m3" (line 4) → "m4" (line 5) → "m0"`,
		6: `"m0" (line 1) → "m1" (line 2) → "m2" (line 3) → "m3" (line 4) → … 1 more … → "m5" (line 6) → "m0"`,
	} {
		if got := cycleDesc(mk(n)); got != want {
			t.Errorf("cycleDesc(%d) = %s, want %s", n, got, want)
		}
	}
}

// BenchmarkReadJSONLCycle times the cycle of 100,000 members that was
// quadratic before issue 14 (the test above holds its output linear; the
// time lives here, not in a timed test).
func BenchmarkReadJSONLCycle(b *testing.B) {
	in := cycleJSONL(100_000, 1000)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ReadJSONL(strings.NewReader(in), "cycle.jsonl", JSONLOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
