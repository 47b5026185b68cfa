package agentbundle

import (
	"path/filepath"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/strategy"
)

// continuationTurns is how many user and assistant turns after a
// compaction its continuation keeps: what the agent did next, the source
// of eval's grounded probes. The turns nearest the compaction say most
// about what the briefing had to carry; later ones mostly about new work.
const continuationTurns = 2000

// maxOutput bounds each tool output a continuation keeps (bytes).
const maxOutput = 16 << 10

// Continuation renders what follows a compaction, msgs (the messages after
// it, up to the next compaction or the end of the session), as a compact
// history: the same layout as compact-history.xml, at most
// continuationTurns user and assistant turns, with the tools' outputs
// (convo.RenderContinuation).
func Continuation(msgs []strategy.Message, cwd string, outcomes map[string]string) string {
	turns, end := 0, len(msgs)
	for i := range msgs {
		if r := msgs[i].Role; r == strategy.RoleUser || r == strategy.RoleAssistant {
			if turns == continuationTurns {
				end = i
				break
			}
			turns++
		}
	}
	if turns == 0 {
		return ""
	}
	return history.ToWellFormed(convo.RenderContinuation(msgs[:end], convo.RenderOptions{Verbs: true, Cwd: cwd, Outcomes: outcomes}, maxOutput))
}

// continuation writes the continuation of the bundle written last (if
// any) from h, the history of the segment that follows it.
func (w *sessionWriter) continuation(h *convo.History, end int) error {
	if w.contDir == "" || w.opts.NoContinuation {
		return nil
	}
	dir := w.contDir
	w.contDir = ""
	if end > len(h.Branch) {
		end = len(h.Branch)
	}
	text := Continuation(h.Branch[:end], h.Cwd, h.Outcomes)
	if text == "" {
		return nil
	}
	if err := w.out.WriteFile(filepath.Join(dir, bundle.FileContinuation), []byte(text)); err != nil {
		return &writeError{err}
	}
	return nil
}
