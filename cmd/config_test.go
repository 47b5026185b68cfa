package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
	var entries []struct {
		Key    string `json:"key"`
		Value  any    `json:"value"`
		Source string `json:"source"`
	}
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	vals := map[string]any{}
	for _, e := range entries {
		got[e.Key], vals[e.Key] = e.Source, e.Value
	}
	for key, want := range map[string]string{
		"profile":                           "file " + cfg,
		"compression.threshold":             "env COMPACT_COMPRESSION_THRESHOLD",
		"compression.kept_budget_fraction":  "default",
		"context_windows.claude-sonnet-4.6": "default",
		"cascade.timeout":                   "default",
	} {
		if got[key] != want {
			t.Errorf("%s: source %q, want %q", key, got[key], want)
		}
	}
	if vals["profile"] != "head" || vals["providers.openai.api_key"] != "[redacted]" {
		t.Errorf("values: profile %v, key %v", vals["profile"], vals["providers.openai.api_key"])
	}
}
