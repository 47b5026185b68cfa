package shard

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
)

// The strata a sample can be drawn across (--strata).
const (
	// StratumAgent is the agent that recorded the unit (stagewise,
	// claude-code, codex, otel; a history file's format).
	StratumAgent = "agent"
	// StratumLength is the unit's length in messages, in tertiles of
	// the whole set: short, medium, long.
	StratumLength = "length"
	// StratumCompactions is the compactions the unit recorded: 0, 1 or
	// 2+.
	StratumCompactions = "compactions"
)

// StrataNames are the strata, in the order a stratum's name lists them.
var StrataNames = []string{StratumAgent, StratumLength, StratumCompactions}

// DefaultStrata is --strata's default: every stratum.
const DefaultStrata = "agent,length,compactions"

// ParseStrata reads a comma-separated list of StrataNames ("" or "none":
// a simple random sample, one stratum). The result is in StrataNames'
// order, without repeats.
func ParseStrata(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return []string{}, nil
	}
	var want []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(StrataNames, f) {
			return nil, fmt.Errorf("unknown stratum %q in %q (want a comma-separated list of %s, or none)", f, s, strings.Join(StrataNames, ", "))
		}
		want = append(want, f)
	}
	var out []string
	for _, n := range StrataNames {
		if slices.Contains(want, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// Unit is one unit of work as the sample and the partition see it: its
// key (what identifies it wherever it sits: a chat id, a session file's
// name) and what the strata read. Units with the same key are one unit.
type Unit struct {
	Key         string
	Agent       string
	Length      int // messages
	Compactions int
}

// Sampling says which sample to draw: Size units (0: no sample, every
// unit), across Strata (ParseStrata's), seeded by Seed.
type Sampling struct {
	Size   int
	Strata []string
	Seed   int64
}

// StratumCount is one stratum of a sample: how many units it holds and
// how many were picked.
type StratumCount struct {
	Stratum string `json:"stratum"`
	Units   int    `json:"units"`
	Picked  int    `json:"picked"`
}

// SampleInfo is what a sample picked.
type SampleInfo struct {
	// Size is the size asked for; Picked what was picked (fewer when the
	// set is smaller), Of the units it was drawn from.
	Size   int      `json:"size"`
	Picked int      `json:"picked"`
	Of     int      `json:"of"`
	Strata []string `json:"strata"`
	Seed   int64    `json:"seed"`
	// LengthCuts are the tertiles' bounds in messages (short: under the
	// first, medium: under the second, long: the rest), when the sample
	// is stratified by length.
	LengthCuts []int          `json:"lengthCuts,omitempty"`
	Counts     []StratumCount `json:"counts"`
}

// Selection is what a run took of the units it found: the sample, then
// its shard of that.
type Selection struct {
	// Unit names what a unit is (chat, session file, history).
	Unit   string      `json:"unit"`
	Units  int         `json:"units"`
	Sample *SampleInfo `json:"sample,omitempty"`
	Shard  string      `json:"shard,omitempty"`
	// Selected counts the units this run works on.
	Selected int `json:"selected"`
}

// Active reports whether anything was left out: a sample or a shard.
func (s *Selection) Active() bool { return s != nil && (s.Sample != nil || s.Shard != "") }

// String is the one line a command prints: "sample: 1,000 of 100,000
// chats in 9 strata (agent, length, compactions), seed 1; shard 0/8: 127
// of them".
func (s *Selection) String() string {
	var parts []string
	if sm := s.Sample; sm != nil {
		strata := "1 stratum (unstratified)"
		if len(sm.Strata) > 0 {
			strata = fmt.Sprintf("%s (%s)", plural(len(sm.Counts), "stratum", "strata"), strings.Join(sm.Strata, ", "))
		}
		parts = append(parts, fmt.Sprintf("sample: %s of %s in %s, seed %d", thousands(sm.Picked), unitCount(sm.Of, s.Unit), strata, sm.Seed))
	}
	if s.Shard != "" {
		if s.Sample != nil {
			parts = append(parts, fmt.Sprintf("shard %s: %s of them", s.Shard, thousands(s.Selected)))
		} else {
			parts = append(parts, fmt.Sprintf("shard %s: %s of %s", s.Shard, thousands(s.Selected), unitCount(s.Units, s.Unit)))
		}
	}
	return strings.Join(parts, "; ")
}

// Select takes the sample (when s.Size > 0) of units, then shard sh of
// it: keep[i] says whether units[i] is in. Units with the same key are
// kept or left out together. The outcome depends on the units' keys and
// attributes only, not on their order. unit names a unit for the
// Selection (chat, session file).
func Select(units []Unit, s Sampling, sh Spec, unit string) (keep []bool, sel *Selection) {
	merged := mergeUnits(units)
	sel = &Selection{Unit: unit, Units: len(merged), Shard: sh.String()}
	if !sh.Active() {
		sel.Shard = ""
	}
	in := make(map[string]bool, len(merged))
	if s.Size > 0 {
		picked, info := sample(merged, s)
		sel.Sample = info
		for _, u := range picked {
			in[u.Key] = true
		}
	} else {
		for _, u := range merged {
			in[u.Key] = true
		}
	}
	for k := range in {
		if !sh.Has(k) {
			delete(in, k)
		}
	}
	sel.Selected = len(in)
	keep = make([]bool, len(units))
	for i, u := range units {
		keep[i] = in[u.Key]
	}
	return keep, sel
}

// mergeUnits is one unit per key, sorted by key: the first agent by
// name, the longest length, the most compactions of the units with that
// key.
func mergeUnits(units []Unit) []Unit {
	by := make(map[string]int, len(units))
	var out []Unit
	for _, u := range units {
		i, ok := by[u.Key]
		if !ok {
			by[u.Key] = len(out)
			out = append(out, u)
			continue
		}
		m := &out[i]
		if u.Agent < m.Agent {
			m.Agent = u.Agent
		}
		m.Length = max(m.Length, u.Length)
		m.Compactions = max(m.Compactions, u.Compactions)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Key < out[b].Key })
	return out
}

// sample draws s.Size of units (one per key, sorted by key) across the
// strata: proportional allocation (largest remainders), at least one per
// stratum when the size allows, and within a stratum the units whose
// seeded hash is lowest.
func sample(units []Unit, s Sampling) ([]Unit, *SampleInfo) {
	info := &SampleInfo{Size: s.Size, Of: len(units), Strata: slices.Clone(s.Strata), Seed: s.Seed, Counts: []StratumCount{}}
	if info.Strata == nil {
		info.Strata = []string{}
	}
	var cuts [2]int
	if slices.Contains(s.Strata, StratumLength) && len(units) > 0 {
		cuts = lengthCuts(units)
		info.LengthCuts = cuts[:]
	}
	by := map[string][]Unit{}
	var names []string
	for _, u := range units {
		name := stratumOf(u, s.Strata, cuts)
		if _, ok := by[name]; !ok {
			names = append(names, name)
		}
		by[name] = append(by[name], u)
	}
	sort.Strings(names)
	sizes := make([]int, len(names))
	for i, n := range names {
		sizes[i] = len(by[n])
	}
	alloc := allocate(sizes, s.Size)
	seed := strconv.FormatInt(s.Seed, 10) + "/"
	var picked []Unit
	for i, name := range names {
		us := by[name]
		rank := make([]uint64, len(us))
		for j, u := range us {
			rank[j] = Hash(seed + u.Key)
		}
		idx := make([]int, len(us))
		for j := range idx {
			idx[j] = j
		}
		sort.Slice(idx, func(a, b int) bool {
			if rank[idx[a]] != rank[idx[b]] {
				return rank[idx[a]] < rank[idx[b]]
			}
			return us[idx[a]].Key < us[idx[b]].Key
		})
		for _, j := range idx[:alloc[i]] {
			picked = append(picked, us[j])
		}
		info.Counts = append(info.Counts, StratumCount{Stratum: name, Units: len(us), Picked: alloc[i]})
	}
	info.Picked = len(picked)
	return picked, info
}

// lengthCuts are the bounds of the length tertiles of units: the lengths
// at a third and at two thirds of the sorted list.
func lengthCuts(units []Unit) [2]int {
	ls := make([]int, len(units))
	for i, u := range units {
		ls[i] = u.Length
	}
	slices.Sort(ls)
	n := len(ls)
	return [2]int{ls[n/3], ls[2*n/3]}
}

// stratumOf names u's stratum: "agent=codex length=long compactions=2+",
// "all" without strata.
func stratumOf(u Unit, strata []string, cuts [2]int) string {
	var parts []string
	for _, st := range strata {
		switch st {
		case StratumAgent:
			a := u.Agent
			if a == "" {
				a = "unknown"
			}
			parts = append(parts, "agent="+a)
		case StratumLength:
			b := "long"
			switch {
			case u.Length < cuts[0]:
				b = "short"
			case u.Length < cuts[1]:
				b = "medium"
			}
			parts = append(parts, "length="+b)
		case StratumCompactions:
			b := "2+"
			if u.Compactions < 2 {
				b = strconv.Itoa(max(u.Compactions, 0))
			}
			parts = append(parts, "compactions="+b)
		}
	}
	if len(parts) == 0 {
		return "all"
	}
	return strings.Join(parts, " ")
}

// allocate shares n among strata of the given sizes (in name order):
// everything when n covers them all; one each to the largest strata when
// n is smaller than their number; else in proportion to their sizes,
// each at least one, the rest by the largest remainders (a tie goes to
// the larger stratum, then to the earlier one by name; so does a unit
// taken back when the ones given to small strata overshoot).
func allocate(sizes []int, n int) []int {
	total := 0
	for _, s := range sizes {
		total += s
	}
	out := make([]int, len(sizes))
	if n >= total {
		copy(out, sizes)
		return out
	}
	if n < len(sizes) {
		idx := make([]int, len(sizes))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return sizes[idx[a]] > sizes[idx[b]] })
		for _, i := range idx[:n] {
			out[i] = 1
		}
		return out
	}
	// The quota of stratum i is n*sizes[i]/total; its shortfall
	// n*sizes[i] - out[i]*total (in units of 1/total).
	short := func(i int) int64 { return int64(n)*int64(sizes[i]) - int64(out[i])*int64(total) }
	sum := 0
	for i, s := range sizes {
		out[i] = min(s, max(1, int(int64(n)*int64(s)/int64(total))))
		sum += out[i]
	}
	for sum < n {
		best := -1
		for i := range sizes {
			if out[i] < sizes[i] && (best < 0 || short(i) > short(best) || short(i) == short(best) && sizes[i] > sizes[best]) {
				best = i
			}
		}
		out[best]++
		sum++
	}
	for sum > n {
		best := -1
		for i := range sizes {
			if out[i] > 1 && (best < 0 || short(i) < short(best) || short(i) == short(best) && sizes[i] > sizes[best]) {
				best = i
			}
		}
		out[best]--
		sum--
	}
	return out
}

// unitCount is "100,000 chats", "1 chat", "3 histories".
func unitCount(n int, unit string) string {
	pl := unit + "s"
	if strings.HasSuffix(unit, "y") {
		pl = strings.TrimSuffix(unit, "y") + "ies"
	}
	return plural(n, unit, pl)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}

// thousands writes n with commas: 12,345.
func thousands(n int) string { return humanize.Comma(int64(n)) }
