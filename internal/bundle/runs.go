package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/fsutil"
)

// ReplayInfo is what a report says about the replay run that gave a
// briefing: the run name and a few fields of its replay.json.
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

// RunState is one replay run of a bundle: whether it has an answer
// (replays/<run>/output.md) and, when it has none, why.
type RunState struct {
	Run      string `json:"run"`
	Answered bool   `json:"answered"`
	// Error is the failed replay's error (from replay.json), or what is
	// missing.
	Error string `json:"error,omitempty"`
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
			s.Error = "no " + FileOutput + " and no " + FileRecord
		case r.RecordErr != nil:
			s.Error = r.RecordErr.Error()
		default:
			s.Error = "no " + FileOutput
		}
		s.Error = strings.Join(strings.Fields(s.Error), " ")
	}
	return s
}

// Replays lists the runs of a bundle, oldest first (ties by name).
func Replays(bundle string) ([]Replay, error) {
	dir := filepath.Join(bundle, DirReplays)
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
		r.RecordErr = readReplayRecord(filepath.Join(r.Dir, FileRecord), &r)
		if st, err := os.Stat(filepath.Join(r.Dir, FileOutput)); err == nil && !st.IsDir() {
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

// readReplayRecord reads the fields of replay.json that a report shows;
// a missing or unreadable record is not fatal.
func readReplayRecord(path string, r *Replay) error {
	data, err := fsutil.ReadFileLimit(path, MaxRecordBytes)
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

// RunNames lists the names of the replay runs of the bundles, sorted.
func RunNames(bundles []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, b := range bundles {
		ents, _ := os.ReadDir(filepath.Join(b, DirReplays))
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

// JudgeRecords lists the runs with a judge record in a bundle,
// <bundle>/judge/<run>.json, by name (nil when it has none).
func JudgeRecords(bundle string) []string {
	ents, err := os.ReadDir(filepath.Join(bundle, DirJudge))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, strings.TrimSuffix(e.Name(), ".json"))
		}
	}
	return out
}
