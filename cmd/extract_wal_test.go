package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/iostreams"
)

// TestExtractWALWriter: the desktop app has the database open in WAL mode
// with committed rows not yet checkpointed, and even holds an open write
// transaction. The extraction sees the committed rows and nothing else,
// never blocks the writer, and leaves the main database file's bytes as
// they were.
func TestExtractWALWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	w := xtOpenRW(t, path)
	for _, q := range []string{xtSchemaV9, `PRAGMA journal_mode=WAL`, `PRAGMA wal_autocheckpoint=0`, `PRAGMA busy_timeout=0`} {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	xtInsert(t, w, xtChat{id: "main", title: "In the main file", lastAt: 10, rows: xtConvo(8, 4)})
	if _, err := w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	// Committed, in the WAL only.
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	xtInsert(t, tx, xtChat{id: "wal", title: "Only in the WAL", lastAt: 20, rows: xtConvo(8, 4)})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("want a non-empty WAL: %v", err)
	}
	mainHash := xtSHA(t, path)

	// An open write transaction with an uncommitted chat.
	open, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	xtInsert(t, open, xtChat{id: "pending", title: "Uncommitted", lastAt: 30, rows: xtConvo(8, 4)})

	out := xtOut(t)
	r := xtExtract(t, path, out)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	want := []string{"001-only-in-the-wal/", "001-only-in-the-wal/compression-001/", "002-in-the-main-file/", "002-in-the-main-file/compression-001/"}
	if got := xtDirs(xtTree(t, out)); !slices.Equal(got, want) {
		t.Errorf("directories %v, want %v (the WAL rows, not the uncommitted ones)", got, want)
	}
	if err := open.Commit(); err != nil {
		t.Fatalf("the writer cannot commit after the extraction: %v", err)
	}

	// Commits while an extraction runs are never blocked (busy_timeout=0
	// fails at once on a lock).
	done := make(chan xtResult, 1)
	out2 := xtOut(t)
	go func() {
		io, _, stdout, stderr := iostreams.Test()
		code := RunEnv(io, []string{"extract", "--db", path, "--out", out2}, func(string) string { return "" })
		done <- xtResult{code, stdout.String(), stderr.String()}
	}()
	commits := 0
	deadline := time.After(60 * time.Second)
loop:
	for {
		select {
		case r := <-done:
			if r.code != 0 {
				t.Fatalf("extraction during commits: exit %d\n%s", r.code, r.stderr)
			}
			break loop
		case <-deadline:
			t.Fatal("extraction hung")
		default:
		}
		tx, err := w.BeginTx(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		xtInsert(t, tx, xtChat{id: fmt.Sprintf("during-%d", commits), title: "During", lastAt: 1, rows: xtConvo(2)})
		if err := tx.Commit(); err != nil {
			t.Fatalf("commit %d blocked by the extraction: %v", commits, err)
		}
		commits++
	}
	if commits == 0 {
		t.Log("the extraction finished before the first commit")
	}
	if got := xtSHA(t, path); got != mainHash {
		t.Errorf("the main database file changed (sha256 %s, was %s)", got, mainHash)
	}
}

// TestExtractInterruptLeavesNothing: an interrupt (Ctrl-C) in the middle of
// a run stops it with exit status 1 and removes its staging directory; no
// partial output is left.
func TestExtractInterruptLeavesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a process cannot send itself an interrupt on Windows")
	}
	// 200 chats of 24 messages with 2 briefings each, generated inside
	// SQLite (row-by-row inserts are slow under -race).
	db := xtWriteDB(t, xtSchemaV9)
	w := xtOpenRW(t, db)
	for _, q := range []string{
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 199)
		INSERT INTO agentInstances(id, type, created_at, last_message_at, active_model_id, title, queued_messages, input_state, used_tokens)
		SELECT printf('c%03d', i), 'chat', 1, 1000-i, 'claude-sonnet-4.6', printf('Chat %d', i), '{"json":[]}', '{"json":""}', 0 FROM n`,
		`WITH RECURSIVE s(j) AS (SELECT 0 UNION ALL SELECT j+1 FROM s WHERE j < 23)
		INSERT INTO agentMessages(agent_instance_id, seq, message_id, role, parts, metadata)
		SELECT a.id, s.j, 'm' || s.j, CASE WHEN s.j % 2 = 0 THEN 'user' ELSE 'assistant' END,
			'{"json":[{"type":"text","text":"turn ' || s.j || '"}]}',
			CASE WHEN s.j IN (8, 16) THEN '{"json":{"compressedHistory":"## Briefing"}}' ELSE '{"json":{}}' END
		FROM agentInstances a, s`,
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The test's own registration keeps the test process alive whatever
	// the command does with the signal.
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)

	out := xtOut(t)
	parent := filepath.Dir(out)
	done := make(chan xtResult, 1)
	go func() {
		io, _, stdout, stderr := iostreams.Test()
		code := RunEnv(io, []string{"extract", "--db", db, "--out", out, "--workers", "1"}, func(string) string { return "" })
		done <- xtResult{code, stdout.String(), stderr.String()}
	}()
	staging := func() bool {
		entries, _ := os.ReadDir(parent)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".partial-") {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(30 * time.Second)
	for !staging() {
		select {
		case r := <-done:
			t.Skipf("the run finished (exit %d) before it could be interrupted", r.code)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no staging directory appeared")
		}
		time.Sleep(200 * time.Microsecond)
	}
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := self.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var r xtResult
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the interrupted run did not stop")
	}
	if r.code != 130 {
		t.Fatalf("exit %d after an interrupt, want 130\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	xtOneLineError(t, r, "interrupted")
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("output directory exists after an interrupted run")
	}
	xtNoStaging(t, parent)
}

// TestExtractWALWithoutWriter: a WAL-mode database whose app is gone, either
// closed cleanly or killed with committed rows left in the -wal file: the
// extraction sees every committed row and leaves the main file as it was.
func TestExtractWALWithoutWriter(t *testing.T) {
	for _, crashed := range []bool{false, true} {
		t.Run(map[bool]string{false: "closed", true: "crashed"}[crashed], func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "instances.sqlite")
			w := xtOpenRW(t, path)
			for _, q := range []string{xtSchemaV9, `PRAGMA journal_mode=WAL`, `PRAGMA wal_autocheckpoint=0`} {
				if _, err := w.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			xtInsert(t, w, xtChat{id: "a", title: "Checkpointed", lastAt: 1, rows: xtConvo(8, 4)})
			if _, err := w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				t.Fatal(err)
			}
			xtInsert(t, w, xtChat{id: "b", title: "In the WAL", lastAt: 2, rows: xtConvo(8, 4)})
			db := path
			if crashed {
				// The files as a killed app leaves them: main, -wal, -shm.
				crash := t.TempDir()
				for _, suffix := range []string{"", "-wal", "-shm"} {
					data, err := os.ReadFile(path + suffix)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(crash, "instances.sqlite"+suffix), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				db = filepath.Join(crash, "instances.sqlite")
			} else if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			before := xtSHA(t, db)
			out := xtOut(t)
			r := xtExtract(t, db, out)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if r.stdout != xtSummaryLine(2, 2, 0, out) {
				t.Errorf("stdout %q, want both chats", r.stdout)
			}
			if xtSHA(t, db) != before {
				t.Errorf("the main database file changed")
			}
		})
	}
}
