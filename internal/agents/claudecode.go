package agents

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/fsutil"
)

// Claude Code writes one JSON record per line. The conversation records
// (type user, assistant, system) carry uuid and parentUuid, which make a
// tree: a rewind starts a new branch from an earlier record, parallel tool
// results hang from the record of their own call, and a compaction
// (a system record of subtype compact_boundary) starts a new root whose
// logicalParentUuid names the last record before it. One model response is
// split over several assistant records that share message.id, one content
// block each. Other record types (file-history-snapshot, summary,
// queue-operation, …) are not part of the conversation.
//
// ReadClaudeCode takes the main thread as the records the newest
// non-side-chain record descends from, across compactions (through
// logicalParentUuid) and through the messages a compaction preserved,
// plus the records that belong to them though they hang off the path:
// the other records of a response already on it and the tool results of
// its calls. These are read in file order, which is the order Claude Code
// wrote them. Records of abandoned branches (a rewind) and of side chains
// are left out.

type ccRecord struct {
	Type              string     `json:"type"`
	Subtype           string     `json:"subtype"`
	UUID              string     `json:"uuid"`
	ParentUUID        string     `json:"parentUuid"`
	LogicalParentUUID string     `json:"logicalParentUuid"`
	IsSidechain       bool       `json:"isSidechain"`
	IsMeta            bool       `json:"isMeta"`
	IsCompactSummary  bool       `json:"isCompactSummary"`
	SessionID         string     `json:"sessionId"`
	Cwd               string     `json:"cwd"`
	Timestamp         string     `json:"timestamp"`
	Message           *ccMessage `json:"message"`
	CompactMetadata   *struct {
		Trigger           string `json:"trigger"`
		PreTokens         int64  `json:"preTokens"`
		PreservedMessages *struct {
			UUIDs []string `json:"uuids"`
		} `json:"preservedMessages"`
	} `json:"compactMetadata"`
}

type ccMessage struct {
	ID      string    `json:"id"`
	Role    string    `json:"role"`
	Model   string    `json:"model"`
	Content ccContent `json:"content"`
	Usage   *struct {
		InputTokens              int64 `json:"input_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
	} `json:"usage"`
}

// ccContent is message.content: a string, or an array of blocks.
type ccContent struct {
	Text   string
	Blocks []ccBlock
}

func (c *ccContent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil
	case b[0] == '"':
		return json.Unmarshal(b, &c.Text)
	}
	return json.Unmarshal(b, &c.Blocks)
}

type ccBlock struct {
	Type      string   `json:"type"`
	Text      string   `json:"text"`
	Thinking  string   `json:"thinking"`
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Input     ccInput  `json:"input"`
	ToolUseID string   `json:"tool_use_id"`
	Content   ccResult `json:"content"`
	IsError   bool     `json:"is_error"`
}

// ccInput is a tool call's input, kept as its JSON text.
type ccInput string

func (s *ccInput) UnmarshalJSON(b []byte) error {
	*s = ccInput(bytes.TrimSpace(b))
	return nil
}

// ccResult is a tool result's content (text or a list of parts) as text;
// bad says it was neither.
type ccResult struct {
	Text string
	bad  bool
}

func (r *ccResult) UnmarshalJSON(b []byte) error {
	text, ok := textOrParts(b)
	r.Text, r.bad = text, !ok
	return nil
}

// ccLine is one conversation record kept, with its line.
type ccLine struct {
	ccRecord
	line int
}

// ReadClaudeCodeFile reads the Claude Code session at path, and the
// subagent sessions stored beside it (<session>/subagents/agent-*.jsonl).
func ReadClaudeCodeFile(path string) (*Session, error) {
	f, err := fsutil.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := ReadClaudeCode(f, path)
	if err != nil {
		return nil, err
	}
	dir := strings.TrimSuffix(path, filepath.Ext(path))
	subs, _ := filepath.Glob(filepath.Join(dir, "subagents", "agent-*.jsonl"))
	more, _ := filepath.Glob(filepath.Join(dir, "subagents", "*", "*", "agent-*.jsonl"))
	subs = append(subs, more...)
	sort.Strings(subs)
	for _, p := range subs {
		sf, err := fsutil.OpenInput(p)
		if err != nil {
			s.problem(0, "subagent %s: %v; left out", filepath.Base(p), err)
			continue
		}
		sub, err := ReadClaudeCode(sf, p)
		sf.Close()
		if err != nil {
			s.problem(0, "subagent %s: %v; left out", filepath.Base(p), err)
			continue
		}
		s.Subagents = append(s.Subagents, sub)
	}
	return s, nil
}

// ReadClaudeCode reads one Claude Code session file (see the comment at
// the top of this file for what the main thread is). name names it in the
// Session and in errors. The error is an I/O error or a line too long;
// bad records are Problems.
func ReadClaudeCode(r io.Reader, name string) (*Session, error) {
	s := &Session{Agent: ClaudeCode, Path: name, Problems: []Problem{}, Compactions: []Compaction{}}
	var recs []*ccLine
	err := eachLine(r, name, func(line int, text []byte) {
		var rec ccRecord
		if err := json.Unmarshal(text, &rec); err != nil {
			s.problem(line, "%s", jsonProblem(text, err))
			return
		}
		switch rec.Type {
		case "user", "assistant", "system":
		default:
			return // not part of the conversation
		}
		if rec.UUID == "" {
			s.problem(line, "%s record without uuid; left out", rec.Type)
			return
		}
		if s.ID == "" {
			s.ID = rec.SessionID
		}
		if s.Cwd == "" {
			s.Cwd = rec.Cwd
		}
		recs = append(recs, &ccLine{ccRecord: rec, line: line})
	})
	if err != nil {
		return nil, err
	}
	if s.ID == "" {
		s.ID = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	thread := ccThread(s, recs)
	ccMessages(s, thread)
	s.capProblems()
	return s, nil
}

// ccThread picks the main thread's records, in file order.
func ccThread(s *Session, recs []*ccLine) []*ccLine {
	byID := make(map[string]*ccLine, len(recs))
	for _, r := range recs {
		if first, dup := byID[r.UUID]; dup {
			s.problem(r.line, "uuid %q already on line %d; left out", r.UUID, first.line)
			continue
		}
		byID[r.UUID] = r
	}
	// A subagent's own file is one side chain: there, side-chain
	// records are the thread.
	side := true
	for _, r := range recs {
		if !r.IsSidechain && (r.Type == "user" || r.Type == "assistant") {
			side = false
			break
		}
	}
	other := func(r *ccLine) bool { return r.IsSidechain != side }
	var leaf *ccLine
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if byID[r.UUID] == r && !other(r) && (r.Type == "user" || r.Type == "assistant") {
			leaf = r
			break
		}
	}
	if leaf == nil {
		return nil
	}
	on := map[*ccLine]bool{}
	stack := []*ccLine{leaf}
	dangling := 0
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if on[r] {
			continue
		}
		on[r] = true
		parent := r.ParentUUID
		if parent == "" {
			parent = r.LogicalParentUUID
		}
		if parent != "" {
			if p, ok := byID[parent]; ok {
				stack = append(stack, p)
			} else if dangling == 0 {
				dangling = r.line
			}
		}
		if m := r.CompactMetadata; m != nil && m.PreservedMessages != nil {
			for _, id := range m.PreservedMessages.UUIDs {
				if p, ok := byID[id]; ok {
					stack = append(stack, p)
				}
			}
		}
	}
	if dangling > 0 {
		s.problem(dangling, "the record's parent is not in the file (the session starts before it, or lines are missing); the thread starts here")
	}
	// Records off the path that belong to it: the other records of a
	// response on it, and the results of its calls.
	respIDs := map[string]bool{}
	calls := map[string]bool{}
	note := func(r *ccLine) {
		if r.Message == nil {
			return
		}
		if r.Type == "assistant" && r.Message.ID != "" {
			respIDs[r.Message.ID] = true
		}
		for _, b := range r.Message.Content.Blocks {
			if b.Type == "tool_use" && b.ID != "" {
				calls[b.ID] = true
			}
		}
	}
	for _, r := range recs {
		if on[r] {
			note(r)
		}
	}
	var out []*ccLine
	abandoned := 0
	for _, r := range recs {
		if byID[r.UUID] != r {
			continue
		}
		if !on[r] && !other(r) && r.Message != nil {
			switch {
			case r.Type == "assistant" && r.Message.ID != "" && respIDs[r.Message.ID]:
				on[r] = true
			case r.Type == "user" && answersOnly(r, calls):
				on[r] = true
			}
			if on[r] {
				note(r)
			}
		}
		if on[r] {
			out = append(out, r)
		} else if !other(r) && (r.Type == "user" || r.Type == "assistant") {
			abandoned++
		}
	}
	if abandoned > 0 {
		s.problem(0, "%s on other branches (a rewind or an edited message) are not on the main thread; left out", plural(abandoned, "record"))
	}
	return out
}

// answersOnly reports whether a user record holds only tool results, each
// answering a call of calls.
func answersOnly(r *ccLine, calls map[string]bool) bool {
	bs := r.Message.Content.Blocks
	if len(bs) == 0 {
		return false
	}
	for _, b := range bs {
		if b.Type != "tool_result" || !calls[b.ToolUseID] {
			return false
		}
	}
	return true
}

// ccMessages turns the thread's records into messages and compactions.
func ccMessages(s *Session, thread []*ccLine) {
	var pending *Compaction // a boundary waiting for its summary
	lastAsst := -1          // index of the last assistant message
	lastResp := ""          // its response id (message.id)
	known := map[string]bool{}
	for _, r := range thread {
		t := parseTime(r.Timestamp)
		switch {
		case r.Type == "system" && r.Subtype == "compact_boundary":
			c := Compaction{Index: len(s.Messages), Line: r.line, ID: r.UUID, Time: t}
			if m := r.CompactMetadata; m != nil {
				c.Trigger, c.PreTokens = m.Trigger, m.PreTokens
				if m.PreservedMessages != nil {
					c.Preserved = m.PreservedMessages.UUIDs
				}
			}
			s.Compactions = append(s.Compactions, c)
			pending = &s.Compactions[len(s.Compactions)-1]
			lastAsst = -1
			continue
		case r.Type == "system":
			continue
		case r.Message == nil:
			s.problem(r.line, "%s record without message; left out", r.Type)
			continue
		case r.IsCompactSummary:
			text := r.Message.Content.Text
			if r.Message.Content.Blocks != nil {
				var parts []string
				for _, b := range r.Message.Content.Blocks {
					if b.Type == "text" {
						parts = append(parts, b.Text)
					}
				}
				text = strings.Join(parts, "\n")
			}
			if pending == nil {
				// A summary without a boundary record (an older
				// version): the compaction is here.
				s.Compactions = append(s.Compactions, Compaction{Index: len(s.Messages), Line: r.line, ID: r.UUID, Time: t})
				pending = &s.Compactions[len(s.Compactions)-1]
			}
			if pending.HasSummary {
				s.problem(r.line, "a second summary for the compaction on line %d; left out", pending.Line)
				continue
			}
			pending.Summary, pending.HasSummary, pending.SummaryLine = text, true, r.line
			continue
		case r.IsMeta:
			continue
		}
		m := r.Message
		if r.Type == "assistant" {
			if m.Model != "" && m.Model != "<synthetic>" {
				s.Model = m.Model
			}
			var cur *Message
			if lastAsst >= 0 && m.ID != "" && lastResp == m.ID {
				cur = &s.Messages[lastAsst]
			} else {
				s.Messages = append(s.Messages, Message{ID: r.UUID, Role: RoleAssistant, Model: m.Model, Time: t, Line: r.line})
				lastAsst, lastResp = len(s.Messages)-1, m.ID
				cur = &s.Messages[lastAsst]
			}
			if m.Content.Text != "" {
				cur.Text = joinText(cur.Text, m.Content.Text)
			}
			for _, b := range m.Content.Blocks {
				switch b.Type {
				case "text":
					cur.Text = joinText(cur.Text, b.Text)
				case "thinking":
					cur.Reasoning = joinText(cur.Reasoning, b.Thinking)
				case "redacted_thinking":
					cur.Reasoning = joinText(cur.Reasoning, EncryptedReasoning)
				case "tool_use", "server_tool_use":
					input := string(b.Input)
					if input == "" {
						input = "{}"
					}
					id := b.ID
					if id == "" {
						id = r.UUID + "/" + b.Name
					}
					cur.ToolCalls = append(cur.ToolCalls, ToolCall{ID: id, Name: b.Name, Input: input})
					known[id] = true
				case "image":
					cur.Text = joinText(cur.Text, ImagePlaceholder)
				}
			}
			if u := m.Usage; u != nil {
				cur.Usage = &Usage{Input: u.InputTokens, CacheRead: u.CacheReadInputTokens, CacheCreation: u.CacheCreationInputTokens, Output: u.OutputTokens}
			}
			continue
		}
		// A user record: tool results, then text.
		var texts []string
		if m.Content.Text != "" {
			texts = append(texts, m.Content.Text)
		}
		for i, b := range m.Content.Blocks {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "image":
				texts = append(texts, ImagePlaceholder)
			case "tool_result":
				if !known[b.ToolUseID] {
					s.problem(r.line, "tool result for %q, a call not made before it on the thread; left out", b.ToolUseID)
					continue
				}
				out := b.Content.Text
				if b.Content.bad {
					s.problem(r.line, "tool result %d: content is neither text nor a list of parts; read as empty", i)
				}
				tm := Message{ID: r.UUID + "/" + b.ToolUseID, Role: RoleTool, Text: out, ToolCallID: b.ToolUseID, IsError: b.IsError, Time: t, Line: r.line}
				if code, ok := exitCodeOf(out); ok && b.IsError {
					tm.ExitCode = &code
				}
				s.Messages = append(s.Messages, tm)
			}
		}
		if len(texts) > 0 {
			s.Messages = append(s.Messages, Message{ID: r.UUID, Role: RoleUser, Text: strings.Join(texts, "\n"), Time: t, Line: r.line})
			lastAsst = -1
		}
	}
	for i := range s.Compactions {
		c := &s.Compactions[i]
		if !c.HasSummary && c.Unauditable == "" {
			c.Unauditable = "no summary record follows the compaction boundary"
		}
	}
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "\n\n" + b
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
