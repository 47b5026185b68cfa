package batch

import (
	"context"
	"fmt"
	"slices"
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
// yet, committing each as soon as its results are written.
func (r *runner) collectEnded(ctx context.Context) error {
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
		if err := r.collect(ctx, b, p); err != nil {
			return err
		}
		b.Collected, b.CollectedAt = true, r.stamp()
		r.rep.Collected = append(r.rep.Collected, b.ID)
		r.progress("collected %s batch %s (%s): %s", b.Provider, b.ID, b.Status, plural(b.Requests, "request"))
		if err := r.commit(); err != nil {
			return err
		}
	}
	return nil
}

// collect writes the results of the ended batch b: accepted answers go
// to the job, the others to the next tier (or, at the last, to the job
// as failed). The requests the results leave out (a batch expired,
// cancelled or failed) failed too. The batch's requests are read from
// its record a line at a time, found by their custom ids.
func (r *runner) collect(ctx context.Context, b *Batch, p poll) error {
	svc, err := r.service(r.st.Tiers[b.Tier])
	if err != nil {
		return err
	}
	tier := r.st.Tiers[b.Tier]
	base, err := r.cas.BatchRequest(tier.Model, cascade.Input{})
	if err != nil {
		return err
	}
	bf, err := openBatchFile(r.logs.path(b.File), b.Requests)
	if err != nil {
		return fmt.Errorf("%s batch %s: %w", b.Provider, b.ID, err)
	}
	defer bf.close()
	factor := 1 - r.st.Discount
	var latency int64
	if t, err := time.Parse(time.RFC3339Nano, b.SubmittedAt); err == nil {
		latency = r.now().Sub(t).Milliseconds()
	}
	seen := make([]bool, b.Requests)
	g, gctx := r.parallel(ctx)
	err = svc.results(gctx, b.ID, p, func(res result) error {
		n, ok := parseCustomID(res.CustomID)
		if !ok || n >= len(seen) || seen[n] {
			r.rep.Unknown++
			return nil
		}
		it, err := bf.item(n)
		if err != nil {
			return fmt.Errorf("%s batch %s: %w (the run's state is damaged)", b.Provider, b.ID, err)
		}
		if CustomID(it.Key, n) != res.CustomID {
			r.rep.Unknown++
			return nil
		}
		seen[n] = true
		br := base
		br.Key = it.Key
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
		g.Go(func() error { return r.settle(it, a, text, cached, b, cid) })
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
	for n, ok := range seen {
		if ok {
			continue
		}
		it, err := bf.item(n)
		if err != nil {
			return fmt.Errorf("%s batch %s: %w (the run's state is damaged)", b.Provider, b.ID, err)
		}
		br := base
		br.Key = it.Key
		a := r.cas.FailedBatchAttempt(br, outcome, fmt.Sprintf("no result (%s batch %s, %s): %s", b.Provider, b.ID, b.Status, why), 0, cascade.Usage{}, factor)
		a.LatencyMs = latency
		r.st.Ledger.charge(r.st, b.Tier, LedgerRow{Failed: 1})
		if err := r.settle(it, a, "", 0, b, CustomID(it.Key, n)); err != nil {
			return err
		}
	}
	return nil
}

// settle takes a batch request out of its batch with its attempt a:
// answered (a's outcome ok, text the answer) or failed.
func (r *runner) settle(it *Item, a cascade.Attempt, text string, cached int64, b *Batch, customID string) error {
	r.tally(func(c *ItemCounts) { c.Submitted-- })
	if a.Outcome != cascade.OutcomeOK {
		return r.advance(it, a, b, customID)
	}
	return r.job.answered(it, append(slices.Clone(it.Attempts), a), text, cached, b, customID)
}
