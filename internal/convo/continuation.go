package convo

import (
	"strings"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/strategy"
)

// Continuation renders msgs, what followed a compaction (up to the next
// one or the end), as RenderContinuation does, with at most maxTurns user
// and assistant turns and maxOutput bytes of each tool's output, lone
// surrogates made well-formed: the continuation.xml of an agent's bundle
// (agentbundle), and what compact simulate mines its grounded probes
// from. "" when msgs hold no user or assistant turn.
func Continuation(msgs []strategy.Message, opts RenderOptions, maxTurns, maxOutput int) string {
	turns, end := 0, len(msgs)
	for i := range msgs {
		if r := msgs[i].Role; r == strategy.RoleUser || r == strategy.RoleAssistant {
			if turns == maxTurns {
				end = i
				break
			}
			turns++
		}
	}
	if turns == 0 {
		return ""
	}
	return history.ToWellFormed(RenderContinuation(msgs[:end], opts, maxOutput))
}

// RenderContinuation renders what a session did after a compaction as
// Render does, with each tool's output after the turn that called it,
// escaped, in <tool-output> elements (mdtext.ParseContinuation) of at most maxOutput bytes (cut at
// a character): what the agent could learn then, so that a measure
// knows what it did not need the briefing for. A parser of compact
// histories that reads only <user> and <assistant> turns reads it as the
// same history without the outputs.
func RenderContinuation(msgs []strategy.Message, opts RenderOptions, maxOutput int) string {
	outcomes := make(map[string]string, len(opts.Outcomes))
	for id, s := range opts.Outcomes {
		outcomes[id] = s
	}
	for _, m := range msgs {
		if m.Role == strategy.RoleTool && m.Raw == nil {
			if _, ok := outcomes[m.ToolCallID]; !ok {
				outcomes[m.ToolCallID] = ToolFailure(m.Content)
			}
		}
	}
	one := opts
	one.Outcomes, one.Previous = outcomes, ""
	var b strings.Builder
	turn := func(s string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	for i := range msgs {
		m := msgs[i]
		if m.Role == strategy.RoleTool && m.Raw == nil {
			if out := strings.TrimSpace(m.Content); out != "" {
				turn(mdtext.OutputOpen + serialize.Esc(serialize.CutBytes(out, maxOutput)) + mdtext.OutputClose)
			}
			continue
		}
		compactTurns(msgs[i:i+1], &one, turn)
	}
	return stripCwd(b.String(), opts.Cwd)
}
