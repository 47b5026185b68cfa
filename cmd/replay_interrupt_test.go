package cmd

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/replay"
)

// slowOpenAI answers chat completions after delay, in the OpenAI wire
// format, counting requests.
func slowOpenAI(t *testing.T, delay time.Duration, n *atomic.Int64) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test-interrupt" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		n.Add(1)
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-5.4-nano",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "## Briefing\n\nYou replayed this bundle against a slow server."}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestReplayInterruptAgainstASlowServer: Ctrl-C during a replay of many
// bundles against a slow server leaves only complete results and no
// temporary files, and a second run finishes the rest without sending the
// done ones again.
func TestReplayInterruptAgainstASlowServer(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a process cannot send itself an interrupt on Windows")
	}
	// 7 bundles from the sample, copied into 28.
	src := extractSample(t)
	root := filepath.Join(t.TempDir(), "many")
	srcBundles, _ := replayFinder.Find([]string{src})
	for i := 0; i < 28; i++ {
		copyTree(t, srcBundles[i%len(srcBundles)], filepath.Join(root, "b"+string(rune('a'+i/26))+string(rune('a'+i%26))))
	}
	var n atomic.Int64
	srv := slowOpenAI(t, 150*time.Millisecond, &n)
	env := map[string]string{"COMPACT_OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "sk-test-interrupt"}

	sig := make(chan os.Signal, 4)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	done := make(chan int, 1)
	var stderr string
	go func() {
		io, _, _, errOut := iostreams.Test()
		code := RunEnv(io, []string{"replay", "--model", "gpt-5.4-nano", "-j", "2", root}, func(k string) string { return env[k] })
		stderr = errOut.String()
		done <- code
	}()
	deadline := time.Now().Add(30 * time.Second)
	for n.Load() < 4 {
		if time.Now().After(deadline) {
			t.Fatal("the server saw no requests")
		}
		time.Sleep(5 * time.Millisecond)
	}
	self, _ := os.FindProcess(os.Getpid())
	if err := self.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var code int
	select {
	case code = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the interrupted replay did not stop")
	}
	if code != 130 || !strings.Contains(stderr, "compact replay: interrupted after ") || !strings.Contains(stderr, "run again to finish the rest") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	bundles, _ := replayFinder.Find([]string{root})
	complete := 0
	for _, b := range bundles {
		entries, _ := os.ReadDir(filepath.Join(b, "replays"))
		for _, e := range entries {
			if e.Name() != "gpt-5.4-nano" {
				t.Errorf("%s: leftover %s", b, e.Name())
			}
		}
		if rec, err := replay.ReadRecord(b, "gpt-5.4-nano"); err == nil {
			if !rec.OK() {
				t.Errorf("%s: record without an answer", b)
			}
			if _, err := os.Stat(filepath.Join(b, "replays", "gpt-5.4-nano", "output.md")); err != nil {
				t.Errorf("%s: record without output.md", b)
			}
			data, _ := os.ReadFile(filepath.Join(b, "replays", "gpt-5.4-nano", "replay.json"))
			if strings.Contains(string(data), "sk-test-interrupt") {
				t.Errorf("%s: the key reached replay.json", b)
			}
			complete++
		}
	}
	if complete == 0 || complete == len(bundles) {
		t.Fatalf("%d of %d complete after the interrupt", complete, len(bundles))
	}
	sent := n.Load()
	if code, _, errOut := runIn(t, env, "replay", "--model", "gpt-5.4-nano", "-j", "4", root); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errOut)
	}
	if got := n.Load() - sent; got != int64(len(bundles)-complete) {
		t.Errorf("the second run sent %d requests, want %d", got, len(bundles)-complete)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}
