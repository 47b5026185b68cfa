// Package store owns reading stagewise agent databases (instances.sqlite).
//
// The access is strictly read-only: the file is opened with the SQLite URI
// option mode=ro (never immutable, so rows still in the write-ahead log of a
// running desktop app are seen) and every connection runs with query_only.
// The package returns raw column text; decoding superjson and everything
// after it is someone else's job.
//
// Every read of one extraction happens inside one read transaction, a
// [Snap], so the whole run sees one consistent snapshot while the app keeps
// writing. In WAL mode a reader neither blocks the writer nor is blocked by
// it. In rollback-journal mode a long snapshot holds a SHARED lock and the
// app's commits wait for it (busy_timeout on the app side).
//
// The package calls SQLite's C API as modernc.org/sqlite/lib translates it
// to Go, not database/sql (see sqlite.go): a row's text is read in place
// and copied once, into memory the caller may use again (Text).
//
// SQLite reads the file through a read-only memory mapping (mmap_size),
// remapped every few megabytes so that the mapped pages do not pile up in
// the resident set. SQLite never shrinks the file below a snapshot still
// being read (a checkpoint cannot pass an open reader); a program other
// than SQLite truncating the file in place would crash the process, as it
// would any SQLite reader with mmap on.
package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/compactlab/compact/internal/fsutil"
)

// Table names of the stagewise schema.
const (
	TableMeta      = "meta"
	TableInstances = "agentInstances"
	TableMessages  = "agentMessages"
)

// MessagesTableVersion is the schema version that added agentMessages (v7).
const MessagesTableVersion = 7

// sqliteHeader is the 16-byte magic string every SQLite 3 database starts with.
const sqliteHeader = "SQLite format 3\x00"

// mmapRequest asks SQLite to read the file through a read-only memory
// mapping rather than with a pread per page, which costs the pure-Go
// driver about a fifth less CPU. SQLite caps it (at 2 GB unless built
// otherwise) and reads the pages past the cap as before. The mapped pages
// count in the process's resident set, so a Snap remaps as it goes (see
// mmapWindow).
const mmapRequest = 1 << 40

// busyTimeoutMS bounds how long a statement waits for a lock held by the
// app (rollback-journal mode, or WAL recovery) before failing.
const busyTimeoutMS = 5000

var (
	// ErrNotAgentDB is wrapped by every error saying the file is not a
	// stagewise agent database (not SQLite, empty, no tables, no
	// agentInstances table).
	ErrNotAgentDB = errors.New("not a stagewise agent database")

	// ErrNoMessagesTable is matched (errors.Is) by a *NoMessagesTableError.
	ErrNoMessagesTable = errors.New("no agentMessages table")

	// ErrNoHistoryColumn is matched (errors.Is) by a *NoHistoryColumnError.
	ErrNoHistoryColumn = errors.New("no agentInstances.history column")

	// ErrChatNotFound is returned by History for an unknown chat id.
	ErrChatNotFound = errors.New("chat not found")

	// ErrDamaged is matched (errors.Is) by a *DamagedError.
	ErrDamaged = errors.New("the database file is damaged")
)

// DamagedError says SQLite found the file damaged (SQLITE_CORRUPT, or
// SQLITE_NOTADB past a good header) while reading it.
//
// With a ChatID it is about the rows of that chat alone (Snap.Messages,
// Snap.History...): the snapshot is still open and the other chats can
// still be read. Without, the damage is where every read starts (the
// schema, the chat list) and nothing can be read; it then also matches
// ErrNotAgentDB, as SQLite's error did before.
type DamagedError struct {
	Path   string
	ChatID string
	Code   string // SQLITE_CORRUPT or SQLITE_NOTADB
	Msg    string // SQLite's message, e.g. "database disk image is malformed"
}

func (e *DamagedError) Error() string {
	if e.ChatID != "" {
		return fmt.Sprintf("chat %s: its rows cannot be read: %s is damaged (%s: %s)", e.ChatID, e.Path, e.Code, e.Msg)
	}
	return fmt.Sprintf("%s is damaged (%s: %s); %s", e.Path, e.Code, e.Msg, RecoverHint(e.Path))
}

// Is makes errors.Is(err, ErrDamaged) true, and errors.Is(err,
// ErrNotAgentDB) too when the whole file is unreadable.
func (e *DamagedError) Is(target error) bool {
	return target == ErrDamaged || (e.ChatID == "" && target == ErrNotAgentDB)
}

// RecoverHint is the advice for a damaged database file at path: the
// sqlite3 shell's .recover command, with path quoted for a POSIX shell.
func RecoverHint(path string) string {
	return "sqlite3 " + shellQuote(path) + " .recover > recovered.sql can save what is left"
}

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters that never need it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// damaged turns SQLite's SQLITE_CORRUPT and SQLITE_NOTADB into a
// *DamagedError about chatID ("" for the whole file); nil for any other
// error.
func damaged(path, chatID string, err error) *DamagedError {
	var se *sqliteError
	if !errors.As(err, &se) {
		return nil
	}
	code := ""
	switch se.code {
	case sqlite3.SQLITE_CORRUPT:
		code = "SQLITE_CORRUPT"
	case sqlite3.SQLITE_NOTADB:
		code = "SQLITE_NOTADB"
	default:
		return nil
	}
	return &DamagedError{Path: path, ChatID: chatID, Code: code, Msg: se.msg}
}

// NotAgentDBError says why a file is not a stagewise agent database.
type NotAgentDBError struct {
	Path   string
	Reason string
}

func (e *NotAgentDBError) Error() string {
	return fmt.Sprintf("%s is not a stagewise agent database: %s", e.Path, e.Reason)
}

// Is makes errors.Is(err, ErrNotAgentDB) true.
func (e *NotAgentDBError) Is(target error) bool { return target == ErrNotAgentDB }

// NoMessagesTableError is returned when the messages source is asked for
// but the database predates schema v7 (or lost the table).
type NoMessagesTableError struct {
	Path    string
	Version int
}

func (e *NoMessagesTableError) Error() string {
	return fmt.Sprintf("%s has no %s table (schema version %d; the messages source needs version %d or later)",
		e.Path, TableMessages, e.Version, MessagesTableVersion)
}

// Is makes errors.Is(err, ErrNoMessagesTable) true.
func (e *NoMessagesTableError) Is(target error) bool { return target == ErrNoMessagesTable }

// NoHistoryColumnError is returned when the history source is asked for but
// agentInstances has no history column (a future schema may drop it).
type NoHistoryColumnError struct {
	Path    string
	Version int
}

func (e *NoHistoryColumnError) Error() string {
	return fmt.Sprintf("%s has no %s.history column (schema version %d)", e.Path, TableInstances, e.Version)
}

// Is makes errors.Is(err, ErrNoHistoryColumn) true.
func (e *NoHistoryColumnError) Is(target error) bool { return target == ErrNoHistoryColumn }

// schemaInfo is what Open found out about the database layout.
type schemaInfo struct {
	// Version is meta('version') as an integer, 0 when absent or unreadable.
	Version int
	// Tables maps a table name to its column names in declaration order.
	Tables map[string][]string
	// Notes are human-readable remarks (missing meta table, odd version...).
	Notes []string
}

// DB is a read-only stagewise database. It holds no connection open: each
// Snap has its own.
type DB struct {
	path   string // as given by the caller, for messages
	uri    string
	schema schemaInfo
}

// URI returns the SQLite URI Open uses for path: a file: URI with the path
// percent-escaped and mode=ro (never immutable). Every connection then runs
// with the busy_timeout, query_only and mmap_size pragmas.
func URI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") { // Windows: C:/x -> /C:/x
		p = "/" + p
	}
	// EscapedPath escapes '%', '?', '#', spaces and other bytes that would
	// end or alter the path part of the URI, and keeps '/'.
	u := url.URL{Path: p}
	esc := u.EscapedPath()
	return "file:" + esc + "?mode=ro", nil
}

// connect opens a connection of d's with its pragmas set.
func (d *DB) connect(ctx context.Context) (*conn, error) {
	c, err := openConn(d.uri)
	if err != nil {
		return nil, d.wrapErr(err)
	}
	err = c.busyTimeout(busyTimeoutMS)
	if err == nil {
		err = c.exec(ctx, "PRAGMA query_only=1")
	}
	if err == nil {
		err = c.exec(ctx, "PRAGMA mmap_size="+strconv.FormatInt(mmapRequest, 10))
	}
	if err != nil {
		c.close() //nolint:errcheck // the first error is the one to report
		return nil, d.wrapErr(err)
	}
	return c, nil
}

// checkHeader makes sure path is an existing, non-empty SQLite 3 file.
func checkHeader(path string) error {
	// Stat first: opening a FIFO blocks until something writes to it, and
	// SQLite needs a file it can seek in anyway.
	if st, err := os.Stat(path); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
		return &NotAgentDBError{Path: path, Reason: "it is not a regular file (" + fsutil.FileKind(st.Mode()) + "); give the database file itself"}
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("no stagewise database at %s: %w", path, fs.ErrNotExist)
		}
		return fmt.Errorf("cannot open stagewise database: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cannot open stagewise database: %w", err)
	}
	if st.IsDir() {
		return &NotAgentDBError{Path: path, Reason: "it is a directory"}
	}
	if st.Size() == 0 {
		return &NotAgentDBError{Path: path, Reason: "the file is empty (0 bytes)"}
	}
	var buf [len(sqliteHeader)]byte
	n, err := io.ReadFull(f, buf[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("cannot read stagewise database: %w", err)
	}
	if n < len(buf) || !bytes.Equal(buf[:], []byte(sqliteHeader)) {
		return &NotAgentDBError{Path: path, Reason: "not an SQLite 3 file (bad header)"}
	}
	return nil
}

// Open opens the database at path read-only and reads its schema. It never
// writes to the file, and never creates it.
func Open(path string) (*DB, error) {
	return OpenContext(context.Background(), path)
}

// OpenContext is Open with a context for the schema queries.
func OpenContext(ctx context.Context, path string) (*DB, error) {
	if err := checkHeader(path); err != nil {
		return nil, err
	}
	uri, err := URI(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open stagewise database %s: %w", path, err)
	}
	d := &DB{path: path, uri: uri}
	c, err := d.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.close() //nolint:errcheck // read-only
	if err := c.exec(ctx, "BEGIN"); err != nil {
		return nil, d.wrapErr(err)
	}
	if d.schema, err = readSchema(ctx, c, path); err != nil {
		return nil, d.wrapErr(err)
	}
	return d, nil
}

// wrapErr turns SQLite's "file is not a database" into a NotAgentDBError
// and "database disk image is malformed" into a DamagedError about the
// whole file, and says which file any other error is about.
func (d *DB) wrapErr(err error) error {
	var na *NotAgentDBError
	if errors.As(err, &na) {
		return err
	}
	var de *DamagedError
	if errors.As(err, &de) {
		return err
	}
	var se *sqliteError
	if errors.As(err, &se) && se.code == sqlite3.SQLITE_NOTADB {
		return &NotAgentDBError{Path: d.path, Reason: oneLine(se.Error())}
	}
	if de := damaged(d.path, "", err); de != nil {
		de.Msg = oneLine(de.Msg)
		return de
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("reading %s: %w", d.path, err)
}

func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

func readSchema(ctx context.Context, c *conn, path string) (schemaInfo, error) {
	s := schemaInfo{Tables: map[string][]string{}}
	var names []string
	err := c.query(ctx, `SELECT name FROM sqlite_master WHERE type='table' ORDER BY name`, nil, func(st *stmt) error {
		n, _ := st.text(0)
		names = append(names, n)
		return nil
	})
	if err != nil {
		return s, err
	}
	if len(names) == 0 {
		return s, &NotAgentDBError{Path: path, Reason: "it has no tables"}
	}
	for _, n := range names {
		cols, err := tableColumns(ctx, c, n)
		if err != nil {
			return s, err
		}
		s.Tables[n] = cols
	}
	if _, ok := s.Tables[TableInstances]; !ok {
		return s, &NotAgentDBError{Path: path, Reason: "it has no " + TableInstances + " table"}
	}
	if _, ok := s.Tables[TableMeta]; !ok {
		s.Notes = append(s.Notes, "no meta table: schema version taken as 0")
		return s, nil
	}
	var v any
	found := false
	err = c.query(ctx, `SELECT value FROM meta WHERE key='version'`, nil, func(st *stmt) error {
		if !found {
			v, found = st.value(0), true
		}
		return nil
	})
	switch {
	case err != nil:
		return s, err
	case !found:
		s.Notes = append(s.Notes, "meta table has no 'version' key: schema version taken as 0")
		return s, nil
	}
	var txt string
	switch x := v.(type) {
	case int64:
		s.Version = int(x)
		return s, nil
	case nil:
		s.Notes = append(s.Notes, "meta 'version' is NULL: schema version taken as 0")
		return s, nil
	case string:
		txt = x
	default:
		txt = fmt.Sprint(x)
	}
	n, err := strconv.Atoi(strings.TrimSpace(txt))
	if err != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("meta 'version' is %q, not an integer: schema version taken as 0", txt))
		return s, nil
	}
	s.Version = n
	return s, nil
}

func tableColumns(ctx context.Context, c *conn, table string) ([]string, error) {
	var cols []string
	err := c.query(ctx, `SELECT name FROM pragma_table_info(?)`, []string{table}, func(st *stmt) error {
		n, _ := st.text(0)
		cols = append(cols, n)
		return nil
	})
	return cols, err
}

// Path returns the path Open was given.
func (d *DB) Path() string { return d.path }

// Version returns the schema version from meta('version'), 0 if absent.
func (d *DB) Version() int { return d.schema.Version }

// Notes returns remarks made while reading the schema (e.g. a missing
// version), for a verbose log.
func (d *DB) Notes() []string { return append([]string(nil), d.schema.Notes...) }

// HasMessagesTable reports whether agentMessages exists.
func (d *DB) HasMessagesTable() bool { return hasTable(d.schema, TableMessages) }

// HasHistoryColumn reports whether agentInstances.history exists.
func (d *DB) HasHistoryColumn() bool { return hasColumn(d.schema, TableInstances, "history") }

// Columns returns the column names of table in declaration order (nil if
// the table does not exist).
func (d *DB) Columns(table string) []string {
	return append([]string(nil), d.schema.Tables[table]...)
}

// Tables returns the names of all tables, sorted.
func (d *DB) Tables() []string {
	var out []string
	for n := range d.schema.Tables {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Close releases the database. It holds no connection between snapshots,
// so there is nothing to fail; a Snap must be closed on its own.
func (d *DB) Close() error { return nil }

func hasTable(s schemaInfo, t string) bool { _, ok := s.Tables[t]; return ok }

func hasColumn(s schemaInfo, t, c string) bool {
	for _, x := range s.Tables[t] {
		if strings.EqualFold(x, c) {
			return true
		}
	}
	return false
}
