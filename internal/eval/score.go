package eval

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/history"
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

// Share is Kept/Total (1 when there is nothing to keep).
func (t Tally) Share() float64 {
	if t.Total == 0 {
		return 1
	}
	return float64(t.Kept) / float64(t.Total)
}

// BriefingScore is one briefing of a bundle, scored.
type BriefingScore struct {
	Name    string             `json:"name"` // Actual or the run
	File    string             `json:"file"`
	Chars   int                `json:"chars"`
	Answers []Answer           `json:"answers"`
	Kinds   map[Kind]Tally     `json:"kinds"`
	Overall Tally              `json:"overall"`
	Lost    []int              `json:"lost"` // indexes of the probes not answered
	Replay  *bundle.ReplayInfo `json:"replay,omitempty"`
	// Judged is the model-judged score (eval --judge), nil without one.
	Judged *JudgedBriefing `json:"judged,omitempty"`
}

// Score is the overall share of probes answered.
func (s *BriefingScore) Score() float64 { return s.Overall.Share() }

// BundleResult is the probes of one bundle and every briefing's score.
type BundleResult struct {
	Bundle    string          `json:"bundle"`
	Probes    []Probe         `json:"probes"`
	Briefings []BriefingScore `json:"briefings"`
	// Warnings are problems that left a briefing out (a run without an
	// answer, an unreadable output).
	Warnings []string `json:"warnings,omitempty"`
	// Judge is what the model judge asked and what it cost (eval --judge).
	Judge *JudgeSummary `json:"judge,omitempty"`
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
	hist, err := bundle.ReadText(filepath.Join(dir, bundle.FileCompact))
	if err != nil {
		return nil, fileErr(err)
	}
	r := &BundleResult{Bundle: dir, Probes: Mine(hist, opt.Mine)}
	if r.Probes == nil {
		r.Probes = []Probe{}
	}
	actual := filepath.Join(dir, bundle.FileActual)
	if text, err := bundle.ReadText(actual); err == nil {
		s := ScoreBriefing(Actual, text, r.Probes)
		s.File = actual
		r.Briefings = append(r.Briefings, s)
	} else if !errors.Is(err, fs.ErrNotExist) {
		r.Warnings = append(r.Warnings, fileErr(err).Error())
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
		s := ScoreBriefing(run.Run, text, r.Probes)
		s.File = out
		info := run.Info
		s.Replay = &info
		r.Briefings = append(r.Briefings, s)
	}
	return r, nil
}

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
