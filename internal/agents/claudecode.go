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

// Claude Code writes one JSON record per line (now and then two on one
// line, when a write was cut short). Every record with a uuid is a link of
// one tree, whatever its type: user, assistant and system records, and
// also progress records (hook, agent and bash progress: most of a session
// of 2.1.12 or later, with user and assistant records hanging from them)
// and attachment records. parentUuid names a record's parent; a rewind
// starts a new branch from an earlier record, parallel tool results hang
// from the record of their own call, and a compaction (a system record of
// subtype compact_boundary) starts a new root whose logicalParentUuid
// names the last record before it. One model response is split over
// several assistant records that share message.id, one content block
// each. Records without a uuid (file-history-snapshot, queue-operation,
// summary, custom-title, …) are metadata.
//
// Real files break the tree in three ways, each handled here:
//   - a parent that was never written (a logicalParentUuid or a progress
//     record's parent missing from the file, anthropics/claude-code#46603):
//     the walk continues at the nearest earlier record of the thread in file
//     order, and says so once;
//   - a manual /compact of newer versions writes its boundary and summary
//     as a detached side branch the final thread never passes through:
//     every compact_boundary of the file is found, and one off the thread
//     joins it where its logical parent stands;
//   - a second /compact in one process re-appends earlier rows with their
//     original uuids (anthropics/claude-code#92089): the first row of each
//     uuid is the one read, never the history twice.
//
// ReadClaudeCode takes the main thread as the records the newest
// non-side-chain user or assistant record descends from, across
// compactions (through logicalParentUuid) and through the messages a
// compaction preserved, plus the records that belong to them though they
// hang off the path: the other records of a response already on it and
// the tool results of its calls. These are read in file order, which is
// the order Claude Code wrote them. Only user, assistant and the
// compaction's records become messages. Records of abandoned branches (a
// rewind) and of side chains are left out.

type ccRecord struct {
	Type              string         `json:"type"`
	Subtype           string         `json:"subtype"`
	UUID              string         `json:"uuid"`
	ParentUUID        string         `json:"parentUuid"`
	LogicalParentUUID string         `json:"logicalParentUuid"`
	IsSidechain       bool           `json:"isSidechain"`
	IsMeta            bool           `json:"isMeta"`
	IsCompactSummary  bool           `json:"isCompactSummary"`
	SessionID         string         `json:"sessionId"`
	Cwd               string         `json:"cwd"`
	Timestamp         string         `json:"timestamp"`
	Message           *ccMessage     `json:"message"`
	CompactMetadata   *ccCompactMeta `json:"compactMetadata"`
}

// ccCompactMeta is a boundary's compactMetadata: trigger and preTokens
// always; postTokens, durationMs and the kept tail (preservedSegment, or
// preservedMessages which supersedes it) in later versions.
type ccCompactMeta struct {
	Trigger          lenient `json:"trigger"`
	PreTokens        int64   `json:"preTokens"`
	PostTokens       int64   `json:"postTokens"`
	DurationMs       int64   `json:"durationMs"`
	PreservedSegment *struct {
		HeadUUID   string `json:"headUuid"`
		AnchorUUID string `json:"anchorUuid"`
		TailUUID   string `json:"tailUuid"`
	} `json:"preservedSegment"`
	PreservedMessages *struct {
		UUIDs []string `json:"uuids"`
	} `json:"preservedMessages"`
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

// ccLine is one record of the tree kept, with its line and its place in
// the file.
type ccLine struct {
	ccRecord
	line int
	pos  int // index in the file's records
	walk int // the walk of ccThread that reached it (0: none yet)
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
		if strings.HasPrefix(filepath.Base(p), "agent-acompact-") {
			// The compaction call itself (the request that wrote a
			// summary of this session): not a subagent's work.
			continue
		}
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
		eachRecord(s, line, text, func(rec *ccRecord) {
			if rec.UUID == "" {
				if rec.Type == "user" || rec.Type == "assistant" {
					s.problem(line, "%s record without uuid; left out", rec.Type)
				}
				return // metadata: not a link of the tree
			}
			if s.ID == "" {
				s.ID = rec.SessionID
			}
			if s.Cwd == "" {
				s.Cwd = rec.Cwd
			}
			recs = append(recs, &ccLine{ccRecord: *rec, line: line, pos: len(recs)})
		})
	})
	if err != nil {
		return nil, err
	}
	if s.ID == "" {
		s.ID = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	thread, preserved := ccThread(s, recs)
	ccMessages(s, thread, preserved)
	s.capProblems()
	return s, nil
}

// eachRecord decodes the record on a line, or the records when a line
// holds more than one JSON object (a write cut short, then the next
// record on the same line), and calls fn with each.
func eachRecord(s *Session, line int, text []byte, fn func(*ccRecord)) {
	var rec ccRecord
	err := json.Unmarshal(text, &rec)
	if err == nil {
		fn(&rec)
		return
	}
	var many []ccRecord
	dec := json.NewDecoder(bytes.NewReader(text))
	for {
		var r ccRecord
		if e := dec.Decode(&r); e == io.EOF {
			break
		} else if e != nil {
			many = nil
			break
		}
		many = append(many, r)
	}
	if len(many) < 2 {
		s.problem(line, "%s", jsonProblem(text, err))
		return
	}
	for i := range many {
		fn(&many[i])
	}
}

// mainKind reports whether a record is a user or assistant record.
func (r *ccLine) mainKind() bool { return r.Type == "user" || r.Type == "assistant" }

func (r *ccLine) boundary() bool { return r.Type == "system" && r.Subtype == "compact_boundary" }

// ccThread picks the main thread's records, in file order.
// It also gives the uuids each boundary (by its uuid) kept verbatim.
func ccThread(s *Session, recs []*ccLine) ([]*ccLine, map[string][]string) {
	byID := make(map[string]*ccLine, len(recs))
	reappended, firstAgain := 0, 0
	for _, r := range recs {
		if _, dup := byID[r.UUID]; dup {
			// A row written again with its original uuid: the first
			// is the one read.
			if reappended == 0 {
				firstAgain = r.line
			}
			reappended++
			continue
		}
		byID[r.UUID] = r
	}
	if reappended > 0 {
		s.problem(firstAgain, "%s again with uuids already in the file (rows re-appended, as a second /compact in one process does); each read once", plural(reappended, "record"))
	}
	first := func(r *ccLine) bool { return byID[r.UUID] == r }
	// A subagent's own file is one side chain: there, side-chain
	// records are the thread.
	side := true
	for _, r := range recs {
		if !r.IsSidechain && r.mainKind() {
			side = false
			break
		}
	}
	other := func(r *ccLine) bool { return r.IsSidechain != side }
	// before[i] is the nearest record before recs[i] in file order that
	// may stand in for a parent that was never written: a user,
	// assistant or system record of this thread's side.
	before := make([]int32, len(recs))
	last := int32(-1)
	for i, r := range recs {
		before[i] = last
		if first(r) && !other(r) && (r.mainKind() || r.Type == "system") {
			last = int32(i)
		}
	}
	on := map[*ccLine]bool{}
	unwritten, unwrittenLine := 0, 0
	cycleLine := 0
	walks := 0
	// walk marks from and its ancestors as on the thread, up to a record
	// already on it.
	walk := func(from *ccLine) {
		walks++
		for r := from; r != nil; {
			if r.walk == walks {
				if cycleLine == 0 {
					cycleLine = r.line
				}
				return
			}
			if on[r] {
				return
			}
			r.walk = walks
			on[r] = true
			parent := r.ParentUUID
			if parent == "" {
				parent = r.LogicalParentUUID
			}
			if parent == "" {
				return // a root: the start of the session
			}
			if p, ok := byID[parent]; ok {
				r = p
				continue
			}
			// Never written: go on at the nearest earlier record.
			j := before[r.pos]
			if j < 0 {
				// Nothing earlier: the file starts after the session
				// did (a copy of its later part).
				if s.Partial == "" {
					s.Partial = "the file starts after the session did: the record's parent is not in the file, nor any record before it; the thread starts here"
					s.problem(r.line, "%s", s.Partial)
				}
				return
			}
			if unwritten == 0 {
				unwrittenLine = r.line
			}
			unwritten++
			r = recs[j]
		}
	}
	var leaf *ccLine
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if first(r) && !other(r) && r.mainKind() {
			leaf = r
			break
		}
	}
	if leaf == nil {
		return nil, nil
	}
	walk(leaf)
	preserved := map[string][]string{}
	// Every compaction of the file, also one on a detached branch, and
	// the messages compactions kept.
	for _, r := range recs {
		if !first(r) || other(r) || !r.boundary() {
			continue
		}
		walk(r)
		ids := preservedIDs(r, byID)
		preserved[r.UUID] = ids
		for _, id := range ids {
			if p, ok := byID[id]; ok {
				walk(p)
			}
		}
	}
	if unwritten > 0 {
		s.problem(unwrittenLine, "the parents of %s are not in the file (never written, anthropics/claude-code#46603); the thread goes on at the nearest earlier record", plural(unwritten, "record"))
	}
	if cycleLine > 0 {
		s.problem(cycleLine, "the parentUuid chain loops back on itself here (a uuid cycle); the thread stops at the loop")
	}
	// Records off the path that belong to it: the summary of a
	// compaction on it, the other records of a response on it, and the
	// results of its calls.
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
		if !first(r) {
			continue
		}
		if !on[r] && !other(r) && r.Message != nil {
			switch {
			case r.IsCompactSummary:
				if p, ok := byID[r.ParentUUID]; ok && on[p] && p.boundary() {
					on[r] = true
				}
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
		} else if !other(r) && r.mainKind() {
			abandoned++
		}
	}
	if abandoned > 0 {
		s.problem(0, "%s on other branches (a rewind or an edited message) are not on the main thread; left out", plural(abandoned, "record"))
	}
	return out, preserved
}

// preservedIDs lists the uuids of the messages a boundary kept verbatim:
// preservedMessages.uuids, else the chain of preservedSegment from its
// tail up to its head.
func preservedIDs(r *ccLine, byID map[string]*ccLine) []string {
	m := r.CompactMetadata
	if m == nil {
		return nil
	}
	if m.PreservedMessages != nil {
		return m.PreservedMessages.UUIDs
	}
	seg := m.PreservedSegment
	if seg == nil || seg.TailUUID == "" {
		return nil
	}
	var ids []string
	seen := map[string]bool{}
	for id := seg.TailUUID; id != "" && !seen[id]; {
		seen[id] = true
		p, ok := byID[id]
		if !ok {
			break
		}
		ids = append(ids, id)
		if id == seg.HeadUUID {
			break
		}
		id = p.ParentUUID
	}
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids
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
func ccMessages(s *Session, thread []*ccLine, preserved map[string][]string) {
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
				c.Trigger, c.PreTokens = string(m.Trigger), m.PreTokens
				c.PostTokens, c.DurationMs = m.PostTokens, m.DurationMs
				c.Preserved = preserved[r.UUID]
			}
			s.Compactions = append(s.Compactions, c)
			pending = &s.Compactions[len(s.Compactions)-1]
			lastAsst = -1
			continue
		case !r.mainKind():
			continue // system, progress, attachment, …: links, not messages
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
			text := strings.Join(texts, "\n")
			if cmd, ok := ccCommand(text); ok {
				if cmd == "" {
					continue // only a caveat
				}
				text = cmd
			}
			s.Messages = append(s.Messages, Message{ID: r.UUID, Role: RoleUser, Text: text, Time: t, Line: r.line})
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

// ccCommandTags are the tags Claude Code wraps a slash command and its
// local output in, in a user record of their own.
var ccCommandTags = []string{"command-name", "command-message", "command-args", "local-command-stdout", "local-command-stderr", "local-command-caveat"}

// ccCommand renders a user text made only of slash-command wrappers
// (<command-name>/compact</command-name><command-args>…,
// <local-command-stdout>…) as command markers: "[command: /compact
// args]", "[command output: …]" (terminal escapes dropped); a caveat
// alone renders as "". ok is false for any other text: these are not
// turns of the conversation, and must never read as the user's request.
func ccCommand(text string) (out string, ok bool) {
	rest := strings.TrimSpace(text)
	if !strings.HasPrefix(rest, "<") {
		return "", false
	}
	vals := map[string]string{}
	var order []string
	for rest != "" {
		tag := ""
		for _, t := range ccCommandTags {
			if strings.HasPrefix(rest, "<"+t+">") {
				tag = t
				break
			}
		}
		if tag == "" {
			return "", false
		}
		body := rest[len(tag)+2:]
		end := strings.Index(body, "</"+tag+">")
		if end < 0 {
			return "", false
		}
		if _, dup := vals[tag]; !dup {
			order = append(order, tag)
		}
		vals[tag] = strings.TrimSpace(body[:end])
		rest = strings.TrimSpace(body[end+len(tag)+3:])
	}
	var lines []string
	if name, has := vals["command-name"]; has {
		if name == "" {
			name = "/" + vals["command-message"]
		}
		if a := vals["command-args"]; a != "" {
			name += " " + a
		}
		lines = append(lines, "[command: "+oneLine(name)+"]")
	}
	for _, t := range order {
		if t == "local-command-stdout" || t == "local-command-stderr" {
			if o := stripANSI(vals[t]); o != "" {
				lines = append(lines, "[command output: "+oneLine(o)+"]")
			}
		}
	}
	return strings.Join(lines, "\n"), true
}

// oneLine folds the lines of s into one, cut at 500 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 500 {
		s = string(r[:500]) + "…"
	}
	return s
}

// stripANSI drops terminal escape sequences (CSI and OSC) from s.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		if i+1 < len(s) && s[i+1] == ']' {
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
			continue
		}
		i++ // ESC and the one character after it
	}
	return b.String()
}
