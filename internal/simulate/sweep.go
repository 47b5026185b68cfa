package simulate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/strategy"
)

// Knob is one strategy.Config field a sweep can vary.
type Knob struct {
	Name  string
	whole bool // takes whole numbers only
	// negative: values below zero mean something (disable, no cap).
	negative bool
	set      func(*strategy.Config, float64)
}

// Set gives the knob value v in c.
func (k Knob) Set(c *strategy.Config, v float64) { k.set(c, v) }

var knobs = []Knob{
	{Name: "threshold", negative: true, set: func(c *strategy.Config, v float64) { c.Threshold = v }},
	{Name: "context_window", whole: true, set: func(c *strategy.Config, v float64) { c.ContextWindow = int(v) }},
	{Name: "system_overhead", whole: true, set: func(c *strategy.Config, v float64) { c.SystemOverhead = int(v) }},
	{Name: "reserved", whole: true, set: func(c *strategy.Config, v float64) { c.Reserved = int(v) }},
	{Name: "recent_ratio", set: func(c *strategy.Config, v float64) { c.RecentRatio = v }},
	{Name: "recent_buffer", whole: true, set: func(c *strategy.Config, v float64) { c.RecentBuffer = int(v) }},
	{Name: "tool_result_cap", whole: true, negative: true, set: func(c *strategy.Config, v float64) { c.ToolResultCap = int(v) }},
	{Name: "prune_threshold", whole: true, set: func(c *strategy.Config, v float64) { c.PruneThreshold = int(v) }},
	{Name: "prune_extract", whole: true, set: func(c *strategy.Config, v float64) { c.PruneExtract = int(v) }},
	{Name: "max_consecutive", whole: true, negative: true, set: func(c *strategy.Config, v float64) { c.MaxConsecutive = int(v) }},
	{Name: "min_uncompressed", whole: true, set: func(c *strategy.Config, v float64) { n := int(v); c.MinUncompressed = &n }},
	{Name: "target_chars", whole: true, set: func(c *strategy.Config, v float64) { c.TargetChars = int(v) }},
}

// KnobNames lists the knobs a sweep can vary: the Config fields, then the
// strategies' extra knobs (strategy.ExtraKnobs), sorted.
func KnobNames() []string {
	var out []string
	for _, k := range knobs {
		out = append(out, k.Name)
	}
	return append(out, slices.Sorted(maps.Keys(strategy.ExtraKnobs))...)
}

// Sweep is a parsed --sweep: a knob and its values, in order.
type Sweep struct {
	Knob   Knob
	Values []float64
}

// MaxSweepValues bounds a sweep.
const MaxSweepValues = 1000

// ParseSweep reads knob=from:to:step (or knob=value); "-" in the knob's
// name reads as "_". A name that is not a Config field is an extra knob
// (Config.Extra). Values are from + k×step rounded to the decimals the
// input uses, so 0.4:0.8:0.05 gives 0.45, not 0.45000000000000007.
func ParseSweep(spec string) (*Sweep, error) {
	name, rng, ok := strings.Cut(spec, "=")
	name = strings.TrimSpace(strings.ReplaceAll(name, "-", "_"))
	if !ok || name == "" || rng == "" {
		return nil, fmt.Errorf("%q: want knob=from:to:step, e.g. threshold=0.4:0.8:0.05", spec)
	}
	s := &Sweep{}
	found := false
	for _, k := range knobs {
		if k.Name == name {
			s.Knob, found = k, true
		}
	}
	if !found {
		if _, ok := strategy.ExtraKnobs[name]; !ok {
			return nil, fmt.Errorf("unknown knob %q (want one of %s)", name, strings.Join(KnobNames(), ", "))
		}
		extra := name
		s.Knob = Knob{Name: extra, set: func(c *strategy.Config, v float64) {
			m := make(map[string]float64, len(c.Extra)+1)
			for k, x := range c.Extra {
				m[k] = x
			}
			m[extra] = v
			c.Extra = m
		}}
	}
	parts := strings.Split(rng, ":")
	nums := make([]float64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: %q is not a number", name, p)
		}
		nums[i] = v
	}
	switch len(nums) {
	case 1:
		s.Values = nums
	case 3:
		from, to, step := nums[0], nums[1], nums[2]
		if step <= 0 {
			return nil, fmt.Errorf("%s: the step must be positive, got %v", name, step)
		}
		if to < from {
			return nil, fmt.Errorf("%s: from %v is above to %v", name, from, to)
		}
		n := math.Floor((to-from)/step+1e-9) + 1
		if n > MaxSweepValues {
			return nil, fmt.Errorf("%s: %v values, more than %d", name, n, MaxSweepValues)
		}
		dec := max(decimals(parts[0]), decimals(parts[2]))
		for k := 0; k < int(n); k++ {
			s.Values = append(s.Values, roundTo(from+float64(k)*step, dec))
		}
	default:
		return nil, fmt.Errorf("%s: want from:to:step or one value, got %q", name, rng)
	}
	for _, v := range s.Values {
		if s.Knob.whole && v != math.Trunc(v) {
			return nil, fmt.Errorf("%s takes whole numbers, got %v", name, v)
		}
		if v < 0 && !s.Knob.negative {
			return nil, fmt.Errorf("%s: %v is negative", name, v)
		}
	}
	return s, nil
}

// decimals counts the digits after the point of a number as written (9
// for an exponent).
func decimals(s string) int {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		return 9
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

func roundTo(v float64, dec int) float64 {
	p := math.Pow(10, float64(dec))
	return math.Round(v*p) / p
}

func fmtKnob(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
