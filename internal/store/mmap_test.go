package store

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// smallWindow makes every read of a chat remap the file, for the test's
// duration.
func smallWindow(t *testing.T) {
	old := mmapWindow
	mmapWindow = 1
	t.Cleanup(func() { mmapWindow = old })
}

// mappedDB writes chats c0..c(n-1), each with rows big enough to spill
// into overflow pages.
func mappedDB(t *testing.T, n int) string {
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	w := createV9(t, path)
	for c := range n {
		id := fmt.Sprintf("c%d", c)
		insertChat(t, w, id, "Chat "+id, int64(100+c), nil)
		for seq := range 3 {
			text := strings.Repeat(fmt.Sprintf("%s row %d ", id, seq), 1500) // ~20 KB
			insertMsg(t, w, id, seq, "user", `{"json":[{"type":"text","text":"`+text+`"}]}`, `{"json":{}}`)
		}
	}
	return path
}

// TestMappedReadsRemap: a snapshot reads rows through a memory mapping
// and, every mmapWindow bytes, remaps (mmap_size alternates between the
// limit and one less); the chat list and AllMessages read with the
// mapping off and leave it as it was; the rows are the same every way.
func TestMappedReadsRemap(t *testing.T) {
	smallWindow(t)
	path := mappedDB(t, 4)
	d := openT(t, path)
	s := snapT(t, d)
	limit, err := s.MappedLimit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if limit <= 1 {
		t.Skipf("SQLite maps nothing here (mmap_size %d)", limit)
	}
	chats, err := s.Chats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := s.MappedLimit(ctx); n != limit || len(chats) != 4 {
		t.Fatalf("after Chats: mmap_size %d (want %d), %d chats", n, limit, len(chats))
	}
	var mapped []MessageRow
	var limits []int64
	for c := range 4 {
		rows, err := s.Messages(ctx, fmt.Sprintf("c%d", c))
		if err != nil {
			t.Fatal(err)
		}
		mapped = append(mapped, rows...)
		n, err := s.MappedLimit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		limits = append(limits, n)
	}
	if want := []int64{limit - 1, limit, limit - 1, limit}; !slices.Equal(limits, want) {
		t.Errorf("mmap_size after each chat %v, want %v", limits, want)
	}
	var all []MessageRow
	if err := s.AllMessages(ctx, func(_ string, m MessageRow) error { all = append(all, m); return nil }); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.MappedLimit(ctx); n != limit {
		t.Errorf("mmap_size after AllMessages %d, want %d", n, limit)
	}
	if len(all) != 12 || !slices.Equal(all, mapped) {
		t.Fatalf("mapped reads differ from unmapped ones (%d and %d rows)", len(mapped), len(all))
	}
}

// TestWALCheckpointDuringMappedSnapshot: while a snapshot reads through
// the mapping and remaps between chats, the app commits and checkpoints
// into the main file; the snapshot keeps seeing its own rows.
func TestWALCheckpointDuringMappedSnapshot(t *testing.T) {
	smallWindow(t)
	path := mappedDB(t, 3)
	w := rwOpen(t, path)
	mustExec(t, w, `PRAGMA journal_mode=WAL`)
	mustExec(t, w, `PRAGMA wal_autocheckpoint=0`)
	insertMsg(t, w, "c0", 3, "assistant", `{"json":[]}`, nil) // in the WAL only

	d := openT(t, path)
	s := snapT(t, d)
	read := func() (texts []string) {
		for _, c := range []string{"c0", "c1", "c2"} {
			rows, err := s.Messages(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				texts = append(texts, r.Parts)
			}
		}
		return texts
	}
	before := read()
	if len(before) != 10 {
		t.Fatalf("snapshot sees %d rows, want 10 (9 in the file, 1 in the WAL)", len(before))
	}
	// The app rewrites rows, adds one and checkpoints as far as it may.
	mustExec(t, w, `UPDATE agentMessages SET parts='{"json":[]}' WHERE agent_instance_id='c1'`)
	insertMsg(t, w, "c2", 3, "assistant", `{"json":[]}`, nil)
	mustExec(t, w, `PRAGMA wal_checkpoint(PASSIVE)`)
	if after := read(); !slices.Equal(after, before) {
		t.Fatalf("snapshot moved: %d rows, then %d", len(before), len(after))
	}
	s.Close()
	d.Close()
}
