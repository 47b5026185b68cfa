package batch

import (
	"errors"
	"fmt"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/replay"
)

// replayJob is compact replay --batch: a request per bundle, whose answer
// lands where an interactive replay writes its own
// (<bundle>/replays/<run>/output.md and replay.json, with batch:
// {provider, id, customId}).
type replayJob struct {
	r    *runner
	pack *prompt.Pack
}

// input reads a bundle's request. The first time, it records the
// prompts' hashes and skips a bundle answered before for the run (unless
// the run was submitted with --force); later, a bundle whose prompts
// changed since is an error.
func (j *replayJob) input(it *Item) (cascade.Input, bool, error) {
	r := j.r
	path := r.path(it.Bundle)
	req, err := replay.BuildRequest(path, j.pack, r.st.Pack, r.st.Locale)
	if err != nil {
		return cascade.Input{}, false, err
	}
	sys, user := replay.Sha256(req.Input.System), replay.Sha256(req.Input.User)
	if it.SystemSha == "" {
		it.SystemSha, it.UserSha = sys, user
		if !r.st.Force {
			if _, ok := replay.Answered(path, r.st.Run, r.st.Models, sys, user); ok {
				r.tally(func(c *ItemCounts) { c.Skipped++ })
				return cascade.Input{}, true, nil
			}
		}
	} else if it.SystemSha != sys || it.UserSha != user {
		return cascade.Input{}, false, errors.New("the bundle's prompts changed since the batch run was submitted; replay it again")
	}
	// A run NAME@I is repeat I (replay.RepeatOf): its own request, as
	// an interactive replay's.
	_, req.Input.Repeat = replay.RepeatOf(r.st.Run)
	return req.Input, false, nil
}

func (j *replayJob) answered(it *Item, attempts []cascade.Attempt, text string, cached int64, b *Batch, cid string) error {
	if b == nil || !j.onDisk(it, b, cid) {
		rec := j.r.record(it, attempts, b, cid)
		rec.CachedInputTokens = cached
		if err := j.write(it, rec, text); err != nil {
			return err
		}
	}
	j.r.tally(func(c *ItemCounts) { c.OK++ })
	return nil
}

func (j *replayJob) failed(it *Item, attempts []cascade.Attempt, note string, b *Batch, cid string) error {
	rec := j.r.record(it, attempts, b, cid)
	if note != "" {
		rec.Error += "; " + note
	}
	if b == nil || !j.onDisk(it, b, cid) {
		if err := j.write(it, rec, ""); err != nil {
			return err
		}
	}
	return j.r.problem(it, OutcomeFailed, rec.Error)
}

func (j *replayJob) broken(it *Item, msg string) error {
	return j.r.problem(it, OutcomeError, msg)
}

func (j *replayJob) leftovers(bundles []string) int {
	n, _ := bundle.CleanRunLeftovers(bundles, j.r.st.Run)
	return n
}

// write writes a bundle's result.
func (j *replayJob) write(it *Item, rec *replay.Record, text string) error {
	path := j.r.path(it.Bundle)
	if err := replay.WriteResult(path, j.r.st.Run, rec, text, j.r.cas.Redact); err != nil {
		return fmt.Errorf("%s: write the result: %w", path, err)
	}
	return nil
}

// onDisk reports whether the bundle's result for the run came from this
// batch request already (a collect that stopped before recording it).
func (j *replayJob) onDisk(it *Item, b *Batch, customID string) bool {
	rec, err := replay.ReadRecord(j.r.path(it.Bundle), j.r.st.Run)
	return err == nil && rec.Batch != nil && rec.Batch.ID == b.ID && rec.Batch.CustomID == customID &&
		rec.SystemSha256 == it.SystemSha && rec.UserSha256 == it.UserSha
}
