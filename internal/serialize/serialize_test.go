package serialize

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

type chVector struct {
	Name          string       `json:"name"`
	Raw           string       `json:"raw"`
	ResolvedSlash *[]SlashItem `json:"resolvedSlash"`
	Expected      string       `json:"expected"`
	ExpectedLen16 int          `json:"expectedLen16"`
}

func readCHVectors(t testing.TB) []chVector {
	t.Helper()
	f, err := os.Open("../../testdata/conformance/vectors/compact-history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []chVector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var v chVector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		t.Fatal("no vectors")
	}
	return out
}

func slashMap(items *[]SlashItem) map[string]SlashItem {
	if items == nil {
		return nil
	}
	m := map[string]SlashItem{}
	for _, it := range *items {
		m[it.ID] = it
	}
	return m
}

func TestSerializeMatchesUpstreamVectors(t *testing.T) {
	for _, v := range readCHVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			msgs, ok, err := history.DecodeMessages(v.Raw)
			if err != nil || !ok {
				t.Fatalf("decode: ok=%v err=%v", ok, err)
			}
			got := Serialize(msgs, Options{Slash: slashMap(v.ResolvedSlash)})
			// encoding/json turns lone surrogates into U+FFFD, as Node does
			// when it writes the file.
			if w := history.ToWellFormed(got); w != v.Expected {
				t.Errorf("got\n%q\nwant\n%q", w, v.Expected)
			}
			if n := history.Len16(got); n != v.ExpectedLen16 {
				t.Errorf("len16 = %d, want %d", n, v.ExpectedLen16)
			}
		})
	}
}
