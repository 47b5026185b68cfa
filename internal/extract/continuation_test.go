package extract

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/serialize"
)

// TestContinuation: each bundle's continuation.xml is what the chat did
// from its compaction to the next one with a summary (a point whose
// summary is falsy compacts nothing), or to the end; --no-continuation
// leaves it out and the rest of the tree unchanged.
func TestContinuation(t *testing.T) {
	rows := convo(18, 2, 8, 14, 16)
	rows[6] = rows[6].withMeta(`{"json":{"compressedHistory":""}}`)
	db := writeDB(t, tChat{id: "c1", title: "Chain", lastAt: 1, rows: rows})
	r := mustRun(t, testOptions(t, db))
	msgs := decodeRows(t, rows)
	dir := filepath.Join(r.out, "001-chain")
	// 6 has an empty summary: a bundle (as the upstream writes), which
	// compacts nothing, so the continuation of 2 runs through it.
	next := map[int]int{2: 8, 6: 8, 8: 14, 14: 16, 16: len(rows)}
	for _, name := range bundles(t, dir) {
		md := readMetadata(t, filepath.Join(dir, name))
		b := int(md["boundaryMessageIndex"].(float64))
		if _, ok := next[b]; !ok {
			t.Fatalf("%s: boundary %d", name, b)
		}
		data, err := os.ReadFile(filepath.Join(dir, name, bundle.FileContinuation))
		if err != nil {
			t.Fatal(err)
		}
		want := serialize.AppendContinuation(nil, msgs[b:next[b]], serialize.Options{Profile: serialize.Profiles["e3e"]}, ContinuationTurns, ContinuationOutput)
		if string(data) != string(want) {
			t.Errorf("%s (boundary %d): continuation\n%s\nwant msgs[%d:%d]\n%s", name, b, data, b, next[b], want)
		}
		if strings.Contains(string(data), serialize.PrevOpen) || !strings.Contains(string(data), fmt.Sprintf("<user>user turn %d</user>", b)) {
			t.Errorf("%s: continuation does not start at the compaction's message:\n%s", name, data)
		}
	}
	opts := testOptions(t, db)
	opts.NoContinuation = true
	r2 := mustRun(t, opts)
	if a, b := manifest(t, r.out), manifest(t, r2.out); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("--no-continuation changed the upstream's files")
	}
	for _, name := range bundles(t, filepath.Join(r2.out, "001-chain")) {
		if _, err := os.Stat(filepath.Join(r2.out, "001-chain", name, bundle.FileContinuation)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: continuation written with NoContinuation (%v)", name, err)
		}
	}
}
