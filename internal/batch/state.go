package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/fsutil"
)

// Files of a run's state.
const (
	// DirBatches is the directory, beside the bundles, holding one
	// directory per batch run.
	DirBatches = ".batches"
	// FileState is a run's state.
	FileState = "state.json"
	// uploadPrefix starts the temporary upload files in a run's directory.
	uploadPrefix = ".upload-"
	stateTmp     = "." + FileState + ".tmp-"
)

// stateVersion changes when the state's format does.
const stateVersion = 1

// Item states.
const (
	ItemQueued    = "queued"    // to be submitted at Tier
	ItemSubmitted = "submitted" // in Batch at Tier
	ItemDone      = "done"      // a result was written (or it could not be read)
)

// Item outcomes, once done.
const (
	OutcomeOK      = "ok"      // answered; output.md written
	OutcomeFailed  = "failed"  // every model failed; the record says why
	OutcomeSkipped = "skipped" // answered before, for the same run, models and prompts
	OutcomeError   = "error"   // the bundle could not be read; no record
)

// State is a batch run: .batches/<run>/state.json.
type State struct {
	Version int    `json:"version"`
	Run     string `json:"run"`
	// Models are the tiers, in cascade order.
	Models []string `json:"models"`
	Tiers  []Tier   `json:"tiers"`
	// Pack is the prompt pack the requests were built with ("" for the
	// bundles' own files), Locale its number format.
	Pack     string  `json:"pack,omitempty"`
	Locale   string  `json:"locale,omitempty"`
	Discount float64 `json:"discount"`
	// Force: bundles answered before were sent again (--force).
	Force       bool   `json:"force,omitempty"`
	ToolVersion string `json:"toolVersion"`
	CreatedAt   string `json:"createdAt"`
	UpdatedAt   string `json:"updatedAt"`
	// Cancelled: compact batch cancel stopped the run; nothing more is
	// submitted.
	Cancelled bool     `json:"cancelled,omitempty"`
	Batches   []*Batch `json:"batches"`
	Items     []*Item  `json:"items"`
	Ledger    Ledger   `json:"ledger"`
}

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
	// Requests is the number of requests (distinct custom ids), Items
	// the bundles they answer, Bytes the size uploaded.
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

// Item is one bundle.
type Item struct {
	// Bundle is the bundle's directory relative to the run's root, with
	// slashes (absolute when it is not under the root).
	Bundle    string `json:"bundle"`
	SystemSha string `json:"systemSha256,omitempty"`
	UserSha   string `json:"userSha256,omitempty"`
	// Tier is the index of the model the bundle is at.
	Tier  int    `json:"tier"`
	State string `json:"state"`
	// Batch and Key: the batch the request is in and the request's
	// response cache key (its custom id is CustomID(Key)).
	Batch string `json:"batch,omitempty"`
	Key   string `json:"key,omitempty"`
	// Attempts are those of the tiers that failed, first to last.
	Attempts  []cascade.Attempt `json:"attempts,omitempty"`
	Outcome   string            `json:"outcome,omitempty"`
	Model     string            `json:"model,omitempty"`
	Error     string            `json:"error,omitempty"`
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

// ErrBusy: another process holds the run.
var ErrBusy = errors.New("batch run busy")

// ErrNoRun is returned when root holds no state for a run.
var ErrNoRun = errors.New("no batch run")

// maxStateBytes bounds what is read of a state file: about 350 bytes a
// bundle, so some three million bundles.
const maxStateBytes = 1 << 30

// readState reads dir/state.json. The items are decoded one at a time
// (a state holds one per bundle), and their repeated strings (models,
// states, times, the system prompt's hash) share memory.
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
	st, err := decodeState(bufio.NewReaderSize(io.LimitReader(f, maxStateBytes), 64<<10))
	if err != nil {
		return nil, fmt.Errorf("%s: %v (the file is damaged; submit the run again under another --run)", path, err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("%s: state version %d, this compact reads %d", path, st.Version, stateVersion)
	}
	return st, nil
}

// decodeState reads a state object: every field but items as a whole,
// items one by one.
func decodeState(r io.Reader) (*State, error) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	head := map[string]json.RawMessage{}
	st := &State{}
	intern := map[string]string{}
	in := func(s *string) {
		if v, ok := intern[*s]; ok {
			*s = v
		} else if len(intern) < 1024 {
			intern[*s] = *s
		}
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		if key != "items" {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, err
			}
			head[key] = raw
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			if t == nil && err == nil {
				continue // "items": null
			}
			return nil, fmt.Errorf("items: not a list")
		}
		for dec.More() {
			it := &Item{}
			if err := dec.Decode(it); err != nil {
				return nil, fmt.Errorf("items[%d]: %v", len(st.Items), err)
			}
			for _, s := range []*string{&it.SystemSha, &it.State, &it.Batch, &it.Outcome, &it.Model, &it.StartedAt} {
				in(s)
			}
			st.Items = append(st.Items, it)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
	}
	data, err := json.Marshal(head)
	if err != nil {
		return nil, err
	}
	items := st.Items
	if err := json.Unmarshal(data, st); err != nil {
		return nil, err
	}
	st.Items = items
	return st, nil
}

// writeState replaces dir/state.json through a temporary file and a
// rename: a reader sees the old state or the new one. The items are
// written one at a time.
func writeState(dir string, st *State) error {
	f, err := fsutil.CreateTemp(dir, stateTmp, "")
	if err != nil {
		return err
	}
	name := f.Name()
	defer fsutil.Release(name)
	err = encodeState(f, st)
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

func encodeState(w io.Writer, st *State) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	head := *st
	head.Items = nil
	data, err := json.Marshal(&head)
	if err != nil {
		return err
	}
	// {"version":…,"items":null,…}: the items go where null is.
	const null = `"items":null`
	i := bytes.Index(data, []byte(null))
	if i < 0 {
		return fmt.Errorf("state: no items field")
	}
	bw.Write(data[:i])
	bw.WriteString(`"items":[`)
	for n, it := range st.Items {
		if n > 0 {
			bw.WriteByte(',')
		}
		b, err := json.Marshal(it)
		if err != nil {
			return err
		}
		bw.Write(b)
	}
	bw.WriteByte(']')
	bw.Write(data[i+len(null):])
	bw.WriteByte('\n')
	return bw.Flush()
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
	return release, nil
}

// tier reports whether st has pending work: items not done.
func (st *State) pending() int {
	n := 0
	for _, it := range st.Items {
		if it.State != ItemDone {
			n++
		}
	}
	return n
}

func (st *State) batch(id string) *Batch {
	for _, b := range st.Batches {
		if b.ID == id {
			return b
		}
	}
	return nil
}
