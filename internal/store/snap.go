package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Snap is one read transaction: every read through it sees the same
// snapshot of the database, whatever the app commits meanwhile. A Snap is
// not safe for concurrent use; nested reads (reading a chat's messages
// while iterating chats) are fine.
//
// The snapshot lives until Close, or until the context given to Snapshot
// is done (database/sql then rolls the transaction back).
type Snap struct {
	d      *DB
	tx     *sql.Tx
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
// databases, hence 4 MB. Reads that jump all over the file (the chat list)
// do not go through the mapping at all (see unmapped).
var mmapWindow int64 = 4 << 20

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
	if _, err := s.tx.ExecContext(ctx, "PRAGMA mmap_size="+strconv.FormatInt(n, 10)); err != nil {
		return s.d.wrapErr(err)
	}
	return nil
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
	if err := s.tx.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&n); err != nil {
		return 0, s.d.wrapErr(err)
	}
	return n, nil
}

// Snapshot starts a read transaction and pins its snapshot at once (a
// deferred BEGIN only takes the snapshot at the first read, so Snapshot
// reads the schema right away). The schema is read again inside the
// snapshot, so a migration the app ran after Open is seen consistently.
func (d *DB) Snapshot(ctx context.Context) (*Snap, error) {
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, d.wrapErr(err)
	}
	sc, err := readSchema(ctx, tx, d.path)
	if err != nil {
		tx.Rollback() //nolint:errcheck // read-only
		return nil, d.wrapErr(err)
	}
	s := &Snap{d: d, tx: tx, schema: sc}
	if s.mmapLimit, err = s.MappedLimit(ctx); err != nil {
		tx.Rollback() //nolint:errcheck // read-only
		return nil, err
	}
	return s, nil
}

// Close ends the read transaction. It is safe to call more than once.
func (s *Snap) Close() error {
	err := s.tx.Rollback()
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
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
	rows, err := s.tx.QueryContext(ctx, q)
	if err != nil {
		return s.d.wrapErr(err)
	}
	defer rows.Close()
	var id, title, lma, typ, parent, hist any
	dest := []any{&id, &title, &lma, &typ, &parent}
	if withHistory {
		dest = append(dest, &hist)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return s.d.wrapErr(err)
		}
		var c Chat
		c.ID, _ = textOf(id)
		c.Title, c.TitleNull = textOf(title)
		c.LastMessageAt = intOf(lma)
		c.Type, _ = textOf(typ)
		c.ParentID, _ = textOf(parent)
		if withHistory {
			c.History, c.HistoryNull = textOf(hist)
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return s.d.wrapErr(err)
	}
	return nil
}

// History returns the raw text of the deprecated agentInstances.history
// column of one chat; null is true when it is SQL NULL.
func (s *Snap) History(ctx context.Context, chatID string) (text string, null bool, err error) {
	if !s.HasHistoryColumn() {
		return "", false, &NoHistoryColumnError{Path: s.d.path, Version: s.schema.Version}
	}
	var v any
	err = s.tx.QueryRowContext(ctx, `SELECT history FROM `+TableInstances+` WHERE id=?`, chatID).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, fmt.Errorf("%s: %w: %q", s.d.path, ErrChatNotFound, chatID)
	}
	if err != nil {
		return "", false, s.d.wrapErr(err)
	}
	text, null = textOf(v)
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
// empty slice.
func (s *Snap) Messages(ctx context.Context, chatID string) ([]MessageRow, error) {
	out := []MessageRow{}
	err := s.EachMessage(ctx, chatID, func(m MessageRow) error { out = append(out, m); return nil })
	if err != nil {
		return nil, err
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
	q, err := s.messageSelect()
	if err != nil {
		return err
	}
	rows, err := s.tx.QueryContext(ctx, q+" WHERE agent_instance_id=? ORDER BY seq", chatID)
	if err != nil {
		return s.d.wrapErr(err)
	}
	n, err := s.eachRow(rows, fn)
	if err != nil {
		return err
	}
	return s.readDone(ctx, n)
}

// eachRow scans the rows of a message query into fn, closes them and
// returns the bytes of text read.
func (s *Snap) eachRow(rows *sql.Rows, fn func(MessageRow) error) (int64, error) {
	defer rows.Close()
	var n int64
	var seq, id, role, parts, meta any
	for rows.Next() {
		if err := rows.Scan(&seq, &id, &role, &parts, &meta); err != nil {
			return n, s.d.wrapErr(err)
		}
		var m MessageRow
		m.Seq = intOf(seq)
		m.ID, _ = textOf(id)
		m.Role, _ = textOf(role)
		m.Parts, m.PartsNull = textOf(parts)
		m.Metadata, m.MetadataNull = textOf(meta)
		n += int64(len(m.Parts) + len(m.Metadata))
		if err := fn(m); err != nil {
			return n, err
		}
	}
	if err := rows.Err(); err != nil {
		return n, s.d.wrapErr(err)
	}
	return n, rows.Close()
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
	return s.unmapped(ctx, func() error { return s.allMessages(ctx, q, fn) })
}

func (s *Snap) allMessages(ctx context.Context, q string, fn func(chatID string, m MessageRow) error) error {
	rows, err := s.tx.QueryContext(ctx, q)
	if err != nil {
		return s.d.wrapErr(err)
	}
	defer rows.Close()
	var chat, seq, id, role, parts, meta any
	for rows.Next() {
		if err := rows.Scan(&chat, &seq, &id, &role, &parts, &meta); err != nil {
			return s.d.wrapErr(err)
		}
		var m MessageRow
		cid, _ := textOf(chat)
		m.Seq = intOf(seq)
		m.ID, _ = textOf(id)
		m.Role, _ = textOf(role)
		m.Parts, m.PartsNull = textOf(parts)
		m.Metadata, m.MetadataNull = textOf(meta)
		if err := fn(cid, m); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return s.d.wrapErr(err)
	}
	return nil
}

// MessageCount returns the number of agentMessages rows of one chat.
func (s *Snap) MessageCount(ctx context.Context, chatID string) (int, error) {
	if !s.HasMessagesTable() {
		return 0, &NoMessagesTableError{Path: s.d.path, Version: s.schema.Version}
	}
	var n int
	err := s.tx.QueryRowContext(ctx, `SELECT count(*) FROM `+TableMessages+` WHERE agent_instance_id=?`, chatID).Scan(&n)
	if err != nil {
		return 0, s.d.wrapErr(err)
	}
	return n, nil
}

// textOf renders a scanned column value as text the way SQLite's own
// text conversion would; null is true for SQL NULL.
func textOf(v any) (s string, null bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, false
	case []byte:
		return string(x), false
	case int64:
		return strconv.FormatInt(x, 10), false
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), false
	default:
		return fmt.Sprint(x), false
	}
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
