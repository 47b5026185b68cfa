package cascade

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/upstream"
)

// TestProfileCascade: the cascade and the abort grace are the profile's
// (history-compression/index.ts at each release) unless the configuration
// sets them.
func TestProfileCascade(t *testing.T) {
	st, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		profile string
		models  []string
		grace   time.Duration
	}{
		{"e3e", []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"}, 0},
		{"v1.4.1-nightly20260602c001", []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"}, 0},
		{"head", []string{"default", "deepseek-v4-flash", "gpt-5.6-luna", "gemini-3.1-flash-lite", "claude-haiku-4.5"}, 2 * time.Second},
		{"v1.29.0-nohost", []string{"default", "deepseek-v4-flash", "gpt-5.6-luna", "gemini-3.1-flash-lite", "claude-haiku-4.5"}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			s, err := LoadSettingsFor(st, tt.profile)
			if err != nil {
				t.Fatal(err)
			}
			if !equal(s.Models, tt.models) || s.AbortGrace != tt.grace {
				t.Errorf("models %v grace %v, want %v %v", s.Models, s.AbortGrace, tt.models, tt.grace)
			}
			// Every model of the cascade is in the table, with a provider.
			if _, err := LoadFor(st, envMap(nil), tt.profile); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := LoadSettingsFor(st, "v9"); err == nil {
		t.Error("unknown profile accepted")
	}

	// A configuration's own list and grace win over the profile's.
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("profile: head\ncascade:\n  models: [gpt-5.4-nano]\n  abort_grace: 500ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	own, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadSettings(own)
	if err != nil {
		t.Fatal(err)
	}
	if !equal(s.Models, []string{"gpt-5.4-nano"}) || s.AbortGrace != 500*time.Millisecond {
		t.Errorf("models %v grace %v", s.Models, s.AbortGrace)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDeepSeekNeedsItsKey: the deepseek provider is openai-compatible but a
// hosted API (key_required): without DEEPSEEK_API_KEY its models are left
// out of the head cascade, as the public APIs' are without theirs.
func TestDeepSeekNeedsItsKey(t *testing.T) {
	st, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	order := upstream.Catalogs[upstream.GenHead].Cascade
	c, err := LoadFor(st, envMap(map[string]string{"OPENAI_API_KEY": openaiKey}), "head")
	if err != nil {
		t.Fatal(err)
	}
	ready, missing := c.SplitByKey(order)
	if !equal(ready, []string{"gpt-5.6-luna"}) || len(missing) != 4 || missing[0].Model != "default" || missing[0].Envs[0] != "DEEPSEEK_API_KEY" {
		t.Errorf("ready %v missing %+v", ready, missing)
	}
	if c.LocalServer("deepseek") {
		t.Error("deepseek counted as a local server")
	}
	c, err = LoadFor(st, envMap(map[string]string{"DEEPSEEK_API_KEY": compatKey}), "head")
	if err != nil {
		t.Fatal(err)
	}
	if ready, _ := c.SplitByKey(order); !equal(ready, []string{"default", "deepseek-v4-flash"}) {
		t.Errorf("with the key: ready %v", ready)
	}
	d := c.Describe(Input{System: "s", User: "u"}, []string{"default"})[0]
	if d.URL != "https://api.deepseek.com/v1/chat/completions" || d.Model != "default" {
		t.Errorf("dry run %+v", d)
	}
}

// graceSettings are test settings with a short attempt and the head
// release's abort grace.
func graceSettings(grace time.Duration) Settings {
	s := testSettings()
	s.Timeout = 150 * time.Millisecond
	s.Retry.MaxTries = 1
	s.AbortGrace = grace
	return s
}

// TestAbortGraceOverTheWire: a server that never answers is aborted when
// the attempt's time is up; the Go client's request settles at once, so
// with the grace of v1.29.0 the cascade goes on to the next model, as
// without one.
func TestAbortGraceOverTheWire(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request, n int) { <-r.Context().Done() }
	for _, grace := range []time.Duration{0, 2 * time.Second} {
		r := newRig(t, graceSettings(grace), hang, ok(openaiAnswer, longAnswer), nil)
		start := time.Now()
		out, err := r.run(t, "")
		if err != nil {
			t.Fatalf("grace %v: %v", grace, err)
		}
		got := summarize(out)
		if len(got) != 2 || got[0].Outcome != OutcomeTimeout || got[1].Outcome != OutcomeOK || out.Attempts[0].Unsettled {
			t.Errorf("grace %v: %+v", grace, got)
		}
		// The aborted request settled at once: the grace was not waited.
		if el := time.Since(start); el > time.Second {
			t.Errorf("grace %v: took %v", grace, el)
		}
	}
}

// stuck is a provider whose calls ignore the context: they return answer
// after delay (or, when delay < 0, when release is closed, at the test's
// end).
type stuck struct {
	name    string
	delay   time.Duration
	calls   atomic.Int32
	release chan struct{}
}

func (s *stuck) Name() string { return s.name }
func (s *stuck) Kind() string { return KindOpenAICompatible }
func (s *stuck) Describe(Request) DryRun {
	return DryRun{}
}
func (s *stuck) Generate(ctx context.Context, req Request) (*Result, error) {
	s.calls.Add(1)
	if s.delay < 0 {
		<-s.release // not before the test ends
	}
	time.Sleep(s.delay)
	return &Result{Text: longAnswer, HTTPStatus: 200}, nil
}

func stuckCascade(t *testing.T, s Settings, first *stuck) (*Cascade, *fake) {
	t.Helper()
	first.release = make(chan struct{})
	t.Cleanup(func() { close(first.release) })
	oai := newFake(t, ok(openaiAnswer, longAnswer))
	s.Models = []string{"slow", "gpt-5.4-nano"}
	c, err := New(s, Models{
		{ID: "slow", Provider: "slow", APIModel: "slow"},
		{ID: "gpt-5.4-nano", Provider: "openai", APIModel: "gpt-5.4-nano"},
	}, []ProviderConfig{
		{Name: "slow", Kind: KindOpenAICompatible, BaseURL: "http://127.0.0.1:1"},
		{Name: "openai", Kind: KindOpenAI, BaseURL: oai.srv.URL, APIKey: openaiKey},
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Providers["slow"] = first
	return c, oai
}

// TestAbortGraceUnsettled: a request that has not settled when the grace
// ends stops the whole cascade (HistoryCompressionUnsettledTimeoutError):
// no other model is asked while it may still run. One that settles within
// the grace with an answer is used; without a grace (e3e) the next model
// is asked as soon as the attempt's time is up.
func TestAbortGraceUnsettled(t *testing.T) {
	t.Run("unsettled stops", func(t *testing.T) {
		c, oai := stuckCascade(t, graceSettings(100*time.Millisecond), &stuck{name: "slow", delay: -1})
		out, err := c.Run(context.Background(), Input{System: "s", User: "u"}, []string{"slow", "gpt-5.4-nano"})
		var fe *FailedError
		if !errors.As(err, &fe) || len(out.Attempts) != 1 || !out.Attempts[0].Unsettled || out.Attempts[0].Outcome != OutcomeTimeout {
			t.Fatalf("err %v, attempts %+v", err, out.Attempts)
		}
		if oai.count() != 0 {
			t.Errorf("the next model was asked %d times", oai.count())
		}
		if want := "history compression stopped after 1 model: the aborted request of slow did not settle:"; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
			t.Errorf("error %q", err)
		}
	})
	t.Run("answer within the grace is used", func(t *testing.T) {
		slow := &stuck{name: "slow", delay: 250 * time.Millisecond}
		c, oai := stuckCascade(t, graceSettings(time.Second), slow)
		out, err := c.Run(context.Background(), Input{System: "s", User: "u"}, []string{"slow", "gpt-5.4-nano"})
		if err != nil || out.Model != "slow" || oai.count() != 0 {
			t.Fatalf("err %v, model %q, next model asked %d times", err, out.Model, oai.count())
		}
	})
	t.Run("no grace awaits", func(t *testing.T) {
		// Without a grace (e3e awaits generateText whatever the abort
		// does) the call is waited for until it returns: a late answer
		// is still used.
		slow := &stuck{name: "slow", delay: 250 * time.Millisecond}
		c, oai := stuckCascade(t, graceSettings(0), slow)
		out, err := c.Run(context.Background(), Input{System: "s", User: "u"}, []string{"slow", "gpt-5.4-nano"})
		if err != nil || out.Model != "slow" || oai.count() != 0 {
			t.Fatalf("err %v, model %q", err, out.Model)
		}
	})
}
