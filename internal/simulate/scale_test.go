package simulate

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/strategy"
)

// chainJSONL writes a linear history of n messages, each the parent of
// the next (the shape of bench/genjsonl -shape chain).
func chainJSONL(t testing.TB, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		role, parent := "user", ""
		if i%2 == 1 {
			role = "assistant"
		}
		if i > 0 {
			parent = fmt.Sprintf(`"parent_id":"m%d",`, i-1)
		}
		fmt.Fprintf(&b, `{"id":"m%d",%s"role":%q,"content":"message %d: please look at w1/src/file%d.ts and tell me what it does"}`+"\n", i, parent, role, i, i%97)
	}
	p := filepath.Join(t.TempDir(), fmt.Sprintf("chain%d.jsonl", n))
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// simulateFile is `compact simulate --jsonl path` without the command:
// read, run stagewise with the builtin summarizer, write the text.
func simulateFile(t testing.TB, path string, window int) {
	in, _, err := ReadJSONL(path, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []*Input{in}, Options{
		Strategies: []string{strategy.NameStagewise}, SummarizerName: "builtin",
		Base: strategy.Config{ContextWindow: window},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteText(io.Discard); err != nil {
		t.Fatal(err)
	}
	if rep.Compactions() == 0 {
		t.Fatalf("%s: no compaction: the test should measure the retention of a summary", path)
	}
}

// TestSimulateScalesLinearly is the regression test of issue 14: simulate
// on a 200,000-message linear history took 115 s, quadratic in the
// history (the must-keep retention parsed the whole compacted history,
// looking ahead to its end for every turn). Four times the messages must
// not cost more than eight times the time (quadratic is sixteen).
func TestSimulateScalesLinearly(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("timing test: not with -short or -race")
	}
	const n = 5000
	small, big := chainJSONL(t, n), chainJSONL(t, 4*n)
	best := func(path string, runs int) time.Duration {
		d := time.Duration(1 << 62)
		for range runs {
			start := time.Now()
			simulateFile(t, path, 0)
			d = min(d, time.Since(start))
		}
		return d
	}
	simulateFile(t, small, 0) // warm up
	ts := best(small, 3)
	tb := best(big, 2)
	t.Logf("%d messages: %v; %d messages: %v (%.1fx)", n, ts, 4*n, tb, float64(tb)/float64(ts))
	if tb > 8*ts {
		t.Errorf("%d messages took %v, %d took %v: %.1fx for 4x the messages, want at most 8x", n, ts, 4*n, tb, float64(tb)/float64(ts))
	}
}

// BenchmarkSimulateChain simulates linear histories with the default
// window and with a small one (many compactions).
func BenchmarkSimulateChain(b *testing.B) {
	for _, bc := range []struct{ n, window int }{{20000, 0}, {6000, 20000}} {
		b.Run(fmt.Sprintf("n=%d/window=%d", bc.n, bc.window), func(b *testing.B) {
			p := chainJSONL(b, bc.n)
			for b.Loop() {
				simulateFile(b, p, bc.window)
			}
		})
	}
}
