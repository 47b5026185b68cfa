// Package simulate owns `compact simulate`: running whole histories
// through the compression strategies of internal/strategy offline and
// reporting what happened.
//
// It reads the histories (chats of a stagewise database, or a generic
// JSONL history) into Inputs, runs one simulation per strategy and history
// in parallel (Run), and reports them in one of four ways:
//
//   - timelines: per history a table of the steps and a chart of the
//     context over them (one strategy);
//   - a comparison: one row per strategy, added up over every history
//     (--compare);
//   - a sweep: that comparison per value of one knob (--sweep; ParseSweep
//     reads knob=from:to:step);
//   - against recorded: the simulated stagewise boundaries beside the ones
//     the app stored in the database (--against-recorded).
//
// A Report renders as text or JSON, and when no trigger fired it gives a
// Hint: how much of the window the histories use and a window under which
// they do compact.
//
// The strategies, their guardrails and the step driver live in
// internal/strategy; the readers in internal/convo. This package adds the
// parallel runner, the per-run configuration (on an agent's session, the
// system overhead the agent sent at its first step), the must-keep
// retention of the final summary, the offline probe scores of every
// compaction (probes mined from what it replaced and answered by its
// summary, as `compact eval` scores a briefing; see probes.go), and on
// eval's grounded probes, what the agent used next (grounded.go), the cost
// of every run (the context with the provider's prompt cache, the cache
// a compaction invalidates, the summaries; see cost.go), the comparison
// with the recorded boundaries and the text rendering. It reads no configuration file: the caller resolves
// flags and configuration into Options.
package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/compactlab/compact/internal/boundary"
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/shard"
	"github.com/compactlab/compact/internal/strategy"
)

// InputError is a problem with what the user gave (a file, a chat id, a
// flag's value) rather than a failed run; the command exits 2 on it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(format string, a ...any) error {
	return &InputError{Err: fmt.Errorf(format, a...)}
}

// Input is one history to simulate.
type Input struct {
	History *convo.History
	// Window is the context window of the chat's model (0: unknown), and
	// WindowFrom the model it came from.
	Window     int
	WindowFrom string
	// Trace is set for a trace that records no message content: it is
	// simulated on the token side only (tokenside.go).
	Trace *TokenTrace
}

// Messages is what strategy name is given: a stagewise chat without the
// synthetic tool messages for the stagewise strategy (so indices are the
// chat's message indices), the full branch otherwise.
func (in *Input) Messages(name string) []strategy.Message {
	if name == strategy.NameStagewise && in.History.Source == convo.SourceStagewise {
		return in.History.RawOnly()
	}
	return in.History.Branch
}

// Origin maps the indices of Messages(name) to the input: chat message
// indices (stagewise) or 1-based lines (JSONL).
func (in *Input) Origin(name string) []int {
	if name == strategy.NameStagewise && in.History.Source == convo.SourceStagewise {
		out := make([]int, len(in.History.RawOnly()))
		for i := range out {
			out[i] = i
		}
		return out
	}
	return in.History.Origin
}

// Options are a run, flags and configuration resolved.
type Options struct {
	// Strategies are the strategies to run: one for timelines and
	// against-recorded, any number for a comparison or a sweep.
	Strategies []string
	// Compare reports one table over every history instead of timelines.
	Compare bool
	// Sweep, when set, reports the comparison per value of its knob.
	Sweep *Sweep
	// AgainstRecorded puts the stagewise boundaries beside the stored
	// ones (one strategy, stagewise).
	AgainstRecorded bool

	// Base is the configuration every run starts from; a history's model
	// window fills ContextWindow when it is 0.
	Base strategy.Config
	// Stagewise holds what the configuration file sets for the stagewise
	// strategy only; zero values leave the strategy's defaults.
	Stagewise StagewiseDefaults
	// Params are the stagewise trigger parameters the configuration gives
	// (threshold, hard cap, default window), for the trigger figure of
	// against-recorded.
	Params boundary.Params

	// Summarizer writes the summaries (nil: strategy.Builtin);
	// SummarizerName names it in the output.
	Summarizer     strategy.Summarizer
	SummarizerName string
	// Jobs is how many simulations run at once (0: GOMAXPROCS).
	Jobs int
	// Selection is the sample and the shard the inputs are of, for the
	// JSON report (nil: every history given).
	Selection *shard.Selection
	// RecordedOverhead: a history that records the agent's live usage (an
	// agent's session) is simulated, when Base.SystemOverhead is 0 (no
	// --system-overhead), with the overhead the agent sent at its first
	// step: its live usage there less what the strategy counts of the
	// history up to it, so that the first simulated step sends what the
	// agent sent (the system prompt and tools are what the history files
	// leave out).
	RecordedOverhead bool
	// Pricing prices the runs: the context with the provider's prompt
	// cache, and the summaries (the cost table).
	Pricing Pricing
	// Simulate runs one simulation (nil: strategy.Simulate; tests
	// replace it).
	Simulate func(ctx context.Context, history []strategy.Message, name string, cfg strategy.Config, sum strategy.Summarizer) (*strategy.Timeline, error)
}

// StagewiseDefaults are configuration values that apply to stagewise runs
// unless a sweep sets them.
type StagewiseDefaults struct {
	Threshold       float64 // 0: the agent's default
	MinUncompressed *int    // nil: the agent's default
}

// CheckStrategies reports an unknown strategy name as an InputError.
func CheckStrategies(names []string) error {
	if len(names) == 0 {
		return inputErr("no strategy named")
	}
	for _, n := range names {
		if _, ok := strategy.Registry[n]; !ok {
			return inputErr("unknown strategy %q (want one of %s)", n, strings.Join(strategy.Names(), ", "))
		}
	}
	return nil
}

// ParseStrategies splits a comma-separated list of strategy names,
// without blanks and repeats, and checks them.
func ParseStrategies(list string) ([]string, error) {
	var names []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" && !contains(names, n) {
			names = append(names, n)
		}
	}
	return names, CheckStrategies(names)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// kind is what a Report shows.
type kind int

const (
	kindTimelines kind = iota
	kindCompare
	kindSweep
	kindRecorded
	kindAgentRecorded
	kindTokenSide
)

// Report is the outcome of Run, to render with WriteText or WriteJSON.
type Report struct {
	kind   kind
	opts   Options
	inputs []*Input
	// runs are every simulation, in job order.
	runs []run
	// rows (compare, sweep) and chats (against recorded).
	rows  []Row
	chats []RecordedChat
	// agentChats (against recorded, agents' sessions).
	agentChats []AgentRecorded
	// tokenSides (traces without content).
	tokenSides []TokenSide
}

// run is one simulation and its outcome.
type run struct {
	job
	result
}

// Run simulates inputs as opts says. An interrupted run returns the
// context's error; a failed simulation an error naming its history.
func Run(ctx context.Context, inputs []*Input, opts Options) (*Report, error) {
	if err := CheckStrategies(opts.Strategies); err != nil {
		return nil, err
	}
	if len(inputs) == 0 {
		return nil, inputErr("no history to simulate")
	}
	agentInputs := false
	for _, in := range inputs {
		if s := in.History.Source; s != convo.SourceStagewise && s != convo.SourceJSONL {
			agentInputs = true
		}
	}
	if opts.AgainstRecorded && !agentInputs && (len(opts.Strategies) != 1 || opts.Strategies[0] != strategy.NameStagewise) {
		return nil, inputErr("against-recorded simulates the stagewise strategy, not %s", strings.Join(opts.Strategies, ", "))
	}
	for _, in := range inputs {
		if opts.AgainstRecorded && in.History.Source == convo.SourceJSONL {
			return nil, inputErr("%s is a generic JSONL history, which records no compaction: --against-recorded needs a stagewise database (--db or --channel) or an agent's session file", in.History.Name)
		}
	}
	rep := &Report{opts: opts, inputs: inputs}
	switch all, odd := TokenSideInputs(inputs); {
	case all && opts.Sweep != nil:
		return nil, inputErr("%s records no message content: a sweep compares what strategies keep, which needs the messages; simulate it without --sweep for its token side", inputs[0].History.Name)
	case all:
		rep.kind = kindTokenSide
		if err := rep.tokenSide(ctx); err != nil {
			return nil, err
		}
		return rep, nil
	case odd != "":
		return nil, inputErr("%s records no message content: only its token side can be simulated; simulate it alone", odd)
	}
	r := &runner{
		sum: opts.Summarizer, jobs: opts.Jobs, profile: serialize.Profiles[opts.Base.Profile], simulate: opts.Simulate,
		noProbes: opts.AgainstRecorded,
	}
	if r.sum == nil {
		r.sum = strategy.Builtin{}
	}
	if r.simulate == nil {
		r.simulate = strategy.Simulate
	}
	var err error
	switch {
	case opts.AgainstRecorded && agentInputs:
		rep.kind = kindAgentRecorded
		err = rep.againstRecordedAgents(ctx, r)
	case opts.AgainstRecorded:
		rep.kind = kindRecorded
		err = rep.againstRecorded(ctx, r)
	case opts.Sweep != nil:
		rep.kind = kindSweep
		err = rep.sweep(ctx, r)
	case opts.Compare:
		rep.kind = kindCompare
		rep.rows, rep.runs, err = compareRows(ctx, r, inputs, opts, nil)
	default:
		rep.kind = kindTimelines
		rep.runs, err = r.run(ctx, jobsFor(inputs, opts, opts.Strategies[0], nil))
	}
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// configFor is the configuration of one run of strategy name on in: the
// base, the history's model window when none is given, the stagewise
// settings for stagewise, then set (a sweep's knob; nil none).
func configFor(opts Options, in *Input, name string, set func(*strategy.Config)) strategy.Config {
	cfg := opts.Base
	if cfg.ContextWindow == 0 && in.Window > 0 {
		cfg.ContextWindow = in.Window
	}
	if name == strategy.NameStagewise {
		if cfg.Threshold == 0 {
			cfg.Threshold = opts.Stagewise.Threshold
		}
		if cfg.MinUncompressed == nil && opts.Stagewise.MinUncompressed != nil {
			n := *opts.Stagewise.MinUncompressed
			cfg.MinUncompressed = &n
		}
	}
	if set != nil {
		set(&cfg)
	}
	return cfg
}

func jobsFor(inputs []*Input, opts Options, name string, set func(*strategy.Config)) []job {
	jobs := make([]job, len(inputs))
	sweptOverhead := opts.Sweep != nil && opts.Sweep.Knob.Name == "system_overhead"
	for i, in := range inputs {
		j := job{in: in, name: name, cfg: configFor(opts, in, name, set)}
		if opts.RecordedOverhead && j.cfg.SystemOverhead == 0 && !sweptOverhead {
			if o, live, ok := recordedOverhead(in, name, j.cfg); ok {
				j.cfg.SystemOverhead, j.overheadLive = o, live
			}
		}
		j.ctxPrices, j.sumPrices = opts.Pricing.resolve(in.History.Model)
		jobs[i] = j
	}
	return jobs
}

// recordedOverhead is the system overhead of strategy name on in when
// the history records the agent's live usage: the live usage of the
// first step that records one, less the strategy's context at that step
// without overhead (at least 0). ok is false when the history records
// none.
func recordedOverhead(in *Input, name string, cfg strategy.Config) (overhead int, live int64, ok bool) {
	h := in.History
	msgs := in.Messages(name)
	if !h.HasUsage || len(msgs) != len(h.Usage) {
		return 0, 0, false
	}
	first := -1
	for i := range msgs {
		if msgs[i].Role == strategy.RoleAssistant && h.Usage[i] > 0 {
			first = i
			break
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	cfg.SystemOverhead = 0
	tl, err := strategy.Simulate(context.Background(), msgs[:first+1], name, cfg, strategy.Builtin{})
	if err != nil || len(tl.Steps) == 0 {
		return 0, 0, false
	}
	live = h.Usage[first]
	return max(0, int(math.Round(float64(live)-tl.Steps[len(tl.Steps)-1].ContextTokens))), live, true
}

// WriteJSON writes the report as indented JSON.
func (rep *Report) WriteJSON(w io.Writer) error {
	var v any
	switch rep.kind {
	case kindTimelines:
		v = rep.timelinesJSON()
	case kindCompare:
		v = struct {
			Summarizer string           `json:"summarizer"`
			Histories  []string         `json:"histories"`
			Rows       []Row            `json:"rows"`
			Selection  *shard.Selection `json:"selection,omitempty"`
		}{rep.opts.SummarizerName, names(rep.inputs), rep.rows, rep.opts.Selection}
	case kindSweep:
		v = struct {
			Knob       string           `json:"knob"`
			Values     []float64        `json:"values"`
			Summarizer string           `json:"summarizer"`
			Histories  []string         `json:"histories"`
			Rows       []Row            `json:"rows"`
			Selection  *shard.Selection `json:"selection,omitempty"`
		}{rep.opts.Sweep.Knob.Name, rep.opts.Sweep.Values, rep.opts.SummarizerName, names(rep.inputs), rep.rows, rep.opts.Selection}
	case kindRecorded:
		v = struct {
			Chats     []RecordedChat   `json:"chats"`
			Selection *shard.Selection `json:"selection,omitempty"`
		}{rep.chats, rep.opts.Selection}
	case kindAgentRecorded:
		v = struct {
			Strategies []string         `json:"strategies"`
			Summarizer string           `json:"summarizer"`
			Sessions   []AgentRecorded  `json:"sessions"`
			Selection  *shard.Selection `json:"selection,omitempty"`
		}{rep.opts.Strategies, rep.opts.SummarizerName, rep.agentChats, rep.opts.Selection}
	case kindTokenSide:
		v = struct {
			TokenSide bool        `json:"tokenSide"`
			Sessions  []TokenSide `json:"sessions"`
			Missing   string      `json:"notSimulated"`
		}{true, rep.tokenSides, "what a strategy keeps once it compacts, its summaries, their probe scores and its cost: " + CaptureContent}
	default:
		return errors.New("unknown report")
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteText writes the report for a reader.
func (rep *Report) WriteText(w io.Writer) error {
	switch rep.kind {
	case kindTimelines:
		rep.writeTimelines(w)
	case kindCompare:
		fmt.Fprintf(w, "%s; summarizer %s\n", scope(rep.inputs), rep.opts.SummarizerName)
		overheadNote(w, rep.runs)
		writeRows(w, rep.rows, "")
		estimatorNote(w, rep.opts.Base, len(rep.opts.Strategies))
		writeProbeRows(w, rep.rows, "")
		writeCostRows(w, rep.rows, "")
	case kindSweep:
		sw := rep.opts.Sweep
		fmt.Fprintf(w, "%s; summarizer %s; sweep of %s over %s\n", scope(rep.inputs), rep.opts.SummarizerName, sw.Knob.Name, plural(len(sw.Values), "value"))
		overheadNote(w, rep.runs)
		writeRows(w, rep.rows, sw.Knob.Name)
		estimatorNote(w, rep.opts.Base, len(rep.opts.Strategies))
		writeProbeRows(w, rep.rows, sw.Knob.Name)
		writeCostRows(w, rep.rows, sw.Knob.Name)
	case kindRecorded:
		rep.writeRecorded(w)
	case kindAgentRecorded:
		rep.writeRecordedAgents(w)
	case kindTokenSide:
		rep.writeTokenSides(w)
	default:
		return errors.New("unknown report")
	}
	return nil
}

// Compactions is the number of compactions kept over every simulation.
func (rep *Report) Compactions() int {
	n := 0
	for _, r := range rep.runs {
		n += r.tl.Compactions
	}
	return n
}

func names(inputs []*Input) []string {
	out := []string{}
	for _, in := range inputs {
		out = append(out, in.History.Name)
	}
	return out
}

// scope names what a comparison covers: the one history, or the count.
func scope(inputs []*Input) string {
	if len(inputs) == 1 {
		return heading(inputs[0])
	}
	return plural(len(inputs), "chat")
}

// heading names a history above its output.
func heading(in *Input) string {
	h := in.History
	if h.Source == convo.SourceStagewise {
		if h.Title != "" {
			return fmt.Sprintf("chat %s %q", h.Name, h.Title)
		}
		return "chat " + h.Name
	}
	if h.Tree {
		return fmt.Sprintf("%s (branch to %s)", h.Name, h.Leaf)
	}
	if h.Source != convo.SourceJSONL {
		// An agent's session: name the agent (and the session, when the
		// file's name does not).
		if h.Title != "" && !strings.Contains(h.Name, h.Title) {
			return fmt.Sprintf("%s (%s session %s)", h.Name, h.Source, h.Title)
		}
		return fmt.Sprintf("%s (%s session)", h.Name, h.Source)
	}
	return h.Name
}

// overheadNote says, when some runs took their system overhead from the
// agent's first step, what it was: one figure for one history and
// strategy, the range otherwise.
func overheadNote(w io.Writer, runs []run) {
	lo, hi, n := math.MaxInt, 0, 0
	for _, r := range runs {
		if r.overheadLive > 0 {
			lo, hi, n = min(lo, r.cfg.SystemOverhead), max(hi, r.cfg.SystemOverhead), n+1
		}
	}
	if n == 0 {
		return
	}
	what := fmtInt(float64(lo)) + " tokens"
	if lo != hi {
		what = fmtInt(float64(lo)) + " to " + fmtInt(float64(hi)) + " tokens (each strategy counts the history its own way)"
	}
	fmt.Fprintf(w, "system overhead %s: what the agent sent at its first step beyond the history (--system-overhead overrides it)\n", what)
}

// estimatorNote says that token figures of different strategies come
// from different estimators unless a tokenizer counts them all.
func estimatorNote(w io.Writer, base strategy.Config, strategies int) {
	if base.Tokenizer == "" && strategies > 1 {
		fmt.Fprintln(w, "token figures come from each strategy's own estimator; --tokenizer o200k counts every strategy alike")
	}
}

// plural is "1 chat", "2 chats"; word's plural adds s.
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// pluralES is "1 match", "2 matches", for words whose plural adds es.
func pluralES(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ses", n, word)
}
