package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestWALConcurrentWriter: the desktop app keeps its connection open in WAL
// mode with rows not yet checkpointed. The reader must see them, must not
// block the writer, must keep one snapshot for the whole run, and must not
// change the main database file.
func TestWALConcurrentWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "instances.sqlite")
	w := createV9(t, path)
	mustExec(t, w, `PRAGMA journal_mode=WAL`)
	mustExec(t, w, `PRAGMA wal_autocheckpoint=0`) // keep everything in the WAL
	mustExec(t, w, `PRAGMA busy_timeout=0`)       // a blocked writer fails at once
	// Checkpoint the schema into the main file, then add rows that stay in the WAL only.
	mustExec(t, w, `PRAGMA wal_checkpoint(TRUNCATE)`)
	insertChat(t, w, "c1", "First", 100, nil)
	insertMsg(t, w, "c1", 0, "user", `{"json":[]}`, nil)
	insertChat(t, w, "c2", "Second", 200, nil)

	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("expected a non-empty WAL: %v", err)
	}
	mainBefore := fileHash(t, path)

	d := openT(t, path)
	if d.Version() != 9 {
		t.Fatalf("version %d", d.Version())
	}
	s := snapT(t, d)
	cs, err := s.Chats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(chatIDs(cs), []string{"c2", "c1"}) {
		t.Fatalf("reader does not see the WAL rows: %v", chatIDs(cs))
	}

	// The writer commits while the reader's snapshot is open: not blocked.
	done := make(chan error, 1)
	go func() {
		_, err := w.Exec(`INSERT INTO agentInstances(id,type,created_at,last_message_at,active_model_id,title,queued_messages,input_state,used_tokens)
			VALUES('c3','chat',1,300,'m','Third','{"json":[]}','{"json":""}',0)`)
		if err == nil {
			_, err = w.Exec(`INSERT INTO agentMessages VALUES('c1',1,'x','assistant','{"json":[]}',NULL)`)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("writer blocked by the reader: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("writer hung")
	}

	// Same snapshot: the new rows are invisible.
	cs, err = s.Chats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := s.Messages(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || len(ms) != 1 {
		t.Fatalf("snapshot moved: %d chats, %d messages", len(cs), len(ms))
	}
	s.Close()

	// A new snapshot sees them.
	s2 := snapT(t, d)
	cs, _ = s2.Chats(ctx)
	ms, _ = s2.Messages(ctx, "c1")
	if !slices.Equal(chatIDs(cs), []string{"c3", "c2", "c1"}) || len(ms) != 2 {
		t.Fatalf("new snapshot: %v, %d messages", chatIDs(cs), len(ms))
	}
	s2.Close()
	d.Close()

	if fileHash(t, path) != mainBefore {
		t.Fatal("the reader changed the main database file")
	}
	// The writer still works after the reader is gone.
	mustExec(t, w, `INSERT INTO meta VALUES('after','1')`)
}

// TestWALCleanlyClosed: a WAL-mode database whose app is not running (no
// -wal or -shm file) opens read-only, and the main file is unchanged.
func TestWALCleanlyClosed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "instances.sqlite")
	w := createV9(t, path)
	mustExec(t, w, `PRAGMA journal_mode=WAL`)
	insertChat(t, w, "c1", "First", 100, nil)
	w.Close()
	for _, suf := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + suf); err == nil {
			t.Fatalf("%s left behind by the writer", suf)
		}
	}
	h := fileHash(t, path)
	d := openT(t, path)
	s := snapT(t, d)
	cs, err := s.Chats(ctx)
	if err != nil || len(cs) != 1 {
		t.Fatalf("%v %v", cs, err)
	}
	s.Close()
	d.Close()
	if fileHash(t, path) != h {
		t.Fatal("main file changed")
	}
}

// TestRollbackJournalWriterWaits documents the rollback-journal case: a
// writer that commits while a snapshot is open waits (busy_timeout) until
// the snapshot ends, and then succeeds.
func TestRollbackJournalWriterWaits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	w := createV9(t, path)
	mustExec(t, w, `PRAGMA busy_timeout=10000`)
	insertChat(t, w, "c1", "First", 100, nil)
	d := openT(t, path)
	s := snapT(t, d)
	if _, err := s.Chats(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.ExecContext(context.Background(), `UPDATE agentInstances SET title='x'`)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("writer did not wait for the reader's SHARED lock (err=%v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	s.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("writer still blocked after the snapshot ended")
	}
}
