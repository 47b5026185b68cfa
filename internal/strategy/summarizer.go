package strategy

import (
	"context"
	"fmt"
	"strings"

	"github.com/compactlab/compact/internal/briefing"
	"github.com/compactlab/compact/internal/history"
)

// BriefingWriter writes the builtin stagewise briefing from a compact
// history (the serializer's output, from the previous briefing on) and a
// size target in UTF-16 units. It is internal/briefing's deterministic
// writer; tests or callers may replace it.
var BriefingWriter = func(compactHistory string, targetChars int) string {
	return briefing.Write(compactHistory, briefing.Options{TargetChars: targetChars})
}

// Builtin is the offline summarizer: no network, the same input always
// gives the same text. Stagewise requests go to BriefingWriter; the others
// get RuleSummary of the compacted messages.
type Builtin struct{}

// Summarize implements Summarizer.
func (Builtin) Summarize(ctx context.Context, req SummaryRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if req.Strategy == NameStagewise {
		return BriefingWriter(req.CompactHistory, req.TargetChars), nil
	}
	return RuleSummary(req.Previous, req.Compacted, req.TargetChars), nil
}

// StoredBoundaries lists the indices of the messages that carry a briefing
// the app stored (StoredSummary set): the real boundaries a stagewise
// simulation can be put beside.
func StoredBoundaries(history []Message) []int {
	var out []int
	for k := range history {
		if history[k].StoredSummary != nil && *history[k].StoredSummary != "" {
			out = append(out, k)
		}
	}
	return out
}

// PlaceholderChars is the size of the Recorded summarizer's placeholder.
const PlaceholderChars = 2000

// Recorded replays what the app stored: for a stagewise request whose
// boundary message carries a stored briefing (StoredSummary), that
// briefing, so a simulated boundary that matches a real one costs what the
// real one did. Everywhere else (another boundary, another strategy) it
// returns Placeholder(len(Compacted)), a fixed-size stand-in: sizes and
// token figures stay comparable, the content means nothing.
type Recorded struct{}

// Summarize implements Summarizer.
func (Recorded) Summarize(ctx context.Context, req SummaryRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if req.Strategy == NameStagewise && req.Boundary != nil && req.Boundary.StoredSummary != nil && *req.Boundary.StoredSummary != "" {
		return *req.Boundary.StoredSummary, nil
	}
	return Placeholder(len(req.Compacted)), nil
}

// Placeholder is "[placeholder summary of N messages]" padded to
// PlaceholderChars characters with a neutral filler sentence (prose, so a
// real tokenizer counts it about as it counts a summary).
func Placeholder(n int) string {
	head := fmt.Sprintf("[placeholder summary of %d messages]", n)
	const filler = " This fixed-size text stands in for a summary that was not recorded."
	var b strings.Builder
	b.Grow(PlaceholderChars + len(filler))
	b.WriteString(head)
	for b.Len() < PlaceholderChars {
		b.WriteString(filler)
	}
	return b.String()[:PlaceholderChars]
}

// DefaultRuleTarget is RuleSummary's size bound when the request has none.
const DefaultRuleTarget = 4000

// RuleSummary is the builtin rule-based summary: the previous summary kept
// as it was, then one line per user request, per assistant conclusion (its
// last non-empty line) with the tools it used, and per tool error. When the
// result is longer than target UTF-16 units (0: DefaultRuleTarget) the
// oldest lines go first, replaced by a count, and a single line still too
// long is cut.
func RuleSummary(previous string, msgs []Message, target int) string {
	if target <= 0 {
		target = DefaultRuleTarget
	}
	names := map[string]string{} // tool call id → tool name
	var lines []string
	if p := strings.TrimSpace(previous); p != "" {
		lines = append(lines, strings.Split(p, "\n")...)
		lines = append(lines, "")
	}
	added := 0
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case RoleUser:
			if t := oneLine(m.Content, 200); t != "" {
				lines = append(lines, "The user asked: "+t)
				added++
			}
		case RoleAssistant:
			var tools []string
			for _, tc := range m.ToolCalls {
				names[tc.ID] = tc.Name
				tools = append(tools, tc.Name)
			}
			if t := oneLine(lastLine(m.Content), 200); t != "" {
				lines = append(lines, "The assistant concluded: "+t)
				added++
			}
			if len(tools) > 0 {
				lines = append(lines, "The assistant used tools: "+strings.Join(tools, ", ")+".")
				added++
			}
		case RoleTool:
			if strings.Contains(strings.ToLower(m.Content), "error") {
				name := names[m.ToolCallID]
				if name == "" {
					name = "tool"
				}
				lines = append(lines, fmt.Sprintf("Tool %s reported an error: %s", name, oneLine(firstLine(m.Content), 120)))
				added++
			}
		}
	}
	if added == 0 && len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return fmt.Sprintf("Nothing to summarize in %d messages.", len(msgs))
	}
	return boundLines(lines, target)
}

// boundLines joins lines with "\n", dropping the oldest ones (and saying
// how many) until the text fits target UTF-16 units.
func boundLines(lines []string, target int) string {
	note := func(d int) string { return fmt.Sprintf("[%d earlier lines dropped]", d) }
	size := -1 // the joined length of lines[dropped:]
	for _, l := range lines {
		size += history.Len16(l) + 1
	}
	dropped := 0
	fits := func() bool {
		if dropped == 0 {
			return size <= target
		}
		return size+history.Len16(note(dropped))+1 <= target
	}
	for !fits() && len(lines)-dropped > 1 {
		size -= history.Len16(lines[dropped]) + 1
		dropped++
	}
	out := strings.Join(lines[dropped:], "\n")
	if dropped > 0 {
		out = note(dropped) + "\n" + out
	}
	if history.Len16(out) > target {
		out = history.Slice16(out, target)
	}
	return out
}

// oneLine collapses whitespace and cuts s to n UTF-16 units (with "…").
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if history.Len16(s) > n {
		s = history.Slice16(s, n-1) + "…"
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(lines[i]); t != "" {
			return t
		}
	}
	return ""
}
