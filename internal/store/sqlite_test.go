package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// textDB writes chats "small" (2 rows) and "big" (rows whose texts add up
// to more than a Text's first chunk) and returns the path.
func textDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "text.sqlite")
	w := createV9(t, path)
	insertChat(t, w, "small", "s", 2, nil)
	insertMsg(t, w, "small", 0, "user", `{"json":[{"type":"text","text":"hi"}]}`, `{"json":{}}`)
	insertMsg(t, w, "small", 1, "assistant", `{"json":[]}`, nil)
	insertChat(t, w, "big", "b", 1, nil)
	for i := range 6 {
		insertMsg(t, w, "big", i, "tool", `{"json":"`+strings.Repeat(string(rune('a'+i)), 30<<10)+`"}`, `{"json":{"n":`+string(rune('0'+i))+`}}`)
	}
	w.Close()
	return path
}

// TestMessagesIn: rows read into a Text equal the rows read on their own,
// the Text's memory is used again for the next chat, and it grows for a
// chat that does not fit.
func TestMessagesIn(t *testing.T) {
	s := snapT(t, openT(t, textDB(t)))
	var text Text
	check := func(id string) {
		t.Helper()
		want, err := s.Messages(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.MessagesIn(ctx, id, &text)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", id, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s row %d: %+v, want %+v", id, i, got[i], want[i])
			}
		}
	}
	check("small")
	if text.Size() != 64<<10 {
		t.Errorf("first chunk: %d bytes", text.Size())
	}
	check("big") // about 185 KB: a 64 KB chunk, then one of 2 x 92 KB
	if text.Size() < 180<<10 {
		t.Errorf("the text did not grow for the big chat: %d bytes", text.Size())
	}
	check("big") // one more chunk at most, of twice the chat
	size := text.Size()
	if size < 360<<10 {
		t.Errorf("the text did not grow to twice the big chat: %d bytes", size)
	}
	for _, id := range []string{"small", "big", "big", "small"} {
		check(id)
		if text.Size() != size {
			t.Errorf("%s: the text went from %d to %d bytes", id, size, text.Size())
		}
	}
	// The usual roles are not copied; others are.
	rows, _ := s.MessagesIn(ctx, "big", &text)
	if rows[0].Role != "tool" || rows[0].MetadataNull || rows[0].Metadata != `{"json":{"n":0}}` {
		t.Errorf("big row 0: %+v", rows[0].Metadata)
	}
	rows2, _ := s.MessagesIn(ctx, "small", &text)
	if rows2[1].Role != "assistant" || !rows2[1].MetadataNull {
		t.Errorf("small row 1: %+v", rows2[1])
	}
	if &rows2[0] != &rows[0] {
		t.Error("the rows of a read into a Text are not kept in the memory of the last read's")
	}
	rows = rows2
	text.Scramble()
	if rows[0].Parts == `{"json":[{"type":"text","text":"hi"}]}` {
		t.Error("Scramble left the rows' texts as they were")
	}
}

// TestCancelInterrupts: a context done during a read stops it with the
// context's error, and the snapshot reads again with a live context.
func TestCancelInterrupts(t *testing.T) {
	s := snapT(t, openT(t, textDB(t)))
	cctx, cancel := context.WithCancel(ctx)
	n := 0
	err := s.EachMessage(cctx, "big", func(MessageRow) error { n++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Fatalf("after cancel: %v, %d rows", err, n)
	}
	if _, err := s.Messages(cctx, "big"); !errors.Is(err, context.Canceled) {
		t.Fatalf("done context: %v", err)
	}
	ms, err := s.Messages(ctx, "big")
	if err != nil || len(ms) != 6 {
		t.Fatalf("live context: %d rows, %v", len(ms), err)
	}
}

// TestNestedSameQuery: a read run while the same kind of read is still
// running gets a statement of its own.
func TestNestedSameQuery(t *testing.T) {
	s := snapT(t, openT(t, textDB(t)))
	var inner []int
	err := s.EachMessage(ctx, "small", func(m MessageRow) error {
		ms, err := s.Messages(ctx, "big")
		inner = append(inner, len(ms))
		return err
	})
	if err != nil || len(inner) != 2 || inner[0] != 6 || inner[1] != 6 {
		t.Fatalf("%v %v", inner, err)
	}
	if ms, err := s.Messages(ctx, "small"); err != nil || len(ms) != 2 {
		t.Fatalf("after: %d %v", len(ms), err)
	}
}

// TestSQLiteErrors: SQLite's errors name the problem and its code, and a
// closed snapshot closes again without error.
func TestSQLiteErrors(t *testing.T) {
	s := snapT(t, openT(t, textDB(t)))
	err := s.c.exec(ctx, "SELECT nope FROM agentMessages")
	var se *sqliteError
	if !errors.As(err, &se) || se.code != 1 || err.Error() != "no such column: nope (SQLite error 1)" {
		t.Fatalf("%v", err)
	}
	if err := s.c.exec(ctx, "CREATE TABLE x(a)"); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Fatalf("write on a read-only connection: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
