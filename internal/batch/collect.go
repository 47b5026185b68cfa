package batch

import (
	"context"
	"fmt"
	"time"

	"github.com/compactlab/compact/internal/cascade"
)

// poll asks for b's status and records it in b.
func (r *runner) poll(ctx context.Context, b *Batch) (poll, error) {
	svc, err := r.service(r.st.Tiers[b.Tier])
	if err != nil {
		return poll{}, err
	}
	p, err := svc.poll(ctx, b.ID)
	if err != nil {
		return p, fmt.Errorf("poll %s batch %s: %s", b.Provider, b.ID, r.cas.Redact(err.Error()))
	}
	b.Status, b.Ended = r.cas.Redact(p.Status), p.Ended
	if p.Counts.Total > 0 || p.Ended {
		b.Counts = p.Counts
	}
	return p, nil
}

// collectEnded collects every batch that has ended and is not collected
// yet, recording each as soon as its results are written.
func (r *runner) collectEnded(ctx context.Context) error {
	var byBatch map[string][]*Item
	for _, b := range r.st.Batches {
		if b.Collected {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: %v", ErrInterrupted, err)
		}
		p, err := r.poll(ctx, b)
		if err != nil {
			return err
		}
		if !p.Ended {
			continue
		}
		if byBatch == nil {
			byBatch = map[string][]*Item{}
			for _, it := range r.st.Items {
				if it.State == ItemSubmitted {
					byBatch[it.Batch] = append(byBatch[it.Batch], it)
				}
			}
		}
		if err := r.collect(ctx, b, p, byBatch[b.ID]); err != nil {
			return err
		}
		b.Collected, b.CollectedAt = true, r.stamp()
		r.rep.Collected = append(r.rep.Collected, b.ID)
		r.progress("collected %s batch %s (%s): %d requests", b.Provider, b.ID, b.Status, b.Requests)
		if err := r.save(); err != nil {
			return err
		}
	}
	return nil
}

// collect writes the results of the ended batch b, whose bundles are
// items: accepted answers land in replays/<run>/, the others go to the
// next tier (or get their failed record at the last). The requests the
// results leave out (a batch expired, cancelled or failed) failed too.
func (r *runner) collect(ctx context.Context, b *Batch, p poll, items []*Item) error {
	svc, err := r.service(r.st.Tiers[b.Tier])
	if err != nil {
		return err
	}
	tier := r.st.Tiers[b.Tier]
	base, err := r.cas.BatchRequest(tier.Model, cascade.Input{})
	if err != nil {
		return err
	}
	idx := map[string][]*Item{}
	var order []string // the custom ids, first seen first
	for _, it := range items {
		c := CustomID(it.Key)
		if _, ok := idx[c]; !ok {
			order = append(order, c)
		}
		idx[c] = append(idx[c], it)
	}
	factor := 1 - r.st.Discount
	var latency int64
	if t, err := time.Parse(time.RFC3339Nano, b.SubmittedAt); err == nil {
		latency = r.now().Sub(t).Milliseconds()
	}
	seen := map[string]bool{}
	g, gctx := r.parallel(ctx)
	err = svc.results(gctx, b.ID, p, func(res result) error {
		its := idx[res.CustomID]
		if len(its) == 0 || seen[res.CustomID] {
			r.rep.Unknown++
			return nil
		}
		seen[res.CustomID] = true
		br := base
		br.Key = its[0].Key
		row := LedgerRow{Requests: 1}
		var a cascade.Attempt
		text := ""
		if res.OK {
			ans := res.Answer
			ans.LatencyMs = latency
			a, text = r.cas.AcceptAnswer(br, ans, factor)
			row.InputTokens, row.OutputTokens, row.CachedInputTokens = a.Usage.InputTokens, a.Usage.OutputTokens, res.Cached
			row.CostUSD, row.ListUSD = a.CostUSD, br.Model.Cost(a.Usage)
			if a.Outcome == cascade.OutcomeOK {
				row.Answered = 1
			} else {
				row.Failed = 1
			}
		} else {
			a = r.cas.FailedBatchAttempt(br, res.Outcome, res.Error, res.Status, cascade.Usage{}, factor)
			a.LatencyMs = latency
			row.Failed = 1
		}
		r.mu.Lock()
		r.st.Ledger.charge(r.st, b.Tier, row)
		r.mu.Unlock()
		cid, cached := res.CustomID, res.Cached
		g.Go(func() error { return r.settle(its, a, text, cached, b, cid) })
		return gctx.Err()
	})
	if gerr := g.Wait(); gerr != nil {
		return gerr
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %v", ErrInterrupted, ctx.Err())
		}
		return fmt.Errorf("results of %s batch %s: %s", b.Provider, b.ID, r.cas.Redact(err.Error()))
	}
	// The requests without a result.
	why := p.Why
	if why == "" {
		why = "the batch's results have no line for this request"
	}
	outcome := cascade.OutcomeError
	if p.Expired {
		outcome = cascade.OutcomeTimeout
	}
	for _, c := range order {
		if seen[c] {
			continue
		}
		br := base
		br.Key = idx[c][0].Key
		a := r.cas.FailedBatchAttempt(br, outcome, fmt.Sprintf("no result (%s batch %s, %s): %s", b.Provider, b.ID, b.Status, why), 0, cascade.Usage{}, factor)
		a.LatencyMs = latency
		r.st.Ledger.charge(r.st, b.Tier, LedgerRow{Failed: 1})
		if err := r.settle(idx[c], a, "", 0, b, c); err != nil {
			return err
		}
	}
	return nil
}
