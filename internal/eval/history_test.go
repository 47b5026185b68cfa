package eval

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// TestMinerIsMine mines the compact histories of the conformance corpus
// in order with one Miner (bundles of one chat share the sentences of
// their previous briefings) and, twice, the same history in a row: the
// probes are Mine's.
func TestMinerIsMine(t *testing.T) {
	var files []string
	_ = filepath.WalkDir(filepath.Join("..", "..", "testdata", "conformance"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "compact-history.xml" {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	if len(files) < 50 {
		t.Fatalf("only %d compact histories in the corpus", len(files))
	}
	var m Miner
	previous := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := Mine(string(data), Options{})
		for range 2 {
			if got := m.Mine(string(data), Options{}); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: the Miner's probes differ from Mine's", f)
			}
		}
		for _, p := range want {
			if p.Source.Message == -1 {
				previous++
			}
		}
	}
	if previous == 0 {
		t.Error("no probe of a previous briefing in the corpus: the test proves nothing")
	}
}
