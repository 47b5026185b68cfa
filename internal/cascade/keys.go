package cascade

import (
	"strings"

	"github.com/compactlab/compact/internal/config"
)

// KeyVars names the variables that would give the missing keys, grouped
// by provider: "GOOGLE_API_KEY or GEMINI_API_KEY (gemini-3.1-flash-lite),
// OPENAI_API_KEY (gpt-5.4-nano) or ANTHROPIC_API_KEY (claude-haiku-4.5)";
// without withModels, the variables alone.
func KeyVars(missing []MissingKey, withModels bool) string {
	var provs []string
	envs := map[string]string{}
	models := map[string][]string{}
	for _, m := range missing {
		if _, seen := envs[m.Provider]; !seen {
			provs = append(provs, m.Provider)
			e := config.JoinOr(m.Envs, "or")
			if e == "" {
				e = "a key for providers." + m.Provider
			}
			envs[m.Provider] = e
		}
		models[m.Provider] = append(models[m.Provider], m.Model)
	}
	parts := make([]string, len(provs))
	for i, pr := range provs {
		parts[i] = envs[pr]
		if withModels {
			parts[i] += " (" + strings.Join(models[pr], ", ") + ")"
		}
	}
	return config.JoinOr(parts, "or")
}

// ModelsAndVars is "gemini-3.1-flash-lite (set GOOGLE_API_KEY or
// GEMINI_API_KEY) and claude-haiku-4.5 (set ANTHROPIC_API_KEY)".
func ModelsAndVars(missing []MissingKey) string {
	parts := make([]string, len(missing))
	for i, m := range missing {
		parts[i] = m.Model + " (set " + KeyVars(missing[i:i+1], false) + ")"
	}
	return config.JoinOr(parts, "and")
}
