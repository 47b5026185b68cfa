package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"

	sqlite3 "modernc.org/sqlite/lib"
)

// Snap is one read transaction: every read through it sees the same
// snapshot of the database, whatever the app commits meanwhile. A Snap is
// not safe for concurrent use; nested reads (reading a chat's messages
// while iterating chats) are fine.
//
// A Snap has a connection of its own; the snapshot lives until Close. A
// read whose context is done is interrupted and returns the context's
// error.
type Snap struct {
	d *DB
	// ownDB: the snapshot opened d (OpenSnapshot) and closes it too.
	ownDB  bool
	c      *conn
	schema schemaInfo
	// mmapLimit is SQLite's mmap_size for the connection (0: every page
	// is read with pread); read counts the bytes of rows since the last
	// remap.
	mmapLimit int64
	mmapAlt   bool
	read      int64
}

// mmapWindow is how many bytes of rows a Snap reads between two remaps of
// the database file. A page SQLite reads through the mapping stays in the
// process's resident set until the file is unmapped, so without remaps a
// 2 GB database would cost 2 GB of RSS. The kernel maps file pages in
// large blocks around each fault, so the resident set grows faster than
// the bytes read: 8 MB of rows mapped about 60 MB on the benchmark
// databases. Each remap costs an unmap (with its TLB flushes on every
// core) and faults the pages used again: 8 MB rather than 4 took 6 % less
// CPU on the 500 MB benchmark database and 2.5 % on the 2 GB one, for
// about 25-40 MB more peak RSS (about 190 and 220 MB). Reads that jump all
// over the file (the chat list) do not go through the mapping at all (see
// unmapped).
var mmapWindow int64 = 8 << 20

// readDone counts n more bytes of rows and, every mmapWindow bytes, makes
// SQLite map the file afresh, which drops the pages mapped so far from the
// resident set (they stay in the page cache). A change of mmap_size is
// what remaps; it alternates between the limit and one byte less. It must
// be called between statements: SQLite only remaps when no page is in
// use.
func (s *Snap) readDone(ctx context.Context, n int64) error {
	if s.mmapLimit <= 1 {
		return nil
	}
	if s.read += n; s.read < mmapWindow {
		return nil
	}
	s.read = 0
	s.mmapAlt = !s.mmapAlt
	lim := s.mmapLimit
	if s.mmapAlt {
		lim--
	}
	return s.setMapped(ctx, lim)
}

func (s *Snap) setMapped(ctx context.Context, n int64) error {
	return s.query(ctx, "PRAGMA mmap_size="+strconv.FormatInt(n, 10), nil, func(*stmt) error { return nil })
}

// unmapped runs a statement that reads all over the database, which cannot
// be remapped midway, with the mapping off, so that its pages do not pile
// up in the resident set.
func (s *Snap) unmapped(ctx context.Context, read func() error) error {
	if s.mmapLimit <= 0 {
		return read()
	}
	if err := s.setMapped(ctx, 0); err != nil {
		return err
	}
	err := read()
	s.read = 0
	if rerr := s.setMapped(ctx, s.mmapLimit); err == nil {
		err = rerr
	}
	return err
}

// MappedLimit returns SQLite's current mmap_size for the snapshot's
// connection: how much of the file it reads through a memory mapping (0:
// none, every page is read with pread).
func (s *Snap) MappedLimit(ctx context.Context) (int64, error) {
	var n int64
	if err := s.query(ctx, "PRAGMA mmap_size", nil, func(st *stmt) error { n = st.integer(0); return nil }); err != nil {
		return 0, err
	}
	return n, nil
}

// Snapshot starts a read transaction and pins its snapshot at once (a
// deferred BEGIN only takes the snapshot at the first read, so Snapshot
// reads the schema right away). The schema is read again inside the
// snapshot, so a migration the app ran after Open is seen consistently.
func (d *DB) Snapshot(ctx context.Context) (*Snap, error) {
	c, err := d.connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.exec(ctx, "BEGIN"); err != nil {
		c.close() //nolint:errcheck // read-only
		return nil, d.wrapErr(err)
	}
	sc, err := readSchema(ctx, c, d.path)
	if err != nil {
		c.close() //nolint:errcheck // read-only
		return nil, d.wrapErr(err)
	}
	s := &Snap{d: d, c: c, schema: sc}
	if s.mmapLimit, err = s.MappedLimit(ctx); err != nil {
		c.close() //nolint:errcheck // read-only
		return nil, err
	}
	return s, nil
}

// query runs q on the snapshot's connection (see conn.query): an error
// from fn is returned as is, SQLite's own with the file's name.
func (s *Snap) query(ctx context.Context, q string, args []string, fn func(*stmt) error) error {
	var fnErr error
	err := s.c.query(ctx, q, args, func(st *stmt) error { fnErr = fn(st); return fnErr })
	if err != nil && err != fnErr {
		return s.d.wrapErr(err)
	}
	return err
}

// Close ends the read transaction and closes the snapshot's connection.
// It is safe to call more than once.
func (s *Snap) Close() error {
	err := s.c.close()
	if s.ownDB {
		err = errors.Join(err, s.d.Close())
	}
	return err
}

// OpenSnapshot opens the database at path read-only (OpenContext) and
// pins one snapshot of it (Snapshot): closing the snapshot closes both.
func OpenSnapshot(ctx context.Context, path string) (*Snap, error) {
	db, err := OpenContext(ctx, path)
	if err != nil {
		return nil, err
	}
	snap, err := db.Snapshot(ctx)
	if err != nil {
		db.Close() //nolint:errcheck // read-only
		return nil, err
	}
	snap.ownDB = true
	return snap, nil
}

// Version returns the schema version seen by this snapshot.
func (s *Snap) Version() int { return s.schema.Version }

// HasMessagesTable reports whether agentMessages exists in this snapshot.
func (s *Snap) HasMessagesTable() bool { return hasTable(s.schema, TableMessages) }

// HasHistoryColumn reports whether agentInstances.history exists in this snapshot.
func (s *Snap) HasHistoryColumn() bool { return hasColumn(s.schema, TableInstances, "history") }

// Columns returns the column names of table in this snapshot.
func (s *Snap) Columns(table string) []string {
	return append([]string(nil), s.schema.Tables[table]...)
}

// Chat is one agentInstances row. Text columns that are NULL (or absent
// from the schema) come back as "".
type Chat struct {
	ID            string
	Title         string
	TitleNull     bool // title was NULL (broken database); Title is ""
	LastMessageAt int64
	Type          string // "" when the column is missing or NULL
	ParentID      string // parent_agent_instance_id, "" when NULL

	// Only filled by ChatsWithHistory / EachChat(withHistory=true).
	History     string // raw superjson text of the deprecated column
	HistoryNull bool   // the column was SQL NULL
}

// chatColumns builds the select list, by column name, for agentInstances.
func (s *Snap) chatQuery(withHistory bool) (string, error) {
	for _, c := range []string{"id", "title", "last_message_at"} {
		if !hasColumn(s.schema, TableInstances, c) {
			return "", &NotAgentDBError{Path: s.d.path, Reason: TableInstances + " has no " + c + " column"}
		}
	}
	cols := []string{"id", "title", "last_message_at"}
	for _, c := range []string{"type", "parent_agent_instance_id"} {
		if hasColumn(s.schema, TableInstances, c) {
			cols = append(cols, c)
		} else {
			cols = append(cols, "NULL")
		}
	}
	if withHistory {
		if !s.HasHistoryColumn() {
			return "", &NoHistoryColumnError{Path: s.d.path, Version: s.schema.Version}
		}
		cols = append(cols, "history")
	}
	// The ORDER BY is exactly the upstream one: ties come out in the order
	// SQLite's plan yields them, which with the last_message_at index is a
	// backward index walk, i.e. descending rowid.
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + TableInstances + " ORDER BY last_message_at DESC", nil
}

// Chats returns every agentInstances row (all types, child agents, side
// chats, archived chats) in `ORDER BY last_message_at DESC` order, without
// the history column. Small: one row per chat.
func (s *Snap) Chats(ctx context.Context) ([]Chat, error) {
	var out []Chat
	err := s.EachChat(ctx, false, func(c Chat) error { out = append(out, c); return nil })
	return out, err
}

// ChatsWithHistory is Chats plus the raw history column. It holds every
// chat's history in memory at once; prefer EachChat on big databases.
func (s *Snap) ChatsWithHistory(ctx context.Context) ([]Chat, error) {
	var out []Chat
	err := s.EachChat(ctx, true, func(c Chat) error { out = append(out, c); return nil })
	return out, err
}

// EachChat streams the rows of Chats (with the history column when
// withHistory is true) to fn, in order. fn may read through s (e.g.
// Messages) while the iteration is in progress. An error from fn stops the
// iteration and is returned as is.
func (s *Snap) EachChat(ctx context.Context, withHistory bool, fn func(Chat) error) error {
	q, err := s.chatQuery(withHistory)
	if err != nil {
		return err
	}
	// The chat rows lie all over the file: through the mapping, reading
	// them would map a block around each of them, most of a 2 GB file.
	return s.unmapped(ctx, func() error { return s.eachChat(ctx, q, withHistory, fn) })
}

func (s *Snap) eachChat(ctx context.Context, q string, withHistory bool, fn func(Chat) error) error {
	return s.query(ctx, q, nil, func(st *stmt) error {
		var c Chat
		c.ID, _ = textOf(st, 0, nil)
		c.Title, c.TitleNull = textOf(st, 1, nil)
		c.LastMessageAt = intOf(st.value(2))
		c.Type, _ = textOf(st, 3, nil)
		c.ParentID, _ = textOf(st, 4, nil)
		if withHistory {
			c.History, c.HistoryNull = textOf(st, 5, nil)
		}
		return fn(c)
	})
}

// History returns the raw text of the deprecated agentInstances.history
// column of one chat; null is true when it is SQL NULL. A damaged page on
// the way (an overflow page of the column) gives a *DamagedError naming
// the chat, as Messages does.
func (s *Snap) History(ctx context.Context, chatID string) (text string, null bool, err error) {
	if !s.HasHistoryColumn() {
		return "", false, &NoHistoryColumnError{Path: s.d.path, Version: s.schema.Version}
	}
	found := false
	err = s.chatRows(ctx, chatID, `SELECT history FROM `+TableInstances+` WHERE id=?`, func(st *stmt) error {
		if !found {
			text, null = textOf(st, 0, nil)
			found = true
		}
		return nil
	})
	if err != nil {
		return "", false, err
	}
	if !found {
		return "", false, fmt.Errorf("%s: %w: %q", s.d.path, ErrChatNotFound, chatID)
	}
	if err := s.readDone(ctx, int64(len(text))); err != nil {
		return "", false, err
	}
	return text, null, nil
}

// MessageRow is one agentMessages row, raw.
type MessageRow struct {
	Seq          int64
	ID           string // message_id
	Role         string
	Parts        string // raw superjson text
	PartsNull    bool   // parts was SQL NULL (broken database)
	Metadata     string // raw superjson text
	MetadataNull bool   // metadata was SQL NULL (or the column is missing)
}

func (s *Snap) messageSelect() (string, error) {
	if !s.HasMessagesTable() {
		return "", &NoMessagesTableError{Path: s.d.path, Version: s.schema.Version}
	}
	var missing []string
	for _, c := range []string{"agent_instance_id", "seq", "message_id", "role", "parts"} {
		if !hasColumn(s.schema, TableMessages, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("%s: %s lacks column(s) %s", s.d.path, TableMessages, strings.Join(missing, ", "))
	}
	meta := "metadata"
	if !hasColumn(s.schema, TableMessages, "metadata") {
		meta = "NULL"
	}
	return "SELECT seq, message_id, role, parts, " + meta + " FROM " + TableMessages, nil
}

// Messages returns the rows of one chat, in the upstream order:
//
//	SELECT seq, message_id, role, parts, metadata FROM agentMessages WHERE agent_instance_id=? ORDER BY seq
//
// It fails with a *NoMessagesTableError (errors.Is ErrNoMessagesTable) when
// the database has no agentMessages table. A chat without rows gives an
// empty slice. A chat whose rows lie on a damaged page gives a
// *DamagedError naming it (errors.Is ErrDamaged): the snapshot is still
// open, and the other chats can be read on.
func (s *Snap) Messages(ctx context.Context, chatID string) ([]MessageRow, error) {
	return s.MessagesIn(ctx, chatID, nil)
}

// MessagesIn is Messages with the rows' texts copied into t rather than
// into memory of their own (t nil: their own), and the rows themselves
// kept in t's memory too. t is emptied first: the rows of the previous
// read into t must no longer be in use.
func (s *Snap) MessagesIn(ctx context.Context, chatID string, t *Text) ([]MessageRow, error) {
	out := []MessageRow{}
	if t != nil {
		t.b, t.n = t.b[:0], 0
		if t.rows != nil {
			clear(t.rows)
			out = t.rows[:0]
		}
	}
	err := s.eachMessage(ctx, chatID, t, func(m MessageRow) error { out = append(out, m); return nil })
	if err != nil {
		return nil, err
	}
	if t != nil {
		t.rows = out
	}
	return out, nil
}

// EachMessage streams the rows of Messages to fn, one at a time, so a huge
// chat never sits in memory at once. An error from fn stops the iteration
// and is returned as is.
//
// Measured against AllMessages (one query over every row ordered by
// (agent_instance_id, seq)) on generated 500 MB and 2 GB databases, warm
// page cache: both read 650-1000 MB/s, AllMessages about 10-20% faster on
// average, within the run-to-run noise. Both walk the primary-key index
// and fetch each row from the table b-tree; neither sorts (TestQueryPlans).
// A query per chat is the one to use: it follows the Chats order the
// extraction needs, and the process stays around 25 MB RSS on the 2 GB
// file (BenchmarkReadPerChat with COMPACT_BENCH_DB).
func (s *Snap) EachMessage(ctx context.Context, chatID string, fn func(MessageRow) error) error {
	return s.eachMessage(ctx, chatID, nil, fn)
}

func (s *Snap) eachMessage(ctx context.Context, chatID string, t *Text, fn func(MessageRow) error) error {
	q, err := s.messageSelect()
	if err != nil {
		return err
	}
	var n int64
	err = s.chatRows(ctx, chatID, q+" WHERE agent_instance_id=? ORDER BY seq", func(st *stmt) error {
		m := messageRow(st, 0, t)
		n += int64(len(m.Parts) + len(m.Metadata))
		return fn(m)
	})
	if err != nil {
		if errors.Is(err, ErrDamaged) {
			// The rows read before the damage went through the mapping
			// too. The error is the one to report.
			_ = s.readDone(ctx, n)
		}
		return err
	}
	return s.readDone(ctx, n)
}

// chatRows runs q, a read of the rows of the chat chatID (its one
// parameter), as query does; but a damaged page on the way (SQLite's
// SQLITE_CORRUPT or SQLITE_NOTADB) gives a *DamagedError naming the chat:
// the statement is reset, the read transaction stays open, and the other
// chats can still be read in the same snapshot. Should SQLite have ended
// the transaction, the snapshot is lost and the error says so instead.
func (s *Snap) chatRows(ctx context.Context, chatID, q string, fn func(*stmt) error) error {
	var fnErr error
	err := s.c.query(ctx, q, []string{chatID}, func(st *stmt) error { fnErr = fn(st); return fnErr })
	if err == nil || err == fnErr {
		return err
	}
	if de := damaged(s.d.path, chatID, err); de != nil && ctx.Err() == nil {
		if !s.c.inTransaction() {
			return fmt.Errorf("chat %s: %s: reading its rows ended the read transaction; nothing more can be read in the same snapshot", chatID, de)
		}
		return de
	}
	return s.d.wrapErr(err)
}

// messageRow reads the columns of messageSelect, from column i on.
func messageRow(st *stmt, i int, t *Text) MessageRow {
	var m MessageRow
	m.Seq = integerOf(st, i)
	m.ID, _ = textOf(st, i+1, t)
	switch b, _ := st.bytes(i + 2); string(b) { // the usual roles without a copy
	case "user":
		m.Role = "user"
	case "assistant":
		m.Role = "assistant"
	default:
		m.Role, _ = textOf(st, i+2, t)
	}
	m.Parts, m.PartsNull = textOf(st, i+3, t)
	m.Metadata, m.MetadataNull = textOf(st, i+4, t)
	return m
}

// AllMessages streams every agentMessages row ordered by
// (agent_instance_id, seq) in one query. The chats come in id order, not
// the Chats order, so a consumer that numbers chats must reorder; it
// exists for whole-database passes (statistics, validation) and for the
// comparison benchmark (see EachMessage).
func (s *Snap) AllMessages(ctx context.Context, fn func(chatID string, m MessageRow) error) error {
	q, err := s.messageSelect()
	if err != nil {
		return err
	}
	q = strings.Replace(q, "SELECT ", "SELECT agent_instance_id, ", 1) + " ORDER BY agent_instance_id, seq"
	return s.unmapped(ctx, func() error {
		return s.query(ctx, q, nil, func(st *stmt) error {
			cid, _ := textOf(st, 0, nil)
			return fn(cid, messageRow(st, 1, nil))
		})
	})
}

// MessageCount returns the number of agentMessages rows of one chat.
func (s *Snap) MessageCount(ctx context.Context, chatID string) (int, error) {
	if !s.HasMessagesTable() {
		return 0, &NoMessagesTableError{Path: s.d.path, Version: s.schema.Version}
	}
	var n int
	err := s.query(ctx, `SELECT count(*) FROM `+TableMessages+` WHERE agent_instance_id=?`, []string{chatID}, func(st *stmt) error {
		n = int(st.integer(0))
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Text is memory a Snap copies the texts of rows into (MessagesIn), to be
// used again for the next rows: once it has grown to a chat's size,
// reading a chat allocates nothing for its texts. The strings of rows read
// into a Text point into its memory; reading into it again overwrites
// them, so they must no longer be in use by then. The zero Text is ready.
type Text struct {
	b    []byte
	n    int          // bytes added since the read began, over all chunks
	rows []MessageRow // the rows of the last read, whose memory the next read uses again
}

// Size returns the bytes of text memory t holds (its rows take a few
// dozen bytes per row more).
func (t *Text) Size() int { return cap(t.b) }

// Scramble overwrites t's memory with 0xff bytes: a test that recycles a
// Text scrambles it first, so that a string still in use shows.
func (t *Text) Scramble() {
	b := t.b[:cap(t.b)]
	for i := range b {
		b[i] = 0xff
	}
	rows := t.rows[:cap(t.rows)]
	for i := range rows {
		rows[i] = MessageRow{ID: "scrambled", Role: "scrambled", Parts: "scrambled"}
	}
}

// add copies b into t's memory. When there is no room left, t moves on to
// a new chunk, large enough for twice what this read has needed so far,
// so that the next read of a chat as large fits in it; the strings made
// so far keep the old chunk alive.
func (t *Text) add(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	t.n += len(b)
	if cap(t.b)-len(t.b) < len(b) {
		t.b = make([]byte, 0, max(2*cap(t.b), 2*t.n, 64<<10))
	}
	i := len(t.b)
	t.b = append(t.b, b...)
	return unsafe.String(&t.b[i], len(b))
}

// textOf reads column i of the current row as text, copied into t (t nil:
// into a string of its own). A number is rendered as Go renders the value,
// as the database/sql driver gave it before; null is true for SQL NULL.
func textOf(st *stmt, i int, t *Text) (s string, null bool) {
	switch sqlite3.Xsqlite3_column_type(st.c.tls, st.p, int32(i)) {
	case sqlite3.SQLITE_NULL:
		return "", true
	case sqlite3.SQLITE_INTEGER:
		return strconv.FormatInt(st.integer(i), 10), false
	case sqlite3.SQLITE_FLOAT:
		return strconv.FormatFloat(sqlite3.Xsqlite3_column_double(st.c.tls, st.p, int32(i)), 'g', -1, 64), false
	}
	b, _ := st.bytes(i)
	if t == nil {
		return string(b), false
	}
	return t.add(b), false
}

// integerOf reads column i of the current row leniently, as intOf.
func integerOf(st *stmt, i int) int64 {
	if sqlite3.Xsqlite3_column_type(st.c.tls, st.p, int32(i)) == sqlite3.SQLITE_INTEGER {
		return st.integer(i)
	}
	return intOf(st.value(i))
}

// intOf reads an integer column leniently (REAL is truncated, text parsed,
// NULL and junk are 0).
func intOf(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		if math.IsNaN(x) {
			return 0
		}
		return int64(x)
	case string:
		n, _ := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n
	case []byte:
		n, _ := strconv.ParseInt(strings.TrimSpace(string(x)), 10, 64)
		return n
	}
	return 0
}
