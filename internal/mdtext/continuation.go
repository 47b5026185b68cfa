package mdtext

import "strings"

// A continuation (continuation.xml: what a session did after a
// compaction) has a compact history's layout, with each tool's output,
// escaped, in an element of its own after the turn that called it.
const (
	OutputOpen  = "<tool-output>"
	OutputClose = "</tool-output>"
	// FromOutput is the role of a tool's output in a parsed continuation.
	FromOutput = "tool-output"
)

// ParseContinuation takes a continuation apart: its user and assistant
// turns (as ParseHistory reads them) and the tools' outputs (role
// FromOutput, unescaped) where they came.
func ParseContinuation(s string) History {
	var out History
	for s != "" {
		i := strings.Index(s, OutputOpen)
		chunk := s
		if i >= 0 {
			chunk = s[:i]
		}
		out.Turns = append(out.Turns, ParseHistory(chunk).Turns...)
		if i < 0 {
			break
		}
		s = s[i+len(OutputOpen):]
		j := strings.Index(s, OutputClose)
		if j < 0 {
			j = len(s)
		}
		out.Turns = append(out.Turns, Turn{Role: FromOutput, Text: unescaper.Replace(s[:j])})
		s = s[min(j+len(OutputClose), len(s)):]
	}
	return out
}
