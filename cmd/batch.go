package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/batch"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/replay"
)

func init() { register(newCmdBatch) }

// batchOptions are the flags of compact batch status, collect and cancel.
type batchOptions struct {
	f            *Factory
	Paths        []string
	Channel      string
	Run          string
	Wait         bool
	PollInterval time.Duration
	NoCache      bool
	// Stop is the interrupt context (tests replace it).
	Stop context.Context
}

func newCmdBatch(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "batch",
		Short: "Follow, collect or cancel the batch runs of replay --batch and eval --judge --batch",
		Long: "compact replay --batch sends the bundles through the providers' batch APIs\n" +
			"(half price, answered within 24 hours): each model of the cascade is its own\n" +
			"batch. compact eval --judge MODEL --batch does the same with the judge's\n" +
			"calls (run judge-<run>): the answers first, then the grades built from them.\n" +
			"These commands follow such a run, from any process or machine that has the\n" +
			"bundles, the configuration and the keys: status polls the batches, collect\n" +
			"writes the answers where the interactive command writes them and sends the\n" +
			"failures to the next model's batch (and a judge's grades once its answers\n" +
			"are in), cancel stops the run. The run's state is in\n" +
			"<dir>/.batches/<run>/, beside the bundles.",
		Example: "  compact replay --batch --run nightly\n" +
			"  compact batch status --run nightly\n" +
			"  compact batch collect --run nightly --wait\n" +
			"  compact eval --judge gpt-5.4-nano --batch\n" +
			"  compact batch collect --run judge-gpt-5.4-nano --wait",
	}
	c.AddCommand(newCmdBatchSub(f, "status", "Poll a batch run's batches and print where they are",
		"Polls the run's batches that are not collected yet and prints, per model\n"+
			"(tier) and provider batch, the provider's status and counts, then the\n"+
			"bundles' tally and the cost so far. It changes nothing."),
		newCmdBatchSub(f, "collect", "Write the answers of a batch run's finished batches",
			"Polls the run's batches; for each one that has ended, writes every accepted\n"+
				"answer to <bundle>/replays/<run>/ (output.md and replay.json, with\n"+
				"batch: {provider, id}) and sends the errors, expired or cancelled requests\n"+
				"and answers too short to the next model's batch, or records them as failed\n"+
				"at the last. For a judge run, the answers are kept until a bundle's are all\n"+
				"in, then its grade request is submitted; a collected grade writes the\n"+
				"bundle's <bundle>/judge/<run>.json. Safe to run again, and from another\n"+
				"machine: a result already written is not written twice. --wait polls until\n"+
				"every request is answered."),
		newCmdBatchSub(f, "cancel", "Cancel a batch run",
			"Asks the providers to cancel the run's batches that have not ended, and\n"+
				"stops the run: nothing more is submitted. Run compact batch collect after\n"+
				"it to write what was answered before the cancel took effect."))
	return c
}

func newCmdBatchSub(f *Factory, name, short, long string) *cobra.Command {
	opts := &batchOptions{f: f}
	c := &cobra.Command{
		Use:   name + " [PATH]...",
		Short: short,
		Long: long + "\n\nThe run is found under PATH (the directory given to replay --batch or eval\n" +
			"--batch) or the channel's directory; --run names it (not needed when there\n" +
			"is only one).",
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
			return runBatch(c.Context(), name, opts)
		},
	}
	fl := c.Flags()
	addChannelFlag(c, &opts.Channel, "the run of replay --batch for this channel, when no PATH is given")
	fl.Var(typedString{&opts.Run, "NAME"}, "run", "the batch run (the --run of replay --batch); default: the only one")
	if name == "collect" {
		fl.BoolVar(&opts.Wait, "wait", false, "poll until every bundle is done (Ctrl-C stops waiting)")
		fl.DurationVar(&opts.PollInterval, "poll-interval", 0, "with --wait, pause `DURATION` between polls (default batch.poll_interval, 30s)")
		fl.BoolVar(&opts.NoCache, "no-cache", false, "do not put the answers in the response cache (see compact cache)")
		completeValues(c, "poll-interval", "10s", "30s", "1m", "5m")
	}
	_ = c.RegisterFlagCompletionFunc("run", func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		channel, _ := c.Flags().GetString("channel")
		return batch.Runs(batchRoot(f, args, channel)), cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// batchRoot is the directory whose .batches/ holds the runs of the bundles
// under paths (or the channel's directory): the one path, or the
// directory the paths share.
func batchRoot(f *Factory, paths []string, channel string) string {
	switch len(paths) {
	case 0:
		return channelDir(f, channel)
	case 1:
		return filepath.Clean(paths[0])
	}
	abs := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			a = p
		}
		abs[i] = filepath.Join(a, "x") // commonDir takes each path's directory
	}
	if d := commonDir(abs); d != "" {
		return d
	}
	return "."
}

// batchSettings reads batch: of the configuration.
func batchSettings(f *Factory) (batch.Settings, error) {
	s, err := batch.LoadSettings(f.Config)
	if err != nil {
		return s, usageErr("%v", err)
	}
	return s, nil
}

// batchCascade is the cascade a run's batches are reached through.
func batchCascade(f *Factory, noCache bool) (*cascade.Cascade, error) {
	c, err := cascade.Load(f.Config, f.Getenv)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	wireBuiltin(c, f.Config.String("profile"))
	if err := useCache(f, c, noCache); err != nil {
		return nil, usageErr("%v", err)
	}
	return c, nil
}

func stopContext(ctx, stop context.Context) (context.Context, context.CancelFunc) {
	if stop != nil {
		return stop, func() {}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

func runBatch(ctx context.Context, verb string, opts *batchOptions) error {
	f := opts.f
	cmdName := "batch " + verb
	root := batchRoot(f, opts.Paths, opts.Channel)
	run := opts.Run
	if run != "" {
		if err := replay.ValidRunName(run); err != nil {
			return usageErr("--run: %v", err)
		}
	} else {
		runs := batch.Runs(root)
		switch len(runs) {
		case 0:
			return usageErr("no batch run under %s; start one with compact replay --batch (with the same PATH or --channel)", root)
		case 1:
			run = runs[0]
		default:
			return usageErr("%d batch runs under %s (%s); name one with --run", len(runs), root, strings.Join(runs, ", "))
		}
	}
	if err := checkTree(batch.Dir(root, run)); err != nil {
		return err
	}
	s, err := batchSettings(f)
	if err != nil {
		return err
	}
	if opts.PollInterval < 0 {
		return usageErr("--poll-interval: want a positive duration, got %v", opts.PollInterval)
	} else if opts.PollInterval > 0 {
		s.PollInterval = opts.PollInterval
	}
	cas, err := batchCascade(f, opts.NoCache)
	if err != nil {
		return err
	}
	stop, cancel := stopContext(ctx, opts.Stop)
	defer cancel()
	prog := newProgress(f.IO)
	var rep *batch.Report
	switch verb {
	case "status":
		rep, err = batch.Status(stop, cas, root, run, s)
	case "collect":
		rep, err = batch.Collect(stop, cas, root, run, batch.CollectOptions{Wait: opts.Wait, Settings: s, ToolVersion: Version,
			Progress: func(msg string) { prog.show("batch collect: %s", msg) }})
	case "cancel":
		rep, err = batch.Cancel(stop, cas, root, run, s, Version)
	}
	prog.clear()
	if rep != nil {
		if perr := printBatchReport(f, rep, verb); perr != nil {
			return perr
		}
	}
	if verb == "status" && err == nil {
		return nil // a report: the failed bundles are in the tally, collect names them
	}
	return batchExit(f, cmdName, rep, err)
}

// batchExit is the exit of a batch command: the error as the rest of
// compact has it (2 usage, 130 interrupted, 1 failed), or 1 when bundles
// got no answer, each named on stderr.
func batchExit(f *Factory, command string, rep *batch.Report, err error) error {
	if rep != nil {
		for _, p := range rep.Problems {
			fmt.Fprintf(f.IO.ErrOut, "compact %s: %s: %s\n", command, p.Bundle, p.Error)
		}
	}
	switch {
	case err == nil:
	case errors.Is(err, batch.ErrInterrupted):
		if rep != nil && rep.Bundles.Pending() > 0 {
			return interrupted("interrupted with %s still in batches; compact batch collect --run %s goes on", pendingWhat(rep), rep.Run)
		}
		return interrupted("interrupted; compact batch collect goes on")
	case errors.Is(err, batch.ErrNoRun), errors.Is(err, batch.ErrUnfinished), errors.Is(err, batch.ErrNoKey):
		return usageErr("%v", err)
	default:
		return err
	}
	if rep == nil {
		return nil
	}
	if bad := rep.Bundles.Failed + rep.Bundles.Errors; bad > 0 {
		if rep.Kind == batch.KindJudge {
			return fmt.Errorf("%d of %s could not be judged (named above); judge them again with compact eval --judge %s (with or without --batch)", bad, plural(rep.Bundles.Total, "bundle"), rep.Judge.Judge)
		}
		return fmt.Errorf("%d of %s got no answer (named above); replay them again with compact replay --run %s (with or without --batch)", bad, plural(rep.Bundles.Total, "bundle"), rep.Run)
	}
	return nil
}

// pendingWhat is what a run has still in batches: bundles (a replay's
// requests) or a judge's requests.
func pendingWhat(rep *batch.Report) string {
	if rep.Kind == batch.KindJudge {
		return plural(rep.Bundles.Pending(), "request")
	}
	return plural(rep.Bundles.Pending(), "bundle")
}

func printBatchReport(f *Factory, rep *batch.Report, verb string) error {
	if f.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	out := f.IO.TextOut()
	judge := rep.Kind == batch.KindJudge && rep.Judge != nil
	if judge {
		fmt.Fprintf(out, "judge batch run %s: %s, judge %s, records judge/%s.json\n", rep.Run, plural(rep.Bundles.Total, "bundle"), strings.Join(rep.Models, ", "), rep.Judge.Run)
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
			collected := "no"
			if b.Collected {
				collected = "yes"
			}
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", b.Tier+1, model, b.Provider, b.ID, dash(b.Status),
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
	if !f.IO.Quiet {
		switch {
		case len(rep.Submitted) > 0 && verb == "submit" && judge:
			fmt.Fprintf(f.IO.ErrOut, "compact eval: submitted %s; next: compact batch status --run %s, then compact batch collect --run %s, or this command again (state: %s)\n",
				plural(len(rep.Submitted), "batch"), rep.Run, rep.Run, rep.State)
		case len(rep.Submitted) > 0 && verb == "submit":
			fmt.Fprintf(f.IO.ErrOut, "compact replay: submitted %s; next: compact batch status --run %s, then compact batch collect --run %s (state: %s)\n",
				plural(len(rep.Submitted), "batch"), rep.Run, rep.Run, rep.State)
		case c.Pending() > 0 && verb == "eval":
			fmt.Fprintf(f.IO.ErrOut, "compact eval: %s not answered yet (%d in batches, %d to submit); run this command again later, or compact batch collect --run %s [--wait], to go on (state: %s)\n",
				plural(c.Pending(), "judge request"), c.Submitted, c.Queued, rep.Run, rep.State)
		case c.Pending() > 0 && verb != "cancel":
			fmt.Fprintf(f.IO.ErrOut, "compact batch %s: %s still in batches; run compact batch collect --run %s again later, or with --wait\n",
				verb, pendingWhat(rep), rep.Run)
		}
	}
	return nil
}

// runReplayBatch is replay --batch: the bundles go to the providers' batch
// APIs instead of one request each, found as they are submitted.
func runReplayBatch(ctx context.Context, opts *replayOptions, plan *replay.Plan, run string, pack *prompt.Pack, locale string) error {
	f := opts.f
	paths, err := batchBundles(f, opts)
	if err != nil {
		return err
	}
	if err := checkKeys(f, plan); err != nil {
		return err
	}
	if err := useCache(f, plan.Cascade, opts.NoCache); err != nil {
		return usageErr("replay: %v", err)
	}
	if plan.Cascade == nil {
		return usageErr("--batch needs the configured cascade")
	}
	s, err := batchSettings(f)
	if err != nil {
		return err
	}
	stop, cancel := stopContext(ctx, opts.Stop)
	defer cancel()
	prog := newProgress(f.IO)
	rep, err := batch.Submit(stop, plan.Cascade, batch.Options{Root: batchRoot(f, opts.Paths, opts.Channel), Run: run,
		Walk:   func(fn func(string) error) error { return walkBundles(paths, fn) },
		Models: plan.Order, Pack: pack, PackName: opts.Pack, Locale: locale, Force: opts.Force, ToolVersion: Version, Settings: s,
		Progress: func(msg string) { prog.show("replay --batch: %s", msg) }})
	prog.clear()
	if err != nil && rep == nil {
		switch {
		case errors.Is(err, batch.ErrUnfinished):
			return usageErr("%v", err)
		case errors.Is(err, batch.ErrBusy):
			return err
		}
		return usageErr("--batch: %v", err)
	}
	if perr := printBatchReport(f, rep, "submit"); perr != nil {
		return perr
	}
	if err != nil && !errors.Is(err, batch.ErrInterrupted) {
		return fmt.Errorf("%v; compact batch collect --run %s submits the rest", err, run)
	}
	return batchExit(f, "replay", rep, err)
}

// batchBundles checks replay --batch's paths as replayBundles does (each
// exists and holds a bundle, else the same errors) without listing them.
func batchBundles(f *Factory, opts *replayOptions) ([]string, error) {
	paths, channel := opts.Paths, ""
	if len(paths) == 0 {
		paths, channel = []string{channelDir(f, opts.Channel)}, opts.Channel
	}
	for _, p := range paths {
		if err := checkDirArg(p, bundlesWanted); err != nil {
			return nil, err
		}
		if _, err := os.Stat(p); err != nil {
			return nil, noBundles(p, channel)
		}
	}
	// Every bundle's files are checked (checkBundles) before anything is
	// submitted, one bundle at a time.
	found := false
	err := walkBundles(paths, func(b string) error {
		found = true
		return checkTree(b)
	})
	var ee *ExitError
	switch {
	case errors.As(err, &ee):
		return nil, err
	case err != nil:
		return nil, usageErr("%v", err)
	case found:
		return paths, nil
	case len(paths) == 1:
		return nil, noBundles(paths[0], channel)
	}
	return nil, usageErr("no bundles under %s; run `compact extract` first, or pass a bundle, chat or channel directory", strings.Join(paths, ", "))
}

// walkBundles calls fn with every bundle at or under paths, as
// replay.FindBundles finds them (replay and hidden directories are not
// searched; a bundle under two of the paths comes once), but one at a
// time, each directory's entries in name order: the list is never held.
func walkBundles(paths []string, fn func(bundle string) error) error {
	var seen map[string]bool
	if len(paths) > 1 {
		seen = map[string]bool{}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if !st.IsDir() {
			return fmt.Errorf("%s is not a directory (want a bundle, chat or channel directory)", p)
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			if name := d.Name(); path != p && (name == replay.DirReplays || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			if !replay.IsBundle(path) {
				return nil
			}
			if seen != nil {
				abs, err := filepath.Abs(path)
				if err != nil || seen[abs] {
					return filepath.SkipDir
				}
				seen[abs] = true
			}
			if err := fn(path); err != nil {
				return err
			}
			return filepath.SkipDir
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// runEvalJudgeBatch is eval --judge --batch: the judge's run through the
// provider's batch API moves on (submitted, or collected and the grades
// submitted). done: every bundle is settled, and results carry the judged
// scores of the records written (errs: the bundles without one).
func runEvalJudgeBatch(ctx context.Context, opts *evalOptions, judge *eval.JudgeOptions, cas *cascade.Cascade, results []*eval.BundleResult, runs []string) (bool, []eval.BundleError, error) {
	f := opts.f
	if cas == nil {
		return false, nil, usageErr("eval: --batch needs a model of the table (--judge ID)")
	}
	s, err := batchSettings(f)
	if err != nil {
		return false, nil, err
	}
	bundles := make([]string, len(results))
	for i, r := range results {
		bundles[i] = r.Bundle
	}
	if err := checkTree(batch.Dir(batchRoot(f, opts.Paths, opts.Channel), judge.Run)); err != nil {
		return false, nil, err
	}
	stop, cancel := stopContext(ctx, opts.Stop)
	defer cancel()
	prog := newProgress(f.IO)
	rep, err := batch.Judge(stop, cas, batch.JudgeOptions{Root: batchRoot(f, opts.Paths, opts.Channel), Run: judge.Run, Bundles: bundles,
		Models: judge.Order, Judge: judge.Judge, Pack: judge.Pack, PackDir: opts.JudgePack, MaxQuestions: judge.MaxQuestions, Runs: runs,
		ToolVersion: Version, Settings: s, Progress: func(msg string) { prog.show("eval --batch: %s", msg) }})
	prog.clear()
	if err != nil && rep == nil {
		switch {
		case errors.Is(err, batch.ErrUnfinished), errors.Is(err, batch.ErrNoKey):
			return false, nil, usageErr("eval: %v", err)
		case errors.Is(err, batch.ErrBusy):
			return false, nil, err
		}
		return false, nil, usageErr("eval: --batch: %v", err)
	}
	if err != nil || rep.Bundles.Pending() > 0 {
		verb := "eval"
		if len(rep.Submitted) > 0 && len(rep.Collected) == 0 {
			verb = "submit"
		}
		if perr := printBatchReport(f, rep, verb); perr != nil {
			return false, nil, perr
		}
		if err != nil && !errors.Is(err, batch.ErrInterrupted) {
			return false, nil, fmt.Errorf("%v; compact batch collect --run %s goes on", err, rep.Run)
		}
		return false, nil, batchExit(f, "eval", rep, err)
	}
	// Done: the records are read as the interactive judge would have
	// written them; a bundle the batches failed keeps its reason.
	failed := map[string]string{}
	for _, p := range rep.Problems {
		failed[filepath.Clean(p.Bundle)] = p.Error
	}
	var errs []eval.BundleError
	var judged []*eval.BundleResult
	for _, r := range results {
		if msg, ok := failed[filepath.Clean(r.Bundle)]; ok {
			errs = append(errs, eval.BundleError{Bundle: r.Bundle, Error: msg})
			continue
		}
		judged = append(judged, r)
	}
	errs = append(errs, eval.ReadJudgedAll(judged, *judge)...)
	if !f.IO.Quiet {
		l := rep.Ledger.Total
		fmt.Fprintf(f.IO.ErrOut, "compact eval: judge batch run %s done: %d judged, %d failed; %s at the batch rate, %d from the response cache (saved %s)\n",
			rep.Run, rep.Bundles.OK, rep.Bundles.Failed+rep.Bundles.Errors, usd(l.CostUSD), rep.Bundles.FromCache, usd(l.SavedUSD))
	}
	return true, errs, nil
}
