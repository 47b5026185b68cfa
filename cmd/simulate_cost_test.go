package cmd

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateReadmeRealSession runs the README's example on a real
// public Claude Code session (a ```console block, which the README test
// does not run: it unpacks a file of testdata/ first) and checks that
// compact prints every line the README shows, the cost table whole.
func TestSimulateReadmeRealSession(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var block []string
	for _, b := range strings.Split(string(data), "```console\n")[1:] {
		if body, _, _ := strings.Cut(b, "```"); strings.Contains(body, "$ compact simulate session.jsonl") {
			block = strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		}
	}
	if len(block) < 4 || !strings.HasPrefix(block[0], "$ zcat testdata/agents/claude-code/entire/") {
		t.Fatalf("no real-session block in the README: %q", block)
	}
	gz := strings.Fields(block[0])[2]
	args := strings.Fields(strings.TrimPrefix(block[1], "$ compact "))

	f, err := os.Open(filepath.Join("..", gz))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	out.Close()
	t.Chdir(dir)

	code, stdout, errOut := simRun(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, l := range block[2:] {
		if l == "…" {
			continue
		}
		if !strings.Contains("\n"+stdout, "\n"+l+"\n") {
			t.Errorf("the README shows\n%s\nwhich compact does not print:\n%s", l, stdout)
		}
	}
	if !strings.Contains(stdout, "\n  tool-clearing ") || !strings.Contains(stdout, "cost at the prices of claude-opus-4.6") {
		t.Errorf("output:\n%s", stdout)
	}
}
