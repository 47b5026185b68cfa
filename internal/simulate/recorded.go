package simulate

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/strategy"
)

// RecordedPoint is one boundary, simulated or recorded, with the figures
// of the step that explains it.
type RecordedPoint struct {
	// Message is the boundary's index in the chat, ID its id, Role its role.
	Message int    `json:"message"`
	ID      string `json:"id"`
	Role    string `json:"role"`
	// Step is the simulated step: for a simulated boundary, the step
	// that compacted there; for a missed recorded one, the step with the
	// largest simulated context between the boundary and the next
	// recorded one (0: no step there).
	Step          int     `json:"step"`
	ContextTokens float64 `json:"contextTokens"`
	AfterTokens   float64 `json:"afterTokens,omitempty"`
	// SimulatedChars and RecordedChars are the summary sizes (UTF-16
	// units) of the simulated and the stored briefing.
	SimulatedChars int `json:"simulatedChars,omitempty"`
	RecordedChars  int `json:"recordedChars,omitempty"`
	// Nearest is the closest simulated boundary to a missed recorded one
	// (-1: none), or the closest recorded boundary to an extra simulated
	// one.
	Nearest int    `json:"nearest"`
	Note    string `json:"note,omitempty"`
}

// RecordedChat is one chat's simulated boundaries beside its recorded
// ones.
type RecordedChat struct {
	Chat          string  `json:"chat"`
	Title         string  `json:"title,omitempty"`
	Model         string  `json:"model,omitempty"`
	ContextWindow int     `json:"contextWindow"`
	TriggerTokens float64 `json:"triggerTokens"`
	Messages      int     `json:"messages"`
	Steps         int     `json:"steps"`
	Recorded      int     `json:"recorded"`
	Simulated     int     `json:"simulated"`
	// LiveUsedTokens is the usage of the chat's last live step
	// (used_tokens), beside the simulated context of the last step.
	LiveUsedTokens  *int64          `json:"liveUsedTokens"`
	LastStepContext float64         `json:"lastStepContext"`
	Matches         []RecordedPoint `json:"matches"`
	Misses          []RecordedPoint `json:"misses"`
	Extra           []RecordedPoint `json:"extra"`
}

func (rep *Report) againstRecorded(ctx context.Context, r *runner) error {
	runs, err := r.run(ctx, jobsFor(rep.inputs, rep.opts, strategy.NameStagewise, nil))
	if err != nil {
		return err
	}
	rep.runs = runs
	p := rep.opts.Params
	for _, x := range runs {
		win := x.cfg.ContextWindow
		if win == 0 {
			win = p.DefaultContextWindow
		}
		th := p.Threshold
		if x.cfg.Threshold != 0 {
			th = x.cfg.Threshold
		}
		rep.chats = append(rep.chats, compareRecorded(x.in, x.in.Messages(strategy.NameStagewise), x.tl, win, math.Min(th*float64(win), p.HardCap)))
	}
	return nil
}

// compareRecorded pairs the simulated boundaries of tl with the recorded
// ones (messages carrying a stored briefing) by message index; trigger is
// the context above which the stagewise trigger fires.
func compareRecorded(in *Input, msgs []strategy.Message, tl *strategy.Timeline, window int, trigger float64) RecordedChat {
	h := in.History
	c := RecordedChat{
		Chat: h.Name, Title: h.Title, Model: h.Model, ContextWindow: window, TriggerTokens: trigger,
		Messages: len(msgs), Steps: len(tl.Steps),
		Matches: []RecordedPoint{}, Misses: []RecordedPoint{}, Extra: []RecordedPoint{},
	}
	if h.HasUsedTokens {
		u := h.UsedTokens
		c.LiveUsedTokens = &u
	}
	if n := len(tl.Steps); n > 0 {
		c.LastStepContext = tl.Steps[n-1].ContextTokens
	}
	var recorded []int
	for i, m := range msgs {
		if m.StoredSummary != nil {
			recorded = append(recorded, i)
		}
	}
	sim := map[int]strategy.StepReport{}
	var simIdx []int
	for _, s := range tl.Steps {
		if s.Boundary >= 0 && s.Rejected == "" {
			if _, dup := sim[s.Boundary]; !dup {
				simIdx = append(simIdx, s.Boundary)
			}
			sim[s.Boundary] = s
		}
	}
	c.Recorded, c.Simulated = len(recorded), len(simIdx)
	isRec := map[int]bool{}
	for _, b := range recorded {
		isRec[b] = true
	}
	point := func(b int) RecordedPoint {
		p := RecordedPoint{Message: b, ID: msgs[b].ID, Role: msgs[b].Role, Nearest: -1}
		if s := msgs[b].StoredSummary; s != nil {
			p.RecordedChars = history.Len16(*s)
		}
		return p
	}
	for k, b := range recorded {
		p := point(b)
		if s, ok := sim[b]; ok {
			p.Step, p.ContextTokens, p.AfterTokens, p.SimulatedChars = s.Step, s.ContextTokens, s.AfterTokens, s.SummaryChars
			c.Matches = append(c.Matches, p)
			continue
		}
		end := len(msgs)
		if k+1 < len(recorded) {
			end = recorded[k+1]
		}
		for _, s := range tl.Steps {
			if s.Index >= b && s.Index < end && (p.Step == 0 || s.ContextTokens > p.ContextTokens) {
				p.Step, p.ContextTokens = s.Step, s.ContextTokens
			}
		}
		p.Nearest = nearest(simIdx, b)
		switch {
		case p.Step == 0:
			p.Note = "no step between this boundary and the next"
		case p.ContextTokens <= trigger:
			p.Note = fmt.Sprintf("simulated context stays at or below the trigger (%s)", fmtInt(trigger))
		default:
			p.Note = "simulated context passes the trigger; the walk chose another boundary"
		}
		c.Misses = append(c.Misses, p)
	}
	for _, b := range simIdx {
		if isRec[b] {
			continue
		}
		s := sim[b]
		p := point(b)
		p.Step, p.ContextTokens, p.AfterTokens, p.SimulatedChars = s.Step, s.ContextTokens, s.AfterTokens, s.SummaryChars
		p.Nearest = nearest(recorded, b)
		c.Extra = append(c.Extra, p)
	}
	return c
}

// nearest is the x of xs closest to b (the first of a tie), -1 for none.
func nearest(xs []int, b int) int {
	best := -1
	for _, x := range xs {
		if best < 0 || absInt(x-b) < absInt(best-b) {
			best = x
		}
	}
	return best
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func (rep *Report) writeRecorded(w io.Writer) {
	matches, recorded := 0, 0
	for i, c := range rep.chats {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeRecordedChat(w, rep.runs[i].in, c)
		matches += len(c.Matches)
		recorded += c.Recorded
	}
	fmt.Fprintf(w, "\n%s: the offline walk explains %d of %d recorded boundaries\n", plural(len(rep.chats), "chat"), matches, recorded)
}

func writeRecordedChat(w io.Writer, in *Input, c RecordedChat) {
	fmt.Fprintf(w, "%s\n", heading(in))
	model := c.Model
	if model == "" {
		model = "unknown model"
	}
	fmt.Fprintf(w, "%s, context window %s, trigger above %s tokens; %s, %s\n",
		model, fmtInt(float64(c.ContextWindow)), fmtInt(c.TriggerTokens), plural(c.Messages, "message"), plural(c.Steps, "step"))
	fmt.Fprintf(w, "recorded %d, simulated %d: %s, %s, %d extra\n",
		c.Recorded, c.Simulated, pluralES(len(c.Matches), "match"), pluralES(len(c.Misses), "miss"), len(c.Extra))
	if len(c.Matches)+len(c.Misses)+len(c.Extra) > 0 {
		var table strings.Builder
		tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\tmessage\tid\trole\tstep\tcontext\tafter\tsimulated\trecorded\tnote")
		row := func(kind string, p RecordedPoint) {
			step, ctx, after, simC, recC := "-", "-", "-", "-", "-"
			if p.Step > 0 {
				step, ctx = strconv.Itoa(p.Step), fmtInt(p.ContextTokens)
			}
			if p.AfterTokens > 0 {
				after = fmtInt(p.AfterTokens)
			}
			if p.SimulatedChars > 0 {
				simC = fmtInt(float64(p.SimulatedChars))
			}
			if p.RecordedChars > 0 {
				recC = fmtInt(float64(p.RecordedChars))
			}
			note := p.Note
			if p.Nearest >= 0 {
				other := "simulated"
				if kind == "extra" {
					other = "recorded"
				}
				note = joinText(note, fmt.Sprintf("nearest %s boundary: message %d", other, p.Nearest))
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", kind, p.Message, p.ID, p.Role, step, ctx, after, simC, recC, note)
		}
		for _, p := range c.Matches {
			row("match", p)
		}
		for _, p := range c.Misses {
			row("miss", p)
		}
		for _, p := range c.Extra {
			row("extra", p)
		}
		tw.Flush()
		// An empty note leaves the padding of the column before it.
		for _, line := range strings.SplitAfter(table.String(), "\n") {
			io.WriteString(w, strings.TrimRight(line, " \n")+strings.Repeat("\n", strings.Count(line, "\n")))
		}
	}
	if c.LiveUsedTokens != nil && c.Steps > 0 {
		d := float64(*c.LiveUsedTokens) - c.LastStepContext
		line := fmt.Sprintf("last step: live usage %s tokens, simulated context %s", fmtInt(float64(*c.LiveUsedTokens)), fmtInt(c.LastStepContext))
		if d > 0 {
			line += fmt.Sprintf(" (the live figure is %s higher: system prompt, tools, output; try --system-overhead)", fmtInt(d))
		}
		fmt.Fprintln(w, line)
	}
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
