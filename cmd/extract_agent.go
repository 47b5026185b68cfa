package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/compactlab/compact/internal/agentbundle"
	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/shard"
)

// runExtractAgent writes the bundles of the compactions an agent recorded
// in its session files (--from).
func runExtractAgent(ctx context.Context, opts *extractOptions) error {
	f := opts.f
	if ctx == nil {
		ctx = context.Background()
	}
	typed := opts.From // names the default output directory
	opts.From = agentbundle.Resolve(opts.From)
	if opts.From == agents.SWEAgent {
		// Read, but it records no compaction: say so, as simulate does.
		return usageErr("--from swe-agent: SWE-agent trajectories record no compaction, so there is nothing to write; compact simulate FILE.traj reads them whole")
	}
	if !slices.Contains(agentbundle.Agents, opts.From) {
		return usageErr("--from: unknown agent %q (want %s)", opts.From, agentbundle.AgentList())
	}
	packName := opts.Pack
	if !opts.packChanged {
		packName = agentbundle.PackFor(opts.From)
	}
	pack, err := resolvePack("--pack", packName)
	if err != nil {
		return err
	}
	locale := opts.Locale
	if locale == "" {
		locale = prompt.LocaleFromEnv(f.Getenv)
	}
	paths := opts.Paths
	if len(paths) == 0 {
		d, err := agentbundle.DefaultDir(opts.From, f.Getenv)
		if err != nil {
			return usageErr("%v", err)
		}
		if _, err := fsutil.CheckInput(d); err != nil {
			if nr := notRegular(err); nr != nil {
				return nr
			}
			return usageErr("no %s sessions at %s (%v): pass the session files or directories", opts.From, d, errors.Unwrap(err))
		}
		paths = []string{d}
	}
	for _, p := range paths {
		if _, err := fsutil.CheckInput(p); err != nil {
			if nr := notRegular(err); nr != nil {
				return nr
			}
			return usageErr("%s: %v", p, errors.Unwrap(err))
		}
	}
	// A session file that is a named pipe, a socket or a device, given or
	// found in a directory, stops the run before anything is read.
	if files, err := agentbundle.FindSessions(opts.From, paths); err == nil {
		for _, p := range files {
			if err := checkFileArg(p); err != nil {
				return err
			}
		}
	}
	out := opts.Out
	if out == "" {
		out = channelDir(f, typed)
	}
	out = filepath.Clean(out)
	// Never write into the agent's own directories.
	roots := slices.Clone(paths)
	if d, err := agentbundle.DefaultDir(opts.From, f.Getenv); err == nil {
		roots = append(roots, d)
	}
	for _, r := range roots {
		if st, err := os.Stat(r); err == nil && !st.IsDir() {
			r = filepath.Dir(r)
		}
		if within(out, r) {
			return usageErr("--out %s is inside %s, where the agent keeps its sessions: write the bundles elsewhere", out, r)
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	prog := newProgress(f.IO)
	sum, err := agentbundle.Run(ctx, agentbundle.Options{
		Agent: opts.From, Paths: paths, OutDir: out, Force: opts.Force, NoContinuation: opts.NoContinuation, Pack: pack, PackName: packName, Locale: locale, Getenv: f.Getenv,
		Sample: opts.Shard.sampling, Shard: opts.Shard.spec,
	}, agentbundle.Hooks{
		Selected: func(sel *shard.Selection) { say(f, sel) },
		Warn: func(w string) {
			prog.clear()
			fmt.Fprintf(f.IO.ErrOut, "compact extract: warning: %s\n", w)
		},
		Leftovers: extractLeftovers(f, prog, out),
		Removing:  extractRemoving(f),
		Progress: func(done, total, _ int) {
			prog.show("extract: %d of %s", done, plural(total, "session file"))
		},
	})
	prog.clear()
	if err != nil {
		var none *agentbundle.NoSessionsError
		switch {
		case ctx.Err() != nil && errors.Is(err, context.Canceled):
			return interrupted("interrupted; %s left as it was", out)
		case errors.As(err, &none):
			return usageErr("%v; nothing written", err)
		}
		return err
	}
	if f.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	fmt.Fprintf(f.IO.TextOut(), "%s, %s, %d skipped -> %s\n", plural(sum.Sessions, "session"), plural(sum.Bundles, "bundle"), sum.Sessions-sum.Extracted, sum.OutDir)
	if sum.Unauditable > 0 && !f.IO.Quiet {
		fmt.Fprintf(f.IO.ErrOut, "compact extract: %s without the agent's summary (unauditable: encrypted or missing): replay answers them; diff and eval skip them\n", plural(sum.Unauditable, "bundle"))
	}
	if sum.Bundles == 0 && !f.IO.Quiet && (sum.Selection == nil || sum.Selection.Selected > 0) {
		why := "recorded one yet"
		if opts.From == agents.GeminiCLI {
			why = "recorded one (Gemini CLI records its compressions from v0.44 on; compact simulate FILE reads a chat whole)"
		}
		fmt.Fprintf(f.IO.ErrOut, "compact extract: no compaction found: none of the %s %s\n", plural(sum.Sessions, opts.From+" session"), why)
	}
	return nil
}

// within reports whether path is dir or under it (both cleaned, made
// absolute where they can be).
func within(path, dir string) bool {
	if a, err := filepath.Abs(path); err == nil {
		path = a
	}
	if a, err := filepath.Abs(dir); err == nil {
		dir = a
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && (rel == "." || !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "..")
}
