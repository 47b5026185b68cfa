package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/report"
	"github.com/compactlab/compact/internal/upstream"
)

func init() { register(newCmdReport) }

type reportOptions struct {
	f        *Factory
	Paths    []string
	Channel  string
	Output   string
	Runs     []string
	Baseline string
	Judge    string
	Simulate []string
	Title    string
	MaxSize  int
	Jobs     int
	Target   int
	Profile  string
	// Stop is the interrupt context (tests replace it).
	Stop context.Context
}

func newCmdReport(f *Factory) *cobra.Command {
	opts := &reportOptions{f: f}
	c := &cobra.Command{
		Use:   "report [PATH]...",
		Short: "Write one self-contained HTML page over bundles, their replays and simulate results",
		Long: "Writes one static HTML file (no network, nothing loaded from anywhere: the\n" +
			"styles, the charts and a few lines of script are in it) to look at and\n" +
			"share:\n\n" +
			"  an overview: the app's briefing and each replay run side by side (model,\n" +
			"  prompt pack, tokens, cost, sizes against the target, must-keep items,\n" +
			"  rules, leaks, offline probe scores per kind, judged scores where\n" +
			"  `compact eval --judge` recorded them), with their distributions;\n" +
			"  the bundles worst first, each opening to both briefings side by side:\n" +
			"  the section diff highlighted, leaks and broken rules marked on their\n" +
			"  lines, the probes kept and lost, the compact history;\n" +
			"  the chains: briefing size and probe score along each chat;\n" +
			"  simulate: context tokens over the steps per strategy, with where each\n" +
			"  compacted and where the app did (--simulate FILE, the output of\n" +
			"  `compact simulate --json`; repeat it to put strategies side by side).\n\n" +
			"Every bundle under each PATH (a bundle, chat or channel directory; default:\n" +
			"the extract output of --channel) is read. A bundle's section is packed into\n" +
			"the page and unpacked when it is opened, so that thousands of bundles load\n" +
			"at once; past --max-size, the best bundles' sections are left out.\n\n" +
			"Exit status: 0 written; 1 some bundles could not be read (the page shows\n" +
			"the others); 2 usage or input error, or nothing to report.",
		Example: "  compact report -o report.html\n" +
			"  compact report experiments-data/history-compression/prerelease --run default-pack,terse-pack --baseline default-pack\n" +
			"  compact simulate --db examples/stagewise/instances.sqlite --context-window 6000 --json > stagewise.json\n" +
			"  compact report --simulate stagewise.json -o report.html",
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
			return runReport(c, opts)
		},
	}
	fl := c.Flags()
	fl.StringVarP(&opts.Output, "output", "o", "report.html", "write the page to `FILE` (- for stdout)")
	addChannelFlag(c, &opts.Channel, "channel whose extract output to report on when no PATH is given")
	fl.StringSliceVar(&opts.Runs, "run", nil, "show only the replay run `NAME` beside the app's briefing (repeatable, or comma-separated; default: every run with an answer)")
	fl.StringVar(&opts.Baseline, "baseline", "", "compare the probe scores with the briefing `NAME`: actual (the default) or a run")
	fl.StringVar(&opts.Judge, "judge", "", "read the judge records <bundle>/judge/`NAME`.json (default: each bundle's first)")
	fl.StringArrayVar(&opts.Simulate, "simulate", nil, "add the simulate results in `FILE`, the output of compact simulate --json (repeatable)")
	fl.StringVar(&opts.Title, "title", "", "the page's `TITLE` (default: compact report)")
	fl.IntVar(&opts.MaxSize, "max-size", 64, "keep the page under about `MB` MiB: past it, the best bundles' sections are left out (0: no limit)")
	addJobsFlag(c, &opts.Jobs, 0, "bundles read at once (default: the number of CPUs)")
	fl.StringVar(&opts.Profile, "profile", upstream.Default, "the prompt rules of `RELEASE` for bundles whose metadata does not say: "+profileChoices)
	completeProfile(c)
	_ = c.MarkFlagFilename("simulate", "json")
	_ = c.MarkFlagFilename("output", "html")
	runNames := func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		return diffRunNames(c, f, &diffOptions{Channel: opts.Channel}, args), cobra.ShellCompDirectiveNoFileComp
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

// reportResult is what --json prints.
type reportResult struct {
	File     string               `json:"file"`
	Names    []string             `json:"briefings"`
	Baseline string               `json:"baseline"`
	Judges   []string             `json:"judges"`
	Errors   []report.BundleError `json:"errors"`
	report.Stats
}

func runReport(c *cobra.Command, opts *reportOptions) error {
	f := opts.f
	if opts.MaxSize < 0 {
		return usageErr("report: --max-size must not be negative")
	}
	if opts.Jobs < 0 {
		return usageErr("report: --jobs must not be negative")
	}
	gen, err := profileGen("report: --profile", opts.Profile)
	if err != nil {
		return err
	}
	opts.Profile = gen
	if opts.Output == "" {
		return usageErr("report: --output: give a file name, or - for stdout")
	}
	toStdout := opts.Output == "-"
	if toStdout && f.JSON {
		return usageErr("report: --json prints a summary on stdout; write the page to a file with -o FILE")
	}
	if c.Flags().Changed("channel") && len(opts.Paths) > 0 {
		return usageErr("report: --channel picks the directory to report on when no PATH is given; drop it or the PATH")
	}
	var runs []string
	for _, r := range opts.Runs {
		if r = strings.TrimSpace(r); r != "" && !slices.Contains(runs, r) {
			runs = append(runs, r)
		}
	}
	var sims []*report.Simulation
	for _, p := range opts.Simulate {
		s, err := report.ReadSimulation(p)
		if err != nil {
			return usageErr("report: --simulate: %v", err)
		}
		sims = append(sims, s)
	}

	// Bundles: those under the PATHs, or the channel's; with only
	// --simulate and no PATH, none is fine.
	var dirs []string
	if len(opts.Paths) > 0 || len(sims) == 0 {
		var err error
		if dirs, err = findBundles(f, opts.Paths, opts.Channel); err != nil {
			return err
		}
	} else if found, err := readFinder.Find([]string{channelDir(f, opts.Channel)}); err == nil {
		if err := checkBundles(found); err != nil {
			return err
		}
		dirs = found
	}

	ctx := opts.Stop
	if ctx == nil {
		var cancel context.CancelFunc
		ctx, cancel = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer cancel()
	}
	prog := newProgress(f.IO)
	bopt := report.Options{Runs: runs, Baseline: opts.Baseline, Judge: opts.Judge, Target: opts.Target, Profile: opts.Profile,
		Jobs: opts.Jobs, Stop: func() bool { return ctx.Err() != nil }}
	if len(dirs) > 1 {
		bopt.Progress = func(done, total int) { prog.show("report: %d of %s", done, plural(total, "bundle")) }
	}
	// As in diff: each bundle allocates a few megabytes that die at once.
	defer debug.SetGCPercent(debug.SetGCPercent(300))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(512 << 20))
	rep := report.Build(dirs, bopt)
	prog.clear()
	if ctx.Err() != nil {
		return interrupted("report: interrupted; nothing written")
	}
	rep.Sims = sims
	for _, e := range rep.Errors {
		fmt.Fprintf(f.IO.ErrOut, "compact report: %s: %s\n", e.Bundle, e.Error)
	}
	if err := reportNothing(opts, dirs, rep, runs); err != nil {
		return err
	}

	popt := report.PageOptions{Title: opts.Title, Version: version(), MaxBytes: int64(opts.MaxSize) << 20}
	var st report.Stats
	if toStdout {
		var err error
		if st, err = rep.WriteHTML(f.IO.Out, popt); err != nil {
			return err
		}
	} else {
		var err error
		if st, err = writeReportFile(f, opts.Output, rep, popt); err != nil {
			return err
		}
	}
	res := reportResult{File: opts.Output, Names: rep.Names, Baseline: rep.Baseline, Judges: rep.Judges, Errors: rep.Errors, Stats: st}
	if res.Names == nil {
		res.Names = []string{}
	}
	if res.Judges == nil {
		res.Judges = []string{}
	}
	if res.Errors == nil {
		res.Errors = []report.BundleError{}
	}
	switch {
	case f.JSON:
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return err
		}
	case toStdout:
		if !f.Quiet {
			fmt.Fprintln(f.IO.ErrOut, "compact report: "+reportSummary(res))
		}
	default:
		fmt.Fprintln(f.IO.TextOut(), reportSummary(res))
	}
	if len(rep.Errors) > 0 {
		return &ExitError{Code: exitFailed, Err: fmt.Errorf("report: %d of %s not read (each is named above)", len(rep.Errors), plural(len(dirs), "bundle"))}
	}
	return nil
}

// reportSummary is the one line saying what was written.
func reportSummary(r reportResult) string {
	var parts []string
	if r.Bundles > 0 || len(r.Errors) > 0 {
		b := plural(r.Bundles, "bundle")
		if r.LeftOut > 0 {
			b += fmt.Sprintf(" (%d without a section: --max-size)", r.LeftOut)
		}
		parts = append(parts, b)
		runs := len(r.Names)
		if slices.Contains(r.Names, eval.Actual) {
			runs--
		}
		parts = append(parts, plural(runs, "run"))
		if r.Chains > 0 {
			parts = append(parts, plural(r.Chains, "chain"))
		}
	}
	if r.Simulations > 0 {
		parts = append(parts, plural(r.Simulations, "simulation"))
	}
	return fmt.Sprintf("%s: %s; %s", r.File, strings.Join(parts, ", "), humanBytes(r.Bytes))
}

// reportNothing is the exit-2 error when there is nothing to report, or a
// run or baseline named that no bundle has.
func reportNothing(opts *reportOptions, dirs []string, rep *report.Report, runs []string) error {
	where := plural(len(dirs), "bundle")
	if len(dirs) > 0 && len(rep.Bundles) == 0 && len(rep.Sims) == 0 {
		return usageErr("report: none of the %s could be read (each is named above); pass bundles that hold an %s", where, bundle.FileActual)
	}
	if len(rep.Bundles) == 0 && len(rep.Sims) == 0 {
		return usageErr("report: nothing to report: no bundles and no --simulate file")
	}
	if len(rep.Bundles) == 0 {
		if len(runs) > 0 || opts.Baseline != "" {
			return usageErr("report: --run and --baseline name replay runs, and there are no bundles")
		}
		return nil
	}
	for _, r := range runs {
		if !slices.Contains(rep.Names, r) {
			return usageErr("report: no replay run %q with an answer in %s; runs found: %s", r, where, runNameList(bundle.RunNames(dirs)))
		}
	}
	if opts.Baseline != "" && !slices.Contains(rep.Names, opts.Baseline) {
		return usageErr("report: --baseline %s: no such briefing in %s (have: %s)", opts.Baseline, where, strings.Join(rep.Names, ", "))
	}
	return nil
}

// writeReportFile writes the page to a hidden temporary file beside path
// and renames it into place, so that a reader never sees half a page.
func writeReportFile(f *Factory, path string, rep *report.Report, popt report.PageOptions) (report.Stats, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return report.Stats{}, usageErr("report: --output %s is a directory; name a file, e.g. %s", path, filepath.Join(path, "report.html"))
	}
	var st report.Stats
	err := writeBeside(f, "report", "report", path, func(w io.Writer) (err error) {
		st, err = rep.WriteHTML(w, popt)
		return err
	})
	return st, err
}
