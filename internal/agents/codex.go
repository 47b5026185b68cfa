package agents

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/fsutil"
)

// A Codex CLI rollout holds one JSON record per line, each
// {"timestamp", "type", "payload"}: session_meta (the session's id and
// cwd), turn_context (the model and cwd of a turn), response_item (what
// the model was sent and wrote: messages, reasoning, function and custom
// tool calls and their outputs), event_msg (what the interface showed:
// token counts among them), and compacted (a compaction: the summary, and
// the history that replaced the one before it). Older rollouts have no
// envelope: a first line {id, timestamp, instructions} and then the
// response items themselves.
//
// ReadCodex reads the response items in order. Consecutive items the
// model wrote (reasoning, assistant text, tool calls) are one assistant
// message, a model step; an output, a user message or a compaction ends
// it. Each token_count event gives the live usage of the step before it
// (its last_token_usage) and the model's context window. The user and
// agent messages of event_msg records repeat the response items and are
// read only when a rollout has no message items at all.

// cxLine is one line: the envelope, and for an older rollout's bare item
// the item's own members (the envelope's type is then the item's).
type cxLine struct {
	Timestamp lenient `json:"timestamp"`
	Type      lenient `json:"type"`
	Payload   *cxItem `json:"payload"`
	cxItem
}

// cxItem is a payload. Every member is lenient or left raw, read by what
// the item's type says it holds: the members of unrelated records may
// have any shape.
type cxItem struct {
	ItemType lenient `json:"type"`
	// message
	Role    lenient `json:"role"`
	Content raw     `json:"content"`
	// reasoning (turn_context has a summary member too)
	Summary          raw `json:"summary"`
	EncryptedContent raw `json:"encrypted_content"`
	// calls and outputs
	Name      lenient `json:"name"`
	Arguments raw     `json:"arguments"`
	Input     raw     `json:"input"`
	CallID    lenient `json:"call_id"`
	ID        lenient `json:"id"`
	Output    raw     `json:"output"`
	Action    raw     `json:"action"`
	// session_meta, turn_context
	Cwd   lenient `json:"cwd"`
	Model lenient `json:"model"`
	// event_msg
	Message raw `json:"message"`
	Info    raw `json:"info"`
	// compacted
	ReplacementHistory raw     `json:"replacement_history"`
	Trigger            lenient `json:"trigger"`
	// an older rollout's state line
	RecordType lenient `json:"record_type"`
}

// ReadCodexFile reads the Codex rollout at path.
func ReadCodexFile(path string) (*Session, error) {
	f, err := fsutil.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCodex(f, path)
}

// ReadCodex reads one Codex rollout (see the comment at the top of this
// file). The error is an I/O error or a line too long; bad records are
// Problems.
func ReadCodex(r io.Reader, name string) (*Session, error) {
	s := &Session{Agent: Codex, Path: name, Problems: []Problem{}, Compactions: []Compaction{}}
	cx := &cxReader{s: s, cur: -1, calls: map[string]string{}}
	err := eachLine(r, name, func(line int, text []byte) {
		var rec cxLine
		if err := json.Unmarshal(text, &rec); err != nil {
			s.problem(line, "%s", jsonProblem(text, err))
			return
		}
		typ := string(rec.Type)
		it := rec.Payload
		if it == nil {
			// An older rollout: a bare item, the session line, or a state
			// line.
			switch {
			case typ == "" && rec.ID != "" && rec.RecordType == "":
				if s.ID == "" {
					s.ID = string(rec.ID)
				}
				return
			case rec.RecordType != "":
				return
			case typ == "message" || typ == "reasoning" || strings.Contains(typ, "call"):
				it = &rec.cxItem
				it.ItemType = rec.Type
				typ = "response_item"
			case typ == "":
				s.problem(line, "record without type; left out")
				return
			default:
				return
			}
		}
		switch typ {
		case "session_meta", "turn_context", "response_item", "event_msg", "compacted":
			cx.record(line, typ, parseTime(string(rec.Timestamp)), it)
		}
	})
	if err != nil {
		return nil, err
	}
	cx.finish()
	if s.ID == "" {
		base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		s.ID = strings.TrimPrefix(base, "rollout-")
	}
	s.capProblems()
	return s, nil
}

type cxReader struct {
	s   *Session
	cur int // index of the open assistant message, -1 none
	// calls maps each call id to its tool's name.
	calls map[string]string
	// lastTokens is the input of the last non-zero token count: Codex
	// can write one of zeros just before a compaction.
	lastTokens int64
	// afterCompaction: a compaction was recorded and no model item came
	// since, so the next token count is the compaction call's own usage
	// (openai/codex#47003), not a step's.
	afterCompaction bool
	// eventLine is the line of a context_compacted event not yet
	// matched by a compacted record (0: none); eventAt the message count
	// then.
	eventLine, eventAt int
	// events are the interface's copies of the messages, read when
	// there is no message item (msgItems false).
	events   []Message
	msgItems bool
}

// assistant returns the open assistant message, opening one at line.
func (cx *cxReader) assistant(line int, t time.Time) *Message {
	s := cx.s
	if cx.cur < 0 {
		s.Messages = append(s.Messages, Message{ID: itemID(line), Role: RoleAssistant, Model: s.Model, Time: t, Line: line})
		cx.cur = len(s.Messages) - 1
	}
	return &s.Messages[cx.cur]
}

// itemID names the message a rollout's line starts: rollouts give their
// items no ids.
func itemID(line int) string { return "L" + strconv.Itoa(line) }

func (cx *cxReader) record(line int, typ string, t time.Time, it *cxItem) {
	s := cx.s
	switch typ {
	case "session_meta":
		if s.ID == "" {
			s.ID = string(it.ID)
		}
		if s.Cwd == "" {
			s.Cwd = string(it.Cwd)
		}
		return
	case "turn_context":
		if it.Model != "" {
			s.Model = string(it.Model)
		}
		if s.Cwd == "" {
			s.Cwd = string(it.Cwd)
		}
		return
	case "event_msg":
		switch string(it.ItemType) {
		case "token_count":
			var info struct {
				LastTokenUsage *struct {
					InputTokens       int64 `json:"input_tokens"`
					CachedInputTokens int64 `json:"cached_input_tokens"`
					OutputTokens      int64 `json:"output_tokens"`
				} `json:"last_token_usage"`
				ModelContextWindow int64 `json:"model_context_window"`
			}
			if len(it.Info) == 0 {
				return
			}
			if err := json.Unmarshal(it.Info, &info); err != nil {
				s.problem(line, "token_count info: %s", jsonProblem(it.Info, err))
				return
			}
			if info.ModelContextWindow > 0 {
				s.ContextWindow = info.ModelContextWindow
			}
			if u := info.LastTokenUsage; u != nil && (u.InputTokens != 0 || u.OutputTokens != 0) {
				// (A count of zeros, as written just before a compaction,
				// says nothing.)
				// Codex counts cached tokens inside input_tokens.
				use := &Usage{Input: u.InputTokens - u.CachedInputTokens, CacheRead: u.CachedInputTokens, Output: u.OutputTokens}
				if use.Input < 0 {
					use.Input, use.CacheRead = u.InputTokens, 0
				}
				if cx.afterCompaction && len(s.Compactions) > 0 {
					c := &s.Compactions[len(s.Compactions)-1]
					if c.Usage == nil {
						c.Usage = use
						return
					}
				}
				if u.InputTokens > 0 {
					cx.lastTokens = u.InputTokens
				}
				for i := len(s.Messages) - 1; i >= 0; i-- {
					if s.Messages[i].Role == RoleAssistant {
						s.Messages[i].Usage = use
						break
					}
					if s.Messages[i].Role == RoleUser {
						break
					}
				}
			}
		case "user_message", "agent_message":
			var text string
			if json.Unmarshal(it.Message, &text) != nil {
				return
			}
			role := RoleUser
			if string(it.ItemType) == "agent_message" {
				role = RoleAssistant
			}
			cx.events = append(cx.events, Message{ID: itemID(line), Role: role, Text: text, Time: t, Line: line})
		case "context_compacted":
			// The interface's mark of a compaction: the compacted record
			// is written beside it, before or after.
			if n := len(s.Compactions); n > 0 && s.Compactions[n-1].Index == len(s.Messages) && cx.afterCompaction {
				return // its record came first
			}
			cx.eventLine, cx.eventAt = line, len(s.Messages)
		}
		return
	case "compacted":
		cx.cur = -1
		var msg string
		_ = json.Unmarshal(it.Message, &msg)
		if cx.eventLine > 0 && cx.eventAt == len(s.Messages) {
			cx.eventLine = 0 // the event marked this record
		}
		cx.flushEvent()
		c := Compaction{Index: len(s.Messages), Line: line, Trigger: string(it.Trigger), PreTokens: cx.lastTokens, Time: t}
		c.Preserved = cx.kept(it.ReplacementHistory)
		cx.afterCompaction = true
		switch {
		case msg != "":
			c.Summary, c.HasSummary = msg, true
		case encryptedCompaction(it.ReplacementHistory):
			c.Unauditable = "remote compaction: the summary the model wrote is encrypted"
		default:
			c.Unauditable = "the compaction record holds no summary"
		}
		s.Compactions = append(s.Compactions, c)
		return
	}
	// A response item.
	cx.afterCompaction = false
	cx.flushEvent()
	switch string(it.ItemType) {
	case "message":
		text, ok := textOrParts(it.Content)
		if !ok {
			s.problem(line, "message content is neither text nor a list of parts; left out")
			return
		}
		switch it.Role {
		case "assistant":
			cx.msgItems = true
			m := cx.assistant(line, t)
			m.Text = joinText(m.Text, text)
		case "user":
			cx.msgItems = true
			cx.cur = -1
			if isInjected(text) {
				return
			}
			s.Messages = append(s.Messages, Message{ID: itemID(line), Role: RoleUser, Text: text, Time: t, Line: line})
		case "developer", "system":
			cx.cur = -1
			s.Messages = append(s.Messages, Message{ID: itemID(line), Role: RoleSystem, Text: text, Time: t, Line: line})
		default:
			s.problem(line, "message with role %q; left out", string(it.Role))
		}
	case "reasoning":
		m := cx.assistant(line, t)
		var summary []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(it.Summary, &summary)
		var parts []string
		for _, p := range summary {
			parts = append(parts, p.Text)
		}
		text := strings.Join(parts, "\n")
		if text == "" && len(it.EncryptedContent) > 0 && string(it.EncryptedContent) != "null" {
			text = EncryptedReasoning
		}
		m.Reasoning = joinText(m.Reasoning, text)
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call":
		id := string(it.CallID)
		if id == "" {
			id = string(it.ID)
		}
		if id == "" {
			id = itemID(line)
		}
		name := string(it.Name)
		var input string
		switch string(it.ItemType) {
		case "function_call":
			// arguments is a JSON string holding JSON; keep the inner text.
			if err := json.Unmarshal(it.Arguments, &input); err != nil {
				input = string(bytes.TrimSpace(it.Arguments))
			}
		case "custom_tool_call":
			if err := json.Unmarshal(it.Input, &input); err != nil {
				input = string(bytes.TrimSpace(it.Input))
			}
		case "local_shell_call":
			name = "local_shell"
			input = string(bytes.TrimSpace(it.Action))
		case "web_search_call":
			name = "web_search"
			input = string(bytes.TrimSpace(it.Action))
		}
		if name == "" {
			s.problem(line, "%s without a name; left out", string(it.ItemType))
			return
		}
		m := cx.assistant(line, t)
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: name, Input: input})
		cx.calls[id] = name
	case "function_call_output", "custom_tool_call_output":
		cx.cur = -1
		callID := string(it.CallID)
		if _, ok := cx.calls[callID]; !ok {
			s.problem(line, "output for call %q, which no call before it made; left out", callID)
			return
		}
		out, isErr, code := codexOutput(it.Output)
		m := Message{ID: itemID(line), Role: RoleTool, Text: out, ToolCallID: callID, IsError: isErr, Time: t, Line: line}
		if code != nil {
			m.ExitCode = code
			if *code != 0 {
				m.IsError = true
			}
		}
		s.Messages = append(s.Messages, m)
	}
}

// flushEvent records a context_compacted event that no compacted record
// came with: a compaction whose summary the rollout does not hold.
func (cx *cxReader) flushEvent() {
	if cx.eventLine == 0 {
		return
	}
	cx.s.Compactions = append(cx.s.Compactions, Compaction{Index: cx.eventAt, Line: cx.eventLine, PreTokens: cx.lastTokens,
		Unauditable: "the rollout marks a compaction (context_compacted) but holds no compacted record with its summary"})
	cx.eventLine = 0
	cx.afterCompaction = true
}

// kept lists the ids of the user messages since the last compaction
// that a compaction's replacement_history keeps verbatim (Codex keeps the
// user's messages, up to 64,000 tokens, beside the summary): the kept
// tail, not part of what the summary replaced. Each item of the history
// matches the latest unmatched user message of the same text.
func (cx *cxReader) kept(history []byte) []string {
	if len(history) == 0 || !bytes.Contains(history, []byte(`"user"`)) {
		return nil
	}
	var items []struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content raw    `json:"content"`
	}
	if json.Unmarshal(history, &items) != nil {
		return nil
	}
	s := cx.s
	start := 0
	if n := len(s.Compactions); n > 0 {
		start = s.Compactions[n-1].Index
	}
	used := map[int]bool{}
	var ids []string
	for _, it := range items {
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		text, ok := textOrParts(it.Content)
		if !ok {
			continue
		}
		for i := len(s.Messages) - 1; i >= start; i-- {
			m := &s.Messages[i]
			if m.Role == RoleUser && !used[i] && m.Text == text {
				used[i] = true
				ids = append(ids, m.ID)
				break
			}
		}
	}
	return ids
}

func (cx *cxReader) finish() {
	cx.flushEvent()
	if !cx.msgItems && len(cx.events) > 0 {
		// Only the interface's copies: read them, in order, before the
		// tool items they came with (a rollout of that shape has none
		// worth pairing).
		var out []Message
		ev := 0
		for _, m := range cx.s.Messages {
			for ev < len(cx.events) && cx.events[ev].Line < m.Line {
				out = append(out, cx.events[ev])
				ev++
			}
			out = append(out, m)
		}
		out = append(out, cx.events[ev:]...)
		cx.s.Messages = out
		for i := range cx.s.Compactions {
			c := &cx.s.Compactions[i]
			n := 0
			for _, m := range out {
				if m.Line < c.Line {
					n++
				}
			}
			c.Index = n
		}
	}
}

// isInjected reports whether a user message is context Codex adds to the
// conversation (the environment, the project's instructions) rather than
// something the user wrote.
func isInjected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<user_shell_command>"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// encryptedCompaction reports whether a replacement history holds the
// encrypted item of a remote compaction.
func encryptedCompaction(history []byte) bool {
	if !bytes.Contains(history, []byte("encrypted_content")) {
		return false
	}
	var items []json.RawMessage
	if json.Unmarshal(history, &items) != nil {
		return false
	}
	for _, raw := range items {
		var it struct {
			Type             string  `json:"type"`
			EncryptedContent *string `json:"encrypted_content"`
		}
		if json.Unmarshal(raw, &it) == nil && (it.Type == "compaction" || it.Type == "compaction_summary") && it.EncryptedContent != nil {
			return true
		}
	}
	return false
}

// codexOutput reads a tool output: a string (plain text, or the older JSON
// {"output", "metadata": {"exit_code"}}), an object {content, success},
// or a list of content items.
func codexOutput(b []byte) (text string, isErr bool, code *int) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var obj struct {
			Content raw   `json:"content"`
			Success *bool `json:"success"`
		}
		if json.Unmarshal(b, &obj) == nil {
			text, _ = textOrParts(obj.Content)
			isErr = obj.Success != nil && !*obj.Success
		}
	} else {
		text, _ = textOrParts(b)
	}
	if t := strings.TrimLeft(text, " \t\r\n"); strings.HasPrefix(t, `{"output"`) || strings.HasPrefix(t, "{") && strings.Contains(t[:min(len(t), 64)], `"output"`) {
		var old struct {
			Output   *string `json:"output"`
			Metadata *struct {
				ExitCode *float64 `json:"exit_code"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(t), &old) == nil && old.Output != nil {
			if old.Metadata != nil && old.Metadata.ExitCode != nil {
				n := int(*old.Metadata.ExitCode)
				code = &n
			}
			return *old.Output, isErr, code
		}
	}
	if n, ok := exitCodeOf(text); ok {
		code = &n
	}
	return text, isErr, code
}
