package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/agentbundle"
	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/shard"
	"github.com/compactlab/compact/internal/store"
	"github.com/compactlab/compact/internal/upstream"
)

func init() { register(newCmdExtract) }

type extractOptions struct {
	f           *Factory
	Channel     string
	DB          string
	Source      string
	MinMessages int
	SkillsDir   string
	Pack        string
	Out         string
	Chats       []string
	Force       bool
	// NoContinuation leaves out compact's continuation.xml.
	NoContinuation bool
	Profile        string
	Locale         string
	Workers        int
	Writers        int
	GOOS           string
	// From names an agent whose own session files to read instead of a
	// database (claude-code or codex); Paths are the files or
	// directories given.
	From  string
	Paths []string
	// packChanged: the user chose the pack (flag or configuration).
	packChanged bool
	// Shard and sample (cmd/shardflags.go).
	Shard shardFlags
}

func newCmdExtract(f *Factory) *cobra.Command {
	opts := &extractOptions{f: f, GOOS: runtime.GOOS}
	c := &cobra.Command{
		Use:   "extract [--from AGENT [PATH]...]",
		Short: "Write one playground bundle per compression event of a stagewise database, or per compaction a coding agent recorded",
		Long: "Reads a stagewise agent database read-only, in one snapshot, finds every\n" +
			"message that carries a stored briefing (compressedHistory), and writes one\n" +
			"bundle per such compression event: " + bundle.FileSystemPrompt + ", " + bundle.FileUserMessage + ",\n" +
			bundle.FileCompact + ", " + bundle.FileActual + " and " + bundle.FileMetadata + ", byte for byte as\n" +
			"the upstream extraction writes them.\n\n" +
			"The database is the desktop app's for --channel (prerelease unless the\n" +
			"configuration says otherwise), or the file given with --db. Bundles go to\n" +
			"experiments-data/history-compression/<channel>, or --out; a directory\n" +
			"that already holds files is left alone unless --force. The default source\n" +
			"is the live agentMessages table; --source history reads the stale legacy\n" +
			"column as the upstream script does.\n\n" +
			"With --from AGENT it reads that agent's session files instead (the PATHs,\n" +
			"files or directories; default the agent's own directory: ~/.claude/projects,\n" +
			"~/.codex/sessions, ~/.local/share/opencode, ~/.gemini/tmp) and writes one\n" +
			"bundle per compaction the agent recorded: the history the compaction\n" +
			"replaced, the summary the agent wrote as " + bundle.FileActual + ", and the prompts\n" +
			"of the agent's built-in pack (or --pack). AGENT is " + agentbundle.AgentList() + ".\n" +
			"With --from otel (or openinference, the same reader) it reads traces (OTLP\n" +
			"JSON traces and logs, GenAI or OpenInference attributes; Langfuse's trace\n" +
			"download; the PATHs, no default), one chat per conversation, with the\n" +
			"default pack. Bundles go to experiments-data/history-compression/<agent>,\n" +
			"or --out.\n\n" +
			"--shard K/N (K from 0) writes only the chats whose id hashes to K mod N\n" +
			"(with --from: the session files, by name and, where names repeat, folders),\n" +
			"numbered within the shard: N shards write every bundle of the whole run\n" +
			"once, byte for byte. --sample N takes a stratified, seeded sample of the\n" +
			"chats first.",
		Example: "  compact extract\n" +
			"  compact extract --channel nightly\n" +
			"  compact extract --db path/to/instances.sqlite --out runs/x\n" +
			"  compact extract --db examples/stagewise/instances.sqlite --chat ff5dc157-1738-4824-a458-f29a0cd9d0fb --json\n" +
			"  compact extract --from claude-code ~/.claude/projects/-home-me-shop\n" +
			"  compact extract --from codex --out runs/codex\n" +
			"  compact extract --from opencode ~/.local/share/opencode\n" +
			"  compact extract --from otel traces.jsonl",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 && opts.From == "" {
				return usageErr("extract takes no arguments without --from (got %q); pass a database with --db", args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if err := opts.Shard.resolve(c, f); err != nil {
				return err
			}
			if opts.From != "" {
				opts.packChanged = c.Flags().Changed("pack") || f.Config.Source("pack") != "default"
				configDefault(c, f, "pack", "pack", &opts.Pack)
				configDefault(c, f, "locale", "locale", &opts.Locale)
				if !c.Flags().Changed("out") {
					opts.Out = ""
				}
				for _, fl := range []string{"channel", "db", "source", "min-messages", "chat", "skills-dir", "profile"} {
					if c.Flags().Changed(fl) {
						return usageErr("--%s reads a stagewise database; --from %s reads the agent's session files", fl, opts.From)
					}
				}
				return runExtractAgent(c.Context(), opts)
			}
			if err := channelFromConfig(c, f, &opts.Channel); err != nil {
				return err
			}
			str := func(flag, key string, dst *string) { configDefault(c, f, flag, key, dst) }
			str("source", "extract::source", &opts.Source)
			str("skills-dir", "skills_dir", &opts.SkillsDir)
			str("pack", "pack", &opts.Pack)
			str("profile", "profile", &opts.Profile)
			str("locale", "locale", &opts.Locale)
			if err := configInt(c, f, "min-messages", "extract"+config.Delim+"min_messages", &opts.MinMessages); err != nil {
				return err
			}
			if !c.Flags().Changed("out") {
				opts.Out = ""
			}
			return runExtract(c.Context(), opts)
		},
	}
	fl := c.Flags()
	addChannelFlag(c, &opts.Channel, "read the desktop app's database of release channel `NAME`: "+strings.Join(extract.ChannelNames, ", "))
	fl.StringVar(&opts.From, "from", "", "read the session files of `AGENT` instead of a database: "+agentbundle.AgentList())
	fl.StringVar(&opts.DB, "db", "", "read the database at `PATH` instead of the channel's")
	fl.StringVar(&opts.Source, "source", extract.SourceMessages, "read messages from `SOURCE`: messages (the live table) or history (the stale legacy column)")
	fl.IntVar(&opts.MinMessages, "min-messages", 6, "skip chats with fewer than `N` messages")
	fl.StringVar(&opts.SkillsDir, "skills-dir", "", "resolve slash commands against `DIR`/skills and DIR/plugins")
	fl.StringVar(&opts.Pack, "pack", prompt.DefaultPackName, "prompt pack: a built-in `NAME` or a directory written by \"compact prompt import\"")
	fl.StringVar(&opts.Out, "out", "", "write the chat directories to `DIR` (default experiments-data/history-compression/<channel>)")
	fl.StringArrayVar(&opts.Chats, "chat", nil, "extract only the chat with this `ID` (repeatable; an unknown id is an error)")
	fl.BoolVar(&opts.Force, "force", false, "replace a non-empty output directory as a whole")
	fl.BoolVar(&opts.NoContinuation, "no-continuation", false, "leave out continuation.xml (what the session did next, for eval's grounded score): the upstream's files only")
	fl.StringVar(&opts.Profile, "profile", upstream.Default, profileUsage)
	fl.StringVar(&opts.Locale, "locale", "", "format the size hint's numbers for `LOCALE`, e.g. de-DE (default: the configuration, then LC_ALL, LC_MESSAGES, LANG)")
	addJobsFlag(c, &opts.Workers, 0, "decode and serialize `N` chats at once (default: the number of CPUs)")
	hiddenIntAlias(c, &opts.Workers, "workers", 0)
	// --writers is a tuning knob for file systems where parallel creation
	// pays (see docs/design.md); one writer is fastest on ext4.
	fl.IntVar(&opts.Writers, "writers", 1, "goroutines creating the bundle files")
	_ = fl.MarkHidden("writers")
	addShardFlags(c, &opts.Shard, "chats")
	completeValues(c, "source", extract.SourceMessages, extract.SourceHistory)
	completeValues(c, "from", agentbundle.FromNames()...)
	completeProfile(c)
	completePack(c)
	completeDBFlags(c)
	return c
}

func runExtract(ctx context.Context, opts *extractOptions) error {
	f := opts.f
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Source != extract.SourceMessages && opts.Source != extract.SourceHistory {
		return usageErr("--source: unknown source %q (want messages or history)", opts.Source)
	}
	if opts.Workers < 0 {
		return usageErr("--jobs: %d is negative", opts.Workers)
	}
	if opts.Writers < 0 {
		return usageErr("--writers: %d is negative", opts.Writers)
	}
	in, err := resolvePipelineInputs(f, opts.Profile, opts.Pack, opts.Locale, opts.DB, opts.Channel, opts.GOOS)
	if err != nil {
		return err
	}
	if err := checkSkillsDir(opts.SkillsDir); err != nil {
		return err
	}
	profile, pack, locale, db := in.profile, in.pack, in.locale, in.db
	out := opts.Out
	if out == "" {
		out = channelDir(f, opts.Channel)
	}
	// "X/" names X: its staging directory goes beside it, not inside.
	out = filepath.Clean(out)
	// Decoding allocates short-lived values while the live heap stays
	// small (a few chats at a time): collect less often than the default,
	// but never let the heap pass a soft limit that keeps the process
	// under 256 MB. Since decoding became lazy, GOGC 400 is as fast as
	// 1000 on the 500 MB benchmark, with half the peak RSS.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(192 << 20))
	// An interrupt or a termination cancels the run, which then removes
	// its staging directory: nothing half-written is left behind.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Warnings come from the workers; a run with none and no bundle says why.
	var warned atomic.Int64
	prog := newProgress(f.IO)
	sum, err := extract.Run(ctx, extract.Options{
		DBPath: db, Channel: opts.Channel, Source: opts.Source, MinMessages: opts.MinMessages,
		SkillsDir: opts.SkillsDir, Pack: pack, Locale: locale, Profile: profile,
		OutDir: out, ChatIDs: opts.Chats, Force: opts.Force, Workers: opts.Workers, Writers: opts.Writers, NoContinuation: opts.NoContinuation,
		Sample: opts.Shard.sampling, Shard: opts.Shard.spec,
	}, extract.Hooks{
		Selected: func(sel *shard.Selection) { say(f, sel) },
		Warn: func(w extract.Warning) {
			warned.Add(1)
			prog.clear()
			fmt.Fprintf(f.IO.ErrOut, "compact extract: warning: %s\n", w)
		},
		Leftovers: extractLeftovers(f, prog, out),
		Removing:  extractRemoving(f),
		Progress: func(done, total, bundles int) {
			prog.show("extract: %d of %s, %s", done, plural(total, "chat"), plural(bundles, "bundle"))
		},
	})
	prog.clear()
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return interrupted("interrupted; %s left as it was", out)
		}
		var missing *extract.MissingChatsError
		if errors.As(err, &missing) {
			return usageErr("--chat: %v; nothing written", err)
		}
		return err
	}
	// Chats lost to a damaged file: one line at the end says what can
	// save them, whatever the output's form.
	defer func() {
		if sum.Unreadable > 0 {
			fmt.Fprintf(f.IO.ErrOut, "compact extract: %s could not be read from a damaged database; %s\n", plural(sum.Unreadable, "chat"), store.RecoverHint(db))
		}
	}()
	if f.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	fmt.Fprintf(f.IO.TextOut(), "%s, %s, %d skipped -> %s\n", plural(sum.Extracted, "chat"), plural(sum.Bundles, "bundle"), sum.Skipped, sum.OutDir)
	if sum.Bundles == 0 && warned.Load() == 0 && !f.IO.Quiet && (sum.Selection == nil || sum.Selection.Selected > 0) {
		fmt.Fprintf(f.IO.ErrOut, "compact extract: no compression event found: no chat of at least %s holds a stored briefing yet (lower --min-messages, or let the app compress a long chat first)\n", plural(opts.MinMessages, "message"))
	}
	return nil
}

// extractLeftovers says what an extract removed of an interrupted run
// (both extracts: a database's and the agents').
func extractLeftovers(f *Factory, prog *progress, out string) func(int, error) {
	return func(n int, err error) {
		prog.clear()
		if err != nil {
			fmt.Fprintf(f.IO.ErrOut, "compact extract: warning: leftovers of an interrupted run: %v\n", err)
		}
		if n > 0 {
			fmt.Fprintf(f.IO.ErrOut, "compact extract: removed %s of an interrupted run beside %s\n", plural(n, "leftover"), out)
		}
	}
}

// extractRemoving says that an interrupted extract is still removing
// what it wrote.
func extractRemoving(f *Factory) func() {
	return func() {
		fmt.Fprintf(f.IO.ErrOut, "compact extract: still removing; interrupt again to stop (the next run removes the rest)\n")
	}
}
