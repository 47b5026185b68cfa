package extract

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/store"
	"github.com/compactlab/compact/internal/testdb"
)

// benchRows reads every chat's rows once, outside the timed loop, and
// returns them with their total size in bytes.
func benchRows(b *testing.B, path string) ([]*job, int64) {
	b.Helper()
	ctx := context.Background()
	d, err := store.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	s, err := d.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	chats, err := s.Chats(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if len(chats) > 60 { // a big database: a sample of its chats is enough
		chats = chats[:60]
	}
	var jobs []*job
	var size int64
	for i, c := range chats {
		rows, err := s.Messages(ctx, c.ID)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rows {
			size += int64(len(r.Parts) + len(r.Metadata))
		}
		jobs = append(jobs, &job{seq: i, chat: c, rows: rows})
	}
	return jobs, size
}

func benchOptions(b *testing.B, path, out string) Options {
	b.Helper()
	pack, err := prompt.Builtin("default")
	if err != nil {
		b.Fatal(err)
	}
	return Options{DBPath: path, Channel: "prerelease", Pack: pack, Locale: "en-US",
		Profile: serialize.Profiles["e3e"], OutDir: out}
}

// BenchmarkDecode measures turning a chat's raw rows into what the
// bundles need (superjson decoding of parts and metadata), in bytes of
// column text per second.
func BenchmarkDecode(b *testing.B) {
	jobs, size := benchRows(b, testdb.BenchDB(b))
	x := &extractor{opts: benchOptions(b, "", "")}
	x.setSystem()
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, j := range jobs {
			j.res = ChatResult{}
			if _, ok := x.decode(j, j.mem.scratch(len(j.rows))); !ok {
				b.Fatalf("chat %s: %v", j.chat.ID, j.res.Warnings)
			}
		}
	}
}

// BenchmarkProcess measures decoding, serializing and writing every bundle
// of a chat (no database reads), in bytes of column text per second. The
// memory goes round as in an extraction: from the second op on, it is
// the steady state.
func BenchmarkProcess(b *testing.B) {
	jobs, size := benchRows(b, testdb.BenchDB(b))
	rows := make([][]store.MessageRow, len(jobs))
	for i, j := range jobs {
		rows[i] = j.rows
	}
	dir := b.TempDir()
	x := &extractor{opts: benchOptions(b, "", "")}
	x.setSystem()
	b.SetBytes(size)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		x.staging = filepath.Join(dir, strconv.Itoa(n))
		if err := os.Mkdir(x.staging, 0o755); err != nil {
			b.Fatal(err)
		}
		for i, j := range jobs {
			j.rows = rows[i] // process lets go of them
			if j.mem == nil {
				j.mem = &chatMem{arena: history.NewOwnedArena()}
			}
			if err := x.process(j); err != nil {
				b.Fatal(err)
			}
			if err := x.write(j); err != nil {
				b.Fatal(err)
			}
			// The memory goes round, as in run: the arena for the next
			// use, the bundles' memory (j.buf) kept by the job.
			j.mem.arena.Reset()
		}
		b.StopTimer()
		os.RemoveAll(x.staging)
		b.StartTimer()
	}
}

// BenchmarkRun is the whole extraction (read, decode, write, publish),
// in bytes of database file per second.
func BenchmarkRun(b *testing.B) {
	path := testdb.BenchDB(b)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		out := filepath.Join(dir, strconv.Itoa(n), "prerelease")
		sum, err := Run(context.Background(), benchOptions(b, path, out), Hooks{})
		if err != nil {
			b.Fatal(err)
		}
		if sum.Bundles == 0 {
			b.Fatal("no bundles")
		}
		b.StopTimer()
		os.RemoveAll(filepath.Dir(out))
		b.StartTimer()
	}
}

// BenchmarkDecodeColumns splits BenchmarkDecode by column.
func BenchmarkDecodeColumns(b *testing.B) {
	jobs, _ := benchRows(b, testdb.BenchDB(b))
	var parts, meta int64
	for _, j := range jobs {
		for _, r := range j.rows {
			parts += int64(len(r.Parts))
			meta += int64(len(r.Metadata))
		}
	}
	b.Run("parts", func(b *testing.B) {
		b.SetBytes(parts)
		for b.Loop() {
			for _, j := range jobs {
				for _, r := range j.rows {
					if _, err := history.MessageFromRowLazy(r.ID, r.Role, r.Parts, "", true); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	})
	b.Run("metadata", func(b *testing.B) {
		b.SetBytes(meta)
		for b.Loop() {
			for _, j := range jobs {
				for _, r := range j.rows {
					if _, err := history.MessageFromRowLazy(r.ID, r.Role, `{"json":[]}`, r.Metadata, false); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	})
}
