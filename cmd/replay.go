package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/replay"
)

func init() { register(newCmdReplay) }

type replayOptions struct {
	f        *Factory
	Paths    []string
	Model    string
	Cascade  bool
	Fallback string
	Pack     string
	Locale   string
	Jobs     int
	Force    bool
	DryRun   bool
	Run      string
	// Stop is the interrupt context (tests replace it).
	Stop context.Context
	// Generator replaces the configured cascade (tests).
	Generator replay.Generator
}

func newCmdReplay(f *Factory) *cobra.Command {
	opts := &replayOptions{f: f}
	c := &cobra.Command{
		Use:   "replay [PATH]...",
		Short: "Send bundles to a model or the cascade and record the briefings beside them",
		Long: "Replays every bundle under PATH (a bundle, a chat directory or a channel\n" +
			"directory; default: the extract output of the configured channel). The\n" +
			"request is the bundle's own system-prompt.md and user-message.md, byte for\n" +
			"byte, or with --pack both rebuilt from compact-history.xml with that pack.\n" +
			"Results go to <bundle>/replays/<run>/output.md and replay.json, never over\n" +
			"the upstream files. Bundles that already have a result for the same run,\n" +
			"models and prompt are skipped unless --force. Ctrl-C stops new requests and\n" +
			"lets the ones in flight finish.",
		Example: "  compact replay --model builtin\n" +
			"  compact replay experiments-data/history-compression/prerelease/001-fix --model gpt-5.4-nano\n" +
			"  compact replay --cascade -j 8 --dry-run",
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if !c.Flags().Changed("locale") {
				opts.Locale = f.Config.String("locale")
			}
			return runReplay(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Model, "model", "", "replay with this model id (see the models table; builtin needs no key)")
	fl.BoolVar(&opts.Cascade, "cascade", false, "replay through the cascade (the default): gemini-3.1-flash-lite, gpt-5.4-nano, claude-haiku-4.5")
	fl.StringVar(&opts.Fallback, "fallback-model", "", "with the cascade: the chat's own model, tried last when not already in the list")
	fl.StringVar(&opts.Pack, "pack", "", "rebuild the prompts with this pack (a built-in name or a directory) instead of the bundle's own files")
	fl.StringVar(&opts.Locale, "locale", "", "locale of the hint numbers when rebuilding with --pack")
	fl.IntVarP(&opts.Jobs, "jobs", "j", 4, "bundles replayed in parallel")
	fl.BoolVar(&opts.Force, "force", false, "replay bundles that already have a result for this run")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print what would be sent and send nothing")
	fl.StringVar(&opts.Run, "run", "", "name of the result directory under replays/ (default: the model id, or cascade)")
	c.MarkFlagsMutuallyExclusive("model", "cascade")
	return c
}

func runReplay(ctx context.Context, opts *replayOptions) error {
	f := opts.f
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Jobs < 1 {
		return usageErr("-j: want at least 1, got %d", opts.Jobs)
	}
	gen := opts.Generator
	var order []string
	if gen == nil {
		c, err := cascade.Load(f.Config, f.Getenv)
		if err != nil {
			return usageErr("%v", err)
		}
		wireBuiltin(c, f.Config.String("profile"))
		gen = c
		if opts.Model != "" {
			if _, ok := c.Models.Lookup(opts.Model); !ok {
				return usageErr("--model: unknown model %q (known: %s)", opts.Model, strings.Join(c.Models.IDs(), ", "))
			}
			order = []string{opts.Model}
		} else {
			order = c.Order(opts.Fallback)
		}
	} else if opts.Model != "" {
		order = []string{opts.Model}
	} else {
		order = []string{"cascade"}
	}
	run := opts.Run
	if run == "" {
		run = "cascade"
		if opts.Model != "" {
			run = opts.Model
		}
	}
	if err := replay.ValidRunName(run); err != nil {
		return usageErr("--run: %v", err)
	}
	var pack *prompt.Pack
	if opts.Pack != "" {
		p, err := prompt.Resolve(opts.Pack)
		if err != nil {
			return usageErr("--pack: %v", err)
		}
		pack = p
	}
	locale := opts.Locale
	if locale == "" {
		locale = prompt.LocaleFromEnv(f.Getenv)
	}
	paths := opts.Paths
	if len(paths) == 0 {
		paths = []string{filepath.Join(f.Config.String("extract::out"), f.Config.String("extract::channel"))}
	}
	bundles, err := replay.FindBundles(paths)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if len(bundles) == 0 {
		return fmt.Errorf("replay: no bundles under %s (run compact extract first)", strings.Join(paths, ", "))
	}

	if opts.DryRun {
		return replayDryRun(f, gen, bundles, order, pack, opts.Pack, locale)
	}

	stop := opts.Stop
	if stop == nil {
		var cancel context.CancelFunc
		stop, cancel = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer cancel()
	}
	prog := newProgress(f.IO)
	items, runErr := replay.Run(stop, gen, replay.Options{
		Bundles: bundles, Models: order, Run: run, Pack: pack, PackName: opts.Pack,
		Locale: locale, Jobs: opts.Jobs, Force: opts.Force, ToolVersion: Version,
	}, replay.Hooks{Progress: func(p replay.Progress) {
		prog.show("replay: %d/%d done, %d failed, %d running, %d tokens, $%.4f",
			p.Done, p.Total, p.Failed, p.Running, p.Usage.InputTokens+p.Usage.OutputTokens, p.CostUSD)
	}})
	prog.clear()
	tot := replayTotals(items)
	if f.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Run    string        `json:"run"`
			Models []string      `json:"models"`
			Items  []replay.Item `json:"items"`
			Totals replayTotal   `json:"totals"`
		}{run, order, items, tot}); err != nil {
			return err
		}
	} else {
		printReplayTable(f, items, tot)
	}
	for _, it := range items {
		if it.Status == replay.StatusError || it.Status == replay.StatusFailed {
			fmt.Fprintf(f.IO.ErrOut, "compact: replay: %s: %s\n", it.Bundle, it.Error)
		}
	}
	if runErr != nil {
		return fmt.Errorf("replay: %w (run again to finish the rest)", runErr)
	}
	if tot.OK+tot.Skipped == 0 {
		return fmt.Errorf("replay: no bundle got an answer")
	}
	return nil
}

type replayTotal struct {
	Bundles      int     `json:"bundles"`
	OK           int     `json:"ok"`
	Failed       int     `json:"failed"`
	Skipped      int     `json:"skipped"`
	Errors       int     `json:"errors"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	CostUSD      float64 `json:"costUsd"`
}

func replayTotals(items []replay.Item) replayTotal {
	t := replayTotal{Bundles: len(items)}
	for _, it := range items {
		switch it.Status {
		case replay.StatusOK:
			t.OK++
		case replay.StatusFailed:
			t.Failed++
		case replay.StatusSkipped:
			t.Skipped++
		default:
			t.Errors++
		}
		t.InputTokens += it.Usage.InputTokens
		t.OutputTokens += it.Usage.OutputTokens
		t.CostUSD += it.CostUSD
	}
	return t
}

func printReplayTable(f *Factory, items []replay.Item, t replayTotal) {
	w := tabwriter.NewWriter(f.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "BUNDLE\tSTATUS\tMODEL\tCHARS\tIN\tOUT\tCOST\tMS")
	for _, it := range items {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%d\t$%.4f\t%d\n", it.Bundle, it.Status, dash(it.Model),
			it.Chars, it.Usage.InputTokens, it.Usage.OutputTokens, it.CostUSD, it.Latency)
	}
	w.Flush()
	fmt.Fprintf(f.IO.Out, "%d bundles: %d ok, %d skipped, %d failed, %d errors; %d input and %d output tokens, $%.4f\n",
		t.Bundles, t.OK, t.Skipped, t.Failed, t.Errors, t.InputTokens, t.OutputTokens, t.CostUSD)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func replayDryRun(f *Factory, gen replay.Generator, bundles, order []string, pack *prompt.Pack, packName, locale string) error {
	type dry struct {
		Bundle   string           `json:"bundle"`
		Requests []cascade.DryRun `json:"requests"`
		Error    string           `json:"error,omitempty"`
	}
	var all []dry
	for _, b := range bundles {
		req, err := replay.BuildRequest(b, pack, packName, locale)
		if err != nil {
			all = append(all, dry{Bundle: b, Error: err.Error()})
			continue
		}
		all = append(all, dry{Bundle: b, Requests: gen.Describe(req.Input, order)})
	}
	if f.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(all)
	}
	out := f.IO.Out
	for _, d := range all {
		fmt.Fprintf(out, "%s\n", d.Bundle)
		if d.Error != "" {
			fmt.Fprintf(out, "  error: %s\n", d.Error)
			continue
		}
		for i, r := range d.Requests {
			fmt.Fprintf(out, "  %d. %s via %s (%s): %s %s\n", i+1, r.Model, r.Provider, r.Kind, r.Method, r.URL)
			temp := "omitted"
			if r.Temperature != nil {
				temp = fmt.Sprint(*r.Temperature)
			}
			fmt.Fprintf(out, "     model %s, temperature %s, max output tokens %d, timeout %s, auth %s\n", r.APIModel, temp, r.MaxOutputTokens, r.Timeout, r.Auth)
			for _, o := range r.Omitted {
				fmt.Fprintf(out, "     left out: %s\n", o)
			}
			if r.Error != "" {
				fmt.Fprintf(out, "     problem: %s\n", r.Error)
			}
			for _, m := range r.Messages {
				fmt.Fprintf(out, "     %s: %d chars, %d bytes\n", m.Role, m.Chars, m.Bytes)
				for _, h := range m.Head {
					fmt.Fprintf(out, "       | %s\n", h)
				}
			}
		}
	}
	return nil
}
