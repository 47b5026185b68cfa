package cmd

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/diff"
	"github.com/compactlab/compact/internal/eval"
)

func init() { register(newCmdEval) }

type evalOptions struct {
	f        *Factory
	Paths    []string
	Channel  string
	Runs     []string
	Baseline string
	Format   string
	FailOn   []string
	Worst    int
	Jobs     int
}

func newCmdEval(f *Factory) *cobra.Command {
	opts := &evalOptions{f: f}
	c := &cobra.Command{
		Use:   "eval [PATH]...",
		Short: "Score briefings with probes mined from the history they replace: files, failures, decisions, the last request",
		Long: "Mines probes from each bundle's compact-history.xml, the part of the chat\n" +
			"its briefing replaces (a previous briefing inside it included), and checks\n" +
			"which of them every briefing of the bundle answers: the app's\n" +
			"actual-output.md (\"actual\") and each replay run's output.md.\n\n" +
			"Probes come in four kinds: artifact (the files read, created, changed,\n" +
			"moved, deleted), recall (failed commands and whether they were fixed,\n" +
			"error identifiers, attachments, numbers and identifiers the user gave),\n" +
			"decision (the user's decisions and constraints, form answers) and\n" +
			"continuation (the last request, a question left open). The score is\n" +
			"offline: an answer is present when the briefing holds it as written,\n" +
			"with case, white space and punctuation aside, as the same file written\n" +
			"another way (a [](path:…) link, mount-prefixed, workspace-relative), or\n" +
			"for a sentence as most of its content words in one window.\n\n" +
			"The report: per briefing the mean share of probes answered, overall and\n" +
			"per kind; the baseline (--baseline, default actual) against every run and\n" +
			"run against run, with wins and losses per bundle and a 95% paired\n" +
			"bootstrap interval on the mean difference (fixed seed); the bundles worst\n" +
			"first with the probes each briefing lost. --json writes every probe and\n" +
			"answer.\n\n" +
			"A --fail-on gate is MEASURE<VALUE (or <=, >, >=, =); MEASURE is overall,\n" +
			"artifact, recall, decision or continuation (mean shares, 0 to 1),\n" +
			"regressed (bundles scoring below the baseline) or lost (probes not\n" +
			"answered).\n\n" +
			"Exit status: 0 done; 1 a --fail-on gate held, or some bundles could not\n" +
			"be read (the others are still scored); 2 usage or input error, or\n" +
			"nothing to evaluate (no bundles, no probes, no briefing).",
		Example: "  compact eval\n" +
			"  compact eval --run builtin --run gpt-5.4-nano\n" +
			"  compact eval --baseline builtin --fail-on 'artifact<0.9,regressed>0'\n" +
			"  compact eval path/to/channel --format markdown --worst 20\n" +
			"  compact eval --json > eval.json",
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if err := channelFromConfig(c, f, &opts.Channel); err != nil {
				return err
			}
			return runEval(c, opts)
		},
	}
	fl := c.Flags()
	fl.StringSliceVar(&opts.Runs, "run", nil, "score only the replay run `NAME` beside actual (repeatable, or comma-separated; default: every run with an answer)")
	fl.StringVar(&opts.Baseline, "baseline", "", "compare every other briefing with `NAME`: actual or a run (default: actual)")
	addChannelFlag(c, &opts.Channel, "channel whose extract output to evaluate when no PATH is given")
	fl.StringVar(&opts.Format, "format", "text", "output `FORMAT`: text, json or markdown (--json is --format json)")
	fl.StringSliceVar(&opts.FailOn, "fail-on", nil, "exit 1 when `GATE` holds for a briefing other than the baseline, e.g. artifact<0.9 or regressed>0 (repeatable, or comma-separated)")
	fl.IntVar(&opts.Worst, "worst", 10, "list the `N` worst bundles, with the probes they lost (-1: all)")
	addJobsFlag(c, &opts.Jobs, 0, "bundles evaluated at once (default: the number of CPUs)")
	completeValues(c, "format", "text", "json", "markdown")
	completeValues(c, "fail-on", "artifact<0.9", "overall<0.8", "regressed>0", "lost>0")
	runNames := func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		names := evalRunNames(c, f, opts, args)
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	_ = c.RegisterFlagCompletionFunc("run", runNames)
	_ = c.RegisterFlagCompletionFunc("baseline", func(c *cobra.Command, args []string, s string) ([]string, cobra.ShellCompDirective) {
		names, d := runNames(c, args, s)
		return append([]string{eval.Actual}, names...), d
	})
	c.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	return c
}

// evalRunNames completes --run and --baseline as diff completes --run.
func evalRunNames(c *cobra.Command, f *Factory, opts *evalOptions, args []string) []string {
	return diffRunNames(c, f, &diffOptions{Channel: opts.Channel}, args)
}

func runEval(c *cobra.Command, opts *evalOptions) error {
	f := opts.f
	format := opts.Format
	if f.JSON {
		if c.Flags().Changed("format") && format != "json" {
			return usageErr("eval: --json and --format %s conflict", format)
		}
		format = "json"
	}
	switch format {
	case "text", "json", "markdown":
	default:
		return usageErr("eval: --format: unknown format %q (want text, json or markdown)", format)
	}
	var gates []eval.Gate
	for _, s := range opts.FailOn {
		g, err := eval.ParseGate(s)
		if err != nil {
			return usageErr("eval: --fail-on: %v", err)
		}
		gates = append(gates, g)
	}
	if opts.Jobs < 0 {
		return usageErr("eval: --jobs must not be negative")
	}
	if c.Flags().Changed("channel") && len(opts.Paths) > 0 {
		return usageErr("eval: --channel picks the directory to evaluate when no PATH is given; drop it or the PATH")
	}
	var runs []string
	for _, r := range opts.Runs {
		if r = strings.TrimSpace(r); r != "" && !slices.Contains(runs, r) {
			runs = append(runs, r)
		}
	}
	dirs, err := findBundles(f, opts.Paths, opts.Channel)
	if err != nil {
		return err
	}
	prog := newProgress(f.IO)
	eopt := eval.EvalOptions{Runs: runs}
	if len(dirs) > 1 {
		eopt.Progress = func(done, total int) { prog.show("eval: %d/%d bundles", done, total) }
	}
	results, errs := eval.Evaluate(dirs, eopt, opts.Jobs)
	prog.clear()
	for _, e := range errs {
		fmt.Fprintf(f.IO.ErrOut, "compact eval: %s: %s\n", e.Bundle, e.Error)
	}
	if err := evalNothing(opts, dirs, results, runs); err != nil {
		return err
	}
	rep := eval.NewReport(results, errs, eval.ReportOptions{Baseline: opts.Baseline, Gates: gates})
	topt := eval.TextOptions{Worst: opts.Worst, Root: commonDir(dirs)}
	if len(dirs) == 1 {
		topt.Root = ""
	}
	switch format {
	case "json":
		err = rep.WriteJSON(f.IO.Out)
	case "markdown":
		err = rep.WriteMarkdown(f.IO.Out, topt)
	default:
		err = rep.WriteText(f.IO.Out, topt)
	}
	if err != nil {
		return err
	}
	var problems []string
	if len(rep.Failed) > 0 {
		var held []string
		for _, fl := range rep.Failed {
			held = append(held, fmt.Sprintf("%s for %s", fl.Gate, fl.Side))
		}
		problems = append(problems, "--fail-on: "+strings.Join(held, ", "))
	}
	if len(errs) > 0 {
		problems = append(problems, fmt.Sprintf("%d of %s not evaluated", len(errs), plural(len(dirs), "bundle")))
	}
	if len(problems) > 0 {
		return &ExitError{Code: exitFailed, Err: errors.New("eval: " + strings.Join(problems, "; "))}
	}
	return nil
}

// evalNothing is the exit-2 error when there is nothing to evaluate: no
// bundle could be read, none has a probe, no briefing to score, or a run
// or baseline named that no bundle has.
func evalNothing(opts *evalOptions, dirs []string, results []*eval.BundleResult, runs []string) error {
	where := plural(len(dirs), "bundle")
	if len(results) == 0 {
		return usageErr("eval: none of the %s could be read (each is named above); pass bundles that hold a %s", where, "compact-history.xml")
	}
	probes, briefings := 0, 0
	have := map[string]bool{}
	for _, r := range results {
		probes += len(r.Probes)
		for _, b := range r.Briefings {
			briefings++
			have[b.Name] = true
		}
	}
	found := diff.RunNames(dirs)
	for _, r := range runs {
		if !have[r] {
			return usageErr("eval: no replay run %q with an answer in %s; runs found: %s", r, where, runNameList(found))
		}
	}
	if opts.Baseline != "" && !have[opts.Baseline] {
		var names []string
		for n := range have {
			names = append(names, n)
		}
		sort.Strings(names)
		return usageErr("eval: --baseline %s: no such briefing in %s (have: %s)", opts.Baseline, where, strings.Join(names, ", "))
	}
	if probes == 0 {
		return usageErr("eval: no probes in %s: their compacted histories name no files, failures, decisions or requests", where)
	}
	if briefings == 0 {
		return usageErr("eval: nothing to score in %s: no actual-output.md and no replay with an answer; make one with `compact replay --model builtin`", where)
	}
	return nil
}

func runNameList(names []string) string {
	if len(names) == 0 {
		return "none (make one with `compact replay --model builtin`)"
	}
	return strings.Join(names, ", ")
}
