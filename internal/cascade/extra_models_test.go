package cascade

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/compactlab/compact/internal/config"
)

func TestExtraModelsAddAndReplaceWithoutDroppingTheTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	cfg := `extra_models:
  - id: local-llama
    provider: openai
    api_model: llama-3.3-70b
    context_window: 131072
    accepts_temperature: true
    max_output_tokens: 8192
    price_in_per_mtok: 0
    price_out_per_mtok: 0
  - id: gpt-5.4-nano
    provider: openai
    api_model: gpt-5.4-nano-2026
    context_window: 400000
    accepts_temperature: false
    max_output_tokens: 1000
    price_in_per_mtok: 0.2
    price_out_per_mtok: 1.25
`
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := config.LoadEnv(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ms, err := LoadModels(st)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := ms.Lookup("local-llama"); !ok || m.APIModel != "llama-3.3-70b" || !m.AcceptsTemperature {
		t.Errorf("local-llama: %+v %v", m, ok)
	}
	if m, _ := ms.Lookup("gpt-5.4-nano"); m.APIModel != "gpt-5.4-nano-2026" || m.MaxOutputTokens != 1000 {
		t.Errorf("gpt-5.4-nano not replaced: %+v", m)
	}
	if _, ok := ms.Lookup("claude-haiku-4.5"); !ok {
		t.Error("the default table was dropped")
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("extra_models:\n  - id: x\n    provider: openai\n    bogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ = config.LoadEnv(bad, func(string) string { return "" })
	if _, err := LoadModels(st); err == nil {
		t.Error("a bad extra_models entry was accepted")
	} else {
		t.Log(err)
	}
}
