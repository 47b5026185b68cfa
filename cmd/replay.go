package cmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/replay"
	"github.com/compactlab/compact/internal/shard"
)

func init() { register(newCmdReplay) }

type replayOptions struct {
	f        *Factory
	Paths    []string
	Channel  string
	Model    string
	Cascade  bool
	Fallback string
	BaseURL  string
	APIModel string
	Timeout  time.Duration
	Pack     string
	Locale   string
	Jobs     int
	Force    bool
	DryRun   bool
	Run      string
	NoCache  bool
	// Repeat is how many times each bundle is replayed (--repeat).
	Repeat int
	// Batch sends through the providers' batch APIs (cmd/batch.go).
	Batch bool
	// Table is the results table (cmd/tableflags.go).
	Table tableFlag
	// Profile is the upstream release whose cascade is used (--profile).
	Profile string
	// Stop is the interrupt context (tests replace it).
	Stop context.Context
	// Generator replaces the configured cascade (tests).
	Generator replay.Generator
	// Shard and sample (cmd/shardflags.go).
	Shard shardFlags
}

func newCmdReplay(f *Factory) *cobra.Command {
	opts := &replayOptions{f: f}
	c := &cobra.Command{
		Use:   "replay [PATH]...",
		Short: "Send bundles to a model or the cascade and record the briefings beside them",
		Long: "Sends every bundle under PATH (a bundle, a chat directory or a channel\n" +
			"directory; default: what extract wrote for --channel) to a model and records\n" +
			"the answer beside it, in <bundle>/replays/<run>/output.md and replay.json,\n" +
			"never over the upstream files. The request is the bundle's own\n" +
			"system-prompt.md and user-message.md, byte for byte, or with --pack both\n" +
			"rebuilt from compact-history.xml with that pack.\n" +
			"\n" +
			"The model is one of:\n" +
			"  --model ID                 a model of the table (builtin: offline, no key)\n" +
			"  --base-url URL --api-model NAME\n" +
			"                             an OpenAI-compatible server (vLLM, Ollama,\n" +
			"                             llama.cpp, LM Studio); no key needed, or set\n" +
			"                             COMPACT_API_KEY; recorded as openai-compatible,\n" +
			"                             at no cost, 5 minutes per bundle\n" +
			"  --model NAME --api-model MODEL\n" +
			"                             a server configured as providers.NAME\n" +
			"  the cascade (default)      gemini-3.1-flash-lite, gpt-5.4-nano,\n" +
			"                             claude-haiku-4.5, each with its key:\n" +
			"                             GOOGLE_API_KEY or GEMINI_API_KEY, OPENAI_API_KEY,\n" +
			"                             ANTHROPIC_API_KEY; models without one are left out;\n" +
			"                             with --profile head (v1.29.0): default\n" +
			"                             (deepseek-v4-pro), deepseek-v4-flash,\n" +
			"                             gpt-5.6-luna, gemini-3.1-flash-lite,\n" +
			"                             claude-haiku-4.5 (DEEPSEEK_API_KEY too), and a\n" +
			"                             request still running 2 s after its timeout\n" +
			"                             stops the cascade\n" +
			"\n" +
			"Bundles that already have a result for the same run, models and prompt are\n" +
			"skipped unless --force. Answers are cached by a hash of what was sent\n" +
			"(compact cache): asking again, even with --force or another --run, costs\n" +
			"nothing unless --no-cache. Ctrl-C stops new requests, lets the ones in flight\n" +
			"finish and exits 130: run again to finish the rest.\n" +
			"\n" +
			"--repeat K replays each bundle K times, as the runs RUN, RUN@2, …, RUN@K,\n" +
			"each a request of its own (cached apart): how much the model varies.",
		Example: "  # offline, deterministic, no key\n" +
			"  compact replay --model builtin\n" +
			"  # a local OpenAI-compatible server\n" +
			"  compact replay --base-url http://127.0.0.1:8080/v1 --api-model qwen2.5-coder:7b\n" +
			"  # the bundles of compact extract --channel nightly, through the cascade\n" +
			"  compact replay --channel nightly\n" +
			"  # what would be sent, sending nothing\n" +
			"  compact replay --dry-run",
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if err := channelFromConfig(c, f, &opts.Channel); err != nil {
				return err
			}
			if len(args) > 0 && c.Flags().Changed("channel") {
				return usageErr("--channel names the default directory (%s); give it or PATH arguments, not both", channelDir(f, opts.Channel))
			}
			if !c.Flags().Changed("locale") {
				opts.Locale = f.Config.String("locale")
			}
			if err := opts.Shard.resolve(c, f); err != nil {
				return err
			}
			configDefault(c, f, "profile", "profile", &opts.Profile)
			return runReplay(c.Context(), opts)
		},
	}
	fl := c.Flags()
	addChannelFlag(c, &opts.Channel, "replay the bundles extract wrote for this channel, when no PATH is given")
	fl.Var(typedString{&opts.Model, "ID"}, "model", "replay with this model of the table (builtin needs no key), or the server configured as providers.NAME")
	fl.BoolVar(&opts.Cascade, "cascade", false, "replay through the cascade (the default): the profile's, e.g. gemini-3.1-flash-lite, gpt-5.4-nano, claude-haiku-4.5")
	addProfileFlag(c, &opts.Profile, "the cascade, abort grace and built-in model's rules of `RELEASE`: "+profileChoices)
	fl.Var(typedString{&opts.Fallback, "ID"}, "fallback-model", "with the cascade: the chat's own model, tried last when not already in the list")
	fl.Var(typedString{&opts.BaseURL, "URL"}, "base-url", "replay on this OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1 (key, if any: COMPACT_API_KEY)")
	fl.Var(typedString{&opts.APIModel, "NAME"}, "api-model", "the model the server is asked for, e.g. qwen2.5-coder:7b (with --base-url, or --model naming a server)")
	fl.DurationVar(&opts.Timeout, "timeout", 0, "allow `DURATION` for each bundle and model, retries included (default 30s, 5m on a server)")
	fl.Var(typedString{&opts.Pack, "NAME"}, "pack", "rebuild the prompts with this pack (a built-in name or a directory) instead of the bundle's own files")
	fl.Var(typedString{&opts.Locale, "LOCALE"}, "locale", "locale of the hint numbers when rebuilding with --pack")
	addJobsFlag(c, &opts.Jobs, 4, "bundles replayed in parallel")
	fl.BoolVar(&opts.Force, "force", false, "replay bundles that already have a result for this run")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print what would be sent and send nothing")
	fl.BoolVar(&opts.NoCache, "no-cache", false, "neither read nor write the response cache (see compact cache)")
	fl.BoolVar(&opts.Batch, "batch", false, "submit through the providers' batch APIs (half price, within 24 h); then compact batch collect")
	fl.Var(typedString{&opts.Run, "NAME"}, "run", "name of the result directory under replays/ (default: the model id, or cascade)")
	fl.IntVar(&opts.Repeat, "repeat", 1, "replay each bundle `K` times (1 to 50), as the runs RUN, RUN@2, …, RUN@K")
	c.MarkFlagsMutuallyExclusive("model", "cascade", "base-url")
	c.MarkFlagsMutuallyExclusive("fallback-model", "model")
	c.MarkFlagsMutuallyExclusive("fallback-model", "base-url")
	c.MarkFlagsMutuallyExclusive("batch", "dry-run")
	addTableFlag(c, &opts.Table, "a row per bundle and run (model, tokens, cost, latency, status, cache hit)")
	c.MarkFlagsMutuallyExclusive("table", "batch")
	c.MarkFlagsMutuallyExclusive("table", "dry-run")
	addShardFlags(c, &opts.Shard, "chats")

	models := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return replayModelNames(f), cobra.ShellCompDirectiveNoFileComp
	}
	_ = c.RegisterFlagCompletionFunc("model", models)
	_ = c.RegisterFlagCompletionFunc("fallback-model", models)
	_ = c.RegisterFlagCompletionFunc("run", func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return replayRunNames(f, c), cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.RegisterFlagCompletionFunc("pack", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return prompt.BuiltinNames(), cobra.ShellCompDirectiveFilterDirs
	})
	completeValues(c, "base-url", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8000/v1", "http://127.0.0.1:11434/v1", "http://127.0.0.1:1234/v1")
	completeValues(c, "api-model")
	completeValues(c, "locale")
	completeValues(c, "timeout", "30s", "2m", "5m", "15m")
	return c
}

// modelPlan is the part of a plan every command's model shares: the
// configuration, the environment and the builtin model's writer, for the
// configuration's profile.
func modelPlan(f *Factory) replay.PlanOptions {
	return modelPlanFor(f, f.Config.String("profile"))
}

// modelPlanFor is modelPlan for profile: its cascade and abort grace, and
// its briefing rules for the builtin model.
func modelPlanFor(f *Factory, profile string) replay.PlanOptions {
	return replay.PlanOptions{Config: f.Config, Getenv: f.Getenv, Profile: profile,
		Wire: func(c *cascade.Cascade) { wireBuiltin(c, profile) }}
}

// planReplay builds the cascade and picks the models from the flags.
func planReplay(f *Factory, opts *replayOptions) (*replay.Plan, error) {
	if _, err := resolveProfile("--profile", opts.Profile); err != nil {
		return nil, err
	}
	po := modelPlanFor(f, opts.Profile)
	po.Generator, po.Fallback, po.Timeout = opts.Generator, opts.Fallback, opts.Timeout
	po.Model, po.BaseURL, po.APIModel = opts.Model, opts.BaseURL, opts.APIModel
	p, err := replay.NewPlan(po)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return p, nil
}

// checkKeys leaves out of the plan the models whose provider has no key,
// saying so once, and fails when none is left.
func checkKeys(f *Factory, p *replay.Plan) error {
	missing, err := p.CheckKeys()
	if err != nil {
		req := "the requests without sending them"
		if p.Single {
			req = "the request without sending it"
		}
		return usageErr("%v; or replay offline with --model builtin, or print %s with --dry-run", err, req)
	}
	warnKeyless(f, "replay", missing)
	return nil
}

// dropKeyless splits order into the models whose provider has a key and
// the others. When some but not all have one, it says once on stderr which
// are left out.
func dropKeyless(f *Factory, command string, cs *cascade.Cascade, order []string) (ready []string, missing []cascade.MissingKey) {
	ready, missing = cs.SplitByKey(order)
	if len(ready) > 0 {
		warnKeyless(f, command, missing)
	}
	return ready, missing
}

// warnKeyless says on stderr which models are left out for want of a key.
func warnKeyless(f *Factory, command string, missing []cascade.MissingKey) {
	if len(missing) > 0 {
		fmt.Fprintf(f.IO.ErrOut, "compact %s: no API key for %s; the cascade goes on without them\n", command, cascade.ModelsAndVars(missing))
	}
}

// replayBundles finds the bundles under the paths, or under the channel's
// directory when there are none: those of the sample and the shard, if
// any (sel, then; none is no error).
func replayBundles(f *Factory, opts *replayOptions) (bundles []string, sel *shard.Selection, err error) {
	paths, channel := opts.Paths, ""
	if len(paths) == 0 {
		paths, channel = []string{channelDir(f, opts.Channel)}, opts.Channel
	}
	for _, p := range paths {
		if err := checkDirArg(p, bundlesWanted); err != nil {
			return nil, nil, err
		}
		if _, err := os.Stat(p); err != nil {
			return nil, nil, noBundles(p, channel)
		}
	}
	bundles, err = replayFinder.Find(paths)
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	if len(bundles) == 0 {
		if len(paths) == 1 {
			return nil, nil, noBundles(paths[0], channel)
		}
		return nil, nil, usageErr("no bundles under %s; run `compact extract` first, or pass a bundle, chat or channel directory", strings.Join(paths, ", "))
	}
	bundles, sel = opts.Shard.bundles(f, bundles)
	return bundles, sel, checkBundles(bundles)
}

func runReplay(ctx context.Context, opts *replayOptions) error {
	f := opts.f
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Jobs < 1 {
		return usageErr("-j: want at least 1, got %d", opts.Jobs)
	}
	plan, err := planReplay(f, opts)
	if err != nil {
		return err
	}
	run := opts.Run
	if run == "" {
		run = plan.Run
	}
	if err := replay.ValidRunName(run); err != nil {
		return usageErr("--run: %v", err)
	}
	if err := replay.CheckRepeat(opts.Repeat, run); err != nil {
		return usageErr("%v", err)
	}
	if opts.Batch && opts.Repeat > 1 {
		return usageErr("--batch does not take --repeat; submit each repeat as its own run (--run %s, …), or replay without --batch", replay.RepeatRun(run, 2))
	}
	var pack *prompt.Pack
	if opts.Pack != "" {
		p, err := resolvePack("--pack", opts.Pack)
		if err != nil {
			return err
		}
		pack = p
	}
	locale := opts.Locale
	if locale == "" {
		locale = prompt.LocaleFromEnv(f.Getenv)
	}
	if opts.Batch {
		if opts.Shard.active() {
			return usageErr("--batch submits the whole directory as one batch run: it takes no --shard or --sample; replay a shard without --batch")
		}
		// The bundles are found as they are submitted: a channel of
		// many is never held as a list.
		return runReplayBatch(ctx, opts, plan, run, pack, locale)
	}
	bundles, sel, err := replayBundles(f, opts)
	if err != nil {
		return err
	}
	if len(bundles) == 0 {
		return emptySelection(f, sel)
	}

	runs := replay.RepeatRuns(run, opts.Repeat)
	if opts.DryRun {
		return replayDryRun(f, plan, bundles, runs, pack, opts.Pack, locale)
	}
	// Before anything is sent: a model without its key is left out, and
	// a run that could send nothing stops here, writing nothing.
	if err := checkKeys(f, plan); err != nil {
		return err
	}
	noteDeterministic(f, plan, runs)
	if err := useCache(f, plan.Cascade, opts.NoCache); err != nil {
		return usageErr("replay: %v", err)
	}
	stop := opts.Stop
	if stop == nil {
		var cancel context.CancelFunc
		stop, cancel = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer cancel()
	}
	prog := newProgress(f.IO)
	items, runErr := replay.Run(stop, plan.Gen, replay.Options{
		Bundles: bundles, Models: plan.Order, Run: run, Repeat: opts.Repeat, Pack: pack, PackName: opts.Pack,
		Locale: locale, Jobs: opts.Jobs, Force: opts.Force, ToolVersion: Version,
	}, replay.Hooks{Leftovers: func(n int, err error) {
		if err != nil {
			fmt.Fprintf(f.IO.ErrOut, "compact replay: warning: leftovers of an interrupted run: %v\n", err)
		}
		if n > 0 {
			fmt.Fprintf(f.IO.ErrOut, "compact replay: removed %s of an interrupted run\n", plural(n, "leftover"))
		}
	}, Progress: func(p replay.Progress) {
		prog.show("replay: %d/%d done, %d failed, %d running, %s, %s",
			p.Done, p.Total, p.Failed, p.Running, plural(int(p.Usage.InputTokens+p.Usage.OutputTokens), "token"), usd(p.CostUSD))
	}})
	prog.clear()
	tot := replay.Tally(items)
	if err := printReplayResult(f, runs, plan.Order, items, tot, sel); err != nil {
		return err
	}
	for _, it := range items {
		if it.Status == replay.StatusError || it.Status == replay.StatusFailed {
			fmt.Fprintf(f.IO.ErrOut, "compact replay: %s: %s\n", it.Bundle, it.Error)
		}
	}
	if runErr != nil {
		return interrupted("interrupted after %d of %s; run again to finish the rest", len(items), replay.Count(len(bundles), len(runs)))
	}
	if err := writeReplayTable(opts, run, items); err != nil {
		return err
	}
	if tot.OK+tot.Skipped == 0 {
		return fmt.Errorf("no bundle got an answer")
	}
	// Some bundles failed: the others' answers are written, and the exit
	// status says the run is not complete (as diff's does for bundles it
	// could not compare). Running the same command again retries only
	// the failed ones.
	if bad := tot.Failed + tot.Errors; bad > 0 {
		return fmt.Errorf("%d of %s got no answer (named above); run the same command again to retry them", bad, replay.Count(tot.Bundles, len(runs)))
	}
	return nil
}
