// Package convo reads histories of any agent into the generic message model
// of internal/strategy (strategy.Message), so that a history can be
// simulated under every compression strategy:
//
//   - ReadJSONL reads the generic JSONL format, one message per line, lists
//     and trees (branching conversations), and reports every bad line
//     instead of stopping at the first;
//   - ReadStagewise reads chats of a stagewise agent database the way
//     `compact extract` reads them, keeping the decoded message (Raw) and the
//     briefing the app stored on it (StoredSummary);
//   - FromSession turns an agent's session read by internal/agents (Claude
//     Code, Codex, SWE-agent) into a History, with the live usage of each
//     step, the compactions the agent recorded and the outcome of each
//     tool call.
//
// It also renders generic messages back into the compact-history layout the
// must-keep measures of internal/mdtext read (CompactHistory), and measures how many must-keep items of the compacted
// messages a summary kept (MeasureRetention).
//
// # The JSONL format
//
// One JSON object per line; blank lines are skipped. Fields:
//
//	id            string  the message id (required, unique in the file)
//	parent_id     string  the parent message's id (optional, for trees)
//	role          string  system, user, assistant or tool
//	content       string  the text; null, or an array of OpenAI content
//	                      parts whose "text" members are joined with "\n"
//	tool_calls    array   assistant only, OpenAI shape:
//	                      [{"id", "type": "function",
//	                        "function": {"name", "arguments"}}]
//	                      (arguments a JSON string, or an object)
//	tool_call_id  string  tool messages: the id of the call answered
//	created_at    string  RFC 3339 time (optional)
//	cwd           string  the working directory of the agent (optional):
//	                      the first line of the branch that has one gives
//	                      History.Cwd, against which the offline probe
//	                      scores of compact simulate make paths relative
//
// Other members are ignored. When no line has a parent_id the file is a
// list: the messages in file order. Otherwise it is a tree: a message
// without parent_id is a root, and the branch simulated is the path from a
// root to the newest leaf (the leaf whose line comes last), or to the
// message chosen with JSONLOptions.Leaf.
//
// # Bad lines
//
// Every problem is reported with its 1-based line number and the rest of
// the file is still read: a line that is not a JSON object, a member of the
// wrong type, an unknown role, a created_at that is not RFC 3339, a missing
// or duplicate id (the later line is left out), a tool message whose
// tool_call_id is not among the tool_calls of the assistant messages before
// it on its branch, a parent_id that points nowhere, a cycle of parents.
//
// A line with a problem is left out. When its id and parent are known (an
// unknown role, a bad time, a tool result without its call) it is spliced
// out: its children hang from its parent instead, so one bad line costs
// one message. A line whose chain of parents never reaches a root (a
// parent_id that points nowhere, a cycle) is left out with everything
// below it: a cycle is an error for the whole branch, and choosing a leaf
// on such a branch is an error. A cycle is one problem, on the line of its
// first member, giving its length and a few of its ids; each line below it
// gets a short problem pointing there.
package convo

import (
	"fmt"

	"github.com/compactlab/compact/internal/strategy"
)

// Sources of a History: the generic JSONL, a stagewise database, or an
// agent's session (agents.ClaudeCode, agents.Codex, agents.SWEAgent).
const (
	SourceJSONL     = "jsonl"
	SourceStagewise = "stagewise"
)

// Problem is one line (JSONL) or message (stagewise) the reader left out,
// or one fact about the input the user should know.
type Problem struct {
	// Line is the 1-based line of a JSONL file, 0 when the problem is not
	// about one line.
	Line int `json:"line,omitempty"`
	// ID is the message id, when known.
	ID      string `json:"id,omitempty"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("line %d: %s", p.Line, p.Message)
	}
	return p.Message
}

// History is one history read into the generic model.
type History struct {
	Source string `json:"source"` // SourceJSONL or SourceStagewise
	// Name is the file (JSONL) or the chat id (stagewise).
	Name  string `json:"name"`
	Title string `json:"title,omitempty"`
	// Model is the chat's active model (stagewise), "" when unknown.
	Model string `json:"model,omitempty"`
	// UsedTokens is the token usage of the chat's last live step
	// (stagewise used_tokens), when HasUsedTokens.
	UsedTokens    int64 `json:"usedTokens,omitempty"`
	HasUsedTokens bool  `json:"-"`

	// Messages are all usable messages in input order (a tree: every
	// branch).
	Messages []strategy.Message `json:"-"`
	// Branch is the history to simulate, oldest first: a list's usable
	// messages, or a tree's path from its root to Leaf.
	Branch []strategy.Message `json:"-"`
	Leaf   string             `json:"leaf,omitempty"`
	// Cwd is the working directory the history gives (JSONL: the cwd
	// member of the first line of the branch that has one), "" when none.
	Cwd  string `json:"cwd,omitempty"`
	Tree bool   `json:"tree"`
	// Origin[i] says where Branch[i] came from: its 1-based line (JSONL) or
	// the 0-based index of its database message in the chat (stagewise;
	// the tool messages made from an assistant message's tool parts carry
	// that message's index).
	Origin []int `json:"-"`
	// Problems are the lines or messages left out, in input order.
	Problems []Problem `json:"problems"`

	// What only an agent's session gives (FromSession): Usage[i] is the
	// live context of the step of Branch[i] (tokens the agent sent, 0
	// when not recorded), HasUsage whether any is; Recorded are the
	// compactions the agent recorded; ContextWindow the model's window
	// when the session gives it (0: unknown); Outcomes the marker suffix
	// of each call (see RenderOptions.Outcomes).
	Usage         []int64           `json:"-"`
	HasUsage      bool              `json:"-"`
	Recorded      []Recorded        `json:"recorded,omitempty"`
	ContextWindow int               `json:"-"`
	Outcomes      map[string]string `json:"-"`
}

// RawOnly returns the branch's messages that carry a decoded stagewise
// message (Raw), leaving out the tool messages ReadStagewise makes from
// tool parts: exactly the chat's messages as the app holds them, so index i
// is the chat's message i. For a JSONL history it returns nil.
func (h *History) RawOnly() []strategy.Message {
	var out []strategy.Message
	for _, m := range h.Branch {
		if m.Raw != nil {
			out = append(out, m)
		}
	}
	return out
}
