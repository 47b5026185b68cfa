package diff

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/workpool"
)

// Options steer loading and comparing bundles.
type Options struct {
	// Run names the replay to compare with; "" picks the newest replay
	// that has an answer.
	Run string
	// Target is the size target (DefaultTarget when 0).
	Target int
	// Profile applies to bundles whose metadata does not tell (mdtext.ProfileE3E
	// when empty). metadata.json written at e3e has slashIdsResolved.
	Profile string
	// WithDiffs asks for the unified diff text of changed sections.
	WithDiffs bool
	// Progress, when set, is called after each bundle with the number done
	// so far and the total, from the worker goroutines (one call at a time).
	Progress func(done, total int)
}

// BundleError is a bundle that could not be compared.
type BundleError struct {
	Bundle string `json:"bundle"`
	Error  string `json:"error"`
	// NoAnswer is true when the bundle has no replay output to compare
	// with: no replay at all, only failed ones, or not the run asked for.
	// Runs then lists the runs it has.
	NoAnswer bool              `json:"noAnswer,omitempty"`
	Runs     []bundle.RunState `json:"runs,omitempty"`
}

// NoAnswerError says a bundle has no replay output to compare with; Runs
// lists the runs it has, oldest first.
type NoAnswerError struct {
	Msg  string
	Runs []bundle.RunState
}

func (e *NoAnswerError) Error() string { return e.Msg }

// readMetadata reads the metadata.json at path: a blank file is a
// *bundle.FileError, as a blank briefing given by hand is.
func readMetadata(path string) (*bundle.Metadata, error) {
	data, err := fsutil.ReadFileLimit(path, bundle.MaxRecordBytes)
	if err != nil {
		return nil, err
	}
	if err := bundle.CheckText(data); err != nil {
		var fe *bundle.FileError
		if errors.As(err, &fe) {
			fe.Path = path
		}
		return nil, err
	}
	md, err := bundle.ParseMetadata(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", path, err)
	}
	return &md, nil
}

// LoadBundle reads one bundle: A is the app's briefing (bundle.FileActual),
// B the output of the replay opt.Run (the newest replay when empty). A problem with A or B is
// an error; a problem with the compact history or metadata is a warning
// and the measures that need it are left out.
func LoadBundle(dir string, opt Options) (Input, error) {
	in := Input{
		Bundle:    dir,
		AFile:     filepath.Join(dir, bundle.FileActual),
		Target:    opt.Target,
		Profile:   opt.Profile,
		Chain:     bundle.ChainOf(dir),
		WithDiffs: opt.WithDiffs,
	}
	in.Compression = bundle.Position(dir, nil)
	var err error
	if in.A, err = bundle.ReadText(in.AFile); err != nil {
		return in, bundleFileErr(err)
	}
	runs, err := bundle.Replays(dir)
	if err != nil {
		return in, err
	}
	pick, err := pickReplay(runs, opt.Run)
	if err != nil {
		return in, err
	}
	in.Run = pick.Run
	info := pick.Info
	in.Replay = &info
	in.BFile = filepath.Join(pick.Dir, bundle.FileOutput)
	if in.B, err = bundle.ReadText(in.BFile); err != nil {
		return in, bundleFileErr(err)
	}
	if pick.RecordErr != nil && !errors.Is(pick.RecordErr, fs.ErrNotExist) {
		in.Warnings = append(in.Warnings, bundle.FileRecord+": "+pick.RecordErr.Error())
	}
	loadBeside(&in, dir)
	return in, nil
}

// pickReplay is the run named run, or (run "") the newest run with an
// answer. A bundle without such a run gives a *NoAnswerError.
func pickReplay(runs []bundle.Replay, run string) (*bundle.Replay, error) {
	states := make([]bundle.RunState, len(runs))
	for i := range runs {
		states[i] = runs[i].State()
	}
	if run != "" {
		for i := range runs {
			if runs[i].Run != run {
				continue
			}
			if !runs[i].Answered {
				return nil, &NoAnswerError{Runs: states, Msg: fmt.Sprintf("replay %s has no answer (no %s): %s",
					run, filepath.Join(bundle.DirReplays, run, bundle.FileOutput), states[i].Error)}
			}
			return &runs[i], nil
		}
		if len(runs) == 0 {
			return nil, &NoAnswerError{Runs: states, Msg: fmt.Sprintf("no replay named %q (the bundle has no replays)", run)}
		}
		names := make([]string, len(runs))
		for i, r := range runs {
			names[i] = r.Run
		}
		sort.Strings(names)
		return nil, &NoAnswerError{Runs: states, Msg: fmt.Sprintf("no replay named %q (have: %s)", run, strings.Join(names, ", "))}
	}
	if len(runs) == 0 {
		return nil, &NoAnswerError{Runs: states, Msg: "no replay (nothing under " + bundle.DirReplays + "/): run `compact replay` on it first"}
	}
	var skipped []string
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Answered {
			runs[i].Info.Newest = true
			runs[i].Info.SkippedNewer = skipped
			return &runs[i], nil
		}
		skipped = append(skipped, runs[i].Run)
	}
	var failed []string
	for _, s := range states {
		failed = append(failed, s.Run+" failed ("+mdtext.Clip(s.Error, 100)+")")
	}
	return nil, &NoAnswerError{Runs: states, Msg: "no replay with an answer: " + strings.Join(failed, ", ")}
}

// RunTally counts one run over the bundles that could not be compared for
// want of an answer: in how many it has an answer and in how many it
// failed, with the first failure's error.
type RunTally struct {
	Run        string
	Answered   int
	Failed     int
	FirstError string
}

// TallyRuns sums the runs of the NoAnswer errors of errs, most bundles
// first (ties by name).
func TallyRuns(errs []BundleError) []RunTally {
	by := map[string]*RunTally{}
	var out []*RunTally
	for _, e := range errs {
		if !e.NoAnswer {
			continue
		}
		for _, r := range e.Runs {
			t := by[r.Run]
			if t == nil {
				t = &RunTally{Run: r.Run}
				by[r.Run] = t
				out = append(out, t)
			}
			if r.Answered {
				t.Answered++
				continue
			}
			t.Failed++
			if t.FirstError == "" {
				t.FirstError = r.Error
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Answered+a.Failed != b.Answered+b.Failed {
			return a.Answered+a.Failed > b.Answered+b.Failed
		}
		return a.Run < b.Run
	})
	res := make([]RunTally, len(out))
	for i, t := range out {
		res[i] = *t
	}
	return res
}

// LoadFiles reads two loose files; the compact history and metadata are
// taken from A's directory when they are there.
func LoadFiles(aPath, bPath string, opt Options) (Input, error) {
	in := Input{
		Bundle:    aPath,
		AFile:     aPath,
		BFile:     bPath,
		Target:    opt.Target,
		Profile:   opt.Profile,
		WithDiffs: opt.WithDiffs,
	}
	var err error
	if in.A, err = readLoose(aPath); err != nil {
		return in, bundleFileErr(err)
	}
	if in.B, err = readLoose(bPath); err != nil {
		return in, bundleFileErr(err)
	}
	dir := filepath.Dir(aPath)
	if bundle.Readable.Is(dir) {
		in.Bundle = dir
	}
	loadBeside(&in, dir)
	return in, nil
}

// readLoose is bundle.ReadText of a file given by hand (--a, --b), which
// is also refused when it is blank: compact writes no such file, so it is
// most likely the wrong one.
func readLoose(path string) (string, error) {
	text, err := bundle.ReadText(path)
	if err != nil {
		return "", err
	}
	if err := bundle.CheckText([]byte(text)); err != nil {
		var fe *bundle.FileError
		if errors.As(err, &fe) {
			fe.Path = path
		}
		return "", err
	}
	return text, nil
}

// loadBeside reads the compact history and the metadata from dir.
func loadBeside(in *Input, dir string) {
	hp := filepath.Join(dir, bundle.FileCompact)
	if h, err := bundle.ReadText(hp); err == nil {
		in.History, in.HasHistory = h, true
	} else if !errors.Is(err, fs.ErrNotExist) {
		in.Warnings = append(in.Warnings, bundleFileErr(err).Error()+"; must-keep items not measured")
	}
	md, err := readMetadata(filepath.Join(dir, bundle.FileMetadata))
	switch {
	case err == nil:
		if md.PreviousCompressionSize != nil && *md.PreviousCompressionSize > 0 {
			in.PreviousChars, in.HasPrevious = *md.PreviousCompressionSize, true
		}
		in.Compression = bundle.Position(dir, md)
		if md.HasSlash() {
			in.Profile = mdtext.ProfileE3E
		} else {
			in.Profile = mdtext.ProfileHead
		}
		return
	case !errors.Is(err, fs.ErrNotExist):
		in.Warnings = append(in.Warnings, bundleFileErr(err).Error()+"; previous size taken from the compact history")
	}
	if in.HasHistory {
		if h := mdtext.ParseHistory(in.History); h.HasPrevious {
			in.PreviousChars, in.HasPrevious = len16(h.Previous), true
		}
	}
}

// bundleFileErr turns a missing file into a short message.
func bundleFileErr(err error) error {
	var fe *bundle.FileError
	if errors.As(err, &fe) && errors.Is(fe.Err, fs.ErrNotExist) {
		return fmt.Errorf("%s is missing: %w", fe.Path, fs.ErrNotExist)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is missing: %w", pe.Path, fs.ErrNotExist)
	}
	return err
}

// CompareBundles loads and compares every bundle of dirs on workers
// goroutines (GOMAXPROCS when 0). The comparisons keep the order of dirs;
// a bundle that cannot be compared gives a BundleError instead, in the
// same order.
func CompareBundles(dirs []string, opt Options, workers int) ([]*Comparison, []BundleError) {
	type result struct {
		c   *Comparison
		err error
	}
	res := make([]result, len(dirs))
	workpool.Each(len(dirs), workers, func(i int) {
		in, err := LoadBundle(dirs[i], opt)
		if err != nil {
			res[i].err = err
		} else {
			res[i].c = Compare(in)
		}
	}, opt.Progress, nil)
	var cs []*Comparison
	var errs []BundleError
	for i, r := range res {
		if r.err != nil {
			be := BundleError{Bundle: dirs[i], Error: r.err.Error()}
			var na *NoAnswerError
			if errors.As(r.err, &na) {
				be.NoAnswer, be.Runs = true, na.Runs
			}
			errs = append(errs, be)
			continue
		}
		cs = append(cs, r.c)
	}
	return cs, errs
}
