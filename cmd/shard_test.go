package cmd

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/sample"
	"github.com/compactlab/compact/internal/testfiles"
)

// Tests of --shard K/N and --sample N (cmd/shardflags.go, internal/shard):
// the union of the N shards' outputs is one unsharded run's, byte for
// byte, for several N; a sample's shards cover the sample; bad flags are
// one line and exit 2.

// shardChats is the size of shardDB: small, for the race detector.
const shardChats = 12

// shardShared is a generated database of shardChats chats of 90
// messages (one or two compression points each) and its unsharded
// extraction, made once for the tests that only read them (two tests
// made both each) and removed by TestMain.
var shardShared struct {
	once      sync.Once
	dir       string
	db, whole string
	err       error
}

// shardDB returns the path of shardShared's database and of its
// unsharded extraction.
func shardDB(t *testing.T) (db, whole string) {
	t.Helper()
	s := &shardShared
	s.once.Do(func() {
		if s.dir, s.err = os.MkdirTemp("", "cmd-shard-"); s.err != nil {
			return
		}
		s.db, s.whole = filepath.Join(s.dir, "instances.sqlite"), filepath.Join(s.dir, "whole")
		if s.err = sample.Write(s.db, sample.Options{Chats: shardChats, MessagesPerChat: 90, Seed: 5}); s.err != nil {
			return
		}
		streams, _, _, errOut := iostreams.Test()
		if code := RunEnv(streams, []string{"extract", "--db", s.db, "--out", s.whole}, func(string) string { return "" }); code != 0 {
			s.err = fmt.Errorf("extract: exit %d: %s", code, errOut)
		}
	})
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.db, s.whole
}

// shardNs are the numbers of shards whose union is checked: 2 and 5;
// under the race detector 5 alone, whose five shards check what two do
// (each chat in exactly one, byte for byte) with the work of one
// unsharded run, on one goroutine a run.
func shardNs() []int {
	if testfiles.Race {
		return []int{5}
	}
	return []int{2, 5}
}

// chatTree reads an extract output as chat id -> the chat directory's
// files (the slug after NNN-, then each file under it) -> their bytes:
// what must be equal between runs whatever the directories' numbers.
func chatTree(t *testing.T, root string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	chats, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chats {
		dir := filepath.Join(root, c.Name())
		files := map[string]string{}
		id := ""
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			files[rel] = string(data)
			if d.Name() == bundle.FileMetadata {
				md, err := bundle.ParseMetadata(data)
				if err != nil {
					return err
				}
				// An agent's bundles: two files may hold the same
				// session (a copy, a rewind), each its own chat.
				var af struct{ SessionFile string }
				_ = json.Unmarshal(data, &af)
				id = md.ChatID + "|" + af.SessionFile
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if id == "" || id == "|" {
			t.Fatalf("%s: no bundle with a chat id", dir)
		}
		if _, dup := out[id]; dup {
			t.Fatalf("%s: chat %s twice", root, id)
		}
		_, slug, _ := strings.Cut(c.Name(), "-")
		files["(slug)"] = slug
		out[id] = files
	}
	return out
}

// unionOf merges the shards' chat trees, failing on a chat in two.
func unionOf(t *testing.T, trees []map[string]map[string]string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for k, tr := range trees {
		for id, files := range tr {
			if _, dup := out[id]; dup {
				t.Fatalf("chat %s in two shards (the second: %d)", id, k)
			}
			out[id] = files
		}
	}
	return out
}

func sameTrees(t *testing.T, what string, got, want map[string]map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d chats, want %d", what, len(got), len(want))
	}
	for id, files := range want {
		g, ok := got[id]
		if !ok {
			t.Fatalf("%s: chat %s missing", what, id)
		}
		if !maps.Equal(g, files) {
			keys := slices.Sorted(maps.Keys(files))
			t.Fatalf("%s: chat %s differs (files %v, got %v)", what, id, keys, slices.Sorted(maps.Keys(g)))
		}
	}
}

// TestShardUnionExtract: the N shards of extract write, between them,
// every chat of the unsharded run once, each chat's files byte for byte
// (the chat directories are numbered within each shard); so do the shards
// of a sample, of the sample's chats.
func TestShardUnionExtract(t *testing.T) {
	t.Parallel() // heavy and independent
	db, wholeDir := shardDB(t)
	tmp := t.TempDir()
	extractTo := func(name string, args ...string) map[string]map[string]string {
		t.Helper()
		out := filepath.Join(tmp, name)
		code, stdout, errOut := runIn(t, nil, append([]string{"extract", "--db", db, "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("extract %v: exit %d\n%s%s", args, code, stdout, errOut)
		}
		if _, err := os.Stat(out); os.IsNotExist(err) {
			return map[string]map[string]string{}
		}
		return chatTree(t, out)
	}
	whole := chatTree(t, wholeDir) // extract --db db --out wholeDir
	if len(whole) != shardChats {
		t.Fatalf("the unsharded run wrote %d chats, want %d", len(whole), shardChats)
	}
	for _, n := range shardNs() {
		var trees []map[string]map[string]string
		for k := range n {
			tr := extractTo(fmt.Sprintf("s%d-%d", n, k), "--shard", fmt.Sprintf("%d/%d", k, n))
			if len(tr) == len(whole) && n > 1 {
				t.Errorf("shard %d/%d holds every chat", k, n)
			}
			trees = append(trees, tr)
		}
		sameTrees(t, fmt.Sprintf("N=%d", n), unionOf(t, trees), whole)
	}
	// A sample, then its shards.
	sampled := extractTo("sample", "--sample", "6", "--seed", "7")
	if len(sampled) != 6 {
		t.Fatalf("--sample 6 wrote %d chats", len(sampled))
	}
	for id, files := range sampled {
		if !maps.Equal(files, whole[id]) {
			t.Fatalf("sampled chat %s differs from the whole run's", id)
		}
	}
	var trees []map[string]map[string]string
	for k := range 3 {
		trees = append(trees, extractTo(fmt.Sprintf("sample-%d", k), "--sample", "6", "--seed", "7", "--shard", fmt.Sprintf("%d/3", k)))
	}
	sameTrees(t, "sample's shards", unionOf(t, trees), sampled)
}

// TestShardUnionExtractFrom: the same of an agent's session files.
func TestShardUnionExtractFrom(t *testing.T) {
	dir := filepath.Join(agentsTestdata, "claude-code")
	tmp := t.TempDir()
	extractTo := func(name string, args ...string) map[string]map[string]string {
		t.Helper()
		out := filepath.Join(tmp, name)
		code, stdout, errOut := runIn(t, nil, append([]string{"extract", "--from", "claude-code", dir, "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("extract %v: exit %d\n%s%s", args, code, stdout, errOut)
		}
		return chatTree(t, out)
	}
	whole := extractTo("whole")
	if len(whole) < 3 {
		t.Fatalf("the unsharded run wrote %d chats, want several", len(whole))
	}
	for _, n := range []int{2, 3} {
		var trees []map[string]map[string]string
		for k := range n {
			trees = append(trees, extractTo(fmt.Sprintf("s%d-%d", n, k), "--shard", fmt.Sprintf("%d/%d", k, n)))
		}
		sameTrees(t, fmt.Sprintf("N=%d", n), unionOf(t, trees), whole)
	}
	// A sample of 2 session files: their chats, as the whole run wrote them.
	out := filepath.Join(tmp, "sample")
	code, stdout, errOut := runIn(t, nil, "extract", "--from", "claude-code", dir, "--out", out, "--sample", "2", "--json")
	if code != 0 || !strings.Contains(errOut, "compact extract: sample: 2 of ") || !strings.Contains(stdout, `"unit": "session file"`) {
		t.Fatalf("--sample 2: exit %d\n%s%s", code, stdout, errOut)
	}
	for id, files := range chatTree(t, out) {
		if !maps.Equal(files, whole[id]) {
			t.Errorf("sampled chat %s differs from the whole run's", id)
		}
	}
}
