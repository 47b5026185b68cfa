package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
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
// under paths, or of the channel's directory (batch.Root).
func batchRoot(f *Factory, paths []string, channel string) string {
	return batch.Root(paths, channelDir(f, channel))
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

func runBatch(ctx context.Context, verb string, opts *batchOptions) error {
	f := opts.f
	cmdName := "batch " + verb
	root := batchRoot(f, opts.Paths, opts.Channel)
	run, err := batch.FindRun(root, opts.Run)
	if err != nil {
		return usageErr("%v", err)
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
		if rep.SubmitError != "" {
			return errors.New(rep.Unsubmitted())
		}
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
			return interrupted("interrupted with %s; compact batch collect --run %s goes on", rep.Waiting(), rep.Run)
		}
		return interrupted("interrupted; compact batch collect goes on")
	case errors.Is(err, batch.ErrNoRun), errors.Is(err, batch.ErrUnfinished), errors.Is(err, batch.ErrNoKey):
		return usageErr("%v", err)
	case errors.Is(err, batch.ErrSubmit) && rep != nil && rep.SubmitError != "":
		return errors.New(rep.Unsubmitted()) // what is in batches, what is not, what to do
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

func printBatchReport(f *Factory, rep *batch.Report, verb string) error {
	if f.JSON {
		return writeIndentedJSON(f.IO.Out, rep)
	}
	rep.WriteText(f.IO.TextOut())
	judge, c := rep.Kind == batch.KindJudge && rep.Judge != nil, rep.Bundles
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
		case c.Submitted > 0 && (verb == "status" || verb == "collect") && rep.SubmitError == "":
			fmt.Fprintf(f.IO.ErrOut, "compact batch %s: %s; run compact batch collect --run %s again later, or with --wait\n",
				verb, rep.Waiting(), rep.Run)
		case c.Submitted == 0 && c.Queued > 0 && verb == "status" && rep.SubmitError == "":
			fmt.Fprintf(f.IO.ErrOut, "compact batch status: nothing in flight: %s; compact batch collect --run %s submits them\n", rep.Waiting(), rep.Run)
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
		Walk:   func(fn func(string) error) error { return replayFinder.Walk(paths, fn) },
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
	switch {
	case errors.Is(err, batch.ErrSubmit) && rep.Bundles.Submitted == 0:
		return fmt.Errorf("nothing was submitted: %v; fix the cause, then run this command again (or compact batch collect --run %s) to submit the %s", err, run, plural(rep.Bundles.Queued, "bundle"))
	case err != nil && !errors.Is(err, batch.ErrInterrupted) && !errors.Is(err, batch.ErrSubmit):
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
	err := replayFinder.Walk(paths, func(b string) error {
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
	errs := batch.Judged(rep, results, *judge)
	if !f.IO.Quiet {
		l := rep.Ledger.Total
		fmt.Fprintf(f.IO.ErrOut, "compact eval: judge batch run %s done: %d judged, %d failed; %s at the batch rate, %d from the response cache (saved %s)\n",
			rep.Run, rep.Bundles.OK, rep.Bundles.Failed+rep.Bundles.Errors, usd(l.CostUSD), rep.Bundles.FromCache, usd(l.SavedUSD))
	}
	return true, errs, nil
}
