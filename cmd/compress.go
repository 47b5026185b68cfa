package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/estimate"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/pipeline"
	"github.com/compactlab/compact/internal/replay"
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
		Example: "  compact compress --db examples/stagewise/instances.sqlite --chat chat-darkmode --model builtin\n" +
			"  compact compress --chat 7f3a… --at 40 --context-window 200000 --no-model",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			str := func(flag, key string, dst *string) { configDefault(c, f, flag, key, dst) }
			str("channel", "extract::channel", &opts.Channel)
			str("pack", "pack", &opts.Pack)
			str("profile", "profile", &opts.Profile)
			str("skills-dir", "skills_dir", &opts.SkillsDir)
			str("locale", "locale", &opts.Locale)
			return runCompress(c, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.DB, "db", "", "database file (default: the channel's path for this OS)")
	fl.StringVar(&opts.Channel, "channel", "prerelease", "release channel whose database to read")
	fl.StringVar(&opts.Chat, "chat", "", "chat id (required)")
	fl.IntVar(&opts.At, "at", -1, "take the chat as it stood after message N (0-based)")
	fl.IntVar(&opts.ContextWindow, "context-window", 0, "the model's context window (default: the chat's model in the context_windows table)")
	fl.IntVar(&opts.MinUncomp, "min-uncompressed", 0, "the agent's minUncompressedMessages (default from configuration)")
	fl.StringVar(&opts.Model, "model", "", "send the request to this model")
	fl.BoolVar(&opts.Cascade, "cascade", false, "send the request through the cascade (the default)")
	fl.StringVar(&opts.Fallback, "fallback-model", "", "with the cascade: the model tried last (default: the chat's own model)")
	fl.BoolVar(&opts.NoModel, "no-model", false, "write the bundle and stop: send nothing")
	fl.StringVar(&opts.Out, "out", "", "bundle directory (default experiments-data/compress/<chat>-at-<N>)")
	fl.BoolVar(&opts.Force, "force", false, "replace an existing bundle directory")
	fl.StringVar(&opts.Pack, "pack", "default", "prompt pack: a built-in name or a directory")
	fl.StringVar(&opts.Profile, "profile", "e3e", "upstream version: e3e or head")
	fl.StringVar(&opts.SkillsDir, "skills-dir", "", "resolve slash commands against DIR")
	fl.StringVar(&opts.Locale, "locale", "", "locale of the hint numbers (default: from the environment)")
	c.MarkFlagsMutuallyExclusive("model", "cascade", "no-model")
	return c
}

func runCompress(c *cobra.Command, opts *compressOptions) error {
	f := opts.f
	if opts.Chat == "" {
		return usageErr("--chat is required (see compact extract --json for chat ids)")
	}
	params, err := compressionParams(f.Config)
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
	profile, pack, locale, db := in.profile, in.pack, in.locale, in.db
	est, ok := estimate.Profiles[opts.Profile]
	if !ok {
		return usageErr("--profile: unknown profile %q", opts.Profile)
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
	res, err := pipeline.Run(context.Background(), pipeline.Options{
		DBPath: db, ChatID: opts.Chat, At: opts.At, ContextWindow: window,
		Windows: f.Config.ContextWindows(), Params: params, Profile: profile, Estimate: est,
		SkillsDir: opts.SkillsDir, Pack: pack, Locale: locale, OutDir: out, Force: opts.Force,
	})
	if err != nil {
		return fmt.Errorf("compress: %w", err)
	}
	w := f.IO.Out
	var items []replay.Item
	if !res.Skipped() && !opts.NoModel {
		gen := opts.Generator
		var order []string
		if gen == nil {
			cs, err := cascade.Load(f.Config, f.Getenv)
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
		run := "cascade"
		if opts.Model != "" {
			run = opts.Model
		}
		items, err = replay.Run(context.Background(), gen, replay.Options{
			Bundles: []string{res.Bundle}, Models: order, Run: run, Jobs: 1, Force: true, ToolVersion: Version,
		}, replay.Hooks{})
		if err != nil {
			return fmt.Errorf("compress: %w", err)
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
	fmt.Fprintf(w, "chat %s (%s), %d messages, model %s\n", res.ChatID, res.Title, res.Messages, dash(res.ActiveModel))
	tr := res.Trigger
	fmt.Fprintf(w, "trigger: %v — %s (used %s, from the %s)\n", tr.Trigger, tr.Explanation, fmtTokens(tr.UsedTokens), res.UsedTokensFrom)
	wk := res.Walk
	switch {
	case res.Skipped():
		fmt.Fprintf(w, "walk: %s — kept budget %d tokens, floor %d messages, context window %d; nothing written\n",
			wk.Kind, wk.KeptBudget, wk.Floor, wk.ContextWindow)
		return nil
	default:
		fmt.Fprintf(w, "walk: compress before message %d, keeping %d messages (%s of %d tokens), floor %d\n",
			*wk.BoundaryIndex, *wk.KeptCount, fmtTokens(wk.KeptTokens), wk.KeptBudget, wk.Floor)
	}
	if wk.SingleMessageWarning {
		fmt.Fprintln(w, "warning: the last message alone exceeds the kept budget; the app keeps it alone")
	}
	fmt.Fprintf(w, "prompt: compact history %d chars, previous briefing %d chars, user message %d chars\n", res.CompactChars, res.PrevChars, res.UserChars)
	fmt.Fprintf(w, "bundle: %s\n", res.Bundle)
	for _, it := range items {
		switch it.Status {
		case replay.StatusOK:
			fmt.Fprintf(w, "briefing: %d chars from %s -> %s\n", it.Chars, it.Model, filepath.Join(res.Bundle, replay.DirReplays))
		default:
			fmt.Fprintf(w, "briefing: %s: %s\n", it.Status, it.Error)
		}
	}
	return nil
}

func fmtTokens(f float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.0f", f), ".0")
}
