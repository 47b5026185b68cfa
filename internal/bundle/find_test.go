package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusChannel is a channel of real bundles from the conformance corpus.
const corpusChannel = "../../testdata/conformance/v9-chained-compressions/expected/messages/experiments-data/history-compression/prerelease"

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadableUnderChannelChatAndBundle: a channel, a chat and a bundle
// given as the path; a replay run (it holds an output.md) and a hidden
// directory are not bundles; a file is refused, with the hint.
func TestReadableUnderChannelChatAndBundle(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(corpusChannel)); err != nil {
		t.Fatal(err)
	}
	b1 := filepath.Join(root, "001-long-running-refactor", "compression-001")
	writeFile(t, OutputPath(b1, "builtin"), "## X\n\ny")
	writeFile(t, filepath.Join(RunDir(b1, "builtin"), FileActual), "a replay is no bundle")
	writeFile(t, filepath.Join(root, ".staging", "compression-001", FileActual), "x")
	f := Finder{NotDir: "compare two files with --a and --b"}
	all, err := f.Find([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 10 {
		t.Fatalf("channel: %d bundles, want 10: %v", len(all), all)
	}
	chat, _ := f.Find([]string{filepath.Join(root, "002-short-chain-with-large-summaries")})
	if len(chat) != 3 {
		t.Errorf("chat: %v", chat)
	}
	one, _ := f.Find(all[:1])
	if d := cmp.Diff([]string{all[0]}, one); d != "" {
		t.Errorf("bundle (-want +got):\n%s", d)
	}
	file := filepath.Join(all[0], FileActual)
	if _, err := f.Find([]string{file}); err == nil || err.Error() != file+" is not a directory (compare two files with --a and --b)" {
		t.Errorf("a file as PATH: %v", err)
	}
}

// TestReplayableNeedsTheRequest: a replayable bundle holds the system
// prompt, the user message and the metadata, any one of them missing or
// a directory and it is none; a bundle under two paths comes once; Walk
// goes in name order, Find sorts.
func TestReplayableNeedsTheRequest(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"a", "a-b", "c"} {
		for _, f := range []string{FileSystemPrompt, FileUserMessage, FileMetadata} {
			writeFile(t, filepath.Join(root, "ch", name, "compression-001", f), "x")
		}
	}
	if err := os.Remove(filepath.Join(root, "ch", "c", "compression-001", FileUserMessage)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "ch", "c", "compression-001", FileUserMessage), 0o755); err != nil {
		t.Fatal(err)
	}
	f := Finder{Kind: Replayable}
	var walked []string
	ch := filepath.Join(root, "ch")
	if err := f.Walk([]string{ch, filepath.Join(ch, "a")}, func(b string) error {
		walked = append(walked, strings.TrimPrefix(b, root))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.Separator)
	want := []string{sep + filepath.Join("ch", "a", "compression-001"), sep + filepath.Join("ch", "a-b", "compression-001")}
	if d := cmp.Diff(want, walked); d != "" {
		t.Errorf("Walk (-want +got):\n%s", d)
	}
	found, err := f.Find([]string{ch, ch})
	if err != nil || len(found) != 2 || found[0] > found[1] {
		t.Errorf("Find = %v, %v", found, err)
	}
	briefing := filepath.Join(root, "briefing")
	writeFile(t, filepath.Join(briefing, FileActual), "## A")
	if !Readable.Is(briefing) || Replayable.Is(briefing) {
		t.Error("a briefing alone is readable, not replayable")
	}
	if _, err := f.Find([]string{filepath.Join(root, "nope")}); err == nil {
		t.Error("missing path accepted")
	}
}
