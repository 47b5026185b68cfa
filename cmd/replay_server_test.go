package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/compactlab/compact/internal/replay"
)

// chatServer speaks the OpenAI chat-completions wire format on loopback and
// keeps every request it gets.
type chatServer struct {
	srv    *httptest.Server
	answer string
	usage  [2]int // prompt and completion tokens
	mu     sync.Mutex
	reqs   []chatRequest
}

type chatRequest struct {
	Path   string
	Header http.Header
	Body   []byte
}

func newChatServer(t *testing.T, answer string) *chatServer {
	t.Helper()
	s := &chatServer{answer: answer, usage: [2]int{1000, 200}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, chatRequest{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		s.mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-local", "object": "chat.completion", "model": "whatever",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": s.answer}}},
			"usage": map[string]any{"prompt_tokens": s.usage[0], "completion_tokens": s.usage[1], "total_tokens": s.usage[0] + s.usage[1]},
		})
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *chatServer) requests() []chatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chatRequest(nil), s.reqs...)
}

// wireRequest is the part of a chat-completions body the tests check; raw
// numbers stay raw so that 0.1 is checked as sent.
type wireRequest struct {
	Model       string          `json:"model"`
	Temperature json.RawMessage `json:"temperature"`
	MaxTokens   json.RawMessage `json:"max_tokens"`
	MaxCompl    json.RawMessage `json:"max_completion_tokens"`
	Messages    []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func decodeWire(t *testing.T, body []byte) wireRequest {
	t.Helper()
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	return w
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestReplayOnALocalServerFromTheCommandLine: --base-url and --api-model
// alone (no configuration file, no key) replay every bundle on an
// OpenAI-compatible server: the bundle's two prompt files byte for byte,
// the model asked for, temperature 0.1 and the configured output limit;
// recorded as openai-compatible at no cost, beside each bundle.
func TestReplayOnALocalServerFromTheCommandLine(t *testing.T) {
	dir := extractSample(t)
	bundles, _ := replayFinder.Find([]string{dir})
	answer := "## Briefing\n\nYou asked a local model to summarise this chat, and it did."
	srv := newChatServer(t, answer)
	// An OpenAI key in the environment is not sent to the server.
	env := map[string]string{"OPENAI_API_KEY": "sk-openai-SECRET-1", "COMPACT_CASCADE_MAX_OUTPUT_TOKENS": "1234"}
	code, out, errOut := runIn(t, env, "replay", "--json", "--base-url", srv.srv.URL+"/v1", "--api-model", "some-model", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	reqs := srv.requests()
	if len(reqs) != len(bundles) || len(bundles) != 7 {
		t.Fatalf("%d requests for %d bundles", len(reqs), len(bundles))
	}
	byUser := map[string]wireRequest{}
	for _, r := range reqs {
		if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "" {
			t.Errorf("request to %s with Authorization %q", r.Path, r.Header.Get("Authorization"))
		}
		w := decodeWire(t, r.Body)
		if w.Model != "some-model" || string(w.Temperature) != "0.1" || string(w.MaxTokens) != "1234" || w.MaxCompl != nil || len(w.Messages) != 2 {
			t.Errorf("request body %s", r.Body)
			continue
		}
		byUser[w.Messages[1].Content] = w
	}
	for _, b := range bundles {
		sys, user := readFile(t, filepath.Join(b, "system-prompt.md")), readFile(t, filepath.Join(b, "user-message.md"))
		w, ok := byUser[user]
		if !ok {
			t.Errorf("%s: no request carried user-message.md byte for byte", b)
			continue
		}
		if w.Messages[0].Role != "system" || w.Messages[0].Content != sys || w.Messages[1].Role != "user" {
			t.Errorf("%s: the system message is not system-prompt.md byte for byte", b)
		}
		rec, err := replay.ReadRecord(b, "some-model")
		if err != nil {
			t.Fatal(err)
		}
		if !rec.OK() || *rec.Model != "some-model" || rec.Provider != "openai-compatible" || rec.CostUSD != 0 || rec.Bundle != b ||
			rec.Temperature == nil || *rec.Temperature != 0.1 || rec.Attempts[0].APIModel != "some-model" || rec.Usage.InputTokens != 1000 {
			t.Errorf("%s: record %+v", b, rec)
		}
		if got := readFile(t, filepath.Join(b, "replays", "some-model", "output.md")); got != answer {
			t.Errorf("%s: output.md %q", b, got)
		}
		raw := readFile(t, filepath.Join(b, "replays", "some-model", "replay.json"))
		if !strings.Contains(raw, `"costUsd": 0,`) || !strings.Contains(raw, `"bundle": `+strconv.Quote(b)) || strings.Contains(raw, "SECRET") {
			t.Errorf("%s: replay.json\n%s", b, raw)
		}
	}
	var res struct {
		Models []string `json:"models"`
		Totals struct {
			OK      int             `json:"ok"`
			CostUSD json.RawMessage `json:"costUsd"`
		} `json:"totals"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Totals.OK != 7 || string(res.Totals.CostUSD) != "0" || len(res.Models) != 1 || res.Models[0] != "some-model" {
		t.Errorf("--json: %v %+v", err, res)
	}

	// With COMPACT_API_KEY the server gets it as a bearer token, and it
	// shows nowhere; a model name with a colon makes a plain run name.
	env["COMPACT_API_KEY"] = "local-SECRET-2"
	code, out, errOut = runIn(t, env, "replay", "--base-url", srv.srv.URL, "--api-model", "qwen2.5-coder:7b", bundles[0])
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	reqs = srv.requests()
	if last := reqs[len(reqs)-1]; last.Header.Get("Authorization") != "Bearer local-SECRET-2" || decodeWire(t, last.Body).Model != "qwen2.5-coder:7b" {
		t.Errorf("with a key: Authorization %q, body %s", last.Header.Get("Authorization"), last.Body)
	}
	raw := readFile(t, filepath.Join(bundles[0], "replays", "qwen2.5-coder-7b", "replay.json"))
	if strings.Contains(raw+out+errOut, "SECRET") {
		t.Error("a key reached the output or the record")
	}
}

// TestReplayOnAServerOfTheConfigFile: a providers.<name> entry of kind
// openai-compatible is selected with --model NAME (--api-model names the
// model; with one model of the table on it, that one), its key comes from
// its api_key_env, and its name is the recorded provider.
func TestReplayOnAServerOfTheConfigFile(t *testing.T) {
	dir := extractSample(t)
	bundles, _ := replayFinder.Find([]string{dir})
	srv := newChatServer(t, "## Briefing\n\nA configured server wrote this briefing for you.")
	cfg := filepath.Join(t.TempDir(), "compact.yaml")
	yaml := fmt.Sprintf("providers:\n  lab:\n    kind: openai-compatible\n    base_url: %s\n    api_key_env: LAB_KEY\n"+
		"extra_models:\n  - id: lab-llama\n    provider: lab\n    api_model: llama-3.1-8b\n    price_in_per_mtok: 0\n", srv.srv.URL)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"LAB_KEY": "lab-SECRET-3"}
	for _, tc := range []struct {
		args      []string
		run, sent string
	}{
		{[]string{"--model", "lab", "--api-model", "qwen3-8b"}, "qwen3-8b", "qwen3-8b"},
		{[]string{"--model", "lab"}, "lab-llama", "llama-3.1-8b"},
		{[]string{"--model", "lab-llama"}, "lab-llama-2", "llama-3.1-8b"},
	} {
		args := append(append([]string{"--config", cfg, "replay", "--run", tc.run}, tc.args...), bundles[0])
		code, out, errOut := runIn(t, env, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", tc.args, code, out, errOut)
		}
		reqs := srv.requests()
		last := reqs[len(reqs)-1]
		w := decodeWire(t, last.Body)
		if w.Model != tc.sent || string(w.Temperature) != "0.1" || last.Header.Get("Authorization") != "Bearer lab-SECRET-3" {
			t.Errorf("%v: body %s, Authorization %q", tc.args, last.Body, last.Header.Get("Authorization"))
		}
		rec, err := replay.ReadRecord(bundles[0], tc.run)
		if err != nil || rec.Provider != "lab" || rec.CostUSD != 0 {
			t.Errorf("%v: record %+v %v", tc.args, rec, err)
		}
	}
	// A configured server that is not openai-compatible, or an unknown
	// name, is a usage error listing what --model takes.
	code, _, errOut := runIn(t, env, "--config", cfg, "replay", "--model", "nope", bundles[0])
	if code != 2 || !strings.Contains(errOut, "builtin") || !strings.Contains(errOut, "lab") {
		t.Errorf("unknown model: exit %d, %q", code, errOut)
	}
}

// TestReplayWithoutKeysStopsBeforeSending: with no key at all, the
// default replay (the cascade) says once which variables to set and what
// to do instead, exits 2 and writes nothing.
func TestReplayWithoutKeysStopsBeforeSending(t *testing.T) {
	dir := extractSample(t)
	bundles, _ := replayFinder.Find([]string{dir})
	noReplays := func(what string) {
		t.Helper()
		for _, b := range bundles {
			if _, err := os.Stat(filepath.Join(b, "replays")); err == nil {
				t.Errorf("%s: %s has a replays directory", what, b)
			}
		}
	}
	code, out, errOut := runIn(t, nil, "replay", dir)
	if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "compact replay: no API key for any model of the cascade") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, want := range []string{"GOOGLE_API_KEY or GEMINI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "--model builtin", "--dry-run"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the error does not say %q: %s", want, errOut)
		}
	}
	noReplays("cascade")
	code, _, errOut = runIn(t, nil, "replay", "--model", "claude-haiku-4.5", "--json", dir)
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "no API key for claude-haiku-4.5: set ANTHROPIC_API_KEY") || strings.Contains(errOut, "OPENAI") {
		t.Errorf("one model: exit %d, %q", code, errOut)
	}
	noReplays("--model")

	// With one key of three the cascade goes on without the others, says
	// so once, and sends only where it can.
	srv := newChatServer(t, "## Briefing\n\nThe one model with a key wrote this for you.")
	env := map[string]string{"OPENAI_API_KEY": "sk-openai-SECRET-4", "COMPACT_OPENAI_BASE_URL": srv.srv.URL}
	code, out, errOut = runIn(t, env, "replay", dir)
	if code != 0 {
		t.Fatalf("one key: exit %d\n%s%s", code, out, errOut)
	}
	if errOut != "compact replay: no API key for gemini-3.1-flash-lite (set GOOGLE_API_KEY or GEMINI_API_KEY) and claude-haiku-4.5 (set ANTHROPIC_API_KEY); the cascade goes on without them\n" {
		t.Errorf("one key: stderr %q", errOut)
	}
	if n := len(srv.requests()); n != len(bundles) {
		t.Errorf("%d requests for %d bundles", n, len(bundles))
	}
	for _, b := range bundles {
		rec, err := replay.ReadRecord(b, "cascade")
		if err != nil || !rec.OK() || len(rec.Models) != 1 || rec.Models[0] != "gpt-5.4-nano" || len(rec.Attempts) != 1 {
			t.Errorf("%s: record %+v %v", b, rec, err)
		}
	}
}

// TestReplayChannelReadsWhatExtractWroteForIt: extract --channel nightly,
// then replay --channel nightly (or extract.channel from the environment)
// replays those bundles and no others.
func TestReplayChannelReadsWhatExtractWroteForIt(t *testing.T) {
	out := t.TempDir()
	env := map[string]string{"COMPACT_EXTRACT_OUT": out}
	if code, _, errOut := runIn(t, env, "extract", "--db", sampleDB, "--channel", "nightly"); code != 0 {
		t.Fatalf("extract: %s", errOut)
	}
	nightly := filepath.Join(out, "nightly")
	bundles, _ := replayFinder.Find([]string{nightly})
	if len(bundles) != 7 {
		t.Fatalf("%d bundles under %s", len(bundles), nightly)
	}
	code, stdout, errOut := runIn(t, env, "replay", "--channel", "nightly", "--model", "builtin")
	if code != 0 || !strings.Contains(stdout, "7 bundles: 7 ok") {
		t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
	}
	for _, b := range bundles {
		if rec, err := replay.ReadRecord(b, "builtin"); err != nil || rec.Bundle != b {
			t.Errorf("%s: %+v %v", b, rec, err)
		}
	}
	// The default channel has no extract output: exit 2, naming it.
	code, _, errOut = runIn(t, env, "replay", "--model", "builtin")
	if code != 2 || !strings.Contains(errOut, filepath.Join(out, "prerelease")+" does not exist") {
		t.Errorf("default channel: exit %d, %q", code, errOut)
	}
	// extract.channel from the environment picks the channel as well, and
	// the hint names it.
	env["COMPACT_EXTRACT_CHANNEL"] = "nightly"
	code, stdout, _ = runIn(t, env, "replay", "--model", "builtin", "--run", "again")
	if code != 0 || !strings.Contains(stdout, "7 bundles: 7 ok") {
		t.Errorf("COMPACT_EXTRACT_CHANNEL: exit %d\n%s", code, stdout)
	}
	code, _, errOut = runIn(t, env, "replay", "--model", "builtin", "--channel", "dev")
	if code != 2 || !strings.Contains(errOut, "compact extract --channel dev") {
		t.Errorf("dev: exit %d, %q", code, errOut)
	}
}

// TestReplayCostsToTheMicroDollar: a price per million tokens times a
// token count has float noise (0.00029845000000000003); replay.json,
// --json and the table carry micro-dollars.
func TestReplayCostsToTheMicroDollar(t *testing.T) {
	dir := extractSample(t)
	bundles, _ := replayFinder.Find([]string{dir})
	srv := newChatServer(t, "## Briefing\n\nA priced model wrote this briefing for you.")
	srv.usage = [2]int{1111, 61}
	// gpt-5.4-nano: 0.20 in, 1.25 out per million tokens.
	in, outTok := 0.20, 1.25
	raw := (float64(srv.usage[0])*in + float64(srv.usage[1])*outTok) / 1e6
	if s := strconv.FormatFloat(raw, 'f', -1, 64); len(s) <= len("0.000000") {
		t.Fatalf("no float noise in %s", s)
	}
	each := math.Round(raw*1e6) / 1e6
	eachStr := strconv.FormatFloat(each, 'f', -1, 64)
	total := strconv.FormatFloat(math.Round(each*float64(len(bundles))*1e6)/1e6, 'f', -1, 64)
	env := map[string]string{"OPENAI_API_KEY": "sk-openai-SECRET-5", "COMPACT_OPENAI_BASE_URL": srv.srv.URL}
	code, out, errOut := runIn(t, env, "replay", "--model", "gpt-5.4-nano", "--json", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, `"costUsd": `+eachStr+",\n") || !strings.Contains(out, `"costUsd": `+total+"\n") {
		t.Errorf("--json lacks %s and %s:\n%s", eachStr, total, out)
	}
	recJSON := readFile(t, filepath.Join(bundles[0], "replays", "gpt-5.4-nano", "replay.json"))
	if strings.Count(recJSON, `"costUsd": `+eachStr) != 2 {
		t.Errorf("replay.json does not carry %s (attempt and total):\n%s", eachStr, recJSON)
	}
	code, out, _ = runIn(t, env, "replay", "--model", "gpt-5.4-nano", "--force", dir)
	if code != 0 || !strings.Contains(out, "  $"+eachStr+"  ") || !strings.HasSuffix(out, ", $"+total+"\n") {
		t.Errorf("table lacks $%s and $%s:\n%s", eachStr, total, out)
	}
}

func TestReplayUSD(t *testing.T) {
	for in, want := range map[float64]string{0: "$0", 0.00037055000000000004: "$0.000371", 0.0123: "$0.0123", 1.5: "$1.50", 12: "$12.00", 0.1 + 0.2: "$0.30"} {
		if got := usd(in); got != want {
			t.Errorf("usd(%v) = %s, want %s", in, got, want)
		}
	}
}

// TestReplayCompletesModelsAndRuns: the shell completes --model from the
// model table and --run from the run directories of the channel's bundles.
func TestReplayCompletesModelsAndRuns(t *testing.T) {
	out := t.TempDir()
	env := map[string]string{"COMPACT_EXTRACT_OUT": out}
	if code, _, errOut := runIn(t, env, "extract", "--db", sampleDB); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runIn(t, env, "replay", "--model", "builtin", "--run", "baseline-run"); code != 0 {
		t.Fatal(errOut)
	}
	_, models, _ := runIn(t, env, "__complete", "replay", "--model", "")
	for _, want := range []string{"builtin\n", "gpt-5.4-nano\n", "claude-haiku-4.5\n", ":4\n"} {
		if !strings.Contains(models, want) {
			t.Errorf("--model completion lacks %q:\n%s", want, models)
		}
	}
	_, runs, _ := runIn(t, env, "__complete", "replay", "--run", "")
	if !strings.HasPrefix(runs, "baseline-run\n:4\n") {
		t.Errorf("--run completion:\n%s", runs)
	}
	_, channels, _ := runIn(t, env, "__complete", "replay", "--channel", "")
	if !strings.Contains(channels, "nightly\n") {
		t.Errorf("--channel completion:\n%s", channels)
	}
}
