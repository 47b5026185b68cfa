package cascade

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// offlineProviders serve testModels from a port nothing listens on.
func offlineProviders() []ProviderConfig {
	return []ProviderConfig{
		{Name: "gemini", Kind: KindGemini, BaseURL: "http://127.0.0.1:9", APIKey: geminiKey},
		{Name: "openai", Kind: KindOpenAI, BaseURL: "http://127.0.0.1:9", APIKey: openaiKey},
		{Name: "anthropic", Kind: KindAnthropic, BaseURL: "http://127.0.0.1:9", APIKey: anthropicKey},
		{Name: "builtin", Kind: KindBuiltin},
	}
}

func TestServerConfigTakesAURLAndAnOptionalKey(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": openaiKey}
	getenv := func(k string) string { return env[k] }
	pc, err := ServerConfig("http://127.0.0.1:8080/v1", getenv)
	if err != nil {
		t.Fatal(err)
	}
	// An OpenAI key is never sent to some other server.
	if pc.Name != ServerName || pc.Kind != KindOpenAICompatible || pc.APIKey != "" || pc.NeedsKey() || pc.MaxTokensField != "max_tokens" {
		t.Errorf("no key: %v", pc)
	}
	if d := NewOpenAI(pc).Describe(Request{}); d.Auth != "none (COMPACT_API_KEY not set)" || d.URL != "http://127.0.0.1:8080/v1/chat/completions" {
		t.Errorf("describe: auth %q url %q", d.Auth, d.URL)
	}
	// A hosted compatible API that needs its key (deepseek) says which
	// header the key would go in, even while the key is missing.
	hosted := ProviderConfig{Name: "deepseek", Kind: KindOpenAICompatible, BaseURL: "https://api.deepseek.com/v1", KeyRequired: true, KeySource: "missing: DEEPSEEK_API_KEY"}
	if d := NewOpenAI(hosted).Describe(Request{}); d.Auth != "Authorization: Bearer (missing: DEEPSEEK_API_KEY)" {
		t.Errorf("describe, key required: auth %q", d.Auth)
	}
	env[ServerKeyEnv] = compatKey
	pc, err = ServerConfig("https://openrouter.example/api/v1", getenv)
	if err != nil || pc.APIKey != compatKey || pc.KeySource != "env "+ServerKeyEnv {
		t.Errorf("key from %s: %v %v", ServerKeyEnv, pc.KeySource, err)
	}
	noKeys(t, "String", pc.String()+fmt.Sprintf("%#v", pc))
	for _, bad := range []string{"", "127.0.0.1:8080", "ftp://host/v1", "http://user:" + compatKey + "@host/v1", "http://host/v1?key=1", "http:///v1"} {
		_, err := ServerConfig(bad, getenv)
		if err == nil {
			t.Errorf("%q accepted", bad)
			continue
		}
		if strings.Contains(err.Error(), compatKey) {
			t.Errorf("%q: the error shows the key: %v", bad, err)
		}
	}
}

// TestUseServerSendsTheTemperatureAndCostsNothing: a server given by URL
// gets the temperature and the output limit in its own field, no
// Authorization without a key, and is priced at 0 even when the model id
// is also a priced table entry.
func TestUseServerSendsTheTemperatureAndCostsNothing(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, openaiAnswer(longAnswer)) })
	c, err := New(testSettings(), testModels, offlineProviders())
	if err != nil {
		t.Fatal(err)
	}
	for _, apiModel := range []string{"qwen2.5-coder:7b", "gpt-5.4-nano"} {
		pc, err := ServerConfig(f.srv.URL+"/v1", func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		id, err := c.UseServer(pc, apiModel)
		if err != nil || id != apiModel {
			t.Fatalf("UseServer: %q %v", id, err)
		}
		out, err := c.Run(context.Background(), Input{System: testSystem, User: testUser}, []string{id})
		if err != nil {
			t.Fatal(err)
		}
		a := out.Attempts[0]
		if out.Provider != ServerName || a.Provider != ServerName || a.APIModel != apiModel || out.CostUSD != 0 || a.CostUSD != 0 ||
			a.Temperature == nil || *a.Temperature != 0.1 || a.MaxOutputTokens != 20000 {
			t.Errorf("%s: outcome %+v attempt %+v", apiModel, out, a)
		}
		reqs := f.requests()
		req := reqs[len(reqs)-1]
		var body map[string]json.RawMessage
		if err := json.Unmarshal(req.Body, &body); err != nil {
			t.Fatal(err)
		}
		if string(body["temperature"]) != "0.1" || string(body["max_tokens"]) != "20000" || body["max_completion_tokens"] != nil ||
			string(body["model"]) != jsonString(apiModel) || req.Header.Get("Authorization") != "" {
			t.Errorf("%s: request %s auth %q", apiModel, req.Body, req.Header.Get("Authorization"))
		}
	}
	// The priced table entry of the same id is replaced for this cascade only.
	if m, _ := c.Models.Lookup("gpt-5.4-nano"); m.Provider != ServerName || m.PriceInPerMTok != 0 {
		t.Errorf("model %+v", m)
	}
	if m, _ := testModels.Lookup("gpt-5.4-nano"); m.Provider != "openai" {
		t.Error("UseServer changed the table it was given")
	}
	if _, err := c.UseServer(ProviderConfig{Name: "x", Kind: KindOpenAI}, "m"); err == nil {
		t.Error("a non-compatible provider was accepted as a server")
	}
}

func TestServerModelUsesTheTableEntryWhenThereIsOne(t *testing.T) {
	models := append(Models{{ID: "my-qwen", Provider: "local", APIModel: "qwen3-8b", PriceInPerMTok: 0.1, AcceptsTemperature: false}}, testModels...)
	c, err := New(testSettings(), models, append(offlineProviders(), ProviderConfig{Name: "local", Kind: KindOpenAICompatible, BaseURL: "http://127.0.0.1:9"}))
	if err != nil {
		t.Fatal(err)
	}
	if id, err := c.ServerModel("local", "qwen3-8b"); err != nil || id != "my-qwen" {
		t.Errorf("table entry: %q %v", id, err)
	}
	id, err := c.ServerModel("local", "llama-3.1-8b")
	if m, ok := c.Models.Lookup(id); err != nil || !ok || m.Provider != "local" || !m.AcceptsTemperature || m.PriceInPerMTok != 0 {
		t.Errorf("new entry: %q %+v %v", id, m, err)
	}
	for _, p := range []string{"openai", "nope"} {
		if _, err := c.ServerModel(p, "m"); err == nil {
			t.Errorf("provider %s accepted as a server", p)
		}
	}
}

// TestModelsWithoutKeysAreNotSent: SplitByKey names the variables to set,
// and an attempt at a provider without its key sends nothing and has no
// tries, so the caller can tell that nothing went out.
func TestModelsWithoutKeysAreNotSent(t *testing.T) {
	f := newFake(t, nil)
	provs := []ProviderConfig{{Name: "builtin", Kind: KindBuiltin}}
	for _, kind := range []string{KindGemini, KindOpenAI, KindAnthropic} {
		pc := ProviderConfig{Name: kind, Kind: kind, BaseURL: f.srv.URL}
		if err := resolve(&pc, "", "", func(string) string { return "" }); err != nil {
			t.Fatal(err)
		}
		provs = append(provs, pc)
	}
	c, err := New(testSettings(), testModels, provs)
	if err != nil {
		t.Fatal(err)
	}
	ready, missing := c.SplitByKey(append(c.Order("claude-sonnet-4.6"), "builtin"))
	if len(ready) != 1 || ready[0] != "builtin" || len(missing) != 4 {
		t.Fatalf("ready %v, missing %+v", ready, missing)
	}
	want := map[string]string{
		"gemini-3.1-flash-lite": "GOOGLE_API_KEY GEMINI_API_KEY", "gpt-5.4-nano": "OPENAI_API_KEY",
		"claude-haiku-4.5": "ANTHROPIC_API_KEY", "claude-sonnet-4.6": "ANTHROPIC_API_KEY",
	}
	for _, m := range missing {
		if got := strings.Join(m.Envs, " "); got != want[m.Model] || !strings.HasPrefix(m.Source, "missing: ") {
			t.Errorf("%s: envs %q source %q", m.Model, got, m.Source)
		}
	}
	out, err := c.Run(context.Background(), Input{System: testSystem, User: testUser}, c.Order(""))
	var failed *FailedError
	if !errors.As(err, &failed) || failed.Sent() {
		t.Fatalf("err %v", err)
	}
	for _, a := range out.Attempts {
		if a.Outcome != OutcomeError || len(a.Tries) != 0 || !strings.Contains(a.Error, "no API key (missing: ") {
			t.Errorf("attempt %+v", a)
		}
	}
	if f.count() != 0 {
		t.Errorf("%d requests sent without a key", f.count())
	}
	// A key set later (a provider replaced) is used.
	if ready, _ := c.SplitByKey([]string{"builtin"}); len(ready) != 1 {
		t.Error("builtin needs no key")
	}
	if (&FailedError{Attempts: []Attempt{{Tries: []Try{{N: 1, Status: 500}}}}}).Sent() != true {
		t.Error("a try is a request sent")
	}
}

func TestCostsAreRoundedToTheMicroDollar(t *testing.T) {
	m := Model{PriceInPerMTok: 0.25, PriceOutPerMTok: 1.5}
	u := Usage{InputTokens: 1111, OutputTokens: 61}
	raw := (float64(u.InputTokens)*m.PriceInPerMTok + float64(u.OutputTokens)*m.PriceOutPerMTok) / 1e6
	if s := fmt.Sprint(raw); len(s) <= len("0.000000") {
		t.Fatalf("the example has no float noise: %s", s)
	}
	got := m.Cost(u)
	if js, _ := json.Marshal(got); string(js) != "0.000369" {
		t.Errorf("Cost = %s, raw %v", js, raw)
	}
	for _, tc := range []struct{ in, want float64 }{{0.00037055000000000004, 0.000371}, {0.1 + 0.2, 0.3}, {0, 0}, {0.0000004, 0}, {12.3456789, 12.345679}} {
		if got := RoundUSD(tc.in); got != tc.want {
			t.Errorf("RoundUSD(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
