package cascade

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/upstream"
)

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaultConfig(t *testing.T) {
	st, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := LoadModels(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5", "claude-sonnet-4.6", "claude-opus-4.6", "gpt-5.4", "gpt-5.4-mini", "gemini-3.1-pro", "gemini-3.1-flash", "builtin",
		"default", "deepseek-v4-pro", "deepseek-v4-flash", "gpt-5.6-luna"} {
		m, ok := ms.Lookup(id)
		if !ok {
			t.Errorf("model %s missing", id)
			continue
		}
		if m.ContextWindow <= 0 || m.APIModel == "" {
			t.Errorf("model %+v", m)
		}
		if id != "builtin" && (m.PriceInPerMTok <= 0 || m.PriceOutPerMTok <= 0 || m.MaxOutputTokens < 20000) {
			t.Errorf("model %+v", m)
		}
		if strings.HasPrefix(id, "gpt-5") || strings.HasPrefix(id, "claude") {
			if m.AcceptsTemperature {
				t.Errorf("%s accepts temperature", id)
			}
		}
	}
	// The models the v1.29.0 cascade adds have the app's context windows.
	head := upstream.Catalogs[upstream.GenHead]
	for _, id := range head.Cascade {
		if m, ok := ms.Lookup(id); !ok || m.ContextWindow != head.Windows[id] {
			t.Errorf("%s: model %+v, window %d in the catalogue", id, m, head.Windows[id])
		}
	}
	s, err := LoadSettings(st)
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Models:  []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"},
		Timeout: 30 * time.Second, Temperature: 0.1, MaxOutputTokens: 20000, MinOutputChars: 30, MaxAnswerBytes: 4 << 20,
		Retry: Retry{MaxTries: 4, BaseDelay: 500 * time.Millisecond, MaxDelay: 8 * time.Second},
	}
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("settings (-want +got):\n%s", d)
	}
	if d := cmp.Diff(DefaultSettings(), s); d != "" {
		t.Errorf("DefaultSettings and the file differ:\n%s", d)
	}
	ps, err := LoadProviders(st, envMap(map[string]string{"GEMINI_API_KEY": geminiKey, "OPENAI_API_KEY": openaiKey}))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range ps {
		got[p.Name] = fmt.Sprintf("%s %s %s", p.Kind, p.BaseURL, p.KeySource)
	}
	wantP := map[string]string{
		"gemini":    "gemini https://generativelanguage.googleapis.com env GEMINI_API_KEY",
		"openai":    "openai https://api.openai.com env OPENAI_API_KEY",
		"anthropic": "anthropic https://api.anthropic.com missing: ANTHROPIC_API_KEY, providers.anthropic.api_key",
		"deepseek":  "openai-compatible https://api.deepseek.com/v1 missing: DEEPSEEK_API_KEY, providers.deepseek.api_key",
		"builtin":   "builtin  ",
	}
	if d := cmp.Diff(wantP, got); d != "" {
		t.Errorf("providers (-want +got):\n%s", d)
	}
	c, err := Load(st, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Order("claude-opus-4.6")) != 4 {
		t.Error(c.Order("claude-opus-4.6"))
	}
}

func TestProvidersFromFileAndEnv(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	os.WriteFile(path, []byte(`
providers:
  gemini:
    base_url: http://127.0.0.1:9001
    rpm: 60
  anthropic:
    api_key: `+anthropicKey+`
  local:
    kind: openai-compatible
    base_url: http://127.0.0.1:8080/
    api_key_env: LOCAL_KEY
    max_tokens_field: max_completion_tokens
models:
  - id: qwen3
    provider: local
    api_model: Qwen/Qwen3-8B
    context_window: 32768
    accepts_temperature: true
`), 0o600)
	st, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"GOOGLE_API_KEY": geminiKey, "GEMINI_API_KEY": "other",
		"COMPACT_OPENAI_BASE_URL": "http://127.0.0.1:9002",
		"LOCAL_KEY":               compatKey,
	}
	ps, err := LoadProviders(st, envMap(env))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ProviderConfig{}
	for _, p := range ps {
		byName[p.Name] = p
	}
	if p := byName["gemini"]; p.BaseURL != "http://127.0.0.1:9001" || p.RPM != 60 || p.APIKey != geminiKey || p.KeySource != "env GOOGLE_API_KEY" {
		t.Errorf("gemini %v", p)
	}
	if p := byName["openai"]; p.BaseURL != "http://127.0.0.1:9002" {
		t.Errorf("openai %v", p)
	}
	if p := byName["anthropic"]; p.APIKey != anthropicKey || p.KeySource != "file providers.anthropic.api_key" {
		t.Errorf("anthropic %v", p)
	}
	if p := byName["local"]; p.Kind != KindOpenAICompatible || p.APIKey != compatKey || p.KeySource != "env LOCAL_KEY" || p.MaxTokensField != "max_completion_tokens" {
		t.Errorf("local %v", p)
	}
	// The env variable wins over the file.
	env["ANTHROPIC_API_KEY"] = "env-key-123456"
	ps, _ = LoadProviders(st, envMap(env))
	for _, p := range ps {
		if p.Name == "anthropic" && p.KeySource != "env ANTHROPIC_API_KEY" {
			t.Errorf("anthropic %v", p)
		}
	}
	// The user's models: list replaces the table, so the default cascade
	// models are unknown.
	ms, err := LoadModels(st)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := LoadSettings(st)
	if _, err := New(s, ms, ps); err == nil || !strings.Contains(err.Error(), `"gemini-3.1-flash-lite" is not in the model table`) {
		t.Errorf("New: %v", err)
	}
	s.Models = []string{"qwen3"}
	c, err := New(s, ms, ps)
	if err != nil {
		t.Fatal(err)
	}
	d := c.Describe(Input{System: "s", User: "u"}, []string{"qwen3"})[0]
	if d.URL != "http://127.0.0.1:8080/v1/chat/completions" || d.APIModel != "Qwen/Qwen3-8B" || d.Auth != "Authorization: Bearer (env LOCAL_KEY)" {
		t.Errorf("describe %+v", d)
	}
}

func TestParseModelsErrors(t *testing.T) {
	entry := func(kv ...any) map[string]any {
		m := map[string]any{"id": "m1", "provider": "p"}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
				continue
			}
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		raw  any
		want string
	}{
		{nil, "models: the model table is missing"},
		{"x", "models: want a list"},
		{[]any{"x"}, "models[0]: want a mapping"},
		{[]any{entry("id", nil)}, "models[0]: id is missing"},
		{[]any{entry("provider", nil)}, "models[0] (m1): provider is missing"},
		{[]any{entry(), entry()}, "models[1] (m1): duplicate id, also models[0]"},
		{[]any{entry("accept_temperature", true)}, "models[0] (m1): unknown key accept_temperature"},
		{[]any{entry("accepts_temperature", "yes")}, "models[0] (m1): accepts_temperature must be true or false"},
		{[]any{entry("context_window", "lots")}, "models[0] (m1): context_window must be a number"},
		{[]any{entry("max_output_tokens", 1.5)}, "models[0] (m1): max_output_tokens must be a whole number"},
		{[]any{entry("price_in_per_mtok", -1)}, "models[0] (m1): price_in_per_mtok must be ≥ 0"},
	} {
		_, err := ParseModels(tc.raw)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.raw, err, tc.want)
		}
	}
	ms, err := ParseModels([]any{entry("price_in_per_mtok", "0.5", "price_out_per_mtok", 2)})
	if err != nil || ms[0].APIModel != "m1" || !ms[0].AcceptsTemperature || ms[0].PriceInPerMTok != 0.5 {
		t.Errorf("%+v %v", ms, err)
	}
	if c := ms[0].Cost(Usage{InputTokens: 2_000_000, OutputTokens: 1_000_000}); c != 3 {
		t.Errorf("cost %v", c)
	}
}

func TestProviderConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		yaml, want string
	}{
		{"providers:\n  local:\n    base_url: http://x\n", "providers.local: kind is missing"},
		{"providers:\n  local:\n    kind: ollama\n", `providers.local: unknown kind "ollama"`},
		{"providers:\n  local:\n    kind: openai-compatible\n", "providers.local: base_url is required"},
		{"providers:\n  openai:\n    base_url: api.openai.com\n", "providers.openai: base_url \"api.openai.com\" is not an http(s) server root"},
		{"providers:\n  openai:\n    baseurl: http://x\n", "providers.openai.baseurl is not a setting (did you mean providers.openai.base_url?)"},
		{"providers:\n  openai:\n    max_tokens_field: max_tokens\n", "max_tokens_field applies to kind openai-compatible only"},
		{"providers:\n  gemini:\n    rpm: -1\n", "providers.gemini: rpm must be ≥ 0"},
	} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		os.WriteFile(path, []byte(tc.yaml), 0o600)
		// the configuration's own check catches some (unknown keys)
		st, err := config.Load(path)
		if err == nil {
			_, err = LoadProviders(st, envMap(nil))
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
