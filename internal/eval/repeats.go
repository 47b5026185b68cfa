package eval

import (
	"fmt"
	"math"
	"sort"
)

// RepeatSummary is a run replayed K times (replay --repeat: RUN, RUN@2 …
// RUN@K): over the bundles every repeat answered, the spread across the
// repeats of their mean size, mean grounded score (over the bundles all
// repeats are measurable in; nil when none is) and mean coverage.
type RepeatSummary struct {
	Run      string   `json:"run"`
	Runs     []string `json:"runs"`
	Bundles  int      `json:"bundles"`
	Chars    Spread   `json:"chars"`
	Grounded *Spread  `json:"grounded"`
	Coverage *Spread  `json:"coverage"`
}

// repeats sums up every run of names replayed more than once.
func repeats(results []*BundleResult, names []string) []RepeatSummary {
	groups := RepeatGroups(names)
	var bases []string
	for b := range groups {
		bases = append(bases, b)
	}
	sort.Strings(bases)
	var out []RepeatSummary
	for _, base := range bases {
		runs := groups[base]
		rs := RepeatSummary{Run: base, Runs: runs}
		chars := make([]float64, len(runs))
		head := make([]float64, len(runs))
		cov := make([]float64, len(runs))
		measurable, covered := 0, 0
		for _, r := range results {
			all := true
			for _, run := range runs {
				all = all && r.Briefing(run) != nil
			}
			if !all {
				continue
			}
			rs.Bundles++
			allHead, allCov := true, true
			for _, run := range runs {
				s := r.Briefing(run)
				_, ok := s.Headline()
				allHead = allHead && ok
				_, ok = s.Coverage()
				allCov = allCov && ok
			}
			for i, run := range runs {
				s := r.Briefing(run)
				chars[i] += float64(s.Chars)
				if allHead {
					h, _ := s.Headline()
					head[i] += h
				}
				if allCov {
					c, _ := s.Coverage()
					cov[i] += c
				}
			}
			if allHead {
				measurable++
			}
			if allCov {
				covered++
			}
		}
		if rs.Bundles == 0 {
			continue
		}
		mean := func(xs []float64, n int) []float64 {
			out := make([]float64, len(xs))
			for i, x := range xs {
				out[i] = x / float64(n)
			}
			return out
		}
		rs.Chars = NewSpread(mean(chars, rs.Bundles))
		if measurable > 0 {
			sp := NewSpread(mean(head, measurable))
			rs.Grounded = &sp
		}
		if covered > 0 {
			sp := NewSpread(mean(cov, covered))
			rs.Coverage = &sp
		}
		out = append(out, rs)
	}
	return out
}

// KindTest is the paired test of two sides on the probes of one kind,
// over the bundles both answered: the probes only A answered, only B, and
// the exact McNemar p-value.
type KindTest struct {
	Kind  Kind    `json:"kind"`
	AOnly int     `json:"aOnly"`
	BOnly int     `json:"bOnly"`
	P     float64 `json:"p"`
}

// kindTests compares sides a and b probe by probe, per kind: the
// grounded probes (where both are measurable) and the coverage probes.
func kindTests(results []*BundleResult, a, b string) []KindTest {
	aOnly, bOnly := map[Kind]int{}, map[Kind]int{}
	seen := map[Kind]bool{}
	for _, r := range results {
		sa, sb := r.Briefing(a), r.Briefing(b)
		if sa == nil || sb == nil {
			continue
		}
		if sa.Grounded != nil && sb.Grounded != nil {
			for i, p := range r.Grounded {
				seen[p.Kind] = true
				x, y := sa.Grounded.Answered(i), sb.Grounded.Answered(i)
				if x && !y {
					aOnly[p.Kind]++
				} else if y && !x {
					bOnly[p.Kind]++
				}
			}
		}
		for i, p := range r.Probes {
			if i >= len(sa.Answers) || i >= len(sb.Answers) {
				continue
			}
			seen[p.Kind] = true
			x, y := sa.Answers[i].Present, sb.Answers[i].Present
			if x && !y {
				aOnly[p.Kind]++
			} else if y && !x {
				bOnly[p.Kind]++
			}
		}
	}
	var out []KindTest
	for _, k := range append(append([]Kind{}, GroundedKinds...), Kinds...) {
		if seen[k] {
			out = append(out, KindTest{Kind: k, AOnly: aOnly[k], BOnly: bOnly[k], P: McNemar(aOnly[k], bOnly[k])})
		}
	}
	return out
}

// spreadCell writes a spread as "min–max (median m, sd s)".
func spreadCell(s *Spread, f string) string {
	if s == nil {
		return "n/a"
	}
	med := fmt.Sprintf(f, s.Median)
	if s.Min == s.Max {
		return fmt.Sprintf(f+" (all %d the same)", s.Min, s.N)
	}
	return fmt.Sprintf(f+"–"+f+" (median %s, sd "+f+")", s.Min, s.Max, med, s.SD)
}

// repeatsTable is the spread of each repeated run, nil without any.
func (r *Report) repeatsTable() [][]string {
	if len(r.Repeats) == 0 {
		return nil
	}
	rows := [][]string{{"repeated run", "repeats", "bundles", "mean size", "grounded", "coverage"}}
	for _, rs := range r.Repeats {
		rows = append(rows, []string{rs.Run, fmt.Sprint(len(rs.Runs)), fmt.Sprint(rs.Bundles), spreadCell(&rs.Chars, "%.0f"), spreadCell(rs.Grounded, "%.3f"), spreadCell(rs.Coverage, "%.3f")})
	}
	return rows
}

// kindTestLine says a pair's per-kind tests where they found a
// difference: "name-used 1 vs 9 (p 0.021)".
func kindTestLine(p Pair) string {
	var parts []string
	for _, t := range p.KindTests {
		if t.AOnly+t.BOnly == 0 {
			continue
		}
		mark := ""
		if t.P < 0.05 {
			mark = "*"
		}
		parts = append(parts, fmt.Sprintf("%s %d vs %d (p %s)%s", t.Kind, t.BOnly, t.AOnly, fmtP(t.P), mark))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%s vs %s, probes only %s kept vs only %s kept, per kind: %s", p.B, p.A, p.B, p.A, joinComma(parts))
}

func fmtP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", math.Round(p*1000)/1000)
}

func joinComma(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}
