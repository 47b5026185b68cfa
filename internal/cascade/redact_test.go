package cascade

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/compactlab/compact/internal/config"
)

// Distinctive keys, one per provider, in the providers' own shapes.
const (
	plantOpenAI    = "sk-proj-ZZOPq8Xk3LmN0pQrStUvWxYz1234cdef"
	plantAnthropic = "sk-ant-api03-YYQRm7Wj2KnB9vCxDzEaFbGh5678wxyz"
	plantGemini    = "AIzaSyXXSTp6Vh1JmC8bDyEzFaGbHc9012ghij"
)

var plantedKeys = []string{plantOpenAI, plantAnthropic, plantGemini}

// masked is k the way providers mask keys: its first n characters, stars,
// its last 4.
func masked(k string, n int, stars string) string { return k[:n] + stars + k[len(k)-4:] }

// leakRE matches what must never be stored or printed of the planted keys:
// a distinctive piece of each (letter case ignored), and any prefix of 12
// characters and suffix of 4 around a mask.
var leakRE = regexp.MustCompile(`(?i)ZZOPq8|q8Xk3L|1234cdef|YYQRm7|m7Wj2K|5678wxyz|XXSTp6|p6Vh1J|9012ghij|` +
	`ZZOP[^ "]{0,40}cdef|YYQR[^ "]{0,40}wxyz|XXST[^ "]{0,40}ghij`)

func noLeak(t *testing.T, what, s string) {
	t.Helper()
	if m := leakRE.FindAllString(s, 5); len(m) > 0 {
		t.Errorf("%s leaks a key (%q): %.2000s", what, m, s)
	}
}

func TestRedactRemovesKeysInEveryForm(t *testing.T) {
	r := NewRedactor(plantedKeys...)
	for _, in := range []string{
		plantOpenAI,
		strings.ToUpper(plantOpenAI),
		strings.ToLower(plantAnthropic),
		"Incorrect API key provided: " + masked(plantOpenAI, 12, "*****") + ". You can find your API key at https://platform.openai.com/account/api-keys.",
		"Incorrect API key provided: " + masked(plantOpenAI, 8, strings.Repeat("*", 28)) + ".",
		"key " + masked(plantAnthropic, 17, "...") + " is invalid",
		"key " + masked(plantAnthropic, 17, "…") + " is invalid",
		"key " + masked(plantGemini, 10, "•••••") + " is invalid",
		`{"key":"` + strings.ToUpper(masked(plantOpenAI, 12, "****")) + `"}`,
		"Bearer " + plantOpenAI[:20] + "****",
		"****" + plantGemini[len(plantGemini)-8:],
		"x-request-id: req_" + plantOpenAI,
		"GET /v1?key=" + strings.ReplaceAll(plantGemini, "-", "%2D"),
	} {
		out := r.Redact(in)
		noLeak(t, fmt.Sprintf("Redact(%q)", in), out)
		if !strings.Contains(out, Redacted) {
			t.Errorf("Redact(%q) = %q: nothing redacted", in, out)
		}
	}
	// URL credentials go whatever the keys.
	for _, in := range []string{
		`base_url "http://user:hunter2pw@127.0.0.1:8080/v1" is bad`,
		`Post "https://hunter2pw@api.example/v1/chat": dial tcp`,
	} {
		if out := Redact(in); strings.Contains(out, "hunter2pw") || !strings.Contains(out, Redacted+"@") {
			t.Errorf("Redact(%q) = %q", in, out)
		}
	}
	// Text that merely looks masked stays.
	for _, in := range []string{
		"**Summary**: done... and then sk-*** (3 chars shown) and a…b",
		"see http://127.0.0.1:8080/v1/chat and mail a@b.c",
		"1234 cdef; wait...",
		"",
	} {
		if out := r.Redact(in); out != in {
			t.Errorf("Redact(%q) = %q, want it unchanged", in, out)
		}
	}
}

func TestCutUTF8(t *testing.T) {
	s := "ab✓😀c" // a b (1) ✓ (3) 😀 (4) c
	for max, want := range map[int]string{0: "", 1: "a", 2: "ab", 3: "ab", 4: "ab", 5: "ab✓", 6: "ab✓", 8: "ab✓", 9: "ab✓😀", 10: "ab✓😀c", 99: s} {
		if got := CutUTF8(s, max); got != want {
			t.Errorf("CutUTF8(%q, %d) = %q, want %q", s, max, got, want)
		}
	}
}

// TestEchoedKeysNeverReachTheRecord: servers that echo the key in the
// request-id headers, mask it in a 401 body the way the provider does, or
// echo it in upper case. Nothing of it may reach an attempt, an error or
// the answer.
func TestEchoedKeysNeverReachTheRecord(t *testing.T) {
	fail := func(mask func(string) string) handler {
		return func(w http.ResponseWriter, r *http.Request, n int) {
			k := r.Header.Get("x-goog-api-key") + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			w.Header().Set("x-request-id", "req_"+k)
			w.Header().Set("request-id", k)
			writeJSON(w, 401, `{"error":{"code":401,"message":"Incorrect API key provided: `+mask(k)+`","status":"UNAUTHENTICATED","type":"authentication_error"},"type":"error"}`)
		}
	}
	var allFail atomic.Bool
	anthropicFail := fail(func(k string) string { return masked(k, 17, "...") })
	answerEcho := func(w http.ResponseWriter, r *http.Request, n int) {
		if allFail.Load() {
			anthropicFail(w, r, n)
			return
		}
		k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("request-id", strings.ToUpper(k))
		writeJSON(w, 200, anthropicAnswer(longAnswer+" (your key is "+strings.ToLower(k)+", "+masked(k, 12, "***")+")"))
	}
	r := newRig(t, testSettings(),
		fail(func(k string) string { return masked(k, 12, "*****") }),
		fail(strings.ToUpper),
		answerEcho)
	// The rig's own keys, replaced by the planted ones.
	for _, pc := range []ProviderConfig{
		{Name: "gemini", Kind: KindGemini, BaseURL: r.gem.srv.URL, APIKey: plantGemini},
		{Name: "openai", Kind: KindOpenAI, BaseURL: r.oai.srv.URL, APIKey: plantOpenAI},
		{Name: "anthropic", Kind: KindAnthropic, BaseURL: r.ant.srv.URL, APIKey: plantAnthropic},
	} {
		if err := r.c.addProvider(pc); err != nil {
			t.Fatal(err)
		}
	}
	order := []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"}
	out, err := r.c.Run(context.Background(), Input{System: "s", User: "u"}, order)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(out)
	noLeak(t, "outcome", string(js)+fmt.Sprintf("%+v", out))
	if len(out.Attempts) != 3 || out.Attempts[0].Tries[0].Status != 401 || out.Attempts[2].RequestID != Redacted {
		t.Errorf("attempts: %s", js)
	}
	// Every model failing: the error lists them all.
	allFail.Store(true)
	out, err = r.c.Run(context.Background(), Input{System: "s", User: "u"}, order)
	if err == nil {
		t.Fatal("no error")
	}
	js, _ = json.Marshal(out)
	noLeak(t, "failed outcome", string(js))
	noLeak(t, "error", err.Error())
	for _, d := range r.c.Describe(Input{System: "s", User: "u"}, order) {
		js, _ := json.Marshal(d)
		noLeak(t, "dry run", string(js))
	}
}

// TestBaseURLCredentialsStayOutOfConfigErrors: a base_url with user:pass@
// is refused without being shown with its password.
func TestBaseURLCredentialsStayOutOfConfigErrors(t *testing.T) {
	for _, yaml := range []string{
		"providers:\n  local:\n    kind: openai-compatible\n    base_url: http://user:hunter2pw@127.0.0.1:8080\n",
		"providers:\n  openai:\n    base_url: https://hunter2pw@api.openai.com\n",
		"providers:\n  local:\n    kind: openai-compatible\n    base_url: http://127.0.0.1:8080/v1?key=hunter2pw\n",
	} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		st, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = LoadProviders(st, envMap(nil))
		if err == nil || !strings.Contains(err.Error(), "base_url") {
			t.Fatalf("%s: %v", yaml, err)
		}
		if strings.Contains(err.Error(), "hunter2pw") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
}
