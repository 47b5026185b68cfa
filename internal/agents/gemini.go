package agents

// Gemini CLI (github.com/google-gemini/gemini-cli, read as of v0.56.0,
// commit b6e23a7dc29e) records each chat under
// ~/.gemini/tmp/<project>/chats/ (GEMINI_CLI_HOME replaces the home
// directory) through its ChatRecordingService, in one of two forms:
//
//   - up to v0.38: session-<time>-<id8>.json, one ConversationRecord
//     document ({sessionId, projectHash, startTime, lastUpdated, messages,
//     summary?, kind?, directories?}) rewritten whole at each change;
//   - from v0.39: session-<time>-<id8>.jsonl (a resumed .json is carried
//     over to the .jsonl of the same name), appended to: a first line
//     with the metadata, then one line per message written or updated (a
//     message written again, as when its tool calls are recorded, replaces
//     the earlier line of its id and keeps its place), {"$set": {…}} for a
//     change of metadata, {"$rewindTo": id} for a rewind (that message and
//     those after it are dropped), and, from v0.44, {"$set": {"messages":
//     […]}}: a checkpoint that replaces the whole list of messages.
//     Subagents' chats are <parent session id>/<id>.jsonl beside it.
//
// A message is {id, timestamp, type, content}: type user (content the
// parts sent: text, functionResponse, inlineData…), gemini (content its
// text or parts, thoughts, toolCalls with their result parts and status,
// tokens, model), or info, error and warning (shown, never sent: left
// out). Tool results are read from the user messages' functionResponse
// parts (v0.44 and later record them) and else from the calls' result.
//
// The compaction ("chat compression": a <state_snapshot> summary of the
// oldest 70% of the history, the newest 30% kept) is recorded only from
// v0.44 on: the client restarts the chat with [environment context,
// summary (a user message holding <state_snapshot>), "Got it. Thanks for
// the additional context!", the kept messages], which the recorder writes
// as a checkpoint of new messages. That checkpoint is the compaction; its
// kept messages are copies of the last messages before it (matched from
// the end), the compaction's Preserved. The file does not say whether
// /compress or the threshold triggered it. Before v0.44 no file records a
// compression: the session is read whole, without compactions. A
// checkpoint without a new <state_snapshot> (a rolled-back turn, masked
// tool outputs, the environment context at the start) keeps the messages
// it keeps as first recorded, and drops those it drops, as a rewind does.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/fsutil"
)

// GeminiCLI is the agent name of Gemini CLI chats.
const GeminiCLI = "gemini-cli"

// GeminiSnapshotTag marks the summary of a Gemini CLI compression.
const GeminiSnapshotTag = "<state_snapshot>"

// MaxGeminiBytes bounds a Gemini CLI chat file, read whole.
const MaxGeminiBytes = 1 << 30

type gmToolCall struct {
	ID            lenient         `json:"id"`
	Name          lenient         `json:"name"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	Status        lenient         `json:"status"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
}

type gmThought struct {
	Subject     lenient `json:"subject"`
	Description lenient `json:"description"`
}

type gmTokens struct {
	Input    float64 `json:"input"`
	Output   float64 `json:"output"`
	Cached   float64 `json:"cached"`
	Thoughts float64 `json:"thoughts"`
	Tool     float64 `json:"tool"`
}

// gmRecord is one line of a .jsonl chat (any of its kinds), or one
// message.
type gmRecord struct {
	ID          *lenient        `json:"id"`
	Timestamp   lenient         `json:"timestamp"`
	Type        lenient         `json:"type"`
	Content     json.RawMessage `json:"content"`
	ToolCalls   []gmToolCall    `json:"toolCalls"`
	Thoughts    []gmThought     `json:"thoughts"`
	Tokens      *gmTokens       `json:"tokens"`
	Model       lenient         `json:"model"`
	SessionID   *lenient        `json:"sessionId"`
	ProjectHash *lenient        `json:"projectHash"`
	Kind        lenient         `json:"kind"`
	Directories []lenient       `json:"directories"`
	Messages    json.RawMessage `json:"messages"`
	Set         json.RawMessage `json:"$set"`
	RewindTo    *lenient        `json:"$rewindTo"`
	line        int
}

// gmEntry is one place of the thread: a message's id, or a compaction.
type gmEntry struct {
	id   string
	comp *Compaction
}

type gmReader struct {
	s      *Session
	recs   map[string]*gmRecord
	live   []string // the ids of the current list of messages
	thread []gmEntry
	gone   map[string]bool // dropped from the thread (rewound)
	copies map[string]bool // a compaction's copies of kept messages
	kind   string
}

// ReadGeminiCLIFile reads the Gemini CLI chat at path (.json or .jsonl)
// and the subagents' chats stored beside it (<session id>/*.jsonl).
func ReadGeminiCLIFile(path string) (*Session, error) {
	f, err := fsutil.OpenInputMax(path, MaxGeminiBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := ReadGeminiCLI(f, path)
	if err != nil {
		return nil, err
	}
	if s.ID != "" && !strings.ContainsAny(s.ID, `/\`) {
		dir := filepath.Join(filepath.Dir(path), s.ID)
		ents, _ := os.ReadDir(dir)
		var subs []string
		for _, e := range ents {
			if !e.IsDir() && (strings.HasSuffix(e.Name(), ".jsonl") || strings.HasSuffix(e.Name(), ".json")) {
				subs = append(subs, filepath.Join(dir, e.Name()))
			}
		}
		sort.Strings(subs)
		for _, p := range subs {
			sf, err := fsutil.OpenInputMax(p, MaxGeminiBytes)
			if err != nil {
				s.problem(0, "subagent %s: %v; left out", p, err)
				continue
			}
			sub, err := ReadGeminiCLI(sf, p)
			sf.Close()
			if err != nil {
				s.problem(0, "subagent %s: %v; left out", p, err)
				continue
			}
			s.Subagents = append(s.Subagents, sub)
		}
	}
	return s, nil
}

// ReadGeminiCLI reads one Gemini CLI chat, a .jsonl log or a .json
// record. The error is an I/O error or a file that is neither; bad lines
// are Problems.
func ReadGeminiCLI(r io.Reader, name string) (*Session, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxGeminiBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxGeminiBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB: not a chat compact reads", name, MaxGeminiBytes>>20)
	}
	s := &Session{Agent: GeminiCLI, Path: name, Problems: []Problem{}, Compactions: []Compaction{}}
	g := &gmReader{s: s, recs: map[string]*gmRecord{}, gone: map[string]bool{}, copies: map[string]bool{}}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, _, _ := bytes.Cut(bytes.TrimLeft(data, " \t\r\n"), []byte("\n"))
	if t := bytes.TrimSpace(first); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		err = eachLine(bytes.NewReader(data), name, func(line int, text []byte) {
			var rec gmRecord
			if err := json.Unmarshal(text, &rec); err != nil {
				s.problem(line, "%s", jsonProblem(text, err))
				return
			}
			rec.line = line
			g.record(&rec)
		})
		if err != nil {
			return nil, err
		}
	} else {
		var rec gmRecord
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, fmt.Errorf("%s: not a Gemini CLI chat: %s", name, strings.TrimSuffix(jsonProblem(data, err), "; left out"))
		}
		if rec.SessionID == nil && rec.Messages == nil {
			return nil, fmt.Errorf("%s: not a Gemini CLI chat: no sessionId and messages", name)
		}
		rec.line = 1
		g.record(&rec)
	}
	if s.ID == "" {
		s.ID = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	g.build()
	s.capProblems()
	return s, nil
}

func (g *gmReader) record(rec *gmRecord) {
	switch {
	case rec.RewindTo != nil:
		g.rewind(string(*rec.RewindTo), rec.line)
	case rec.ID != nil:
		g.message(rec)
	case len(rec.Set) > 0:
		var set gmRecord
		if err := json.Unmarshal(rec.Set, &set); err != nil {
			g.s.problem(rec.line, "$set: %s", jsonProblem(rec.Set, err))
			return
		}
		g.meta(&set)
		if len(bytes.TrimSpace(set.Messages)) > 0 && bytes.TrimSpace(set.Messages)[0] == '[' {
			g.checkpoint(set.Messages, rec.line)
		}
	case rec.SessionID != nil || rec.ProjectHash != nil:
		g.meta(rec)
		if len(bytes.TrimSpace(rec.Messages)) > 0 {
			// A .json record (or the whole legacy record on one line):
			// its messages in order.
			msgs, ok := g.messages(rec.Messages, rec.line)
			if ok {
				for _, m := range msgs {
					g.message(m)
				}
			}
		}
	default:
		g.s.problem(rec.line, "a record that is no message, metadata, $set or $rewindTo; left out")
	}
}

func (g *gmReader) meta(rec *gmRecord) {
	if rec.SessionID != nil && *rec.SessionID != "" {
		g.s.ID = string(*rec.SessionID)
	}
	if rec.Kind != "" {
		g.kind = string(rec.Kind)
	}
	if g.s.Cwd == "" && len(rec.Directories) > 0 {
		g.s.Cwd = string(rec.Directories[0])
	}
}

// messages decodes a list of messages; ok is false when it is no list.
func (g *gmReader) messages(raw json.RawMessage, line int) ([]*gmRecord, bool) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		g.s.problem(line, "messages: %s", jsonProblem(raw, err))
		return nil, false
	}
	out := make([]*gmRecord, 0, len(list))
	for i, m := range list {
		var rec gmRecord
		if err := json.Unmarshal(m, &rec); err != nil {
			g.s.problem(line, "messages[%d]: %s", i, jsonProblem(m, err))
			continue
		}
		if rec.ID == nil || *rec.ID == "" {
			g.s.problem(line, "messages[%d]: no id; left out", i)
			continue
		}
		rec.line = line
		out = append(out, &rec)
	}
	return out, true
}

// message writes a message, or writes it again.
func (g *gmReader) message(rec *gmRecord) {
	id := string(*rec.ID)
	if id == "" {
		g.s.problem(rec.line, "message without id; left out")
		return
	}
	if old, ok := g.recs[id]; ok {
		rec.line = old.line // its place is where it was first written
		g.recs[id] = rec
		if g.gone[id] || g.copies[id] {
			// Written again after a rewind dropped it, or a copy a
			// compaction kept: live again, where the thread has it.
			if g.gone[id] {
				delete(g.gone, id)
				g.live = append(g.live, id)
			}
		}
		return
	}
	g.recs[id] = rec
	g.live = append(g.live, id)
	g.thread = append(g.thread, gmEntry{id: id})
}

// rewind drops the message id and those after it.
func (g *gmReader) rewind(id string, line int) {
	at := -1
	for i, x := range g.live {
		if x == id {
			at = i
			break
		}
	}
	if at < 0 {
		g.s.problem(line, "rewinds to message %s, which the chat does not hold: every message before it dropped, as Gemini CLI does", id)
		at = 0
	}
	for _, x := range g.live[at:] {
		g.gone[x] = true
	}
	g.live = g.live[:at]
}

// checkpoint reads a {"$set": {"messages": […]}} line.
func (g *gmReader) checkpoint(raw json.RawMessage, line int) {
	msgs, ok := g.messages(raw, line)
	if !ok {
		return
	}
	snap := -1
	for i, m := range msgs {
		if _, known := g.recs[string(*m.ID)]; !known && m.Type == "user" && strings.Contains(gmText(m.Content), GeminiSnapshotTag) {
			snap = i
			break
		}
	}
	if snap < 0 {
		// Not a compaction: the messages it drops are dropped, the new
		// ones added, the others kept as first written.
		keep := map[string]bool{}
		for _, m := range msgs {
			keep[string(*m.ID)] = true
		}
		for _, x := range g.live {
			if !keep[x] {
				g.gone[x] = true
			}
		}
		g.live = g.live[:0]
		for _, m := range msgs {
			id := string(*m.ID)
			if _, known := g.recs[id]; known {
				g.live = append(g.live, id)
				continue
			}
			g.message(m)
		}
		return
	}
	sm := msgs[snap]
	c := &Compaction{Line: line, ID: string(*sm.ID), Summary: gmText(sm.Content), HasSummary: true, Time: parseTime(string(sm.Timestamp))}
	keptStart := snap + 1
	if keptStart < len(msgs) && msgs[keptStart].Type == "gemini" && strings.HasPrefix(strings.TrimSpace(gmText(msgs[keptStart].Content)), "Got it.") {
		keptStart++
	}
	kept := msgs[keptStart:]
	// The kept messages are copies of the last ones before it: matched
	// from the end, by kind.
	var live []string
	for _, x := range g.live {
		if r := g.recs[x]; r != nil && (r.Type == "user" || r.Type == "gemini") && !isGeminiContext(gmText(r.Content)) {
			live = append(live, x)
		}
	}
	i, j := len(kept)-1, len(live)-1
	var preserved []string
	for ; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if kept[i].Type != g.recs[live[j]].Type {
			break
		}
		preserved = append(preserved, live[j])
	}
	if i >= 0 {
		g.s.problem(line, "the compaction keeps %d messages; %d of them match the messages before it, the others are counted as new", len(kept), len(kept)-1-i)
	}
	for l, r := 0, len(preserved)-1; l < r; l, r = l+1, r-1 {
		preserved[l], preserved[r] = preserved[r], preserved[l]
	}
	c.Preserved = preserved
	g.thread = append(g.thread, gmEntry{comp: c})
	g.live = g.live[:0]
	for k, m := range msgs {
		id := string(*m.ID)
		if _, known := g.recs[id]; known {
			g.live = append(g.live, id)
			continue
		}
		g.recs[id] = m
		g.live = append(g.live, id)
		if k >= keptStart && k <= keptStart+i {
			// Kept messages no earlier one matched: new to the thread.
			g.thread = append(g.thread, gmEntry{id: id})
			continue
		}
		g.copies[id] = true // the compaction's view, not the thread's
	}
}

// gmPart is one part of a message's content.
type gmPart struct {
	Text         *lenient `json:"text"`
	Thought      bool     `json:"thought"`
	FunctionCall *struct {
		ID   lenient         `json:"id"`
		Name lenient         `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       lenient         `json:"id"`
		Name     lenient         `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
	InlineData *struct {
		MimeType lenient `json:"mimeType"`
	} `json:"inlineData"`
	FileData *struct {
		MimeType lenient `json:"mimeType"`
		FileURI  lenient `json:"fileUri"`
	} `json:"fileData"`
}

// gmParts decodes a PartListUnion: a string, a part, or a list of parts
// and strings.
func gmParts(raw json.RawMessage) []gmPart {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	switch raw[0] {
	case '"':
		s, _ := unquote(raw)
		t := lenient(s)
		return []gmPart{{Text: &t}}
	case '{':
		var p gmPart
		if json.Unmarshal(raw, &p) == nil {
			return []gmPart{p}
		}
	case '[':
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return nil
		}
		var out []gmPart
		for _, x := range list {
			out = append(out, gmParts(x)...)
		}
		return out
	}
	return nil
}

// gmText is the text of a content's text parts, thoughts aside.
func gmText(raw json.RawMessage) string {
	var texts []string
	for _, p := range gmParts(raw) {
		if p.Text != nil && !p.Thought {
			texts = append(texts, string(*p.Text))
		}
	}
	return strings.Join(texts, "")
}

// isGeminiContext reports whether a user message is the environment
// context Gemini CLI opens each chat with.
func isGeminiContext(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "<session_context>") || strings.HasPrefix(t, "This is the Gemini CLI. We are setting up the context for our chat.")
}

// geminiCwd reads the working directory from the environment context.
func geminiCwd(text string) string {
	for _, marker := range []string{"I'm currently working in the directory: ", "- **Workspace Directories:**\n"} {
		if _, rest, ok := strings.Cut(text, marker); ok {
			line, _, _ := strings.Cut(rest, "\n")
			line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
			if line != "" {
				return line
			}
		}
	}
	return ""
}

// responseText is what a functionResponse's response says: its output or
// error, else its JSON; isErr when it is an error.
func responseText(raw json.RawMessage) (string, bool) {
	var r map[string]json.RawMessage
	if json.Unmarshal(raw, &r) != nil {
		return string(bytes.TrimSpace(raw)), false
	}
	for _, k := range []string{"output", "error"} {
		if v, ok := r[k]; ok {
			s, isStr := textOrParts(v)
			if !isStr || s == "" {
				s = string(bytes.TrimSpace(v))
			}
			return s, k == "error"
		}
	}
	return string(bytes.TrimSpace(raw)), false
}

// geminiExit reads "Exit Code: N" from a shell tool's output.
func geminiExit(text string) (int, bool) {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "Exit Code: "); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

func (g *gmReader) result(id, callID, text string, isErr bool, line int) Message {
	m := Message{ID: id, Role: RoleTool, ToolCallID: callID, Text: text, IsError: isErr, Line: line}
	if n, ok := geminiExit(text); ok {
		m.ExitCode = &n
		if n != 0 {
			m.IsError = true
		}
	}
	return m
}

// build turns the thread into the session's messages and compactions.
func (g *gmReader) build() {
	s := g.s
	var entries []gmEntry
	for _, e := range g.thread {
		if e.comp != nil || !g.gone[e.id] {
			entries = append(entries, e)
		}
	}
	// The calls answered by a user message's functionResponse parts.
	answered := map[string]bool{}
	for _, e := range entries {
		if r := g.recs[e.id]; e.comp == nil && r != nil && r.Type == "user" {
			for _, p := range gmParts(r.Content) {
				if p.FunctionResponse != nil {
					answered[string(p.FunctionResponse.ID)] = true
				}
			}
		}
	}
	var live int64
	calls := map[string]bool{}       // the calls made so far
	callNames := map[string]string{} // by name, the latest call without a result
	for _, e := range entries {
		if e.comp != nil {
			c := *e.comp
			c.Index = len(s.Messages)
			c.PreTokens = live
			s.Compactions = append(s.Compactions, c)
			continue
		}
		r := g.recs[e.id]
		t := parseTime(string(r.Timestamp))
		switch r.Type {
		case "user":
			var texts []string
			for k, p := range gmParts(r.Content) {
				switch {
				case p.FunctionResponse != nil:
					id := string(p.FunctionResponse.ID)
					if !calls[id] {
						id = callNames[string(p.FunctionResponse.Name)]
					}
					if id == "" {
						s.problem(r.line, "message %s answers a call (%s) the chat does not hold; left out", e.id, string(p.FunctionResponse.Name))
						continue
					}
					delete(callNames, string(p.FunctionResponse.Name))
					text, isErr := responseText(p.FunctionResponse.Response)
					m := g.result(fmt.Sprintf("%s/%d", e.id, k), id, text, isErr, r.line)
					m.Time = t
					s.Messages = append(s.Messages, m)
				case p.Text != nil && !p.Thought:
					texts = append(texts, string(*p.Text))
				case p.InlineData != nil && strings.HasPrefix(string(p.InlineData.MimeType), "image/"), p.FileData != nil && strings.HasPrefix(string(p.FileData.MimeType), "image/"):
					texts = append(texts, ImagePlaceholder)
				case p.InlineData != nil || p.FileData != nil:
					texts = append(texts, "[file]")
				}
			}
			text := strings.Join(texts, "")
			if isGeminiContext(text) {
				if s.Cwd == "" {
					s.Cwd = geminiCwd(text)
				}
				continue
			}
			if strings.TrimSpace(text) != "" {
				s.Messages = append(s.Messages, Message{ID: e.id, Role: RoleUser, Text: text, Time: t, Line: r.line})
			}
		case "gemini":
			m := Message{ID: e.id, Role: RoleAssistant, Model: string(r.Model), Time: t, Line: r.line}
			seen := map[string]bool{}
			for k, p := range gmParts(r.Content) {
				switch {
				case p.FunctionCall != nil:
					id := string(p.FunctionCall.ID)
					if id == "" {
						id = fmt.Sprintf("%s/call%d", e.id, k)
					}
					seen[id] = true
					m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: string(p.FunctionCall.Name), Input: argsJSON(p.FunctionCall.Args)})
				case p.Text != nil && p.Thought:
					m.Reasoning = joinText(m.Reasoning, string(*p.Text))
				case p.Text != nil:
					m.Text += string(*p.Text)
				}
			}
			for _, th := range r.Thoughts {
				x := strings.TrimSpace(string(th.Subject))
				if d := strings.TrimSpace(string(th.Description)); d != "" {
					x = joinText(x, d)
				}
				m.Reasoning = joinText(m.Reasoning, x)
			}
			var results []Message
			for k, tc := range r.ToolCalls {
				id := string(tc.ID)
				if id == "" {
					id = fmt.Sprintf("%s/tool%d", e.id, k)
				}
				if !seen[id] {
					seen[id] = true
					m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: string(tc.Name), Input: argsJSON(tc.Args)})
				}
				if answered[id] {
					continue
				}
				text, isErr := "", false
				for _, p := range gmParts(tc.Result) {
					if p.FunctionResponse != nil {
						x, e := responseText(p.FunctionResponse.Response)
						text, isErr = joinText(text, x), isErr || e
					} else if p.Text != nil {
						text = joinText(text, string(*p.Text))
					}
				}
				switch string(tc.Status) {
				case "error", "cancelled":
					isErr = true
					if text == "" {
						text, _ = textOrParts(tc.ResultDisplay)
					}
					if text == "" {
						text = string(tc.Status)
					}
				case "success":
				default:
					if len(bytes.TrimSpace(tc.Result)) == 0 || string(bytes.TrimSpace(tc.Result)) == "null" {
						continue // never ran: no result was sent
					}
				}
				rm := g.result(fmt.Sprintf("%s/result%d", e.id, k), id, text, isErr, r.line)
				rm.Time = t
				results = append(results, rm)
			}
			if tk := r.Tokens; tk != nil && tk.Input+tk.Output+tk.Cached > 0 {
				in := tk.Input - tk.Cached
				if in < 0 {
					in = 0
				}
				m.Usage = &Usage{Input: int64(in + tk.Tool), CacheRead: int64(tk.Cached), Output: int64(tk.Output + tk.Thoughts)}
				live = m.Usage.Context()
			}
			for _, c := range m.ToolCalls {
				calls[c.ID] = true
				callNames[c.Name] = c.ID
			}
			for _, rm := range results {
				for name, id := range callNames {
					if id == rm.ToolCallID {
						delete(callNames, name)
					}
				}
			}
			if m.Model != "" {
				s.Model = m.Model
			}
			if m.Text != "" || m.Reasoning != "" || len(m.ToolCalls) > 0 || m.Usage != nil {
				s.Messages = append(s.Messages, m)
			}
			s.Messages = append(s.Messages, results...)
		}
	}
}

// argsJSON is a call's arguments as JSON ("{}" when none).
func argsJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	return string(raw)
}
