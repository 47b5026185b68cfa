package diff

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/workpool"
)

// Replay layout: <bundle>/replays/<run>/output.md and replay.json.
const (
	ReplaysDir       = "replays"
	ReplayOutputFile = "output.md"
	ReplayRecordFile = "replay.json"
)

// ReplayInfo is what the comparison reports about the replay that gave B:
// the run name and a few fields of its replay.json.
type ReplayInfo struct {
	Run         string          `json:"run"`
	Model       *string         `json:"model"`
	StartedAt   string          `json:"startedAt,omitempty"`
	Pack        json.RawMessage `json:"pack,omitempty"`
	ToolVersion string          `json:"toolVersion,omitempty"`
	CostUSD     *float64        `json:"costUsd,omitempty"`
	// Error is the record's error, for a replay that failed.
	Error string `json:"error,omitempty"`
	// Newest is true when the run was picked by default: the newest replay
	// with an answer (an output.md).
	Newest bool `json:"newest"`
	// SkippedNewer lists the runs newer than the one picked by default that
	// have no answer (failed replays), newest first.
	SkippedNewer []string `json:"skippedNewer,omitempty"`
}

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
	NoAnswer bool       `json:"noAnswer,omitempty"`
	Runs     []RunState `json:"runs,omitempty"`
}

// RunState is one replay run of a bundle: whether it has an answer
// (replays/<run>/output.md) and, when it has none, why.
type RunState struct {
	Run      string `json:"run"`
	Answered bool   `json:"answered"`
	// Error is the failed replay's error (from replay.json), or what is
	// missing.
	Error string `json:"error,omitempty"`
}

// NoAnswerError says a bundle has no replay output to compare with; Runs
// lists the runs it has, oldest first.
type NoAnswerError struct {
	Msg  string
	Runs []RunState
}

func (e *NoAnswerError) Error() string { return e.Msg }

// FindBundles lists the bundle directories under root (root itself when
// it is one), sorted. A bundle is a directory that holds actual-output.md,
// compact-history.xml or metadata.json; bundles do not nest, and replays
// directories and directories whose names start with '.' are skipped.
func FindBundles(root string) ([]string, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (compare two files with --a and --b)", root)
	}
	var out []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == ReplaysDir) {
			return filepath.SkipDir
		}
		if isBundle(path) {
			out = append(out, path)
			return filepath.SkipDir
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

func isBundle(dir string) bool {
	for _, f := range []string{extract.FileActualOutput, extract.FileCompact, extract.FileMetadata} {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil && !st.IsDir() {
			return true
		}
	}
	return false
}

// Replay is one run under a bundle's replays directory.
type Replay struct {
	Run       string
	Dir       string
	StartedAt time.Time // from replay.json, else the directory's mtime
	Info      ReplayInfo
	// RecordErr says why replay.json could not be used, if it could not.
	RecordErr error
	// Answered is true when the run has an output.md: a failed replay
	// leaves only its replay.json.
	Answered bool
}

// State is the run's RunState.
func (r *Replay) State() RunState {
	s := RunState{Run: r.Run, Answered: r.Answered}
	if !r.Answered {
		switch {
		case r.Info.Error != "":
			s.Error = r.Info.Error
		case errors.Is(r.RecordErr, fs.ErrNotExist):
			s.Error = "no " + ReplayOutputFile + " and no " + ReplayRecordFile
		case r.RecordErr != nil:
			s.Error = r.RecordErr.Error()
		default:
			s.Error = "no " + ReplayOutputFile
		}
		s.Error = strings.Join(strings.Fields(s.Error), " ")
	}
	return s
}

// Replays lists the runs of a bundle, oldest first (ties by name).
func Replays(bundle string) ([]Replay, error) {
	dir := filepath.Join(bundle, ReplaysDir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []Replay
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		r := Replay{Run: e.Name(), Dir: filepath.Join(dir, e.Name())}
		r.Info.Run = r.Run
		r.RecordErr = readReplayRecord(filepath.Join(r.Dir, ReplayRecordFile), &r)
		if st, err := os.Stat(filepath.Join(r.Dir, ReplayOutputFile)); err == nil && !st.IsDir() {
			r.Answered = true
		}
		if r.StartedAt.IsZero() {
			if st, err := os.Stat(r.Dir); err == nil {
				r.StartedAt = st.ModTime()
			}
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].StartedAt.Equal(out[j].StartedAt) {
			return out[i].StartedAt.Before(out[j].StartedAt)
		}
		return out[i].Run < out[j].Run
	})
	return out, nil
}

// readReplayRecord reads the fields of replay.json that the report shows;
// a missing or unreadable record is not fatal.
func readReplayRecord(path string, r *Replay) error {
	data, err := fsutil.ReadFileLimit(path, maxSmallFile)
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	var s string
	if raw, ok := m["model"]; ok {
		if json.Unmarshal(raw, &s) == nil {
			model := s
			r.Info.Model = &model
		}
	}
	if raw, ok := m["startedAt"]; ok && json.Unmarshal(raw, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			r.StartedAt = t
			r.Info.StartedAt = s
		}
	}
	if raw, ok := m["pack"]; ok && string(raw) != "null" {
		r.Info.Pack = raw
	}
	if raw, ok := m["toolVersion"]; ok && json.Unmarshal(raw, &s) == nil {
		r.Info.ToolVersion = s
	}
	if raw, ok := m["error"]; ok && json.Unmarshal(raw, &s) == nil {
		r.Info.Error = s
	}
	if raw, ok := m["costUsd"]; ok {
		var f float64
		if json.Unmarshal(raw, &f) == nil {
			r.Info.CostUSD = &f
		}
	}
	return nil
}

// metadata holds the fields of metadata.json the comparison uses.
type metadata struct {
	ChatID                  string `json:"chatId"`
	CompressionNumber       int    `json:"compressionNumber"`
	PreviousCompressionSize *int   `json:"previousCompressionSize"`
	hasSlash                bool
}

// maxSmallFile bounds what diff reads of a metadata.json or replay.json,
// a few hundred bytes when compact wrote them.
const maxSmallFile = 64 << 20

func readMetadata(path string) (*metadata, error) {
	data, err := fsutil.ReadFileLimit(path, maxSmallFile)
	if err != nil {
		return nil, err
	}
	if err := CheckText(data); err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fe.Path = path
		}
		return nil, err
	}
	var md metadata
	if err := json.Unmarshal(data, &md); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", path, err)
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(data, &keys)
	_, md.hasSlash = keys["slashIdsResolved"]
	return &md, nil
}

var compressionDirRe = regexp.MustCompile(`^compression-(\d+)$`)

// LoadBundle reads one bundle: A is actual-output.md, B the output of the
// replay opt.Run (the newest replay when empty). A problem with A or B is
// an error; a problem with the compact history or metadata is a warning
// and the measures that need it are left out.
func LoadBundle(dir string, opt Options) (Input, error) {
	in := Input{
		Bundle:    dir,
		AFile:     filepath.Join(dir, extract.FileActualOutput),
		Target:    opt.Target,
		Profile:   opt.Profile,
		Chain:     filepath.Dir(dir),
		WithDiffs: opt.WithDiffs,
	}
	if m := compressionDirRe.FindStringSubmatch(filepath.Base(dir)); m != nil {
		in.Compression, _ = strconv.Atoi(m[1])
	}
	var err error
	if in.A, err = ReadText(in.AFile); err != nil {
		return in, bundleFileErr(err)
	}
	runs, err := Replays(dir)
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
	in.BFile = filepath.Join(pick.Dir, ReplayOutputFile)
	if in.B, err = ReadText(in.BFile); err != nil {
		return in, bundleFileErr(err)
	}
	if pick.RecordErr != nil && !errors.Is(pick.RecordErr, fs.ErrNotExist) {
		in.Warnings = append(in.Warnings, "replay.json: "+pick.RecordErr.Error())
	}
	loadBeside(&in, dir)
	return in, nil
}

// pickReplay is the run named run, or (run "") the newest run with an
// answer. A bundle without such a run gives a *NoAnswerError.
func pickReplay(runs []Replay, run string) (*Replay, error) {
	states := make([]RunState, len(runs))
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
					run, filepath.Join(ReplaysDir, run, ReplayOutputFile), states[i].Error)}
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
		return nil, &NoAnswerError{Runs: states, Msg: "no replay (nothing under " + ReplaysDir + "/): run `compact replay` on it first"}
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

// RunNames lists the names of the replay runs of the bundles, sorted.
func RunNames(bundles []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, b := range bundles {
		ents, _ := os.ReadDir(filepath.Join(b, ReplaysDir))
		for _, e := range ents {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !seen[e.Name()] {
				seen[e.Name()] = true
				out = append(out, e.Name())
			}
		}
	}
	sort.Strings(out)
	return out
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
	if isBundle(dir) {
		in.Bundle = dir
	}
	loadBeside(&in, dir)
	return in, nil
}

// loadBeside reads compact-history.xml and metadata.json from dir.
func loadBeside(in *Input, dir string) {
	hp := filepath.Join(dir, extract.FileCompact)
	if h, err := ReadText(hp); err == nil {
		in.History, in.HasHistory = h, true
	} else if !errors.Is(err, fs.ErrNotExist) {
		in.Warnings = append(in.Warnings, bundleFileErr(err).Error()+"; must-keep items not measured")
	}
	md, err := readMetadata(filepath.Join(dir, extract.FileMetadata))
	switch {
	case err == nil:
		if md.PreviousCompressionSize != nil && *md.PreviousCompressionSize > 0 {
			in.PreviousChars, in.HasPrevious = *md.PreviousCompressionSize, true
		}
		if md.CompressionNumber > 0 {
			in.Compression = md.CompressionNumber
		}
		if md.hasSlash {
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
	var fe *FileError
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
