package serialize

import (
	"strings"

	"github.com/compactlab/compact/internal/history"
)

// The tags a continuation wraps a tool's output in (mdtext reads them).
const (
	outputOpen  = "<tool-output>"
	outputClose = "</tool-output>"
)

// AppendContinuation appends the continuation of a compaction to dst:
// msgs are the messages after it (the message that holds the summary
// first, up to the next compaction), serialized as a compact history is
// (without a <previous-chat-history>: the summary is the briefing under
// test), each assistant message followed by the outputs of its tool parts
// in <tool-output> elements, escaped, at most maxOutput bytes each: what
// the agent could learn then. At most maxTurns user and assistant
// messages are written.
func AppendContinuation(dst []byte, msgs []history.Value, opts Options, maxTurns, maxOutput int) []byte {
	w := writer{p: opts.Profile, slash: opts.Slash, problems: opts.Problems}
	if w.p == nil {
		w.p = Profiles["e3e"]
	}
	if !w.p.SlashCommands {
		w.slash = nil
	}
	base := len(dst)
	b := dst
	turns := 0
	for i, msg := range msgs {
		if turns == maxTurns {
			break
		}
		w.msg = i
		mark := len(b)
		if mark > base {
			b = append(b, '\n')
		}
		body := len(b)
		nb := w.appendMessage(b, msg)
		if len(nb) == body {
			b = nb[:mark]
			continue
		}
		b = nb
		turns++
		if history.Role(msg) != "assistant" {
			continue
		}
		for _, part := range partsOf(msg) {
			if part.Kind() != history.Object {
				continue
			}
			t := part.Get("type")
			if t.Kind() != history.String || !strings.HasPrefix(t.Str(), "tool-") {
				continue
			}
			if s := part.Get("state"); s.Kind() != history.String || s.Str() != "output-available" {
				continue
			}
			out := part.Get("output")
			var text string
			if out.Kind() == history.String {
				text = out.Str()
			} else if s, ok, err := history.JSONStringify(out); err == nil && ok {
				text = s
			}
			if text = strings.TrimSpace(text); text == "" {
				continue
			}
			text = CutBytes(text, maxOutput)
			b = append(b, '\n')
			b = append(b, outputOpen...)
			b = appendEscString(b, text)
			b = append(b, outputClose...)
		}
	}
	return b
}

// CutBytes returns s, or its first n bytes at most (n > 0), never
// splitting a character: how a continuation bounds a tool's output.
func CutBytes(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
