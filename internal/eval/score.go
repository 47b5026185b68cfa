package eval

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/workpool"
)

// Actual names the app's briefing (bundle.FileActual) among the briefings
// of a bundle; the others are named after their replay run.
const Actual = "actual"

// Tally counts the probes of one kind a briefing answers.
type Tally struct {
	Kept  int `json:"kept"`
	Total int `json:"total"`
}

// Share is Kept/Total (1 when there is nothing to keep: a caller that
// shows it says where there was nothing, see BriefingScore.Coverage).
func (t Tally) Share() float64 {
	if t.Total == 0 {
		return 1
	}
	return float64(t.Kept) / float64(t.Total)
}

// BriefingScore is one briefing of a bundle, scored.
type BriefingScore struct {
	Name  string `json:"name"` // Actual or the run
	File  string `json:"file"`
	Chars int    `json:"chars"`
	// OverTarget is the share of the briefing past the size target.
	OverTarget float64 `json:"overTarget"`
	// Grounded is the headline: the briefing scored on what the agent
	// needed next (nil when the bundle is not measurable by it).
	Grounded *GroundedResult `json:"grounded,omitempty"`
	// Answers, Kinds, Overall and Lost are the coverage probes' (mined
	// from the compacted history alone).
	Answers []Answer           `json:"answers"`
	Kinds   map[Kind]Tally     `json:"kinds"`
	Overall Tally              `json:"overall"`
	Lost    []int              `json:"lost"` // indexes of the probes not answered
	Replay  *bundle.ReplayInfo `json:"replay,omitempty"`
	// ReReadNamed counts the files of the bundle's re-read tax
	// (BundleResult.ReReads) this briefing names.
	ReReadNamed int `json:"reReadNamed"`
	// Judged is the model-judged score (eval --judge), nil without one.
	Judged *JudgedBriefing `json:"judged,omitempty"`
}

// Score is the coverage share: the coverage probes answered (1 when the
// bundle has none; see Coverage).
func (s *BriefingScore) Score() float64 { return s.Overall.Share() }

// Coverage is the share of the coverage probes answered; ok is false
// when the compacted history gave none (not measurable).
func (s *BriefingScore) Coverage() (float64, bool) {
	return s.Overall.Share(), s.Overall.Total > 0
}

// Headline is the grounded score (GroundedResult.Score); ok is false when
// the bundle is not measurable by it.
func (s *BriefingScore) Headline() (float64, bool) {
	if s.Grounded == nil {
		return 0, false
	}
	return s.Grounded.Score, true
}

// BundleResult is the probes of one bundle and every briefing's score.
type BundleResult struct {
	Bundle string  `json:"bundle"`
	Probes []Probe `json:"probes"`
	// Grounded are the grounded probes: what the agent needed next
	// (MineGrounded); NotMeasurable says why there are none.
	Grounded      []Probe `json:"groundedProbes"`
	NotMeasurable string  `json:"notMeasurable,omitempty"`
	// ReReads are the files the agent read again after the compaction
	// that it had read before it: the re-read tax, a recorded cost of
	// what a briefing lost (each briefing's ReReadNamed says how many of
	// them it named).
	ReReads   []string        `json:"reReads"`
	Briefings []BriefingScore `json:"briefings"`
	// Warnings are problems that left a briefing out (a run without an
	// answer, an unreadable output).
	Warnings []string `json:"warnings,omitempty"`
	// Judge is what the model judge asked and what it cost (eval --judge).
	Judge *JudgeSummary `json:"judge,omitempty"`
	// equal holds, for two briefings a and b, the grounded recall of each
	// when both are cut to the smaller one's size (see Pair.EqualSize).
	equal map[[2]string][2]float64
}

// Briefing returns the named briefing's score, or nil.
func (r *BundleResult) Briefing(name string) *BriefingScore {
	for i := range r.Briefings {
		if r.Briefings[i].Name == name {
			return &r.Briefings[i]
		}
	}
	return nil
}

// BundleError is a bundle that could not be evaluated.
type BundleError struct {
	Bundle string `json:"bundle"`
	Error  string `json:"error"`
}

// EvalOptions steer Evaluate.
type EvalOptions struct {
	// Target is the size target in UTF-16 units of the size-aware
	// headline (prompt.DefaultTargetChars when 0).
	Target int
	// Runs restricts the replay runs scored (all answered runs when empty).
	Runs []string
	// Mine are the options of the probe miner.
	Mine Options
	// Progress, when set, is called after each bundle (one call at a time).
	Progress func(done, total int)
}

// ScoreBriefing scores one briefing text against probes.
func ScoreBriefing(name, text string, probes []Probe) BriefingScore {
	b := NewBriefing(text)
	s := BriefingScore{Name: name, Chars: history.Len16(text), Kinds: map[Kind]Tally{}, Answers: make([]Answer, len(probes)), Lost: []int{}}
	for i := range probes {
		p := &probes[i]
		ok, how := b.Check(p)
		s.Answers[i] = Answer{Probe: i, Present: ok, How: how}
		t := s.Kinds[p.Kind]
		t.Total++
		s.Overall.Total++
		if ok {
			t.Kept++
			s.Overall.Kept++
		} else {
			s.Lost = append(s.Lost, i)
		}
		s.Kinds[p.Kind] = t
	}
	return s
}

// EvaluateBundle mines the probes of one bundle and scores its briefings:
// the app's (bundle.FileActual) when there is one, and every answered
// replay run (or the runs of opt.Runs).
func EvaluateBundle(dir string, opt EvalOptions) (*BundleResult, error) {
	if opt.Target <= 0 {
		opt.Target = prompt.DefaultTargetChars
	}
	hist, err := bundle.ReadText(filepath.Join(dir, bundle.FileCompact))
	if err != nil {
		return nil, fileErr(err)
	}
	r := &BundleResult{Bundle: dir, Probes: Mine(hist, opt.Mine), Grounded: []Probe{}, ReReads: []string{}}
	if r.Probes == nil {
		r.Probes = []Probe{}
	}
	var g *Grounded
	switch cont, err := bundle.ReadText(filepath.Join(dir, bundle.FileContinuation)); {
	case err == nil:
		g = NewGrounded(hist, cont)
		if len(g.Probes) > 0 {
			r.Grounded = g.Probes
		} else {
			r.NotMeasurable = NotMeasurableUnused
		}
		r.ReReads = ReReads(hist, cont)
	case errors.Is(err, fs.ErrNotExist):
		r.NotMeasurable = NotMeasurableNoContinuation
	default:
		return nil, fileErr(err)
	}
	score := func(name, path, text string) BriefingScore {
		s := ScoreBriefing(name, text, r.Probes)
		s.File = path
		s.OverTarget = OverTarget(text, opt.Target)
		if g != nil && len(g.Probes) > 0 {
			gr, _ := g.Score(text, opt.Target)
			s.Grounded = &gr
		}
		s.ReReadNamed = namedFiles(text, r.ReReads)
		return s
	}
	actual := filepath.Join(dir, bundle.FileActual)
	if text, err := bundle.ReadText(actual); err == nil {
		r.Briefings = append(r.Briefings, score(Actual, actual, text))
	} else if !errors.Is(err, fs.ErrNotExist) {
		r.Warnings = append(r.Warnings, fileErr(err).Error())
	}
	texts := map[string]string{}
	defer func() {
		if g != nil && len(g.Probes) > 0 {
			r.equal = equalSize(g, r.Briefings, texts)
		}
	}()
	if text, err := bundle.ReadText(actual); err == nil {
		texts[Actual] = text
	}
	runs, err := bundle.Replays(dir)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range opt.Runs {
		want[n] = true
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Run < runs[j].Run })
	for _, run := range runs {
		if len(want) > 0 && !want[run.Run] {
			continue
		}
		if !run.Answered {
			continue
		}
		out := filepath.Join(run.Dir, bundle.FileOutput)
		text, err := bundle.ReadText(out)
		if err != nil {
			r.Warnings = append(r.Warnings, "run "+run.Run+": "+fileErr(err).Error())
			continue
		}
		texts[run.Run] = text
		s := score(run.Run, out, text)
		info := run.Info
		s.Replay = &info
		r.Briefings = append(r.Briefings, s)
	}
	return r, nil
}

// Why a bundle is not measurable by the grounded headline.
const (
	NotMeasurableNoContinuation = "no " + bundle.FileContinuation + " (what the session did next): extract the bundle again with this version of compact"
	NotMeasurableUnused         = "the session after the compaction used nothing of the compacted part that compact can check"
)

func fileErr(err error) error {
	var fe *bundle.FileError
	if errors.As(err, &fe) && errors.Is(fe.Err, fs.ErrNotExist) {
		return errors.New(fe.Path + " is missing")
	}
	return err
}

// Evaluate runs EvaluateBundle over dirs on workers goroutines (GOMAXPROCS
// when 0). Results keep the order of dirs; bundles that could not be read
// are returned as errors, in the same order.
func Evaluate(dirs []string, opt EvalOptions, workers int) ([]*BundleResult, []BundleError) {
	res := make([]*BundleResult, len(dirs))
	errs := make([]error, len(dirs))
	workpool.Each(len(dirs), workers, func(i int) {
		res[i], errs[i] = EvaluateBundle(dirs[i], opt)
	}, opt.Progress, nil)
	var out []*BundleResult
	var bad []BundleError
	for i := range dirs {
		if errs[i] != nil {
			bad = append(bad, BundleError{Bundle: dirs[i], Error: errs[i].Error()})
			continue
		}
		out = append(out, res[i])
	}
	return out, bad
}

// equalSize scores every two briefings at the same size: both cut to the
// smaller one's size, their grounded recall (the comparison that length
// cannot win).
func equalSize(g *Grounded, briefings []BriefingScore, texts map[string]string) map[[2]string][2]float64 {
	out := map[[2]string][2]float64{}
	for i := range briefings {
		for j := range briefings {
			a, b := briefings[i], briefings[j]
			if i == j {
				continue
			}
			n := min(a.Chars, b.Chars)
			ra, _ := g.Score(CutAt(texts[a.Name], n), 0)
			rb, _ := g.Score(CutAt(texts[b.Name], n), 0)
			out[[2]string{a.Name, b.Name}] = [2]float64{ra.Recall, rb.Recall}
		}
	}
	return out
}
