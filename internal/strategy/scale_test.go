package strategy

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/testfiles"
)

// ScaleEnv names the environment variable that turns
// TestStrategiesScaleLinearly into the benchmark of bench/strategies.sh:
// the number of messages of the large history (400000 there).
const ScaleEnv = "COMPACT_BENCH_STRATEGIES"

// TestStrategiesScaleLinearly runs every strategy on a coding-agent
// history of n messages and of 4n, and fits what each run costs to n^e,
// for the CPU time and for the bytes allocated: a strategy is linear when
// e is about 1 (quadratic is 2). Onyx was quadratic (issue 28: at each
// compaction it looked the active summary up over a map of the whole
// branch, and its cutoff by id from the start of the history: 400,000
// messages took 40 s). The allocations do not depend on the machine's
// load; the CPU time does, so the least of several runs counts, and the
// small history is simulated four times in a row for each timing (the
// same work and the same bytes allocated as one run of the large one).
//
// The short version (10,000 and 40,000 messages in this process, a small
// window: many compactions, where Onyx's showed; the summarizer returns a
// fixed text, the builtin briefing writer would take most of the time)
// wants the allocations' e at most 1.1 and logs the time's. With
// COMPACT_BENCH_STRATEGIES=400000 (bench/strategies.sh) the histories have
// 100,000 and 400,000 messages, the window is the default, the summarizer
// the builtin one, and both exponents must be at most 1.1; each size is
// measured in a process of its own (the test binary run again), as a
// user's run is: with both histories and the large run's 200,000 step
// reports alive in one process, the garbage collector marks more at each
// of its cycles in the large run, and the strategies that allocate most
// looked superlinear (up to 1.3) when they are not (0.96 to 1.00 with the
// collector off). COMPACT_BENCH_STRATEGIES_ONLY=onyx,stagewise runs only
// those.
func TestStrategiesScaleLinearly(t *testing.T) {
	if child := os.Getenv(ScaleEnv + "_CHILD"); child != "" {
		scaleChild(t, child)
		return
	}
	n, window, runs, bench := 10000, 6000, 2, false
	var sum Summarizer = constant(strings.Repeat("The work so far, summarized. ", 20))
	if v := os.Getenv(ScaleEnv); v != "" {
		big, err := strconv.Atoi(v)
		if err != nil || big < 4 {
			t.Fatalf("%s=%q: want a number of messages", ScaleEnv, v)
		}
		n, window, runs, bench = big/4, 0, 5, true
	} else if testing.Short() || testfiles.Race {
		t.Skip("scaling test: not with -short or -race")
	}
	const limit = 1.1
	names := Names()
	if only := os.Getenv(ScaleEnv + "_ONLY"); only != "" {
		names = strings.Split(only, ",")
	}
	var small, big map[string]scaleResult
	if bench {
		small, big = scaleProcess(t, n, 4, runs, names), scaleProcess(t, 4*n, 1, runs, names)
	} else {
		cfg := Config{ContextWindow: window}
		small, big = scaleRuns(t, benchHistory(n), cfg, sum, 4, runs, names), scaleRuns(t, benchHistory(4*n), cfg, sum, 1, runs, names)
	}
	exp := func(a, b float64) float64 { return math.Log(b/max(a, 1)) / math.Log(4) }
	for _, name := range names {
		s, b := small[name], big[name]
		et, ea := exp(float64(s.cpu), float64(b.cpu)), exp(float64(s.alloc), float64(b.alloc))
		t.Logf("%-20s %7d messages %8v %6.1f MB, %7d messages %8v %6.1f MB: exponent %.2f (time), %.2f (allocations); %d compactions, %d summarizer calls",
			name, n, s.cpu.Round(time.Millisecond), float64(s.alloc)/1e6, 4*n, b.cpu.Round(time.Millisecond), float64(b.alloc)/1e6, et, ea, b.compactions, b.calls)
		if b.compactions == 0 {
			t.Errorf("%s: no compaction on %d messages: the test measures nothing", name, 4*n)
		}
		if ea > limit {
			t.Errorf("%s: allocated %d bytes for %d messages, %d for %d: exponent %.2f, want at most %.1f", name, s.alloc, n, b.alloc, 4*n, ea, limit)
		}
		if bench && et > limit {
			t.Errorf("%s: %v for %d messages, %v for %d: exponent %.2f, want at most %.1f", name, s.cpu, n, b.cpu, 4*n, et, limit)
		}
	}
}

// scaleResult is what one strategy's run costs: the least CPU time of
// the runs, the bytes it allocates, and its compactions and summarizer
// calls.
type scaleResult struct {
	cpu                time.Duration
	alloc              uint64
	compactions, calls int
}

// scaleRuns simulates h with every strategy of names, runs times, each
// time times simulations in a row, and gives the figures of one.
func scaleRuns(t *testing.T, h []Message, cfg Config, sum Summarizer, times, runs int, names []string) map[string]scaleResult {
	out := map[string]scaleResult{}
	for _, name := range names {
		r := scaleResult{cpu: time.Duration(math.MaxInt64)}
		if _, err := Simulate(context.Background(), h, name, cfg, sum); err != nil { // warm up
			t.Fatal(err)
		}
		for range runs {
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			start := cpuTime()
			for range times {
				tl, err := Simulate(context.Background(), h, name, cfg, sum)
				if err != nil {
					t.Fatal(err)
				}
				r.compactions, r.calls = tl.Compactions, tl.SummarizerCalls
			}
			r.cpu = min(r.cpu, (cpuTime()-start)/time.Duration(times))
			runtime.ReadMemStats(&m1)
			r.alloc = (m1.TotalAlloc - m0.TotalAlloc) / uint64(times)
		}
		out[name] = r
	}
	return out
}

// scaleProcess measures a history of n messages (default window, builtin
// summarizer) in a process of its own: the test binary, run again with
// COMPACT_BENCH_STRATEGIES_CHILD=n,times,runs.
func scaleProcess(t *testing.T, n, times, runs int, names []string) map[string]scaleResult {
	cmd := exec.Command(os.Args[0], "-test.run=^TestStrategiesScaleLinearly$", "-test.count=1", "-test.timeout=60m")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s_CHILD=%d,%d,%d", ScaleEnv, n, times, runs), ScaleEnv+"_ONLY="+strings.Join(names, ","))
	cmd.Stderr = os.Stderr
	data, err := cmd.Output()
	if err != nil {
		t.Fatalf("%d messages: %v\n%s", n, err, data)
	}
	out := map[string]scaleResult{}
	for _, l := range strings.Split(string(data), "\n") {
		var name string
		var r scaleResult
		if k, _ := fmt.Sscanf(l, "scale %s %d %d %d %d", &name, &r.cpu, &r.alloc, &r.compactions, &r.calls); k == 5 {
			out[name] = r
		}
	}
	if len(out) != len(names) {
		t.Fatalf("%d messages: %d results of %d:\n%s", n, len(out), len(names), data)
	}
	return out
}

// scaleChild is the measuring process of scaleProcess: spec is
// "n,times,runs"; it prints one line per strategy.
func scaleChild(t *testing.T, spec string) {
	var n, times, runs int
	if _, err := fmt.Sscanf(spec, "%d,%d,%d", &n, &times, &runs); err != nil {
		t.Fatalf("%s_CHILD=%q: %v", ScaleEnv, spec, err)
	}
	names := strings.Split(os.Getenv(ScaleEnv+"_ONLY"), ",")
	res := scaleRuns(t, benchHistory(n), Config{}, Builtin{}, times, runs, names)
	for _, name := range names {
		r := res[name]
		fmt.Printf("scale %s %d %d %d %d\n", name, int64(r.cpu), r.alloc, r.compactions, r.calls)
	}
}

// constant is a summarizer that always writes the same text.
type constant string

func (c constant) Summarize(context.Context, SummaryRequest) (string, error) { return string(c), nil }

// BenchmarkStrategies simulates a history of 20,000 messages with every
// strategy.
func BenchmarkStrategies(b *testing.B) {
	h := benchHistory(20000)
	for _, name := range Names() {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Simulate(context.Background(), h, name, Config{}, nil); err != nil {
					b.Fatal(fmt.Errorf("%s: %w", name, err))
				}
			}
		})
	}
}
