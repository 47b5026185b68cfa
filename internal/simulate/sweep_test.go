package simulate

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/strategy"
)

func TestParseSweep(t *testing.T) {
	tests := []struct {
		spec   string
		knob   string
		values []float64
		err    string
	}{
		{"threshold=0.4:0.8:0.05", "threshold", []float64{0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8}, ""},
		{"context_window=100000:200000:50000", "context_window", []float64{100000, 150000, 200000}, ""},
		{"context-window=8000", "context_window", []float64{8000}, ""},
		{"recent_ratio=0.1:0.3:0.1", "recent_ratio", []float64{0.1, 0.2, 0.3}, ""},
		{"kept_fraction=0.1:0.2:0.05", "kept_fraction", []float64{0.1, 0.15, 0.2}, ""},
		{"threshold=-1", "threshold", []float64{-1}, ""},
		{"tool_result_cap=-1", "tool_result_cap", []float64{-1}, ""},
		{" threshold = 0.5 : 0.6 : 0.1", "threshold", []float64{0.5, 0.6}, ""},
		{"threshold=1e-1:3e-1:1e-1", "threshold", []float64{0.1, 0.2, 0.3}, ""},
		{"threshold", "", nil, "want knob=from:to:step"},
		{"=1", "", nil, "want knob=from:to:step"},
		{"colour=1:2:1", "", nil, `unknown knob "colour"`},
		{"threshold=0.8:0.4:0.1", "", nil, "is above to"},
		{"threshold=0.4:0.8:0", "", nil, "must be positive"},
		{"threshold=0.4:x:0.1", "", nil, `"x" is not a number`},
		{"threshold=NaN", "", nil, `"NaN" is not a number`},
		{"recent_buffer=1.5", "", nil, "takes whole numbers"},
		{"reserved=-5", "", nil, "is negative"},
		{"kept_cap=-5", "", nil, "is negative"},
		{"threshold=0:1000:0.0001", "", nil, "more than 1000"},
		{"threshold=1:2", "", nil, "want from:to:step or one value"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := ParseSweep(tc.spec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Knob.Name != tc.knob || !slices.Equal(s.Values, tc.values) {
				t.Errorf("knob %q values %v, want %q %v", s.Knob.Name, s.Values, tc.knob, tc.values)
			}
		})
	}
}

func TestKnobSet(t *testing.T) {
	seven := 7
	tests := []struct {
		spec string
		want strategy.Config
	}{
		{"threshold=0.3", strategy.Config{Threshold: 0.3}},
		{"context_window=8000", strategy.Config{ContextWindow: 8000}},
		{"system_overhead=100", strategy.Config{SystemOverhead: 100}},
		{"reserved=5", strategy.Config{Reserved: 5}},
		{"recent_ratio=0.5", strategy.Config{RecentRatio: 0.5}},
		{"recent_buffer=4", strategy.Config{RecentBuffer: 4}},
		{"tool_result_cap=-1", strategy.Config{ToolResultCap: -1}},
		{"prune_threshold=10", strategy.Config{PruneThreshold: 10}},
		{"prune_extract=20", strategy.Config{PruneExtract: 20}},
		{"max_consecutive=3", strategy.Config{MaxConsecutive: 3}},
		{"min_uncompressed=7", strategy.Config{MinUncompressed: &seven}},
		{"target_chars=900", strategy.Config{TargetChars: 900}},
		{"kept_fraction=0.3", strategy.Config{Extra: map[string]float64{"kept_fraction": 0.3}}},
	}
	if len(tests) != len(knobs)+1 {
		t.Errorf("%d cases for %d knobs", len(tests), len(knobs))
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := ParseSweep(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			var c strategy.Config
			s.Knob.Set(&c, s.Values[0])
			if !reflect.DeepEqual(c, tc.want) {
				t.Errorf("config %+v, want %+v", c, tc.want)
			}
		})
	}
	// An extra knob does not change the map it was given.
	s, _ := ParseSweep("kept_cap=100")
	orig := map[string]float64{"hard_cap": 5}
	c := strategy.Config{Extra: orig}
	s.Knob.Set(&c, 100)
	if len(orig) != 1 || c.Extra["hard_cap"] != 5 || c.Extra["kept_cap"] != 100 {
		t.Errorf("orig %v, set %v", orig, c.Extra)
	}
}

func TestKnobNames(t *testing.T) {
	names := KnobNames()
	if names[0] != "threshold" || len(names) != len(knobs)+len(strategy.ExtraKnobs) {
		t.Errorf("%v", names)
	}
	for k := range strategy.ExtraKnobs {
		if !slices.Contains(names, k) {
			t.Errorf("%s missing", k)
		}
	}
}
