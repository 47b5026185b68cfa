package batch

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
)

// WriteText writes rep as compact batch prints it: the run, a row per
// provider batch, the bundles' tally and the cost, in all and per tier.
func (rep *Report) WriteText(out io.Writer) {
	judge := rep.Kind == KindJudge && rep.Judge != nil
	if judge {
		fmt.Fprintf(out, "judge batch run %s: %s, judge %s, records %s/%s.json\n", rep.Run, plural(rep.Bundles.Total, "bundle"), strings.Join(rep.Models, ", "), bundle.DirJudge, rep.Judge.Run)
	} else {
		fmt.Fprintf(out, "batch run %s: %s, models %s\n", rep.Run, plural(rep.Bundles.Total, "bundle"), strings.Join(rep.Models, ", "))
	}
	if len(rep.Batches) > 0 {
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "TIER\tMODEL\tPROVIDER\tBATCH\tSTATUS\tREQUESTS\tSUCCEEDED\tFAILED\tPENDING\tCOLLECTED")
		for _, b := range rep.Batches {
			model := ""
			if b.Tier < len(rep.Models) {
				model = rep.Models[b.Tier]
			}
			status, collected := b.Status, "no"
			if status == "" {
				status = "-"
			}
			if b.Collected {
				collected = "yes"
			}
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", b.Tier+1, model, b.Provider, b.ID, status,
				b.Requests, b.Counts.Succeeded, b.Counts.Failed, b.Counts.Pending, collected)
		}
		w.Flush()
	}
	c := rep.Bundles
	if judge {
		fmt.Fprintf(out, "bundles: %d judged, %d failed, %d with nothing to judge, %s; requests: %d in batches, %d to submit, %d from the response cache\n",
			c.OK, c.Failed, c.Skipped, plural(c.Errors, "error"), c.Submitted, c.Queued, c.FromCache)
	} else {
		fmt.Fprintf(out, "bundles: %d ok, %d failed, %d skipped, %s; %d in batches, %d to submit; %d from the response cache\n",
			c.OK, c.Failed, c.Skipped, plural(c.Errors, "error"), c.Submitted, c.Queued, c.FromCache)
	}
	usd := cascade.FormatUSD
	l := rep.Ledger.Total
	fmt.Fprintf(out, "cost: %s at the batch rate (%.0f%% off %s); %d input tokens (%d cached), %d output; the response cache saved %s\n",
		usd(l.CostUSD), rep.Discount*100, usd(l.ListUSD), l.InputTokens, l.CachedInputTokens, l.OutputTokens, usd(l.SavedUSD))
	for i, t := range rep.Ledger.Tiers {
		if t.Requests+t.FromCache+t.Failed == 0 {
			continue
		}
		fmt.Fprintf(out, "  tier %d %s (%s): %s, %d answered, %d failed, %d from the cache; %d in (%d cached), %d out; %s\n",
			i+1, t.Model, t.Provider, plural(t.Requests, "request"), t.Answered, t.Failed, t.FromCache, t.InputTokens, t.CachedInputTokens, t.OutputTokens, usd(t.CostUSD))
	}
}

// Waiting says what the run has not answered yet, of its requests (a
// replay's are its bundles, a judge's its calls): "3 bundles in batches",
// "7 bundles not submitted yet" (none in flight), or "3 bundles in
// batches and 4 not submitted yet".
func (rep *Report) Waiting() string {
	word := "bundle"
	if rep.Kind == KindJudge {
		word = "request"
	}
	c := rep.Bundles
	switch {
	case c.Queued == 0:
		return plural(c.Submitted, word) + " in batches"
	case c.Submitted == 0:
		return plural(c.Queued, word) + " not submitted yet"
	}
	return fmt.Sprintf("%s in batches and %d not submitted yet", plural(c.Submitted, word), c.Queued)
}

// Unsubmitted says what the run's last submission, which failed, left,
// and what to do: "nothing in flight, 7 bundles not submitted yet: the
// submission failed: ERROR; fix the cause, then compact batch collect
// --run RUN submits them"; "" when it did not fail.
func (rep *Report) Unsubmitted() string {
	if rep.SubmitError == "" {
		return ""
	}
	w := rep.Waiting()
	if rep.Bundles.Submitted == 0 {
		w = "nothing in flight, " + w
	}
	return fmt.Sprintf("%s: the submission failed: %s; fix the cause, then compact batch collect --run %s submits them", w, rep.SubmitError, rep.Run)
}
