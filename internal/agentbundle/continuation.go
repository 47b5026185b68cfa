package agentbundle

import (
	"path/filepath"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/strategy"
)

// Continuation renders what follows a compaction, msgs (the messages after
// it, up to the next compaction or the end of the session), as a compact
// history: the same layout as compact-history.xml, at most
// extract.ContinuationTurns user and assistant turns, with the tools' outputs
// (convo.Continuation).
func Continuation(msgs []strategy.Message, cwd string, outcomes map[string]string) string {
	return convo.Continuation(msgs, convo.RenderOptions{Verbs: true, Cwd: cwd, Outcomes: outcomes}, extract.ContinuationTurns, extract.ContinuationOutput)
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
