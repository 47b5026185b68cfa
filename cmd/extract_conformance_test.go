package cmd

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/prompt"
)

const conformanceDir = "../testdata/conformance"

type confCase struct {
	Name      string            `json:"name"`
	Argv      []string          `json:"argv"`
	Channel   string            `json:"channel"`
	DBChannel string            `json:"dbChannel"`
	SkillsDir *string           `json:"skillsDir"`
	Modes     []string          `json:"modes"`
	Env       map[string]string `json:"env"`
}

func loadCases(t *testing.T) []confCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(conformanceDir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []confCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no conformance cases")
	}
	return cases
}

// fixturePack imports the placeholder prompt module the expected bundles
// were made with.
func fixturePack(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(conformanceDir, "prompt-fixture", "prompt.ts"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := prompt.Import(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "fixture-pack")
	if err := p.Save(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// manifest lists a tree as the corpus's manifest.txt does.
func manifest(t *testing.T, root string) []string {
	t.Helper()
	var lines []string
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			p := rel + e.Name()
			if e.Name() == bundle.FileContinuation {
				continue // compact's own file: the upstream writes none
			}
			if e.IsDir() {
				lines = append(lines, "d "+p+"/")
				walk(filepath.Join(dir, e.Name()), p+"/")
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			lines = append(lines, fmt.Sprintf("f %d %s %s", len(data), hex.EncodeToString(sum[:]), p))
		}
	}
	if _, err := os.Stat(root); err != nil {
		return []string{"(no experiments-data directory)"}
	}
	walk(root, "")
	return lines
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sc.Text() != "" {
			out = append(out, sc.Text())
		}
	}
	return out
}

// TestExtractConformance runs every corpus case in both modes through the
// extract command and compares the written tree with the upstream's byte
// for byte (every directory and file, by size and sha256).
func TestExtractConformance(t *testing.T) {
	pack := fixturePack(t)
	skills, err := filepath.Abs(filepath.Join(conformanceDir, "skills"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range loadCases(t) {
		for _, mode := range c.Modes {
			t.Run(c.Name+"/"+mode, func(t *testing.T) {
				runUpstreamCase(t, filepath.Join(conformanceDir, c.Name), c, skills, pack, mode, mode)
			})
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func lineDiff(want, got []string) string {
	w := map[string]bool{}
	for _, l := range want {
		w[l] = true
	}
	g := map[string]bool{}
	for _, l := range got {
		g[l] = true
	}
	var b strings.Builder
	for _, l := range want {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range got {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// diffFiles shows the first differing file's contents.
func diffFiles(t *testing.T, wantRoot, gotRoot string, manifest []string) {
	shown := 0
	_ = filepath.WalkDir(wantRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || shown >= 2 {
			return nil
		}
		rel, _ := filepath.Rel(wantRoot, p)
		want, _ := os.ReadFile(p)
		got, gerr := os.ReadFile(filepath.Join(gotRoot, rel))
		if gerr != nil || string(got) != string(want) {
			shown++
			t.Errorf("%s:\nwant %q\ngot  %q (%v)", rel, clip(string(want)), clip(string(got)), gerr)
		}
		return nil
	})
}

func clip(s string) string {
	if len(s) > 1500 {
		return s[:1500] + "…"
	}
	return s
}
