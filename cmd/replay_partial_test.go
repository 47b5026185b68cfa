package cmd

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestReplaySomeBundlesFailExitsOne: when the server fails some bundles
// and answers the others, the answers are written, each failure is named
// on stderr, and the exit status is 1 (the run is not complete); running
// again retries only the failed bundles.
func TestReplaySomeBundlesFailExitsOne(t *testing.T) {
	dir := extractSample(t)
	failing := "fix-button-color"
	var fail atomic.Bool
	fail.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if fail.Load() && strings.Contains(string(body), "Button") && strings.Contains(string(body), "teal") {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "## Work\n\nA briefing long enough to be accepted by the cascade."}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
		})
	}))
	defer srv.Close()
	args := []string{"replay", "--base-url", srv.URL + "/v1", "--api-model", "m", dir}
	code, out, errOut := runIn(t, nil, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	var named []string
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if strings.HasPrefix(l, "compact replay: ") && strings.Contains(l, failing) {
			named = append(named, l)
		}
	}
	if len(named) != 1 || !strings.Contains(errOut, "run the same command again") {
		t.Errorf("stderr does not name the one failed bundle and the next step:\n%s", errOut)
	}
	answered := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "output.md" {
			answered++
		}
		return nil
	})
	if answered != 6 {
		t.Errorf("%d answers written, want 6", answered)
	}
	fail.Store(false)
	code, out, errOut = runIn(t, nil, args...)
	if code != 0 || !strings.Contains(out, "1 ok, 6 skipped") {
		t.Errorf("second run: exit %d\n%s%s", code, out, errOut)
	}
}

// TestCompressModelFailureExitsOne: when the model gives no briefing,
// compress keeps the bundle, says how to replay it, and exits 1.
func TestCompressModelFailureExitsOne(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"model refused"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "bundle")
	env := map[string]string{"OPENAI_API_KEY": "sk-test-not-a-key", "COMPACT_OPENAI_BASE_URL": srv.URL}
	code, stdout, errOut := runIn(t, env, "compress", "--db", sampleDB, "--chat", "ff5dc157-1738-4824-a458-f29a0cd9d0fb",
		"--model", "gpt-5.4-nano", "--out", out)
	if code != 1 || !strings.Contains(errOut, "no briefing from the model") || !strings.Contains(errOut, "compact replay "+out) {
		t.Errorf("exit %d\n%s%s", code, stdout, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, "user-message.md")); err != nil {
		t.Errorf("the bundle is not kept: %v", err)
	}
	if strings.Contains(stdout+errOut, "sk-test-not-a-key") {
		t.Error("the key is printed")
	}
}

// TestReplayCutAnswerShowsInTheTable: an answer over the configured cap
// is kept cut, and the table says so; a key the server echoes back never
// reaches the output, the record or stderr.
func TestReplayCutAnswerShowsInTheTable(t *testing.T) {
	const key = "sk-local-QQxv81Kd0pLmZt7Y"
	dir := extractSample(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-request-id", "req-"+r.Header.Get("Authorization"))
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "## Work\n\n" + strings.Repeat("A long answer that runs away. ", 400) + key}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
		})
	}))
	defer srv.Close()
	bundle := filepath.Join(dir, "003-fix-button-color-v2", "compression-001")
	env := map[string]string{"COMPACT_API_KEY": key, "COMPACT_CASCADE_MAX_ANSWER_BYTES": "2000"}
	code, out, errOut := runIn(t, env, "replay", "--base-url", srv.URL+"/v1", "--api-model", "m", bundle)
	if code != 0 || !strings.Contains(out, "ok (cut)") || !strings.Contains(out, "cascade.max_answer_bytes") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	answer, err := os.ReadFile(filepath.Join(bundle, "replays", "m", "output.md"))
	if err != nil || len(answer) > 2000 || len(answer) < 1500 {
		t.Errorf("output.md of %d bytes (%v), want the first 2000 at most", len(answer), err)
	}
	var all strings.Builder
	all.WriteString(out + errOut)
	filepath.WalkDir(bundle, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			all.Write(b)
		}
		return nil
	})
	if strings.Contains(all.String(), key) || strings.Contains(strings.ToLower(all.String()), strings.ToLower(key)) {
		t.Error("the key reached the output or the bundle")
	}
}
