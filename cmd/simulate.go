package cmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/shard"
	"github.com/compactlab/compact/internal/simulate"
	"github.com/compactlab/compact/internal/strategy"
)

func init() { register(newCmdSimulate) }

type simulateOptions struct {
	f *Factory

	DB      string
	Channel string
	Chats   []string
	JSONL   string
	Leaf    string
	// Files are the history files given as arguments; Format how to read
	// them and --jsonl's (auto: sniffed).
	Files  []string
	Format string

	Strategy        string
	Compare         string
	Sweep           string
	Summarizer      string
	Tokenizer       string
	ContextWindow   int
	SystemOverhead  int
	PriceModel      string
	AgainstRecorded bool
	Jobs            int
	GOOS            string
	// Table is the results table (cmd/tableflags.go).
	Table tableFlag

	changed func(name string) bool
	// Shard and sample (cmd/shardflags.go).
	Shard shardFlags
}

func newCmdSimulate(f *Factory) *cobra.Command {
	opts := &simulateOptions{f: f, GOOS: runtime.GOOS}
	c := &cobra.Command{
		Use:   "simulate [--db PATH | --channel C] [--chat ID]... | FILE... [--format F] [--leaf ID]",
		Short: "Run whole histories through compression strategies offline, compare them, check the walk against the real boundaries",
		Long: "Walks a history step by step (every assistant message is a step): at each\n" +
			"step it estimates the context the model would be sent (system overhead plus\n" +
			"the strategy's view), applies the strategy's trigger and, when it fires,\n" +
			"compacts as the strategy does, with the guardrails every strategy gets (a\n" +
			"compaction that does not shrink the context is undone; consecutive\n" +
			"summarizer calls are capped).\n\n" +
			"Input: chats of a stagewise database (--db, or the --channel's database;\n" +
			"every chat, or the --chat ids), read as extract reads them, or history\n" +
			"files (FILE..., or --jsonl FILE): a Claude Code session, a Codex rollout,\n" +
			"a SWE-agent trajectory, OpenTelemetry traces (OTLP JSON: the first\n" +
			"conversation; without message content, its token side only: when each\n" +
			"strategy would first compact, the recorded cost), an OpenCode session (an\n" +
			"export, a storage session file, or opencode.db: the session updated\n" +
			"last), a Gemini CLI chat (session-*.json or .jsonl) or a generic JSONL\n" +
			"history, told apart by their content (or --format). A tree is\n" +
			"simulated along the branch to the newest leaf, or to --leaf; an agent's\n" +
			"session along its main thread, with the agent's live usage of each step\n" +
			"beside the simulated context.\n\n" +
			"Output: per chat a timeline table and a chart of the context over the steps;\n" +
			"with --compare one table across strategies over all chats; with --sweep that\n" +
			"table per value of a knob; with --against-recorded the simulated stagewise\n" +
			"boundaries beside the ones the app stored, or, on agents' sessions, where\n" +
			"each strategy (every one, or --strategy or --compare) would have compacted\n" +
			"beside where the agent did. Each compaction is scored offline\n" +
			"as compact eval scores a briefing: probes mined from the messages it\n" +
			"replaced (coverage), and what the agent used after it, up to the next\n" +
			"compaction, that only those messages held (grounded: the mean over the\n" +
			"compactions that have such probes, n/a when none has), answered by its\n" +
			"summary or not (what a sliding window drops is lost); a second table, or\n" +
			"a line per chat, adds them up, and --json gives each summary's text and\n" +
			"lost probes. When no trigger fires, a hint on stderr says how much of\n" +
			"the window the chats use and which --context-window makes them compact.\n\n" +
			"Cost: a third table prices each strategy's run at a model's prices (each\n" +
			"history's model from the model table, or --price-model) with the provider's\n" +
			"prompt cache: the context read from the cache or written to it, the view\n" +
			"written again after each compaction (cache $), the summarizer's calls\n" +
			"(summaries $, at --summarizer model:ID's prices if given), the total, and\n" +
			"the total with no compaction. On an agent's session the system overhead is\n" +
			"by default what the agent sent at its first step beyond the history.\n\n" +
			strategyHelp() + "\n\n" +
			wrapList("Knobs of --sweep: ", simulate.KnobNames()),
		// On the shipped sample the chats use under a tenth of their
		// models' windows: the examples give a window that makes them
		// compact (TestSimulateReadmeExamples runs them).
		Example: "  compact simulate --db examples/stagewise/instances.sqlite --context-window 16000\n" +
			"  compact simulate --db examples/stagewise/instances.sqlite --compare stagewise,onyx,summary-buffer --context-window 6000\n" +
			"  compact simulate --db examples/stagewise/instances.sqlite --sweep context_window=4000:16000:4000\n" +
			"  compact simulate --db examples/stagewise/instances.sqlite --against-recorded --context-window 10000\n" +
			"  compact simulate --jsonl examples/histories/branching.jsonl --strategy onyx --context-window 680\n" +
			"  compact simulate ~/.claude/projects/-home-me-shop/SESSION.jsonl --against-recorded\n" +
			"  compact simulate --channel release --chat 01047173-5fee-4fd1-841b-f445a3f0c50e --strategy summary-buffer",
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			opts.changed = c.Flags().Changed
			if err := channelFromConfig(c, f, &opts.Channel); err != nil {
				return err
			}
			if err := opts.Shard.resolve(c, f); err != nil {
				return err
			}
			return runSimulate(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.DB, "db", "", "read the stagewise database at `PATH` (default: the channel's path for this OS)")
	addChannelFlag(c, &opts.Channel, "release channel whose database to read: "+strings.Join(extract.ChannelNames, ", "))
	fl.StringArrayVar(&opts.Chats, "chat", nil, "simulate only the chat with this `ID` (repeatable; default every chat)")
	fl.StringVar(&opts.JSONL, "jsonl", "", "read the history in `FILE` instead of a database (- for stdin), as a FILE argument is read")
	fl.StringVar(&opts.Format, "format", "auto", "read FILEs as `FORMAT`: "+strings.Join(simulate.Formats, ", ")+" (auto: sniffed)")
	fl.StringVar(&opts.Leaf, "leaf", "", "with a generic JSONL history: simulate the branch ending at the message with this `ID`")
	fl.StringVar(&opts.Strategy, "strategy", strategy.NameStagewise, "simulate the strategy `NAME` (Strategies, above)")
	fl.StringVar(&opts.Compare, "compare", "", "compare the strategies `NAME,NAME,...` over all chosen chats")
	fl.StringVar(&opts.Sweep, "sweep", "", "the comparison table per value of a knob: `KNOB=FROM:TO:STEP` or KNOB=VALUE (knobs: see above)")
	fl.StringVar(&opts.Summarizer, "summarizer", "builtin", "summaries by `WHOM`: builtin (offline), recorded (the stored briefings), model:ID or cascade")
	fl.StringVar(&opts.Tokenizer, "tokenizer", "", "count tokens with the `TOKENIZER` "+strings.Join(strategy.Tokenizers, " or ")+" instead of each strategy's estimator")
	fl.IntVar(&opts.ContextWindow, "context-window", 0, "the context window in `TOKENS` (default: the chat's model's, for the profile, else the strategy's default)")
	fl.IntVar(&opts.SystemOverhead, "system-overhead", 0, "`TOKENS` of system prompt and tools added to every step (default: an agent's first step beyond its history, else 0)")
	fl.StringVar(&opts.PriceModel, "price-model", "", "price the runs at the prices of `MODEL` of the model table (default: each history's model, else "+simulate.DefaultPriceModel+")")
	fl.BoolVar(&opts.AgainstRecorded, "against-recorded", false, "put the simulated boundaries beside the ones the app stored, or an agent's session recorded")
	addJobsFlag(c, &opts.Jobs, 0, "simulations run in parallel (default: CPUs)")
	addTableFlag(c, &opts.Table, "a row per history and strategy, and per compaction,")
	addShardFlags(c, &opts.Shard, "histories")

	completeValues(c, "strategy", strategy.Names()...)
	completeValues(c, "tokenizer", strategy.Tokenizers...)
	completeValues(c, "format", simulate.Formats...)
	_ = c.RegisterFlagCompletionFunc("price-model", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var ids []string
		if st, err := completionConfig(f); err == nil {
			if ms, err := cascade.LoadModels(st); err == nil {
				ids = ms.IDs()
			}
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.RegisterFlagCompletionFunc("compare", completeStrategyList)
	_ = c.RegisterFlagCompletionFunc("summarizer", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return summarizerValues(f), cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.RegisterFlagCompletionFunc("sweep", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if strings.Contains(toComplete, "=") {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, k := range simulate.KnobNames() {
			out = append(out, k+"=")
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
	return c
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

	files := slices.Clone(opts.Files)
	if opts.JSONL != "" {
		files = append([]string{opts.JSONL}, files...)
	}
	jsonl := len(files) > 0
	req := simulate.Request{
		Files: files, Database: opts.DB != "" || changed("channel") || len(opts.Chats) > 0,
		Format: opts.Format, FormatSet: changed("format"), Leaf: opts.Leaf,
		Strategy: opts.Strategy, Compare: opts.Compare, Sweep: opts.Sweep, AgainstRecorded: opts.AgainstRecorded,
		Jobs: opts.Jobs, ContextWindow: opts.ContextWindow, SystemOverhead: opts.SystemOverhead, SystemOverheadSet: changed("system-overhead"),
		Tokenizer: opts.Tokenizer, Summarizer: opts.Summarizer, PriceModel: opts.PriceModel,
	}
	if err := req.Check(); err != nil {
		return usageErr("%v", err)
	}
	ms, err := cascade.LoadModels(f.Config)
	if err != nil {
		return usageErr("config: %v", err)
	}
	so, err := req.Options(ms)
	if err != nil {
		return usageErr("%v", err)
	}
	if so.Base, err = simBaseConfig(f, opts); err != nil {
		return err
	}
	if slices.Contains(so.Strategies, strategy.NameStagewise) {
		if so.Params, err = compressionParams(f.Config); err != nil {
			return err
		}
		so.Stagewise = stagewiseDefaults(f.Config, so.Base.Agent, so.Params)
	}
	so.Summarizer, so.SummarizerName, err = simulate.NewSummarizer(opts.Summarizer, func() (*cascade.Cascade, error) {
		c, err := cascade.Load(f.Config, f.Getenv)
		if err == nil {
			wireBuiltin(c, f.Config.String("profile"))
		}
		return c, err
	})
	if err != nil {
		return usageErr("%v", err)
	}
	if cs, ok := so.Summarizer.(*simulate.CascadeSummarizer); ok {
		defer func() {
			if !f.IO.Quiet {
				calls, cached, cost := cs.Stats()
				fmt.Fprintf(f.IO.ErrOut, "compact simulate: summarizer %s: %s, %d answered from the cache, %s\n", so.SummarizerName, plural(calls, "request"), cached, usd(cost))
			}
		}()
	}

	// The profile's context windows.
	windows, err := windowTable(f.Config, f.Config.String("profile"))
	if err != nil {
		return err
	}
	// The histories: with a shard and no sample, only the shard's are
	// read; a sample reads them all for its strata.
	var inputs []*simulate.Input
	var keys, warnings []string
	var sel *shard.Selection
	if jsonl {
		var keep []bool
		fileKeys := shard.FileKeys(files)
		if keep, sel = opts.Shard.keys(f, fileKeys, simulate.UnitHistory); sel != nil && sel.Selected == 0 {
			return emptySelection(f, sel)
		}
		files, fileKeys = kept(files, keep), kept(fileKeys, keep)
		// A read of stdin ends on Ctrl-C or SIGTERM even while nothing
		// comes (a terminal, a pipe whose writer waits): the signals are
		// caught from here on, so nothing else would end it.
		stdin := interruptible(ctx, f.IO.In)
		for i, p := range files {
			in, ws, rerr := simulate.ReadFile(p, opts.Format, stdin, opts.Leaf, windows)
			warnings = append(warnings, ws...)
			if rerr != nil {
				err = rerr
				break
			}
			inputs, keys = append(inputs, in), append(keys, fileKeys[i])
		}
	} else {
		var db string
		if db, err = simDatabase(f, opts); err != nil {
			return err
		}
		chats := opts.Chats
		if opts.Shard.spec.Active() && !opts.Shard.sampled() {
			if len(chats) == 0 {
				if chats, err = simulate.ChatIDs(ctx, db); err != nil {
					return simErr(err)
				}
			}
			var keep []bool
			if keep, sel = opts.Shard.keys(f, chats, simulate.UnitHistory); sel.Selected == 0 {
				return emptySelection(f, sel)
			}
			chats = kept(chats, keep)
		}
		inputs, warnings, err = simulate.ReadDB(ctx, db, chats, windows)
		keys = mapSlice(inputs, func(in *simulate.Input) string { return in.History.Name })
	}
	for _, w := range warnings {
		fmt.Fprintf(f.IO.ErrOut, "compact simulate: warning: %s\n", w)
	}
	if err != nil && ctx.Err() != nil {
		return interrupted("interrupted")
	}
	if err != nil {
		return simErr(err)
	}
	if opts.Shard.sampled() {
		units := make([]shard.Unit, len(inputs))
		for i, in := range inputs {
			units[i] = simulate.UnitOf(in, keys[i])
		}
		var keep []bool
		if keep, sel = opts.Shard.pick(f, units, simulate.UnitHistory); sel.Selected == 0 {
			return emptySelection(f, sel)
		}
		inputs = kept(inputs, keep)
	}
	so.Selection = sel
	if all, _ := simulate.TokenSideInputs(inputs); all && opts.Compare == "" && !changed("strategy") {
		so.Strategies = strategy.Names() // when would each have compacted?
	}
	if opts.AgainstRecorded && opts.Compare == "" && !changed("strategy") && simulate.AgentSessions(inputs) {
		// Where would each strategy have compacted?
		so.Strategies = strategy.Names()
	}

	rep, err := simulate.Run(ctx, inputs, so)
	if err != nil {
		return simErr(err)
	}
	if f.JSON {
		err = rep.WriteJSON(f.IO.Out)
	} else {
		err = rep.WriteText(f.IO.TextOut())
	}
	if hint := rep.Hint(); hint != "" && err == nil && !f.IO.Quiet {
		fmt.Fprintf(f.IO.ErrOut, "compact simulate: hint: %s\n", hint)
	}
	if err == nil {
		err = writeSimulateTable(opts, rep)
	}
	return err
}
