package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/compactlab/compact/internal/diff"
)

func init() { register(newCmdDiff) }

type diffOptions struct {
	f       *Factory
	Paths   []string
	Run     string
	A, B    string
	Format  string
	FailOn  []string
	Stat    bool
	Color   string
	Jobs    int
	Target  int
	Profile string
	// isTerminal reports whether stdout is a terminal (tests replace it).
	isTerminal func(io.Writer) bool
}

// diffIsTerminal decides whether stdout is a terminal; tests replace it.
var diffIsTerminal = writerIsTerminal

func newCmdDiff(f *Factory) *cobra.Command {
	opts := &diffOptions{f: f, isTerminal: diffIsTerminal}
	c := &cobra.Command{
		Use:   "diff [PATH]... [--run NAME] [--a FILE --b FILE] [--format text|json|markdown] [--fail-on RULE]...",
		Short: "Compare actual and replayed briefings: a section diff and quality measures",
		Long: "For every bundle under each PATH (a bundle, chat or channel directory;\n" +
			"default: the default extract output) compares A, the bundle's\n" +
			"actual-output.md, with B, the output of a replay (replays/<run>/output.md;\n" +
			"--run, default the newest replay). --a and --b compare any two files,\n" +
			"measured against the compact-history.xml beside A when there is one.\n\n" +
			"Prints a diff organised by ## section (kept, changed, only in A, only in\n" +
			"B; sentences as lines) and, for A and B, the size against the target and\n" +
			"the previous briefing, the must-keep items of the input each kept or lost\n" +
			"(paths, links, colours, the previous briefing's headings, the user's\n" +
			"decisions, failed tool outcomes), XML tag leaks and broken output rules,\n" +
			"and their similarity (ROUGE-L, sentence reuse). With many bundles, a table\n" +
			"worst first with totals and medians, and the sizes along each chain.\n\n" +
			"Exit status: 0 done; 1 a --fail-on measure is worse in B than in A, or a\n" +
			"bundle could not be compared (the others still are); 2 usage or input\n" +
			"error.",
		Example: "  compact diff experiments-data/history-compression/prerelease --stat\n" +
			"  compact diff path/to/compression-002 --run builtin --format markdown\n" +
			"  compact diff --a old.md --b new.md\n" +
			"  compact diff runs/ --fail-on lost-paths --fail-on leak --json",
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if !c.Flags().Changed("profile") {
				opts.Profile = f.Config.String("profile")
			}
			opts.Target = f.Config.Int("compression::target_chars")
			return runDiff(c, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Run, "run", "", "replay run to compare with (default: the newest replay of each bundle)")
	fl.StringVar(&opts.A, "a", "", "compare this file (A) ...")
	fl.StringVar(&opts.B, "b", "", "... with this one (B)")
	fl.StringVar(&opts.Format, "format", "text", "output format: text, json or markdown (--json is --format json)")
	fl.StringSliceVar(&opts.FailOn, "fail-on", nil, "exit 1 when B is worse than A on: lost-paths, leak, rules or shrink (repeatable)")
	fl.BoolVar(&opts.Stat, "stat", false, "only the summary lines: no diffs, no lists of lost items")
	fl.StringVar(&opts.Color, "color", "auto", "colour the text output: auto (on a terminal, unless NO_COLOR is set), always or never")
	fl.IntVarP(&opts.Jobs, "jobs", "j", 0, "bundles compared in parallel (default: CPUs)")
	fl.StringVar(&opts.Profile, "profile", "e3e", "rules profile for bundles whose metadata does not say: e3e or head")
	return c
}

// writerIsTerminal reports whether w is a terminal.
func writerIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func runDiff(c *cobra.Command, opts *diffOptions) error {
	f := opts.f
	format := opts.Format
	if f.JSON {
		if c.Flags().Changed("format") && format != "json" {
			return usageErr("diff: --json and --format %s conflict", format)
		}
		format = "json"
	}
	switch format {
	case "text", "json", "markdown":
	default:
		return usageErr("diff: --format: unknown format %q (want text, json or markdown)", format)
	}
	var failOn []string
	for _, m := range opts.FailOn {
		m = strings.TrimSpace(m)
		ok := false
		for _, known := range diff.Measures {
			ok = ok || m == known
		}
		if !ok {
			return usageErr("diff: --fail-on: unknown measure %q (want %s)", m, strings.Join(diff.Measures, ", "))
		}
		failOn = append(failOn, m)
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
	if opts.Profile != diff.ProfileE3E && opts.Profile != diff.ProfileHead {
		return usageErr("diff: --profile: unknown profile %q (want e3e or head)", opts.Profile)
	}
	if opts.Jobs < 0 {
		return usageErr("diff: --jobs must not be negative")
	}
	dopt := diff.Options{Run: opts.Run, Target: opts.Target, Profile: opts.Profile, WithDiffs: !opts.Stat}
	if (opts.A == "") != (opts.B == "") {
		return usageErr("diff: --a and --b go together")
	}

	var cs []*diff.Comparison
	var errs []diff.BundleError
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
		dirs, err := diffBundles(f, opts.Paths)
		if err != nil {
			return err
		}
		// Each comparison allocates a few megabytes that die at once while
		// the results stay small: collect less often, under a soft limit.
		defer debug.SetGCPercent(debug.SetGCPercent(300))
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(512 << 20))
		prog := newProgress(f.IO)
		if len(dirs) > 1 {
			dopt.Progress = func(done, total int) { prog.show("diff: %d/%d bundles", done, total) }
		}
		cs, errs = diff.CompareBundles(dirs, dopt, opts.Jobs)
		prog.clear()
		for _, e := range errs {
			fmt.Fprintf(f.IO.ErrOut, "compact diff: %s: %s\n", e.Bundle, e.Error)
		}
	}
	rep := diff.NewReport(cs, errs, failOn)
	var err error
	switch format {
	case "json":
		err = rep.WriteJSON(f.IO.Out)
	case "markdown":
		err = rep.WriteMarkdown(f.IO.Out, diff.TextOptions{Stat: opts.Stat})
	default:
		err = rep.WriteText(f.IO.Out, diff.TextOptions{Color: color, Stat: opts.Stat})
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
		problems = append(problems, fmt.Sprintf("--fail-on %s: B is worse than A in %d of %d comparisons",
			strings.Join(failOn, ","), len(bad), len(cs)))
	}
	if len(errs) > 0 {
		problems = append(problems, fmt.Sprintf("%d of %d bundles not compared", len(errs), len(errs)+len(cs)))
	}
	if len(problems) > 0 {
		return &ExitError{Code: 1, Err: errors.New("diff: " + strings.Join(problems, "; "))}
	}
	return nil
}

// diffBundles lists the bundles under paths, or under the default extract
// output when there are none.
func diffBundles(f *Factory, paths []string) ([]string, error) {
	if len(paths) == 0 {
		def := filepath.Join(f.Config.String("extract::out"), f.Config.String("extract::channel"))
		if _, err := os.Stat(def); err != nil {
			return nil, usageErr("diff: no PATH given and the default extract output %s does not exist", def)
		}
		paths = []string{def}
	}
	var dirs []string
	seen := map[string]bool{}
	for _, p := range paths {
		found, err := diff.FindBundles(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, usageErr("diff: %s does not exist", p)
			}
			return nil, usageErr("diff: %v", err)
		}
		if len(found) == 0 {
			return nil, usageErr("diff: no bundles under %s (a bundle holds actual-output.md)", p)
		}
		for _, d := range found {
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	return dirs, nil
}
