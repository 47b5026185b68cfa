package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/compactlab/compact/internal/fsutil"
)

// Generic is the format name of compact's own generic JSONL history
// (internal/convo), which Sniff also recognises.
const Generic = "jsonl"

// Formats lists every format Sniff tells apart, in the order it tries
// them.
var Formats = []string{ClaudeCode, Codex, SWEAgent, OTel, OpenCode, GeminiCLI, Generic}

// SniffBytes is how much of a file Sniff reads.
const SniffBytes = 256 << 10

// UnknownFormatError says that a file is in none of the Formats.
type UnknownFormatError struct {
	Name   string
	Detail string // what was found instead, "" when nothing useful
}

func (e *UnknownFormatError) Error() string {
	msg := fmt.Sprintf("%s: not a history compact reads (tried claude-code, codex, swe-agent, OTLP JSON traces, opencode, gemini-cli and the generic JSONL)", e.Name)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// SniffFile tells the format of the file at path.
func SniffFile(path string) (string, error) {
	f, err := fsutil.OpenInput(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, SniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return Sniff(head[:n], path)
}

// Sniff tells the format of a file from its first bytes (at most
// SniffBytes of them; a line cut at the end is judged by the keys it
// shows) and its name: one of Formats, or an *UnknownFormatError.
//
// A .traj file, or one that holds one JSON document with a history, is a
// SWE-agent trajectory; a JSON document (on one line or many) whose
// object has resourceSpans (or resource_spans), or a Phoenix page of
// spans ({"data": [{span_id, …}]}), is OTLP JSON traces. Otherwise the
// first twenty lines decide, the first that tells: a record with a
// payload and a Codex record type (or an older rollout's first line, {id,
// timestamp} alone) is Codex; a record with a sessionId, a parentUuid, or
// a Claude Code record type is Claude Code; an object with a role is the
// generic JSONL.
func Sniff(head []byte, name string) (string, error) {
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	if strings.EqualFold(filepath.Ext(name), ".traj") {
		return SWEAgent, nil
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) == 0 {
		return "", &UnknownFormatError{Name: name, Detail: "the file is empty"}
	}
	if bytes.HasPrefix(head, []byte(sqliteMagic)) {
		if looksLikeOCDB(head) {
			return OpenCode, nil
		}
		return "", &UnknownFormatError{Name: name, Detail: "an SQLite database without OpenCode's session, message and part tables (a stagewise database is read with --db)"}
	}
	if looksLikeOTLP(trimmed) {
		return OTel, nil
	}
	if looksLikeOCExport(trimmed) || looksLikeOCSession(trimmed) {
		return OpenCode, nil
	}
	if looksLikeGeminiRecord(trimmed) {
		return GeminiCLI, nil
	}
	// One JSON document over many lines: a trajectory.
	if first, _, _ := bytes.Cut(trimmed, []byte("\n")); !json.Valid(bytes.TrimSpace(first)) && looksLikeTraj(trimmed) {
		return SWEAgent, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(make([]byte, 0, 64<<10), len(head)+1)
	lines := 0
	firstBad := ""
	for sc.Scan() && lines < 20 {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		lines++
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil || obj == nil {
			if f := sniffKeys(line); f != "" {
				return f, nil // a line cut at the end of the head
			}
			if firstBad == "" {
				firstBad = fmt.Sprintf("line %d is not a JSON object", lines)
			}
			continue
		}
		if f := sniffObject(obj); f != "" {
			return f, nil
		}
	}
	if looksLikeTraj(trimmed) {
		return SWEAgent, nil
	}
	detail := firstBad
	if detail == "" {
		detail = "no line has the fields of any of them"
	}
	return "", &UnknownFormatError{Name: name, Detail: detail}
}

var codexTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true}
var claudeTypes = map[string]bool{"user": true, "assistant": true, "system": true, "summary": true, "file-history-snapshot": true, "queue-operation": true}

func sniffObject(obj map[string]json.RawMessage) string {
	if _, ok := obj["resourceSpans"]; ok {
		return OTel
	}
	for _, k := range []string{"resource_spans", "resourceLogs", "resource_logs"} {
		if _, ok := obj[k]; ok {
			return OTel
		}
	}
	typ := ""
	if raw, ok := obj["type"]; ok {
		_ = json.Unmarshal(raw, &typ)
	}
	if _, ok := obj["payload"]; ok && codexTypes[typ] {
		return Codex
	}
	if _, ok := obj["projectHash"]; ok {
		return GeminiCLI // a chat's metadata line
	}
	if _, ok := obj["sessionId"]; ok {
		return ClaudeCode
	}
	if _, ok := obj["parentUuid"]; ok {
		return ClaudeCode
	}
	if _, ok := obj["uuid"]; ok && claudeTypes[typ] {
		return ClaudeCode
	}
	if typ == "summary" {
		if _, ok := obj["leafUuid"]; ok {
			return ClaudeCode
		}
	}
	if typ == "file-history-snapshot" {
		return ClaudeCode
	}
	if _, ok := obj["role"]; ok {
		if typ == "message" {
			return Codex // an older rollout's bare item
		}
		return Generic
	}
	if _, ok := obj["id"]; ok && len(obj) <= 4 {
		if _, ok := obj["timestamp"]; ok {
			return Codex // an older rollout's first line
		}
	}
	if _, ok := obj["record_type"]; ok {
		return Codex
	}
	return ""
}

// sniffKeys judges a line that does not decode whole (cut at the end of
// the head) by the keys it shows.
func sniffKeys(line []byte) string {
	if !bytes.HasPrefix(line, []byte("{")) {
		return ""
	}
	has := func(s string) bool { return bytes.Contains(line, []byte(s)) }
	switch {
	case has(`"payload"`) && (has(`"type":"response_item"`) || has(`"type":"event_msg"`) || has(`"type":"compacted"`)):
		return Codex
	case has(`"projectHash"`) && has(`"sessionId"`):
		return GeminiCLI
	case has(`"sessionId"`) || has(`"parentUuid"`):
		return ClaudeCode
	case has(`{"resourceSpans"`) || has(`{"resource_spans"`) || has(`{"resourceLogs"`) || has(`{"resource_logs"`):
		return OTel
	}
	return ""
}

// looksLikeTraj reports whether head starts one JSON object whose members
// include history or trajectory.
func looksLikeTraj(head []byte) bool {
	return topKeys(head, 64, func(key string, _ *json.Decoder) (bool, bool) {
		return key == "history" || key == "trajectory", key == "history" || key == "trajectory"
	})
}

// topKeys reads the first max members of the JSON object head starts:
// decide is called with each key, the decoder at its value, and says
// whether the key decides and what; the value of a key that does not is
// skipped. False when nothing decided (a value cut at the end of the
// head, in a long document, ends the search).
func topKeys(head []byte, max int, decide func(key string, dec *json.Decoder) (decided, yes bool)) bool {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	if _, err := dec.Token(); err != nil {
		return false
	}
	for i := 0; i < max && dec.More(); i++ {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		key, ok := tok.(string)
		if !ok {
			return false
		}
		if decided, yes := decide(key, dec); decided {
			return yes
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}

// looksLikeGeminiRecord reports whether head starts a JSON object whose
// first members include sessionId and projectHash: a Gemini CLI chat's
// record (the whole .json, or the first line of a .jsonl).
func looksLikeGeminiRecord(head []byte) bool {
	seen := map[string]bool{}
	return topKeys(head, 8, func(key string, _ *json.Decoder) (bool, bool) {
		seen[key] = true
		if seen["sessionId"] && seen["projectHash"] {
			return true, true
		}
		return false, false
	})
}

// looksLikeOTLP reports whether head starts a JSON object whose first
// members include resourceSpans or resourceLogs (or their snake_case
// names), or data or observations, a list whose first element is a span
// (span_id or spanId) or a Langfuse observation (traceId and type): an
// OTLP trace or logs request, a Phoenix page of OTLP spans, Langfuse's
// trace download or a page of its API.
func looksLikeOTLP(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n") // topKeys's offsets are from here
	return topKeys(head, 16, func(key string, dec *json.Decoder) (bool, bool) {
		switch key {
		case "resourceSpans", "resource_spans", "resourceLogs", "resource_logs":
			return true, true
		case "data", "observations":
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return true, false
			}
			trace, typ := false, false
			return true, topKeys(head[dec.InputOffset():], 32, func(k string, _ *json.Decoder) (bool, bool) {
				trace, typ = trace || k == "traceId", typ || k == "type"
				return k == "span_id" || k == "spanId" || trace && typ, true
			})
		}
		return false, false
	})
}

// ReadFile reads the session at path in format (one of ClaudeCode, Codex,
// SWEAgent, OTel, OpenCode, GeminiCLI; "" sniffs it); of a trace file,
// its first conversation (ReadOTel); of an OpenCode database, its session
// updated last (ReadOpenCodeFile). Generic is not read here: internal/convo reads it.
func ReadFile(path, format string) (*Session, error) {
	if format == "" {
		f, err := SniffFile(path)
		if err != nil {
			return nil, err
		}
		format = f
	}
	switch format {
	case ClaudeCode:
		return ReadClaudeCodeFile(path)
	case Codex:
		return ReadCodexFile(path)
	case SWEAgent:
		return ReadSWEAgentFile(path)
	case OpenCode:
		return ReadOpenCodeFile(path)
	case GeminiCLI:
		return ReadGeminiCLIFile(path)
	case OTel:
		f, err := ReadOTelFile(path)
		if err != nil {
			return nil, err
		}
		return f.First(), nil
	}
	return nil, fmt.Errorf("%s: format %q is not an agent's session (want %s)", path, format, strings.Join(Names, ", "))
}

// StreamFile reads the session at path as ReadFile does, but hands its
// main thread to fn segment by segment (see Segment): a Claude Code
// session is streamed, its memory bounded by the longest stretch between
// two compactions; the others are read whole, then split. The Session
// returned has no Messages; its subagents (Claude Code) are read whole.
func StreamFile(path, format string, fn func(Segment) error) (*Session, error) {
	if format == "" {
		f, err := SniffFile(path)
		if err != nil {
			return nil, err
		}
		format = f
	}
	if format == ClaudeCode {
		return streamClaudeCodeFile(path, fn)
	}
	s, err := ReadFile(path, format)
	if err != nil {
		return nil, err
	}
	for _, seg := range Segments(s) {
		if err := fn(seg); err != nil {
			return nil, err
		}
	}
	s.Messages = nil
	return s, nil
}

// Segments splits a session read whole at its compactions, as
// StreamClaudeCode hands it on: one Segment per compaction (the messages
// since the one before), then the messages after the last. A compaction
// out of order or out of range is left out.
func Segments(s *Session) []Segment {
	var out []Segment
	start := 0
	for i := range s.Compactions {
		c := s.Compactions[i]
		if c.Index < start || c.Index > len(s.Messages) {
			continue
		}
		out = append(out, Segment{Session: s, Start: start, Messages: s.Messages[start:c.Index], Compaction: &c})
		start = c.Index
	}
	return append(out, Segment{Session: s, Start: start, Messages: s.Messages[start:]})
}
