package store

import (
	"os"
	"testing"

	"github.com/compactlab/compact/internal/testdb"
)

// benchDB returns testdb.BenchDB's database and its size.
func benchDB(b *testing.B) (string, int64) {
	b.Helper()
	p := testdb.BenchDB(b)
	fi, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	return p, fi.Size()
}

// BenchmarkReadPerChat: the extraction's access pattern, Chats then one
// query per chat (EachMessage).
func BenchmarkReadPerChat(b *testing.B) {
	path, size := benchDB(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		d, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		s, err := d.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		chats, err := s.Chats(ctx)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, c := range chats {
			err := s.EachMessage(ctx, c.ID, func(m MessageRow) error { n += len(m.Parts) + len(m.Metadata); return nil })
			if err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
		d.Close()
		if n == 0 {
			b.Fatal("nothing read")
		}
	}
}

// BenchmarkReadAllMessages: one query over all rows ordered by
// (agent_instance_id, seq).
func BenchmarkReadAllMessages(b *testing.B) {
	path, size := benchDB(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		d, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		s, err := d.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := s.AllMessages(ctx, func(_ string, m MessageRow) error { n += len(m.Parts) + len(m.Metadata); return nil }); err != nil {
			b.Fatal(err)
		}
		s.Close()
		d.Close()
		if n == 0 {
			b.Fatal("nothing read")
		}
	}
}

// BenchmarkReadHistory: the history source, streamed (EachChat with the
// history column).
func BenchmarkReadHistory(b *testing.B) {
	path, size := benchDB(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		d, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		s, err := d.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := s.EachChat(ctx, true, func(c Chat) error { n += len(c.History); return nil }); err != nil {
			b.Fatal(err)
		}
		s.Close()
		d.Close()
		if n == 0 {
			b.Fatal("nothing read")
		}
	}
}
