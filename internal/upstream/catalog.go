package upstream

import (
	"strings"
	"time"
)

// Catalog is what a generation's app knows of its models, as far as
// history compression uses it.
type Catalog struct {
	// Cascade is the default compression cascade
	// (HISTORY_COMPRESSION_MODELS), tried in order.
	Cascade []string
	// AbortGrace is how long, after an attempt's timeout aborted its
	// request, the cascade waits for the request to settle; one that has
	// not settled by then stops the whole cascade. 0: no grace, the next
	// model is tried at once (GenE3E).
	AbortGrace time.Duration
	// Windows are the context windows (modelContextRaw) of the built-in
	// models, by model id, aliases included. A model not here is a failed
	// lookup unless the configuration adds it.
	Windows map[string]int
}

// Catalogs by generation: the catalogue of apps/browser/src/shared/
// available-models.ts and the cascade of history-compression/index.ts at
// each generation's commit.
var Catalogs = map[string]Catalog{
	GenE3E: {
		Cascade: []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"},
		Windows: map[string]int{
			"claude-opus-4.8":              1000000,
			"claude-opus-4.7":              1000000,
			"claude-opus-4.6":              200000,
			"gpt-5.5":                      1000000,
			"gpt-5.4":                      1100000,
			"gemini-3.1-pro-preview":       1000000,
			"gpt-5.3-codex":                128000,
			"claude-sonnet-4.6":            200000,
			"kimi-k2.6":                    262144,
			"kimi-k2.5":                    250000,
			"gpt-5.3-chat":                 200000,
			"gpt-5.4-mini":                 400000,
			"gemini-3.5-flash":             1048576,
			"gemini-3-flash-preview":       1000000,
			"claude-haiku-4.5":             200000,
			"gemini-3.1-flash-lite":        1000000,
			"gpt-5.4-nano":                 400000,
			"qwen3-32b":                    128000,
			"qwen3-coder-30b-a3b-instruct": 260000,
			"deepseek-v4-pro":              1048576,
			"deepseek-v4-flash":            1048576,
			"glm-5.1":                      202752,
			"glm-5v-turbo":                 202752,
			"minimax-m2.7":                 204800,
			"MiniMax-M2":                   204800,
		},
	},
	GenHead: {
		// "default" is an alias (availableModelAliases) of deepseek-v4-pro.
		Cascade:    []string{"default", "deepseek-v4-flash", "gpt-5.6-luna", "gemini-3.1-flash-lite", "claude-haiku-4.5"},
		AbortGrace: 2 * time.Second,
		Windows: map[string]int{
			"claude-opus-5":                1000000,
			"claude-fable-5":               1000000,
			"claude-opus-4.8":              1000000,
			"claude-opus-4.7":              1000000,
			"claude-opus-4.6":              200000,
			"gpt-5.6-sol":                  1050000,
			"gpt-5.6-terra":                1050000,
			"gpt-5.6-luna":                 1050000,
			"gpt-5.5":                      1000000,
			"gpt-5.4":                      1100000,
			"gemini-3.1-pro-preview":       1000000,
			"gpt-5.3-codex":                128000,
			"claude-sonnet-5":              200000,
			"claude-sonnet-4.6":            200000,
			"kimi-k3":                      1048576,
			"kimi-k2.7-code":               262144,
			"kimi-k2.6":                    262144,
			"kimi-k2.5":                    250000,
			"gpt-5.3-chat":                 200000,
			"gpt-5.4-mini":                 400000,
			"gemini-3.5-flash":             1048576,
			"gemini-3-flash-preview":       1000000,
			"claude-haiku-4.5":             200000,
			"gemini-3.1-flash-lite":        1000000,
			"gpt-5.4-nano":                 400000,
			"qwen3-32b":                    128000,
			"qwen3-coder-30b-a3b-instruct": 260000,
			"deepseek-v4-pro":              1048576,
			"deepseek-v4-flash":            1048576,
			"glm-5.2":                      1048576,
			"glm-5.1":                      202752,
			"glm-5v-turbo":                 202752,
			"minimax-m3":                   1000000,
			"minimax-m2.7":                 204800,
			"MiniMax-M2":                   204800,
			"mimo-v2.5-pro":                1048576,
			"mimo-v2.5":                    1048576,
			"mistral-large-2512":           262144,
			"mistral-medium-3-5":           262144,
			"mistral-small-2603":           262144,
			"codestral-2508":               262144,
			"grok-4.5":                     500000,
			// availableModelAliases: the window of the model each names.
			"default": 1048576, // deepseek-v4-pro
			"quick":   1048576, // gemini-3.5-flash
			"smart":   1048576, // glm-5.2
		},
	},
}

// CatalogOf returns the catalogue of the named profile's generation.
func CatalogOf(name string) (Catalog, error) {
	r, err := Lookup(name)
	if err != nil {
		return Catalog{}, err
	}
	return Catalogs[r.Gen], nil
}

// WindowTable is the context-window table of the named profile: its
// catalogue's windows, then overrides (the configuration's
// context_windows) on top; keys in lower case, as configuration keys are.
func WindowTable(profile string, overrides map[string]int) (map[string]int, error) {
	cat, err := CatalogOf(profile)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(cat.Windows)+len(overrides))
	for k, v := range cat.Windows {
		out[strings.ToLower(k)] = v
	}
	for k, v := range overrides {
		out[strings.ToLower(k)] = v
	}
	return out, nil
}

// LookupWindow is the context-window lookup of a chat's active model:
// MODEL@INSTANCE first when the chat names a provider instance (the
// agent-core releases look a model up per instance: a model one instance
// discovered, or a custom model of one endpoint, has its own window), then
// the model alone (the catalogue's built-in models have one window on
// every instance). Not found is a failed lookup.
func LookupWindow(table map[string]int, model, instance string) (int, bool) {
	if model == "" {
		return 0, false
	}
	m := strings.ToLower(model)
	if instance != "" {
		if n, ok := table[m+"@"+strings.ToLower(instance)]; ok {
			return n, true
		}
	}
	n, ok := table[m]
	return n, ok
}
