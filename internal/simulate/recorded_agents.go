package simulate

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/strategy"
)

// The check against the recorded compactions of an agent's session
// (--against-recorded on a Claude Code or Codex file): the agent
// compacts the whole history when its context fills, so what compares is
// when each strategy would have compacted, in steps (assistant messages)
// of the session's full history, against when the agent did, with the
// simulated context and the agent's live usage at each.

// AgentPoint is one compaction the agent recorded.
type AgentPoint struct {
	// Message is the number of messages before it, Line its record's line.
	Message int    `json:"message"`
	Line    int    `json:"line"`
	Trigger string `json:"trigger,omitempty"`
	// Step is the last step before it (assistant messages so far).
	Step int `json:"step"`
	// PreTokens is the context the agent recorded for the compaction;
	// LiveTokens the live usage of its last step before it.
	PreTokens   int64  `json:"preTokens,omitempty"`
	LiveTokens  int64  `json:"liveTokens,omitempty"`
	Unauditable string `json:"unauditable,omitempty"`
}

// AgentSimPoint is one compaction a strategy kept.
type AgentSimPoint struct {
	Step    int `json:"step"`
	Line    int `json:"line"`
	Message int `json:"message"`
	// ContextTokens is the simulated context that fired it; LiveTokens
	// the agent's live usage at that step (0: not recorded).
	ContextTokens float64 `json:"contextTokens"`
	LiveTokens    int64   `json:"liveTokens,omitempty"`
}

// AgentNearest pairs a recorded compaction with the strategy's nearest
// one (Step 0: the strategy never compacted).
type AgentNearest struct {
	Recorded int `json:"recorded"` // 1-based number of the recorded compaction
	Step     int `json:"step"`
	// Delta is Step minus the recorded step: negative, earlier.
	Delta         int     `json:"delta"`
	ContextTokens float64 `json:"contextTokens,omitempty"`
}

// AgentStrategy is one strategy's compactions on a session.
type AgentStrategy struct {
	Strategy    string          `json:"strategy"`
	Compactions []AgentSimPoint `json:"compactions"`
	Nearest     []AgentNearest  `json:"nearest"`
}

// AgentRecorded is one session's recorded compactions beside each
// strategy's.
type AgentRecorded struct {
	Name          string          `json:"name"`
	Source        string          `json:"source"`
	Session       string          `json:"session,omitempty"`
	Model         string          `json:"model,omitempty"`
	ContextWindow int             `json:"contextWindow"`
	Messages      int             `json:"messages"`
	Steps         int             `json:"steps"`
	Recorded      []AgentPoint    `json:"recorded"`
	Strategies    []AgentStrategy `json:"strategies"`
	// FirstStepLive is the agent's live usage at the first step that
	// records one, FirstStepContext the simulated context there (the
	// first strategy's): their difference is about the system prompt and
	// tools the agent sends with every step.
	FirstStepLive    int64   `json:"firstStepLive,omitempty"`
	FirstStepContext float64 `json:"firstStepContext,omitempty"`
	// SystemOverhead is the overhead the simulation added to every step
	// (the first strategy's); OverheadFromLive says it is what the agent
	// sent at its first step beyond the history (the default).
	SystemOverhead   int  `json:"systemOverhead"`
	OverheadFromLive bool `json:"overheadFromLive,omitempty"`
}

// nearTolerance is how many steps from a recorded compaction a simulated
// one may be and still count as "near" it in the last line.
const nearTolerance = 2

func (rep *Report) againstRecordedAgents(ctx context.Context, r *runner) error {
	var jobs []job
	for _, name := range rep.opts.Strategies {
		jobs = append(jobs, jobsFor(rep.inputs, rep.opts, name, nil)...)
	}
	runs, err := r.run(ctx, jobs)
	if err != nil {
		return err
	}
	rep.runs = runs
	for _, in := range rep.inputs {
		rep.agentChats = append(rep.agentChats, compareAgent(in, runs))
	}
	return nil
}

// stepsBefore counts the assistant messages of msgs before index i.
func stepsBefore(msgs []strategy.Message, i int) int {
	n := 0
	for k := 0; k < i && k < len(msgs); k++ {
		if msgs[k].Role == strategy.RoleAssistant {
			n++
		}
	}
	return n
}

func compareAgent(in *Input, runs []run) AgentRecorded {
	h := in.History
	msgs := h.Branch
	c := AgentRecorded{Name: h.Name, Source: h.Source, Session: h.Title, Model: h.Model, Messages: len(msgs), Recorded: []AgentPoint{}, Strategies: []AgentStrategy{}}
	for _, rc := range h.Recorded {
		p := AgentPoint{Message: rc.Index, Line: lineAt(h, rc.Index), Trigger: rc.Trigger, Step: stepsBefore(msgs, rc.Index), PreTokens: rc.PreTokens, Unauditable: rc.Unauditable}
		p.Line = rc.Line
		for i := rc.Index - 1; i >= 0 && i < len(h.Usage); i-- {
			if h.Usage[i] > 0 {
				p.LiveTokens = h.Usage[i]
				break
			}
		}
		c.Recorded = append(c.Recorded, p)
	}
	for _, x := range runs {
		if x.in != in {
			continue
		}
		if c.ContextWindow == 0 {
			c.ContextWindow = x.cfg.ContextWindow
		}
		c.Steps = len(x.tl.Steps)
		if c.FirstStepLive == 0 {
			for _, s := range x.tl.Steps {
				if s.Index >= 0 && s.Index < len(h.Usage) && h.Usage[s.Index] > 0 {
					c.FirstStepLive, c.FirstStepContext, c.SystemOverhead = h.Usage[s.Index], s.ContextTokens, x.cfg.SystemOverhead
					c.OverheadFromLive = x.overheadLive > 0
					break
				}
			}
		}
		st := AgentStrategy{Strategy: x.name, Compactions: []AgentSimPoint{}, Nearest: []AgentNearest{}}
		for _, s := range x.tl.Steps {
			if s.Rejected != "" || (s.Compacted == 0 && s.Boundary < 0) {
				continue
			}
			p := AgentSimPoint{Step: s.Step, Message: s.Index, Line: lineAt(h, s.Index), ContextTokens: s.ContextTokens}
			if s.Index >= 0 && s.Index < len(h.Usage) {
				p.LiveTokens = h.Usage[s.Index]
			}
			st.Compactions = append(st.Compactions, p)
		}
		for k, rp := range c.Recorded {
			n := AgentNearest{Recorded: k + 1}
			for _, sp := range st.Compactions {
				d := sp.Step - rp.Step
				if n.Step == 0 || absInt(d) < absInt(n.Delta) {
					n.Step, n.Delta, n.ContextTokens = sp.Step, d, sp.ContextTokens
				}
			}
			st.Nearest = append(st.Nearest, n)
		}
		c.Strategies = append(c.Strategies, st)
	}
	return c
}

func lineAt(h *convo.History, i int) int {
	if i >= 0 && i < len(h.Origin) {
		return h.Origin[i]
	}
	return 0
}

func (rep *Report) writeRecordedAgents(w io.Writer) {
	near := map[string]int{}
	recorded := 0
	for i, c := range rep.agentChats {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeAgentRecorded(w, rep.inputs[i], c)
		recorded += len(c.Recorded)
		for _, st := range c.Strategies {
			for _, n := range st.Nearest {
				if n.Step > 0 && absInt(n.Delta) <= nearTolerance {
					near[st.Strategy]++
				}
			}
		}
	}
	var parts []string
	for _, name := range rep.opts.Strategies {
		parts = append(parts, fmt.Sprintf("%s %d", name, near[name]))
	}
	fmt.Fprintf(w, "\n%s, %s recorded; compacting within %d steps of one: %s\n",
		plural(len(rep.agentChats), "session"), plural(recorded, "compaction"), nearTolerance, strings.Join(parts, ", "))
}

func writeAgentRecorded(w io.Writer, in *Input, c AgentRecorded) {
	fmt.Fprintf(w, "%s\n", heading(in))
	model := c.Model
	if model == "" {
		model = "unknown model"
	}
	fmt.Fprintf(w, "%s, context window %s; %s, %s\n", model, windowText(c.ContextWindow, in), plural(c.Messages, "message"), plural(c.Steps, "step"))
	if len(c.Recorded) == 0 {
		fmt.Fprintln(w, "the agent recorded no compaction")
	} else {
		fmt.Fprintf(w, "the agent compacted %s:\n", plural(len(c.Recorded), "time"))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "#\tafter step\tline\ttrigger\trecorded tokens\tlive tokens\t")
		for k, p := range c.Recorded {
			trig := p.Trigger
			if trig == "" {
				trig = "-"
			}
			if p.Unauditable != "" {
				trig += " (unauditable)"
			}
			fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%s\t\n", k+1, p.Step, p.Line, trig, orDash(p.PreTokens), orDash(p.LiveTokens))
		}
		tw.Flush()
	}
	head := "strategy\tcompactions\tat steps"
	for k := range c.Recorded {
		head += "\tnearest to #" + strconv.Itoa(k+1)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, head)
	for _, st := range c.Strategies {
		var steps []string
		for i, p := range st.Compactions {
			if i == 8 {
				steps = append(steps, fmt.Sprintf("… %d more", len(st.Compactions)-8))
				break
			}
			steps = append(steps, strconv.Itoa(p.Step))
		}
		at := strings.Join(steps, ", ")
		if at == "" {
			at = "-"
		}
		row := fmt.Sprintf("%s\t%d\t%s", st.Strategy, len(st.Compactions), at)
		for _, n := range st.Nearest {
			if n.Step == 0 {
				row += "\t-"
				continue
			}
			row += fmt.Sprintf("\tstep %d (%+d), %s tokens", n.Step, n.Delta, fmtInt(n.ContextTokens))
		}
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
	if c.OverheadFromLive {
		fmt.Fprintf(w, "system overhead %s tokens: what the agent sent at its first step (live usage %s) beyond the history, so the first step simulates %s (--system-overhead overrides it)\n",
			fmtInt(float64(c.SystemOverhead)), fmtInt(float64(c.FirstStepLive)), fmtInt(c.FirstStepContext))
	} else if d := float64(c.FirstStepLive) - c.FirstStepContext; c.FirstStepLive > 0 && d > 0 {
		fmt.Fprintf(w, "first step: live usage %s tokens, simulated context %s: the agent sends about %s more (system prompt and tools); try --system-overhead %d\n",
			fmtInt(float64(c.FirstStepLive)), fmtInt(c.FirstStepContext), fmtInt(d), c.SystemOverhead+int(d))
	}
}

func orDash(n int64) string {
	if n <= 0 {
		return "-"
	}
	return fmtInt(float64(n))
}
