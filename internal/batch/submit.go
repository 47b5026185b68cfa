package batch

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/replay"
)

// upload is a batch being written: its file and what it holds.
type upload struct {
	f     *os.File
	size  int64
	n     int
	items []*Item
	cids  []string
}

func (u *upload) discard() {
	if u == nil {
		return
	}
	name := u.f.Name()
	u.f.Close()
	os.Remove(name)
	fsutil.Release(name)
}

// submitQueued sends every queued bundle to its tier's batches, first tier
// first (a bundle that fails before it is sent moves on to the next tier
// in the same call).
func (r *runner) submitQueued(ctx context.Context) error {
	for t := range r.st.Tiers {
		var queued []*Item
		for _, it := range r.st.Items {
			if it.State == ItemQueued && it.Tier == t {
				queued = append(queued, it)
			}
		}
		if len(queued) == 0 {
			continue
		}
		if r.st.Cancelled {
			if err := r.dropCancelled(queued); err != nil {
				return err
			}
			continue
		}
		if err := r.submitTier(ctx, t, queued); err != nil {
			if serr := r.save(); serr != nil && err == nil {
				err = serr
			}
			return err
		}
		if err := r.save(); err != nil {
			return err
		}
	}
	return nil
}

// dropCancelled ends the queued bundles of a cancelled run: those tried
// before get their failed record, the others no record.
func (r *runner) dropCancelled(items []*Item) error {
	for _, it := range items {
		msg := "the run was cancelled (compact batch cancel) before the bundle was sent to " + r.st.Tiers[it.Tier].Model
		if len(it.Attempts) == 0 {
			finish(it, OutcomeError, "", msg)
			continue
		}
		rec := r.record(it, it.Attempts, nil, "")
		rec.Error += "; " + msg
		if err := r.write(it, rec, ""); err != nil {
			return err
		}
		finish(it, OutcomeFailed, "", rec.Error)
	}
	return r.save()
}

// submitTier sends items to tier t: answered from the cache where it can,
// the others in as many batches as the provider's limits ask for.
func (r *runner) submitTier(ctx context.Context, t int, items []*Item) error {
	tier := r.st.Tiers[t]
	svc, err := r.service(tier)
	if err != nil {
		return fmt.Errorf("tier %d, %s: %v", t+1, tier.Model, err)
	}
	lim := r.s.Limits[tier.Kind]
	form := svc.format()
	// Requests already in a batch of this round, by custom id ("" while
	// in the upload being written): bundles with the same request share it.
	inRound := map[string]string{}
	var up *upload
	defer func() { up.discard() }()
	flush := func() error {
		if up == nil || up.n == 0 {
			return nil
		}
		if _, err := up.f.WriteString(form.suffix); err != nil {
			return err
		}
		up.size += int64(len(form.suffix))
		id, err := svc.create(ctx, tier, up.f, up.size, up.n, "compact "+r.st.Run)
		if err != nil {
			return fmt.Errorf("submit %d requests for %s to %s: %s", up.n, tier.Model, tier.Provider, r.cas.Redact(err.Error()))
		}
		b := &Batch{ID: id, Tier: t, Provider: tier.Provider, Kind: tier.Kind, Requests: up.n, Items: len(up.items), Bytes: up.size,
			SubmittedAt: r.stamp(), Status: "submitted", Counts: Counts{Total: up.n, Pending: up.n}}
		r.st.Batches = append(r.st.Batches, b)
		for _, it := range up.items {
			it.State, it.Batch = ItemSubmitted, id
		}
		for _, c := range up.cids {
			inRound[c] = id
		}
		r.rep.Submitted = append(r.rep.Submitted, id)
		r.progress("submitted %s batch %s: %d requests for %s", tier.Provider, id, up.n, tier.Model)
		up.discard()
		up = nil
		// Recorded at once: a batch the state does not name would be
		// paid for and never collected.
		return r.save()
	}
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: %v", ErrInterrupted, err)
		}
		in, skip, err := r.input(it)
		if err != nil {
			finish(it, OutcomeError, "", err.Error())
			continue
		}
		if skip {
			continue
		}
		br, err := r.cas.BatchRequest(tier.Model, in)
		if err != nil {
			finish(it, OutcomeError, "", r.cas.Redact(err.Error()))
			continue
		}
		if a, text, ok := r.cas.CachedAnswer(br); ok {
			if err := r.settle([]*Item{it}, a, text, 0, nil, ""); err != nil {
				return err
			}
			r.st.Ledger.charge(r.st, t, LedgerRow{FromCache: 1, SavedUSD: a.SavedUSD})
			continue
		}
		cid := CustomID(br.Key)
		it.Key = br.Key
		if id, seen := inRound[cid]; seen {
			if id == "" {
				up.items = append(up.items, it)
			} else {
				it.State, it.Batch = ItemSubmitted, id
				r.st.batch(id).Items++
			}
			continue
		}
		line, err := svc.encode(cid, br)
		if err != nil {
			a := r.cas.FailedBatchAttempt(br, cascade.OutcomeError, "the request could not be encoded: "+err.Error(), 0, cascade.Usage{}, 1)
			if err := r.fail(it, a, nil, ""); err != nil {
				return err
			}
			continue
		}
		alone := int64(len(form.prefix) + len(line) + len(form.suffix))
		if lim.MaxBytes > 0 && alone > lim.MaxBytes {
			msg := fmt.Sprintf("the request is %d bytes, over the %s batch limit of %d bytes (batch.limits.%s.max_bytes)", alone, tier.Kind, lim.MaxBytes, tier.Kind)
			if err := r.fail(it, r.cas.FailedBatchAttempt(br, cascade.OutcomeError, msg, 0, cascade.Usage{}, 1), nil, ""); err != nil {
				return err
			}
			continue
		}
		if up != nil && (lim.MaxRequests > 0 && up.n+1 > lim.MaxRequests ||
			lim.MaxBytes > 0 && up.size+int64(len(form.sep)+len(line)+len(form.suffix)) > lim.MaxBytes) {
			if err := flush(); err != nil {
				return err
			}
		}
		if up == nil {
			f, err := fsutil.CreateTemp(r.dir, uploadPrefix, ".jsonl")
			if err != nil {
				return err
			}
			up = &upload{f: f}
			if _, err := f.WriteString(form.prefix); err != nil {
				return err
			}
			up.size = int64(len(form.prefix))
		}
		if up.n > 0 {
			if _, err := up.f.WriteString(form.sep); err != nil {
				return err
			}
			up.size += int64(len(form.sep))
		}
		if _, err := up.f.Write(line); err != nil {
			return fmt.Errorf("write the upload in %s: %w", r.dir, err)
		}
		up.size += int64(len(line))
		up.n++
		up.items = append(up.items, it)
		up.cids = append(up.cids, cid)
		inRound[cid] = ""
	}
	return flush()
}

// input reads an item's request. The first time, it records the prompts'
// hashes and skips a bundle answered before for the run (unless the run
// was submitted with --force); later, a bundle whose prompts changed
// since is an error.
func (r *runner) input(it *Item) (cascade.Input, bool, error) {
	req, err := replay.BuildRequest(r.path(it), r.pack, r.st.Pack, r.st.Locale)
	if err != nil {
		return cascade.Input{}, false, err
	}
	sys, user := replay.Sha256(req.Input.System), replay.Sha256(req.Input.User)
	if it.SystemSha == "" {
		it.SystemSha, it.UserSha = sys, user
		if !r.force && !r.st.Force {
			if old, ok := replay.Answered(r.path(it), r.st.Run, r.st.Models, sys, user); ok {
				finish(it, OutcomeSkipped, *old.Model, "")
				return cascade.Input{}, true, nil
			}
		}
	} else if it.SystemSha != sys || it.UserSha != user {
		return cascade.Input{}, false, errors.New("the bundle's prompts changed since the batch run was submitted; replay it again")
	}
	return req.Input, false, nil
}

// fail records a failed attempt: the bundle goes to the next tier, or,
// at the last, gets its failed record.
func (r *runner) fail(it *Item, a cascade.Attempt, b *Batch, customID string) error {
	attempts := append(append([]cascade.Attempt{}, it.Attempts...), a)
	if it.Tier+1 < len(r.st.Tiers) {
		r.mu.Lock()
		it.Attempts = attempts
		it.Tier++
		it.State, it.Batch, it.Key = ItemQueued, "", ""
		r.mu.Unlock()
		return nil
	}
	rec := r.record(it, attempts, b, customID)
	if b == nil || !r.onDisk(it, b, customID) {
		if err := r.write(it, rec, ""); err != nil {
			return err
		}
	}
	r.mu.Lock()
	finish(it, OutcomeFailed, "", rec.Error)
	r.mu.Unlock()
	return nil
}

// settle ends the items sharing one request with its attempt a: answered
// (a's outcome ok, text the answer) or failed. The first item carries the
// cost; the others, as a rerun through the cache would, cost nothing and
// save as much. cached are the provider's prompt-cache tokens.
func (r *runner) settle(items []*Item, a cascade.Attempt, text string, cached int64, b *Batch, customID string) error {
	for i, it := range items {
		att := a
		if i > 0 && a.Outcome == cascade.OutcomeOK && !a.Cached {
			att.Cached, att.SavedUSD, att.CostUSD = true, a.CostUSD, 0
		}
		if att.Outcome != cascade.OutcomeOK {
			if err := r.fail(it, att, b, customID); err != nil {
				return err
			}
			continue
		}
		if b == nil || !r.onDisk(it, b, customID) {
			attempts := append(append([]cascade.Attempt{}, it.Attempts...), att)
			rec := r.record(it, attempts, b, customID)
			if i == 0 {
				rec.CachedInputTokens = cached
			}
			if err := r.write(it, rec, text); err != nil {
				return err
			}
		}
		r.mu.Lock()
		finish(it, OutcomeOK, att.Model, "")
		r.mu.Unlock()
	}
	return nil
}
