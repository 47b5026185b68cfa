package eval

import (
	"math"
	"slices"
	"sort"

	"github.com/compactlab/compact/internal/replay"
)

// Repeats: the same model on the same input varies from one run to the
// next, so compact replay --repeat K replays each bundle K times, as the
// runs RUN, RUN@2, …, RUN@K (replay.RepeatRuns). What follows is the
// arithmetic of comparing them: the spread of a measure over the repeats
// of one run, and the paired test of two runs on the same probes.

// Spread sums up a measure (a briefing's size, a score) over repeated
// runs. SD is the sample standard deviation (n − 1), 0 for fewer than two
// values; all fields are 0 for none.
type Spread struct {
	N      int     `json:"n"`
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	SD     float64 `json:"sd"`
}

// NewSpread is the spread of xs (which it does not change). The median of
// an even count is the mean of the two middle values.
func NewSpread(xs []float64) Spread {
	n := len(xs)
	if n == 0 {
		return Spread{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	sp := Spread{N: n, Min: s[0], Max: s[n-1], Median: s[n/2]}
	if n%2 == 0 {
		sp.Median = (s[n/2-1] + s[n/2]) / 2
	}
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	sp.Mean = sum / float64(n)
	if n > 1 {
		ss := 0.0
		for _, x := range s {
			ss += (x - sp.Mean) * (x - sp.Mean)
		}
		sp.SD = math.Sqrt(ss / float64(n-1))
	}
	return sp
}

// RepeatOf parses a run name: RUN@I (I from 2 to replay.MaxRepeat) is
// repeat I of RUN; any other name is repeat 1 of itself.
func RepeatOf(run string) (base string, index int) { return replay.RepeatOf(run) }

// RepeatGroups groups run names by their base name (RepeatOf), keeping
// only the bases with two or more runs among names; each group lists its
// runs once, by repeat index (the plain name first).
func RepeatGroups(names []string) map[string][]string {
	all := map[string][]string{}
	for _, name := range names {
		base, _ := RepeatOf(name)
		if !slices.Contains(all[base], name) {
			all[base] = append(all[base], name)
		}
	}
	groups := map[string][]string{}
	for base, runs := range all {
		if len(runs) < 2 {
			continue
		}
		sort.Slice(runs, func(i, j int) bool {
			_, a := RepeatOf(runs[i])
			_, b := RepeatOf(runs[j])
			return a < b
		})
		groups[base] = runs
	}
	return groups
}

// McNemar is the exact two-sided McNemar test of two runs on the same
// probes (of one kind): aOnly probes run A answered and run B did not,
// bOnly the reverse. It is the binomial test of the discordant pairs,
// p = min(1, 2·P[X ≤ min(aOnly, bOnly)]) with X ~ Bin(aOnly+bOnly, 1/2);
// 1 when there are none. Negative counts are taken as 0.
func McNemar(aOnly, bOnly int) float64 {
	aOnly, bOnly = max(aOnly, 0), max(bOnly, 0)
	n, k := aOnly+bOnly, min(aOnly, bOnly)
	if n == 0 {
		return 1
	}
	var p float64
	if n <= 1000 {
		// The binomial coefficients as floats (exact while small; at
		// most 2^1000 here), then one exact scaling by 2^(1−n).
		c, sum := 1.0, 1.0
		for i := 0; i < k; i++ {
			c = c * float64(n-i) / float64(i+1)
			sum += c
		}
		p = math.Ldexp(sum, 1-n)
	} else {
		// Term by term in logarithms, where 2^−n would underflow.
		logC := 0.0
		for i := 0; i <= k; i++ {
			if i > 0 {
				logC += math.Log(float64(n-i+1)) - math.Log(float64(i))
			}
			p += math.Exp(logC - float64(n)*math.Ln2)
		}
		p *= 2
	}
	return math.Min(1, p)
}
