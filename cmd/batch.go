package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
		Short: "Follow, collect or cancel the batch replays of compact replay --batch",
		Long: "compact replay --batch sends the bundles through the providers' batch APIs\n" +
			"(half price, answered within 24 hours): each model of the cascade is its own\n" +
			"batch. These commands follow such a run, from any process or machine that\n" +
			"has the bundles, the configuration and the keys: status polls the batches,\n" +
			"collect writes the answers where an interactive replay writes them and\n" +
			"sends the failures to the next model's batch, cancel stops the run. The\n" +
			"run's state is in <dir>/.batches/<run>/state.json, beside the bundles.",
		Example: "  compact replay --batch --run nightly\n" +
			"  compact batch status --run nightly\n" +
			"  compact batch collect --run nightly --wait",
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
				"at the last. Safe to run again, and from another machine: a result already\n"+
				"written is not written twice. --wait polls until every bundle is done."),
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
		Long: long + "\n\nThe run is found under PATH (the directory given to replay --batch) or the\n" +
			"channel's directory; --run names it (not needed when there is only one).",
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
			return interrupted("interrupted with %s still in batches; compact batch collect --run %s goes on", plural(rep.Bundles.Pending(), "bundle"), rep.Run)
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
		return fmt.Errorf("%d of %s got no answer (named above); replay them again with compact replay --run %s (with or without --batch)", bad, plural(rep.Bundles.Total, "bundle"), rep.Run)
	}
	return nil
}

func printBatchReport(f *Factory, rep *batch.Report, verb string) error {
	if f.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	out := f.IO.Out
	fmt.Fprintf(out, "batch run %s: %s, models %s\n", rep.Run, plural(rep.Bundles.Total, "bundle"), strings.Join(rep.Models, ", "))
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
	fmt.Fprintf(out, "bundles: %d ok, %d failed, %d skipped, %s; %d in batches, %d to submit; %d from the response cache\n",
		c.OK, c.Failed, c.Skipped, plural(c.Errors, "error"), c.Submitted, c.Queued, c.FromCache)
	l := rep.Ledger.Total
	fmt.Fprintf(out, "cost: %s at the batch rate (%.0f%% off %s); %d input tokens (%d cached), %d output; the response cache saved %s\n",
		usd(l.CostUSD), rep.Discount*100, usd(l.ListUSD), l.InputTokens, l.CachedInputTokens, l.OutputTokens, usd(l.SavedUSD))
	for i, t := range rep.Ledger.Tiers {
		if t.Requests+t.FromCache+t.Failed == 0 {
			continue
		}
		fmt.Fprintf(out, "  tier %d %s (%s): %d requests, %d answered, %d failed, %d from the cache; %d in (%d cached), %d out; %s\n",
			i+1, t.Model, t.Provider, t.Requests, t.Answered, t.Failed, t.FromCache, t.InputTokens, t.CachedInputTokens, t.OutputTokens, usd(t.CostUSD))
	}
	if !f.IO.Quiet {
		switch {
		case len(rep.Submitted) > 0 && verb == "submit":
			fmt.Fprintf(f.IO.ErrOut, "compact replay: submitted %s; next: compact batch status --run %s, then compact batch collect --run %s (state: %s)\n",
				plural(len(rep.Submitted), "batch"), rep.Run, rep.Run, rep.State)
		case c.Pending() > 0 && verb != "cancel":
			fmt.Fprintf(f.IO.ErrOut, "compact batch %s: %s still in batches; run compact batch collect --run %s again later, or with --wait\n",
				verb, plural(c.Pending(), "bundle"), rep.Run)
		}
	}
	return nil
}

// runReplayBatch is replay --batch: the bundles go to the providers' batch
// APIs instead of one request each.
func runReplayBatch(ctx context.Context, opts *replayOptions, cas *cascade.Cascade, order []string, run string, pack *prompt.Pack, locale string, bundles []string) error {
	f := opts.f
	if cas == nil {
		return usageErr("--batch needs the configured cascade")
	}
	s, err := batchSettings(f)
	if err != nil {
		return err
	}
	stop, cancel := stopContext(ctx, opts.Stop)
	defer cancel()
	prog := newProgress(f.IO)
	rep, err := batch.Submit(stop, cas, batch.Options{Root: batchRoot(f, opts.Paths, opts.Channel), Run: run, Bundles: bundles, Models: order,
		Pack: pack, PackName: opts.Pack, Locale: locale, Force: opts.Force, ToolVersion: Version, Settings: s,
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
