package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/shard"
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

	// The model judge.
	Judge          string
	JudgeBaseURL   string
	JudgeAPIModel  string
	JudgePack      string
	JudgeQuestions int
	JudgeRun       string
	JudgeRepeat    int
	JudgeTimeout   time.Duration
	NoCache        bool
	WriteJudgePack string
	// Batch judges through the providers' batch APIs (cmd/batch.go).
	Batch bool
	// Stop is the interrupt context (tests replace it).
	Stop context.Context
	// Target is the size target of the headline (compression.target_chars).
	Target int
	// Validate runs the validity ladder instead (cmd/eval_validate.go);
	// Calibrate reads a file of human grades.
	Validate  bool
	Calibrate string
	// Table is the results table (cmd/tableflags.go).
	Table tableFlag
	// OTel writes the scores as OpenTelemetry events too (eval_otel.go).
	OTel string
	// Shard and sample (cmd/shardflags.go).
	Shard shardFlags
}

func newCmdEval(f *Factory) *cobra.Command {
	opts := &evalOptions{f: f}
	c := &cobra.Command{
		Use:   "eval [PATH]...",
		Short: "Score briefings with probes mined from the history they replace: files, failures, decisions, the last request",
		Long:  evalLong,
		Example: "  compact eval\n" +
			"  compact eval --run builtin --run gpt-5.4-nano\n" +
			"  # does the headline rank briefings as their degradation does?\n" +
			"  compact eval --validate\n" +
			"  # agreement with people: a CSV of bundle,briefing,grade\n" +
			"  compact eval --calibrate grades.csv\n" +
			"  compact eval --baseline builtin --fail-on 'artifact<0.9,regressed>0'\n" +
			"  compact eval path/to/channel --format markdown --worst 20\n" +
			"  compact eval --json > eval.json\n" +
			"  # the scores beside the traces, as OTLP JSON logs\n" +
			"  compact eval --otel eval-events.jsonl\n" +
			"  # model-judged, with a key (cached: a rerun costs nothing)\n" +
			"  compact eval --run builtin --judge gpt-5.4-nano\n" +
			"  # the same through the batch API: submit, collect, report\n" +
			"  compact eval --run builtin --judge gpt-5.4-nano --batch\n" +
			"  compact eval --judge-base-url http://127.0.0.1:8080/v1 --judge-api-model qwen2.5:14b",
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if err := channelFromConfig(c, f, &opts.Channel); err != nil {
				return err
			}
			if !c.Flags().Changed("target") {
				opts.Target = f.Config.Int("compression::target_chars")
			}
			if err := opts.Shard.resolve(c, f); err != nil {
				return err
			}
			if opts.Validate || opts.Calibrate != "" {
				return runEvalValidity(c, opts)
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
	fl.IntVar(&opts.Target, "target", 0, "size target of the headline in `CHARS` (UTF-16 units; default compression.target_chars, 30,000)")
	fl.BoolVar(&opts.Validate, "validate", false, "build the validity ladder of every recorded briefing and print how the measures order it (no other output)")
	fl.Var(typedString{&opts.Calibrate, "FILE"}, "calibrate", "compare the measures with human grades in FILE (CSV or JSON Lines: bundle, briefing, grade[, rater])")
	c.MarkFlagsMutuallyExclusive("validate", "calibrate")
	addTableFlag(c, &opts.Table, "a row per bundle, briefing and probe, and per bundle and briefing,")
	c.MarkFlagsMutuallyExclusive("table", "validate")
	c.MarkFlagsMutuallyExclusive("table", "calibrate")
	addEvalOTelFlag(c, opts)
	fl.Var(typedString{&opts.Judge, "ID"}, "judge", "also score with this model as answerer and judge: a model of the table or a server configured as providers.NAME (not builtin)")
	fl.Var(typedString{&opts.JudgeBaseURL, "URL"}, "judge-base-url", "judge with the model --judge-api-model of this OpenAI-compatible server (key, if any: COMPACT_API_KEY)")
	fl.Var(typedString{&opts.JudgeAPIModel, "NAME"}, "judge-api-model", "the model the judge's server is asked for (with --judge-base-url, or --judge naming a server)")
	fl.Var(typedString{&opts.JudgePack, "DIR"}, "judge-pack", "the judge's prompts from this directory (see --write-judge-pack)")
	fl.IntVar(&opts.JudgeQuestions, "judge-questions", 12, "ask at most `N` questions per bundle, the probe kinds in turn")
	fl.Var(typedString{&opts.JudgeRun, "NAME"}, "judge-run", "name of the judge's record, <bundle>/judge/NAME.json (default: the judge model)")
	fl.IntVar(&opts.JudgeRepeat, "judge-repeat", 1, "judge each bundle `K` times (1 to 50), as the records NAME, NAME@2, …, NAME@K, and show the spread of the judged scores")
	fl.DurationVar(&opts.JudgeTimeout, "judge-timeout", 0, "allow `DURATION` for each judge call (default: cascade.timeout, 5m on a server)")
	fl.BoolVar(&opts.NoCache, "no-cache", false, "neither read nor write the response cache")
	fl.Var(typedString{&opts.WriteJudgePack, "DIR"}, "write-judge-pack", "write the built-in judge pack to DIR, to edit, and exit")
	fl.BoolVar(&opts.Batch, "batch", false, "judge through the provider's batch API (half price, within 24 h): submit, then run again or compact batch collect")
	c.MarkFlagsMutuallyExclusive("judge", "judge-base-url")
	c.MarkFlagsMutuallyExclusive("batch", "judge-base-url")
	addShardFlags(c, &opts.Shard, "chats")
	completeValues(c, "format", "text", "json", "markdown")
	completeValues(c, "fail-on", "overall<0.5", "file-used<0.8", "coverage<0.8", "artifact<0.9", "regressed>0", "lost>0", "judged<3.5", "artifact_trail<3")
	_ = c.RegisterFlagCompletionFunc("judge", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return judgeModelNames(f), cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.MarkFlagDirname("judge-pack")
	_ = c.MarkFlagDirname("write-judge-pack")
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
	if opts.WriteJudgePack != "" {
		if err := eval.WriteJudgePack(opts.WriteJudgePack); err != nil {
			return usageErr("eval: --write-judge-pack: %v", err)
		}
		fmt.Fprintf(f.IO.ErrOut, "compact eval: wrote the judge pack to %s (%s); edit it and pass --judge-pack %s\n", opts.WriteJudgePack, strings.Join(eval.JudgePackFiles, ", "), opts.WriteJudgePack)
		return nil
	}
	format, err := outputFormat(c, f, "eval", opts.Format)
	if err != nil {
		return err
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
	if err := checkEvalOTel(opts.OTel); err != nil {
		return err
	}
	var runs []string
	for _, r := range opts.Runs {
		if r = strings.TrimSpace(r); r != "" && !slices.Contains(runs, r) {
			runs = append(runs, r)
		}
	}
	judge, judgeCascade, err := planJudge(f, opts)
	if err != nil {
		return err
	}
	if judge != nil && opts.Batch && opts.Shard.active() {
		return usageErr("eval: --batch judges the whole directory as one batch run: it takes no --shard or --sample; judge a shard without --batch")
	}
	var sel *shard.Selection
	dirs, err := findPickedBundles(f, opts.Paths, opts.Channel, opts.Shard.picker(&sel))
	if err != nil {
		return err
	}
	if len(dirs) == 0 && sel != nil {
		return emptySelection(f, sel)
	}
	prog := newProgress(f.IO)
	// The baseline named is read even when --run leaves it out: the
	// candidates are compared with it.
	load := runs
	if b := opts.Baseline; len(runs) > 0 && b != "" && b != eval.Actual && !slices.Contains(runs, b) {
		load = append(slices.Clone(runs), b)
	}
	eopt := eval.EvalOptions{Runs: load, Target: opts.Target}
	if len(dirs) > 1 {
		eopt.Progress = func(done, total int) { prog.show("eval: %d of %s", done, plural(total, "bundle")) }
	}
	results, errs := eval.Evaluate(dirs, eopt, opts.Jobs)
	prog.clear()
	for _, e := range errs {
		fmt.Fprintf(f.IO.ErrOut, "compact eval: %s: %s\n", e.Bundle, e.Error)
	}
	found := func() string { return runNameList(bundle.RunNames(dirs)) }
	if err := eval.NothingToScore(len(dirs), results, runs, opts.Baseline, found); err != nil {
		return usageErr("%v", err)
	}
	var judgeErrs []eval.BundleError
	interrupted := false
	if judge != nil && opts.Batch {
		done, errs, err := runEvalJudgeBatch(c.Context(), opts, judge, judgeCascade, results, runs)
		if err != nil || !done {
			return err
		}
		judgeErrs = errs
		for _, e := range judgeErrs {
			fmt.Fprintf(f.IO.ErrOut, "compact eval: %s: %s\n", e.Bundle, e.Error)
		}
	} else if judge != nil {
		ctx := opts.Stop
		if ctx == nil {
			var cancel context.CancelFunc
			ctx, cancel = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer cancel()
		}
		jobs := opts.Jobs
		if jobs == 0 {
			jobs = 4
		}
		var progress func(int, int)
		if len(results) > 1 {
			progress = func(done, total int) { prog.show("eval: judged %d of %s", done, plural(total, "bundle")) }
		}
		judgeErrs = eval.JudgeAll(ctx, results, *judge, jobs, progress)
		prog.clear()
		interrupted = ctx.Err() != nil
		for _, e := range judgeErrs {
			if e.Bundle == "" {
				fmt.Fprintf(f.IO.ErrOut, "compact eval: %s\n", e.Error)
			} else {
				fmt.Fprintf(f.IO.ErrOut, "compact eval: %s: %s\n", e.Bundle, e.Error)
			}
		}
	}
	rep := eval.NewReport(results, errs, eval.ReportOptions{Baseline: opts.Baseline, Gates: gates, Candidates: runs, Target: opts.Target})
	rep.Selection = sel
	topt := eval.TextOptions{Worst: opts.Worst, Root: commonDir(dirs)}
	if len(dirs) == 1 {
		topt.Root = ""
	}
	switch format {
	case "json":
		err = rep.WriteJSON(f.IO.Out)
	case "markdown":
		err = rep.WriteMarkdown(f.IO.TextOut(), topt)
	default:
		err = rep.WriteText(f.IO.TextOut(), topt)
	}
	if err != nil {
		return err
	}
	if err := writeEvalTable(opts, results, rep); err != nil {
		return err
	}
	if opts.OTel != "" {
		if err := writeEvalOTel(f, opts.OTel, rep); err != nil {
			return err
		}
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
	if interrupted {
		return &ExitError{Code: exitInterrupted, Err: errors.New("eval: interrupted while judging; run again: the answers given so far are cached")}
	}
	if len(judgeErrs) > 0 {
		problems = append(problems, fmt.Sprintf("%d of %s not judged", len(judgeErrs), plural(len(results), "bundle")))
	}
	if len(problems) > 0 {
		return &ExitError{Code: exitFailed, Err: errors.New("eval: " + strings.Join(problems, "; "))}
	}
	return nil
}

func runNameList(names []string) string {
	if len(names) == 0 {
		return "none (make one with `compact replay --model builtin`)"
	}
	return strings.Join(names, ", ")
}

// planJudge builds the judge's model from the flags (eval.PlanJudge) and
// gives its cascade the response cache.
func planJudge(f *Factory, opts *evalOptions) (*eval.JudgeOptions, *cascade.Cascade, error) {
	if err := eval.CheckJudgeRepeat(opts.JudgeRepeat); err != nil {
		return nil, nil, usageErr("%v", err)
	}
	m := modelPlan(f)
	m.Model, m.BaseURL, m.APIModel, m.Timeout = opts.Judge, opts.JudgeBaseURL, opts.JudgeAPIModel, opts.JudgeTimeout
	judge, cs, err := eval.PlanJudge(eval.JudgePlanOptions{Model: m, Pack: opts.JudgePack, Questions: opts.JudgeQuestions,
		Run: opts.JudgeRun, Repeats: opts.JudgeRepeat, Batch: opts.Batch, Known: func() []string { return judgeModelNames(f) }})
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	if err := useCache(f, cs, opts.NoCache); err != nil {
		return nil, nil, usageErr("eval: %v", err)
	}
	return judge, cs, nil
}

// judgeModelNames are the models --judge takes.
func judgeModelNames(f *Factory) []string {
	var names []string
	for _, n := range replayModelNames(f) {
		if n != "builtin" {
			names = append(names, n)
		}
	}
	return names
}
