package batch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/replay"
)

// Files of a run's state.
const (
	// DirBatches is the directory, beside the bundles, holding one
	// directory per batch run.
	DirBatches = ".batches"
	// FileState is a run's head: everything but the per-request state.
	FileState = "state.json"
	// DirItems holds the per-request state (see State).
	DirItems = "items"
	// uploadPrefix starts the temporary upload files in a run's directory.
	uploadPrefix = ".upload-"
	stateTmp     = "." + FileState + ".tmp-"
)

// stateVersion changes when the state's format does. Version 1 held
// every bundle in state.json.
const stateVersion = 2

// Run kinds.
const (
	KindReplay = "replay" // compact replay --batch
	KindJudge  = "judge"  // compact eval --judge --batch
)

// Item outcomes, as the report counts them.
const (
	OutcomeOK      = "ok"      // answered; output.md (or the judge record) written
	OutcomeFailed  = "failed"  // every model failed; a replay's record says why
	OutcomeSkipped = "skipped" // answered before (replay), or nothing to judge
	OutcomeError   = "error"   // the bundle could not be read; no record
)

// State is a batch run. Its head, .batches/<run>/state.json, is small
// whatever the number of bundles: the models, the provider batches, the
// tallies and the ledger, and where each log of items/ ends. The
// per-request state is in items/, read and written a line at a time:
//
//	items/bundles.jsonl    the run's bundles, in order (one JSON string a line)
//	items/queue-<t>.jsonl  the requests waiting for tier t (Item lines)
//	items/b-<n>.jsonl      the requests of one provider batch (Item lines),
//	items/b-<n>.idx        and where each line starts (8 bytes each)
//	items/problems.jsonl   the bundles that failed or could not be read
//	items/judge/<n>.json   a judge run's answers so far for bundle n
//
// The logs only grow; the head says how much of each is committed, and
// what a killed process appended past that is cut off when the log is
// next appended to. The head is replaced through a temporary file and a
// rename after the logs are synced: it is the commit point.
type State struct {
	Version int    `json:"version"`
	Run     string `json:"run"`
	Kind    string `json:"kind"`
	// Models are the tiers, in cascade order.
	Models []string `json:"models"`
	Tiers  []Tier   `json:"tiers"`
	// Pack is the prompt pack the requests were built with ("" for the
	// bundles' own files), Locale its number format (replay).
	Pack     string  `json:"pack,omitempty"`
	Locale   string  `json:"locale,omitempty"`
	Discount float64 `json:"discount"`
	// Force: bundles answered before were sent again (--force).
	Force bool `json:"force,omitempty"`
	// Judge is what a judge run asks (KindJudge).
	Judge       *JudgeSpec `json:"judge,omitempty"`
	ToolVersion string     `json:"toolVersion"`
	CreatedAt   string     `json:"createdAt"`
	UpdatedAt   string     `json:"updatedAt"`
	// Cancelled: compact batch cancel stopped the run; nothing more is
	// submitted.
	Cancelled bool `json:"cancelled,omitempty"`
	// SubmitError is why the last submission of the queued requests
	// failed (at SubmitFailedAt), until one succeeds: what was not
	// submitted waits in the queues, in no batch.
	SubmitError    string   `json:"submitError,omitempty"`
	SubmitFailedAt string   `json:"submitFailedAt,omitempty"`
	Batches        []*Batch `json:"batches"`
	// NextBatch numbers the item files of the next batch.
	NextBatch int `json:"nextBatch"`
	// Bundles, Queues (one per tier) and Problems are the logs of items/.
	Bundles  Log   `json:"bundles"`
	Queues   []Log `json:"queues"`
	Problems Log   `json:"problems"`
	// Counts tally the bundles' outcomes and the requests waiting.
	Counts ItemCounts `json:"counts"`
	// Settled (judge): bit n is set once bundle n's answers are all in
	// (its grade was queued) or one failed.
	Settled []byte `json:"settled,omitempty"`
	Ledger  Ledger `json:"ledger"`
}

// JudgeSpec is what a judge run asks, so that a collect in another
// process asks the same.
type JudgeSpec struct {
	// Run names the records, <bundle>/judge/<Run>.json.
	Run   string `json:"run"`
	Judge string `json:"judge"`
	// Pack is the judge pack's directory ("" for the built-in one), and
	// PackHash its content's hash: a collect refuses a pack changed since.
	Pack         string   `json:"pack,omitempty"`
	PackHash     string   `json:"packHash"`
	MaxQuestions int      `json:"maxQuestions"`
	Runs         []string `json:"runs,omitempty"`
}

// Log is a file of JSON lines in items/: Lines and Bytes are committed.
// A queue is read from the front: Read lines (ReadBytes bytes) are taken.
type Log struct {
	File      string `json:"file"`
	Lines     int    `json:"lines"`
	Bytes     int64  `json:"bytes"`
	Read      int    `json:"read,omitempty"`
	ReadBytes int64  `json:"readBytes,omitempty"`
}

// waiting is the number of lines not taken yet.
func (l *Log) waiting() int { return l.Lines - l.Read }

// Tier is one model of the cascade.
type Tier struct {
	Model    string `json:"model"`
	Provider string `json:"provider"`
	Kind     string `json:"kind"`
	APIModel string `json:"apiModel"`
}

// Batch is one provider batch.
type Batch struct {
	ID       string `json:"id"`
	Tier     int    `json:"tier"`
	Provider string `json:"provider"`
	Kind     string `json:"kind"`
	// File names its requests' item files, items/<File>.jsonl and .idx.
	File string `json:"file"`
	// Requests is the number of requests, Items the bundles they answer
	// (the same: one request a bundle, or a judge call), Bytes the size
	// uploaded.
	Requests    int    `json:"requests"`
	Items       int    `json:"items"`
	Bytes       int64  `json:"bytes"`
	SubmittedAt string `json:"submittedAt"`
	// Status is the provider's status when last polled; Ended: it will
	// not change any more.
	Status      string `json:"status"`
	Ended       bool   `json:"ended,omitempty"`
	Counts      Counts `json:"counts"`
	Collected   bool   `json:"collected,omitempty"`
	CollectedAt string `json:"collectedAt,omitempty"`
	Cancelled   bool   `json:"cancelRequested,omitempty"`
}

// Counts are a batch's requests as its provider counts them.
type Counts struct {
	Total     int `json:"total"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Pending   int `json:"pending"`
}

// Item is one request of a run, on its way through the tiers: a bundle's
// replay, or one call of the judge on a bundle.
type Item struct {
	// N is the bundle's place in the run (items/bundles.jsonl).
	N int `json:"n"`
	// Bundle is the bundle's directory relative to the run's root, with
	// slashes (absolute when it is not under the root).
	Bundle string `json:"bundle"`
	// Part (judge): "answer" from the briefing Name, or "grade".
	Part string `json:"part,omitempty"`
	Name string `json:"name,omitempty"`
	// Names (judge answers): the bundle's briefings when it was queued.
	Names []string `json:"names,omitempty"`
	// The prompts' hashes, recorded when the request is first built: a
	// bundle changed since is an error.
	SystemSha string `json:"systemSha256,omitempty"`
	UserSha   string `json:"userSha256,omitempty"`
	// Tier is the index of the model the request is at.
	Tier int `json:"tier"`
	// Key is the request's response cache key, once built.
	Key string `json:"key,omitempty"`
	// Attempts are those of the tiers that failed, first to last.
	Attempts  []cascade.Attempt `json:"attempts,omitempty"`
	StartedAt string            `json:"startedAt,omitempty"`
}

// Dir is the directory of run's state under root (the directory the
// bundles were found under).
func Dir(root, run string) string { return filepath.Join(root, DirBatches, run) }

// Runs lists the batch runs under root.
func Runs(root string) []string {
	entries, err := os.ReadDir(filepath.Join(root, DirBatches))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(root, DirBatches, e.Name(), FileState)); err == nil {
				out = append(out, e.Name())
			}
		}
	}
	sort.Strings(out)
	return out
}

// Root is the directory whose .batches/ holds the runs of the bundles
// under paths: def (the channel's directory) when there are none, the
// one path, or the deepest directory the paths share ("." when they share
// none).
func Root(paths []string, def string) string {
	switch len(paths) {
	case 0:
		return def
	case 1:
		return filepath.Clean(paths[0])
	}
	var root string
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			a = filepath.Clean(p)
		}
		if i == 0 {
			root = a
			continue
		}
		for !within(a, root) {
			up := filepath.Dir(root)
			if up == root {
				break
			}
			root = up
		}
	}
	return root
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// FindRun checks run, a batch run's name given by --run, or, when it is
// "", finds the only run under root. The error says what to do.
func FindRun(root, run string) (string, error) {
	if run != "" {
		if err := replay.ValidRunName(run); err != nil {
			return "", fmt.Errorf("--run: %v", err)
		}
		return run, nil
	}
	runs := Runs(root)
	switch len(runs) {
	case 0:
		return "", fmt.Errorf("no batch run under %s; start one with compact replay --batch (with the same PATH or --channel)", root)
	case 1:
		return runs[0], nil
	}
	return "", fmt.Errorf("%d batch runs under %s (%s); name one with --run", len(runs), root, strings.Join(runs, ", "))
}

// ErrBusy: another process holds the run.
var ErrBusy = errors.New("batch run busy")

// ErrNoRun is returned when root holds no state for a run.
var ErrNoRun = errors.New("no batch run")

// maxStateBytes bounds what is read of a head: its batches, and a bit
// per bundle of a judge run.
const maxStateBytes = 256 << 20

// readState reads dir/state.json.
func readState(dir string) (*State, error) {
	path := filepath.Join(dir, FileState)
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w in %s", ErrNoRun, dir)
		}
		return nil, err
	}
	defer f.Close()
	data, err := fsutil.ReadLimit(f, path, maxStateBytes)
	if err != nil {
		return nil, err
	}
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %v (the file is damaged; submit the run again under another --run)", path, err)
	}
	if v.Version != stateVersion {
		return nil, fmt.Errorf("%s: state version %d, this compact reads %d; submit the run again under another --run", path, v.Version, stateVersion)
	}
	st := &State{}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("%s: %v (the file is damaged; submit the run again under another --run)", path, err)
	}
	if st.Kind == "" {
		st.Kind = KindReplay
	}
	if len(st.Queues) != len(st.Tiers) {
		return nil, fmt.Errorf("%s: %d queues for %d models (the file is damaged)", path, len(st.Queues), len(st.Tiers))
	}
	return st, nil
}

// writeState replaces dir/state.json through a temporary file and a
// rename: a reader sees the old head or the new one.
func writeState(dir string, st *State) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	f, err := fsutil.CreateTemp(dir, stateTmp, "")
	if err != nil {
		return err
	}
	name := f.Name()
	defer fsutil.Release(name)
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, filepath.Join(dir, FileState))
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", filepath.Join(dir, FileState), err)
	}
	return nil
}

// lockRun holds dir for the life of a submit, collect or cancel: a second
// one fails at once rather than racing.
func lockRun(dir string) (func(), error) {
	release, err := fsutil.Hold(dir)
	if err != nil {
		if errors.Is(err, fsutil.ErrHeld) {
			return nil, fmt.Errorf("%w: %s is in use by another compact (a collect or submit of the same run); wait for it to finish", ErrBusy, dir)
		}
		return nil, err
	}
	// Leftovers of a killed run: temporary state and upload files.
	fsutil.CleanStale(dir, stateTmp)
	fsutil.CleanStale(dir, uploadPrefix)
	fsutil.CleanStale(filepath.Join(dir, DirItems, KindJudge), scratchTmp)
	return release, nil
}

// pending is the number of requests not settled: queued or in batches.
func (st *State) pending() int { return st.Counts.Queued + st.Counts.Submitted }

func (st *State) settled(n int) bool {
	return n/8 < len(st.Settled) && st.Settled[n/8]&(1<<(n%8)) != 0
}

func (st *State) settle(n int) {
	for len(st.Settled) <= n/8 {
		st.Settled = append(st.Settled, 0)
	}
	st.Settled[n/8] |= 1 << (n % 8)
}

// ---- logs ----

// logs are the open appenders of a run's logs, by file.
type logs struct {
	dir   string
	files map[string]*os.File
}

func (l *logs) path(name string) string { return filepath.Join(l.dir, DirItems, name) }

// append writes v as one line at the end of lg: lg's committed end the
// first time in this process (what a killed one left past it goes).
// Not buffered: a reader of the same log sees the line at once.
func (l *logs) append(lg *Log, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	f := l.files[lg.File]
	if f == nil {
		if err := os.MkdirAll(filepath.Join(l.dir, DirItems), 0o755); err != nil {
			return err
		}
		f, err = os.OpenFile(l.path(lg.File), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		if err := f.Truncate(lg.Bytes); err != nil {
			f.Close()
			return err
		}
		if _, err := f.Seek(lg.Bytes, io.SeekStart); err != nil {
			f.Close()
			return err
		}
		l.files[lg.File] = f
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", l.path(lg.File), err)
	}
	lg.Lines++
	lg.Bytes += int64(len(data))
	return nil
}

// sync makes what was appended durable, before the head that commits it
// is written.
func (l *logs) sync() error {
	for _, f := range l.files {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	return nil
}

func (l *logs) close() {
	for name, f := range l.files {
		f.Close()
		delete(l.files, name)
	}
}

// readLines calls fn with each line of lg from line from (at byte off),
// up to its committed end; fn gets the line without its newline and its
// size with it. The slice is reused.
func readLines(path string, off int64, lines int, fn func(line []byte, size int64) error) error {
	if lines <= 0 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return err
	}
	br := &lineReader{r: bufio.NewReaderSize(f, 64<<10)}
	for range lines {
		line, err := br.next()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("%s: %w (the run's state is damaged)", path, err)
		}
		if err := fn(line[:len(line)-1], int64(len(line))); err != nil {
			return err
		}
	}
	return nil
}

// maxItemLine bounds one line of items/: an item carries the attempts of
// the tiers it failed at, each error cut to a few kilobytes.
const maxItemLine = 64 << 20

// lineReader reads lines of any length up to maxItemLine.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

// next is the next line, with its newline; io.EOF when there is no
// complete line left.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		part, err := l.r.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
			l.buf = append(l.buf, part...)
			if len(l.buf) > maxItemLine {
				return nil, fmt.Errorf("a line over %d bytes", maxItemLine)
			}
			continue
		case err != nil:
			return nil, err
		case len(l.buf) == 0:
			return part, nil
		}
		l.buf = append(l.buf, part...)
		return l.buf, nil
	}
}
