package store

import (
	"path/filepath"
	"testing"

	"github.com/compactlab/compact/internal/sample"
)

// ChatStats counts every chat's messages and compression points in one
// pass, from the messages table or the legacy column.
func TestChatStats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "instances.sqlite")
	st, err := sample.WriteStats(path, sample.Options{Chats: 8, MessagesPerChat: 90, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	snap, err := db.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	stats, err := snap.ChatStats(t.Context(), false)
	if err != nil {
		t.Fatal(err)
	}
	msgs, points := 0, 0
	for id, s := range stats {
		n, err := snap.MessageCount(t.Context(), id)
		if err != nil || n != s.Messages {
			t.Errorf("chat %s: %d messages, MessageCount %d (%v)", id, s.Messages, n, err)
		}
		msgs += s.Messages
		points += s.Compactions
	}
	if len(stats) != 8 || msgs != st.Messages || points != st.CompressionPoints {
		t.Errorf("%d chats, %d messages, %d points; the generator wrote %+v", len(stats), msgs, points, st)
	}
	// Every fourth generated chat keeps its messages in the legacy
	// column too.
	legacy, err := snap.ChatStats(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	full := 0
	for id, s := range legacy {
		if s.Messages > 0 {
			full++
			if s.Messages != stats[id].Messages || s.Compactions != stats[id].Compactions {
				t.Errorf("chat %s: legacy %+v, messages table %+v", id, s, stats[id])
			}
		}
	}
	if full == 0 {
		t.Error("no chat with a legacy history counted")
	}
}
