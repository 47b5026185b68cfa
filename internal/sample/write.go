// Package sample writes realistic synthetic stagewise agent databases
// (instances.sqlite): the small shipped sample (examples/stagewise), and
// big generated ones for benchmarks.
//
// Everything is deterministic: a fixed seed, fixed timestamps, a fixed page
// size and one transaction, so writing twice gives byte-identical files
// (with the same modernc.org/sqlite version: the SQLite version number is
// part of the file header).
package sample

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/compactlab/compact/internal/fsutil"
)

// Options selects what Write generates.
type Options struct {
	// Chats is the number of generated chats. Zero writes the shipped
	// sample (six hand-written chats; MessagesPerChat is then ignored).
	Chats int
	// MessagesPerChat is the message count of each generated chat
	// (default 200 when Chats > 0).
	MessagesPerChat int
	// Seed drives every random choice (ids, template picks).
	Seed int64
	// SchemaVersion is the meta('version') and column layout written
	// (7..14, default 9).
	SchemaVersion int
}

// DefaultMessagesPerChat is used when Options.Chats > 0 and
// MessagesPerChat is 0.
const DefaultMessagesPerChat = 200

// PageSize is the SQLite page size of every written database.
const PageSize = 4096

// Stats describes what Write wrote.
type Stats struct {
	Chats             int
	Messages          int
	CompressionPoints int
	Bytes             int64
}

// Write writes a new database to path, replacing any file there. It
// writes the database in a temporary directory beside path,
// .<base>.partial-N (fsutil.PartialPrefix), held for the life of the
// process, and renames it into place; CleanLeftovers removes what a
// killed Write left there.
func Write(path string, opts Options) error {
	_, err := WriteStats(path, opts)
	return err
}

// WriteStats is Write returning a summary of what was written.
func WriteStats(path string, opts Options) (Stats, error) {
	var st Stats
	if opts.SchemaVersion == 0 {
		opts.SchemaVersion = DefaultSchemaVersion
	}
	if err := checkVersion(opts.SchemaVersion); err != nil {
		return st, err
	}
	if opts.Chats < 0 || opts.MessagesPerChat < 0 {
		return st, errors.New("sample: negative chat or message count")
	}
	if opts.Chats > 0 && opts.MessagesPerChat == 0 {
		opts.MessagesPerChat = DefaultMessagesPerChat
	}
	// A directory rather than a temporary file: the lock that tells a
	// live run's from a killed one's is then not on the database, where
	// SQLite takes its own locks (flock and fcntl locks can conflict on
	// some systems, and Windows locks are mandatory); and whatever SQLite
	// writes beside the database goes in it too.
	stage, err := fsutil.MkdirTemp(filepath.Dir(path), fsutil.PartialPrefix(path), "")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return st, fmt.Errorf("cannot write %s: %w (check that %s is a directory you can write to)", path, err, filepath.Dir(path))
	}
	defer fsutil.Release(stage)
	defer os.RemoveAll(stage) // empty once the database is renamed out
	tmp := filepath.Join(stage, filepath.Base(path))
	st, err = writeDB(tmp, opts)
	if err != nil {
		return st, err
	}
	if stagedHook != nil {
		stagedHook(stage)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return st, fmt.Errorf("sample: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return st, fmt.Errorf("sample: %w", err)
	}
	if fi, err := os.Stat(path); err == nil {
		st.Bytes = fi.Size()
	}
	return st, nil
}

// stagedHook, when set (by tests), is called once the database is
// written in its temporary directory, before it is renamed into place.
var stagedHook func(stage string)

// CleanLeftovers removes what killed writes of a database at path left
// beside it, unless a live process holds it (a write of the same database
// now): their temporary directories, .<base>.partial-N (and what they
// hold: a half-written database), and the temporary files earlier
// versions wrote the database to, .<base>.N.tmp (and its -journal). It
// returns how many it removed and the first error; it goes on past
// errors. Without locks (see fsutil.Locking) it removes nothing.
func CleanLeftovers(path string) (int, error) {
	path = filepath.Clean(path)
	partial := fsutil.PartialPrefix(path)
	legacy := "." + filepath.Base(path) + "."
	return fsutil.CleanStaleMatch(filepath.Dir(path), func(name string) bool {
		if strings.HasPrefix(name, partial) {
			return true
		}
		n, ok := strings.CutPrefix(name, legacy)
		if !ok {
			return false
		}
		n = strings.TrimSuffix(n, "-journal")
		if n, ok = strings.CutSuffix(n, ".tmp"); !ok || n == "" {
			return false
		}
		return strings.Trim(n, "0123456789") == ""
	})
}

// chatRow is one agentInstances row plus its messages.
type chatRow struct {
	ID, ParentID, SideChatParentID string
	Type                           string
	InstanceConfig                 any // superjson text or nil
	CreatedAt, LastMessageAt       int64
	ModelID, ProviderInstanceID    string
	Title                          string
	TitleLocked                    any // nil, 0 or 1
	Unread                         int
	History                        string // superjson text; "" means the stale {"json":[]}
	QueuedMessages, InputState     string
	UsedTokens                     int
	MountedWorkspaces              any
	ToolApprovalMode               string
	ArchivedAt                     any
	Messages                       []message
}

// message is one UIMessage.
type message struct {
	ID, Role string
	Parts    Arr
	Meta     Obj // nil: SQL NULL metadata
}

func (m message) obj() Obj {
	o := Obj{{"id", m.ID}, {"role", m.Role}, {"parts", m.Parts}}
	if m.Meta != nil {
		o = append(o, KV{"metadata", m.Meta})
	}
	return o
}

// historyOf returns the superjson the app kept in agentInstances.history
// for msgs (what the v7 migration copied into agentMessages).
func historyOf(msgs []message) string {
	var w jsonWriter
	return w.history(msgs)
}

func (w *jsonWriter) history(msgs []message) string {
	arr := make(Arr, len(msgs))
	for i, m := range msgs {
		arr[i] = m.obj()
	}
	return w.superjson(arr)
}

const staleHistory = `{"json":[]}`

// isPoint reports whether a message is a compression point.
func (m message) isPoint() bool {
	for _, kv := range m.Meta {
		if kv.K == "compressedHistory" {
			return true
		}
	}
	return false
}

type dbWriter struct {
	db      *sql.DB
	tx      *sql.Tx
	chat    *sql.Stmt
	msg     *sql.Stmt
	cols    []instanceColumn
	version int
	st      Stats
	jw      jsonWriter // reused buffers
}

func writeDB(path string, opts Options) (Stats, error) {
	u := url.URL{Path: filepath.ToSlash(path)}
	db, err := sql.Open("sqlite", "file:"+u.EscapedPath())
	if err != nil {
		return Stats{}, fmt.Errorf("sample: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	for _, p := range []string{
		fmt.Sprintf("PRAGMA page_size=%d", PageSize),
		"PRAGMA journal_mode=OFF", // our own new file: no rollback needed
		"PRAGMA synchronous=OFF",
		"PRAGMA locking_mode=EXCLUSIVE",
		"PRAGMA cache_size=-32768", // 32 MiB
	} {
		if _, err := db.ExecContext(ctx, p); err != nil {
			return Stats{}, fmt.Errorf("sample: %s: %w", p, err)
		}
	}
	w := &dbWriter{db: db, version: opts.SchemaVersion, cols: columnsFor(opts.SchemaVersion)}
	if w.tx, err = db.BeginTx(ctx, nil); err != nil {
		return Stats{}, fmt.Errorf("sample: %w", err)
	}
	defer w.tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	for _, q := range schemaDDL(opts.SchemaVersion) {
		if _, err := w.tx.Exec(q); err != nil {
			return Stats{}, fmt.Errorf("sample: %w", err)
		}
	}
	if _, err := w.tx.Exec(`INSERT INTO meta(key, value) VALUES('version', ?)`, fmt.Sprint(opts.SchemaVersion)); err != nil {
		return Stats{}, fmt.Errorf("sample: %w", err)
	}
	var names, marks []string
	for _, c := range w.cols {
		names = append(names, c.name)
		marks = append(marks, "?")
	}
	if w.chat, err = w.tx.Prepare("INSERT INTO agentInstances(" + strings.Join(names, ", ") + ") VALUES(" + strings.Join(marks, ", ") + ")"); err != nil {
		return Stats{}, fmt.Errorf("sample: %w", err)
	}
	if w.msg, err = w.tx.Prepare(`INSERT INTO agentMessages(agent_instance_id, seq, message_id, role, parts, metadata) VALUES(?, ?, ?, ?, ?, ?)`); err != nil {
		return Stats{}, fmt.Errorf("sample: %w", err)
	}
	if opts.Chats == 0 {
		err = writeShipped(w, opts)
	} else {
		err = writeGenerated(w, opts)
	}
	if err != nil {
		return Stats{}, err
	}
	w.chat.Close()
	w.msg.Close()
	if err := w.tx.Commit(); err != nil {
		return Stats{}, fmt.Errorf("sample: %w", err)
	}
	return w.st, db.Close()
}

// add inserts one chat and its messages.
func (w *dbWriter) add(c *chatRow) error {
	hist := c.History
	if hist == "" {
		hist = staleHistory
	}
	vals := make([]any, 0, len(w.cols))
	for _, col := range w.cols {
		var v any
		switch col.name {
		case "id":
			v = c.ID
		case "parent_agent_instance_id":
			v = nullIfEmpty(c.ParentID)
		case "side_chat_parent_id":
			v = nullIfEmpty(c.SideChatParentID)
		case "type":
			v = c.Type
		case "instance_config":
			v = c.InstanceConfig
		case "created_at":
			v = c.CreatedAt
		case "last_message_at":
			v = c.LastMessageAt
		case "active_model_id":
			v = c.ModelID
		case "active_provider_instance_id":
			v = nullIfEmpty(c.ProviderInstanceID)
		case "title":
			v = c.Title
		case "title_locked_by_user":
			v = c.TitleLocked
		case "marked_unread", "unread":
			v = c.Unread
		case "history":
			v = hist
		case "queued_messages":
			v = c.QueuedMessages
		case "input_state":
			v = c.InputState
		case "used_tokens":
			v = c.UsedTokens
		case "mounted_workspaces":
			v = c.MountedWorkspaces
		case "tool_approval_mode":
			v = c.ToolApprovalMode
		case "archived_at":
			v = c.ArchivedAt
		default:
			return fmt.Errorf("sample: no value for column %s", col.name)
		}
		vals = append(vals, v)
	}
	if _, err := w.chat.Exec(vals...); err != nil {
		return fmt.Errorf("sample: chat %s: %w", c.ID, err)
	}
	for i, m := range c.Messages {
		var meta any
		if m.Meta != nil {
			meta = w.jw.superjson(m.Meta)
		}
		if _, err := w.msg.Exec(c.ID, i, m.ID, m.Role, w.jw.superjson(m.Parts), meta); err != nil {
			return fmt.Errorf("sample: chat %s message %d: %w", c.ID, i, err)
		}
		if m.isPoint() {
			w.st.CompressionPoints++
		}
	}
	w.st.Chats++
	w.st.Messages += len(c.Messages)
	return nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// unix returns t in unix seconds (the app's created_at/last_message_at unit).
func unix(t time.Time) int64 { return t.Unix() }
