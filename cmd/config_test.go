package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

type cfgEntry struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
	Env    string `json:"env"`
}

func cfgShowJSON(t *testing.T, env map[string]string, args ...string) map[string]cfgEntry {
	t.Helper()
	code, out, errOut := runIn(t, env, append(args, "--json", "config", "show")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var entries []cfgEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	byKey := map[string]cfgEntry{}
	for _, e := range entries {
		if _, dup := byKey[e.Key]; dup {
			t.Errorf("key %s listed twice", e.Key)
		}
		byKey[e.Key] = e
	}
	return byKey
}

// cfgShowText runs config show and returns its lines by key: the value and
// the source columns.
func cfgShowText(t *testing.T, env map[string]string, args ...string) (lines map[string][2]string, out string) {
	t.Helper()
	code, out, errOut := runIn(t, env, append(args, "config", "show")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines = map[string][2]string{}
	cols := regexp.MustCompile(`^(\S+)  +(.*?)  +(default|file .*|env .*|flag .*|profile \S+)$`)
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l == "" {
			break // the API key section follows
		}
		m := cols.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is not KEY VALUE SOURCE", l)
		}
		lines[m[1]] = [2]string{m[2], m[3]}
	}
	return lines, out
}

func TestConfigShowSaysWhereEachValueComesFrom(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("profile: head\nproviders:\n  openai:\n    api_key: sk-in-file-secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"COMPACT_COMPRESSION_THRESHOLD": "0.4"}
	code, out, errOut := runIn(t, env, "--config", cfg, "--json", "config", "show")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "sk-in-file-secret") {
		t.Fatal("config show printed a key")
	}
	entries := cfgShowJSON(t, env, "--config", cfg)
	for key, want := range map[string]string{
		"profile":                           "file " + cfg,
		"compression.threshold":             "env COMPACT_COMPRESSION_THRESHOLD",
		"compression.kept_budget_fraction":  "default",
		"context_windows.claude-sonnet-4.6": "profile v1.29.0",
		"context_windows.gpt-5.6-luna":      "profile v1.29.0",
		"cascade.models":                    "profile v1.29.0",
		"cascade.timeout":                   "default",
		"models[gpt-5.4-nano].api_model":    "default",
	} {
		if entries[key].Source != want {
			t.Errorf("%s: source %q, want %q", key, entries[key].Source, want)
		}
	}
	if entries["profile"].Value != "head" || entries["providers.openai.api_key"].Value != "[redacted]" {
		t.Errorf("values: profile %v, key %v", entries["profile"].Value, entries["providers.openai.api_key"].Value)
	}
	if e := entries["compression.threshold"]; e.Env != "COMPACT_COMPRESSION_THRESHOLD" || e.Value != "0.4" {
		t.Errorf("compression.threshold: %+v", e)
	}
}

// TestConfigShowNestedOnePerLine: the model table and the other nested
// settings are printed one leaf per line, never as a Go map.
func TestConfigShowNestedOnePerLine(t *testing.T) {
	lines, out := cfgShowText(t, nil)
	if strings.Contains(out, "map[") || strings.Contains(out, "::") {
		t.Errorf("output holds a Go map or an internal key:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 160 {
			t.Errorf("line of %d characters: %q", len(l), l)
		}
	}
	for key, want := range map[string][2]string{
		"models[gpt-5.4-nano].api_model":          {"gpt-5.4-nano", "default"},
		"models[claude-haiku-4.5].api_model":      {"claude-haiku-4-5", "default"},
		"models[claude-haiku-4.5].context_window": {"200000", "default"},
		"models[builtin].provider":                {"builtin", "default"},
		"providers.openai.base_url":               {`""`, "default"},
		"cascade.models":                          {"gemini-3.1-flash-lite, gpt-5.4-nano, claude-haiku-4.5", "profile v1.4.1-nightly20260602c001"},
		"cascade.abort_grace":                     {"0s", "profile v1.4.1-nightly20260602c001"},
		"context_windows.gemini-3.1-flash-lite":   {"1000000", "profile v1.4.1-nightly20260602c001"},
		"compression.hard_cap_tokens":             {"(unset)", "default"},
		"extra_models":                            {"[]", "default"},
		"extract.channel":                         {"prerelease", "default"},
	} {
		if got, ok := lines[key]; !ok || got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
	if _, ok := lines["models"]; ok {
		t.Error("the model table is printed as one line")
	}

	// A user file's model table is shown with the file as its source.
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("extra_models:\n  - id: local-llm\n    provider: local\n    api_model: qwen\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, _ = cfgShowText(t, nil, "--config", cfg)
	if got := lines["extra_models[local-llm].api_model"]; got != [2]string{"qwen", "file " + cfg} {
		t.Errorf("extra_models[local-llm].api_model: %q", got)
	}
}

// TestConfigShowEnvSources: the base URL variables the README documents
// (COMPACT_OPENAI_BASE_URL) and the generic ones
// (COMPACT_PROVIDERS_GEMINI_BASE_URL) both show as the value's source.
func TestConfigShowEnvSources(t *testing.T) {
	env := map[string]string{
		"COMPACT_OPENAI_BASE_URL":           "http://127.0.0.1:8080",
		"COMPACT_PROVIDERS_GEMINI_BASE_URL": "http://127.0.0.1:9001",
		"COMPACT_EXTRACT_CHANNEL":           "nightly",
	}
	lines, _ := cfgShowText(t, env)
	for key, want := range map[string][2]string{
		"providers.openai.base_url":    {"http://127.0.0.1:8080", "env COMPACT_OPENAI_BASE_URL"},
		"providers.gemini.base_url":    {"http://127.0.0.1:9001", "env COMPACT_PROVIDERS_GEMINI_BASE_URL"},
		"providers.anthropic.base_url": {`""`, "default"},
		"extract.channel":              {"nightly", "env COMPACT_EXTRACT_CHANNEL"},
	} {
		if got := lines[key]; got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
	entries := cfgShowJSON(t, env)
	if e := entries["providers.openai.base_url"]; e.Value != "http://127.0.0.1:8080" || e.Source != "env COMPACT_OPENAI_BASE_URL" || e.Env != "COMPACT_OPENAI_BASE_URL" {
		t.Errorf("JSON providers.openai.base_url: %+v", e)
	}
	// A password in a URL stays off the screen.
	lines, out := cfgShowText(t, map[string]string{"COMPACT_ANTHROPIC_BASE_URL": "https://user:hunter2@proxy.example"})
	if strings.Contains(out, "hunter2") || !strings.HasPrefix(lines["providers.anthropic.base_url"][0], "https://") {
		t.Errorf("base_url with a password: %q", lines["providers.anthropic.base_url"])
	}
}

// TestConfigShowProviderKeys: one line per provider says whether its key is
// set and where, or which variable to set; the key never appears.
func TestConfigShowProviderKeys(t *testing.T) {
	const geminiKey = "AIza-fake-gemini-key-0123456789"
	const fileKey = "sk-ant-fake-file-key-987654321"
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("providers:\n  anthropic:\n    api_key: "+fileKey+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GEMINI_API_KEY": geminiKey}
	code, out, errOut := runIn(t, env, "--config", cfg, "config", "show")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"\nAPI keys (never printed):\n",
		"  anthropic:   key set (providers.anthropic.api_key, file " + cfg + ")\n",
		"  builtin:     needs no key\n",
		"  gemini:      key set (GEMINI_API_KEY)\n",
		"  openai:      no key (set OPENAI_API_KEY)\n",
		"  --base-url:  no key, optional (a server that wants one: set COMPACT_API_KEY)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, plain, _ := runIn(t, nil, "config", "show")
	if !strings.Contains(plain, "  gemini:      no key (set GOOGLE_API_KEY or GEMINI_API_KEY)\n") {
		t.Errorf("no gemini key:\n%s", plain[strings.Index(plain, "API keys"):])
	}
	_, jsonOut, _ := runIn(t, env, "--config", cfg, "--json", "config", "show")
	for _, o := range []string{out, jsonOut, errOut} {
		if strings.Contains(o, geminiKey) || strings.Contains(o, fileKey) || strings.Contains(o, "fake") {
			t.Fatalf("a key is printed:\n%s", o)
		}
	}
	entries := cfgShowJSON(t, env, "--config", cfg)
	for key, want := range map[string]cfgEntry{
		"providers.gemini.key_status":     {Key: "providers.gemini.key_status", Value: "set", Source: "env GEMINI_API_KEY", Env: "GEMINI_API_KEY"},
		"providers.openai.key_status":     {Key: "providers.openai.key_status", Value: "missing", Env: "OPENAI_API_KEY"},
		"providers.anthropic.key_status":  {Key: "providers.anthropic.key_status", Value: "set", Source: "providers.anthropic.api_key, file " + cfg},
		"providers.builtin.key_status":    {Key: "providers.builtin.key_status", Value: "not needed"},
		"providers.--base-url.key_status": {Key: "providers.--base-url.key_status", Value: "optional", Env: "COMPACT_API_KEY"},
	} {
		if got := entries[key]; got != want {
			t.Errorf("%s: %+v, want %+v", key, got, want)
		}
	}
}

// TestConfigShowServerKeyIsOptional: a local server's key is optional, and
// config show says so rather than asking for one.
func TestConfigShowServerKeyIsOptional(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("providers:\n  lab:\n    kind: openai-compatible\n    base_url: http://127.0.0.1:8080\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runIn(t, nil, "--config", cfg, "config", "show")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "  lab:         no key, optional (a server that wants one: set providers.lab.api_key_env)\n") {
		t.Errorf("server key line:\n%s", out[strings.Index(out, "API keys"):])
	}
	_, out, _ = runIn(t, map[string]string{"COMPACT_API_KEY": "secret-server-key"}, "config", "show")
	if !strings.Contains(out, "  --base-url:  key set (COMPACT_API_KEY)\n") || strings.Contains(out, "secret-server-key") {
		t.Errorf("--base-url key line:\n%s", out[strings.Index(out, "API keys"):])
	}
}
