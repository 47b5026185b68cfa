package cascade

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const longAnswer = "## Briefing\nYou were refactoring the parser; tests pass."

var testModels = Models{
	{ID: "gemini-3.1-flash-lite", Provider: "gemini", APIModel: "gemini-3.1-flash-lite", AcceptsTemperature: true, MaxOutputTokens: 65536, PriceInPerMTok: 0.25, PriceOutPerMTok: 1.5},
	{ID: "gpt-5.4-nano", Provider: "openai", APIModel: "gpt-5.4-nano", AcceptsTemperature: false, MaxOutputTokens: 128000, PriceInPerMTok: 0.2, PriceOutPerMTok: 1.25},
	{ID: "claude-haiku-4.5", Provider: "anthropic", APIModel: "claude-haiku-4-5", AcceptsTemperature: false, MaxOutputTokens: 64000, PriceInPerMTok: 1, PriceOutPerMTok: 5},
	{ID: "claude-sonnet-4.6", Provider: "anthropic", APIModel: "claude-sonnet-4-6", AcceptsTemperature: false, MaxOutputTokens: 64000, PriceInPerMTok: 3, PriceOutPerMTok: 15},
	{ID: "builtin", Provider: "builtin", APIModel: "builtin"},
}

func testSettings() Settings {
	s := DefaultSettings()
	s.Timeout = 400 * time.Millisecond
	s.Retry = Retry{MaxTries: 3, BaseDelay: 2 * time.Millisecond, MaxDelay: 10 * time.Millisecond}
	return s
}

type handler = func(w http.ResponseWriter, r *http.Request, n int)

func ok(body func(string) string, text string) handler {
	return func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, body(text)) }
}

// rig is a cascade over three fake servers.
type rig struct {
	c             *Cascade
	gem, oai, ant *fake
}

func newRig(t *testing.T, s Settings, gem, oai, ant handler) *rig {
	t.Helper()
	r := &rig{}
	r.gem = newFake(t, gem)
	r.oai = newFake(t, oai)
	r.ant = newFake(t, ant)
	provs := []ProviderConfig{
		{Name: "gemini", Kind: KindGemini, BaseURL: r.gem.srv.URL, APIKey: geminiKey},
		{Name: "openai", Kind: KindOpenAI, BaseURL: r.oai.srv.URL, APIKey: openaiKey},
		{Name: "anthropic", Kind: KindAnthropic, BaseURL: r.ant.srv.URL, APIKey: anthropicKey},
		{Name: "builtin", Kind: KindBuiltin},
	}
	c, err := New(s, testModels, provs)
	if err != nil {
		t.Fatal(err)
	}
	r.c = c
	return r
}

func (r *rig) run(t *testing.T, fallback string) (*Outcome, error) {
	t.Helper()
	out, err := r.c.Run(context.Background(), Input{System: testSystem, User: testUser}, r.c.Order(fallback))
	if out == nil {
		t.Fatal("nil outcome")
	}
	js, _ := json.Marshal(out)
	noKeys(t, "outcome", string(js))
	if err != nil {
		noKeys(t, "error", err.Error())
	}
	return out, err
}

// summary is an attempt reduced to what the fault tests compare.
type summary struct {
	Model, Outcome string
	Statuses       []int
}

func summarize(out *Outcome) []summary {
	var s []summary
	for _, a := range out.Attempts {
		var st []int
		for _, tr := range a.Tries {
			st = append(st, tr.Status)
		}
		s = append(s, summary{a.Model, a.Outcome, st})
	}
	return s
}

func TestCascadeFaults(t *testing.T) {
	status := func(code int, hdr ...string) handler {
		return func(w http.ResponseWriter, r *http.Request, n int) {
			for i := 0; i+1 < len(hdr); i += 2 {
				w.Header().Set(hdr[i], hdr[i+1])
			}
			writeJSON(w, code, `{"error":{"code":`+fmt.Sprint(code)+`,"message":"nope","status":"X"}}`)
		}
	}
	seq := func(hs ...handler) handler {
		return func(w http.ResponseWriter, r *http.Request, n int) {
			hs[min(n, len(hs))-1](w, r, n)
		}
	}
	hang := func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}
	partial := func(w http.ResponseWriter, r *http.Request, n int) {
		hijackPartial(w, `{"candidates":[{"content":{"parts":[{"text":"The brief`)
	}
	partialOAI := func(w http.ResponseWriter, r *http.Request, n int) {
		hijackPartial(w, `{"id":"chatcmpl-1","choices":[{"message":{"content":"The`)
	}
	partialAnt := func(w http.ResponseWriter, r *http.Request, n int) {
		hijackPartial(w, `{"id":"msg_01","content":[{"type":"text","text":"The`)
	}
	closeConn := func(w http.ResponseWriter, r *http.Request, n int) { hijackClose(w) }
	gemOK, oaiOK, antOK := ok(geminiAnswer, longAnswer), ok(openaiAnswer, longAnswer), ok(anthropicAnswer, longAnswer)

	for _, tc := range []struct {
		name          string
		gem, oai, ant handler
		fallback      string
		want          []summary
		wantErr       bool
		check         func(t *testing.T, out *Outcome)
	}{
		{
			name: "first model answers",
			gem:  gemOK, oai: oaiOK, ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "ok", []int{200}}},
		},
		{
			name: "timeout falls back",
			gem:  hang, oai: oaiOK, ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "timeout", []int{0}}, {"gpt-5.4-nano", "ok", []int{200}}},
			check: func(t *testing.T, out *Outcome) {
				if a := out.Attempts[0]; a.LatencyMs < 350 || a.LatencyMs > 2000 || !strings.Contains(a.Error, "400ms") {
					t.Errorf("timeout attempt: %+v", a)
				}
			},
		},
		{
			name: "429 with Retry-After 0 is retried",
			gem:  seq(status(429, "Retry-After", "0"), gemOK), oai: oaiOK, ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "ok", []int{429, 200}}},
			check: func(t *testing.T, out *Outcome) {
				if tr := out.Attempts[0].Tries[0]; tr.RetryAfterMs == nil || *tr.RetryAfterMs != 0 || tr.WaitMs != 0 || !tr.Transient {
					t.Errorf("try: %+v", tr)
				}
			},
		},
		{
			name: "429 with retry-after-ms is honoured",
			gem:  seq(status(429, "Retry-After-Ms", "60"), gemOK), oai: oaiOK, ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "ok", []int{429, 200}}},
			check: func(t *testing.T, out *Outcome) {
				if tr := out.Attempts[0].Tries[0]; tr.RetryAfterMs == nil || *tr.RetryAfterMs != 60 || tr.WaitMs != 60 {
					t.Errorf("try: %+v", tr)
				}
				if out.Attempts[0].LatencyMs < 60 {
					t.Errorf("did not wait: %d ms", out.Attempts[0].LatencyMs)
				}
			},
		},
		{
			name: "429 with Retry-After beyond the budget falls back at once",
			gem:  status(429, "Retry-After", "120"), oai: oaiOK, ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "error", []int{429}}, {"gpt-5.4-nano", "ok", []int{200}}},
			check: func(t *testing.T, out *Outcome) {
				a := out.Attempts[0]
				if a.Tries[0].RetryAfterMs == nil || *a.Tries[0].RetryAfterMs != 120000 || a.LatencyMs > 300 || !strings.Contains(a.Error, "would not fit") {
					t.Errorf("attempt: %+v", a)
				}
			},
		},
		{
			name: "429 with an HTTP-date Retry-After in the past",
			gem:  seq(status(429, "Retry-After", time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)), gemOK), oai: oaiOK, ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "ok", []int{429, 200}}},
		},
		{
			name: "429 with Retry-After in Gemini's RetryInfo",
			gem: seq(func(w http.ResponseWriter, r *http.Request, n int) {
				writeJSON(w, 429, `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.02s"}]}}`)
			}, gemOK), oai: oaiOK, ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "ok", []int{429, 200}}},
			check: func(t *testing.T, out *Outcome) {
				if tr := out.Attempts[0].Tries[0]; tr.RetryAfterMs == nil || *tr.RetryAfterMs != 20 {
					t.Errorf("try: %+v", tr)
				}
			},
		},
		{
			name: "429 without Retry-After: backoff, give up, fall back",
			gem:  status(429), oai: oaiOK, ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "error", []int{429, 429, 429}}, {"gpt-5.4-nano", "ok", []int{200}}},
			check: func(t *testing.T, out *Outcome) {
				a := out.Attempts[0]
				if a.Tries[0].RetryAfterMs != nil || a.Tries[0].WaitMs > 10 || a.Tries[2].WaitMs != 0 || !strings.Contains(a.Error, "gave up after 3 tries") {
					t.Errorf("attempt: %+v", a)
				}
			},
		},
		{
			name: "500 on openai, retried then fallback",
			gem:  status(400), oai: status(500), ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "error", []int{400}}, {"gpt-5.4-nano", "error", []int{500, 500, 500}}, {"claude-haiku-4.5", "ok", []int{200}}},
		},
		{
			name: "503 then success on anthropic",
			gem:  status(403), oai: status(401), ant: seq(status(503), antOK),
			want: []summary{{"gemini-3.1-flash-lite", "error", []int{403}}, {"gpt-5.4-nano", "error", []int{401}}, {"claude-haiku-4.5", "ok", []int{503, 200}}},
		},
		{
			name: "empty output is too short",
			gem:  ok(geminiAnswer, ""), oai: ok(openaiAnswer, " \n\t "), ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "too-short", []int{200}}, {"gpt-5.4-nano", "too-short", []int{200}}, {"claude-haiku-4.5", "ok", []int{200}}},
		},
		{
			name: "no candidates is too short",
			gem: func(w http.ResponseWriter, r *http.Request, n int) {
				writeJSON(w, 200, `{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":10}}`)
			}, oai: oaiOK, ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "too-short", []int{200}}, {"gpt-5.4-nano", "ok", []int{200}}},
			check: func(t *testing.T, out *Outcome) {
				if a := out.Attempts[0]; a.FinishReason != "blocked: SAFETY" {
					t.Errorf("attempt: %+v", a)
				}
			},
		},
		{
			// 29 UTF-16 units after trimming: 27 ASCII and one astral
			// character (2 units); JS trim strips U+FEFF and U+3000.
			name: "too short by UTF-16 length",
			gem:  ok(geminiAnswer, "\ufeff\u3000 "+strings.Repeat("a", 27)+"😀\n "), oai: ok(openaiAnswer, strings.Repeat("b", 28)+"😀"), ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "too-short", []int{200}}, {"gpt-5.4-nano", "ok", []int{200}}},
			check: func(t *testing.T, out *Outcome) {
				if out.Attempts[0].OutputChars != 29 || out.Attempts[1].OutputChars != 30 || out.Text != strings.Repeat("b", 28)+"😀" {
					t.Errorf("chars %d %d text %q", out.Attempts[0].OutputChars, out.Attempts[1].OutputChars, out.Text)
				}
			},
		},
		{
			name: "malformed body is an error, not retried",
			gem:  func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, `{"candidates":[{"content":`) },
			oai:  func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, `<html>not json</html>`) },
			ant: func(w http.ResponseWriter, r *http.Request, n int) {
				writeJSON(w, 200, `{"content":[{"type":"text","text":"x"}`)
			},
			want:    []summary{{"gemini-3.1-flash-lite", "error", []int{200}}, {"gpt-5.4-nano", "error", []int{200}}, {"claude-haiku-4.5", "error", []int{200}}},
			wantErr: true,
		},
		{
			name: "connection closed mid-answer, retried then fallback",
			gem:  partial, oai: seq(partialOAI, oaiOK), ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "error", []int{200, 200, 200}}, {"gpt-5.4-nano", "ok", []int{200, 200}}},
			check: func(t *testing.T, out *Outcome) {
				if tr := out.Attempts[0].Tries[0]; !tr.Transient || !strings.Contains(tr.Error, "EOF") {
					t.Errorf("try: %+v", tr)
				}
			},
		},
		{
			name: "connection closed mid-answer on anthropic",
			gem:  status(404), oai: status(404), ant: seq(partialAnt, antOK),
			want: []summary{{"gemini-3.1-flash-lite", "error", []int{404}}, {"gpt-5.4-nano", "error", []int{404}}, {"claude-haiku-4.5", "ok", []int{200, 200}}},
		},
		{
			name: "connection closed before any answer",
			gem:  seq(closeConn, gemOK), oai: oaiOK, ant: antOK,
			want: []summary{{"gemini-3.1-flash-lite", "ok", []int{0, 200}}},
		},
		{
			name: "fallback model after the default list",
			gem:  status(500), oai: status(500), ant: seq(status(400), antOK), fallback: "claude-sonnet-4.6",
			want: []summary{
				{"gemini-3.1-flash-lite", "error", []int{500, 500, 500}}, {"gpt-5.4-nano", "error", []int{500, 500, 500}},
				{"claude-haiku-4.5", "error", []int{400}}, {"claude-sonnet-4.6", "ok", []int{200}},
			},
			check: func(t *testing.T, out *Outcome) {
				if out.Model != "claude-sonnet-4.6" || out.Provider != "anthropic" {
					t.Errorf("winner %s/%s", out.Model, out.Provider)
				}
			},
		},
		{
			name: "fallback already in the list is not tried twice",
			gem:  status(400), oai: status(400), ant: status(400), fallback: "gpt-5.4-nano",
			want:    []summary{{"gemini-3.1-flash-lite", "error", []int{400}}, {"gpt-5.4-nano", "error", []int{400}}, {"claude-haiku-4.5", "error", []int{400}}},
			wantErr: true,
		},
		{
			name: "unknown fallback is an attempt error",
			gem:  status(400), oai: status(400), ant: status(400), fallback: "no-such-model",
			want:    []summary{{"gemini-3.1-flash-lite", "error", []int{400}}, {"gpt-5.4-nano", "error", []int{400}}, {"claude-haiku-4.5", "error", []int{400}}, {"no-such-model", "error", nil}},
			wantErr: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, testSettings(), tc.gem, tc.oai, tc.ant)
			out, err := r.run(t, tc.fallback)
			if d := cmp.Diff(tc.want, summarize(out)); d != "" {
				t.Errorf("attempts (-want +got):\n%s", d)
			}
			if (err != nil) != tc.wantErr {
				t.Errorf("err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				var fe *FailedError
				if !errors.As(err, &fe) || len(fe.Attempts) != len(tc.want) {
					t.Errorf("error %T %v", err, err)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w.Model) {
						t.Errorf("error does not name %s: %v", w.Model, err)
					}
				}
				if out.Text != "" {
					t.Errorf("text on failure: %q", out.Text)
				}
			} else if out.Text != TrimJS(out.Text) || out.Text == "" {
				t.Errorf("text %q", out.Text)
			}
			for _, a := range out.Attempts {
				for _, tr := range a.Tries {
					if tr.Error != "" && tr.Status == 200 && a.Outcome == OutcomeOK && tr.N == len(a.Tries) {
						t.Errorf("successful try with an error: %+v", tr)
					}
				}
			}
			if tc.check != nil {
				tc.check(t, out)
			}
		})
	}
}

func TestCascadeRecord(t *testing.T) {
	r := newRig(t, testSettings(), ok(geminiAnswer, "short"), ok(openaiAnswer, longAnswer), nil)
	out, err := r.run(t, "")
	if err != nil {
		t.Fatal(err)
	}
	// Gemini: 1200 in, 320 out (300 + 20 thinking); OpenAI: 1000 in, 250 out.
	if out.Usage != (Usage{InputTokens: 2200, OutputTokens: 570}) {
		t.Errorf("usage %+v", out.Usage)
	}
	// Each attempt's cost is rounded to the micro-dollar: 0.00078 and
	// 0.0005125 -> 0.000513.
	wantCost := math.Round(((1200*0.25+320*1.5)/1e6+math.Round((1000*0.2+250*1.25)/1e6*1e6)/1e6)*1e6) / 1e6
	if out.CostUSD != wantCost || fmt.Sprint(out.CostUSD) != "0.001293" {
		t.Errorf("cost %v, want %v", out.CostUSD, wantCost)
	}
	g, o := out.Attempts[0], out.Attempts[1]
	if g.Temperature == nil || *g.Temperature != 0.1 || len(g.Omitted) != 0 || g.MaxOutputTokens != 20000 || g.RequestID != "gemini-resp-1" || g.FinishReason != "STOP" || g.OutputChars != 5 {
		t.Errorf("gemini attempt %+v", g)
	}
	if o.Temperature != nil || len(o.Omitted) != 1 || !strings.HasPrefix(o.Omitted[0], "temperature (gpt-5.4-nano does not accept it)") {
		t.Errorf("openai attempt %+v", o)
	}
	body := r.oai.requests()[0].Body
	if strings.Contains(string(body), "temperature") {
		t.Errorf("temperature sent to gpt-5.4-nano: %s", body)
	}
	if gb := r.gem.requests()[0].json(t); gb["generationConfig"].(map[string]any)["temperature"] != 0.1 {
		t.Errorf("gemini body %v", gb)
	}
	js, _ := json.Marshal(out)
	for _, k := range []string{`"costUsd"`, `"latencyMs"`, `"tries"`, `"outcome":"too-short"`} {
		if !strings.Contains(string(js), k) {
			t.Errorf("record lacks %s: %s", k, js)
		}
	}
}

func TestCascadeCapsMaxTokens(t *testing.T) {
	s := testSettings()
	s.MaxOutputTokens = 100000
	r := newRig(t, s, nil, nil, ok(anthropicAnswer, longAnswer))
	out, err := r.c.Run(context.Background(), Input{System: "s", User: "u"}, []string{"claude-haiku-4.5"})
	if err != nil {
		t.Fatal(err)
	}
	a := out.Attempts[0]
	if a.MaxOutputTokens != 64000 || len(a.Omitted) != 2 {
		t.Errorf("attempt %+v", a)
	}
	if m := r.ant.requests()[0].json(t); m["max_tokens"] != 64000.0 {
		t.Errorf("max_tokens %v", m["max_tokens"])
	}
}

func TestCascadeBuiltin(t *testing.T) {
	r := newRig(t, testSettings(), nil, nil, nil)
	out, err := r.c.Run(context.Background(), Input{System: "s", User: "<chat-history>h</chat-history>"}, []string{"builtin"})
	if err == nil || out.Attempts[0].Outcome != OutcomeError || !strings.Contains(out.Attempts[0].Error, "not wired") {
		t.Fatalf("unwired: %v %+v", err, out.Attempts)
	}
	r.c.Providers["builtin"].(*Builtin).Writer = func(h string, n int) string { return strings.Repeat(h, 40) }
	out, err = r.c.Run(context.Background(), Input{System: "s", User: "<chat-history>h</chat-history>"}, []string{"builtin"})
	if err != nil || out.Text != strings.Repeat("h", 40) || out.CostUSD != 0 {
		t.Fatalf("wired: %v %+v", err, out)
	}
}

func TestCascadeCanceled(t *testing.T) {
	r := newRig(t, testSettings(), func(w http.ResponseWriter, req *http.Request, n int) {
		<-req.Context().Done()
	}, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	out, err := r.c.Run(ctx, Input{System: "s", User: "u"}, r.c.Order(""))
	if !errors.Is(err, context.Canceled) || len(out.Attempts) != 1 || r.oai.count() != 0 {
		t.Errorf("err %v attempts %+v", err, out.Attempts)
	}
}

// TestCascadeKeysScrubbed: every server echoes the credentials it got; no
// record or error may carry them.
func TestCascadeKeysScrubbed(t *testing.T) {
	echo := func(code int) handler {
		return func(w http.ResponseWriter, r *http.Request, n int) {
			creds := r.Header.Get("x-goog-api-key") + " " + r.Header.Get("Authorization")
			writeJSON(w, code, `{"error":{"code":`+fmt.Sprint(code)+`,"message":"bad credentials `+creds+` at `+r.URL.String()+`","status":"X","type":"x"}}`)
		}
	}
	for _, code := range []int{401, 500} {
		r := newRig(t, testSettings(), echo(code), echo(code), echo(code))
		out, err := r.run(t, "claude-sonnet-4.6")
		if err == nil {
			t.Fatal("no error")
		}
		if strings.Count(err.Error(), Redacted) < 4 {
			t.Errorf("expected redactions: %v", err)
		}
		for _, a := range out.Attempts {
			for _, tr := range a.Tries {
				noKeys(t, "try", tr.Error)
			}
		}
		for _, d := range r.c.Describe(Input{System: "s", User: "u"}, r.c.Order("builtin")) {
			js, _ := json.Marshal(d)
			noKeys(t, "dry run", string(js))
			noKeys(t, "dry run %v", fmt.Sprintf("%v %+v %#v", d, d, d))
		}
	}
	for _, pc := range []ProviderConfig{{Name: "x", Kind: KindOpenAI, APIKey: openaiKey}} {
		noKeys(t, "config", fmt.Sprintf("%v %+v %#v %s", pc, pc, pc, pc))
		js, _ := json.Marshal(pc)
		noKeys(t, "config json", string(js))
	}
}

func TestCascadeRateLimitShared(t *testing.T) {
	s := testSettings()
	s.Timeout = 3 * time.Second
	r := newRig(t, s, ok(geminiAnswer, longAnswer), nil, nil)
	// 1200 rpm = one request every 50 ms, burst 1.
	r.c.limiters["gemini"] = newLimiter(1200)
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := r.c.Run(context.Background(), Input{System: "s", User: "u"}, []string{"gemini-3.1-flash-lite"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if el := time.Since(start); el < 180*time.Millisecond {
		t.Errorf("5 requests at 1200 rpm took %v, want ≥ 200ms", el)
	}
	if r.gem.count() != 5 {
		t.Errorf("%d requests", r.gem.count())
	}
}

func TestCascadeRateLimitBudget(t *testing.T) {
	s := testSettings()
	s.Timeout = 100 * time.Millisecond
	r := newRig(t, s, ok(geminiAnswer, longAnswer), ok(openaiAnswer, longAnswer), nil)
	r.c.limiters["gemini"] = newLimiter(1) // one a minute
	in := Input{System: "s", User: "u"}
	if _, err := r.c.Run(context.Background(), in, r.c.Order("")); err != nil {
		t.Fatal(err)
	}
	out, err := r.c.Run(context.Background(), in, r.c.Order(""))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]summary{{"gemini-3.1-flash-lite", "timeout", []int{0}}, {"gpt-5.4-nano", "ok", []int{200}}}, summarize(out)); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	if !strings.Contains(out.Attempts[0].Tries[0].Error, "rate limit") {
		t.Errorf("try %+v", out.Attempts[0].Tries[0])
	}
}

func TestCascadeDescribe(t *testing.T) {
	r := newRig(t, testSettings(), nil, nil, nil)
	ds := r.c.Describe(Input{System: testSystem, User: testUser}, r.c.Order("claude-sonnet-4.6"))
	if len(ds) != 4 {
		t.Fatalf("%d descriptions", len(ds))
	}
	if ds[0].Temperature == nil || *ds[0].Temperature != 0.1 || ds[0].URL != r.gem.srv.URL+"/v1beta/models/gemini-3.1-flash-lite:generateContent" {
		t.Errorf("gemini %+v", ds[0])
	}
	if ds[1].Temperature != nil || len(ds[1].Omitted) != 1 || ds[1].URL != r.oai.srv.URL+"/v1/chat/completions" {
		t.Errorf("openai %+v", ds[1])
	}
	if ds[3].Model != "claude-sonnet-4.6" || ds[3].APIModel != "claude-sonnet-4-6" || ds[3].MaxOutputTokens != 20000 || ds[3].Timeout != "400ms" {
		t.Errorf("anthropic %+v", ds[3])
	}
	if r.gem.count()+r.oai.count()+r.ant.count() != 0 {
		t.Error("describe sent requests")
	}
}

func TestOrder(t *testing.T) {
	c := &Cascade{Settings: DefaultSettings()}
	def := []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"}
	for _, tc := range []struct {
		fallback string
		want     []string
	}{
		{"", def},
		{"claude-haiku-4.5", def},
		{"gpt-5.4", append(append([]string{}, def...), "gpt-5.4")},
	} {
		if d := cmp.Diff(tc.want, c.Order(tc.fallback)); d != "" {
			t.Errorf("Order(%q): %s", tc.fallback, d)
		}
	}
	if len(c.Settings.Models) != 3 {
		t.Error("Order changed the settings")
	}
}

func TestBackoff(t *testing.T) {
	c := &Cascade{Settings: Settings{Retry: Retry{MaxTries: 9, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}}}
	for n, max := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 9: time.Second} {
		for i := 0; i < 50; i++ {
			if d := c.backoff(n); d < max/2 || d > max {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", n, d, max/2, max)
			}
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{}, 0, false},
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second, true},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond, true},
		{http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second, true},
		{http.Header{"Retry-After": {now.Add(-7 * time.Second).Format(http.TimeFormat)}}, 0, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{"Retry-After": {"3"}, "Retry-After-Ms": {"250"}}, 250 * time.Millisecond, true},
	} {
		got, ok := retryAfter(tc.h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%v: %v %v, want %v %v", tc.h, got, ok, tc.want, tc.ok)
		}
	}
}

func TestTrimJS(t *testing.T) {
	for in, want := range map[string]string{
		" \t\n\v\f\r\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeffx y\ufeff ": "x y",
		"\u0085x\u0085": "\u0085x\u0085", // NEL is not JS white space
		"\u200bx":       "\u200bx",       // nor is ZERO WIDTH SPACE
		"":              "",
		"  \n ":         "",
		"\u180ex\u180e": "\u180ex\u180e",
		"\u00a0😀\u00a0": "😀",
	} {
		if got := TrimJS(in); got != want {
			t.Errorf("TrimJS(%q) = %q, want %q", in, got, want)
		}
	}
}
