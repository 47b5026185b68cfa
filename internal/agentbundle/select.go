package agentbundle

import (
	"context"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/shard"
)

// UnitSession names the unit of work of a sample and a shard of agents'
// files: a session file (with its subagents; a trace file with all its
// conversations), keyed by shard.FileKeys.
const UnitSession = "session file"

// selectSessions keeps the session files of the sample (read once each
// for the strata: the main thread's messages and compactions) and of the
// shard. A file that cannot be read counts as empty here; the run says
// why if it is kept.
func selectSessions(ctx context.Context, agent string, files []string, sm shard.Sampling, sh shard.Spec) ([]string, *shard.Selection, error) {
	units := make([]shard.Unit, len(files))
	keys := shard.FileKeys(files)
	for i, f := range files {
		units[i] = shard.Unit{Key: keys[i], Agent: agent}
		if sm.Size == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		units[i].Length, units[i].Compactions = sessionSize(agent, f)
	}
	keep, sel := shard.Select(units, sm, sh, UnitSession)
	var out []string
	for i, f := range files {
		if keep[i] {
			out = append(out, f)
		}
	}
	return out, sel, nil
}

// sessionSize counts the messages and the compactions of the session in
// file (a trace file: of all its conversations), streamed.
func sessionSize(agent, file string) (messages, compactions int) {
	if agent == agents.OTel {
		tf, err := agents.ReadOTelFile(file)
		if err != nil {
			return 0, 0
		}
		for _, s := range tf.Sessions {
			messages += len(s.Messages)
			compactions += len(s.Compactions)
		}
		return messages, compactions
	}
	_, _ = agents.StreamFile(file, agent, func(seg agents.Segment) error {
		messages += len(seg.Messages)
		if seg.Compaction != nil {
			compactions++
		}
		return nil
	})
	return messages, compactions
}
