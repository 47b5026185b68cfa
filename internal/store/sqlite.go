package store

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// This file is the package's whole contact with SQLite: one connection and
// its statements, called through SQLite's C API as modernc.org/sqlite/lib
// translates it to Go (the same library the database/sql driver of that
// module wraps, without cgo).
//
// The driver was two thirds of the reading time of an extraction. Per row
// it copies every text column into freshly allocated Go memory, converts
// the values for database/sql and watches the context; reading all rows of
// the 2 GB benchmark database took it about 2.7 CPU-seconds, where these
// calls take about 0.9, as long as the native sqlite3 shell. Here a row's
// text is read in place (bytes) and copied once, where the caller wants
// it.

// cmem turns an address of SQLite's memory, which the library hands out
// as a uintptr, into a pointer. That memory is not Go's: the collector
// neither moves nor frees it.
func cmem(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// sqliteError is an error SQLite reported: its result code and message.
type sqliteError struct {
	code int32 // primary result code (SQLITE_BUSY, SQLITE_NOTADB, ...)
	msg  string
}

func (e *sqliteError) Error() string {
	return e.msg + " (SQLite error " + strconv.Itoa(int(e.code)) + ")"
}

// conn is one read-only SQLite connection. It is not safe for concurrent
// use, except that a done context may interrupt it from any goroutine.
type conn struct {
	tls *libc.TLS
	// mu guards db against an interrupt racing with close, and the runs
	// an interrupt may still stop.
	mu    sync.Mutex
	db    uintptr
	runs  map[uint64]bool // statements running with a context that may be done
	nrun  uint64
	stmts map[string]*stmt // prepared statements kept for reuse
	out   uintptr          // room for one pointer an API call writes
}

// openConn opens uri (a file: URI with mode=ro) read-only; it never creates
// the file.
func openConn(uri string) (*conn, error) {
	c := &conn{tls: libc.NewTLS(), stmts: map[string]*stmt{}}
	c.out = libc.Xmalloc(c.tls, 8)
	if c.out == 0 {
		c.tls.Close()
		return nil, fmt.Errorf("sqlite: out of memory")
	}
	name, err := libc.CString(uri)
	if err != nil {
		c.close()
		return nil, err
	}
	defer libc.Xfree(c.tls, name)
	// NOMUTEX: a conn is used by one goroutine at a time; sqlite3_interrupt
	// is safe without the connection's mutex.
	flags := int32(sqlite3.SQLITE_OPEN_READONLY | sqlite3.SQLITE_OPEN_URI | sqlite3.SQLITE_OPEN_NOMUTEX)
	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, c.out, flags, 0)
	c.db = *(*uintptr)(cmem(c.out))
	if rc != sqlite3.SQLITE_OK {
		err := c.err(rc)
		c.close()
		return nil, err
	}
	return c, nil
}

// err turns a result code into an error with the connection's message.
func (c *conn) err(rc int32) error {
	msg := ""
	if c.db != 0 {
		msg = libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db))
	}
	if msg == "" || msg == "not an error" {
		msg = libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))
	}
	return &sqliteError{code: rc & 0xff, msg: msg}
}

// close finalizes the kept statements and closes the connection. It is
// safe to call more than once.
func (c *conn) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tls == nil {
		return nil
	}
	for _, s := range c.stmts {
		s.finalize()
	}
	c.stmts = nil
	var err error
	if c.db != 0 {
		if rc := sqlite3.Xsqlite3_close_v2(c.tls, c.db); rc != sqlite3.SQLITE_OK {
			err = c.err(rc)
		}
		c.db = 0
	}
	if c.out != 0 {
		libc.Xfree(c.tls, c.out)
		c.out = 0
	}
	c.tls.Close()
	c.tls = nil
	return err
}

// watch arranges for the statement about to run to be interrupted when
// ctx is done; the returned function ends the watch, after which no
// interrupt for this run can come any more (one coming late would stop a
// later statement).
func (c *conn) watch(ctx context.Context) (end func()) {
	c.mu.Lock()
	c.nrun++
	id := c.nrun
	if c.runs == nil {
		c.runs = map[uint64]bool{}
	}
	c.runs[id] = true
	c.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { c.interrupt(id) })
	return func() {
		stop()
		c.mu.Lock()
		delete(c.runs, id)
		c.mu.Unlock()
	}
}

// interrupt makes the statements running on c stop with SQLITE_INTERRUPT,
// if run id is still one of them. It runs on the goroutine that watches a
// context, so it uses a TLS of its own: a libc.TLS is not safe for
// concurrent use.
func (c *conn) interrupt(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.db != 0 && c.runs[id] {
		t := libc.NewTLS()
		sqlite3.Xsqlite3_interrupt(t, c.db)
		t.Close()
	}
}

// inTransaction reports whether c is inside a transaction (BEGIN), as
// opposed to autocommit mode, where SQLite returns after a transaction
// ended, e.g. rolled back after an error.
func (c *conn) inTransaction() bool {
	return c.db != 0 && sqlite3.Xsqlite3_get_autocommit(c.tls, c.db) == 0
}

// busyTimeout makes statements wait up to ms for a lock held by another
// connection before failing with SQLITE_BUSY.
func (c *conn) busyTimeout(ms int) error {
	if rc := sqlite3.Xsqlite3_busy_timeout(c.tls, c.db, int32(ms)); rc != sqlite3.SQLITE_OK {
		return c.err(rc)
	}
	return nil
}

// exec runs a statement that takes no parameters, ignoring any rows.
func (c *conn) exec(ctx context.Context, query string) error {
	s, err := c.prepare(query)
	if err != nil {
		return err
	}
	defer s.finalize()
	return s.each(ctx, func() error { return nil })
}

// prepare compiles one statement.
func (c *conn) prepare(query string) (*stmt, error) {
	q, err := libc.CString(query)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(c.tls, q)
	if rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, q, -1, c.out, 0); rc != sqlite3.SQLITE_OK {
		return nil, c.err(rc)
	}
	p := *(*uintptr)(cmem(c.out))
	if p == 0 { // only white space or a comment
		return nil, fmt.Errorf("sqlite: empty statement %q", query)
	}
	return &stmt{c: c, p: p}, nil
}

// query runs query with the text parameters args, calling fn at each row
// (see stmt.each). The statement is compiled once and kept prepared until
// the connection closes; a query run again while it is still running (a
// nested read of the same kind) gets a statement of its own.
func (c *conn) query(ctx context.Context, query string, args []string, fn func(*stmt) error) error {
	s := c.stmts[query]
	if s == nil || s.running {
		var err error
		if s, err = c.prepare(query); err != nil {
			return err
		}
		if c.stmts[query] == nil {
			c.stmts[query] = s
		} else {
			defer s.finalize()
		}
	}
	for i, a := range args {
		if err := s.bindText(i+1, a); err != nil {
			s.reset()
			return err
		}
	}
	s.running = true
	defer func() { s.running = false }()
	return s.each(ctx, func() error { return fn(s) })
}

// stmt is a prepared statement of a conn.
type stmt struct {
	c       *conn
	p       uintptr
	binds   []uintptr // C copies of bound texts, freed at reset
	running bool      // between the start and the end of a query
}

// bindText binds v to the parameter at index i (from 1).
func (s *stmt) bindText(i int, v string) error {
	p, err := libc.CString(v)
	if err != nil {
		return err
	}
	s.binds = append(s.binds, p)
	// SQLITE_STATIC (0): p outlives the run, it is freed at reset.
	if rc := sqlite3.Xsqlite3_bind_text(s.c.tls, s.p, int32(i), p, int32(len(v)), 0); rc != sqlite3.SQLITE_OK {
		return s.c.err(rc)
	}
	return nil
}

// each runs the statement to its end, calling fn at each row, and resets
// it. An error from fn stops the run and is returned as is. A done ctx
// interrupts the statement, and each returns ctx's error. (SQLite clears
// an interrupt when no statement is running; one that comes while an
// outer statement still runs, a nested read's, stops that one too.)
func (s *stmt) each(ctx context.Context, fn func() error) error {
	defer s.reset()
	if err := ctx.Err(); err != nil {
		return err
	}
	if ctx.Done() != nil {
		defer s.c.watch(ctx)()
	}
	for {
		switch rc := sqlite3.Xsqlite3_step(s.c.tls, s.p); rc {
		case sqlite3.SQLITE_ROW:
			if err := fn(); err != nil {
				return err
			}
			// The interrupt comes from another goroutine, some rows
			// later; a context done meanwhile stops the run here.
			if err := ctx.Err(); err != nil {
				return err
			}
		case sqlite3.SQLITE_DONE:
			return nil
		default:
			if err := ctx.Err(); err != nil {
				return err
			}
			return s.c.err(rc)
		}
	}
}

// reset makes the statement ready to run again and frees its bound texts.
func (s *stmt) reset() {
	sqlite3.Xsqlite3_reset(s.c.tls, s.p)
	sqlite3.Xsqlite3_clear_bindings(s.c.tls, s.p)
	for _, p := range s.binds {
		libc.Xfree(s.c.tls, p)
	}
	s.binds = s.binds[:0]
}

func (s *stmt) finalize() {
	if s.p == 0 {
		return
	}
	s.reset()
	sqlite3.Xsqlite3_finalize(s.c.tls, s.p)
	s.p = 0
}

// isNull reports whether column i (from 0) of the current row is NULL.
func (s *stmt) isNull(i int) bool {
	return sqlite3.Xsqlite3_column_type(s.c.tls, s.p, int32(i)) == sqlite3.SQLITE_NULL
}

// integer returns column i of the current row as an integer, as SQLite
// converts it (0 for NULL).
func (s *stmt) integer(i int) int64 {
	return sqlite3.Xsqlite3_column_int64(s.c.tls, s.p, int32(i))
}

// bytes returns column i of the current row as text, in SQLite's memory:
// valid until the statement steps or resets. NULL gives null true.
func (s *stmt) bytes(i int) (b []byte, null bool) {
	if s.isNull(i) {
		return nil, true
	}
	p := sqlite3.Xsqlite3_column_text(s.c.tls, s.p, int32(i))
	n := sqlite3.Xsqlite3_column_bytes(s.c.tls, s.p, int32(i))
	if p == 0 || n == 0 {
		return nil, false
	}
	return unsafe.Slice((*byte)(cmem(p)), n), false
}

// text returns column i of the current row as a string of its own.
func (s *stmt) text(i int) (v string, null bool) {
	b, null := s.bytes(i)
	return string(b), null
}

// value returns column i of the current row as Go sees SQLite's types:
// nil, int64, float64 or string (a BLOB as its bytes, in a string).
func (s *stmt) value(i int) any {
	switch sqlite3.Xsqlite3_column_type(s.c.tls, s.p, int32(i)) {
	case sqlite3.SQLITE_NULL:
		return nil
	case sqlite3.SQLITE_INTEGER:
		return s.integer(i)
	case sqlite3.SQLITE_FLOAT:
		return sqlite3.Xsqlite3_column_double(s.c.tls, s.p, int32(i))
	}
	v, _ := s.text(i)
	return v
}
