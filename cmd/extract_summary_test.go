package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/iostreams"
)

// TestExtractJSONSummary: --json prints one machine-readable summary on
// stdout, with each chat's id, title, directory, bundles and warnings.
func TestExtractJSONSummary(t *testing.T) {
	nullPoint := xtConvo(10, 3, 7)
	nullPoint[7].meta = `{"json":{"compressedHistory":null}}`
	db := xtWriteDB(t, xtSchemaV9,
		xtChat{id: "a", title: "Alpha <&>", lastAt: 3, rows: nullPoint},
		xtChat{id: "b", title: "Short", lastAt: 2, rows: xtConvo(4, 2)},
		xtChat{id: "c", title: "Gamma", lastAt: 1, rows: xtConvo(8, 4)})
	out := xtOut(t)
	r := xtExtract(t, db, out, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var sum struct {
		OutDir    string `json:"outDir"`
		Chats     int    `json:"chats"`
		Extracted int    `json:"extracted"`
		Skipped   int    `json:"skipped"`
		Bundles   int    `json:"bundles"`
		PerChat   []struct {
			ID        string `json:"id"`
			Title     string `json:"title"`
			Directory string `json:"directory"`
			Bundles   int    `json:"bundles"`
			Skipped   string `json:"skipped"`
			Warnings  []struct {
				ChatID  string `json:"chatId"`
				Message int    `json:"message"`
				Text    string `json:"text"`
			} `json:"warnings"`
		} `json:"perChat"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if strings.Contains(r.stdout, "chats, ") {
		t.Errorf("the text summary line is printed with --json")
	}
	if sum.OutDir != out || sum.Chats != 3 || sum.Extracted != 2 || sum.Skipped != 1 || sum.Bundles != 2 || len(sum.PerChat) != 3 {
		t.Fatalf("summary %+v", sum)
	}
	a, b, c := sum.PerChat[0], sum.PerChat[1], sum.PerChat[2]
	if a.ID != "a" || a.Title != "Alpha <&>" || a.Directory != "001-alpha-" || a.Bundles != 1 ||
		len(a.Warnings) != 1 || a.Warnings[0].ChatID != "a" || a.Warnings[0].Message != 7 {
		t.Errorf("chat a %+v", a)
	}
	if b.ID != "b" || b.Directory != "" || b.Bundles != 0 || b.Skipped == "" {
		t.Errorf("chat b %+v", b)
	}
	if c.ID != "c" || c.Directory != "002-gamma" || c.Bundles != 1 || len(c.Warnings) != 0 {
		t.Errorf("chat c %+v", c)
	}
	if !strings.Contains(r.stderr, "warning: chat a message 7") {
		t.Errorf("warnings are not on stderr with --json: %q", r.stderr)
	}
}

// TestExtractProgressAndWarningsOnStderr: progress is drawn on stderr only
// when it is a terminal and never with --quiet; warnings always go to
// stderr; stdout holds only the summary line.
func TestExtractProgressAndWarningsOnStderr(t *testing.T) {
	rows := xtConvo(8, 4)
	rows[4].meta = `{"json":{"compressedHistory":null}}`
	db := xtWriteDB(t, xtSchemaV9,
		xtChat{id: "w", title: "Warns", lastAt: 2, rows: rows},
		xtChat{id: "ok", title: "Fine", lastAt: 1, rows: xtConvo(8, 4)})
	const progressMark = "\r\x1b[K"
	tests := []struct {
		name     string
		tty      bool
		quiet    bool
		progress bool
	}{
		{"terminal shows progress", true, false, true},
		{"pipe shows no progress", false, false, false},
		{"quiet terminal shows no progress", true, true, false},
		{"quiet pipe shows no progress", false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := xtOut(t)
			args := []string{"extract", "--db", db, "--out", out}
			if tt.quiet {
				args = append(args, "--quiet")
			}
			r := xtRunIO(t, func(io *iostreams.IO) { io.SetStderrTTY(tt.tty) }, nil, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if r.stdout != xtSummaryLine(2, 1, 0, out) {
				t.Errorf("stdout %q", r.stdout)
			}
			hasProgress := strings.Contains(r.stderr, progressMark) || strings.Contains(strings.ReplaceAll(r.stderr, "compact extract: ", ""), "extract: ")
			if hasProgress != tt.progress {
				t.Errorf("progress on stderr %v, want %v: %q", hasProgress, tt.progress, r.stderr)
			}
			warning := "compact extract: warning: chat w message 4: "
			if !strings.Contains(r.stderr, warning) {
				t.Errorf("stderr %q lacks the warning", r.stderr)
			}
			if !tt.progress && !strings.HasPrefix(r.stderr, warning) {
				t.Errorf("stderr %q holds more than the warning", r.stderr)
			}
			if tt.progress && !strings.HasSuffix(r.stderr, progressMark) && !strings.HasSuffix(r.stderr, "\n") {
				t.Errorf("the progress line is not cleared at the end: %q", r.stderr)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Database discovery.

func TestExtractDatabaseDiscovery(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the default paths under test are the Linux ones")
	}
	src := xtWriteDB(t, xtSchemaV9, xtChat{id: "a", title: "Found", lastAt: 1, rows: xtConvo(8, 4)})
	place := func(t *testing.T, dir string) {
		t.Helper()
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dbAt := func(root, base string) string {
		return filepath.Join(root, base, "stagewise", "agents", "instances.sqlite")
	}
	tests := []struct {
		name    string
		args    []string
		place   func(home, xdg string) string // where the database goes ("" none)
		xdg     string                        // "abs" sets XDG_CONFIG_HOME to an absolute dir, "rel" to a relative one
		code    int
		wantErr string
	}{
		{"prerelease is the default", nil, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-prerelease") }, "", 0, ""},
		{"release channel", []string{"--channel", "release"}, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise") }, "", 0, ""},
		{"dev channel", []string{"--channel", "dev"}, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-dev") }, "", 0, ""},
		{"nightly is a valid channel", []string{"--channel", "nightly"}, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-nightly") }, "", 0, ""},
		{"absolute XDG_CONFIG_HOME honoured", nil, func(_, x string) string { return dbAt(x, "stagewise-prerelease") }, "abs", 0, ""},
		{"relative XDG_CONFIG_HOME ignored", nil, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-prerelease") }, "rel", 0, ""},
		{"XDG_CONFIG_HOME wins over HOME", nil, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-prerelease") }, "abs", 2, "database not found"},
		{"database of another channel is not used", []string{"--channel", "release"}, func(h, _ string) string { return dbAt(filepath.Join(h, ".config"), "stagewise-prerelease") }, "", 2, "stagewise/stagewise/agents/instances.sqlite"},
		{"missing default names the path and --db", nil, func(string, string) string { return "" }, "", 2, "--db PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			env := map[string]string{"HOME": home}
			xdg := ""
			switch tt.xdg {
			case "abs":
				xdg = t.TempDir()
				env["XDG_CONFIG_HOME"] = xdg
			case "rel":
				env["XDG_CONFIG_HOME"] = "relative/config"
			}
			if p := tt.place(home, xdg); p != "" {
				place(t, p)
			}
			out := xtOut(t)
			r := xtRun(t, env, append([]string{"extract", "--out", out}, tt.args...)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, tt.code, r.stderr)
			}
			if tt.code == 0 {
				if r.stdout != xtSummaryLine(1, 1, 0, out) {
					t.Errorf("stdout %q", r.stdout)
				}
				return
			}
			xtOneLineError(t, r, tt.wantErr)
		})
	}
	t.Run("--db overrides the channel path", func(t *testing.T) {
		home := t.TempDir()
		other := xtWriteDB(t, xtSchemaV9) // an empty database at the default path
		place(t, dbAt(filepath.Join(home, ".config"), "stagewise-nightly"))
		if err := os.Rename(other, dbAt(filepath.Join(home, ".config"), "stagewise-nightly")); err != nil {
			t.Fatal(err)
		}
		out := xtOut(t)
		r := xtRun(t, map[string]string{"HOME": home}, "extract", "--channel", "nightly", "--db", src, "--out", out)
		if r.code != 0 || r.stdout != xtSummaryLine(1, 1, 0, out) {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("--db without HOME", func(t *testing.T) {
		out := xtOut(t)
		r := xtRun(t, map[string]string{}, "extract", "--db", src, "--out", out)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	})
}

// ---------------------------------------------------------------------------
// The shipped sample database.

const xtShippedDB = "../examples/stagewise/instances.sqlite"

func TestExtractShippedSample(t *testing.T) {
	src := xtShippedDB
	before := xtSHA(t, src)
	db := filepath.Join(t.TempDir(), "instances.sqlite")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		source  string
		summary [3]int // extracted, bundles, skipped
		dirs    map[string]int
	}{
		{"messages", [3]int{3, 7, 3}, map[string]int{
			"001-paginate-the-recipe-list-server-side": 2,
			"002-add-dark-mode-with-a-header-toggle":   4,
			"003-fix-button-color-v2":                  1,
		}},
		// The paginate chat has the stale {"json":[]} legacy column.
		{"history", [3]int{2, 5, 4}, map[string]int{
			"001-add-dark-mode-with-a-header-toggle": 4,
			"002-fix-button-color-v2":                1,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			out1, out2 := xtOut(t), xtOut(t)
			r1 := xtExtract(t, db, out1, "--source", tt.source)
			r2 := xtExtract(t, db, out2, "--source", tt.source, "--workers", "1")
			for _, r := range []xtResult{r1, r2} {
				if r.code != 0 || r.stderr != "" {
					t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
				}
			}
			if r1.stdout != xtSummaryLine(tt.summary[0], tt.summary[1], tt.summary[2], out1) {
				t.Errorf("stdout %q", r1.stdout)
			}
			entries, err := os.ReadDir(out1)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, e := range entries {
				sub, err := os.ReadDir(filepath.Join(out1, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				got[e.Name()] = len(sub)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.dirs) {
				t.Errorf("chat directories %v, want %v", got, tt.dirs)
			}
			t1, t2 := xtTree(t, out1), xtTree(t, out2)
			if !slices.Equal(t1, t2) {
				t.Errorf("two runs differ:\n%v\n%v", t1, t2)
			}
			// The upstream's five files and compact's continuation.
			if n := len(t1) - len(xtDirs(t1)); n != (bundle.FileCount+1)*tt.summary[1] {
				t.Errorf("%d files, want %d", n, (bundle.FileCount+1)*tt.summary[1])
			}
		})
	}
	if xtSHA(t, db) != before {
		t.Errorf("extraction changed the database file")
	}
}

// TestExtractManyWarningsInChatOrder: with parallel workers and progress on
// a terminal, every warning is one intact line on stderr, in chat order
// (the hooks are never called concurrently; run with -race).
func TestExtractManyWarningsInChatOrder(t *testing.T) {
	var chats []xtChat
	var want []string
	for i := 0; i < 24; i++ {
		rows := xtConvo(8, 2, 6)
		rows[6].meta = `{"json":{"compressedHistory":null}}`
		id := fmt.Sprintf("chat-%02d", i)
		chats = append(chats, xtChat{id: id, title: "T", lastAt: int64(100 - i), rows: rows})
		want = append(want, "compact extract: warning: chat "+id+" message 6: compressedHistory is null, neither a string nor a typed array: the upstream script crashes on it (ERR_INVALID_ARG_TYPE) and writes nothing more; skipped compression-002")
	}
	db := xtWriteDB(t, xtSchemaV9, chats...)
	out := xtOut(t)
	r := xtRunIO(t, func(io *iostreams.IO) { io.SetStderrTTY(true) }, nil, "extract", "--db", db, "--out", out, "--workers", "6")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if i := strings.LastIndex(l, "\r\x1b[K"); i >= 0 {
			l = l[i+len("\r\x1b[K"):]
		}
		if strings.HasPrefix(l, "compact extract: warning: ") {
			got = append(got, l)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings on stderr:\n%s\nwant, in chat order:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.stdout != xtSummaryLine(24, 24, 0, out) {
		t.Errorf("stdout %q", r.stdout)
	}
}
