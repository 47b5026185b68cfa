package cmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/respcache"
)

func init() { register(newCmdCache) }

// cacheDir is the response cache's directory: cache.dir, else the user's
// cache directory; "" when there is none.
func cacheDir(f *Factory) string {
	if d := f.Config.String("cache" + config.Delim + "dir"); d != "" {
		return d
	}
	return respcache.DefaultDir(f.Getenv)
}

// useCache gives the cascade the response cache, unless off is set or
// there is no cache directory.
func useCache(f *Factory, c *cascade.Cascade, off bool) error {
	if off || c == nil {
		return nil
	}
	dir := cacheDir(f)
	if dir == "" {
		return nil
	}
	cache, err := respcache.Open(dir)
	if err != nil {
		return fmt.Errorf("%v; set cache.dir, or pass --no-cache", err)
	}
	c.Cache = cache
	return nil
}

type cacheOptions struct {
	f         *Factory
	OlderThan time.Duration
	All       bool
}

func newCmdCache(f *Factory) *cobra.Command {
	opts := &cacheOptions{f: f}
	c := &cobra.Command{
		Use:   "cache",
		Short: "Show or prune the cache of model answers",
		Long: "Model answers (judge calls of eval --judge, and replays) are cached under a\n" +
			"hash of everything sent: provider, endpoint, model, every parameter and\n" +
			"both prompts. Asking the same thing again is answered from the cache at\n" +
			"no cost; errors and answers too short are never cached. The directory is\n" +
			"cache.dir, else $XDG_CACHE_HOME/compact/responses or\n" +
			"~/.cache/compact/responses.",
	}
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Print the cache's directory, entries and size",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cache, err := openCacheCmd(f)
			if err != nil {
				return err
			}
			st, err := cache.Stats()
			if err != nil {
				return err
			}
			if f.JSON {
				return writeIndentedJSON(f.IO.Out, st)
			}
			fmt.Fprintf(f.IO.TextOut(), "%s: %s, %s\n", st.Dir, plural(st.Entries, "answer"), humanBytes(st.Bytes))
			if st.Entries > 0 {
				fmt.Fprintf(f.IO.TextOut(), "oldest %s, newest %s\n", st.Oldest.UTC().Format(time.RFC3339), st.Newest.UTC().Format(time.RFC3339))
			}
			return nil
		},
	}
	prune := &cobra.Command{
		Use:   "prune",
		Short: "Remove cached answers older than --older-than, or all of them with --all",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !opts.All && !c.Flags().Changed("older-than") {
				return usageErr("cache prune: say what to remove: --older-than DURATION (e.g. 720h) or --all")
			}
			if opts.All && c.Flags().Changed("older-than") {
				return usageErr("cache prune: --all and --older-than conflict")
			}
			if opts.OlderThan < 0 {
				return usageErr("cache prune: --older-than: want a positive duration, got %v", opts.OlderThan)
			}
			cache, err := openCacheCmd(f)
			if err != nil {
				return err
			}
			var cutoff time.Time
			if !opts.All {
				cutoff = time.Now().Add(-opts.OlderThan)
			}
			n, b, err := cache.Prune(cutoff)
			if err != nil {
				return err
			}
			if f.JSON {
				return writeIndentedJSON(f.IO.Out, map[string]any{"dir": cache.Dir(), "removed": n, "bytes": b})
			}
			fmt.Fprintf(f.IO.TextOut(), "%s: removed %s, %s\n", cache.Dir(), plural(n, "answer"), humanBytes(b))
			return nil
		},
	}
	prune.Flags().DurationVar(&opts.OlderThan, "older-than", 0, "remove answers cached longer ago than `DURATION` (e.g. 720h)")
	prune.Flags().BoolVar(&opts.All, "all", false, "remove every cached answer")
	c.AddCommand(stats, prune)
	return c
}

func openCacheCmd(f *Factory) (*respcache.Cache, error) {
	dir := cacheDir(f)
	if dir == "" {
		return nil, usageErr("cache: no cache directory: set cache.dir (or COMPACT_CACHE_DIR), XDG_CACHE_HOME or HOME")
	}
	cache, err := respcache.Open(dir)
	if err != nil {
		return nil, errors.New("cache: " + err.Error())
	}
	return cache, nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
