package agentbundle

import (
	"context"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/extract"
)

// openCodeUnit writes the bundles of the sessions of one OpenCode store
// (a database, a storage directory) or file (an export, a storage session
// file): each session a chat of its own, its subagents' sessions after
// it.
func openCodeUnit(ctx context.Context, opts Options, path string, out *extract.Output, chats *int, sum *Summary, warn func(string, ...any)) error {
	all, err := agents.ReadOpenCodeAll(ctx, path)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		warn("%v; skipped", err)
		return nil
	}
	var write func(s *agents.Session, parent string) error
	write = func(s *agents.Session, parent string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, p := range s.Problems {
			warn("%s: session %s: %s", s.Path, s.ID, p)
		}
		w := &sessionWriter{opts: opts, warn: warn, out: out, chats: chats, file: s.Path, parent: parent}
		if err := w.whole(s); err != nil {
			return err
		}
		w.res.Session = s.ID
		sum.add(w)
		for _, sub := range s.Subagents {
			if err := write(sub, s.ID); err != nil {
				return err
			}
		}
		return nil
	}
	for _, s := range all {
		if err := write(s, ""); err != nil {
			return err
		}
	}
	return nil
}
