package simulate

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/shard"
	"github.com/compactlab/compact/internal/strategy"
)

// HistoryTimeline is one history's simulation in the JSON output.
type HistoryTimeline struct {
	Source        string `json:"source"`
	Name          string `json:"name"`
	Title         string `json:"title,omitempty"`
	Model         string `json:"model,omitempty"`
	Leaf          string `json:"leaf,omitempty"`
	Messages      int    `json:"messages"`
	ContextWindow int    `json:"contextWindow"`
	// Origin maps the timeline's indices (Index, Boundary) to the input:
	// the chat's message index, or the JSONL line.
	Origin    []int              `json:"origin"`
	Problems  []convo.Problem    `json:"problems"`
	Timeline  *strategy.Timeline `json:"timeline"`
	Retention *convo.Retention   `json:"retention"`
	// Probes adds up the offline probe scores of the compactions kept
	// (nil when none was scored); Summaries are those compactions.
	Probes    *ProbeTotals   `json:"probes"`
	Summaries []SummaryScore `json:"summaries"`
	// LiveTokens is, per step, the context the agent really sent at that
	// step (its recorded usage; 0 when not recorded), for histories that
	// record usage (an agent's session); absent otherwise.
	LiveTokens []int64 `json:"liveTokens,omitempty"`
	// SystemOverhead is the overhead added to every step; OverheadLive,
	// when it comes from the agent's first step, the live usage there.
	SystemOverhead int   `json:"systemOverhead"`
	OverheadLive   int64 `json:"overheadLive,omitempty"`
	// Cost is what the run cost (see Cost).
	Cost *Cost `json:"cost"`
}

// Timelines is the JSON output of timelines.
type Timelines struct {
	Strategy   string            `json:"strategy"`
	Summarizer string            `json:"summarizer"`
	Histories  []HistoryTimeline `json:"histories"`
	Selection  *shard.Selection  `json:"selection,omitempty"`
}

func (rep *Report) timelinesJSON() Timelines {
	name := rep.opts.Strategies[0]
	out := Timelines{Strategy: name, Summarizer: rep.opts.SummarizerName, Histories: []HistoryTimeline{}, Selection: rep.opts.Selection}
	for _, r := range rep.runs {
		h := r.in.History
		out.Histories = append(out.Histories, HistoryTimeline{
			Source: h.Source, Name: h.Name, Title: h.Title, Model: h.Model, Leaf: h.Leaf,
			Messages: len(r.in.Messages(name)), ContextWindow: r.cfg.ContextWindow, Origin: r.in.Origin(name),
			Problems: h.Problems, Timeline: r.tl, Retention: r.ret,
			Probes: totalsOf(r.probes), Summaries: nonNil(r.probes),
			LiveTokens:     liveTokens(r.in, name, r.tl),
			SystemOverhead: r.cfg.SystemOverhead, OverheadLive: r.overheadLive, Cost: r.cost,
		})
	}
	return out
}

// liveTokens is the recorded usage of each step of tl, nil when the
// history records none.
func liveTokens(in *Input, name string, tl *strategy.Timeline) []int64 {
	h := in.History
	if !h.HasUsage || len(in.Messages(name)) != len(h.Usage) {
		return nil
	}
	out := make([]int64, len(tl.Steps))
	for i, s := range tl.Steps {
		if s.Index >= 0 && s.Index < len(h.Usage) {
			out[i] = h.Usage[s.Index]
		}
	}
	return out
}

func (rep *Report) writeTimelines(w io.Writer) {
	name := rep.opts.Strategies[0]
	for i, r := range rep.runs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		tl, in := r.tl, r.in
		fmt.Fprintf(w, "%s\n", heading(in))
		fmt.Fprintf(w, "strategy %s, summarizer %s, context window %s; %s, %s\n",
			name, rep.opts.SummarizerName, windowText(r.cfg.ContextWindow, in), plural(len(in.Messages(name)), "message"), plural(len(tl.Steps), "step"))
		if r.overheadLive > 0 {
			fmt.Fprintf(w, "system overhead %s tokens: the agent's first step sent %s (--system-overhead overrides it)\n",
				fmtInt(float64(r.cfg.SystemOverhead)), fmtInt(float64(r.overheadLive)))
		}
		if len(tl.Steps) == 0 {
			fmt.Fprintln(w, "no assistant message: nothing to simulate")
			continue
		}
		writeTimelineTable(w, tl, in.Origin(name), in.History.Source != convo.SourceStagewise, liveTokens(in, name, tl))
		fmt.Fprintln(w)
		renderChart(w, tl.Steps, 60, 12)
		fmt.Fprintf(w, "\n%s, %d rejected, %s; tokens sent %s (%s per step), peak %s; %s verbatim at the end\n",
			plural(tl.Compactions, "compaction"), tl.Rejected, plural(tl.SummarizerCalls, "summarizer call"),
			fmtInt(tl.TokensSent), fmtInt(tl.TokensSent/float64(len(tl.Steps))), fmtInt(tl.PeakContext), plural(tl.KeptAtEnd, "message"))
		if r.ret != nil {
			fmt.Fprintf(w, "must-keep retention of the final summary: %s\n", retentionText(r.ret))
		}
		if p := totalsOf(r.probes); p != nil {
			fmt.Fprintf(w, "offline probe scores of %s: %s\n", scoredText(r.probes), probeText(p))
		}
		if c := r.cost; c != nil {
			fmt.Fprintf(w, "cost at the prices of %s: %s (context %s, of which cache rewrites %s for %s tokens; summaries %s for %s tokens in, %s out), against %s with no compaction\n",
				pricesText(c.Prices), fmtUSD(c.TotalUSD), fmtUSD(c.ContextUSD), fmtUSD(c.CacheUSD), fmtInt(c.RewrittenTokens),
				fmtUSD(c.SummaryUSD), fmtInt(c.SummarizerIn), fmtInt(c.SummarizerOut), fmtUSD(c.RawUSD))
		}
	}
}

// scoredText names what the scores of a timeline cover: "3 summaries",
// or what the compactions did when they wrote no summary.
func scoredText(scores []SummaryScore) string {
	n := map[string]int{}
	for _, s := range scores {
		n[s.Replaced]++
	}
	var parts []string
	if c := n[ReplacedSummarized]; c > 0 {
		parts = append(parts, pluralSummaries(c))
	}
	if c := n[ReplacedDropped]; c > 0 {
		parts = append(parts, "what "+plural(c, "compaction")+" dropped (an empty briefing)")
	}
	if c := n[ReplacedPruned]; c > 0 {
		parts = append(parts, "what "+plural(c, "compaction")+" pruned (the markers and stubs left)")
	}
	return strings.Join(parts, " and ")
}

func pluralSummaries(n int) string {
	if n == 1 {
		return "1 summary"
	}
	return fmt.Sprintf("%d summaries", n)
}

// probeText is "40/52 probes kept (77%): artifact 20/25, recall 10/12,
// …; grounded 0.750 (2 of 3 measurable)".
func probeText(p *ProbeTotals) string {
	var parts []string
	for _, k := range eval.Kinds {
		parts = append(parts, fmt.Sprintf("%s %d/%d", k, p.Kinds[k].Kept, p.Kinds[k].Total))
	}
	return fmt.Sprintf("%d/%d probes kept %s: %s; grounded %s (%d of %d measurable)", p.Overall.Kept, p.Overall.Total, pct(p.Overall.Kept, p.Overall.Total), strings.Join(parts, ", "),
		groundedText(p), p.Measurable, p.Scored)
}

func nonNil(s []SummaryScore) []SummaryScore {
	if s == nil {
		return []SummaryScore{}
	}
	return s
}

func windowText(n int, in *Input) string {
	switch {
	case n == 0:
		return "the strategy's default"
	case in.Window == n && in.WindowFrom != "":
		return fmt.Sprintf("%s (%s)", fmtInt(float64(n)), in.WindowFrom)
	}
	return fmtInt(float64(n))
}

// writeTimelineTable writes one row per step. Message and boundary are
// given as the chat's message index, or as the file's line (lines). With
// live (the recorded usage of each step), a live column follows the
// simulated context.
func writeTimelineTable(w io.Writer, tl *strategy.Timeline, origin []int, lines bool, live []int64) {
	at := func(i int) int {
		if i >= 0 && i < len(origin) {
			return origin[i]
		}
		return i
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	liveHead := ""
	if live != nil {
		liveHead = "live\t"
	}
	if lines {
		fmt.Fprintln(tw, "step\tline\tcontext\t"+liveHead+"fired\tboundary line\tkept\tsummary\tafter\trejected\t")
	} else {
		fmt.Fprintln(tw, "step\tmessage\tcontext\t"+liveHead+"fired\tboundary\tkept\tsummary\tafter\trejected\t")
	}
	for i, s := range tl.Steps {
		liveCell := ""
		if live != nil {
			liveCell = "-\t"
			if live[i] > 0 {
				liveCell = fmtInt(float64(live[i])) + "\t"
			}
		}
		fired, boundary, after, rejected := "-", "-", "-", s.Rejected
		if s.Fired {
			fired = "yes"
		}
		if s.Boundary >= 0 {
			boundary = strconv.Itoa(at(s.Boundary))
		}
		if s.AfterTokens != s.ContextTokens {
			after = fmtInt(s.AfterTokens)
		}
		if rejected == "" {
			rejected = "-"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s%s\t%s\t%d\t%s\t%s\t%s\t\n", s.Step, at(s.Index), fmtInt(s.ContextTokens), liveCell, fired, boundary, s.KeptVerbatim, fmtInt(float64(s.SummaryChars)), after, rejected)
	}
	tw.Flush()
	// The strategies' notes (why a trigger did nothing, how a compaction
	// was adjusted or undone) follow the table; their message numbers
	// are positions in the simulated history.
	first := true
	for _, s := range tl.Steps {
		if s.Note == "" {
			continue
		}
		if first {
			head := "notes:"
			for i, o := range origin {
				if o != i {
					head = "notes (their message numbers are positions in the simulated history, from 0):"
					break
				}
			}
			fmt.Fprintln(w, head)
			first = false
		}
		fmt.Fprintf(w, "  step %d: %s\n", s.Step, s.Note)
	}
}

// renderChart draws the context size over the steps as columns of '#',
// width columns by height rows, and marks under the x axis the steps where
// a compaction was kept ('^') or rejected ('x'). Steps share a column when
// there are more steps than columns (the column shows the largest), and a
// step spans several columns when there are fewer.
func renderChart(w io.Writer, steps []strategy.StepReport, width, height int) {
	n := len(steps)
	if n == 0 {
		return
	}
	peak := 0.0
	for _, s := range steps {
		peak = math.Max(peak, s.ContextTokens)
	}
	top := niceCeil(peak)
	vals := make([]float64, width)
	marks := make([]byte, width)
	for c := 0; c < width; c++ {
		marks[c] = ' '
	}
	stepCol := func(i int) int { return i * width / n }
	for i, s := range steps {
		lo, hi := stepCol(i), stepCol(i+1)
		if hi <= lo {
			hi = lo + 1
		}
		for c := lo; c < hi && c < width; c++ {
			vals[c] = math.Max(vals[c], s.ContextTokens)
		}
		switch {
		case s.Fired && s.Rejected != "":
			if marks[lo] == ' ' {
				marks[lo] = 'x'
			}
		case s.Fired && s.Boundary >= 0 || s.Compacted > 0 && s.Rejected == "":
			marks[lo] = '^'
		}
	}
	label := func(v float64) string { return fmtInt(v) }
	lw := max(len(label(top)), 1)
	for row := height; row >= 1; row-- {
		lab := ""
		switch row {
		case height:
			lab = label(top)
		case (height + 1) / 2:
			lab = label(top * float64(row) / float64(height))
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%*s |", lw, lab)
		for c := 0; c < width; c++ {
			// A column fills row when its value reaches the row's lower
			// edge; any non-zero value shows at least one mark.
			filled := top > 0 && vals[c] > 0 && math.Ceil(vals[c]/top*float64(height)) >= float64(row)
			if filled {
				b.WriteByte('#')
			} else {
				b.WriteByte(' ')
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	fmt.Fprintf(w, "%*s +%s\n", lw, "0", strings.Repeat("-", width))
	fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%*s  %s", lw, "", marks), " "))
	last := fmt.Sprintf("step %d", n)
	fmt.Fprintf(w, "%*s  %-*s%s\n", lw, "", max(width-len(last), len("step 1 ")), "step 1", last)
	fmt.Fprintf(w, "%*s  context tokens per step; ^ compaction, x rejected by a guardrail\n", lw, "")
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// fmtInt writes v rounded to a whole number with thousands separators.
func fmtInt(v float64) string {
	n := int64(math.Round(v))
	neg := n < 0
	if neg {
		n = -n
	}
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func retentionText(r *convo.Retention) string {
	var parts []string
	for _, k := range convo.RetentionKinds {
		kc := r.ByKind[k]
		parts = append(parts, fmt.Sprintf("%ss %d/%d", k, kc.Kept, kc.Total))
	}
	return fmt.Sprintf("%d/%d kept (%s)", r.Kept, r.Items, strings.Join(parts, ", "))
}
