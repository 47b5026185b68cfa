package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/boundary"
	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/estimate"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/pipeline"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/replay"
	"github.com/compactlab/compact/internal/store"
	"github.com/compactlab/compact/internal/upstream"
)

func init() { register(newCmdCompress) }

type compressOptions struct {
	f             *Factory
	DB            string
	Channel       string
	Chat          string
	At            int
	ContextWindow int
	Model         string
	Cascade       bool
	Fallback      string
	Out           string
	Force         bool
	Pack          string
	Profile       string
	SkillsDir     string
	Locale        string
	MinUncomp     int
	NoModel       bool
	Generator     replay.Generator // tests
}

func newCmdCompress(f *Factory) *cobra.Command {
	opts := &compressOptions{f: f}
	c := &cobra.Command{
		Use:   "compress --chat ID",
		Short: "Run the app's compression step on one chat, offline",
		Long: "Does what the app would do on a chat as it stands (or as it stood after\n" +
			"message --at N): the trigger check with the figures behind it, the backward\n" +
			"boundary walk, the serializer from the previous briefing on, and the prompt\n" +
			"with its budget hint; writes one bundle in the extract layout (plus\n" +
			"pipeline.json with the figures) and sends it to --model or the cascade,\n" +
			"recording the answer under replays/<run>/. When the walk finds nothing to\n" +
			"compress it says why and writes nothing.",
		Example: "  compact compress --db examples/stagewise/instances.sqlite --chat ff5dc157-1738-4824-a458-f29a0cd9d0fb --model builtin\n" +
			"  compact compress --channel nightly --chat 7f3a… --at 40 --context-window 200000 --no-model",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := channelFromConfig(c, f, &opts.Channel); err != nil {
				return err
			}
			str := func(flag, key string, dst *string) { configDefault(c, f, flag, key, dst) }
			str("pack", "pack", &opts.Pack)
			str("profile", "profile", &opts.Profile)
			str("skills-dir", "skills_dir", &opts.SkillsDir)
			str("locale", "locale", &opts.Locale)
			return runCompress(c, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.DB, "db", "", "read the database at `PATH` instead of the channel's")
	addChannelFlag(c, &opts.Channel, "read the desktop app's database of release channel `NAME`: "+strings.Join(extract.ChannelNames, ", "))
	fl.StringVar(&opts.Chat, "chat", "", "`ID` of the chat to compress (required)")
	fl.IntVar(&opts.At, "at", -1, "take the chat as it stood after message `N` (0-based; -1: as it stands now)")
	fl.IntVar(&opts.ContextWindow, "context-window", 0, "the model's context window in `TOKENS` (default: the chat's model, on its provider instance, in the profile's catalogue and context_windows)")
	fl.IntVar(&opts.MinUncomp, "min-uncompressed", 0, "keep at least `N` messages uncompressed (default: the agent's, from the configuration)")
	fl.StringVar(&opts.Model, "model", "", "send the request to the model `ID` (see the models table in \"compact config show\")")
	fl.BoolVar(&opts.Cascade, "cascade", false, "send the request through the cascade (the default)")
	fl.StringVar(&opts.Fallback, "fallback-model", "", "with the cascade: the model `ID` tried last (default: the chat's own model)")
	fl.BoolVar(&opts.NoModel, "no-model", false, "write the bundle and stop: send nothing")
	fl.StringVar(&opts.Out, "out", "", "write the bundle to `DIR` (default experiments-data/compress/<chat>-at-<N>)")
	fl.BoolVar(&opts.Force, "force", false, "replace an existing bundle directory")
	fl.StringVar(&opts.Pack, "pack", prompt.DefaultPackName, "prompt pack: a built-in `NAME` or a directory written by \"compact prompt import\"")
	fl.StringVar(&opts.Profile, "profile", upstream.Default, profileUsage)
	fl.StringVar(&opts.SkillsDir, "skills-dir", "", "resolve slash commands against `DIR`/skills and DIR/plugins")
	fl.StringVar(&opts.Locale, "locale", "", "format the size hint's numbers for `LOCALE`, e.g. de-DE (default: the configuration, then LC_ALL, LC_MESSAGES, LANG)")
	c.MarkFlagsMutuallyExclusive("model", "cascade", "no-model")
	completeProfile(c)
	completePack(c)
	completeDBFlags(c)
	for _, name := range []string{"model", "fallback-model"} {
		_ = c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return completionModels(f), cobra.ShellCompDirectiveNoFileComp
		})
	}
	return c
}

// completionModels lists the ids of the model table, for completion.
func completionModels(f *Factory) []string {
	st, err := completionConfig(f)
	if err != nil {
		return nil
	}
	cs, err := cascade.Load(st, f.Getenv)
	if err != nil {
		return nil
	}
	return cs.Models.IDs()
}

func runCompress(c *cobra.Command, opts *compressOptions) error {
	f := opts.f
	if opts.Chat == "" {
		return usageErr("--chat is required (see compact extract --json for chat ids)")
	}
	rel, err := resolveProfile("--profile", opts.Profile)
	if err != nil {
		return err
	}
	params, err := compressionParamsFor(f.Config, opts.Profile)
	if err != nil {
		return err
	}
	if c.Flags().Changed("min-uncompressed") {
		m := opts.MinUncomp
		params.MinUncompressed = &m
	}
	in, err := resolvePipelineInputs(f, opts.Profile, opts.Pack, opts.Locale, opts.DB, opts.Channel, runtime.GOOS)
	if err != nil {
		return err
	}
	if err := checkSkillsDir(opts.SkillsDir); err != nil {
		return err
	}
	profile, pack, locale, db := in.profile, in.pack, in.locale, in.db
	est := estimate.Profiles[opts.Profile]
	windows, err := windowTable(f.Config, opts.Profile)
	if err != nil {
		return err
	}
	out := opts.Out
	if out == "" {
		at := "end"
		if opts.At >= 0 {
			at = fmt.Sprint(opts.At)
		}
		out = filepath.Join("experiments-data", "compress", extract.Slug(opts.Chat)+"-at-"+at)
	}
	var window *int
	if c.Flags().Changed("context-window") {
		w := opts.ContextWindow
		window = &w
	}
	ctx := c.Context()
	// A Ctrl-C while a model writes cancels the request; what was written
	// stays, and the run exits 130.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := pipeline.Run(ctx, pipeline.Options{
		DBPath: db, ChatID: opts.Chat, At: opts.At, ContextWindow: window,
		Windows: windows, Params: params, Profile: profile, Estimate: est,
		SkillsDir: opts.SkillsDir, Pack: pack, Locale: locale, OutDir: out, Force: opts.Force,
	})
	if err != nil {
		if ctx.Err() != nil && isInterrupt(err) {
			return interrupted("interrupted; nothing written")
		}
		if errors.Is(err, store.ErrChatNotFound) {
			return usageErr("--chat: no chat %q in %s (compact extract --json lists the chat ids)", opts.Chat, db)
		}
		return err
	}
	if n := res.LeftoversRemoved; n > 0 {
		fmt.Fprintf(f.IO.ErrOut, "compact compress: removed %s of an interrupted run beside %s\n", plural(n, "leftover"), res.Bundle)
	}
	w := f.IO.Out
	var items []replay.Item
	if !res.Skipped() && !opts.NoModel {
		gen := opts.Generator
		var order []string
		if gen == nil {
			cs, err := cascade.LoadFor(f.Config, f.Getenv, opts.Profile)
			if err != nil {
				return usageErr("%v", err)
			}
			wireBuiltin(cs, opts.Profile)
			gen = cs
			if opts.Model != "" {
				if _, ok := cs.Models.Lookup(opts.Model); !ok {
					return usageErr("--model: unknown model %q (known: %s)", opts.Model, strings.Join(cs.Models.IDs(), ", "))
				}
				order = []string{opts.Model}
			} else {
				fb := opts.Fallback
				if fb == "" {
					fb = res.ActiveModel
				}
				if _, ok := cs.Models.Lookup(fb); !ok {
					fb = ""
				}
				order = cs.Order(fb)
			}
		} else {
			order = []string{opts.Model}
		}
		// As replay does: models without a key are left out, and with
		// none left nothing is sent (the bundle stays written).
		if cs, ok := gen.(*cascade.Cascade); ok && opts.Generator == nil {
			ready, missing := dropKeyless(f, "compress", cs, order)
			if len(ready) == 0 && len(missing) > 0 {
				what := "any model of the cascade"
				if len(missing) == 1 {
					what = missing[0].Model
				}
				return usageErr("no API key for %s: set %s; the bundle is written (%s): replay it offline with compact replay --model builtin %s, or use --model builtin or --no-model",
					what, cascade.KeyVars(missing, len(missing) > 1), res.Bundle, res.Bundle)
			}
			order = ready
		}
		run := "cascade"
		if opts.Model != "" {
			run = opts.Model
		}
		items, err = replay.Run(ctx, gen, replay.Options{
			Bundles: []string{res.Bundle}, Models: order, Run: run, Jobs: 1, Force: true, ToolVersion: Version,
		}, replay.Hooks{})
		if err != nil {
			if ctx.Err() != nil && isInterrupt(err) {
				return interrupted("interrupted; the bundle is in %s, without a briefing", res.Bundle)
			}
			return err
		}
	}
	if f.JSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			*pipeline.Result
			Replay []replay.Item `json:"replay,omitempty"`
		}{res, items})
	}
	w = f.IO.TextOut() // the chat's title is the user's text
	fmt.Fprintf(w, "chat %s (%s), %s, model %s\n", res.ChatID, res.Title, plural(res.Messages, "message"), dash(res.ActiveModel))
	tr := res.Trigger
	fmt.Fprintf(w, "trigger: %v — %s (used %s, from the %s)\n", tr.Trigger, tr.Explanation, fmtTokens(tr.UsedTokens), res.UsedTokensFrom)
	wk := res.Walk
	switch {
	case wk.Kind == boundary.KindSkipNoBoundaryID:
		fmt.Fprintf(w, "walk: the boundary, message %d, has no id, and %s gives up there; nothing written\n", *wk.BoundaryIndex, rel.Name)
		return nil
	case res.Skipped():
		fmt.Fprintf(w, "walk: %s — kept budget %s, floor %s, context window %s; nothing written\n",
			wk.Kind, plural(wk.KeptBudget, "token"), plural(wk.Floor, "message"), plural(wk.ContextWindow, "token"))
		return nil
	default:
		fmt.Fprintf(w, "walk: compress before message %d, keeping %s (%s of %s), floor %s\n",
			*wk.BoundaryIndex, plural(*wk.KeptCount, "message"), fmtTokens(wk.KeptTokens), plural(wk.KeptBudget, "token"), plural(wk.Floor, "message"))
	}
	if wk.SingleMessageWarning {
		fmt.Fprintln(w, "warning: the last message alone exceeds the kept budget; the app keeps it alone")
	}
	fmt.Fprintf(w, "prompt: compact history %s, previous briefing %s, user message %s\n", plural(res.CompactChars, "char"), plural(res.PrevChars, "char"), plural(res.UserChars, "char"))
	fmt.Fprintf(w, "bundle: %s\n", res.Bundle)
	failed := false
	for _, it := range items {
		switch it.Status {
		case replay.StatusOK:
			fmt.Fprintf(w, "briefing: %s from %s -> %s\n", plural(it.Chars, "char"), it.Model, filepath.Join(res.Bundle, bundle.DirReplays))
		default:
			fmt.Fprintf(w, "briefing: %s: %s\n", it.Status, it.Error)
			failed = true
		}
	}
	if failed {
		// The bundle is written; only the model's answer is missing.
		return fmt.Errorf("no briefing from the model (above); the bundle is in %s: replay it with compact replay %s", res.Bundle, res.Bundle)
	}
	return nil
}

func fmtTokens(f float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.0f", f), ".0")
}
