package simulate

import (
	"context"

	"github.com/compactlab/compact/internal/shard"
	"github.com/compactlab/compact/internal/store"
)

// UnitHistory names simulate's unit of work for a sample and a shard: a
// history (a chat of a database, keyed by its id; a file, keyed by
// shard.FileKey).
const UnitHistory = "history"

// UnitOf is in's unit for a sample: key, its agent (the history's
// source: stagewise, jsonl, claude-code, codex, …), its messages and the
// compactions it recorded (stored briefings, or an agent's compactions).
func UnitOf(in *Input, key string) shard.Unit {
	h := in.History
	n := len(h.Recorded)
	for _, m := range h.Branch {
		if m.StoredSummary != nil {
			n++
		}
	}
	return shard.Unit{Key: key, Agent: h.Source, Length: len(h.Branch), Compactions: n}
}

// ChatIDs lists the ids of the chats of the stagewise database at path,
// for a shard to choose from before anything else is read.
func ChatIDs(ctx context.Context, path string) ([]string, error) {
	snap, err := store.OpenSnapshot(ctx, path)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	chats, err := snap.Chats(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(chats))
	for i, c := range chats {
		ids[i] = c.ID
	}
	return ids, nil
}
