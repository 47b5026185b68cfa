// Package briefing is the built-in offline model: a deterministic briefing
// writer that follows the compression prompt's rules as far as rules can be
// followed without a language model; the baseline every real model is
// compared with.
//
// Write reads a compact history (spec §6) and returns a briefing (spec §5):
// the previous briefing first, kept as it was; then one ## section per user
// task, in order, headed by the topic of the request (never small talk, never
// a phrase cut off mid-clause), telling the user's words, your words and your
// tool calls in second-person prose, with every path as a [](path:…) link; at e3e a
// closing "## Current working state" of exactly two sentences. When the
// result would pass the size target the oldest material is condensed first
// and the newest task is kept in full; when the previous briefing alone
// leaves no room, its oldest sections are merged into one "Earlier topics"
// digest, so that a long chain of compactions stays within the target.
//
// Condensing drops prose before facts: a condensed section still quotes
// the user's decisions, constraints and exact values (keep.go), the user's
// last words, the answered forms, the failed calls and whether a later
// attempt made them good, and the error codes that came up; a digest keeps
// the earlier briefings' decisions and failures. Paths that the condensed
// sections no longer name are listed in an "## Other files" section by
// what was done to them (trail.go), the layout squeezed further to make
// room for them: the artifact trail outranks prose.
package briefing

import (
	"slices"
	"strings"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/upstream"
)

// DefaultTargetChars is the prompt's COMPRESSION_TARGET_CHARS.
const DefaultTargetChars = 30000

// MinChars is the shortest briefing the cascade accepts, in UTF-16 units.
const MinChars = 30

// Options tune Write.
type Options struct {
	// TargetChars is the size target in UTF-16 units; 0 means 30000.
	TargetChars int
	// Profile is the upstream profile (a name or alias of
	// internal/upstream): e3e's prompt (the default) ends the briefing with
	// "## Current working state"; head's (v1.29.0) ends the last section
	// with its status instead.
	Profile string
}

// profile holds what depends on the prompt version.
type profile struct {
	workingState bool // e3e rule 9: end with the two-sentence working state
	statusLine   bool // head rule 11: end an active topic with its status
}

var profiles = map[string]profile{
	"e3e":  {workingState: true},
	"head": {statusLine: true},
}

// profileFor is the rules of the named profile's generation (any name or
// alias of internal/upstream); e3e's for an unknown name.
func profileFor(name string) profile {
	n := strings.TrimSpace(name)
	if gen, err := upstream.Gen(n); err == nil {
		n = gen
	}
	if p, ok := profiles[strings.ToLower(n)]; ok {
		return p
	}
	return profiles["e3e"]
}

const emptyBriefing = "## Conversation\n\nThe history held no user or assistant turns to record."

// Write turns a compact history into a briefing. It never fails: input that
// is not a compact history still gives a briefing of at least MinChars units.
// The same input always gives the same bytes.
func Write(compactHistory string, opts Options) string {
	target := opts.TargetChars
	if target <= 0 {
		target = DefaultTargetChars
	}
	prof := profileFor(opts.Profile)
	in := strings.ToValidUTF8(history.ToWellFormed(compactHistory), "\uFFFD")

	p := parse(in)
	var prev, prevFiles []prevSection
	if p.hasPrev {
		for _, s := range splitPrev(p.prev) {
			// The files section of an earlier briefing of this writer is
			// written anew, with the paths of this history.
			if strings.EqualFold(s.heading, filesHeading) {
				prevFiles = append(prevFiles, s)
			} else {
				prev = append(prev, s)
			}
		}
	}
	used := newHeadingSet(stateHeading, oldStateHeading, filesHeading)
	for _, s := range prev {
		used.used[strings.ToLower(s.heading)] = true
	}
	tasks := groupTasks(p.turns, p.hasPrev, used)
	resolveFailures(tasks)
	end := findEnding(tasks, prev, p.hasPrev)

	tail := ""
	switch {
	case prof.workingState && end.prevState >= 0:
		tail = "## " + stateHeading + "\n\n" + end.b
		prev = append(prev[:end.prevState:end.prevState], prev[end.prevState+1:]...)
	case prof.workingState:
		tail = "## " + stateHeading + "\n\n" + end.a + " " + end.b
	case prof.statusLine && len(tasks) > 0:
		tail = end.status
	}

	pieces := fitTrail(prev, prevFiles, tasks, tail, prof.statusLine && tail != "", target)
	out := strings.TrimSpace(noTags(linkPlainPaths(strings.Join(pieces, "\n\n"))))
	if !strings.HasPrefix(out, "## ") {
		out = strings.TrimSpace("## Conversation\n\n" + out)
	}
	if history.Len16(out) < MinChars {
		out = emptyBriefing
	}
	return out
}

// sep is the blank line between two pieces.
const sep = 2

// fit lays out the pieces and condenses the oldest material first until the
// briefing fits the target:
//
//  1. a previous briefing of 60% of the target or more is shortened, oldest
//     section first, leaving its last section alone (the prompt's hint says
//     not to shorten a smaller one);
//  2. the task sections are condensed with a recency bias (see plan): the
//     newest stays in full, older ones get less detail the older they are;
//  3. if that is not enough, every section of the previous briefing is
//     shortened, oldest first;
//  4. then the oldest task sections are merged into one "Earlier requests"
//     section;
//  5. then the newest section is condensed too;
//  6. then the previous briefing's shortened sections cap their kept links;
//  7. then every section names fewer files and failures; then none (the
//     files section names them) and only the latest failures and
//     decisions; then the previous briefing's shortened sections keep no
//     decisions beyond their first sentences either (when nothing fits,
//     the first layout of this step is the answer, over the target);
//  8. last, when the previous briefing still leaves no room, its oldest
//     sections are merged into one "Earlier topics" digest, as few as bring
//     the rest of it within half the target (or all of them), and the
//     layout starts again from 1 with that briefing.
//
// It stops as soon as the briefing fits. Step 8 is what keeps a long chain
// of compactions bounded: each briefing carries the one before, so without
// it the briefing, and the work of writing it, grows with every compaction.
// full reports that the layout holds everything as it was: the previous
// briefing verbatim and every task section in full.
func fit(prev []prevSection, tasks []*task, tail string, target int, smallest bool) (pieces []string, ok, full bool) {
	pieces, ok, full = fitLayout(prev, tasks, tail, target, smallest)
	if ok || len(prev) == 0 {
		return pieces, ok, full
	}
	// 8.
	limit := target + sep
	for _, budget := range []int{limit / 2, 0} {
		merged := mergeOldest(prev, budget)
		if pieces, ok, _ = fitLayout(merged, tasks, tail, target, smallest); ok || len(merged) == 1 {
			return pieces, ok, false
		}
	}
	return pieces, ok, false
}

// fitTrail is fit, followed by the files section: when the layout leaves
// paths of the history out, a section lists them (trailSection), as many
// as the room left allows. When not all fit, the layout is squeezed by
// what the section lacks, down to half the target, and tried again
// (the paths a smaller layout leaves out join the section), up to
// maxTrailRounds times. Of the layouts tried, the one that names the most
// paths wins; of those, the least squeezed. The section goes before the
// working state, or at the head profile before the last section, whose
// status line ends the briefing.
func fitTrail(prev []prevSection, prevFiles []prevSection, tasks []*task, tail string, status bool, target int) []string {
	pieces, ok, full := fit(prev, tasks, tail, target, false)
	if !ok {
		return pieces
	}
	if full && len(prevFiles) == 0 && len(newTrail().addProse(tasks).missing(pieces)) == 0 {
		// Everything is there as it was but the prose cut to its first
		// sentences: only its paths can be missing, and none are.
		return pieces
	}
	tr := collectTrail(prev, prevFiles, tasks)
	if len(tr.paths) == 0 {
		return pieces
	}
	limit := target + sep
	var best []string
	bestNamed := -1
	t := target
	for round := 0; ; round++ {
		miss := tr.missing(pieces)
		cost := 0
		for _, p := range pieces {
			cost += history.Len16(p) + sep
		}
		if cost > limit {
			return best // squeezed past what any layout can do
		}
		if len(miss) == 0 {
			return pieces
		}
		room := limit - cost - sep
		all := renderTrail(miss, 0)
		s, listed := all, len(miss)
		if history.Len16(all) > room {
			s, listed = trailSection(miss, room)
		}
		if named := len(tr.paths) - len(miss) + listed; named > bestNamed {
			best, bestNamed = insertTrail(pieces, s, tail != "", status), named
		}
		if listed == len(miss) || round == maxTrailRounds || t <= target/trailFloorDiv {
			return best
		}
		t = max(min(t, cost-sep)-(history.Len16(all)-room), target/trailFloorDiv)
		pieces, _, _ = fit(prev, tasks, tail, t, true)
	}
}

// trailFloorDiv: the layout is squeezed for the files section down to
// target/trailFloorDiv at most, so that the sections keep half the
// target (a third gave the files a little more room, and the decisions
// and failures less).
const trailFloorDiv = 2

// insertTrail puts the files section s (unless empty) before the last
// piece when that is the working state, before the last two when they are
// a section and its status line, or at the end.
func insertTrail(pieces []string, s string, hasTail, status bool) []string {
	if s == "" {
		return pieces
	}
	at := len(pieces)
	switch {
	case status && len(pieces) >= 2:
		at = len(pieces) - 2
	case hasTail && !status && len(pieces) >= 1:
		at = len(pieces) - 1
	}
	out := make([]string, 0, len(pieces)+1)
	out = append(out, pieces[:at]...)
	out = append(out, s)
	return append(out, pieces[at:]...)
}

// fitLayout is fit's steps 1 to 7; ok is false when even step 7 does not
// fit (the pieces are then its layout); whole is true for the layout of
// everything in full.
func fitLayout(prev []prevSection, tasks []*task, tail string, target int, smallest bool) (pieces []string, ok, whole bool) {
	limit := target + sep // each piece costs its length and a separator; the first has none
	pl := make([]int, len(prev))
	plen := make([][4]int, len(prev))
	for i := range plen {
		plen[i] = [4]int{-1, -1, -1, -1}
	}
	prevLen := func(i, lvl int) int {
		if plen[i][lvl] < 0 {
			plen[i][lvl] = history.Len16(prev[i].render(lvl)) + sep
		}
		return plen[i][lvl]
	}
	prevTotal := 0
	for i := range prev {
		prevTotal += prevLen(i, 0)
	}
	setPrev := func(i, lvl int) {
		if lvl > pl[i] {
			prevTotal += prevLen(i, lvl) - prevLen(i, pl[i])
			pl[i] = lvl
		}
	}
	tailCost := 0
	if tail != "" {
		tailCost = history.Len16(tail) + sep
	}
	f := newFitter(tasks, limit)
	layout := func(l taskLayout) []string {
		out := make([]string, 0, len(prev)+len(tasks)+2)
		for i := range prev {
			out = append(out, prev[i].render(pl[i]))
		}
		if l.stub != "" {
			out = append(out, l.stub)
		}
		for i := l.merged; i < len(tasks); i++ {
			out = append(out, tasks[i].render(l.levels[i]))
		}
		if tail != "" {
			out = append(out, tail)
		}
		return out
	}
	// The tasks in full, or as much of them as shows they cannot fit.
	full, fullOK := f.full(limit - tailCost)
	if fullOK && prevTotal+full.cost+tailCost <= limit {
		return layout(full), true, true
	}
	// 1.
	if len(prev) > 1 && float64(prevTotal)/float64(target) >= 0.6 {
		for i := 0; i < len(prev)-1 && !(fullOK && prevTotal+full.cost+tailCost <= limit); i++ {
			setPrev(i, 1)
		}
		if fullOK && prevTotal+full.cost+tailCost <= limit {
			return layout(full), true, false
		}
	}
	budget := func() int { return limit - prevTotal - tailCost }
	// 2.
	if l, ok := f.plan(budget(), 0, false, compactLevel); ok {
		return layout(l), true, false
	}
	// 3.
	for i := range prev {
		setPrev(i, 1)
	}
	if l, ok := f.plan(budget(), 0, false, compactLevel); ok {
		return layout(l), true, false
	}
	// 4. and 5.
	for nl := 0; nl <= compactLevel; nl++ {
		if l, ok := f.plan(budget(), nl, true, compactLevel); ok {
			return layout(l), true, false
		}
	}
	// 6.
	for i := range prev {
		setPrev(i, 2)
	}
	if l, ok := f.plan(budget(), compactLevel, true, compactLevel); ok {
		return layout(l), true, false
	}
	// 7.
	l, ok := f.plan(budget(), compactLevel+1, true, compactLevel+1)
	if ok {
		return layout(l), true, false
	}
	fallback := layout(l)
	last := len(details) - 1
	if l, ok := f.plan(budget(), last, true, last); ok {
		return layout(l), true, false
	}
	for i := range prev {
		setPrev(i, 3)
	}
	if l, ok = f.plan(budget(), last, true, last); ok || smallest {
		return layout(l), ok, false
	}
	return fallback, false, false
}

// taskLayout places the task sections: the first merged ones become stub,
// the others are written at their levels.
type taskLayout struct {
	merged int
	stub   string
	levels []int
	cost   int
}

// fitter caches section sizes for the layouts fit tries.
type fitter struct {
	tasks []*task
	limit int                 // a section that costs more can never be part of a layout
	lens  [][len(details)]int // size + sep, -1 until computed
	// For the stub: how many calls failed in each prefix of the tasks.
	stubs stubFacts
}

// stubWindow is how many of the merged tasks, the latest, the stub takes
// the user's key sentences, answers, failures and error identifiers from:
// the stub is tried for many prefixes of a long history, and each try
// reads at most this many tasks.
const stubWindow = 64

// stubFacts counts the failed calls of the tasks, with prefix counts.
type stubFacts struct {
	failsAt []int // failures in tasks[:k]
}

func (sf *stubFacts) count(tasks []*task, k int) int {
	if sf.failsAt == nil {
		sf.failsAt = []int{0}
	}
	for n := len(sf.failsAt) - 1; n < k; n++ {
		fails := sf.failsAt[n]
		for _, t := range tasks[n].turns {
			for _, it := range t.items {
				if it.ev != nil && it.ev.fail {
					fails++
				}
			}
		}
		sf.failsAt = append(sf.failsAt, fails)
	}
	return sf.failsAt[k]
}

// latestFacts are the latest key sentences, answered forms, failed calls
// and error identifiers of tasks (within stubWindow of its end), up to
// the given numbers of each, in order.
func latestFacts(tasks []*task, keysN, asksN, failsN, idsN int) (keys []string, asks, fails []*event, ids []string) {
	for i := len(tasks) - 1; i >= max(0, len(tasks)-stubWindow); i-- {
		if len(keys) >= keysN && len(asks) >= asksN && len(fails) >= failsN && len(ids) >= idsN {
			break
		}
		turns := tasks[i].turns
		for j := len(turns) - 1; j >= 0; j-- {
			t := turns[j]
			if t.role == roleUser && len(keys) < keysN {
				ks := t.keySentences()
				for k := len(ks) - 1; k >= 0 && len(keys) < keysN; k-- {
					keys = append(keys, ks[k])
				}
			}
			for k := len(t.items) - 1; k >= 0; k-- {
				switch ev := t.items[k].ev; {
				case ev == nil:
					if len(ids) < idsN {
						w, _ := t.items[k].prose(false)
						found := errorIDs(w)
						for m := len(found) - 1; m >= 0 && len(ids) < idsN; m-- {
							ids = append(ids, found[m])
						}
					}
				case ev.fail && len(fails) < failsN:
					fails = append(fails, ev)
				case ev.decision && !ev.fail && len(asks) < asksN:
					asks = append(asks, ev)
				}
			}
		}
	}
	slices.Reverse(keys)
	slices.Reverse(asks)
	slices.Reverse(fails)
	slices.Reverse(ids)
	return keys, asks, fails, ids
}

func newFitter(tasks []*task, limit int) *fitter {
	f := &fitter{tasks: tasks, limit: limit, lens: make([][len(details)]int, len(tasks))}
	for _, tk := range tasks {
		// A UTF-16 unit takes at most 3 bytes, so a render longer than
		// this many bytes is surely over the limit.
		tk.capBytes = 3*limit + 3
	}
	for i := range f.lens {
		for l := range f.lens[i] {
			f.lens[i][l] = -1
		}
	}
	return f
}

func (f *fitter) cost(i, lvl int) int {
	if f.lens[i][lvl] < 0 {
		s := f.tasks[i].render(lvl)
		if f.tasks[i].over[lvl] {
			f.lens[i][lvl] = f.limit + 1 + sep
		} else {
			f.lens[i][lvl] = min(history.Len16(s), f.limit+1) + sep
		}
	}
	return f.lens[i][lvl]
}

// full lays every task out in full; ok is false, and the cost partial, when
// the cost passes max (the sections are measured newest first, so a long
// history is not written out in full only to learn that it does not fit).
func (f *fitter) full(max int) (l taskLayout, ok bool) {
	l = taskLayout{levels: make([]int, len(f.tasks))}
	for i := len(f.tasks) - 1; i >= 0; i-- {
		if l.cost += f.cost(i, 0); l.cost > max {
			return l, false
		}
	}
	return l, true
}

// stub is the merged section for tasks[:k], told at the level d, and its
// cost.
func (f *fitter) stub(k int, d detail) (string, int) {
	// The latest items of tasks[:k]: a few more than are told, as
	// repeats are dropped.
	keys, asks, fails, ids := latestFacts(f.tasks[:k], 3*d.maxKeys, 3*d.maxAsks, 3*d.maxFails, 3*d.maxFails)
	keys, fails, ids = lastN(dedupe(keys), d.maxKeys), lastFailures(fails), lastN(dedupe(ids), d.maxFails)
	asks = latestAsks(asks, d.maxAsks)
	s := merged(f.tasks[:k], keys, asks, fails, ids, d.maxFails, f.stubs.count(f.tasks, k))
	return s, history.Len16(s) + sep
}

// plan lays the tasks out within budget (sizes plus separators). The newest
// section is written at level newest; every older one gets the most detail
// that still leaves room for all older sections at level floor, so detail
// never grows going back in time. When even that does not fit and merge is
// allowed, the oldest sections are merged, as few as possible. ok is false
// when nothing fits; the layout is then the smallest one tried.
func (f *fitter) plan(budget, newest int, merge bool, floor int) (taskLayout, bool) {
	n := len(f.tasks)
	l := taskLayout{levels: make([]int, n)}
	if n == 0 {
		return l, budget >= 0
	}
	l.levels[n-1] = newest
	newestCost := f.cost(n-1, newest)
	// rest[k]: all of tasks[k:n-1] at the floor level, measured newest
	// first and only as far back as it can still fit: below kMin it cannot.
	rest := make([]int, n)
	kMin := 0
	for i := n - 2; i >= 0; i-- {
		rest[i] = rest[i+1] + f.cost(i, floor)
		if rest[i]+newestCost > budget {
			kMin = i + 1
			break
		}
	}
	k, stubCost, ok := 0, 0, true
	if kMin > 0 || newestCost > budget {
		ok = false
		if merge {
			for k = max(kMin, 1); k <= n-1; k++ {
				l.stub, stubCost = f.stub(k, details[floor])
				if stubCost+rest[k]+newestCost <= budget {
					ok = true
					break
				}
			}
			k = min(k, n-1)
		}
		if !ok && !merge {
			return l, false
		}
	}
	l.merged = k
	rem := budget - stubCost - newestCost
	reserve := rest[k]
	lvl := 0
	for i := n - 2; i >= k; i-- {
		reserve -= f.cost(i, floor)
		for lvl < floor && f.cost(i, lvl) > rem-reserve {
			lvl++
		}
		l.levels[i] = lvl
		rem -= f.cost(i, lvl)
	}
	l.cost = budget - rem
	return l, ok
}

// linkPlainPaths links whatever mount-prefixed path is still plain outside
// the headings. Every part links its paths as it is written; this is the
// last guard of the rule that a path is always a link.
func linkPlainPaths(s string) string {
	if strings.IndexByte(s, '/') < 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	changed := false
	for i, ln := range lines {
		if strings.HasPrefix(ln, "## ") {
			continue
		}
		if l := linkAllMounts(ln); l != ln {
			lines[i], changed = l, true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(lines, "\n")
}
