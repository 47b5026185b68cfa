package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/extract"
)

// Commands are listed in the order NewRootCmd gives them: cobra's global
// sorting is turned off once, not by each root built (tests build roots
// in parallel).
func init() { cobra.EnableCommandSorting = false }

// This file holds what several commands share, so that the same case reads
// and exits the same everywhere: the channel flag and the directory it
// names, the concurrency flag, completion of fixed values, the error for a
// run with nothing to work on, and plurals.

// Exit statuses shared by every command.
const (
	exitFailed      = 1   // the run failed (or some items did)
	exitUsage       = 2   // usage or input error, or nothing to work on
	exitInterrupted = 130 // Ctrl-C or SIGTERM (128 + SIGINT)
)

// interrupted is the error of an interrupted run (exit 130).
func interrupted(format string, a ...any) error {
	return &ExitError{Code: exitInterrupted, Err: fmt.Errorf(format, a...)}
}

// stopContext is the context that stops a run: stop when a test gives
// one, else ctx cancelled on Ctrl-C and SIGTERM.
func stopContext(ctx, stop context.Context) (context.Context, context.CancelFunc) {
	if stop != nil {
		return stop, func() {}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// isInterrupt reports whether err comes from a cancelled context: the
// commands cancel theirs on Ctrl-C and SIGTERM.
func isInterrupt(err error) bool {
	return errors.Is(err, context.Canceled)
}

// addChannelFlag binds --channel (completed with the channel names).
// The flag's value reads NAME in help (after the first "channel" of usage),
// unless usage names its own placeholder with backticks.
func addChannelFlag(c *cobra.Command, dst *string, usage string) {
	if !strings.Contains(usage, "`") {
		usage = strings.Replace(usage, "channel", "channel `NAME`", 1)
	}
	c.Flags().StringVar(dst, "channel", "prerelease", usage)
	completeValues(c, "channel", extract.ChannelNames...)
}

// channelFromConfig fills *dst from extract::channel unless --channel was
// given, and checks it.
func channelFromConfig(c *cobra.Command, f *Factory, dst *string) error {
	configDefault(c, f, "channel", "extract::channel", dst)
	if _, ok := extract.Channels[*dst]; !ok {
		return usageErr("--channel: unknown channel %q (want one of %s)", *dst, strings.Join(extract.ChannelNames, ", "))
	}
	return nil
}

// channelDir is the directory extract writes a channel's bundles to by
// default, and where replay and diff look for them.
func channelDir(f *Factory, channel string) string {
	return filepath.Join(f.Config.String("extract::out"), channel)
}

// noBundles is the one error for a command given nothing to work on: exit
// 2, with the next step. where names what was searched; channel is the
// channel to suggest to extract ("" when the user gave paths).
func noBundles(where, channel string) error {
	hint := "run `compact extract` first, or pass a bundle, chat or channel directory"
	if channel != "" && channel != "prerelease" {
		hint = fmt.Sprintf("run `compact extract --channel %s` first, or pass a bundle, chat or channel directory", channel)
	}
	if _, err := os.Stat(where); err != nil {
		return usageErr("no bundles: %s does not exist; %s", where, hint)
	}
	return usageErr("no bundles under %s; %s", where, hint)
}

// addJobsFlag binds -j/--jobs, the one name for "how many at once" across
// commands; its value reads N in help unless usage names another.
func addJobsFlag(c *cobra.Command, dst *int, def int, usage string) {
	if !strings.Contains(usage, "`") {
		usage = "`N` " + usage
	}
	c.Flags().IntVarP(dst, "jobs", "j", def, usage)
}

// hiddenAlias binds an old flag name to the same variable, hidden from help.
func hiddenIntAlias(c *cobra.Command, dst *int, name string, def int) {
	c.Flags().IntVar(dst, name, def, "")
	_ = c.Flags().MarkHidden(name)
}

// completeValues makes the shell complete flag's value from values.
func completeValues(c *cobra.Command, flag string, values ...string) {
	_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// plural is "1 bundle", "2 bundles"; word's plural adds s (es after ch:
// "2 batches").
func plural(n int, word string) string {
	switch {
	case n == 1:
		return fmt.Sprintf("%d %s", n, word)
	case strings.HasSuffix(word, "ch"):
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// commonDir is the longest directory every path lies under ("" when they
// share none, or there are none).
func commonDir(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	dir := filepath.Dir(filepath.Clean(paths[0]))
	for _, p := range paths[1:] {
		p = filepath.Clean(p)
		for dir != "." && dir != string(filepath.Separator) && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			dir = filepath.Dir(dir)
		}
	}
	if dir == "." {
		return ""
	}
	return dir
}

// loadConfig loads the configuration: the defaults, the file of --config or
// COMPACT_CONFIG, then the environment.
func loadConfig(f *Factory) (*config.Store, error) {
	path := f.ConfigPath
	if path == "" {
		path = f.Getenv("COMPACT_CONFIG")
	}
	return config.LoadEnv(path, f.Getenv)
}

// completionConfig is the configuration while the shell completes a flag.
// It is read again: the root command's hook that loads it runs before the
// completion request's flags (--config among them) are parsed.
func completionConfig(f *Factory) (*config.Store, error) { return loadConfig(f) }

// findBundles lists the bundles under paths (each once), or under the
// channel's default extract output when there are none; none found is
// noBundles with the next step.
//
// A bundle whose metadata says it is not auditable (an agent's compaction
// whose summary is encrypted: internal/agentbundle) has nothing to
// compare or score: it is left out with a note, and when nothing else is
// left, that is nothing to work on.
func findBundles(f *Factory, paths []string, channel string) ([]string, error) {
	return findPickedBundles(f, paths, channel, nil)
}

// findPickedBundles is findBundles of the bundles pick keeps of those
// found (nil: all), which are the only ones checked: a shard's run
// checks its shard. Nothing kept is no error.
func findPickedBundles(f *Factory, paths []string, channel string, pick func([]string) []string) ([]string, error) {
	dirs, err := findAllBundles(f, paths, channel, pick)
	if err != nil {
		return nil, err
	}
	kept := dirs[:0:0]
	skipped := 0
	for _, d := range dirs {
		if md, err := bundle.ReadMetadata(d); err == nil {
			if ok, why := md.IsAuditable(); !ok {
				skipped++
				if !f.IO.Quiet {
					fmt.Fprintf(f.IO.ErrOut, "%s: note: %s: skipped: the agent's compaction is unauditable (%s)\n", strings.TrimSpace("compact "+f.Command), d, why)
				}
				continue
			}
		}
		kept = append(kept, d)
	}
	if len(kept) == 0 && skipped > 0 {
		return nil, usageErr("every bundle found is unauditable (%s): nothing to compare", plural(skipped, "bundle"))
	}
	return kept, nil
}

// bundlesWanted is what a bundle path should have been, for errors.
const bundlesWanted = "a bundle, chat or channel directory"

// The commands' finders: readFinder for those that read briefings (diff,
// eval, report), replayFinder for those that send requests (replay,
// replay --batch).
var (
	readFinder   = bundle.Finder{Kind: bundle.Readable, NotDir: "compare two files with --a and --b"}
	replayFinder = bundle.Finder{Kind: bundle.Replayable, NotDir: "want " + bundlesWanted}
)

// findAllBundles is findBundles with the unauditable bundles. Every file
// of the bundles found is checked (checkBundles): a named pipe, a socket
// or a device among them stops the run before anything is read.
func findAllBundles(f *Factory, paths []string, channel string, pick func([]string) []string) ([]string, error) {
	if pick == nil {
		pick = func(dirs []string) []string { return dirs }
	}
	if len(paths) == 0 {
		def := channelDir(f, channel)
		if err := checkDirArg(def, bundlesWanted); err != nil {
			return nil, err
		}
		found, err := readFinder.Find([]string{def})
		if err != nil || len(found) == 0 {
			return nil, noBundles(def, channel)
		}
		found = pick(found)
		return found, checkBundles(found)
	}
	var dirs []string
	seen := map[string]bool{}
	for _, p := range paths {
		if err := checkDirArg(p, bundlesWanted); err != nil {
			return nil, err
		}
		found, err := readFinder.Find([]string{p})
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, noBundles(p, "")
			}
			return nil, usageErr("%v", err)
		}
		if len(found) == 0 {
			return nil, noBundles(p, "")
		}
		for _, d := range found {
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	dirs = pick(dirs)
	return dirs, checkBundles(dirs)
}

// outputFormat is the format a command with --format text|json|markdown
// writes: --json is --format json, and conflicts with any other.
func outputFormat(c *cobra.Command, f *Factory, command, format string) (string, error) {
	if f.JSON {
		if c.Flags().Changed("format") && format != "json" {
			return "", usageErr("%s: --json and --format %s conflict", command, format)
		}
		format = "json"
	}
	switch format {
	case "text", "json", "markdown":
		return format, nil
	}
	return "", usageErr("%s: --format: unknown format %q (want text, json or markdown)", command, format)
}
