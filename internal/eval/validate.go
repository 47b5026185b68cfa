package eval

import (
	"errors"
	"hash/fnv"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/shard"
	"github.com/compactlab/compact/internal/workpool"
)

// CutAt returns the part of text a budget of target UTF-16 units holds:
// text itself when it fits, else its first target units (never splitting
// a character). The size-aware headline scores only this part: what lies
// past the target does not count.
func CutAt(text string, target int) string {
	if target <= 0 || history.Len16(text) <= target {
		return text
	}
	n := 0
	for i, r := range text {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > target {
			return text[:i]
		}
		n += w
	}
	return text
}

// OverTarget is the share of text past target UTF-16 units (0 when it
// fits).
func OverTarget(text string, target int) float64 {
	n := history.Len16(text)
	if target <= 0 || n <= target {
		return 0
	}
	return float64(n-target) / float64(n)
}

// SizeCharge is the share of a briefing's score its size leaves it, for
// a target of target UTF-16 units: 1 up to the target; past it, each
// unit over the target is charged against one within it (2 - size/target),
// down to 0 at twice the target. An over-target briefing costs the agent
// working context it needed, so copying more past the target can only
// lower the headline.
func SizeCharge(text string, target int) float64 {
	n := history.Len16(text)
	if target <= 0 || n <= target {
		return 1
	}
	return math.Max(0, 2-float64(n)/float64(target))
}

// GroundedResult is a briefing scored on the grounded measure.
type GroundedResult struct {
	// Probes counts the grounded probes, Kept those the first target
	// UTF-16 units of the briefing answer (what lies past the target does
	// not count); Recall is their share.
	Probes int     `json:"probes"`
	Kept   int     `json:"kept"`
	Recall float64 `json:"recall"`
	// Lost are the indexes of the grounded probes not answered.
	Lost []int `json:"lost"`
	// Named counts the files and code names of the compacted part the
	// briefing names (within the target), Needed those the agent used
	// next; Focus is their share (0 when it names none).
	Named  int     `json:"named"`
	Needed int     `json:"needed"`
	Focus  float64 `json:"focus"`
	// Chars is the briefing's size in UTF-16 units, OverTarget the share
	// of it past the target, SizeCharge what its size leaves of the score.
	Chars      int     `json:"chars"`
	OverTarget float64 `json:"overTarget"`
	SizeCharge float64 `json:"sizeCharge"`
	// Score is the headline: Recall times SizeCharge. Focus is shown
	// beside it, not in it: on real sessions it moves too much with a few
	// names for a ladder to order (see docs/measures.md).
	Score float64 `json:"score"`
}

// Answered reports whether the briefing answered grounded probe i.
func (r *GroundedResult) Answered(i int) bool { return !slices.Contains(r.Lost, i) }

// Score scores a briefing (see GroundedResult); ok is false when the
// compaction has no grounded probe: not measurable.
func (g *Grounded) Score(text string, target int) (r GroundedResult, ok bool) {
	if len(g.Probes) == 0 {
		return r, false
	}
	in := CutAt(text, target)
	b := NewBriefing(in)
	r.Probes = len(g.Probes)
	r.Lost = []int{}
	for i := range g.Probes {
		if hit, _ := b.Check(&g.Probes[i]); hit {
			r.Kept++
		} else {
			r.Lost = append(r.Lost, i)
		}
	}
	r.Recall = float64(r.Kept) / float64(r.Probes)
	for it := range g.named(in) {
		r.Named++
		if g.needed[it] {
			r.Needed++
		}
	}
	if r.Named > 0 {
		r.Focus = float64(r.Needed) / float64(r.Named)
	}
	r.Chars = history.Len16(text)
	r.OverTarget = OverTarget(text, target)
	r.SizeCharge = SizeCharge(text, target)
	r.Score = r.Recall * r.SizeCharge
	return r, true
}

// Rung is one step of a validity ladder: a text made from a recorded
// briefing by a known degradation. Rank orders the rungs a measure must
// order: a lower rank must score higher (Rank -1: not in the chain).
type Rung struct {
	Name string
	Text string
	Rank int
}

// Rung names.
const (
	RungRecorded = "recorded"
	RungDrop25   = "drop-25%"
	RungDrop50   = "drop-50%"
	RungDrop75   = "drop-75%"
	RungHeadings = "headings-only"
	RungOther    = "other-bundle"
	RungDump     = "history-dump"
)

// Ladder builds the rungs of a recorded briefing: the briefing; the same
// with a quarter, half and three quarters of its sentences dropped (each
// drop a superset of the one before, chosen by a hash of seed, never by
// what any measure looks for); its headings alone; other (another
// bundle's recorded briefing) cut or repeated to the briefing's length;
// and the compacted history itself, verbatim (the dump).
func Ladder(recorded, compactHistory, other, seed string) []Rung {
	heads, units := splitUnits(recorded)
	order := make([]int, len(units))
	for i := range order {
		order[i] = i
	}
	// Each unit's key is hashed once, not on every comparison of the sort
	// (that was most of compact eval --validate's time).
	keys := make([]uint64, len(units))
	for i := range keys {
		h := fnv.New64a()
		h.Write([]byte(seed))
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(i)))
		h.Write([]byte{0})
		h.Write([]byte(units[i].text))
		keys[i] = h.Sum64()
	}
	sort.SliceStable(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })
	drop := func(share float64) string {
		n := int(float64(len(units))*share + 0.5)
		gone := map[int]bool{}
		for _, i := range order[:n] {
			gone[i] = true
		}
		return joinUnits(heads, units, gone)
	}
	rungs := []Rung{
		{RungRecorded, recorded, 0},
		{RungDrop25, drop(0.25), 1},
		{RungDrop50, drop(0.5), 2},
		{RungDrop75, drop(0.75), 3},
		{RungHeadings, joinUnits(heads, nil, nil), 4},
	}
	if other != "" {
		rungs = append(rungs, Rung{RungOther, sameLength(other, history.Len16(recorded)), -1})
	}
	dump := mdtext.ParseHistory(compactHistory)
	var b strings.Builder
	if dump.HasPrevious {
		b.WriteString(dump.Previous)
		b.WriteString("\n\n")
	}
	for _, t := range dump.Turns {
		b.WriteString(t.Role)
		b.WriteString(": ")
		b.WriteString(t.Text)
		b.WriteString("\n\n")
	}
	rungs = append(rungs, Rung{RungDump, b.String(), -1})
	return rungs
}

// unit is a sentence of a briefing and the line it sits on.
type unit struct {
	line int
	text string
}

// splitUnits takes a briefing apart into its heading lines (by line
// number) and the sentences of its other lines.
func splitUnits(text string) (map[int]string, []unit) {
	heads := map[int]string{}
	var units []unit
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if isHeadingLine(t) {
			heads[i] = line
			continue
		}
		for _, s := range mdtext.Sentences(line) {
			units = append(units, unit{line: i, text: s})
		}
	}
	return heads, units
}

// isHeadingLine reports whether a line titles a section: a markdown
// heading, a line in bold, or a short numbered or lettered title ending
// in a colon ("1. Primary Request and Intent:").
func isHeadingLine(t string) bool {
	if strings.HasPrefix(t, "#") {
		return true
	}
	if strings.HasPrefix(t, "**") && strings.HasSuffix(strings.TrimSuffix(t, ":"), "**") && utf8.RuneCountInString(t) <= 100 {
		return true
	}
	return strings.HasSuffix(t, ":") && utf8.RuneCountInString(t) <= 80 && !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "*")
}

// joinUnits writes the headings and the sentences not gone, in their
// order, each line's sentences on one line.
func joinUnits(heads map[int]string, units []unit, gone map[int]bool) string {
	lines := map[int][]string{}
	for i, u := range units {
		if !gone[i] {
			lines[u.line] = append(lines[u.line], u.text)
		}
	}
	var nums []int
	for n := range heads {
		nums = append(nums, n)
	}
	for n := range lines {
		if _, ok := heads[n]; !ok {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	var b strings.Builder
	for _, n := range nums {
		if h, ok := heads[n]; ok {
			b.WriteString(h)
		} else {
			b.WriteString(strings.Join(lines[n], " "))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// sameLength cuts or repeats s to n UTF-16 units.
func sameLength(s string, n int) string {
	if s == "" || n <= 0 {
		return ""
	}
	var b strings.Builder
	for history.Len16(b.String()) < n {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	u := utf16.Encode([]rune(b.String()))
	if len(u) > n {
		u = u[:n]
	}
	return string(utf16.Decode(u))
}

// ValidateOptions are the settings of Validate.
type ValidateOptions struct {
	// Target is the size target in UTF-16 units (30,000 when 0).
	Target int
	// Workers bounds the bundles read at once (GOMAXPROCS when 0).
	Workers int
}

// LadderBundle is one bundle's ladder, scored by each measure.
type LadderBundle struct {
	Bundle string `json:"bundle"`
	// Why is set when the bundle is not measurable by the grounded
	// measure (no continuation, nothing of the compacted part used).
	Why       string       `json:"notMeasurable,omitempty"`
	Probes    int          `json:"groundedProbes"`
	DumpChars int          `json:"dumpChars"`
	Rungs     []LadderRung `json:"rungs"`
}

// LadderRung is one rung of a bundle's ladder: its size and its score by
// each measure (Grounded nil when the bundle is not measurable).
type LadderRung struct {
	Name     string   `json:"name"`
	Chars    int      `json:"chars"`
	Grounded *float64 `json:"grounded"`
	Coverage float64  `json:"coverage"`
}

// MeasureValidity is how one measure ranked the ladders.
type MeasureValidity struct {
	Measure string `json:"measure"`
	// Pairs of the degradation chain (recorded, drop 25, 50 and 75 % of
	// the sentences, headings only: every pair, the less degraded
	// expected higher), over the bundles the measure can score.
	Pairs      int `json:"pairs"`
	Concordant int `json:"concordant"`
	Discordant int `json:"discordant"`
	Ties       int `json:"ties"`
	// Concordance counts a tie as half (Harrell's C); Strict counts it
	// as a miss.
	Concordance float64 `json:"concordance"`
	Strict      float64 `json:"strict"`
	// DumpChecked counts the bundles whose history dump is over 1.5 times
	// the target; DumpAtOrAbove those where the dump scores at or above
	// the recorded briefing (target: none).
	DumpChecked   int `json:"dumpChecked"`
	DumpAtOrAbove int `json:"dumpAtOrAbove"`
	// OtherAtOrAbove counts the bundles where another bundle's briefing,
	// made the same length, scores at or above the recorded one.
	OtherChecked   int `json:"otherChecked"`
	OtherAtOrAbove int `json:"otherAtOrAbove"`
}

// ValidityReport is what Validate found.
type ValidityReport struct {
	Target        int               `json:"target"`
	Bundles       int               `json:"bundles"`
	Measurable    int               `json:"measurable"`
	NotMeasurable []LadderBundle    `json:"notMeasurableBundles"`
	Measures      []MeasureValidity `json:"measures"`
	Ladders       []LadderBundle    `json:"ladders"`
	// Selection is the sample and the shard the bundles are of (set by
	// the caller; nil: every bundle found).
	Selection *shard.Selection `json:"selection,omitempty"`
}

// Measure names of a ValidityReport.
const (
	MeasureGrounded = "grounded"
	MeasureCoverage = "coverage"
)

// LadderDraws is how many independent drops each drop rung averages.
const LadderDraws = 5

func isDrop(name string) bool {
	return name == RungDrop25 || name == RungDrop50 || name == RungDrop75
}

// DumpFactor is how far over the target a history dump must be for the
// validity check that it never scores at or above the recorded briefing.
const DumpFactor = 1.5

// Validate builds the ladder of every bundle of dirs that has a recorded
// briefing (bundle.FileActual) and scores its rungs by the grounded
// headline and by the coverage probes, then tells how often each measure
// orders the rungs as their degradation does, and whether a history
// dump well over the target ever scores at or above the recorded
// briefing. Bundles without a recorded briefing are left out; a bundle
// that cannot be read is an error.
func Validate(dirs []string, opt ValidateOptions) (*ValidityReport, []BundleError) {
	if opt.Target <= 0 {
		opt.Target = prompt.DefaultTargetChars
	}
	type input struct {
		hist, cont, rec string
		hasCont         bool
		chat            string
	}
	ins := make([]*input, len(dirs))
	errs := make([]error, len(dirs))
	workpool.Each(len(dirs), opt.Workers, func(i int) {
		in := &input{chat: filepath.Dir(dirs[i])}
		var err error
		if in.rec, err = bundle.ReadText(filepath.Join(dirs[i], bundle.FileActual)); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs[i] = fileErr(err)
			}
			return
		}
		if in.hist, err = bundle.ReadText(filepath.Join(dirs[i], bundle.FileCompact)); err != nil {
			errs[i] = fileErr(err)
			return
		}
		in.cont, err = bundle.ReadText(filepath.Join(dirs[i], bundle.FileContinuation))
		switch {
		case err == nil:
			in.hasCont = true
		case !errors.Is(err, fs.ErrNotExist):
			errs[i] = fileErr(err)
			return
		}
		ins[i] = in
	}, nil, nil)
	var bad []BundleError
	var idx []int
	for i := range dirs {
		if errs[i] != nil {
			bad = append(bad, BundleError{Bundle: dirs[i], Error: errs[i].Error()})
		} else if ins[i] != nil {
			idx = append(idx, i)
		}
	}
	rep := &ValidityReport{Target: opt.Target, NotMeasurable: []LadderBundle{}, Ladders: []LadderBundle{}}
	ladders := make([]LadderBundle, len(idx))
	workpool.Each(len(idx), opt.Workers, func(k int) {
		in := ins[idx[k]]
		// Another chat's recorded briefing: the next one in order.
		other := ""
		for j := 1; j < len(idx); j++ {
			o := ins[idx[(k+j)%len(idx)]]
			if o.chat != in.chat && strings.TrimSpace(o.rec) != "" {
				other = o.rec
				break
			}
		}
		lb := LadderBundle{Bundle: dirs[idx[k]]}
		var g *Grounded
		var probes []Probe
		switch {
		case !in.hasCont:
			lb.Why = "no " + bundle.FileContinuation + " (extract it again with this version)"
		default:
			g = NewGrounded(in.hist, in.cont)
			if probes = g.Probes; len(probes) == 0 {
				lb.Why = "the session after the compaction used nothing of the compacted part that can be checked"
			}
		}
		lb.Probes = len(probes)
		coverage := Mine(in.hist, Options{})
		// Each drop rung is the mean of LadderDraws independent drops:
		// one draw leaves every needed sentence in place often enough to
		// hide a measure's resolution behind luck.
		index := map[string]int{}
		for d := 0; d < LadderDraws; d++ {
			// Seeded by the briefing, not its path: the same bundles give
			// the same ladders wherever they are.
			for _, r := range Ladder(in.rec, in.hist, other, in.rec+"#"+strconv.Itoa(d)) {
				if d > 0 && !isDrop(r.Name) {
					continue
				}
				i, seen := index[r.Name]
				if !seen {
					i = len(lb.Rungs)
					index[r.Name] = i
					lb.Rungs = append(lb.Rungs, LadderRung{Name: r.Name})
					if len(probes) > 0 {
						lb.Rungs[i].Grounded = new(float64)
					}
				}
				lr := &lb.Rungs[i]
				w := 1.0
				if isDrop(r.Name) {
					w = 1.0 / LadderDraws
				}
				lr.Chars += int(math.Round(float64(history.Len16(r.Text)) * w))
				if len(probes) > 0 {
					gr, _ := g.Score(r.Text, opt.Target)
					*lr.Grounded += gr.Score * w
				}
				cs := ScoreBriefing(r.Name, r.Text, coverage)
				lr.Coverage += cs.Score() * w
				if r.Name == RungDump {
					lb.DumpChars = lr.Chars
				}
			}
		}
		ladders[k] = lb
	}, nil, nil)
	rep.Bundles = len(ladders)
	for _, lb := range ladders {
		if lb.Why != "" {
			rep.NotMeasurable = append(rep.NotMeasurable, lb)
		} else {
			rep.Measurable++
		}
	}
	rep.Ladders = ladders
	rep.Measures = []MeasureValidity{
		measureValidity(MeasureGrounded, ladders, opt.Target, func(r LadderRung) (float64, bool) {
			if r.Grounded == nil {
				return 0, false
			}
			return *r.Grounded, true
		}),
		measureValidity(MeasureCoverage, ladders, opt.Target, func(r LadderRung) (float64, bool) { return r.Coverage, true }),
	}
	return rep, bad
}

// chainRank is the place of each rung of the degradation chain, least
// degraded first.
var chainRank = map[string]int{RungRecorded: 0, RungDrop25: 1, RungDrop50: 2, RungDrop75: 3, RungHeadings: 4}

func measureValidity(name string, ladders []LadderBundle, target int, score func(LadderRung) (float64, bool)) MeasureValidity {
	mv := MeasureValidity{Measure: name}
	for _, lb := range ladders {
		sc := map[string]float64{}
		ok := true
		for _, r := range lb.Rungs {
			s, has := score(r)
			ok = ok && has
			sc[r.Name] = s
		}
		if !ok {
			continue
		}
		for a := range lb.Rungs {
			for b := range lb.Rungs {
				ra, okA := chainRank[lb.Rungs[a].Name]
				rb, okB := chainRank[lb.Rungs[b].Name]
				if !okA || !okB || ra >= rb {
					continue
				}
				x, y := sc[lb.Rungs[a].Name], sc[lb.Rungs[b].Name]
				mv.Pairs++
				switch {
				case x > y:
					mv.Concordant++
				case x < y:
					mv.Discordant++
				default:
					mv.Ties++
				}
			}
		}
		if _, has := sc[RungOther]; has {
			mv.OtherChecked++
			if sc[RungOther] >= sc[RungRecorded] {
				mv.OtherAtOrAbove++
			}
		}
		if float64(lb.DumpChars) > DumpFactor*float64(target) {
			mv.DumpChecked++
			if sc[RungDump] >= sc[RungRecorded] {
				mv.DumpAtOrAbove++
			}
		}
	}
	if mv.Pairs > 0 {
		mv.Concordance = (float64(mv.Concordant) + float64(mv.Ties)/2) / float64(mv.Pairs)
		mv.Strict = float64(mv.Concordant) / float64(mv.Pairs)
	}
	return mv
}
