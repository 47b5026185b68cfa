package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var ctx = context.Background()

func openT(t *testing.T, path string) *DB {
	t.Helper()
	d, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func snapT(t *testing.T, d *DB) *Snap {
	t.Helper()
	s, err := d.Snapshot(ctx)
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func chatIDs(cs []Chat) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func TestV9FreshSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	w := createV9(t, path)
	insertChat(t, w, "c1", "Fix Button color (v2)!", 1779271200, `{"json":[{"id":"m0","role":"user","parts":[]}]}`)
	insertChat(t, w, "c2", "Older", 1779267600, nil)
	mustExec(t, w, `UPDATE agentInstances SET parent_agent_instance_id='c1' WHERE id='c2'`)
	insertMsg(t, w, "c1", 1, "assistant", `{"json":[{"type":"text","text":"b"}]}`, nil)
	insertMsg(t, w, "c1", 0, "user", `{"json":[{"type":"text","text":"a"}]}`, `{"json":{"createdAt":"2026-05-20T09:14:03.512Z"},"meta":{"values":{"createdAt":["Date"]},"v":1}}`)
	w.Close()

	d := openT(t, path)
	if d.Version() != 9 || !d.HasMessagesTable() || !d.HasHistoryColumn() || len(d.Notes()) != 0 {
		t.Fatalf("version %d messages %v history %v notes %v", d.Version(), d.HasMessagesTable(), d.HasHistoryColumn(), d.Notes())
	}
	wantCols := []string{"id", "parent_agent_instance_id", "type", "instance_config", "created_at", "last_message_at",
		"active_model_id", "title", "title_locked_by_user", "history", "queued_messages", "input_state", "used_tokens",
		"mounted_workspaces", "tool_approval_mode"}
	if got := d.Columns("agentInstances"); !slices.Equal(got, wantCols) {
		t.Fatalf("columns %v", got)
	}
	if d.Columns("nope") != nil {
		t.Fatal("columns of a missing table")
	}
	if got := d.Tables(); !slices.Equal(got, []string{"agentInstances", "agentMessages", "meta"}) {
		t.Fatalf("tables %v", got)
	}

	s := snapT(t, d)
	cs, err := s.Chats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Chat{
		{ID: "c1", Title: "Fix Button color (v2)!", LastMessageAt: 1779271200, Type: "chat"},
		{ID: "c2", Title: "Older", LastMessageAt: 1779267600, Type: "chat", ParentID: "c1"},
	}
	if !slices.Equal(cs, want) {
		t.Fatalf("chats %+v", cs)
	}
	cs, err = s.ChatsWithHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cs[0].History != `{"json":[{"id":"m0","role":"user","parts":[]}]}` || cs[1].History != `{"json":[]}` || cs[0].HistoryNull {
		t.Fatalf("history %+v", cs)
	}
	h, null, err := s.History(ctx, "c2")
	if err != nil || null || h != `{"json":[]}` {
		t.Fatalf("History: %q %v %v", h, null, err)
	}
	if _, _, err := s.History(ctx, "zz"); !errors.Is(err, ErrChatNotFound) {
		t.Fatalf("History of unknown chat: %v", err)
	}

	ms, err := s.Messages(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Seq != 0 || ms[0].ID != "c1-m0" || ms[0].Role != "user" || ms[0].MetadataNull ||
		!strings.HasPrefix(ms[0].Metadata, `{"json":{"createdAt"`) || ms[1].Seq != 1 || !ms[1].MetadataNull || ms[1].Parts != `{"json":[{"type":"text","text":"b"}]}` {
		t.Fatalf("messages %+v", ms)
	}
	ms, err = s.Messages(ctx, "c2")
	if err != nil || ms == nil || len(ms) != 0 {
		t.Fatalf("empty chat: %v %v", ms, err)
	}
	if n, err := s.MessageCount(ctx, "c1"); err != nil || n != 2 {
		t.Fatalf("count %d %v", n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestV14MigratedOrder builds a v14 database the way migrations do (ALTER
// TABLE ADD COLUMN appends), so the new columns sit at the end, plus the
// dead Feb-2026 columns.
func TestV14MigratedOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	w := createV9(t, path)
	for _, q := range []string{
		`ALTER TABLE agentInstances ADD COLUMN last_compacted_message_id TEXT`,
		`ALTER TABLE agentInstances ADD COLUMN compacted_history TEXT`,
		`ALTER TABLE agentInstances ADD COLUMN active_provider_instance_id TEXT`,
		`ALTER TABLE agentInstances ADD COLUMN side_chat_parent_id TEXT`,
		`ALTER TABLE agentInstances ADD COLUMN marked_unread INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE agentInstances RENAME COLUMN marked_unread TO unread`,
		`ALTER TABLE agentInstances ADD COLUMN archived_at INTEGER`,
		`UPDATE meta SET value='14' WHERE key='version'`,
	} {
		mustExec(t, w, q)
	}
	insertChat(t, w, "main", "Main chat", 1779300000, nil)
	insertChat(t, w, "side", "Side chat", 1779300100, nil)
	mustExec(t, w, `UPDATE agentInstances SET side_chat_parent_id='main', archived_at=1779400000, unread=1 WHERE id='side'`)
	insertMsg(t, w, "side", 0, "user", `{"json":[]}`, nil)
	w.Close()

	d := openT(t, path)
	if d.Version() != 14 {
		t.Fatalf("version %d", d.Version())
	}
	cols := d.Columns("agentInstances")
	if !slices.Equal(cols[len(cols)-4:], []string{"active_provider_instance_id", "side_chat_parent_id", "unread", "archived_at"}) {
		t.Fatalf("columns %v", cols)
	}
	s := snapT(t, d)
	cs, err := s.ChatsWithHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(chatIDs(cs), []string{"side", "main"}) || cs[0].Title != "Side chat" || cs[0].LastMessageAt != 1779300100 || cs[0].History != `{"json":[]}` {
		t.Fatalf("chats %+v", cs)
	}
	ms, err := s.Messages(ctx, "side")
	if err != nil || len(ms) != 1 {
		t.Fatalf("%v %v", ms, err)
	}
}

// TestExtraColumnsAndOddLayout: unknown columns before and between the
// known ones, no history column, no metadata column, a NULL title.
func TestExtraColumnsAndOddLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	w := rwOpen(t, path)
	mustExec(t, w, `CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)`)
	mustExec(t, w, `INSERT INTO meta VALUES('version','99')`)
	mustExec(t, w, `CREATE TABLE agentInstances(zzz BLOB, last_message_at INTEGER, extra TEXT, title TEXT, id TEXT PRIMARY KEY)`)
	mustExec(t, w, `CREATE INDEX agentInstances_last_message_at_index ON agentInstances(last_message_at)`)
	mustExec(t, w, `CREATE TABLE agentMessages(future TEXT, parts TEXT, role TEXT, message_id TEXT, seq INTEGER, agent_instance_id TEXT, PRIMARY KEY(agent_instance_id, seq))`)
	mustExec(t, w, `INSERT INTO agentInstances(zzz,last_message_at,extra,title,id) VALUES(x'00',5,'e',NULL,'a'),(NULL,7,'f','Seven','b')`)
	mustExec(t, w, `INSERT INTO agentMessages VALUES('f','{"json":[1]}','user','m1',1,'a'),('g','{"json":[0]}','assistant','m0',0,'a')`)
	w.Close()

	d := openT(t, path)
	if d.Version() != 99 || d.HasHistoryColumn() {
		t.Fatalf("version %d history %v", d.Version(), d.HasHistoryColumn())
	}
	s := snapT(t, d)
	cs, err := s.Chats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Chat{{ID: "b", Title: "Seven", LastMessageAt: 7}, {ID: "a", TitleNull: true, LastMessageAt: 5}}
	if !slices.Equal(cs, want) {
		t.Fatalf("chats %+v", cs)
	}
	if _, err := s.ChatsWithHistory(ctx); !errors.Is(err, ErrNoHistoryColumn) {
		t.Fatalf("ChatsWithHistory without the column: %v", err)
	}
	if _, _, err := s.History(ctx, "a"); !errors.Is(err, ErrNoHistoryColumn) {
		t.Fatalf("History without the column: %v", err)
	}
	ms, err := s.Messages(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	want2 := []MessageRow{
		{Seq: 0, ID: "m0", Role: "assistant", Parts: `{"json":[0]}`, MetadataNull: true},
		{Seq: 1, ID: "m1", Role: "user", Parts: `{"json":[1]}`, MetadataNull: true},
	}
	if !slices.Equal(ms, want2) {
		t.Fatalf("messages %+v", ms)
	}
}

func TestSchemaVersionNotes(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, setup string
		note        string
	}{
		{"nometa", ``, "no meta table"},
		{"nokey", `CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES('other','1')`, "no 'version' key"},
		{"junk", `CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES('version','nine')`, "not an integer"},
		{"null", `CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES('version',NULL)`, "NULL"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name+".sqlite")
		w := rwOpen(t, path)
		mustExec(t, w, `CREATE TABLE agentInstances(id TEXT PRIMARY KEY, title TEXT, last_message_at INTEGER, history TEXT)`)
		if c.setup != "" {
			for _, q := range strings.Split(c.setup, ";") {
				mustExec(t, w, q)
			}
		}
		w.Close()
		d := openT(t, path)
		if d.Version() != 0 || len(d.Notes()) != 1 || !strings.Contains(d.Notes()[0], c.note) {
			t.Errorf("%s: version %d notes %q", c.name, d.Version(), d.Notes())
		}
		// No messages table at version 0.
		s := snapT(t, d)
		_, err := s.Messages(ctx, "x")
		var nm *NoMessagesTableError
		if !errors.Is(err, ErrNoMessagesTable) || !errors.As(err, &nm) || nm.Version != 0 {
			t.Errorf("%s: Messages: %v", c.name, err)
		}
	}
}

func TestNoMessagesTableV6(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v6.sqlite")
	w := rwOpen(t, path)
	mustExec(t, w, v9DDL[0])
	mustExec(t, w, `INSERT INTO meta VALUES('version','6')`)
	mustExec(t, w, `CREATE TABLE agentInstances(id TEXT PRIMARY KEY, type TEXT NOT NULL, title TEXT NOT NULL, last_message_at INTEGER NOT NULL, history TEXT)`)
	mustExec(t, w, `INSERT INTO agentInstances VALUES('a','chat','T',1,NULL)`)
	w.Close()
	d := openT(t, path)
	if d.HasMessagesTable() || d.Version() != 6 {
		t.Fatal("v6")
	}
	s := snapT(t, d)
	_, err := s.Messages(ctx, "a")
	if !errors.Is(err, ErrNoMessagesTable) || !strings.Contains(err.Error(), "schema version 6") || !strings.Contains(err.Error(), "version 7") {
		t.Fatalf("Messages: %v", err)
	}
	if err := s.EachMessage(ctx, "a", func(MessageRow) error { return nil }); !errors.Is(err, ErrNoMessagesTable) {
		t.Fatalf("EachMessage: %v", err)
	}
	if _, err := s.MessageCount(ctx, "a"); !errors.Is(err, ErrNoMessagesTable) {
		t.Fatalf("MessageCount: %v", err)
	}
	h, null, err := s.History(ctx, "a")
	if err != nil || !null || h != "" {
		t.Fatalf("NULL history: %q %v %v", h, null, err)
	}
	cs, err := s.ChatsWithHistory(ctx)
	if err != nil || len(cs) != 1 || !cs[0].HistoryNull {
		t.Fatalf("%+v %v", cs, err)
	}
}

func TestNotADatabase(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notDB := write("notes.txt", []byte("hello, this is plainly not a database file at all\n"))
	empty := write("empty.sqlite", nil)
	short := write("short.sqlite", []byte("SQLite format"))
	// a valid header followed by garbage
	garbage := write("garbage.sqlite", append([]byte("SQLite format 3\x00"), make([]byte, 4096)...))
	noTables := filepath.Join(dir, "notables.sqlite")
	w := rwOpen(t, noTables)
	mustExec(t, w, `PRAGMA user_version=7`)
	w.Close()
	otherDB := filepath.Join(dir, "other.sqlite")
	w = rwOpen(t, otherDB)
	mustExec(t, w, `CREATE TABLE things(a)`)
	w.Close()

	cases := map[string]string{
		notDB:    "bad header",
		empty:    "empty (0 bytes)",
		short:    "bad header",
		garbage:  "",
		noTables: "no tables",
		otherDB:  "no agentInstances table",
		dir:      "directory",
	}
	for p, want := range cases {
		before, _ := os.ReadFile(p)
		_, err := Open(p)
		if err == nil {
			t.Errorf("%s: no error", p)
			continue
		}
		if !errors.Is(err, ErrNotAgentDB) {
			t.Errorf("%s: %v does not wrap ErrNotAgentDB", p, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, p+" is not a stagewise agent database: ") || !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: message %q", p, msg)
		}
		if after, _ := os.ReadFile(p); string(after) != string(before) {
			t.Errorf("%s: file changed", p)
		}
	}
}

func TestMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope", "instances.sqlite")
	_, err := Open(p)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), p) {
		t.Fatalf("%v", err)
	}
	if _, err := os.Stat(filepath.Dir(p)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("Open created something")
	}
}

// TestOddPathNames: characters that mean something in a URI.
func TestOddPathNames(t *testing.T) {
	base := t.TempDir()
	for _, name := range []string{"a #b?c%d e.sqlite", "50%25 off?mode=rw&x=1.sqlite", "ünï cödé+plus;semi=eq.sqlite", "file:colon.sqlite"} {
		dir := filepath.Join(base, "dir #?% "+name[:1])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		w := createV9(t, p)
		insertChat(t, w, "only", name, 1, nil)
		w.Close()
		h := fileHash(t, p)
		d := openT(t, p)
		s := snapT(t, d)
		cs, err := s.Chats(ctx)
		if err != nil || len(cs) != 1 || cs[0].Title != name {
			t.Fatalf("%s: %+v %v", name, cs, err)
		}
		s.Close()
		d.Close()
		if fileHash(t, p) != h {
			t.Fatalf("%s: file changed", name)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Fatalf("%s: stray files %v", name, entries)
		}
	}
	// relative path
	wd, _ := os.Getwd()
	defer os.Chdir(wd) //nolint:errcheck
	if err := os.Chdir(base); err != nil {
		t.Fatal(err)
	}
	w := createV9(t, filepath.Join(base, "rel #1.sqlite"))
	w.Close()
	d, err := Open("rel #1.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
}

func TestURI(t *testing.T) {
	got, err := URI("/tmp/a #b?c%d e.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	want := "file:/tmp/a%20%23b%3Fc%25d%20e.sqlite?mode=ro"
	if got != want {
		t.Fatalf("URI\n got %s\nwant %s", got, want)
	}
	if strings.Contains(got, "immutable") {
		t.Fatal("immutable")
	}
}

// TestTieOrder: equal last_message_at come out in descending rowid order,
// the way SQLite walks the last_message_at index backwards.
func TestTieOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ties.sqlite")
	w := createV9(t, path)
	// rowids 1..8; ids deliberately not in rowid order
	rows := []struct {
		id string
		at int64
	}{{"m", 100}, {"b", 300}, {"z", 300}, {"a", 200}, {"c", 300}, {"y", 100}, {"d", 300}, {"x", 400}}
	for _, r := range rows {
		insertChat(t, w, r.id, "T "+r.id, r.at, nil)
	}
	w.Close()
	d := openT(t, path)
	s := snapT(t, d)
	for _, withHistory := range []bool{false, true} {
		var got []string
		if err := s.EachChat(ctx, withHistory, func(c Chat) error { got = append(got, c.ID); return nil }); err != nil {
			t.Fatal(err)
		}
		want := []string{"x", "d", "c", "z", "b", "a", "y", "m"}
		if !slices.Equal(got, want) {
			t.Fatalf("withHistory=%v: got %v want %v", withHistory, got, want)
		}
	}
}

// TestNestedReads: reading messages while iterating chats on one snapshot.
func TestNestedReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested.sqlite")
	w := createV9(t, path)
	for i, id := range []string{"a", "b", "c"} {
		insertChat(t, w, id, id, int64(i), nil)
		for j := 0; j <= i; j++ {
			insertMsg(t, w, id, j, "user", `{"json":[]}`, nil)
		}
	}
	w.Close()
	d := openT(t, path)
	s := snapT(t, d)
	counts := map[string]int{}
	err := s.EachChat(ctx, true, func(c Chat) error {
		ms, err := s.Messages(ctx, c.ID)
		if err != nil {
			return err
		}
		if _, _, err := s.History(ctx, c.ID); err != nil {
			return err
		}
		counts[c.ID] = len(ms)
		return nil
	})
	if err != nil || counts["a"] != 1 || counts["b"] != 2 || counts["c"] != 3 {
		t.Fatalf("%v %v", counts, err)
	}
	stop := errors.New("stop")
	n := 0
	if err := s.AllMessages(ctx, func(string, MessageRow) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("AllMessages stop: %v %d", err, n)
	}
	var all []string
	if err := s.AllMessages(ctx, func(c string, m MessageRow) error { all = append(all, c+m.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(all, []string{"aa-m0", "bb-m0", "bb-m1", "cc-m0", "cc-m1", "cc-m2"}) {
		t.Fatalf("AllMessages %v", all)
	}
}

// TestTieOrderWithoutIndex: a broken database without the
// last_message_at index sorts with a temp B-tree; ties then come out in
// ascending rowid order. The sqlite3 3.40.1 CLI the upstream script runs
// gives the same order for this query (checked by hand).
func TestTieOrderWithoutIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "noindex.sqlite")
	w := createV9(t, path)
	mustExec(t, w, `DROP INDEX agentInstances_last_message_at_index`)
	for _, r := range []struct {
		id string
		at int64
	}{{"m", 100}, {"b", 300}, {"z", 300}, {"a", 200}, {"c", 300}, {"y", 100}, {"d", 300}, {"x", 400}} {
		insertChat(t, w, r.id, r.id, r.at, nil)
	}
	w.Close()
	s := snapT(t, openT(t, path))
	cs, err := s.Chats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := chatIDs(cs); !slices.Equal(got, []string{"x", "b", "z", "c", "d", "a", "m", "y"}) {
		t.Fatalf("got %v", got)
	}
}

// TestQueryPlans guards the plans the tie order and the memory bound rely
// on: the chat list walks the last_message_at index, and a chat's
// messages come from the primary-key index without a sorter.
func TestQueryPlans(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plans.sqlite")
	createV9(t, path).Close()
	s := snapT(t, openT(t, path))
	plan := func(q string, args ...string) string {
		var out []string
		err := s.c.query(ctx, "EXPLAIN QUERY PLAN "+q, args, func(st *stmt) error {
			detail, _ := st.text(3)
			out = append(out, detail)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, "; ")
	}
	for _, withHistory := range []bool{false, true} {
		q, err := s.chatQuery(withHistory)
		if err != nil {
			t.Fatal(err)
		}
		if p := plan(q); !strings.Contains(p, "USING INDEX agentInstances_last_message_at_index") || strings.Contains(p, "TEMP B-TREE") {
			t.Errorf("chat query plan: %s", p)
		}
	}
	q, _ := s.messageSelect()
	if p := plan(q+" WHERE agent_instance_id=? ORDER BY seq", "x"); !strings.Contains(p, "sqlite_autoindex_agentMessages_1") || strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("messages query plan: %s", p)
	}
	if p := plan(strings.Replace(q, "SELECT ", "SELECT agent_instance_id, ", 1) + " ORDER BY agent_instance_id, seq"); strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("all-messages query plan: %s", p)
	}
}
