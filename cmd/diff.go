package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/diff"
	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/upstream"
)

func init() { register(newCmdDiff) }

type diffOptions struct {
	f        *Factory
	Paths    []string
	Channel  string
	Run      string
	Baseline string
	A, B     string
	Format   string
	FailOn   []string
	Stat     bool
	Worst    int
	Color    string
	Jobs     int
	Target   int
	Profile  string
	// isTerminal reports whether stdout is a terminal (tests replace it).
	isTerminal func(io.Writer) bool
}

// diffIsTerminal decides whether stdout is a terminal; tests replace it.
var diffIsTerminal = writerIsTerminal

func newCmdDiff(f *Factory) *cobra.Command {
	opts := &diffOptions{f: f, isTerminal: diffIsTerminal}
	c := &cobra.Command{
		Use:   "diff [PATH]...",
		Short: "Compare the app's briefings (A) with replayed ones (B): a section diff and quality measures",
		Long: "Compares two briefings written from the same history:\n\n" +
			"  A  the briefing the app stored: the bundle's " + bundle.FileActual + "\n" +
			"  B  a replay's briefing: the bundle's replays/<run>/output.md, written by\n" +
			"     compact replay (--run NAME; default: the newest replay with an answer,\n" +
			"     so a failed replay, which leaves only its replay.json, is passed over)\n\n" +
			"Every bundle under each PATH (a bundle, chat or channel directory; default:\n" +
			"the extract output of --channel) is compared. --a and --b compare any two\n" +
			"files instead, measured against the compact-history.xml beside A.\n\n" +
			"For each bundle: a diff by ## section (kept, changed, only in A, only in\n" +
			"B; one sentence a line); for A and for B the size against the target and\n" +
			"the previous briefing, the must-keep items of the history kept or lost\n" +
			"(paths, links, colours, the previous briefing's headings, the user's\n" +
			"decisions, failed tool outcomes), XML tag leaks and broken output rules;\n" +
			"and their similarity (ROUGE-L, sentence reuse). With more than one bundle,\n" +
			"a table worst first with totals and medians, and the sizes along each\n" +
			"chain. --stat prints only the summary: totals, medians, the --worst\n" +
			"bundles and chains (for one bundle: its measures without the diff).\n" +
			"--json writes everything; --stat --json the summary only. --format\n" +
			"markdown over many bundles is the comment a CI job posts on a pull\n" +
			"request: the summary, the worst bundles and chains; with --baseline RUN,\n" +
			"the --run run beside that baseline run and the paths and decisions it\n" +
			"lost that the baseline kept.\n\n" +
			"Exit status: 0 done; 1 B is worse than A on a --fail-on measure, or some\n" +
			"bundles could not be compared (the others still are); 2 usage or input\n" +
			"error, or nothing to compare (no bundles, or no replay with an answer).",
		Example: "  compact diff --stat\n" +
			"  compact diff --channel nightly --stat --worst 20\n" +
			"  compact diff path/to/compression-002 --run builtin --format markdown\n" +
			"  compact diff --run candidate --baseline main --format markdown   # a pull request's comment\n" +
			"  compact diff --a old.md --b new.md\n" +
			"  compact diff runs/ --fail-on lost-paths --fail-on leak --stat",
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if err := channelFromConfig(c, f, &opts.Channel); err != nil {
				return err
			}
			if !c.Flags().Changed("profile") {
				opts.Profile = f.Config.String("profile")
			}
			opts.Target = f.Config.Int("compression::target_chars")
			return runDiff(c, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Run, "run", "", "compare with the replay run `NAME`, its directory under replays/ (default: the newest replay with an answer)")
	fl.StringVar(&opts.Baseline, "baseline", "", "also compare the --run run with the run `NAME`: what it lost that the baseline kept (for a pull request's comment: --format markdown)")
	fl.StringVar(&opts.A, "a", "", "compare `FILE` as A (with --b, instead of bundles)")
	fl.StringVar(&opts.B, "b", "", "compare `FILE` as B (with --a)")
	addChannelFlag(c, &opts.Channel, "channel whose extract output to compare when no PATH is given")
	fl.StringVar(&opts.Format, "format", "text", "output `FORMAT`: text, json or markdown (--json is --format json)")
	fl.StringSliceVar(&opts.FailOn, "fail-on", nil, "exit 1 when B is worse than A on `MEASURE`: lost-paths, leak, rules, shrink; with --baseline, newly-lost")
	fl.BoolVar(&opts.Stat, "stat", false, "print only the summary: totals, medians, the worst bundles and chains")
	fl.BoolVar(&opts.Stat, "summary", false, "the same as --stat")
	fl.IntVar(&opts.Worst, "worst", 10, "with --stat, list the `N` worst bundles and chains")
	fl.StringVar(&opts.Color, "color", "auto", "colour the text output `WHEN`: auto (on a terminal, unless NO_COLOR is set), always or never")
	addJobsFlag(c, &opts.Jobs, 0, "bundles compared at once (default: the number of CPUs)")
	fl.StringVar(&opts.Profile, "profile", upstream.Default, "the prompt rules of `RELEASE` for bundles whose metadata does not say: "+profileChoices)
	completeValues(c, "format", "text", "json", "markdown")
	completeValues(c, "color", "auto", "always", "never")
	completeProfile(c)
	completeValues(c, "fail-on", append(slices.Clone(diff.Measures), diff.FailNewlyLost)...)
	_ = c.RegisterFlagCompletionFunc("run", func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		return diffRunNames(c, f, opts, args), cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.RegisterFlagCompletionFunc("baseline", func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		return diffRunNames(c, f, opts, args), cobra.ShellCompDirectiveNoFileComp
	})
	c.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	return c
}

// diffRunNames completes --run: the run directories under replays/ of the
// bundles under args, or under the default channel directory.
func diffRunNames(c *cobra.Command, f *Factory, opts *diffOptions, args []string) []string {
	paths := args
	if len(paths) == 0 {
		st, err := completionConfig(f)
		if err != nil {
			return nil
		}
		channel := opts.Channel
		if !c.Flags().Changed("channel") {
			channel = st.String("extract::channel")
		}
		paths = []string{filepath.Join(st.String("extract::out"), channel)}
	}
	var bundles []string
	for _, p := range paths {
		found, _ := readFinder.Find([]string{p})
		bundles = append(bundles, found...)
	}
	return bundle.RunNames(bundles)
}

// writerIsTerminal reports whether w is a terminal.
func writerIsTerminal(w io.Writer) bool {
	f, ok := iostreams.Raw(w).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func runDiff(c *cobra.Command, opts *diffOptions) error {
	f := opts.f
	format, err := outputFormat(c, f, "diff", opts.Format)
	if err != nil {
		return err
	}
	failOn, newlyLostGate, err := diff.ParseFailOn(opts.FailOn, opts.Baseline)
	if err != nil {
		return usageErr("diff: %v", err)
	}
	var color bool
	switch opts.Color {
	case "always":
		color = true
	case "never":
	case "auto":
		color = opts.isTerminal(f.IO.Out) && f.Getenv("NO_COLOR") == "" && f.Getenv("TERM") != "dumb"
	default:
		return usageErr("diff: --color: want auto, always or never, not %q", opts.Color)
	}
	gen, err := profileGen("diff: --profile", opts.Profile)
	if err != nil {
		return err
	}
	opts.Profile = gen
	if opts.Jobs < 0 {
		return usageErr("diff: --jobs must not be negative")
	}
	if opts.Worst < 0 {
		return usageErr("diff: --worst must not be negative")
	}
	dopt := diff.Options{Run: opts.Run, Target: opts.Target, Profile: opts.Profile, WithDiffs: !opts.Stat}
	if (opts.A == "") != (opts.B == "") {
		return usageErr("diff: --a and --b go together")
	}
	if opts.Baseline != "" {
		switch {
		case opts.A != "":
			return usageErr("diff: --baseline compares two replay runs of the bundles, not --a/--b")
		case opts.Run == "":
			return usageErr("diff: --baseline %s compares a run with it: name that run with --run NAME", opts.Baseline)
		case opts.Run == opts.Baseline:
			return usageErr("diff: --baseline and --run both name %s; the baseline is another run", opts.Run)
		}
	}
	if c.Flags().Changed("channel") && (opts.A != "" || len(opts.Paths) > 0) {
		return usageErr("diff: --channel picks the directory to compare when no PATH is given; drop it or the PATH (or --a/--b)")
	}

	var cs []*diff.Comparison
	var errs []diff.BundleError
	var baseline *diff.Baseline
	if opts.A != "" {
		if len(opts.Paths) > 0 {
			return usageErr("diff: --a/--b and PATH arguments are mutually exclusive")
		}
		if opts.Run != "" {
			return usageErr("diff: --run applies to bundles, not to --a/--b")
		}
		in, err := diff.LoadFiles(opts.A, opts.B, dopt)
		if err != nil {
			return usageErr("diff: %v", err)
		}
		cs = []*diff.Comparison{diff.Compare(in)}
	} else {
		dirs, err := findBundles(f, opts.Paths, opts.Channel)
		if err != nil {
			return err
		}
		// Each comparison allocates a few megabytes that die at once while
		// the results stay small: collect less often, under a soft limit.
		defer debug.SetGCPercent(debug.SetGCPercent(300))
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(512 << 20))
		prog := newProgress(f.IO)
		if len(dirs) > 1 {
			dopt.Progress = func(done, total int) { prog.show("diff: %d of %s", done, plural(total, "bundle")) }
		}
		cs, errs = diff.CompareBundles(dirs, dopt, opts.Jobs)
		prog.clear()
		if len(cs) == 0 && len(errs) > 0 && diff.AllNoAnswer(errs) {
			return usageErr("%v", diff.NoAnswer(errs, opts.Run, opts.Paths, opts.Channel))
		}
		diffReportErrors(f, opts, errs)
		if opts.Baseline != "" {
			if baseline, err = diffBaseline(f, opts, dirs, dopt, cs); err != nil {
				return err
			}
		}
	}
	rep := diff.NewReport(cs, errs, failOn)
	rep.Baseline = baseline
	topt := diff.TextOptions{Color: color, Stat: opts.Stat, Worst: opts.Worst}
	switch {
	case format == "json" && opts.Stat:
		err = rep.WriteStatJSON(f.IO.Out, opts.Worst)
	case format == "json":
		err = rep.WriteJSON(f.IO.Out)
	case format == "markdown":
		topt.Color = false
		err = rep.WriteMarkdown(f.IO.TextOut(), topt)
	default:
		// WriteText escapes what it writes itself, around its colours.
		err = rep.WriteText(f.IO.Out, topt)
	}
	if err != nil {
		return err
	}
	var problems []string
	if len(rep.Failed) > 0 {
		bad := map[string]bool{}
		for _, fl := range rep.Failed {
			bad[fl.Bundle] = true
		}
		problems = append(problems, fmt.Sprintf("--fail-on %s: B is worse than A in %d of %s",
			strings.Join(failOn, ","), len(bad), plural(len(cs), "comparison")))
	}
	if b := rep.Baseline; newlyLostGate && b != nil && len(b.NewlyLost) > 0 {
		problems = append(problems, fmt.Sprintf("--fail-on %s: run %s lost %s that the baseline %s kept, in %s",
			diff.FailNewlyLost, opts.Run, plural(len(b.NewlyLost), "must-keep item"), b.Run, plural(b.Worse, "bundle")))
	}
	if len(errs) > 0 {
		msg := fmt.Sprintf("%d of %s not compared", len(errs), plural(len(errs)+len(cs), "bundle"))
		noAns := 0
		for _, e := range errs {
			if e.NoAnswer {
				noAns++
			}
		}
		switch {
		case noAns == len(errs):
			msg += " (no replay with an answer)"
		case noAns > 0:
			msg += fmt.Sprintf(" (%d with no replay with an answer)", noAns)
		}
		problems = append(problems, msg)
	}
	if len(problems) > 0 {
		return &ExitError{Code: exitFailed, Err: errors.New("diff: " + strings.Join(problems, "; "))}
	}
	return nil
}

// diffBaseline compares the bundles with the baseline run too: exit 2
// when no bundle has an answer from it.
func diffBaseline(f *Factory, opts *diffOptions, dirs []string, dopt diff.Options, cs []*diff.Comparison) (*diff.Baseline, error) {
	var compared []string
	for _, c := range cs {
		compared = append(compared, c.Bundle)
	}
	bopt := dopt
	bopt.Run, bopt.WithDiffs, bopt.Progress = opts.Baseline, false, nil
	prog := newProgress(f.IO)
	if len(compared) > 1 {
		bopt.Progress = func(done, total int) { prog.show("diff: baseline %d of %s", done, plural(total, "bundle")) }
	}
	base, _ := diff.CompareBundles(compared, bopt, opts.Jobs)
	prog.clear()
	if len(base) == 0 && len(compared) > 0 {
		return nil, usageErr("diff: --baseline %s: no answer from that run in the %s compared; runs found: %s",
			opts.Baseline, plural(len(compared), "bundle"), runNameList(bundle.RunNames(dirs)))
	}
	return diff.NewBaseline(opts.Baseline, cs, base), nil
}

// diffReportErrors prints one line per bundle that could not be compared;
// with --stat, only the first --worst of them and a count of the rest.
func diffReportErrors(f *Factory, opts *diffOptions, errs []diff.BundleError) {
	for i, e := range errs {
		if opts.Stat && i == max(opts.Worst, 1) {
			fmt.Fprintf(f.IO.ErrOut, "compact diff: and %s not compared (without --stat, or with --json, all are listed)\n",
				plural(len(errs)-i, "more bundle"))
			return
		}
		fmt.Fprintf(f.IO.ErrOut, "compact diff: %s: %s\n", e.Bundle, e.Error)
	}
}
