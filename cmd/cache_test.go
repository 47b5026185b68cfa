package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/replay"
)

// TestReplayRerunIsAnsweredFromTheCache: a replay forced again, or under
// another run name, sends no request: its record says each attempt was
// cached, at no cost, and what that saved; --no-cache sends again. Then
// cache stats counts the answers and cache prune --all removes them.
func TestReplayRerunIsAnsweredFromTheCache(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sample")
	db := filepath.Join("..", "examples", "stagewise", "instances.sqlite")
	if code, _, errOut := diffRun(t, nil, "extract", "--db", db, "--out", out); code != 0 {
		t.Fatalf("extract: %s", errOut)
	}
	bundles := listBundles(t, out)
	srv := newChatServer(t, "## Briefing\n\nA cached briefing, long enough to be accepted.")
	cacheDir := filepath.Join(t.TempDir(), "cache")
	env := map[string]string{"OPENAI_API_KEY": "sk-cache-SECRET-1", "COMPACT_OPENAI_BASE_URL": srv.srv.URL, "COMPACT_CACHE_DIR": cacheDir}
	if code, _, errOut := diffRun(t, env, "replay", out, "--model", "gpt-5.4-nano"); code != 0 {
		t.Fatalf("replay: exit %d %s", code, errOut)
	}
	if n := len(srv.requests()); n != len(bundles) {
		t.Fatalf("%d requests for %d bundles", n, len(bundles))
	}
	first, err := replay.ReadRecord(bundles[0], "gpt-5.4-nano")
	if err != nil || first.CostUSD == 0 || first.Attempts[0].Cached {
		t.Fatalf("first record %+v %v", first, err)
	}
	for _, args := range [][]string{{"--force"}, {"--run", "again"}} {
		if code, _, errOut := diffRun(t, env, append([]string{"replay", out, "--model", "gpt-5.4-nano"}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
		if n := len(srv.requests()); n != len(bundles) {
			t.Errorf("%v: %d requests in all, want still %d", args, n, len(bundles))
		}
	}
	again, err := replay.ReadRecord(bundles[0], "again")
	if err != nil || !again.Attempts[0].Cached || again.CostUSD != 0 || again.Attempts[0].SavedUSD != first.CostUSD || again.OutputChars != first.OutputChars {
		t.Errorf("cached record %+v %v", again, err)
	}
	if code, _, errOut := diffRun(t, env, "replay", bundles[0], "--model", "gpt-5.4-nano", "--run", "fresh", "--no-cache"); code != 0 || len(srv.requests()) != len(bundles)+1 {
		t.Errorf("--no-cache: exit %d, %d requests: %s", code, len(srv.requests()), errOut)
	}

	code, js, errOut := diffRun(t, env, "cache", "stats", "--json")
	var st struct {
		Dir     string
		Entries int
		Bytes   int64
	}
	if code != 0 || json.Unmarshal([]byte(js), &st) != nil || st.Dir != cacheDir || st.Entries != len(bundles) || st.Bytes == 0 {
		t.Errorf("stats: exit %d %s %s", code, js, errOut)
	}
	if code, _, errOut := diffRun(t, env, "cache", "prune"); code != 2 || !strings.Contains(errOut, "--older-than DURATION") {
		t.Errorf("prune without a choice: exit %d %s", code, errOut)
	}
	if code, text, _ := diffRun(t, env, "cache", "prune", "--older-than", "1h"); code != 0 || !strings.Contains(text, "removed 0 answers") {
		t.Errorf("prune --older-than 1h: exit %d %s", code, text)
	}
	if code, text, _ := diffRun(t, env, "cache", "prune", "--all"); code != 0 || !strings.Contains(text, "removed 7 answers") {
		t.Errorf("prune --all: exit %d %s", code, text)
	}
	filepath.Walk(cacheDir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			t.Errorf("left in the cache: %s", p)
		}
		return nil
	})
	// Without HOME, XDG_CACHE_HOME or cache.dir there is no cache, and
	// nothing is written outside the environment given.
	if code, _, errOut := diffRun(t, nil, "cache", "stats"); code != 2 || !strings.Contains(errOut, "no cache directory") {
		t.Errorf("no directory: exit %d %s", code, errOut)
	}
}
