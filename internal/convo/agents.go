package convo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/strategy"
)

// Recorded is one compaction an agent recorded, placed on a History's
// Branch.
type Recorded struct {
	// Index is the number of Branch messages before the compaction: it
	// replaced Branch[previous Index:Index].
	Index int `json:"index"`
	// Line is the 1-based line of its record in the session file.
	Line      int    `json:"line"`
	Trigger   string `json:"trigger,omitempty"`
	PreTokens int64  `json:"preTokens,omitempty"`
	// Summary is the summary the agent recorded; HasSummary whether it
	// did.
	Summary    string `json:"-"`
	HasSummary bool   `json:"hasSummary"`
	// Unauditable says why the compaction cannot be checked ("" when it
	// can).
	Unauditable string `json:"unauditable,omitempty"`
}

// FromSession turns an agent's session into a History (Source the agent's
// name, Name the file): its messages as strategy messages, in order, a
// list (Tree false). User and assistant messages keep their text
// (reasoning is left out: the agents do not send it back), an assistant
// its tool calls (Arguments the call's input), a tool result its text;
// system messages keep their text and render as nothing. Origin is each
// message's line. A tool result whose call is not before it is left out
// with a Problem (the readers already drop most).
//
// It also fills what only agent histories have: Usage (the live context
// of each step), Recorded (the compactions, on the Branch), ContextWindow
// and Outcomes (the marker suffix of each call, from the recorded error
// flag and exit status; see Outcome).
func FromSession(s *agents.Session) *History {
	h := &History{Source: s.Agent, Name: s.Path, Title: s.ID, Model: s.Model, Cwd: s.Cwd, Problems: []Problem{}, Outcomes: map[string]string{}}
	h.ContextWindow = int(s.ContextWindow)
	for _, p := range s.Problems {
		h.Problems = append(h.Problems, Problem{Line: p.Line, Message: p.Message})
	}
	callName := map[string]string{}
	branchAt := make([]int, len(s.Messages)+1) // message index → branch index
	for i := range s.Messages {
		m := &s.Messages[i]
		branchAt[i] = len(h.Branch)
		sm := strategy.Message{ID: m.ID, Content: m.Text, CreatedAt: m.Time}
		switch m.Role {
		case agents.RoleSystem:
			sm.Role = strategy.RoleSystem
		case agents.RoleUser:
			sm.Role = strategy.RoleUser
		case agents.RoleAssistant:
			sm.Role = strategy.RoleAssistant
			for _, c := range m.ToolCalls {
				sm.ToolCalls = append(sm.ToolCalls, strategy.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Input})
				callName[c.ID] = c.Name
			}
		case agents.RoleTool:
			name, ok := callName[m.ToolCallID]
			if !ok {
				h.Problems = append(h.Problems, Problem{Line: m.Line, ID: m.ID, Message: fmt.Sprintf("tool result for %q, a call not made before it; left out", m.ToolCallID)})
				continue
			}
			sm.Role, sm.ToolCallID = strategy.RoleTool, m.ToolCallID
			h.Outcomes[m.ToolCallID] = Outcome(name, m.Text, m.IsError, m.ExitCode)
		default:
			continue
		}
		h.Branch = append(h.Branch, sm)
		h.Origin = append(h.Origin, m.Line)
		var use int64
		if m.Usage != nil {
			use = m.Usage.Context()
			h.HasUsage = true
		}
		h.Usage = append(h.Usage, use)
	}
	branchAt[len(s.Messages)] = len(h.Branch)
	h.Messages = h.Branch
	if n := len(h.Branch); n > 0 {
		h.Leaf = h.Branch[n-1].ID
	}
	for _, c := range s.Compactions {
		idx := c.Index
		if idx < 0 || idx > len(s.Messages) {
			continue
		}
		h.Recorded = append(h.Recorded, Recorded{
			Index: branchAt[idx], Line: c.Line, Trigger: c.Trigger, PreTokens: c.PreTokens,
			Summary: c.Summary, HasSummary: c.HasSummary, Unauditable: c.Unauditable,
		})
	}
	return h
}

// Outcome is the suffix of the marker of a call to tool name whose result
// is text, with the agent's error flag and exit status (nil: none):
// " → exit N" for a non-zero status; for a failure without one,
// " → timed out" or ToolFailure's reading of the text, else " ✗ " and the
// text's first line ("error" when empty); for a success, " → ✓" for a
// shell command (so that eval reads it as the fix of an earlier failure
// of the same command) and nothing otherwise.
func Outcome(name, text string, isError bool, exitCode *int) string {
	shell := MarkerVerb(name) == "shell"
	if exitCode != nil {
		if *exitCode != 0 {
			return " → exit " + strconv.Itoa(*exitCode)
		}
		if !isError {
			if shell {
				return " → ✓"
			}
			return ""
		}
	}
	if isError {
		if f := ToolFailure(text); f != "" {
			return f
		}
		line := firstLine(stripTags(text))
		if line == "" {
			line = "error"
		}
		return " ✗ " + cut(line, 80)
	}
	if shell {
		return " → ✓"
	}
	return ""
}

// stripTags drops the tags Claude Code wraps a tool's error in
// (<tool_use_error>…</tool_use_error>).
func stripTags(s string) string {
	s = strings.TrimSpace(s)
	for {
		if !strings.HasPrefix(s, "<") {
			return s
		}
		end := strings.IndexByte(s, '>')
		if end < 0 || strings.ContainsAny(s[1:end], " \n") {
			return s
		}
		s = strings.TrimSpace(s[end+1:])
		if i := strings.Index(s, "</"); i >= 0 {
			s = strings.TrimSpace(s[:i])
		}
	}
}
