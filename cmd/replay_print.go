package cmd

import (
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/replay"
	"github.com/compactlab/compact/internal/shard"
)

// usd prints a cost to the micro-dollar, without trailing zeros past the
// cents: $0, $0.000371, $0.0123, $1.50.
func usd(v float64) string { return cascade.FormatUSD(v) }

// printReplayResult prints replay's result: the JSON document, or the
// table. With repeats, the document names them (repeat, runs) and each
// item its run; with one run, neither is there.
func printReplayResult(f *Factory, runs, models []string, items []replay.Item, t replay.Totals, sel *shard.Selection) error {
	if !f.JSON {
		printReplayTable(f, items, t)
		return nil
	}
	doc := struct {
		Run    string        `json:"run"`
		Repeat int           `json:"repeat,omitempty"`
		Runs   []string      `json:"runs,omitempty"`
		Models []string      `json:"models"`
		Items  []replay.Item `json:"items"`
		Totals replay.Totals `json:"totals"`
		// Selection: the sample and the shard, when given.
		Selection *shard.Selection `json:"selection,omitempty"`
	}{Run: runs[0], Models: models, Items: items, Totals: t, Selection: sel}
	if len(runs) > 1 {
		doc.Repeat, doc.Runs = len(runs), runs
	}
	return writeIndentedJSON(f.IO.Out, doc)
}

// noteDeterministic says on stderr, when each bundle is replayed more
// than once on the builtin model alone, that its runs will be identical.
func noteDeterministic(f *Factory, plan *replay.Plan, runs []string) {
	if len(runs) > 1 && plan.Deterministic() {
		fmt.Fprintf(f.IO.ErrOut, "compact replay: the builtin model is deterministic: the %d runs of each bundle will be identical\n", len(runs))
	}
}

// printReplayTable prints a row per bundle (per repeat of a bundle, with a
// RUN column, when there are repeats) and the summary line; with --quiet,
// only the summary line (as extract keeps its own).
func printReplayTable(f *Factory, items []replay.Item, t replay.Totals) {
	if f.IO.Quiet {
		printReplaySummary(f, t)
		return
	}
	// Bundles are named under the directory they share, said once above
	// the table, so that the rows stay narrow.
	var paths []string
	for _, it := range items {
		paths = append(paths, it.Bundle)
	}
	root := commonDir(paths)
	out := f.IO.TextOut()
	if root != "" && len(items) > 1 {
		fmt.Fprintf(out, "under %s:\n", root)
	} else {
		root = ""
	}
	// The names are escaped before the table is laid out, so that the
	// columns are measured on what is printed.
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	runCol := func(string) string { return "" }
	if t.Replays > 0 {
		runCol = func(run string) string { return iostreams.Escape(run) + "\t" }
	}
	fmt.Fprintln(w, "BUNDLE\t"+runCol("RUN")+"STATUS\tMODEL\tCHARS\tIN\tOUT\tCOST\tMS")
	for _, it := range items {
		name := it.Bundle
		if root != "" {
			if rel, err := filepath.Rel(root, it.Bundle); err == nil {
				name = rel
			}
		}
		status := string(it.Status)
		if it.Truncated {
			status += " (cut)"
		}
		fmt.Fprintf(w, "%s\t%s%s\t%s\t%d\t%d\t%d\t%s\t%d\n", iostreams.Escape(name), runCol(it.Run), status, iostreams.Escape(dash(it.Model)),
			it.Chars, it.Usage.InputTokens, it.Usage.OutputTokens, usd(it.CostUSD), it.Latency)
	}
	w.Flush()
	for _, it := range items {
		if it.Truncated {
			fmt.Fprintln(out, "(cut): the answer was longer than cascade.max_answer_bytes; the start is kept, and replay.json says how long it was")
			break
		}
	}
	printReplaySummary(f, t)
}

// printReplaySummary is replay's one-line summary; with repeats, it
// counts the bundles, then the replays the other counts are of.
func printReplaySummary(f *Factory, t replay.Totals) {
	what := plural(t.Bundles, "bundle")
	if t.Replays > 0 {
		what += ", " + plural(t.Replays, "replay")
	}
	fmt.Fprintf(f.IO.TextOut(), "%s: %d ok, %d skipped, %d failed, %s; %d input and %d output tokens, %s\n",
		what, t.OK, t.Skipped, t.Failed, plural(t.Errors, "error"), t.InputTokens, t.OutputTokens, usd(t.CostUSD))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// replayDryRun prints what would be sent for each bundle, and, with
// repeats, for which runs.
func replayDryRun(f *Factory, plan *replay.Plan, bundles, runs []string, pack *prompt.Pack, packName, locale string) error {
	all := replay.DryRun(plan.Gen, bundles, plan.Order, pack, packName, locale)
	noteDeterministic(f, plan, runs)
	if len(runs) > 1 {
		for i := range all {
			all[i].Runs = runs
		}
	}
	if f.JSON {
		return writeIndentedJSON(f.IO.Out, all)
	}
	out := f.IO.TextOut()
	for _, d := range all {
		fmt.Fprintf(out, "%s\n", d.Bundle)
		if len(d.Runs) > 1 {
			fmt.Fprintf(out, "  sent %d times, each a request of its own, as runs %s\n", len(d.Runs), iostreams.Escape(strings.Join(d.Runs, ", ")))
		}
		if d.Error != "" {
			fmt.Fprintf(out, "  error: %s\n", d.Error)
			continue
		}
		for i, r := range d.Requests {
			fmt.Fprintf(out, "  %d. %s via %s (%s): %s %s\n", i+1, r.Model, r.Provider, r.Kind, r.Method, r.URL)
			temp := "omitted"
			if r.Temperature != nil {
				temp = fmt.Sprint(*r.Temperature)
			}
			fmt.Fprintf(out, "     model %s, temperature %s, max output tokens %d, timeout %s, auth %s\n", r.APIModel, temp, r.MaxOutputTokens, r.Timeout, r.Auth)
			for _, o := range r.Omitted {
				fmt.Fprintf(out, "     left out: %s\n", o)
			}
			if r.Error != "" {
				fmt.Fprintf(out, "     problem: %s\n", r.Error)
			}
			for _, m := range r.Messages {
				fmt.Fprintf(out, "     %s: %s, %s\n", m.Role, plural(m.Chars, "char"), plural(m.Bytes, "byte"))
				for _, h := range m.Head {
					fmt.Fprintf(out, "       | %s\n", h)
				}
			}
		}
	}
	return nil
}
