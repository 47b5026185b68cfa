package cascade

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"
)

func geminiProvider(url string) *Gemini {
	return NewGemini(ProviderConfig{Name: "gemini", Kind: KindGemini, BaseURL: url, APIKey: geminiKey, KeySource: "env GEMINI_API_KEY"})
}

func openaiProvider(url string) *OpenAI {
	return NewOpenAI(ProviderConfig{Name: "openai", Kind: KindOpenAI, BaseURL: url, APIKey: openaiKey, KeySource: "env OPENAI_API_KEY"})
}

func anthropicProvider(url string) *Anthropic {
	return NewAnthropic(ProviderConfig{Name: "anthropic", Kind: KindAnthropic, BaseURL: url, APIKey: anthropicKey, KeySource: "env ANTHROPIC_API_KEY"})
}

func TestGeminiWire(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(w, 200, geminiAnswer("  The briefing.  "))
	})
	p := geminiProvider(f.srv.URL)
	for _, tc := range []struct {
		name string
		temp *float64
		want any // generationConfig.temperature; nil: absent
	}{
		{"0.1", ptr(0.1), 0.1},
		{"zero", ptr(0.0), 0.0},
		{"none", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Generate(context.Background(), Request{System: testSystem, User: testUser, Model: "gemini-3.1-flash-lite", Temperature: tc.temp, MaxOutputTokens: 20000})
			if err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			c := reqs[len(reqs)-1]
			if c.Method != "POST" || c.Path != "/v1beta/models/gemini-3.1-flash-lite:generateContent" {
				t.Errorf("request %s %s", c.Method, c.Path)
			}
			if got := c.Header.Get("x-goog-api-key"); got != geminiKey {
				t.Errorf("x-goog-api-key = %q", got)
			}
			if strings.Contains(c.Query, geminiKey) || c.Header.Get("Authorization") != "" {
				t.Errorf("key sent elsewhere: query %q, Authorization %q", c.Query, c.Header.Get("Authorization"))
			}
			var body struct {
				Contents []struct {
					Role  string `json:"role"`
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"contents"`
				SystemInstruction struct {
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"systemInstruction"`
				GenerationConfig map[string]any `json:"generationConfig"`
			}
			if err := json.Unmarshal(c.Body, &body); err != nil {
				t.Fatal(err)
			}
			if len(body.Contents) != 1 || body.Contents[0].Role != "user" || len(body.Contents[0].Parts) != 1 || body.Contents[0].Parts[0].Text != testUser {
				t.Errorf("contents: %s", c.Body)
			}
			if len(body.SystemInstruction.Parts) != 1 || body.SystemInstruction.Parts[0].Text != testSystem {
				t.Errorf("systemInstruction: %s", c.Body)
			}
			gc := body.GenerationConfig
			if gc["maxOutputTokens"] != 20000.0 {
				t.Errorf("maxOutputTokens = %v", gc["maxOutputTokens"])
			}
			temp, present := gc["temperature"]
			switch {
			case tc.want == nil && present:
				t.Errorf("temperature sent: %v", temp)
			case tc.want != nil && !present:
				t.Errorf("temperature absent, want %v: %s", tc.want, c.Body)
			case tc.want != nil && float32(temp.(float64)) != float32(tc.want.(float64)):
				t.Errorf("temperature = %v, want %v", temp, tc.want)
			}
			want := &Result{Text: "  The briefing.  ", Usage: Usage{InputTokens: 1200, OutputTokens: 320}, RequestID: "gemini-resp-1", FinishReason: "STOP", HTTPStatus: 200}
			res.Latency = 0
			if d := cmp.Diff(want, res); d != "" {
				t.Errorf("result (-want +got):\n%s", d)
			}
		})
	}
}

func TestOpenAIWire(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("x-request-id", "req_openai_1")
		writeJSON(w, 200, openaiAnswer("The briefing."))
	})
	p := openaiProvider(f.srv.URL)
	for _, tc := range []struct {
		name, model string
		temp        *float64
		wantTemp    string // raw JSON; "" absent
	}{
		{"zero reaches the wire", "gpt-4.1", ptr(0.0), "0"},
		{"0.1", "gpt-4.1", ptr(0.1), "0.1"},
		// go-openai's validator would refuse 0.1 for gpt-5*; the table
		// decides instead, and the value is written on the wire.
		{"gpt-5 name with temperature", "gpt-5.4-custom", ptr(0.1), "0.1"},
		{"omitted", "gpt-5.4-nano", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Generate(context.Background(), Request{System: testSystem, User: testUser, Model: tc.model, Temperature: tc.temp, MaxOutputTokens: 20000})
			if err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			c := reqs[len(reqs)-1]
			if c.Method != "POST" || c.Path != "/v1/chat/completions" {
				t.Errorf("request %s %s", c.Method, c.Path)
			}
			if got := c.Header.Get("Authorization"); got != "Bearer "+openaiKey {
				t.Errorf("Authorization = %q", got)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(c.Body, &raw); err != nil {
				t.Fatal(err)
			}
			if got := string(raw["temperature"]); got != tc.wantTemp {
				t.Errorf("temperature on the wire = %q, want %q; body %s", got, tc.wantTemp, c.Body)
			}
			if got := string(raw["max_completion_tokens"]); got != "20000" {
				t.Errorf("max_completion_tokens = %q", got)
			}
			if _, ok := raw["max_tokens"]; ok {
				t.Errorf("max_tokens sent: %s", c.Body)
			}
			var body struct {
				Model    string `json:"model"`
				Messages []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(c.Body, &body); err != nil {
				t.Fatal(err)
			}
			if body.Model != tc.model || len(body.Messages) != 2 ||
				body.Messages[0].Role != "system" || body.Messages[0].Content != testSystem ||
				body.Messages[1].Role != "user" || body.Messages[1].Content != testUser {
				t.Errorf("model/messages: %s", c.Body)
			}
			want := &Result{Text: "The briefing.", Usage: Usage{InputTokens: 1000, OutputTokens: 250}, RequestID: "req_openai_1", FinishReason: "stop", HTTPStatus: 200}
			res.Latency = 0
			if d := cmp.Diff(want, res); d != "" {
				t.Errorf("result (-want +got):\n%s", d)
			}
		})
	}
}

// TestGoOpenAIDropsZeroTemperature documents why OpenAI patches the body:
// go-openai on its own does not send temperature 0, and refuses 0.1 for
// gpt-5 names before sending anything.
func TestGoOpenAIDropsZeroTemperature(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, openaiAnswer("x")) })
	cc := openai.DefaultConfig("k")
	cc.BaseURL = f.srv.URL + "/v1"
	client := openai.NewClientWithConfig(cc)
	_, err := client.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "gpt-4.1", Temperature: 0,
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if body := f.requests()[0].Body; bytes.Contains(body, []byte(`"temperature"`)) {
		t.Errorf("go-openai sent temperature 0 after all (the workaround may be obsolete): %s", body)
	}
	_, err = client.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "gpt-5.4-nano", Temperature: 0.1,
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}},
	})
	if err == nil {
		t.Errorf("go-openai accepted temperature 0.1 for a gpt-5 model")
	}
}

func TestOpenAICompatibleWire(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(w, 200, openaiAnswer("local answer"))
	})
	for _, tc := range []struct {
		name, key, field, base string
	}{
		{"no key, max_tokens", "", "", f.srv.URL},
		{"key, max_completion_tokens, base with /v1", compatKey, "max_completion_tokens", f.srv.URL + "/v1/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc := ProviderConfig{Name: "local", Kind: KindOpenAICompatible, BaseURL: tc.base, APIKey: tc.key, MaxTokensField: tc.field, KeySource: "env LOCAL_KEY"}
			if err := resolve(&pc, "", "", nil); err != nil {
				t.Fatal(err)
			}
			p := NewOpenAI(pc)
			res, err := p.Generate(context.Background(), Request{System: testSystem, User: testUser, Model: "qwen3-8b", Temperature: ptr(0.0), MaxOutputTokens: 512})
			if err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			c := reqs[len(reqs)-1]
			if c.Path != "/v1/chat/completions" {
				t.Errorf("path %s", c.Path)
			}
			auth := c.Header.Get("Authorization")
			if tc.key == "" && auth != "" || tc.key != "" && auth != "Bearer "+tc.key {
				t.Errorf("Authorization = %q", auth)
			}
			var raw map[string]json.RawMessage
			json.Unmarshal(c.Body, &raw)
			field := tc.field
			if field == "" {
				field = "max_tokens"
			}
			other := map[string]string{"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}[field]
			if string(raw[field]) != "512" || raw[other] != nil {
				t.Errorf("limit fields: %s", c.Body)
			}
			if string(raw["temperature"]) != "0" {
				t.Errorf("temperature = %s", raw["temperature"])
			}
			if res.Text != "local answer" || res.RequestID != "chatcmpl-1" {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestAnthropicWire(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("request-id", "req_ant_1")
		writeJSON(w, 200, anthropicAnswer("The briefing."))
	})
	p := anthropicProvider(f.srv.URL)
	for _, tc := range []struct {
		name      string
		maxTokens int
		deadline  bool
	}{
		{"20000 with deadline", 20000, true},
		// Over 21,333 the SDK demands streaming unless a request timeout
		// is given.
		{"64000 without deadline", 64000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.deadline {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
			}
			res, err := p.Generate(ctx, Request{System: testSystem, User: testUser, Model: "claude-haiku-4-5", Temperature: ptr(0.1), MaxOutputTokens: tc.maxTokens})
			if err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			c := reqs[len(reqs)-1]
			if c.Method != "POST" || c.Path != "/v1/messages" {
				t.Errorf("request %s %s", c.Method, c.Path)
			}
			if got := c.Header.Get("Authorization"); got != "Bearer "+anthropicKey {
				t.Errorf("Authorization = %q", got)
			}
			if got := c.Header.Get("X-Api-Key"); got != "" {
				t.Errorf("X-Api-Key = %q", got)
			}
			if got := c.Header.Get("anthropic-version"); got != "2026-10-21" {
				t.Errorf("anthropic-version = %q", got)
			}
			if got := c.Header.Get("X-Stainless-Retry-Count"); got != "" && got != "0" {
				t.Errorf("retry count %q", got)
			}
			m := c.json(t)
			if _, ok := m["temperature"]; ok {
				t.Errorf("temperature sent: %s", c.Body)
			}
			if m["model"] != "claude-haiku-4-5" || m["max_tokens"] != float64(tc.maxTokens) {
				t.Errorf("model/max_tokens: %s", c.Body)
			}
			var body struct {
				System []struct {
					Type, Text string
				} `json:"system"`
				Messages []struct {
					Role    string `json:"role"`
					Content []struct {
						Type, Text string
					} `json:"content"`
				} `json:"messages"`
			}
			json.Unmarshal(c.Body, &body)
			if len(body.System) != 1 || body.System[0].Type != "text" || body.System[0].Text != testSystem {
				t.Errorf("system: %s", c.Body)
			}
			if len(body.Messages) != 1 || body.Messages[0].Role != "user" || len(body.Messages[0].Content) != 1 ||
				body.Messages[0].Content[0].Type != "text" || body.Messages[0].Content[0].Text != testUser {
				t.Errorf("messages: %s", c.Body)
			}
			want := &Result{Text: "The briefing.", Usage: Usage{InputTokens: 900, OutputTokens: 200}, RequestID: "req_ant_1", FinishReason: "end_turn", HTTPStatus: 200,
				Omitted: []string{anthropicNoTemperature}}
			res.Latency = 0
			if d := cmp.Diff(want, res); d != "" {
				t.Errorf("result (-want +got):\n%s", d)
			}
		})
	}
}

// TestProviderErrorsScrubbed: servers that echo the key back in their error
// bodies; the errors must not carry it.
func TestProviderErrorsScrubbed(t *testing.T) {
	echo := func(w http.ResponseWriter, r *http.Request, n int) {
		k := r.Header.Get("x-goog-api-key") + r.Header.Get("Authorization")
		writeJSON(w, 401, `{"error":{"code":401,"message":"invalid key `+k+`","status":"UNAUTHENTICATED","type":"authentication_error"},"type":"error"}`)
	}
	f := newFake(t, echo)
	for _, p := range []Provider{geminiProvider(f.srv.URL), openaiProvider(f.srv.URL), anthropicProvider(f.srv.URL)} {
		_, err := p.Generate(context.Background(), Request{System: "s", User: "u", Model: "m", MaxOutputTokens: 10})
		if err == nil {
			t.Fatalf("%s: no error", p.Name())
		}
		var pe *Error
		if !errors.As(err, &pe) || pe.Status != 401 || pe.Transient {
			t.Errorf("%s: %#v", p.Name(), err)
		}
		if !strings.Contains(err.Error(), Redacted) {
			t.Errorf("%s: expected a redaction in %q", p.Name(), err)
		}
		noKeys(t, p.Name()+" error", err.Error())
	}
}

func TestMissingKey(t *testing.T) {
	for _, kind := range []string{KindGemini, KindOpenAI, KindAnthropic} {
		pc := ProviderConfig{Name: kind, Kind: kind}
		if err := resolve(&pc, "", "", func(string) string { return "" }); err != nil {
			t.Fatal(err)
		}
		p, _ := NewProvider(pc)
		_, err := p.Generate(context.Background(), Request{User: "u", Model: "m", MaxOutputTokens: 5})
		if err == nil || !strings.Contains(err.Error(), "no API key (missing: ") {
			t.Errorf("%s: %v", kind, err)
		}
	}
}

func TestBuiltin(t *testing.T) {
	b := NewBuiltin(ProviderConfig{Name: "builtin", Kind: KindBuiltin, TargetChars: 1234})
	user := "pre <chat-history>A</chat-history> mid <chat-history>B</chat-history>\n\nhint"
	_, err := b.Generate(context.Background(), Request{User: user})
	if err == nil || !strings.Contains(err.Error(), "builtin model not wired") {
		t.Errorf("unwired builtin: %v", err)
	}
	var gotHist string
	var gotTarget int
	b.Writer = func(h string, target int) string {
		gotHist, gotTarget = h, target
		return "briefing of " + h
	}
	res, err := b.Generate(context.Background(), Request{User: user})
	if err != nil {
		t.Fatal(err)
	}
	if gotHist != "A</chat-history> mid <chat-history>B" || gotTarget != 1234 || res.Text != "briefing of "+gotHist {
		t.Errorf("history %q target %d text %q", gotHist, gotTarget, res.Text)
	}
	if _, err := b.Generate(context.Background(), Request{User: "no markers"}); err == nil {
		t.Error("no error without <chat-history>")
	}
	if _, ok := ExtractHistory("</chat-history><chat-history>"); ok {
		t.Error("reversed markers accepted")
	}
}

func TestDescribeProviders(t *testing.T) {
	req := Request{System: testSystem, User: testUser, Model: "m-1", Temperature: ptr(0.1), MaxOutputTokens: 100, Timeout: time.Second}
	for _, tc := range []struct {
		p       Provider
		url     string
		omitted bool
	}{
		{geminiProvider("http://127.0.0.1:8080"), "http://127.0.0.1:8080/v1beta/models/m-1:generateContent", false},
		{openaiProvider("http://127.0.0.1:8080/"), "http://127.0.0.1:8080/v1/chat/completions", false},
		{anthropicProvider("http://127.0.0.1:8080"), "http://127.0.0.1:8080/v1/messages", true},
	} {
		d := tc.p.Describe(req)
		if d.URL != tc.url || d.APIModel != "m-1" || d.MaxOutputTokens != 100 || (d.Temperature == nil) != tc.omitted || (len(d.Omitted) > 0) != tc.omitted {
			t.Errorf("%s: %+v", tc.p.Name(), d)
		}
		if len(d.Messages) != 2 || d.Messages[0].Head[0] != "You compress chat histories." || d.Messages[1].Chars != len16(testUser) || d.Messages[1].Bytes != len(testUser) {
			t.Errorf("%s messages: %+v", tc.p.Name(), d.Messages)
		}
		if !strings.Contains(d.Auth, "env ") {
			t.Errorf("%s auth %q", tc.p.Name(), d.Auth)
		}
		js, _ := json.Marshal(d)
		noKeys(t, "dry run", string(js))
	}
}

// TestGeminiConcurrentRecords: the Gemini provider shares one genai client;
// each call must still see its own response status.
func TestGeminiConcurrentRecords(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), "fail") {
			writeJSON(w, 503, `{"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}`)
			return
		}
		writeJSON(w, 200, geminiAnswer("fine"))
	})
	p := geminiProvider(f.srv.URL)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := "ok"
			if i%2 == 1 {
				user = "fail"
			}
			res, err := p.Generate(context.Background(), Request{User: user, Model: "m"})
			var pe *Error
			switch {
			case user == "ok" && (err != nil || res.HTTPStatus != 200):
				t.Errorf("call %d: %v", i, err)
			case user == "fail" && (!errors.As(err, &pe) || pe.Status != 503 || !pe.Transient):
				t.Errorf("call %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
}
