package cascade

import "testing"

func TestKeyVarsGroupsTheVariablesByProvider(t *testing.T) {
	gem := MissingKey{Model: "gemini-3.1-flash-lite", Provider: "gemini", Envs: []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}}
	gem2 := MissingKey{Model: "gemini-3.1-pro", Provider: "gemini", Envs: []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}}
	oai := MissingKey{Model: "gpt-5.4-nano", Provider: "openai", Envs: []string{"OPENAI_API_KEY"}}
	ant := MissingKey{Model: "claude-haiku-4.5", Provider: "anthropic", Envs: []string{"ANTHROPIC_API_KEY"}}
	lab := MissingKey{Model: "lab-llama", Provider: "lab"}
	for _, tc := range []struct {
		missing    []MissingKey
		withModels bool
		want       string
	}{
		{nil, true, ""},
		{[]MissingKey{oai}, false, "OPENAI_API_KEY"},
		{[]MissingKey{oai}, true, "OPENAI_API_KEY (gpt-5.4-nano)"},
		{[]MissingKey{gem, oai, ant}, true, "GOOGLE_API_KEY or GEMINI_API_KEY (gemini-3.1-flash-lite), OPENAI_API_KEY (gpt-5.4-nano) or ANTHROPIC_API_KEY (claude-haiku-4.5)"},
		{[]MissingKey{gem, oai, gem2}, true, "GOOGLE_API_KEY or GEMINI_API_KEY (gemini-3.1-flash-lite, gemini-3.1-pro) or OPENAI_API_KEY (gpt-5.4-nano)"},
		{[]MissingKey{gem, gem2}, false, "GOOGLE_API_KEY or GEMINI_API_KEY"},
		{[]MissingKey{lab}, false, "a key for providers.lab"},
	} {
		if got := KeyVars(tc.missing, tc.withModels); got != tc.want {
			t.Errorf("KeyVars(%v, %v) = %q, want %q", tc.missing, tc.withModels, got, tc.want)
		}
	}
	if got, want := ModelsAndVars([]MissingKey{gem, ant}), "gemini-3.1-flash-lite (set GOOGLE_API_KEY or GEMINI_API_KEY) and claude-haiku-4.5 (set ANTHROPIC_API_KEY)"; got != want {
		t.Errorf("ModelsAndVars = %q, want %q", got, want)
	}
	if got, want := ModelsAndVars([]MissingKey{gem, oai, lab}), "gemini-3.1-flash-lite (set GOOGLE_API_KEY or GEMINI_API_KEY), gpt-5.4-nano (set OPENAI_API_KEY) and lab-llama (set a key for providers.lab)"; got != want {
		t.Errorf("ModelsAndVars = %q, want %q", got, want)
	}
}
