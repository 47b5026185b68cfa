package serialize

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

// upVector is one line of testdata/upstream/compact-history.jsonl: what the
// upstream serializer (stagewise e3e125281 under Node) returned for raw, or
// the error superjson threw decoding it.
type upVector struct {
	chVector
	Error *string `json:"error"`
}

// readUpstreamVectors reads testdata/upstream/compact-history.jsonl, or
// the file COMPACT_UPSTREAM_VECTORS names (lines of the same shape, say
// the oracle's answers merged with its questions).
func readUpstreamVectors(t testing.TB) []upVector {
	t.Helper()
	path := "../../testdata/upstream/compact-history.jsonl"
	if p := os.Getenv("COMPACT_UPSTREAM_VECTORS"); p != "" {
		path = p
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []upVector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var v upVector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no vectors")
	}
	return out
}

// TestSerializeMatchesUpstreamDifferential runs every vector the
// differential harness (scripts/upstream-diff) found, through both the
// eager and the lazy decoder: the output and its UTF-16 length as the
// upstream gave them, or a decode error where superjson threw.
func TestSerializeMatchesUpstreamDifferential(t *testing.T) {
	decoders := []struct {
		name   string
		decode func(string) ([]history.Value, bool, error)
	}{
		{"eager", history.DecodeMessages},
		{"lazy", history.DecodeMessagesLazy},
	}
	for _, v := range readUpstreamVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			for _, d := range decoders {
				msgs, ok, err := d.decode(v.Raw)
				if v.Error != nil {
					if err == nil && ok {
						t.Errorf("%s: decoded, want an error like %q", d.name, *v.Error)
					}
					continue
				}
				if err != nil || !ok {
					t.Fatalf("%s: decode: ok=%v err=%v", d.name, ok, err)
				}
				var problems []Problem
				got := Serialize(msgs, Options{Slash: slashMap(v.ResolvedSlash), Problems: func(p Problem) {
					if !p.Upstream {
						problems = append(problems, p)
					}
				}})
				if len(problems) > 0 {
					// Everything here is the upstream's own behaviour,
					// reproduced: nothing to warn about.
					t.Errorf("%s: problems %v", d.name, problems)
				}
				if w := history.ToWellFormed(got); w != v.Expected {
					t.Errorf("%s: got\n%q\nwant\n%q", d.name, w, v.Expected)
				}
				if n := history.Len16(got); n != v.ExpectedLen16 {
					t.Errorf("%s: len16 = %d, want %d", d.name, n, v.ExpectedLen16)
				}
			}
		})
	}
}
