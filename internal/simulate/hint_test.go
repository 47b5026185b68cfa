package simulate

import (
	"testing"

	"github.com/compactlab/compact/internal/strategy"
)

func TestSuggestWindow(t *testing.T) {
	tests := []struct {
		peak float64
		want int
	}{
		{18113, 14000}, {5998, 4700}, {12113, 9600}, {860, 680}, {1250, 1000}, {100, 80}, {12, 0}, {0, 0},
	}
	for _, tc := range tests {
		if got := SuggestWindow(tc.peak); got != tc.want {
			t.Errorf("SuggestWindow(%v) = %d, want %d", tc.peak, got, tc.want)
		}
	}
}

func TestHint(t *testing.T) {
	// r is a run of strategy name with window win (0: the default) whose
	// context peaks at peak; fired says whether its trigger fired.
	r := func(name string, win int, peak float64, fired bool) run {
		tl := &strategy.Timeline{PeakContext: peak, Steps: []strategy.StepReport{{ContextTokens: peak, Boundary: -1, Fired: fired}}}
		return run{job{name: name, cfg: strategy.Config{ContextWindow: win}}, result{tl: tl}}
	}
	compacted := func(x run) run { x.tl.Compactions = 1; return x }
	rejected := func(x run) run { x.tl.Rejected = 1; return x }
	winSweep, _ := ParseSweep("context_window=1000")
	thSweep, _ := ParseSweep("threshold=0.5")
	tests := []struct {
		name  string
		kind  kind
		sweep *Sweep
		names []string
		runs  []run
		want  string
	}{
		{"one strategy, nothing fired", kindTimelines, nil, []string{"stagewise"},
			[]run{r("stagewise", 200000, 18113, false), r("stagewise", 400000, 4724, false)},
			"no compaction fired: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 14000"},
		{"the largest share, not the largest context", kindRecorded, nil, []string{"stagewise"},
			[]run{r("stagewise", 400000, 20000, false), r("stagewise", 100000, 10000, false)},
			"no compaction fired: the largest context is 10% of its window (10,000 of 100,000 tokens); try --context-window 16000"},
		{"the default window", kindTimelines, nil, []string{"onyx"},
			[]run{r("onyx", 0, 463, false)},
			"no compaction fired: the largest context is under 1% of its window (463 of 128,000 tokens); try --context-window 370"},
		{"some strategies fired", kindCompare, nil, []string{"stagewise", "onyx", "sliding-window"},
			[]run{r("stagewise", 200000, 18113, false), compacted(r("onyx", 200000, 5998, false)), r("sliding-window", 200000, 12113, false)},
			"no compaction fired for stagewise, sliding-window: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 9600"},
		{"no strategy fired", kindCompare, nil, []string{"stagewise", "onyx"},
			[]run{r("stagewise", 200000, 18113, false), r("onyx", 200000, 5998, false)},
			"no compaction fired for any strategy: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 4700"},
		{"a sweep of another knob", kindSweep, thSweep, []string{"stagewise"},
			[]run{r("stagewise", 200000, 18113, false), r("stagewise", 200000, 18113, false)},
			"no compaction fired: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 14000"},
		{"every strategy fired", kindCompare, nil, []string{"stagewise", "onyx"},
			[]run{compacted(r("stagewise", 8000, 9000, true)), r("onyx", 8000, 5000, true)}, ""},
		{"a rejected compaction is a fired trigger", kindTimelines, nil, []string{"stagewise"},
			[]run{rejected(r("stagewise", 200000, 18113, false))}, ""},
		{"a sweep of the window", kindSweep, winSweep, []string{"stagewise"},
			[]run{r("stagewise", 1000, 800, false)}, ""},
		{"the window is already small", kindTimelines, nil, []string{"stagewise"},
			[]run{r("stagewise", 10000, 18113, false)}, ""},
		{"one small window among large ones", kindTimelines, nil, []string{"stagewise"},
			[]run{r("stagewise", 200000, 18113, false), r("stagewise", 12000, 100, false)}, ""},
		{"no context at all", kindTimelines, nil, []string{"stagewise"},
			[]run{r("stagewise", 200000, 0, false)}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := &Report{kind: tc.kind, opts: Options{Strategies: tc.names, Sweep: tc.sweep}, runs: tc.runs}
			if got := rep.Hint(); got != tc.want {
				t.Errorf("hint:\n%q\nwant:\n%q", got, tc.want)
			}
		})
	}
}
