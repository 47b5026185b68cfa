package simulate

import (
	"context"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/strategy"
)

// Row is one strategy's totals over every history (and, in a sweep, one
// value of the knob).
type Row struct {
	Value           *float64 `json:"value,omitempty"`
	Strategy        string   `json:"strategy"`
	Chats           int      `json:"chats"`
	Steps           int      `json:"steps"`
	Compactions     int      `json:"compactions"`
	SummarizerCalls int      `json:"summarizerCalls"`
	Rejected        int      `json:"rejected"`
	TokensSent      float64  `json:"tokensSent"`
	TokensPerStep   float64  `json:"tokensPerStep"`
	PeakContext     float64  `json:"peakContext"`
	KeptAtEnd       int      `json:"keptVerbatimAtEnd"`
	// MustKeep adds up the retention of every chat with a final summary;
	// nil when no chat has one.
	MustKeep *convo.Retention `json:"mustKeep"`
	// Probes adds up the offline probe scores of every compaction kept
	// (nil when none was scored); Summaries are those compactions, in
	// the order of the histories and their steps.
	Probes    *ProbeTotals   `json:"probes"`
	Summaries []SummaryScore `json:"summaries"`
	// Cost adds up what every simulation cost (see Cost).
	Cost *Cost `json:"cost"`
}

// add adds one simulation's figures to the row.
func (row *Row) add(res result) {
	tl := res.tl
	row.Chats++
	row.Steps += len(tl.Steps)
	row.Compactions += tl.Compactions
	row.SummarizerCalls += tl.SummarizerCalls
	row.Rejected += tl.Rejected
	row.TokensSent += tl.TokensSent
	row.PeakContext = math.Max(row.PeakContext, tl.PeakContext)
	row.KeptAtEnd += tl.KeptAtEnd
	if row.Steps > 0 {
		row.TokensPerStep = row.TokensSent / float64(row.Steps)
	}
	if row.Summaries == nil {
		row.Summaries = []SummaryScore{}
	}
	for i := range res.probes {
		if row.Probes == nil {
			row.Probes = newProbeTotals()
		}
		row.Probes.add(&res.probes[i])
	}
	row.Summaries = append(row.Summaries, res.probes...)
	if res.cost != nil {
		if row.Cost == nil {
			row.Cost = &Cost{}
		}
		row.Cost.add(res.cost)
	}
	if res.ret != nil {
		if row.MustKeep == nil {
			row.MustKeep = &convo.Retention{ByKind: map[mdtext.Kind]*convo.KindCount{}, Lost: []mdtext.Item{}}
			for _, k := range convo.RetentionKinds {
				row.MustKeep.ByKind[k] = &convo.KindCount{}
			}
		}
		m := row.MustKeep
		m.Items += res.ret.Items
		m.Kept += res.ret.Kept
		for _, k := range convo.RetentionKinds {
			m.ByKind[k].Total += res.ret.ByKind[k].Total
			m.ByKind[k].Kept += res.ret.ByKind[k].Kept
		}
		m.Lost = append(m.Lost, res.ret.Lost...)
	}
}

// compareRows simulates every strategy on every input, with set applied
// to each configuration (nil: none), and adds up one row per strategy.
func compareRows(ctx context.Context, r *runner, inputs []*Input, opts Options, set func(*strategy.Config)) ([]Row, []run, error) {
	var jobs []job
	for _, name := range opts.Strategies {
		jobs = append(jobs, jobsFor(inputs, opts, name, set)...)
	}
	runs, err := r.run(ctx, jobs)
	if err != nil {
		return nil, nil, err
	}
	rows := make([]Row, len(opts.Strategies))
	for i, name := range opts.Strategies {
		rows[i].Strategy = name
		for k := range inputs {
			rows[i].add(runs[i*len(inputs)+k].result)
		}
	}
	return rows, runs, nil
}

// sweep runs the comparison once per value of the sweep's knob.
func (rep *Report) sweep(ctx context.Context, r *runner) error {
	sw := rep.opts.Sweep
	for _, v := range sw.Values {
		v := v
		rows, runs, err := compareRows(ctx, r, rep.inputs, rep.opts, func(c *strategy.Config) { sw.Knob.Set(c, v) })
		if err != nil {
			return err
		}
		for i := range rows {
			rows[i].Value = &v
		}
		rep.rows = append(rep.rows, rows...)
		rep.runs = append(rep.runs, runs...)
	}
	return nil
}

// strategyHead writes the head of a table with a row per strategy (the
// knob's column first, when there is one; then the strategy, padded so
// that names read left-aligned in a right-aligned table; then cols) and
// returns the width of the strategy column.
func strategyHead(tw io.Writer, rows []Row, knob, cols string) int {
	nameW := len("strategy")
	for _, row := range rows {
		nameW = max(nameW, len(row.Strategy))
	}
	head := fmt.Sprintf("%-*s", nameW, "strategy") + "\t" + cols + "\t"
	if knob != "" {
		head = knob + "\t" + head
	}
	fmt.Fprintln(tw, head)
	return nameW
}

// writeRows writes the comparison table; knob names the value column
// ("" none).
func writeRows(w io.Writer, rows []Row, knob string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	nameW := strategyHead(tw, rows, knob, "chats\tsteps\tcompactions\tsummarizer calls\trejected\ttokens sent\tper step\tpeak\tkept at end\tmust-keep\tpaths\tlinks\tfailures")
	for _, row := range rows {
		if knob != "" {
			fmt.Fprintf(tw, "%s\t", fmtKnob(*row.Value))
		}
		mk, paths, links, fails := "-", "-", "-", "-"
		if m := row.MustKeep; m != nil {
			mk = fmt.Sprintf("%d/%d %s", m.Kept, m.Items, pct(m.Kept, m.Items))
			kc := func(k mdtext.Kind) string { return fmt.Sprintf("%d/%d", m.ByKind[k].Kept, m.ByKind[k].Total) }
			paths, links, fails = kc(mdtext.KindPath), kc(mdtext.KindLink), kc(mdtext.KindFailure)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n",
			fmt.Sprintf("%-*s", nameW, row.Strategy), row.Chats, row.Steps, row.Compactions, row.SummarizerCalls, row.Rejected,
			fmtInt(row.TokensSent), fmtInt(row.TokensPerStep), fmtInt(row.PeakContext), row.KeptAtEnd, mk, paths, links, fails)
	}
	tw.Flush()
}

// writeProbeRows writes the table of the offline probe scores: per row
// the compactions scored, the probes mined from what they replaced, how
// many the summaries kept, and per kind; then the mean grounded score and
// the compactions measurable by it.
func writeProbeRows(w io.Writer, rows []Row, knob string) {
	fmt.Fprintln(w, "\noffline probe scores of what each compaction replaced (as compact eval scores a briefing):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	nameW := len("strategy")
	for _, row := range rows {
		nameW = max(nameW, len(row.Strategy))
	}
	head := fmt.Sprintf("%-*s", nameW, "strategy") + "\tscored\tprobes\tkept"
	for _, k := range eval.Kinds {
		head += "\t" + string(k)
	}
	head += "\tgrounded\tmeasurable\t"
	if knob != "" {
		head = knob + "\t" + head
	}
	fmt.Fprintln(tw, head)
	for _, row := range rows {
		if knob != "" {
			fmt.Fprintf(tw, "%s\t", fmtKnob(*row.Value))
		}
		fmt.Fprintf(tw, "%-*s\t", nameW, row.Strategy)
		p := row.Probes
		if p == nil {
			fmt.Fprint(tw, "0\t-\t-")
			for range eval.Kinds {
				fmt.Fprint(tw, "\t-")
			}
			fmt.Fprintln(tw, "\t-\t-\t")
			continue
		}
		fmt.Fprintf(tw, "%d\t%d\t%d %s", p.Scored, p.Overall.Total, p.Overall.Kept, pct(p.Overall.Kept, p.Overall.Total))
		for _, k := range eval.Kinds {
			fmt.Fprintf(tw, "\t%d/%d", p.Kinds[k].Kept, p.Kinds[k].Total)
		}
		fmt.Fprintf(tw, "\t%s\t%d\t\n", groundedText(p), p.Measurable)
	}
	tw.Flush()
	fmt.Fprintln(w, "probes and kept: coverage, mined from what the compactions replaced; grounded: the mean score on what the agent")
	fmt.Fprintln(w, "used next that only the replaced part held, over the compactions measurable by it (n/a: none)")
}

// groundedText is a strategy's mean grounded score, "n/a" when no
// compaction was measurable by it.
func groundedText(p *ProbeTotals) string {
	if p == nil || p.Grounded == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *p.Grounded)
}

func pct(a, b int) string {
	if b == 0 {
		return "(-)"
	}
	return fmt.Sprintf("(%d%%)", int(math.Round(100*float64(a)/float64(b))))
}

// writeCostRows writes the table of what each row cost: its compactions
// and summarizer calls, the tokens sent and saved (against sending every
// message at every step), the tokens the cache wrote again after the
// compactions, the summarizer's tokens, and in dollars the cache rewrites,
// the summaries and the total, beside the total with no compaction, the
// probes the compactions kept and their mean grounded score.
func writeCostRows(w io.Writer, rows []Row, knob string) {
	var prices, sumPrices *Prices
	mixed := false
	for _, row := range rows {
		if c := row.Cost; c != nil {
			if prices == nil {
				prices, sumPrices = &c.Prices, &c.SummarizerPrices
			} else if prices.Model != c.Prices.Model || sumPrices.Model != c.SummarizerPrices.Model {
				mixed = true
			}
		}
	}
	if prices == nil {
		return
	}
	head := "\ncost at the prices of " + pricesText(*prices)
	if mixed {
		head = "\ncost at the prices of each history's model"
	} else if sumPrices.Model != prices.Model {
		head += "; summaries at those of " + pricesText(*sumPrices)
	}
	fmt.Fprintln(w, head+":")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	nameW := strategyHead(tw, rows, knob, "compactions\tsummarizer calls\ttokens sent\tsaved\tcache rewrites\tsummarizer in\tsummarizer out\tcache $\tsummaries $\ttotal $\tno compaction $\tprobes kept\tgrounded")
	for _, row := range rows {
		c := row.Cost
		if c == nil {
			continue
		}
		if knob != "" {
			fmt.Fprintf(tw, "%s\t", fmtKnob(*row.Value))
		}
		kept := "-"
		if p := row.Probes; p != nil {
			kept = pct(p.Overall.Kept, p.Overall.Total)
			kept = kept[1 : len(kept)-1]
		}
		fmt.Fprintf(tw, "%-*s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", nameW, row.Strategy,
			row.Compactions, c.SummarizerCalls, fmtInt(row.TokensSent), fmtInt(c.RawTokens-row.TokensSent),
			fmtInt(c.RewrittenTokens), fmtInt(c.SummarizerIn), fmtInt(c.SummarizerOut),
			fmtUSD(c.CacheUSD), fmtUSD(c.SummaryUSD), fmtUSD(c.TotalUSD), fmtUSD(c.RawUSD), kept, groundedText(row.Probes))
	}
	tw.Flush()
	fmt.Fprintln(w, "total $: the context (cache reads and writes) and the summaries; cache $: the context written again after compactions; saved and no compaction $: against sending every message at every step")
}
