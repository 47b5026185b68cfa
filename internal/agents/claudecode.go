package agents

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"

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
// The main thread is, for each compaction, the records its boundary
// descends from (through logicalParentUuid and the messages it preserved)
// back to the compaction before it, and after the last compaction the
// records the newest non-side-chain user or assistant record descends
// from; plus the records that belong to them though they hang off the
// path: the other records of a response already on it and the tool
// results of its calls. These are read in file order, which is the order
// Claude Code wrote them. Only user, assistant and the compaction's
// records become messages. Records of abandoned branches (a rewind) and of
// side chains are left out.
//
// The reader streams (StreamClaudeCode): every record's links are kept
// (a few dozen bytes each), but a message only until the compaction that
// ends its part of the thread has been read, when that part is handed on
// and dropped. Its memory is bounded by the longest stretch of the thread
// between two compactions, not by the file. The fields of a record are
// picked with gjson, which skips what compact does not read
// (toolUseResult, a progress record's output: most of a file's bytes)
// without decoding it; the message itself is decoded with encoding/json.

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

// Kinds of ccNode.
const (
	ccOther uint8 = iota // progress, attachment, …: a link, never a message
	ccUser
	ccAssistant
	ccSystem
)

// ccNode is one record of the tree: its links, and the message of a user
// or assistant record until it is read into the session.
type ccNode struct {
	uuid, parent, logical string
	kind                  uint8
	boundary, side        bool
	meta, summary         bool
	on, done              bool
	line, pos             int
	before                int // the nearest earlier record a missing parent falls back to, -1 none
	walk                  int // the walk that reached it last
	respID                string
	time                  string
	msg                   *ccMessage
	compact               *ccCompactMeta
}

func (n *ccNode) mainKind() bool { return n.kind == ccUser || n.kind == ccAssistant }

// Segment is one part of a session's main thread, as StreamClaudeCode
// hands it on: the messages after the compaction before it (or the
// start), and the compaction that ends them, nil for the last part.
type Segment struct {
	// Session is the session as read so far: its id, working directory,
	// the model of its latest step; no Messages.
	Session *Session
	// Start is the index Messages[0] has in the whole session.
	Start    int
	Messages []Message
	// Compaction's Index counts the whole session's messages.
	Compaction *Compaction
}

// ReadClaudeCodeFile reads the Claude Code session at path, and the
// subagent sessions stored beside it (<session>/subagents/agent-*.jsonl).
func ReadClaudeCodeFile(path string) (*Session, error) {
	return streamClaudeCodeFile(path, nil)
}

// streamClaudeCodeFile is ReadClaudeCodeFile that hands the main session's
// messages to fn segment by segment (fn nil: into Session.Messages).
func streamClaudeCodeFile(path string, fn func(Segment) error) (*Session, error) {
	f, err := fsutil.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var s *Session
	if fn == nil {
		s, err = ReadClaudeCode(f, path)
	} else {
		s, err = StreamClaudeCode(f, path, fn)
	}
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
	var msgs []Message
	s, err := StreamClaudeCode(r, name, func(seg Segment) error {
		msgs = append(msgs, seg.Messages...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Messages = msgs
	return s, nil
}

// StreamClaudeCode reads one Claude Code session file as ReadClaudeCode
// does, but hands its main thread to fn one Segment at a time, in order,
// and keeps none of it: the Session it returns has no Messages (its
// Compactions and Problems are whole). An error from fn stops the read
// and is returned.
func StreamClaudeCode(r io.Reader, name string, fn func(Segment) error) (*Session, error) {
	s := &Session{Agent: ClaudeCode, Path: name, Problems: []Problem{}, Compactions: []Compaction{}}
	cr := &ccReader{s: s, fn: fn, byID: map[string]*ccNode{}, known: map[string]bool{}, lastAsst: -1, lastEligible: -1}
	err := eachLine(r, name, func(line int, text []byte) {
		if cr.err != nil {
			return
		}
		if gjson.ValidBytes(text) {
			cr.record(line, text)
			return
		}
		// Two records on one line (a write cut short, then the next
		// record): each is read.
		var many []json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(text))
		for {
			var raw json.RawMessage
			if e := dec.Decode(&raw); e == io.EOF {
				break
			} else if e != nil || len(raw) == 0 || raw[0] != '{' {
				many = nil
				break
			}
			many = append(many, raw)
		}
		if len(many) < 2 {
			var v any
			s.problem(line, "%s", jsonProblem(text, json.Unmarshal(text, &v)))
			return
		}
		for _, raw := range many {
			cr.record(line, raw)
		}
	})
	if err == nil {
		err = cr.err
	}
	if err == nil {
		err = cr.finish()
	}
	if err != nil {
		return nil, err
	}
	if s.ID == "" {
		s.ID = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	s.capProblems()
	return s, nil
}

// ccReader is the state of StreamClaudeCode.
type ccReader struct {
	s     *Session
	fn    func(Segment) error
	err   error
	byID  map[string]*ccNode
	nodes []*ccNode
	// open are the user and assistant records of the thread's side not
	// read into the session yet, in file order.
	open []*ccNode
	// side: the thread is the side-chain records (a subagent's own
	// file); told by the first user or assistant record.
	side, sideKnown bool
	lastEligible    int
	walks           int
	leaf            *ccNode // the newest user or assistant record of the thread's side
	// What is said once.
	reappended, firstAgain   int
	unwritten, unwrittenLine int
	cycleLine                int
	// The messages being read: seg, the current part; pending, the part
	// the last compaction ended, handed on once its summary had its
	// chance to come.
	seg, pendingMsgs []Message
	pending          int // index in s.Compactions, -1 none
	hasPending       bool
	total            int // messages handed on before pendingMsgs
	lastAsst         int
	lastResp         string
	known            map[string]bool
}

// record reads one record (text is valid JSON).
func (cr *ccReader) record(line int, text []byte) {
	s := cr.s
	n := &ccNode{line: line, pos: len(cr.nodes), before: -1}
	var typ, subtype string
	var message, compact []byte
	var sessionID, cwd string
	// Parsed in place (gjson.ParseBytes would copy the line): every
	// string kept is cloned (str), so nothing keeps the line alive.
	res := gjson.Parse(unsafe.String(unsafe.SliceData(text), len(text)))
	if !res.IsObject() {
		s.problem(line, "not a JSON object; left out")
		return
	}
	res.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = str(v)
		case "subtype":
			subtype = str(v)
		case "uuid":
			n.uuid = str(v)
		case "parentUuid":
			n.parent = str(v)
		case "logicalParentUuid":
			n.logical = str(v)
		case "isSidechain":
			n.side = v.Bool()
		case "isMeta":
			n.meta = v.Bool()
		case "isCompactSummary":
			n.summary = v.Bool()
		case "sessionId":
			sessionID = str(v)
		case "cwd":
			cwd = str(v)
		case "timestamp":
			n.time = str(v)
		case "message":
			message = rawOf(text, v)
		case "compactMetadata":
			compact = rawOf(text, v)
		}
		return true
	})
	switch typ {
	case "user":
		n.kind = ccUser
	case "assistant":
		n.kind = ccAssistant
	case "system":
		n.kind = ccSystem
		n.boundary = subtype == "compact_boundary"
	}
	if n.uuid == "" {
		if n.mainKind() {
			s.problem(line, "%s record without uuid; left out", typ)
		}
		return // metadata: not a link of the tree
	}
	if _, dup := cr.byID[n.uuid]; dup {
		// A row written again with its original uuid: the first is the
		// one read.
		if cr.reappended == 0 {
			cr.firstAgain = line
		}
		cr.reappended++
		return
	}
	if s.ID == "" {
		s.ID = sessionID
	}
	if s.Cwd == "" {
		s.Cwd = cwd
	}
	if n.mainKind() && !cr.sideKnown {
		cr.side, cr.sideKnown = n.side, true
	}
	other := n.side != cr.side
	cr.byID[n.uuid] = n
	cr.nodes = append(cr.nodes, n)
	n.before = cr.lastEligible
	if !other && (n.mainKind() || n.kind == ccSystem) {
		cr.lastEligible = n.pos
	}
	if other {
		return
	}
	if n.kind == ccOther {
		n.time = "" // a link: only its place in the tree is read
	} else if n.mainKind() {
		cr.leaf = n
	}
	if n.boundary && len(compact) > 0 {
		var m ccCompactMeta
		if err := json.Unmarshal(compact, &m); err != nil {
			s.problem(line, "compactMetadata: %s", jsonProblem(compact, err))
		} else {
			n.compact = &m
		}
	}
	if n.mainKind() {
		if len(message) == 0 || string(message) == "null" {
			s.problem(line, "%s record without message; left out", typ)
			return
		}
		var m ccMessage
		if err := json.Unmarshal(message, &m); err != nil {
			s.problem(line, "message: %s; left out", jsonProblem(message, err))
			return
		}
		n.msg = &m
		if n.kind == ccAssistant {
			n.respID = m.ID
		}
	}
	switch {
	case n.boundary:
		cr.compaction(n)
	case n.summary && n.kind == ccUser:
		if p, ok := cr.byID[n.parent]; !ok || !p.boundary || !p.on {
			// A summary without a boundary record (an older version):
			// the compaction is here.
			cr.compaction(n)
		}
		cr.summary(n)
	case n.mainKind():
		cr.open = append(cr.open, n)
	}
}

// str is v's text, in memory of its own.
func str(v gjson.Result) string { return strings.Clone(v.String()) }

// rawOf is the bytes of v inside text.
func rawOf(text []byte, v gjson.Result) []byte {
	if v.Index > 0 && v.Index+len(v.Raw) <= len(text) {
		return text[v.Index : v.Index+len(v.Raw)]
	}
	return []byte(v.Raw)
}

// walk marks from and its ancestors as on the thread, up to a record
// already on it.
func (cr *ccReader) walk(from *ccNode) {
	cr.walks++
	for n := from; n != nil; {
		if n.walk == cr.walks {
			if cr.cycleLine == 0 {
				cr.cycleLine = n.line
			}
			return
		}
		if n.on {
			return
		}
		n.walk, n.on = cr.walks, true
		parent := n.parent
		if parent == "" {
			parent = n.logical
		}
		if parent == "" {
			return // a root: the start of the session
		}
		if p, ok := cr.byID[parent]; ok {
			n = p
			continue
		}
		// Never written: go on at the nearest earlier record.
		if n.before < 0 {
			// Nothing earlier: the file starts after the session did
			// (a copy of its later part).
			if cr.s.Partial == "" {
				cr.s.Partial = "the file starts after the session did: the record's parent is not in the file, nor any record before it; the thread starts here"
				cr.s.problem(n.line, "%s", cr.s.Partial)
			}
			return
		}
		if cr.unwritten == 0 {
			cr.unwrittenLine = n.line
		}
		cr.unwritten++
		n = cr.nodes[n.before]
	}
}

// take reads into the current part the open records before pos that are
// on the thread or belong to it (the other records of a response on it,
// the results of its calls), in file order; the others stay open.
func (cr *ccReader) take(pos int) {
	respIDs := map[string]bool{}
	calls := map[string]bool{}
	note := func(n *ccNode) {
		if n.respID != "" {
			respIDs[n.respID] = true
		}
		for _, b := range n.msg.Content.Blocks {
			if b.Type == "tool_use" && b.ID != "" {
				calls[b.ID] = true
			}
		}
	}
	for _, n := range cr.open {
		if n.pos < pos && n.on {
			note(n)
		}
	}
	keep := cr.open[:0]
	for _, n := range cr.open {
		if n.pos >= pos {
			keep = append(keep, n)
			continue
		}
		if !n.on {
			switch {
			case n.kind == ccAssistant && n.respID != "" && respIDs[n.respID]:
				n.on = true
			case n.kind == ccUser && answersOnly(n.msg, calls):
				n.on = true
			}
			if n.on {
				note(n)
			}
		}
		if !n.on {
			keep = append(keep, n)
			continue
		}
		cr.message(n)
		n.done, n.msg = true, nil
	}
	clear(cr.open[len(keep):])
	cr.open = keep
}

// compaction ends the current part at n, a boundary (or a summary
// without one).
func (cr *ccReader) compaction(n *ccNode) {
	s := cr.s
	cr.walk(n)
	var preserved []string
	if n.compact != nil {
		preserved = cr.preservedIDs(n.compact)
		for _, id := range preserved {
			if p, ok := cr.byID[id]; ok {
				cr.walk(p)
			}
		}
	}
	cr.take(n.pos)
	cr.flush()
	c := Compaction{Index: cr.total + len(cr.pendingMsgs) + len(cr.seg), Line: n.line, ID: n.uuid, Time: parseTime(n.time), Preserved: preserved}
	if m := n.compact; m != nil {
		c.Trigger, c.PreTokens = string(m.Trigger), m.PreTokens
		c.PostTokens, c.DurationMs = m.PostTokens, m.DurationMs
	}
	s.Compactions = append(s.Compactions, c)
	cr.total += len(cr.pendingMsgs)
	cr.pendingMsgs, cr.seg = cr.seg, nil
	cr.pending, cr.hasPending = len(s.Compactions)-1, true
	cr.lastAsst = -1
}

// summary records the summary n holds for the compaction it hangs from.
func (cr *ccReader) summary(n *ccNode) {
	s := cr.s
	n.done = true
	var c *Compaction
	for i := len(s.Compactions) - 1; i >= 0; i-- {
		if s.Compactions[i].ID == n.parent || s.Compactions[i].ID == n.uuid {
			c = &s.Compactions[i]
			break
		}
	}
	if c == nil {
		return
	}
	if c.HasSummary {
		cr.s.problem(n.line, "a second summary for the compaction on line %d; left out", c.Line)
		return
	}
	text := n.msg.Content.Text
	if n.msg.Content.Blocks != nil {
		var parts []string
		for _, b := range n.msg.Content.Blocks {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		text = strings.Join(parts, "\n")
	}
	c.Summary, c.HasSummary, c.SummaryLine = text, true, n.line
	n.msg = nil
}

// flush hands on the part the last compaction ended.
func (cr *ccReader) flush() {
	if !cr.hasPending || cr.err != nil {
		return
	}
	c := &cr.s.Compactions[cr.pending]
	if !c.HasSummary && c.Unauditable == "" {
		c.Unauditable = "no summary record follows the compaction boundary"
	}
	cc := *c
	cr.err = cr.fn(Segment{Session: cr.s, Start: cr.total, Messages: cr.pendingMsgs, Compaction: &cc})
	cr.hasPending = false
}

// finish reads the thread after the last compaction, hands on what is
// left, and says what is said once.
func (cr *ccReader) finish() error {
	s := cr.s
	if cr.leaf != nil {
		cr.walk(cr.leaf)
	}
	cr.take(len(cr.nodes))
	if cr.reappended > 0 {
		s.problem(cr.firstAgain, "%s again with uuids already in the file (rows re-appended, as a second /compact in one process does); each read once", plural(cr.reappended, "record"))
	}
	if cr.unwritten > 0 {
		s.problem(cr.unwrittenLine, "the parents of %s are not in the file (never written, anthropics/claude-code#46603); the thread goes on at the nearest earlier record", plural(cr.unwritten, "record"))
	}
	if cr.cycleLine > 0 {
		s.problem(cr.cycleLine, "the parentUuid chain loops back on itself here (a uuid cycle); the thread stops at the loop")
	}
	if n := len(cr.open); n > 0 {
		s.problem(0, "%s on other branches (a rewind or an edited message) are not on the main thread; left out", plural(n, "record"))
	}
	cr.flush()
	if cr.err != nil {
		return cr.err
	}
	seg := Segment{Session: s, Start: cr.total + len(cr.pendingMsgs), Messages: cr.seg}
	cr.seg = nil
	return cr.fn(seg)
}

// preservedIDs lists the uuids of the messages a boundary kept verbatim:
// preservedMessages.uuids, else the chain of preservedSegment from its
// tail up to its head.
func (cr *ccReader) preservedIDs(m *ccCompactMeta) []string {
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
		p, ok := cr.byID[id]
		if !ok {
			break
		}
		ids = append(ids, id)
		if id == seg.HeadUUID {
			break
		}
		id = p.parent
	}
	slices.Reverse(ids)
	return ids
}

// answersOnly reports whether a user message holds only tool results,
// each answering a call of calls.
func answersOnly(m *ccMessage, calls map[string]bool) bool {
	bs := m.Content.Blocks
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

// message reads the user or assistant record n into the current part.
func (cr *ccReader) message(n *ccNode) {
	s := cr.s
	if n.meta {
		return
	}
	t := parseTime(n.time)
	m := n.msg
	if n.kind == ccAssistant {
		if m.Model != "" && m.Model != "<synthetic>" {
			s.Model = m.Model
		}
		var cur *Message
		if cr.lastAsst >= 0 && m.ID != "" && cr.lastResp == m.ID {
			cur = &cr.seg[cr.lastAsst]
		} else {
			cr.seg = append(cr.seg, Message{ID: n.uuid, Role: RoleAssistant, Model: m.Model, Time: t, Line: n.line})
			cr.lastAsst, cr.lastResp = len(cr.seg)-1, m.ID
			cur = &cr.seg[cr.lastAsst]
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
					id = n.uuid + "/" + b.Name
				}
				cur.ToolCalls = append(cur.ToolCalls, ToolCall{ID: id, Name: b.Name, Input: input})
				cr.known[id] = true
			case "image":
				cur.Text = joinText(cur.Text, ImagePlaceholder)
			}
		}
		if u := m.Usage; u != nil {
			cur.Usage = &Usage{Input: u.InputTokens, CacheRead: u.CacheReadInputTokens, CacheCreation: u.CacheCreationInputTokens, Output: u.OutputTokens}
		}
		return
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
			if !cr.known[b.ToolUseID] {
				s.problem(n.line, "tool result for %q, a call not made before it on the thread; left out", b.ToolUseID)
				continue
			}
			out := b.Content.Text
			if b.Content.bad {
				s.problem(n.line, "tool result %d: content is neither text nor a list of parts; read as empty", i)
			}
			tm := Message{ID: n.uuid + "/" + b.ToolUseID, Role: RoleTool, Text: out, ToolCallID: b.ToolUseID, IsError: b.IsError, Time: t, Line: n.line}
			if code, ok := exitCodeOf(out); ok && b.IsError {
				tm.ExitCode = &code
			}
			cr.seg = append(cr.seg, tm)
		}
	}
	if len(texts) > 0 {
		text := strings.Join(texts, "\n")
		if cmd, ok := ccCommand(text); ok {
			if cmd == "" {
				return // only a caveat
			}
			text = cmd
		}
		cr.seg = append(cr.seg, Message{ID: n.uuid, Role: RoleUser, Text: text, Time: t, Line: n.line})
		cr.lastAsst = -1
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
