package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/replay"
)

const sampleDB = "../examples/stagewise/instances.sqlite"

// extractSample extracts the shipped sample database into a temporary
// channel directory.
func extractSample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "prerelease")
	if code, out, errOut := runIn(t, nil, "extract", "--db", sampleDB, "--out", dir); code != 0 {
		t.Fatalf("extract: exit %d\n%s%s", code, out, errOut)
	}
	return dir
}

func TestReplayWithTheBuiltinModelNeedsNoKey(t *testing.T) {
	dir := extractSample(t)
	code, out, errOut := runIn(t, nil, "replay", "--model", "builtin", "--json", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var res struct {
		Items  []replay.Item `json:"items"`
		Totals struct{ Bundles, OK int }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Totals.Bundles != 7 || res.Totals.OK != 7 {
		t.Fatalf("totals %+v", res.Totals)
	}
	bundles, _ := replayFinder.Find([]string{dir})
	for _, b := range bundles {
		out, err := os.ReadFile(filepath.Join(b, "replays", "builtin", "output.md"))
		if err != nil || !strings.HasPrefix(string(out), "## ") || strings.Contains(string(out), "<previous-chat-history>") {
			t.Errorf("%s: %q %v", b, firstLine(string(out)), err)
		}
	}
	// The table and its summary: costs as dollars, plurals right.
	code, out, _ = runIn(t, nil, "replay", "--model", "builtin", "--run", "one", bundles[0])
	if code != 0 || !strings.Contains(out, "1 bundle: 1 ok, 0 skipped, 0 failed, 0 errors; 0 input and 0 output tokens, $0\n") {
		t.Errorf("exit %d, table:\n%s", code, out)
	}
	// Deterministic: a forced second run writes the same briefings.
	first, _ := os.ReadFile(filepath.Join(bundles[0], "replays", "builtin", "output.md"))
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", "--force", "--run", "again", dir); code != 0 {
		t.Fatal(errOut)
	}
	again, _ := os.ReadFile(filepath.Join(bundles[0], "replays", "again", "output.md"))
	if string(first) != string(again) {
		t.Error("the builtin model is not deterministic")
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func TestReplayDryRunSendsNothingAndShowsNoKey(t *testing.T) {
	dir := extractSample(t)
	env := map[string]string{"OPENAI_API_KEY": "sk-secret-123", "GEMINI_API_KEY": "gm-secret-456", "ANTHROPIC_API_KEY": "an-secret-789",
		"COMPACT_OPENAI_BASE_URL": "http://127.0.0.1:9"}
	code, out, errOut := runIn(t, env, "replay", "--cascade", "--dry-run", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, secret := range []string{"sk-secret-123", "gm-secret-456", "an-secret-789"} {
		if strings.Contains(out+errOut, secret) {
			t.Errorf("dry run shows a key")
		}
	}
	for _, want := range []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5", "http://127.0.0.1:9/v1/chat/completions", "system:", "user:"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	bundles, _ := replayFinder.Find([]string{dir})
	if _, err := os.Stat(filepath.Join(bundles[0], "replays")); err == nil {
		t.Error("a dry run wrote results")
	}
}

func TestReplayUsageErrors(t *testing.T) {
	dir := extractSample(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--model", "no-such-model", dir}, "unknown model"},
		{[]string{"replay", "--model", "builtin", "--run", "../x", dir}, "--run"},
		{[]string{"replay", "--model", "builtin", "-j", "0", dir}, "-j"},
		{[]string{"replay", "--model", "builtin", "--cascade", dir}, "none of the others"},
	} {
		code, _, errOut := runIn(t, nil, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, errOut)
		}
	}
	// A path with no bundles is an input error with the next step.
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", filepath.Join(dir, "missing")); code != 2 ||
		!strings.Contains(errOut, filepath.Join(dir, "missing")+" does not exist") || !strings.Contains(errOut, "compact extract") {
		t.Errorf("missing path: exit %d, %q", code, errOut)
	}
	empty := t.TempDir()
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", empty); code != 2 || errOut != "compact replay: no bundles under "+empty+"; run `compact extract` first, or pass a bundle, chat or channel directory\n" {
		t.Errorf("empty path: exit %d, %q", code, errOut)
	}
	// So is a default directory extract has not written.
	env := map[string]string{"COMPACT_EXTRACT_OUT": t.TempDir()}
	if code, _, errOut := runIn(t, env, "replay", "--model", "builtin"); code != 2 || !strings.Contains(errOut, "prerelease does not exist; run `compact extract` first") {
		t.Errorf("no extract output: exit %d, %q", code, errOut)
	}
	for _, tt := range [][]string{
		{"replay", "--base-url", "http://127.0.0.1:9/v1", dir},
		{"replay", "--base-url", "127.0.0.1:9", "--api-model", "m", dir},
		{"replay", "--api-model", "m", dir},
		{"replay", "--model", "builtin", "--api-model", "m", dir},
		{"replay", "--model", "builtin", "--base-url", "http://127.0.0.1:9/v1", dir},
		{"replay", "--model", "builtin", "--fallback-model", "gpt-5.4", dir},
		{"replay", "--fallback-model", "no-such-model", dir},
		{"replay", "--model", "builtin", "--timeout", "-1s", dir},
		{"replay", "--model", "builtin", "--channel", "nightly", dir},
		{"replay", "--model", "builtin", "--channel", "weekly"},
	} {
		if code, _, errOut := runIn(t, nil, tt...); code != 2 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "compact replay: ") {
			t.Errorf("%v: exit %d, stderr %q", tt, code, errOut)
		}
	}
}

func TestCompressRunsThePipelineOnTheSample(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bundle")
	// The dark-mode chat: 62 messages, four stored briefings.
	code, stdout, errOut := runIn(t, nil, "compress", "--db", sampleDB, "--chat", "ff5dc157-1738-4824-a458-f29a0cd9d0fb",
		"--model", "builtin", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
	}
	for _, want := range []string{"trigger: false", "walk: compress before message", "bundle: " + out, "briefing: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"system-prompt.md", "user-message.md", "compact-history.xml", "actual-output.md", "metadata.json", "pipeline.json", "replays/builtin/output.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	compact, _ := os.ReadFile(filepath.Join(out, "compact-history.xml"))
	if !strings.HasPrefix(string(compact), "<previous-chat-history>") {
		t.Errorf("the serializer did not start from the previous briefing: %q", firstLine(string(compact)))
	}
	// A second run refuses the existing directory.
	if code, _, errOut := runIn(t, nil, "compress", "--db", sampleDB, "--chat", "ff5dc157-1738-4824-a458-f29a0cd9d0fb", "--no-model", "--out", out); code != 1 || !strings.Contains(errOut, "--force") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

func TestCompressSaysWhyNothingIsCompressed(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bundle")
	code, stdout, errOut := runIn(t, nil, "compress", "--db", sampleDB, "--chat", "165debff-d37c-4852-aed4-85896191026d", "--model", "builtin", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if !strings.Contains(stdout, "walk: skip-all-fit") || !strings.Contains(stdout, "floor 10") || !strings.Contains(stdout, "nothing written") {
		t.Errorf("output:\n%s", stdout)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a skipped walk wrote a bundle")
	}
	if code, _, errOut := runIn(t, nil, "compress", "--db", sampleDB, "--chat", "nope", "--no-model"); code != 2 || !strings.Contains(errOut, `no chat "nope"`) {
		t.Errorf("unknown chat: exit %d, %q", code, errOut)
	}
	if code, _, _ := runIn(t, nil, "compress", "--db", sampleDB, "--no-model"); code != 2 {
		t.Errorf("missing --chat: exit %d", code)
	}
	// No key for any model of the cascade: exit 2 naming the keys and
	// the offline way, and nothing sent.
	code, stdout, errOut = runIn(t, nil, "compress", "--db", sampleDB, "--chat", "ff5dc157-1738-4824-a458-f29a0cd9d0fb", "--out", out)
	if code != 2 || !strings.Contains(errOut, "OPENAI_API_KEY") || !strings.Contains(errOut, "--model builtin") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("no keys: exit %d\n%s%s", code, stdout, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, "replays")); err == nil {
		t.Error("a compress with no keys wrote a replay record")
	}
}

// With --quiet, replay prints its one-line summary and the errors, as
// extract does, and no table.
func TestReplayQuietPrintsOnlyTheSummary(t *testing.T) {
	dir := extractSample(t)
	code, out, errOut := runIn(t, nil, "replay", "--quiet", "--model", "builtin", "--run", "quiet", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if out != "7 bundles: 7 ok, 0 skipped, 0 failed, 0 errors; 0 input and 0 output tokens, $0\n" {
		t.Errorf("stdout with --quiet:\n%s", out)
	}
	if errOut != "" {
		t.Errorf("stderr with --quiet:\n%s", errOut)
	}
	code, out, _ = runIn(t, nil, "replay", "--model", "builtin", "--run", "loud", dir)
	if code != 0 || !strings.Contains(out, "BUNDLE") {
		t.Errorf("without --quiet, exit %d, no table:\n%s", code, out)
	}
}
