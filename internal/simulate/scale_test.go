package simulate

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/strategy"
	"github.com/compactlab/compact/internal/testfiles"
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
	simulateWith(t, path, strategy.Config{ContextWindow: window}, strategy.Builtin{})
}

// simulateWith is simulateFile with the configuration cfg and the
// summarizer sum.
func simulateWith(t testing.TB, path string, cfg strategy.Config, sum strategy.Summarizer) {
	in, _, err := ReadJSONL(path, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []*Input{in}, Options{
		Strategies: []string{strategy.NameStagewise}, SummarizerName: "builtin", Summarizer: sum, Base: cfg,
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
	if testing.Short() || testfiles.Race {
		t.Skip("timing test: not with -short or -race")
	}
	const n = 5000
	small, big := chainJSONL(t, n), chainJSONL(t, 4*n)
	best := func(path string, runs int) time.Duration {
		d := time.Duration(1 << 62)
		for range runs {
			start := cpuTime()
			simulateFile(t, path, 0)
			d = min(d, cpuTime()-start)
		}
		return d
	}
	simulateFile(t, small, 0) // warm up
	ts := best(small, 3)
	tb := best(big, 2)
	t.Logf("%d messages: %v; %d messages: %v of CPU time (%.1fx)", n, ts, 4*n, tb, float64(tb)/float64(ts))
	if tb > 8*ts {
		t.Errorf("%d messages took %v, %d took %v: %.1fx for 4x the messages, want at most 8x", n, ts, 4*n, tb, float64(tb)/float64(ts))
	}
}

// measuring is the builtin summarizer, counting what it is given to read
// and the longest summary it writes.
type measuring struct {
	mu      sync.Mutex
	read    int // bytes of compact history, over every call
	longest int // UTF-16 units
}

func (m *measuring) Summarize(ctx context.Context, req strategy.SummaryRequest) (string, error) {
	s, err := strategy.Builtin{}.Summarize(ctx, req)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.read += len(req.CompactHistory)
	m.longest = max(m.longest, history.Len16(s))
	return s, err
}

// TestSimulateSmallWindowScalesLinearly is the regression test of issue
// 14's small window: with many compactions, each briefing carried the
// previous one whole (every section kept, shortened at most), so it grew
// with every compaction past its target, without bound, and each
// compaction re-read all of it: a linear history of 6,000 messages took
// 7 s with --context-window 4000, 24,000 took 96 s and 3 GB. A small
// briefing target makes the chain long in few messages (the old code
// wrote 37,725 characters for a target of 3,000 at 1,000 messages, and
// took 28 times as long for 4 times the messages). Every briefing must
// keep the target; four times the messages must give the summarizer at
// most six times as much to read (the old code: 34 times) and take at
// most eight times as long (quadratic is sixteen).
func TestSimulateSmallWindowScalesLinearly(t *testing.T) {
	cfg := strategy.Config{ContextWindow: 4000, TargetChars: 3000}
	n := 1000
	if testfiles.Race {
		n = 500
	}
	small, big := chainJSONL(t, n), chainJSONL(t, 4*n)
	// best runs path and returns its fastest time and what it measured.
	best := func(path string, runs int) (time.Duration, *measuring) {
		d, m := time.Duration(1<<62), &measuring{}
		for range runs {
			m = &measuring{}
			start := cpuTime()
			simulateWith(t, path, cfg, m)
			d = min(d, cpuTime()-start)
		}
		return d, m
	}
	ts, ms := best(small, 3)
	tb, mb := best(big, 2)
	for _, c := range []struct {
		n int
		m *measuring
	}{{n, ms}, {4 * n, mb}} {
		if c.m.longest > cfg.TargetChars {
			t.Errorf("%d messages: a briefing of %d characters, over the target %d", c.n, c.m.longest, cfg.TargetChars)
		}
	}
	t.Logf("compact history read: %d messages %d bytes, %d messages %d bytes (%.1fx)", n, ms.read, 4*n, mb.read, float64(mb.read)/float64(ms.read))
	if mb.read > 6*ms.read {
		t.Errorf("the summarizer read %d bytes for %d messages, %d for %d: %.1fx for 4x the messages, want at most 6x",
			ms.read, n, mb.read, 4*n, float64(mb.read)/float64(ms.read))
	}
	t.Logf("%d messages: %v; %d messages: %v of CPU time (%.1fx)", n, ts, 4*n, tb, float64(tb)/float64(ts))
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
