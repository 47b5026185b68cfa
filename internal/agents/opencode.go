package agents

// OpenCode (github.com/anomalyco/opencode, formerly sst/opencode) keeps its
// sessions under $XDG_DATA_HOME/opencode (~/.local/share/opencode on every
// system), in one of two stores, read here as written by the 1.x releases
// (the record shapes as the @opencode-ai/sdk 1.19.3 types give them:
// Session, UserMessage, AssistantMessage and the Part union):
//
//   - the JSON storage of the releases before the move to SQLite:
//     storage/session/<projectID>/<sessionID>.json (the session),
//     storage/message/<sessionID>/<messageID>.json (a message without its
//     content) and storage/part/<messageID>/<partID>.json (its parts: text,
//     reasoning, tool calls with their state and output, files, step
//     markers with the step's tokens, compaction markers);
//   - opencode.db (opencode-<channel>.db for other channels than latest
//     and beta), SQLite: tables session, message and part, each row's data
//     column the same JSON without the ids its columns hold. The reader
//     opens it read-only and never writes.
//
// and the document `opencode export <sessionID>` prints: {"info": session,
// "messages": [{"info": message, "parts": [part, …]}, …]}.
//
// Messages and parts are in the order of their ids (ascending ids that
// begin with the time); in the database, messages by time_created, then id.
//
// The compaction: a user message holding a `compaction` part (auto: the
// overflow triggered it; tail_start_id, in releases from April 2026: the
// first message kept verbatim after it), then the compaction agent's
// assistant message (mode and agent "compaction", summary: true, parentID
// the user message) whose text parts are the summary; after an automatic
// one, a synthetic user message asks the model to continue. A summary
// message with an error, or unfinished, is a failed compaction: a Problem,
// not a Compaction. Releases before the compaction part wrote the summary
// message alone. The prune before it keeps each old tool output in the
// store and sets the tool part's state.time.compacted (the model is then
// sent "[Old tool result content cleared]"): the output is read whole, the
// time is the tool message's ClearedAt.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/fsutil"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// OpenCode is the agent name of OpenCode sessions.
const OpenCode = "opencode"

// OpenCodeCleared is what OpenCode sends the model in place of a tool
// output its prune cleared.
const OpenCodeCleared = "[Old tool result content cleared]"

// MaxOpenCodeBytes bounds one JSON document read whole (an export, a
// message or part file).
const MaxOpenCodeBytes = 1 << 30

// ocSession is a session record (storage/session/…json, the session
// table, an export's info).
type ocSession struct {
	ID        lenient `json:"id"`
	ProjectID lenient `json:"projectID"`
	ParentID  lenient `json:"parentID"`
	Directory lenient `json:"directory"`
	Title     lenient `json:"title"`
	Version   lenient `json:"version"`
}

type ocTokens struct {
	Input     float64 `json:"input"`
	Output    float64 `json:"output"`
	Reasoning float64 `json:"reasoning"`
	Cache     struct {
		Read  float64 `json:"read"`
		Write float64 `json:"write"`
	} `json:"cache"`
}

func (t *ocTokens) usage() *Usage {
	if t == nil || t.Input+t.Output+t.Cache.Read+t.Cache.Write == 0 {
		return nil
	}
	return &Usage{Input: int64(t.Input), CacheRead: int64(t.Cache.Read), CacheCreation: int64(t.Cache.Write), Output: int64(t.Output)}
}

// ocInfo is a message record: a user or an assistant message.
type ocInfo struct {
	ID       lenient `json:"id"`
	Role     lenient `json:"role"`
	ParentID lenient `json:"parentID"`
	ModelID  lenient `json:"modelID"`
	Mode     lenient `json:"mode"`
	Agent    lenient `json:"agent"`
	// Summary is true on a compaction's summary (assistant); a user
	// message's summary is an object (its title and diffs).
	Summary json.RawMessage `json:"summary"`
	Time    struct {
		Created   float64 `json:"created"`
		Completed float64 `json:"completed"`
	} `json:"time"`
	Error  json.RawMessage `json:"error"`
	Finish lenient         `json:"finish"`
	Path   struct {
		Cwd lenient `json:"cwd"`
	} `json:"path"`
	Tokens *ocTokens `json:"tokens"`
	Model  *struct {
		ModelID lenient `json:"modelID"`
	} `json:"model"`
}

func (i *ocInfo) isSummary() bool { return string(bytes.TrimSpace(i.Summary)) == "true" }

type ocState struct {
	Status   lenient         `json:"status"`
	Input    json.RawMessage `json:"input"`
	Output   lenient         `json:"output"`
	Error    lenient         `json:"error"`
	Metadata map[string]any  `json:"metadata"`
	Time     struct {
		End       float64 `json:"end"`
		Compacted float64 `json:"compacted"`
	} `json:"time"`
	Attachments []ocPart `json:"attachments"`
}

// ocPart is one part of a message.
type ocPart struct {
	ID          lenient   `json:"id"`
	Type        lenient   `json:"type"`
	Text        lenient   `json:"text"`
	Ignored     bool      `json:"ignored"`
	Mime        lenient   `json:"mime"`
	Filename    lenient   `json:"filename"`
	CallID      lenient   `json:"callID"`
	Tool        lenient   `json:"tool"`
	State       *ocState  `json:"state"`
	Auto        bool      `json:"auto"`
	TailStartID lenient   `json:"tail_start_id"`
	Tokens      *ocTokens `json:"tokens"`
	Description lenient   `json:"description"`
}

// ocMessage is a message with its parts, as a store holds it.
type ocMessage struct {
	Info  ocInfo   `json:"info"`
	Parts []ocPart `json:"parts"`
	// bad are the parts left out, each with why.
	bad []string
}

// ocDoc is what `opencode export` prints.
type ocDoc struct {
	Info     *ocSession  `json:"info"`
	Messages []ocMessage `json:"messages"`
}

// ocRead is one session as a store gave it.
type ocRead struct {
	info     ocSession
	msgs     []ocMessage
	problems []Problem
	where    string // the file or the database the session is in
}

// ReadOpenCodeFile reads the OpenCode session at path: an export
// (`opencode export`), a session file of the JSON storage (its messages
// and parts read from the storage it is in), or a database, of which the
// session updated last that is no subagent's (a Problem counts the
// others). A session's subagents (the sessions whose parent it is) are
// its Subagents where the store holds them.
func ReadOpenCodeFile(path string) (*Session, error) {
	kind, err := openCodeKind(path)
	if err != nil {
		return nil, err
	}
	switch kind {
	case ocKindExport:
		f, err := fsutil.OpenInputMax(path, MaxOpenCodeBytes)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return ReadOpenCodeExport(f, path)
	case ocKindSessionFile:
		root := filepath.Dir(filepath.Dir(filepath.Dir(path)))
		all, err := readOCStorage(root, path)
		if err != nil {
			return nil, err
		}
		if len(all) == 0 {
			return nil, fmt.Errorf("%s: not an OpenCode session", path)
		}
		return all[0], nil
	case ocKindDB:
		all, err := ReadOpenCodeDB(context.Background(), path)
		if err != nil {
			return nil, err
		}
		if len(all) == 0 {
			return nil, fmt.Errorf("%s: an OpenCode database with no session", path)
		}
		newest := all[len(all)-1]
		if len(all) > 1 {
			newest.problem(0, "the database holds %d sessions; read here: %s, the one updated last (opencode export ID > FILE writes another, which compact reads)", len(all), newest.ID)
		}
		return newest, nil
	}
	return nil, fmt.Errorf("%s: not an OpenCode session, storage or database", path)
}

// ReadOpenCodeAll reads every session at path: a database, a storage
// directory (or the data directory holding storage/), an export or a
// storage session file. The subagents' sessions are their parents'
// Subagents, not in the list. Sessions are in the order they were updated
// (databases, storage) or as given.
func ReadOpenCodeAll(ctx context.Context, path string) ([]*Session, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		root := path
		if isDir(filepath.Join(path, "storage", "session")) {
			root = filepath.Join(path, "storage")
		}
		if !isDir(filepath.Join(root, "session")) {
			return nil, fmt.Errorf("%s: no OpenCode storage (no session directory)", path)
		}
		return readOCStorage(root, "")
	}
	kind, err := openCodeKind(path)
	if err != nil {
		return nil, err
	}
	if kind == ocKindDB {
		return ReadOpenCodeDB(ctx, path)
	}
	s, err := ReadOpenCodeFile(path)
	if err != nil {
		return nil, err
	}
	return []*Session{s}, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

const (
	ocKindExport = iota + 1
	ocKindSessionFile
	ocKindDB
)

// openCodeKind tells an export, a storage session file and a database
// apart by their first bytes.
func openCodeKind(path string) (int, error) {
	f, err := fsutil.OpenInput(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	head := make([]byte, SniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte(sqliteMagic)):
		return ocKindDB, nil
	case looksLikeOCExport(head):
		return ocKindExport, nil
	case looksLikeOCSession(head):
		return ocKindSessionFile, nil
	}
	return 0, fmt.Errorf("%s: not an OpenCode session, storage or database", path)
}

const sqliteMagic = "SQLite format 3\x00"

// looksLikeOCExport: a document whose first members include info and
// messages.
func looksLikeOCExport(head []byte) bool {
	seen := map[string]bool{}
	return topKeys(bytes.TrimPrefix(head, []byte("\ufeff")), 8, func(key string, _ *json.Decoder) (bool, bool) {
		seen[key] = true
		if seen["info"] && seen["messages"] {
			return true, true
		}
		return false, false
	})
}

// looksLikeOCSession: a session record, {"id": "ses_…", …, "projectID",
// "directory", …}.
func looksLikeOCSession(head []byte) bool {
	seen := map[string]bool{}
	return topKeys(bytes.TrimPrefix(head, []byte("\ufeff")), 16, func(key string, _ *json.Decoder) (bool, bool) {
		seen[key] = true
		if seen["id"] && seen["projectID"] && seen["directory"] {
			return true, true
		}
		return false, false
	})
}

// looksLikeOCDB: an SQLite file whose schema (on its first pages) has
// OpenCode's session, message and part tables.
func looksLikeOCDB(head []byte) bool {
	if !bytes.HasPrefix(head, []byte(sqliteMagic)) {
		return false
	}
	for _, t := range []string{"session", "message", "part"} {
		if !bytes.Contains(head, []byte("CREATE TABLE `"+t+"`")) && !bytes.Contains(head, []byte(`CREATE TABLE "`+t+`"`)) {
			return false
		}
	}
	return true
}

// ReadOpenCodeExport reads what `opencode export` prints. The error is an
// I/O error or a document that is not an export; bad parts are Problems.
func ReadOpenCodeExport(r io.Reader, name string) (*Session, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxOpenCodeBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxOpenCodeBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB: not an OpenCode export compact reads", name, MaxOpenCodeBytes>>20)
	}
	var doc struct {
		Info     *ocSession        `json:"info"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not an OpenCode export: %s", name, strings.TrimSuffix(jsonProblem(data, err), "; left out"))
	}
	if doc.Info == nil || doc.Messages == nil {
		return nil, fmt.Errorf("%s: not an OpenCode export: no info and messages", name)
	}
	rd := ocRead{info: *doc.Info, where: name}
	for i, raw := range doc.Messages {
		var m struct {
			Info  ocInfo            `json:"info"`
			Parts []json.RawMessage `json:"parts"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			rd.problems = append(rd.problems, Problem{Message: fmt.Sprintf("messages[%d]: %s", i, jsonProblem(raw, err))})
			continue
		}
		msg := ocMessage{Info: m.Info}
		for k, p := range m.Parts {
			var part ocPart
			if err := json.Unmarshal(p, &part); err != nil {
				msg.bad = append(msg.bad, fmt.Sprintf("part %d: %s", k, jsonProblem(p, err)))
				continue
			}
			msg.Parts = append(msg.Parts, part)
		}
		rd.msgs = append(rd.msgs, msg)
	}
	s := buildOpenCode(&rd)
	return s, nil
}

// readJSONFile decodes the JSON document in the file at path into v.
func readJSONFile(path string, v any) error {
	f, err := fsutil.OpenInputMax(path, MaxOpenCodeBytes)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxOpenCodeBytes))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return errors.New(strings.TrimSuffix(jsonProblem(data, err), "; left out"))
	}
	return nil
}

// jsonFiles lists the *.json files in dir, sorted; none when dir is
// missing.
func jsonFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// readOCStorage reads the sessions of the JSON storage at root (the
// storage directory): all of them, or with only set, the session in that
// file and its subagents.
func readOCStorage(root, only string) ([]*Session, error) {
	var infos []string
	if only != "" {
		infos = []string{only}
	} else {
		projects, err := os.ReadDir(filepath.Join(root, "session"))
		if err != nil {
			return nil, err
		}
		for _, p := range projects {
			if p.IsDir() {
				infos = append(infos, jsonFiles(filepath.Join(root, "session", p.Name()))...)
			}
		}
	}
	var reads []*ocRead
	for _, file := range infos {
		rd := &ocRead{where: file}
		if err := readJSONFile(file, &rd.info); err != nil {
			// A session file that cannot be read: a session with its
			// problem, so that the caller can say which.
			rd.problems = append(rd.problems, Problem{Message: fmt.Sprintf("not a session record: %v", err)})
		}
		rd.info.ID = lenient(strings.TrimSuffix(filepath.Base(file), ".json"))
		rd.msgs = readOCStorageMessages(root, string(rd.info.ID), rd)
		reads = append(reads, rd)
	}
	if only != "" {
		// Its subagents: the sessions of its project whose parent it is.
		for _, file := range jsonFiles(filepath.Dir(only)) {
			if file == only {
				continue
			}
			var info ocSession
			if readJSONFile(file, &info) != nil || string(info.ParentID) != string(reads[0].info.ID) {
				continue
			}
			rd := &ocRead{where: file, info: info}
			rd.info.ID = lenient(strings.TrimSuffix(filepath.Base(file), ".json"))
			rd.msgs = readOCStorageMessages(root, string(rd.info.ID), rd)
			reads = append(reads, rd)
		}
	}
	return joinOCSessions(reads), nil
}

// readOCStorageMessages reads the messages of session id and their parts.
func readOCStorageMessages(root, id string, rd *ocRead) []ocMessage {
	var msgs []ocMessage
	for _, file := range jsonFiles(filepath.Join(root, "message", id)) {
		var m ocMessage
		if err := readJSONFile(file, &m.Info); err != nil {
			rd.problems = append(rd.problems, Problem{Message: fmt.Sprintf("%s: %v", file, err)})
			continue
		}
		mid := strings.TrimSuffix(filepath.Base(file), ".json")
		m.Info.ID = lenient(mid)
		for _, pf := range jsonFiles(filepath.Join(root, "part", mid)) {
			var p ocPart
			if err := readJSONFile(pf, &p); err != nil {
				m.bad = append(m.bad, fmt.Sprintf("%s: %v", pf, err))
				continue
			}
			p.ID = lenient(strings.TrimSuffix(filepath.Base(pf), ".json"))
			m.Parts = append(m.Parts, p)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// joinOCSessions builds the sessions read and makes each subagent's
// session one of its parent's Subagents (a subagent whose parent is not
// among them is a session of its own).
func joinOCSessions(reads []*ocRead) []*Session {
	byID := map[string]*Session{}
	var all []*Session
	for _, rd := range reads {
		s := buildOpenCode(rd)
		byID[s.ID] = s
		all = append(all, s)
	}
	var out []*Session
	for i, s := range all {
		if p := byID[string(reads[i].info.ParentID)]; p != nil && p != s {
			p.Subagents = append(p.Subagents, s)
			continue
		}
		out = append(out, s)
	}
	return out
}

// ReadOpenCodeDB reads every session of the OpenCode database at path,
// read-only, oldest update first. The error is a file that cannot be
// opened or is not OpenCode's database; bad rows are Problems.
func ReadOpenCodeDB(ctx context.Context, path string) ([]*Session, error) {
	st, err := fsutil.CheckInput(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not an OpenCode database", path)
	}
	uri, err := dbURI(path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", uri)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer conn.Close()
	for _, p := range []string{"PRAGMA query_only=1", "PRAGMA busy_timeout=5000"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	// One read transaction: every table seen at one moment.
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	rows, err := tx.QueryContext(ctx, "SELECT id, COALESCE(parent_id, ''), COALESCE(directory, ''), COALESCE(title, ''), COALESCE(version, '') FROM session ORDER BY time_updated, id")
	if err != nil {
		return nil, fmt.Errorf("%s: not an OpenCode database (%v)", path, err)
	}
	var reads []*ocRead
	for rows.Next() {
		rd := &ocRead{where: path}
		var id, parent, dir, title, version string
		if err := rows.Scan(&id, &parent, &dir, &title, &version); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%s: session table: %w", path, err)
		}
		rd.info = ocSession{ID: lenient(id), ParentID: lenient(parent), Directory: lenient(dir), Title: lenient(title), Version: lenient(version)}
		reads = append(reads, rd)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, fmt.Errorf("%s: session table: %w", path, err)
	}
	rows.Close()
	for _, rd := range reads {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := readOCDBSession(ctx, tx, rd); err != nil {
			return nil, fmt.Errorf("%s: session %s: %w", path, rd.info.ID, err)
		}
	}
	return joinOCSessions(reads), nil
}

// dbURI is the read-only SQLite URI of path.
func dbURI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || c == '-' || c == '_' || c == '.' || c == '~' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return "file:" + b.String() + "?mode=ro", nil
}

// readOCDBSession reads one session's messages and parts.
func readOCDBSession(ctx context.Context, tx *sql.Tx, rd *ocRead) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", string(rd.info.ID))
	if err != nil {
		return err
	}
	index := map[string]int{}
	for rows.Next() {
		var id string
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			rows.Close()
			return err
		}
		var m ocMessage
		if err := json.Unmarshal(data, &m.Info); err != nil {
			rd.problems = append(rd.problems, Problem{Message: fmt.Sprintf("message %s: %s", id, jsonProblem(data, err))})
			continue
		}
		m.Info.ID = lenient(id)
		index[id] = len(rd.msgs)
		rd.msgs = append(rd.msgs, m)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	rows.Close()
	rows, err = tx.QueryContext(ctx, "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id", string(rd.info.ID))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, mid string
		var data []byte
		if err := rows.Scan(&id, &mid, &data); err != nil {
			return err
		}
		i, ok := index[mid]
		if !ok {
			continue // a part of a message left out above
		}
		var p ocPart
		if err := json.Unmarshal(data, &p); err != nil {
			rd.msgs[i].bad = append(rd.msgs[i].bad, fmt.Sprintf("part %s: %s", id, jsonProblem(data, err)))
			continue
		}
		p.ID = lenient(id)
		rd.msgs[i].Parts = append(rd.msgs[i].Parts, p)
	}
	return rows.Err()
}

// ocBuilder turns one session's messages into a Session.
type ocBuilder struct {
	s *Session
	// derived maps a stored message's id to the ids of the Messages made
	// of it; order lists the stored ids that gave any, in order.
	derived map[string][]string
	order   []string
	live    int64 // the context of the latest step
	pending *ocRequest
}

// ocRequest is a compaction asked for: the user message with the
// compaction part.
type ocRequest struct {
	id   string
	pos  int
	part *ocPart
}

func ocTime(ms float64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms)).UTC()
}

// buildOpenCode builds the Session of one session read. A message's (and
// a compaction's) Line is the 1-based position of its stored message
// among the session's messages; problems name it as "message N".
func buildOpenCode(rd *ocRead) *Session {
	s := &Session{Agent: OpenCode, Path: rd.where, ID: string(rd.info.ID), Cwd: string(rd.info.Directory), Problems: rd.problems, Compactions: []Compaction{}}
	if s.Problems == nil {
		s.Problems = []Problem{}
	}
	b := &ocBuilder{s: s, derived: map[string][]string{}}
	for i := range rd.msgs {
		m := &rd.msgs[i]
		pos := i + 1
		for _, bad := range m.bad {
			s.problem(0, "message %d (%s): %s", pos, m.Info.ID, bad)
		}
		switch string(m.Info.Role) {
		case "user":
			b.user(m, pos)
		case "assistant":
			b.assistant(m, pos)
		default:
			s.problem(0, "message %d (%s): role %q; left out", pos, m.Info.ID, string(m.Info.Role))
		}
	}
	if b.pending != nil {
		s.problem(0, "message %d (%s) asks for a compaction, but no summary follows it (interrupted?); not counted", b.pending.pos, b.pending.id)
	}
	s.capProblems()
	return s
}

func (b *ocBuilder) add(stored string, m Message) {
	if _, ok := b.derived[stored]; !ok {
		b.order = append(b.order, stored)
	}
	b.derived[stored] = append(b.derived[stored], m.ID)
	b.s.Messages = append(b.s.Messages, m)
}

func (b *ocBuilder) user(m *ocMessage, pos int) {
	id := string(m.Info.ID)
	var texts []string
	for k := range m.Parts {
		p := &m.Parts[k]
		switch string(p.Type) {
		case "compaction":
			if b.pending != nil {
				b.s.problem(0, "message %d (%s) asks for a compaction, but no summary follows it before the next one; not counted", b.pending.pos, b.pending.id)
			}
			b.pending = &ocRequest{id: id, pos: pos, part: p}
		case "text":
			if !p.Ignored {
				texts = append(texts, string(p.Text))
			}
		case "file":
			texts = append(texts, filePlaceholder(string(p.Mime), string(p.Filename)))
		}
	}
	if b.pending != nil && b.pending.id == id {
		return // the request is no turn of the conversation
	}
	text := strings.Join(nonEmpty(texts), "\n")
	if strings.TrimSpace(text) == "" {
		return
	}
	b.add(id, Message{ID: id, Role: RoleUser, Text: text, Time: ocTime(m.Info.Time.Created), Line: pos})
}

// filePlaceholder stands for an attached file: ImagePlaceholder for an
// image, "" for the text files and directories OpenCode sends as text
// parts beside it, else [file: name].
func filePlaceholder(mime, name string) string {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return ImagePlaceholder
	case mime == "text/plain" || mime == "application/x-directory":
		return ""
	case name != "":
		return "[file: " + name + "]"
	}
	return "[file]"
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (b *ocBuilder) assistant(m *ocMessage, pos int) {
	id := string(m.Info.ID)
	if m.Info.isSummary() {
		b.summary(m, pos)
		return
	}
	model := string(m.Info.ModelID)
	if model != "" {
		b.s.Model = model
	}
	if b.s.Cwd == "" {
		b.s.Cwd = string(m.Info.Path.Cwd)
	}
	step := 0
	var cur *Message
	var results []Message
	flush := func() {
		if cur != nil && (cur.Text != "" || cur.Reasoning != "" || len(cur.ToolCalls) > 0 || cur.Usage != nil) {
			if cur.Usage != nil {
				b.live = cur.Usage.Context()
			}
			b.add(id, *cur)
			for _, r := range results {
				b.add(id, r)
			}
		}
		cur, results = nil, nil
	}
	start := func() {
		step++
		mid := id
		if step > 1 {
			mid = id + "#" + strconv.Itoa(step)
		}
		cur = &Message{ID: mid, Role: RoleAssistant, Model: model, Time: ocTime(m.Info.Time.Created), Line: pos}
	}
	hadFinish := false
	for k := range m.Parts {
		p := &m.Parts[k]
		if cur == nil && string(p.Type) != "step-start" {
			start()
		}
		switch string(p.Type) {
		case "step-start":
			flush()
			start()
		case "text":
			cur.Text = joinText(cur.Text, string(p.Text))
		case "reasoning":
			cur.Reasoning = joinText(cur.Reasoning, string(p.Text))
		case "tool":
			call, res := ocTool(p, pos)
			cur.ToolCalls = append(cur.ToolCalls, call)
			if res != nil {
				results = append(results, *res)
			}
		case "file":
			cur.Text = joinText(cur.Text, filePlaceholder(string(p.Mime), string(p.Filename)))
		case "step-finish":
			cur.Usage = p.Tokens.usage()
			hadFinish = true
			flush()
		}
	}
	if cur != nil && !hadFinish && cur.Usage == nil {
		// No step-finish part: the message's own tokens (OpenCode keeps
		// its latest step's there).
		cur.Usage = m.Info.Tokens.usage()
	}
	flush()
}

// ocTool is the call a tool part makes and its result (nil while it is
// pending or running, which OpenCode sends as an interruption).
func ocTool(p *ocPart, pos int) (ToolCall, *Message) {
	call := ToolCall{ID: string(p.CallID), Name: string(p.Tool), Input: "{}"}
	if call.ID == "" {
		call.ID = string(p.ID)
	}
	st := p.State
	if st == nil {
		return call, nil
	}
	if in := bytes.TrimSpace(st.Input); len(in) > 0 && string(in) != "null" {
		var buf bytes.Buffer
		if json.Compact(&buf, in) == nil {
			in = buf.Bytes()
		}
		call.Input = string(in)
	}
	res := &Message{ID: string(p.ID) + "/result", Role: RoleTool, ToolCallID: call.ID, Line: pos, Time: ocTime(st.Time.End)}
	switch string(st.Status) {
	case "completed":
		res.Text = string(st.Output)
		for _, a := range st.Attachments {
			if ph := filePlaceholder(string(a.Mime), string(a.Filename)); ph != "" {
				res.Text = joinText(res.Text, ph)
			}
		}
		res.ClearedAt = ocTime(st.Time.Compacted)
	case "error":
		res.Text, res.IsError = string(st.Error), true
	default:
		res.Text, res.IsError = "[Tool execution was interrupted]", true
	}
	if v, ok := st.Metadata["exit"].(float64); ok && v == float64(int(v)) {
		code := int(v)
		res.ExitCode = &code
		if code != 0 {
			res.IsError = true
		}
	}
	return call, res
}

// summary reads a compaction's summary message.
func (b *ocBuilder) summary(m *ocMessage, pos int) {
	req := b.pending
	b.pending = nil
	if req != nil && req.id != string(m.Info.ParentID) {
		b.s.problem(0, "message %d (%s) asks for a compaction, but the summary after it answers %s; not counted", req.pos, req.id, string(m.Info.ParentID))
		req = nil
	}
	var texts []string
	var use *Usage
	for k := range m.Parts {
		p := &m.Parts[k]
		switch string(p.Type) {
		case "text":
			texts = append(texts, string(p.Text))
		case "step-finish":
			use = p.Tokens.usage()
		}
	}
	if use == nil {
		use = m.Info.Tokens.usage()
	}
	if e := bytes.TrimSpace(m.Info.Error); len(e) > 0 && string(e) != "null" {
		var er struct {
			Name string `json:"name"`
			Data struct {
				Message string `json:"message"`
			} `json:"data"`
		}
		_ = json.Unmarshal(e, &er)
		b.s.problem(0, "message %d (%s): the compaction failed (%s); not counted", pos, m.Info.ID, strings.Trim(strings.TrimSpace(er.Name+": "+er.Data.Message), ": "))
		return
	}
	text := strings.Join(texts, "")
	if m.Info.Time.Completed == 0 && m.Info.Finish == "" {
		b.s.problem(0, "message %d (%s): the compaction's summary was never finished; not counted", pos, m.Info.ID)
		return
	}
	c := Compaction{Index: len(b.s.Messages), Line: pos, ID: string(m.Info.ID), Summary: text, HasSummary: true, Time: ocTime(m.Info.Time.Created), PreTokens: b.live, Usage: use}
	if text == "" {
		c.HasSummary, c.Unauditable = false, "the summary message holds no text"
	}
	if req != nil {
		c.Line, c.ID = req.pos, req.id
		c.Trigger = "manual"
		if req.part.Auto {
			c.Trigger = "auto"
		}
		if tail := string(req.part.TailStartID); tail != "" {
			c.Preserved = b.tail(tail, req.pos)
		}
	}
	b.s.Compactions = append(b.s.Compactions, c)
}

// tail is the ids of the Messages made of the stored messages from the
// one with id tail up to the compaction, those OpenCode keeps verbatim.
func (b *ocBuilder) tail(tail string, pos int) []string {
	prev := 0
	if n := len(b.s.Compactions); n > 0 {
		prev = b.s.Compactions[n-1].Index
	}
	first := -1
	for i, id := range b.order {
		if id == tail {
			first = i
			break
		}
	}
	if first < 0 {
		b.s.problem(0, "message %d: the compaction keeps the messages from %s on, which the session does not hold; none counted as kept", pos, tail)
		return nil
	}
	inSegment := map[string]bool{}
	for _, m := range b.s.Messages[prev:] {
		inSegment[m.ID] = true
	}
	var out []string
	for _, id := range b.order[first:] {
		for _, d := range b.derived[id] {
			if inSegment[d] {
				out = append(out, d)
			}
		}
	}
	return out
}

// FindOpenCode lists what under root holds OpenCode sessions: database
// files (opencode.db, opencode-<channel>.db), storage directories (a
// directory holding session/, message/ and part/ under a storage
// directory), exports and storage session files given as files. In a
// data directory that holds both a database and the storage it was made
// from, the database alone (OpenCode migrated the storage into it).
func FindOpenCode(root string) ([]string, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{root}, nil
	}
	var dbs, stores []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if isDir(filepath.Join(p, "session")) && (isDir(filepath.Join(p, "message")) || isDir(filepath.Join(p, "part"))) {
				stores = append(stores, p)
				return filepath.SkipDir
			}
			switch d.Name() {
			case "message", "part", "snapshot", "log", "bin", "tool-output":
				if p != root {
					return filepath.SkipDir
				}
			}
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, "opencode") && strings.HasSuffix(name, ".db") {
			dbs = append(dbs, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(dbs)
	sort.Strings(stores)
	out := dbs
	for _, s := range stores {
		migrated := false
		for _, d := range dbs {
			if filepath.Dir(d) == filepath.Dir(s) {
				migrated = true
			}
		}
		if !migrated {
			out = append(out, s)
		}
	}
	return out, nil
}
