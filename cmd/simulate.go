package cmd

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/diff"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/strategy"
)

func init() { register(newCmdSimulate) }

// simStagewise is the stagewise strategy's registry name.
const simStagewise = "stagewise"

// runSimulation is strategy.Simulate (tests replace it).
var runSimulation = strategy.Simulate

type simulateOptions struct {
	f *Factory

	DB      string
	Channel string
	Chats   []string
	JSONL   string
	Leaf    string

	Strategy        string
	Compare         string
	Sweep           string
	Summarizer      string
	Tokenizer       string
	ContextWindow   int
	SystemOverhead  int
	AgainstRecorded bool
	Workers         int
	GOOS            string

	changed func(name string) bool
}

func newCmdSimulate(f *Factory) *cobra.Command {
	opts := &simulateOptions{f: f, GOOS: runtime.GOOS}
	c := &cobra.Command{
		Use:   "simulate [--db PATH | --channel C] [--chat ID]... | --jsonl FILE [--leaf ID]",
		Short: "Run whole histories through a compression strategy offline, compare strategies, check the walk against the real boundaries",
		Long: "Walks a history step by step (every assistant message is a step): at each\n" +
			"step it estimates the context the model would be sent (system overhead plus\n" +
			"the strategy's view), applies the strategy's trigger and, when it fires,\n" +
			"compacts as the strategy does, with the guardrails every strategy gets (a\n" +
			"compaction that does not shrink the context is undone; consecutive\n" +
			"summarizer calls are capped).\n\n" +
			"Input: chats of a stagewise database (--db, or the --channel's database;\n" +
			"every chat, or the --chat ids), read as extract reads them, or a generic\n" +
			"JSONL history (--jsonl; a tree is simulated along the branch to the newest\n" +
			"leaf, or to --leaf).\n\n" +
			"Output: per chat a timeline table and a chart of the context over the steps;\n" +
			"with --compare one table across strategies over all chats; with --sweep that\n" +
			"table per value of a knob; with --against-recorded the simulated stagewise\n" +
			"boundaries beside the ones the app stored. Strategies: " + strings.Join(strategy.Names(), ", ") + ".",
		Example: "  compact simulate --db instances.sqlite --chat 01047173-5fee-4fd1-841b-f445a3f0c50e\n" +
			"  compact simulate --jsonl examples/histories/branching.jsonl --strategy onyx\n" +
			"  compact simulate --db instances.sqlite --compare stagewise,onyx,summary-buffer\n" +
			"  compact simulate --db instances.sqlite --sweep threshold=0.4:0.8:0.05\n" +
			"  compact simulate --db instances.sqlite --against-recorded",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.changed = c.Flags().Changed
			if !c.Flags().Changed("channel") {
				opts.Channel = f.Config.String("extract" + config.Delim + "channel")
			}
			return runSimulate(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.DB, "db", "", "stagewise database file (default: the channel's path for this OS)")
	fl.StringVar(&opts.Channel, "channel", "prerelease", "release channel whose database to read: release, prerelease, nightly or dev")
	fl.StringArrayVar(&opts.Chats, "chat", nil, "simulate only this chat id (repeatable; default every chat)")
	fl.StringVar(&opts.JSONL, "jsonl", "", "read a generic JSONL history from FILE instead of a database (- for stdin)")
	fl.StringVar(&opts.Leaf, "leaf", "", "with --jsonl: simulate the branch ending at this message id")
	fl.StringVar(&opts.Strategy, "strategy", simStagewise, "strategy to simulate")
	fl.StringVar(&opts.Compare, "compare", "", "compare these strategies (comma-separated) over all chosen chats")
	fl.StringVar(&opts.Sweep, "sweep", "", "knob=from:to:step: the comparison table per knob value (knobs: "+strings.Join(simKnobNames(), ", ")+")")
	fl.StringVar(&opts.Summarizer, "summarizer", "builtin", "builtin (offline), recorded (the database's stored briefings), model:ID or cascade")
	fl.StringVar(&opts.Tokenizer, "tokenizer", "", "count tokens with o200k or cl100k instead of each strategy's estimator")
	fl.IntVar(&opts.ContextWindow, "context-window", 0, "context window in tokens (default: the chat's model from context_windows, else the strategy's default)")
	fl.IntVar(&opts.SystemOverhead, "system-overhead", 0, "tokens of system prompt and tools added to every step (default: the strategy's)")
	fl.BoolVar(&opts.AgainstRecorded, "against-recorded", false, "put the simulated stagewise boundaries beside the ones stored in the database")
	fl.IntVarP(&opts.Workers, "jobs", "j", 0, "simulations run in parallel (default: CPUs)")
	return c
}

// simInput is one history to simulate.
type simInput struct {
	h *convo.History
	// window is the context window from the chat's model (0: none), and
	// windowFrom says where it came from.
	window     int
	windowFrom string
}

// messagesFor is what strategy name is given: a stagewise chat without the
// synthetic tool messages for the stagewise strategy (so indices are the
// chat's message indices), the full branch otherwise.
func (in *simInput) messagesFor(name string) []strategy.Message {
	if name == simStagewise && in.h.Source == convo.SourceStagewise {
		return in.h.RawOnly()
	}
	return in.h.Branch
}

// originFor maps the indices of messagesFor(name) to the input: chat
// message indices (stagewise) or 1-based lines (JSONL).
func (in *simInput) originFor(name string) []int {
	if name == simStagewise && in.h.Source == convo.SourceStagewise {
		out := make([]int, len(in.h.RawOnly()))
		for i := range out {
			out[i] = i
		}
		return out
	}
	return in.h.Origin
}

func runSimulate(ctx context.Context, opts *simulateOptions) error {
	f := opts.f
	if ctx == nil {
		ctx = context.Background()
	}
	changed := opts.changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Flags that do not go together.
	jsonl := opts.JSONL != ""
	if jsonl && (opts.DB != "" || changed("channel") || len(opts.Chats) > 0) {
		return usageErr("simulate: --jsonl reads a file; --db, --channel and --chat read a database: choose one")
	}
	if opts.Leaf != "" && !jsonl {
		return usageErr("simulate: --leaf chooses a branch of a --jsonl history")
	}
	if opts.AgainstRecorded && (opts.Compare != "" || opts.Sweep != "") {
		return usageErr("simulate: --against-recorded goes with neither --compare nor --sweep")
	}
	if opts.AgainstRecorded {
		if jsonl {
			return usageErr("simulate: --against-recorded needs a stagewise database (--db or --channel), not --jsonl")
		}
		if opts.Strategy != simStagewise {
			return usageErr("simulate: --against-recorded simulates the stagewise strategy, not %s", opts.Strategy)
		}
	}
	if opts.Workers < 0 {
		return usageErr("simulate: -j: want at least 1, got %d", opts.Workers)
	}
	if opts.ContextWindow < 0 || opts.SystemOverhead < 0 {
		return usageErr("simulate: --context-window and --system-overhead take a number of tokens, not a negative one")
	}
	if opts.Tokenizer != "" && !contains(strategy.Tokenizers, opts.Tokenizer) {
		return usageErr("simulate: --tokenizer: unknown tokenizer %q (want %s)", opts.Tokenizer, strings.Join(strategy.Tokenizers, " or "))
	}
	names := []string{opts.Strategy}
	if opts.Compare != "" {
		names = nil
		for _, n := range strings.Split(opts.Compare, ",") {
			if n = strings.TrimSpace(n); n != "" && !contains(names, n) {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return usageErr("simulate: --compare: no strategy named")
		}
	}
	for _, n := range names {
		if _, ok := strategy.Registry[n]; !ok {
			return usageErr("simulate: unknown strategy %q (want one of %s)", n, strings.Join(strategy.Names(), ", "))
		}
	}
	var sweep *simSweep
	if opts.Sweep != "" {
		s, err := parseSweep(opts.Sweep)
		if err != nil {
			return usageErr("simulate: --sweep: %v", err)
		}
		sweep = s
	}
	base, err := simBaseConfig(f.Config, opts)
	if err != nil {
		return err
	}

	if opts.Summarizer == "recorded" && jsonl {
		return usageErr("simulate: --summarizer recorded replays the briefings of a stagewise database; a JSONL history has none")
	}
	sum, sumInfo, err := simSummarizer(f, opts.Summarizer)
	if err != nil {
		return err
	}
	if cs, ok := sum.(*cascadeSummarizer); ok {
		defer func() {
			if !f.IO.Quiet {
				fmt.Fprintf(f.IO.ErrOut, "compact: summarizer %s: %d requests, %d answered from the cache, $%.4f\n", sumInfo, cs.calls, cs.cached, cs.cost)
			}
		}()
	}

	// The histories.
	var inputs []*simInput
	if jsonl {
		in, err := readSimJSONL(f, opts)
		if err != nil {
			return err
		}
		inputs = []*simInput{in}
	} else {
		inputs, err = readSimDB(ctx, f, opts)
		if err != nil {
			return err
		}
	}

	r := &simRunner{ctx: ctx, sum: sum, workers: opts.Workers, profile: serialize.Profiles[base.Profile]}
	switch {
	case opts.AgainstRecorded:
		return simAgainstRecorded(f, r, inputs, base)
	case sweep != nil:
		return simSweepRun(f, r, inputs, names, base, sweep, sumInfo)
	case opts.Compare != "":
		return simCompare(f, r, inputs, names, base, sumInfo)
	}
	return simTimelines(f, r, inputs, names[0], base, sumInfo)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// simBaseConfig is the configuration every run starts from: the flags and
// the stagewise settings of the configuration file.
func simBaseConfig(st *config.Store, opts *simulateOptions) (strategy.Config, error) {
	cfg := strategy.Config{
		ContextWindow:  opts.ContextWindow,
		SystemOverhead: opts.SystemOverhead,
		Tokenizer:      opts.Tokenizer,
		Profile:        st.String("profile"),
		TargetChars:    st.Int("compression" + config.Delim + "target_chars"),
		Agent:          st.String("compression" + config.Delim + "agent"),
	}
	if _, err := serialize.LookupProfile(cfg.Profile); err != nil {
		return cfg, usageErr("config: profile: %v", err)
	}
	pack, err := prompt.Resolve(st.String("pack"))
	if err != nil {
		return cfg, usageErr("config: pack: %v", err)
	}
	cfg.Pack = pack
	cfg.Locale = st.String("locale")
	if cfg.Locale == "" {
		cfg.Locale = prompt.LocaleFromEnv(opts.f.Getenv)
	}
	return cfg, nil
}

// stagewiseConfig adds the stagewise knobs the user set in the
// configuration (threshold and minimum uncompressed messages of the
// configured agent); unset, the strategy's own defaults for the agent
// apply.
func stagewiseConfig(st *config.Store, cfg strategy.Config) (strategy.Config, error) {
	p, err := compressionParams(st)
	if err != nil {
		return cfg, err
	}
	keys := agentConfigKeys[cfg.Agent]
	if keys.threshold != "" && st.Source(keys.threshold) != "default" && cfg.Threshold == 0 {
		cfg.Threshold = p.Threshold
	}
	if keys.min != "" && st.Source(keys.min) != "default" && cfg.MinUncompressed == nil {
		n := p.DefaultMin
		cfg.MinUncompressed = &n
	}
	return cfg, nil
}

// readSimJSONL reads --jsonl: bad lines are warnings when some lines are
// usable, a usage error (exit 2) when none is.
func readSimJSONL(f *Factory, opts *simulateOptions) (*simInput, error) {
	var h *convo.History
	var err error
	jo := convo.JSONLOptions{Leaf: opts.Leaf}
	if opts.JSONL == "-" {
		h, err = convo.ReadJSONL(f.IO.In, "stdin", jo)
	} else {
		h, err = convo.ReadJSONLFile(opts.JSONL, jo)
	}
	if err != nil {
		return nil, usageErr("simulate: %v", err)
	}
	for _, p := range h.Problems {
		fmt.Fprintf(f.IO.ErrOut, "compact: warning: %s: %s\n", h.Name, p)
	}
	if len(h.Branch) == 0 {
		if len(h.Problems) == 0 {
			return nil, usageErr("simulate: %s holds no message (want one JSON object per line)", h.Name)
		}
		return nil, usageErr("simulate: %s: no usable line (%d problems reported above)", h.Name, len(h.Problems))
	}
	return &simInput{h: h}, nil
}

// readSimDB reads the chosen chats of the database.
func readSimDB(ctx context.Context, f *Factory, opts *simulateOptions) ([]*simInput, error) {
	if _, ok := extract.Channels[opts.Channel]; !ok {
		return nil, usageErr("simulate: --channel: unknown channel %q (want one of %s)", opts.Channel, strings.Join(extract.ChannelNames, ", "))
	}
	db := opts.DB
	if db == "" {
		var err error
		if db, err = extract.DefaultDBPath(opts.Channel, opts.GOOS, f.Getenv); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	if _, err := os.Stat(db); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("database not found: %s (channel %s); pass --db PATH", db, opts.Channel)
		}
		return nil, err
	}
	hs, problems, err := convo.ReadStagewise(ctx, db, convo.StagewiseOptions{ChatIDs: opts.Chats})
	if err != nil {
		return nil, fmt.Errorf("simulate: %w", err)
	}
	for _, p := range problems {
		fmt.Fprintf(f.IO.ErrOut, "compact: warning: %s\n", p)
	}
	if len(hs) == 0 {
		if len(opts.Chats) > 0 {
			return nil, usageErr("simulate: none of the chosen chats can be simulated")
		}
		return nil, fmt.Errorf("simulate: %s holds no chat with messages", db)
	}
	windows := f.Config.ContextWindows()
	var out []*simInput
	for _, h := range hs {
		in := &simInput{h: h}
		if n, ok := windows[strings.ToLower(h.Model)]; ok && h.Model != "" {
			in.window, in.windowFrom = n, h.Model
		}
		out = append(out, in)
	}
	return out, nil
}

// simSummarizer builds the --summarizer.
func simSummarizer(f *Factory, spec string) (strategy.Summarizer, string, error) {
	switch {
	case spec == "builtin" || spec == "model:builtin":
		return strategy.Builtin{}, "builtin", nil
	case spec == "recorded":
		return strategy.Recorded{}, "recorded", nil
	case spec == "cascade" || strings.HasPrefix(spec, "model:"):
		c, err := cascade.Load(f.Config, f.Getenv)
		if err != nil {
			return nil, "", usageErr("%v", err)
		}
		wireBuiltin(c, f.Config.String("profile"))
		order := c.Order("")
		if id, ok := strings.CutPrefix(spec, "model:"); ok {
			if _, ok := c.Models.Lookup(id); !ok {
				return nil, "", usageErr("simulate: --summarizer: unknown model %q (known: %s)", id, strings.Join(c.Models.IDs(), ", "))
			}
			order = []string{id}
		}
		return &cascadeSummarizer{c: c, order: order, cache: map[[32]byte]string{}}, spec, nil
	}
	return nil, "", usageErr("simulate: --summarizer: want builtin, recorded, model:ID or cascade, not %q", spec)
}

// cascadeSummarizer sends a strategy's own prompt to a model or the
// cascade. Equal requests (a sweep repeats many) are sent once.
type cascadeSummarizer struct {
	c     *cascade.Cascade
	order []string

	mu     sync.Mutex
	cache  map[[32]byte]string
	calls  int
	cached int
	cost   float64
}

func (s *cascadeSummarizer) Summarize(ctx context.Context, req strategy.SummaryRequest) (string, error) {
	key := sha256.Sum256([]byte(req.System + "\x00" + req.User))
	s.mu.Lock()
	if text, ok := s.cache[key]; ok {
		s.cached++
		s.mu.Unlock()
		return text, nil
	}
	s.mu.Unlock()
	out, err := s.c.Run(ctx, cascade.Input{System: req.System, User: req.User}, s.order)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if out != nil {
		s.cost += out.CostUSD
	}
	if err != nil {
		return "", err
	}
	s.cache[key] = out.Text
	return out.Text, nil
}

// recorder remembers what each summarizer call of one simulation
// compacted, for the must-keep retention.
type recorder struct {
	inner     strategy.Summarizer
	compacted [][]strategy.Message
}

func (r *recorder) Summarize(ctx context.Context, req strategy.SummaryRequest) (string, error) {
	r.compacted = append(r.compacted, req.Compacted)
	return r.inner.Summarize(ctx, req)
}

// simRunner runs simulations in parallel, results in job order.
type simRunner struct {
	ctx     context.Context
	sum     strategy.Summarizer
	workers int
	profile *serialize.Profile
}

type simJob struct {
	in   *simInput
	name string
	cfg  strategy.Config
}

type simResult struct {
	tl  *strategy.Timeline
	ret *convo.Retention // nil without a summary
	err error
}

func (r *simRunner) run(jobs []simJob) ([]simResult, error) {
	res := make([]simResult, len(jobs))
	workers := r.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res[i] = r.one(jobs[i])
			}
		}()
	}
	for i := range jobs {
		if r.ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := r.ctx.Err(); err != nil {
		return nil, fmt.Errorf("simulate: interrupted")
	}
	for i, x := range res {
		if x.err != nil {
			return nil, fmt.Errorf("simulate: %s: %w", jobs[i].in.h.Name, x.err)
		}
	}
	return res, nil
}

func (r *simRunner) one(j simJob) simResult {
	rec := &recorder{inner: r.sum}
	tl, err := runSimulation(r.ctx, j.in.messagesFor(j.name), j.name, j.cfg, rec)
	if err != nil {
		return simResult{err: err}
	}
	out := simResult{tl: tl}
	if tl.FinalSummary != "" && len(rec.compacted) > 0 {
		ret := convo.MeasureRetention(keptCompacted(tl, rec.compacted), tl.FinalSummary, r.profile)
		out.ret = &ret
	}
	return out
}

// keptCompacted is the union (by id, first seen first) of the messages the
// kept compactions summarized. Summarizer calls and the steps that report
// one pair up in order; when they do not, every call counts.
func keptCompacted(tl *strategy.Timeline, calls [][]strategy.Message) []strategy.Message {
	var use [][]strategy.Message
	k := 0
	paired := true
	for _, s := range tl.Steps {
		if !s.SummarizerCalled {
			continue
		}
		if k >= len(calls) {
			paired = false
			break
		}
		if s.Rejected == "" && s.Compacted > 0 {
			use = append(use, calls[k])
		}
		k++
	}
	if !paired || k != len(calls) {
		use = calls
	}
	seen := map[string]bool{}
	var out []strategy.Message
	for _, c := range use {
		for _, m := range c {
			if !seen[m.ID] {
				seen[m.ID] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// configFor is the configuration of one run of strategy name on in.
func configFor(st *config.Store, base strategy.Config, in *simInput, name string) (strategy.Config, error) {
	cfg := base
	if cfg.ContextWindow == 0 && in.window > 0 {
		cfg.ContextWindow = in.window
	}
	if name == simStagewise {
		return stagewiseConfig(st, cfg)
	}
	return cfg, nil
}

// ---- timelines ----

type simTimelineJSON struct {
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
}

func simTimelines(f *Factory, r *simRunner, inputs []*simInput, name string, base strategy.Config, sumInfo string) error {
	jobs := make([]simJob, len(inputs))
	for i, in := range inputs {
		cfg, err := configFor(f.Config, base, in, name)
		if err != nil {
			return err
		}
		jobs[i] = simJob{in: in, name: name, cfg: cfg}
	}
	res, err := r.run(jobs)
	if err != nil {
		return err
	}
	if f.JSON {
		out := struct {
			Strategy   string            `json:"strategy"`
			Summarizer string            `json:"summarizer"`
			Histories  []simTimelineJSON `json:"histories"`
		}{name, sumInfo, []simTimelineJSON{}}
		for i, in := range inputs {
			out.Histories = append(out.Histories, simTimelineJSON{
				Source: in.h.Source, Name: in.h.Name, Title: in.h.Title, Model: in.h.Model, Leaf: in.h.Leaf,
				Messages: len(jobs[i].in.messagesFor(name)), ContextWindow: jobs[i].cfg.ContextWindow, Origin: in.originFor(name),
				Problems: in.h.Problems, Timeline: res[i].tl, Retention: res[i].ret,
			})
		}
		return writeIndentedJSON(f.IO.Out, out)
	}
	w := f.IO.Out
	for i, in := range inputs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		tl := res[i].tl
		msgs := jobs[i].in.messagesFor(name)
		fmt.Fprintf(w, "%s\n", simHeading(in))
		fmt.Fprintf(w, "strategy %s, summarizer %s, context window %s; %d messages, %d steps\n",
			name, sumInfo, simWindowText(jobs[i].cfg.ContextWindow, in), len(msgs), len(tl.Steps))
		if len(tl.Steps) == 0 {
			fmt.Fprintln(w, "no assistant message: nothing to simulate")
			continue
		}
		printTimelineTable(w, tl, in.originFor(name), in.h.Source == convo.SourceJSONL)
		fmt.Fprintln(w)
		renderChart(w, tl.Steps, 60, 12)
		fmt.Fprintf(w, "\n%d compactions, %d rejected, %d summarizer calls; tokens sent %s (%s per step), peak %s; %d messages verbatim at the end\n",
			tl.Compactions, tl.Rejected, tl.SummarizerCalls, fmtInt(tl.TokensSent), fmtInt(tl.TokensSent/float64(len(tl.Steps))), fmtInt(tl.PeakContext), tl.KeptAtEnd)
		if ret := res[i].ret; ret != nil {
			fmt.Fprintf(w, "must-keep retention of the final summary: %s\n", retentionText(ret))
		}
	}
	return nil
}

func simHeading(in *simInput) string {
	h := in.h
	if h.Source == convo.SourceStagewise {
		if h.Title != "" {
			return fmt.Sprintf("chat %s %q", h.Name, h.Title)
		}
		return "chat " + h.Name
	}
	if h.Tree {
		return fmt.Sprintf("%s (branch to %s)", h.Name, h.Leaf)
	}
	return h.Name
}

func simWindowText(n int, in *simInput) string {
	switch {
	case n == 0:
		return "the strategy's default"
	case in.window == n && in.windowFrom != "":
		return fmt.Sprintf("%s (%s)", fmtInt(float64(n)), in.windowFrom)
	}
	return fmtInt(float64(n))
}

// printTimelineTable writes one row per step. Message and boundary are
// given as the chat's message index, or as the JSONL line (lines).
func printTimelineTable(w io.Writer, tl *strategy.Timeline, origin []int, lines bool) {
	at := func(i int) int {
		if i >= 0 && i < len(origin) {
			return origin[i]
		}
		return i
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if lines {
		fmt.Fprintln(tw, "step\tline\tcontext\tfired\tboundary line\tkept\tsummary\tafter\trejected\t")
	} else {
		fmt.Fprintln(tw, "step\tmessage\tcontext\tfired\tboundary\tkept\tsummary\tafter\trejected\t")
	}
	for _, s := range tl.Steps {
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
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", s.Step, at(s.Index), fmtInt(s.ContextTokens), fired, boundary, s.KeptVerbatim, fmtInt(float64(s.SummaryChars)), after, rejected)
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

// ---- comparison ----

// simRow is one strategy's totals over all chats.
type simRow struct {
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
}

func addRow(row *simRow, res simResult) {
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
	if res.ret != nil {
		if row.MustKeep == nil {
			row.MustKeep = &convo.Retention{ByKind: map[diff.Kind]*convo.KindCount{}, Lost: []diff.Item{}}
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

// compareRows simulates every strategy on every input with cfgFn's
// configuration and adds up one row per strategy.
func compareRows(f *Factory, r *simRunner, inputs []*simInput, names []string, cfgFn func(strategy.Config) (strategy.Config, error), base strategy.Config) ([]simRow, error) {
	var jobs []simJob
	for _, name := range names {
		for _, in := range inputs {
			cfg, err := configFor(f.Config, base, in, name)
			if err != nil {
				return nil, err
			}
			if cfg, err = cfgFn(cfg); err != nil {
				return nil, err
			}
			jobs = append(jobs, simJob{in: in, name: name, cfg: cfg})
		}
	}
	res, err := r.run(jobs)
	if err != nil {
		return nil, err
	}
	rows := make([]simRow, len(names))
	for i, name := range names {
		rows[i].Strategy = name
		for k := range inputs {
			addRow(&rows[i], res[i*len(inputs)+k])
		}
	}
	return rows, nil
}

func simCompare(f *Factory, r *simRunner, inputs []*simInput, names []string, base strategy.Config, sumInfo string) error {
	rows, err := compareRows(f, r, inputs, names, func(c strategy.Config) (strategy.Config, error) { return c, nil }, base)
	if err != nil {
		return err
	}
	if f.JSON {
		return writeIndentedJSON(f.IO.Out, struct {
			Summarizer string   `json:"summarizer"`
			Histories  []string `json:"histories"`
			Rows       []simRow `json:"rows"`
		}{sumInfo, simNames(inputs), rows})
	}
	fmt.Fprintf(f.IO.Out, "%s; summarizer %s\n", simScope(inputs), sumInfo)
	printRows(f.IO.Out, rows, "")
	simEstimatorNote(f.IO.Out, base, len(names))
	return nil
}

// simEstimatorNote says that token figures of different strategies come
// from different estimators unless a tokenizer counts them all.
func simEstimatorNote(w io.Writer, base strategy.Config, strategies int) {
	if base.Tokenizer == "" && strategies > 1 {
		fmt.Fprintln(w, "token figures come from each strategy's own estimator; --tokenizer o200k counts every strategy alike")
	}
}

func simNames(inputs []*simInput) []string {
	out := []string{}
	for _, in := range inputs {
		out = append(out, in.h.Name)
	}
	return out
}

func simScope(inputs []*simInput) string {
	if len(inputs) == 1 {
		return simHeading(inputs[0])
	}
	return fmt.Sprintf("%d chats", len(inputs))
}

// printRows writes the comparison table; knob names the value column
// ("" none).
func printRows(w io.Writer, rows []simRow, knob string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// Strategy names are padded so that they read left-aligned.
	nameW := len("strategy")
	for _, row := range rows {
		nameW = max(nameW, len(row.Strategy))
	}
	head := fmt.Sprintf("%-*s", nameW, "strategy") + "\tchats\tsteps\tcompactions\tsummarizer calls\trejected\ttokens sent\tper step\tpeak\tkept at end\tmust-keep\tpaths\tlinks\tfailures\t"
	if knob != "" {
		head = knob + "\t" + head
	}
	fmt.Fprintln(tw, head)
	for _, row := range rows {
		if knob != "" {
			fmt.Fprintf(tw, "%s\t", fmtKnob(*row.Value))
		}
		mk, paths, links, fails := "-", "-", "-", "-"
		if m := row.MustKeep; m != nil {
			mk = fmt.Sprintf("%d/%d %s", m.Kept, m.Items, pct(m.Kept, m.Items))
			kc := func(k diff.Kind) string { return fmt.Sprintf("%d/%d", m.ByKind[k].Kept, m.ByKind[k].Total) }
			paths, links, fails = kc(diff.KindPath), kc(diff.KindLink), kc(diff.KindFailure)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n",
			fmt.Sprintf("%-*s", nameW, row.Strategy), row.Chats, row.Steps, row.Compactions, row.SummarizerCalls, row.Rejected,
			fmtInt(row.TokensSent), fmtInt(row.TokensPerStep), fmtInt(row.PeakContext), row.KeptAtEnd, mk, paths, links, fails)
	}
	tw.Flush()
}

func pct(a, b int) string {
	if b == 0 {
		return "(-)"
	}
	return fmt.Sprintf("(%d%%)", int(math.Round(100*float64(a)/float64(b))))
}

// ---- sweep ----

// simKnob is one strategy.Config field --sweep can vary.
type simKnob struct {
	name  string
	whole bool // takes whole numbers only
	set   func(*strategy.Config, float64)
}

var simKnobs = []simKnob{
	{"threshold", false, func(c *strategy.Config, v float64) { c.Threshold = v }},
	{"context_window", true, func(c *strategy.Config, v float64) { c.ContextWindow = int(v) }},
	{"system_overhead", true, func(c *strategy.Config, v float64) { c.SystemOverhead = int(v) }},
	{"reserved", true, func(c *strategy.Config, v float64) { c.Reserved = int(v) }},
	{"recent_ratio", false, func(c *strategy.Config, v float64) { c.RecentRatio = v }},
	{"recent_buffer", true, func(c *strategy.Config, v float64) { c.RecentBuffer = int(v) }},
	{"tool_result_cap", true, func(c *strategy.Config, v float64) { c.ToolResultCap = int(v) }},
	{"prune_threshold", true, func(c *strategy.Config, v float64) { c.PruneThreshold = int(v) }},
	{"prune_extract", true, func(c *strategy.Config, v float64) { c.PruneExtract = int(v) }},
	{"max_consecutive", true, func(c *strategy.Config, v float64) { c.MaxConsecutive = int(v) }},
	{"min_uncompressed", true, func(c *strategy.Config, v float64) { n := int(v); c.MinUncompressed = &n }},
	{"target_chars", true, func(c *strategy.Config, v float64) { c.TargetChars = int(v) }},
}

// simKnobNames lists the Config knobs, then the strategies' extra knobs.
func simKnobNames() []string {
	var out []string
	for _, k := range simKnobs {
		out = append(out, k.name)
	}
	return append(out, slices.Sorted(maps.Keys(strategy.ExtraKnobs))...)
}

// simSweep is a parsed --sweep.
type simSweep struct {
	knob   simKnob
	values []float64
}

// maxSweepValues bounds a sweep.
const maxSweepValues = 1000

// parseSweep reads knob=from:to:step (or knob=value). A name that is not a
// Config field is an extra knob (Config.Extra).
func parseSweep(spec string) (*simSweep, error) {
	name, rng, ok := strings.Cut(spec, "=")
	name = strings.TrimSpace(strings.ReplaceAll(name, "-", "_"))
	if !ok || name == "" || rng == "" {
		return nil, fmt.Errorf("%q: want knob=from:to:step, e.g. threshold=0.4:0.8:0.05", spec)
	}
	s := &simSweep{}
	found := false
	for _, k := range simKnobs {
		if k.name == name {
			s.knob, found = k, true
		}
	}
	if !found {
		if _, ok := strategy.ExtraKnobs[name]; !ok {
			return nil, fmt.Errorf("unknown knob %q (want one of %s)", name, strings.Join(simKnobNames(), ", "))
		}
		extra := name
		s.knob = simKnob{name: extra, set: func(c *strategy.Config, v float64) {
			m := make(map[string]float64, len(c.Extra)+1)
			for k, x := range c.Extra {
				m[k] = x
			}
			m[extra] = v
			c.Extra = m
		}}
	}
	parts := strings.Split(rng, ":")
	nums := make([]float64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: %q is not a number", name, p)
		}
		nums[i] = v
	}
	switch len(nums) {
	case 1:
		s.values = nums
	case 3:
		from, to, step := nums[0], nums[1], nums[2]
		if step <= 0 {
			return nil, fmt.Errorf("%s: the step must be positive, got %v", name, step)
		}
		if to < from {
			return nil, fmt.Errorf("%s: from %v is above to %v", name, from, to)
		}
		n := math.Floor((to-from)/step+1e-9) + 1
		if n > maxSweepValues {
			return nil, fmt.Errorf("%s: %v values, more than %d", name, n, maxSweepValues)
		}
		// Values are from + k*step rounded to the decimals the input
		// uses, so 0.4:0.8:0.05 gives 0.45, not 0.45000000000000007.
		dec := max(decimals(parts[0]), decimals(parts[2]))
		for k := 0; k < int(n); k++ {
			s.values = append(s.values, roundTo(from+float64(k)*step, dec))
		}
	default:
		return nil, fmt.Errorf("%s: want from:to:step or one value, got %q", name, rng)
	}
	for _, v := range s.values {
		if s.knob.whole && v != math.Trunc(v) {
			return nil, fmt.Errorf("%s takes whole numbers, got %v", name, v)
		}
		if v < 0 && s.knob.name != "threshold" && s.knob.name != "max_consecutive" && s.knob.name != "tool_result_cap" {
			return nil, fmt.Errorf("%s: %v is negative", name, v)
		}
	}
	return s, nil
}

func decimals(s string) int {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		return 9
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

func roundTo(v float64, dec int) float64 {
	p := math.Pow(10, float64(dec))
	return math.Round(v*p) / p
}

func fmtKnob(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func simSweepRun(f *Factory, r *simRunner, inputs []*simInput, names []string, base strategy.Config, sw *simSweep, sumInfo string) error {
	var rows []simRow
	for _, v := range sw.values {
		v := v
		vr, err := compareRows(f, r, inputs, names, func(c strategy.Config) (strategy.Config, error) {
			sw.knob.set(&c, v)
			return c, nil
		}, base)
		if err != nil {
			return err
		}
		for i := range vr {
			vr[i].Value = &v
		}
		rows = append(rows, vr...)
	}
	if f.JSON {
		return writeIndentedJSON(f.IO.Out, struct {
			Knob       string    `json:"knob"`
			Values     []float64 `json:"values"`
			Summarizer string    `json:"summarizer"`
			Histories  []string  `json:"histories"`
			Rows       []simRow  `json:"rows"`
		}{sw.knob.name, sw.values, sumInfo, simNames(inputs), rows})
	}
	fmt.Fprintf(f.IO.Out, "%s; summarizer %s; sweep of %s over %d values\n", simScope(inputs), sumInfo, sw.knob.name, len(sw.values))
	printRows(f.IO.Out, rows, sw.knob.name)
	simEstimatorNote(f.IO.Out, base, len(names))
	return nil
}

// ---- against recorded ----

// recPoint is one boundary, simulated or recorded, with the figures of the
// step that explains it.
type recPoint struct {
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

type recChat struct {
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
	LiveUsedTokens  *int64     `json:"liveUsedTokens"`
	LastStepContext float64    `json:"lastStepContext"`
	Matches         []recPoint `json:"matches"`
	Misses          []recPoint `json:"misses"`
	Extra           []recPoint `json:"extra"`
}

func simAgainstRecorded(f *Factory, r *simRunner, inputs []*simInput, base strategy.Config) error {
	jobs := make([]simJob, len(inputs))
	for i, in := range inputs {
		cfg, err := configFor(f.Config, base, in, simStagewise)
		if err != nil {
			return err
		}
		jobs[i] = simJob{in: in, name: simStagewise, cfg: cfg}
	}
	res, err := r.run(jobs)
	if err != nil {
		return err
	}
	p, err := compressionParams(f.Config)
	if err != nil {
		return err
	}
	var chats []recChat
	for i, in := range inputs {
		cfg := jobs[i].cfg
		win := cfg.ContextWindow
		if win == 0 {
			win = p.DefaultContextWindow
		}
		th := p.Threshold
		if cfg.Threshold != 0 {
			th = cfg.Threshold
		}
		chats = append(chats, compareRecorded(in, in.messagesFor(simStagewise), res[i].tl, win, math.Min(th*float64(win), p.HardCap)))
	}
	if f.JSON {
		return writeIndentedJSON(f.IO.Out, struct {
			Chats []recChat `json:"chats"`
		}{chats})
	}
	w := f.IO.Out
	matches, recorded := 0, 0
	for i, c := range chats {
		if i > 0 {
			fmt.Fprintln(w)
		}
		printRecorded(w, inputs[i], c)
		matches += len(c.Matches)
		recorded += c.Recorded
	}
	noun := "chats"
	if len(chats) == 1 {
		noun = "chat"
	}
	fmt.Fprintf(w, "\n%d %s: the offline walk explains %d of %d recorded boundaries\n", len(chats), noun, matches, recorded)
	return nil
}

// compareRecorded pairs the simulated boundaries with the recorded ones
// (messages carrying a stored briefing) by message index.
func compareRecorded(in *simInput, msgs []strategy.Message, tl *strategy.Timeline, window int, trigger float64) recChat {
	c := recChat{
		Chat: in.h.Name, Title: in.h.Title, Model: in.h.Model, ContextWindow: window, TriggerTokens: trigger,
		Messages: len(msgs), Steps: len(tl.Steps),
		Matches: []recPoint{}, Misses: []recPoint{}, Extra: []recPoint{},
	}
	if in.h.HasUsedTokens {
		u := in.h.UsedTokens
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
	point := func(b int) recPoint {
		p := recPoint{Message: b, ID: msgs[b].ID, Role: msgs[b].Role, Nearest: -1}
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

func printRecorded(w io.Writer, in *simInput, c recChat) {
	fmt.Fprintf(w, "%s\n", simHeading(in))
	model := c.Model
	if model == "" {
		model = "unknown model"
	}
	fmt.Fprintf(w, "%s, context window %s, trigger above %s tokens; %d messages, %d steps\n",
		model, fmtInt(float64(c.ContextWindow)), fmtInt(c.TriggerTokens), c.Messages, c.Steps)
	fmt.Fprintf(w, "recorded %d, simulated %d: %d match, %d miss, %d extra\n",
		c.Recorded, c.Simulated, len(c.Matches), len(c.Misses), len(c.Extra))
	if len(c.Matches)+len(c.Misses)+len(c.Extra) > 0 {
		var table strings.Builder
		tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\tmessage\tid\trole\tstep\tcontext\tafter\tsimulated\trecorded\tnote")
		row := func(kind string, p recPoint) {
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
