package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileIsChecked: before, a typo (compresion), a value where a section
// goes and a duration that is not one were taken without a word: the typo
// and the section ignored, the duration read as 0 ("cascade.timeout must
// be > 0, got 0s"). Each is now an error naming the file and the key.
func TestFileIsChecked(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"compresion:\n  threshold: 0.3\n", "compresion is not a setting (did you mean compression?)"},
		{"cascade:\n  timout: 1s\n", "cascade.timout is not a setting (did you mean cascade.timeout?)"},
		{"zzz: 1\n", "zzz is not a setting (the settings are listed"},
		{"compression: 5\n", "compression is a section (compression.agent,"},
		{"cascade:\n  timeout:\n    a: 1\n", "cascade.timeout is a single value, not a section"},
		{"cascade:\n  timeout: abc\n", `cascade.timeout: "abc" is not a duration (like 30s)`},
		{"cascade:\n  models: gemini\n", `cascade.models is a list, not "gemini"`},
		{"cascade:\n  max_tries: 2.5\n", `cascade.max_tries: "2.5" is not a whole number`},
		{"compression:\n  threshold: high\n", `compression.threshold: "high" is not a number`},
		{"providers:\n  local:\n    rpm: fast\n", `providers.local.rpm: "fast" is not a whole number`},
		{"context_windows:\n  my-model: big\n", `context_windows.my-model: "big" is not a whole number`},
		{"extract:\n  channel: [a]\n", "extract.channel is a single value, not a list"},
	} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		os.WriteFile(path, []byte(tc.yaml), 0o600)
		_, err := LoadEnv(path, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: %v, want %q and the path", tc.yaml, err, tc.want)
		}
	}
	// what the README and the defaults' comments show is accepted
	ok := "compression:\n  threshold: 0.5\n  hard_cap_tokens: 100000\ncascade:\n  timeout: 1m\n  temperature: 0\n  models: [gpt-5.4-nano]\n" +
		"providers:\n  local:\n    kind: openai-compatible\n    base_url: http://127.0.0.1:8080\n    api_key_env: LOCAL_KEY\n    max_tokens_field: max_tokens\n    rpm: 0\n  gemini:\n    api_key: x\n" +
		"context_windows:\n  my-model: 32768\nextra_models:\n  - id: local-qwen\n    provider: local\n    api_model: qwen\n"
	path := filepath.Join(t.TempDir(), "ok.yaml")
	os.WriteFile(path, []byte(ok), 0o600)
	if _, err := LoadEnv(path, func(string) string { return "" }); err != nil {
		t.Errorf("a good file: %v", err)
	}
}

func TestEnvironmentIsChecked(t *testing.T) {
	for env, want := range map[string]string{
		"COMPACT_COMPRESSION_THRESHOLD": `COMPACT_COMPRESSION_THRESHOLD: "x" is not a number`,
		"COMPACT_CASCADE_TIMEOUT":       `COMPACT_CASCADE_TIMEOUT: "x" is not a duration`,
		"COMPACT_CASCADE_MAX_TRIES":     `COMPACT_CASCADE_MAX_TRIES: "x" is not a whole number`,
	} {
		_, err := LoadEnv("", func(k string) string {
			if k == env {
				return "x"
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=x: %v, want %q", env, err, want)
		}
	}
	if _, err := LoadEnv("", func(k string) string {
		return map[string]string{"COMPACT_CASCADE_TIMEOUT": "2m", "COMPACT_COMPRESSION_THRESHOLD": "0.4", "COMPACT_CASCADE_MODELS": "a,b"}[k]
	}); err != nil {
		t.Errorf("good values: %v", err)
	}
}

func TestJoinOr(t *testing.T) {
	for _, tc := range []struct {
		items []string
		word  string
		want  string
	}{
		{nil, "or", ""},
		{[]string{"a"}, "or", "a"},
		{[]string{"a", "b"}, "or", "a or b"},
		{[]string{"a", "b", "c"}, "or", "a, b or c"},
		{[]string{"a", "b", "c", "d"}, "and", "a, b, c and d"},
	} {
		if got := JoinOr(tc.items, tc.word); got != tc.want {
			t.Errorf("JoinOr(%q, %q) = %q, want %q", tc.items, tc.word, got, tc.want)
		}
	}
}
