package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/testdb"
)

// TestDamagedChatPage: a damaged leaf page holding one chat's rows fails
// the read of that chat alone, with a *DamagedError naming it; the
// snapshot stays open, the statement is reused, the other chats read as
// from the clean file, the mapping keeps being remapped, and the damaged
// chat fails the same way when read again.
func TestDamagedChatPage(t *testing.T) {
	smallWindow(t)
	clean := mappedDB(t, 4)
	damaged := testdb.DamagedCopy(t, clean)
	page, _ := testdb.ChatLeafPage(t, damaged, TableMessages, "agent_instance_id", "c1")
	testdb.FlipPageByte(t, damaged, page, testdb.BTreeHeader(page))

	want := map[string][]MessageRow{}
	cs := snapT(t, openT(t, clean))
	for c := range 4 {
		id := fmt.Sprintf("c%d", c)
		rows, err := cs.Messages(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want[id] = rows
	}

	s := snapT(t, openT(t, damaged))
	limit, err := s.MappedLimit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	chats, err := s.Chats(ctx)
	if err != nil || len(chats) != 4 {
		t.Fatalf("Chats: %d, %v", len(chats), err)
	}
	var text Text
	for round := range 3 {
		for c := range 4 {
			id := fmt.Sprintf("c%d", c)
			rows, err := s.MessagesIn(ctx, id, &text)
			if id != "c1" {
				if err != nil {
					t.Fatalf("round %d, %s after the damaged chat: %v", round, id, err)
				}
				if !slices.Equal(rows, want[id]) {
					t.Errorf("round %d, %s: rows differ from the clean file's", round, id)
				}
				continue
			}
			var de *DamagedError
			if !errors.As(err, &de) || rows != nil {
				t.Fatalf("round %d, %s: %d rows, %v; want a DamagedError", round, id, len(rows), err)
			}
			if !errors.Is(err, ErrDamaged) || errors.Is(err, ErrNotAgentDB) {
				t.Errorf("%v: errors.Is ErrDamaged %v, ErrNotAgentDB %v; want true, false", err, errors.Is(err, ErrDamaged), errors.Is(err, ErrNotAgentDB))
			}
			if de.ChatID != "c1" || de.Code != "SQLITE_CORRUPT" || de.Path != damaged {
				t.Errorf("%+v", de)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "chat c1: its rows cannot be read: "+damaged+" is damaged (SQLITE_CORRUPT: ") || strings.Contains(msg, "\n") {
				t.Errorf("message %q", msg)
			}
			if !s.c.inTransaction() {
				t.Fatal("the read transaction ended after the damaged chat")
			}
			if err := s.EachMessage(ctx, id, func(MessageRow) error { return nil }); !errors.Is(err, ErrDamaged) {
				t.Errorf("EachMessage: %v", err)
			}
		}
	}
	// The mapping is still remapped between chats (mmap_size alternates).
	n, err := s.MappedLimit(ctx)
	if err != nil || (n != limit && n != limit-1) {
		t.Errorf("mmap_size %d, %v; want %d or %d", n, err, limit, limit-1)
	}
	if _, err := s.Messages(ctx, "c0"); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.MappedLimit(ctx); limit > 1 && m == n {
		t.Errorf("mmap_size stayed %d: no remap after the damaged chat", m)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestDamagedHistoryOverflow: a damaged overflow page of one chat's
// history column fails History for that chat alone; the chat list, which
// does not read the column, is unharmed.
func TestDamagedHistoryOverflow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	w := createV9(t, path)
	insertChat(t, w, "a", "A", 2, `{"json":[]}`)
	insertChat(t, w, "b", "B", 1, `{"json":["`+strings.Repeat("x", 100_000)+`"]}`)
	w.Close()
	// The last pages of the file are the overflow pages of b's history:
	// the one before the last points past the end of the file.
	testdb.FlipPageByte(t, path, testdb.LastPage(t, path)-1, 0)

	s := snapT(t, openT(t, path))
	if chats, err := s.Chats(ctx); err != nil || len(chats) != 2 {
		t.Fatalf("Chats: %d %v", len(chats), err)
	}
	_, _, err := s.History(ctx, "b")
	var de *DamagedError
	if !errors.As(err, &de) || de.ChatID != "b" {
		t.Fatalf("History(b): %v; want a DamagedError about b", err)
	}
	if h, _, err := s.History(ctx, "a"); err != nil || h != `{"json":[]}` {
		t.Fatalf("History(a) after b: %q %v", h, err)
	}
}

// TestDamagedSchema: a damaged schema page fails Open with one line saying
// the file is damaged and how to recover what is left; errors.Is
// ErrNotAgentDB and ErrDamaged.
func TestDamagedSchema(t *testing.T) {
	path := mappedDB(t, 1)
	testdb.FlipPageByte(t, path, 1, testdb.BTreeHeader(1))
	_, err := Open(path)
	if !errors.Is(err, ErrDamaged) || !errors.Is(err, ErrNotAgentDB) {
		t.Fatalf("Open: %v; want a DamagedError about the whole file", err)
	}
	want := path + " is damaged (SQLITE_CORRUPT: "
	if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.HasSuffix(msg, "; sqlite3 "+path+" .recover > recovered.sql can save what is left") || strings.Contains(msg, "\n") {
		t.Errorf("message %q", msg)
	}
}

func TestRecoverHintQuotes(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b/instances.sqlite":  "/a/b/instances.sqlite",
		"/a b/it's.sqlite":       `'/a b/it'\''s.sqlite'`,
		"C:/Users/x/inst.sqlite": "C:/Users/x/inst.sqlite",
		"/a/$(rm -rf)/db.sqlite": "'/a/$(rm -rf)/db.sqlite'",
		"":                       "''",
	} {
		if got := RecoverHint(in); got != "sqlite3 "+want+" .recover > recovered.sql can save what is left" {
			t.Errorf("RecoverHint(%q) = %q", in, got)
		}
	}
}
