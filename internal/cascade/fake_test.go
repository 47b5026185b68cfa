package cascade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Test keys. They must never show up in a result, error, record or dry run.
const (
	geminiKey    = "AIza-TEST-gemini-SECRET-0123456789"
	openaiKey    = "sk-TEST-openai-SECRET-0123456789"
	anthropicKey = "sk-ant-TEST-anthropic-SECRET-0123456789"
	compatKey    = "compat-TEST-SECRET-0123456789"
)

var allKeys = []string{geminiKey, openaiKey, anthropicKey, compatKey}

// Messages with bytes that JSON encoders like to rewrite: HTML characters,
// line and paragraph separators, a lone BOM, an astral character, quotes,
// backslashes and control characters.
const (
	testSystem = "You compress chat histories.\n<rules>\"keep\" & 'cut'</rules>\t\\ end"
	testUser   = "<chat-history><user>hi ✓ 😀 \u2028 \u2029 \ufeff</user>\n<assistant>a & b < c > d</assistant></chat-history>\n\nWrite about 30.000 characters."
)

// captured is one request a fake server received.
type captured struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

func (c captured) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, c.Body)
	}
	return m
}

// fake is a loopback server whose n-th request (1-based) is answered by
// handle.
type fake struct {
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []captured
	handle func(w http.ResponseWriter, r *http.Request, n int)
}

func newFake(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *fake {
	t.Helper()
	if handle == nil {
		handle = func(w http.ResponseWriter, r *http.Request, n int) {
			t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
			writeJSON(w, 418, `{}`)
		}
	}
	f := &fake{handle: handle}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, captured{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		n := len(f.reqs)
		f.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.handle(w, r, n)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) requests() []captured {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]captured(nil), f.reqs...)
}

func (f *fake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Answers in each provider's wire format.

func geminiAnswer(text string) string {
	return `{"candidates":[{"content":{"role":"model","parts":[{"text":"thinking…","thought":true},{"text":` + jsonString(text) + `}]},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":1200,"candidatesTokenCount":300,"thoughtsTokenCount":20,"totalTokenCount":1520},` +
		`"modelVersion":"gemini-3.1-flash-lite","responseId":"gemini-resp-1"}`
}

func openaiAnswer(text string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-5.4-nano",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":` + jsonString(text) + `},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":1000,"completion_tokens":250,"total_tokens":1250}}`
}

func anthropicAnswer(text string) string {
	return `{"id":"msg_01","type":"message","role":"assistant","model":"claude-haiku-4-5",` +
		`"content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"text","text":` + jsonString(text) + `}],` +
		`"stop_reason":"end_turn","stop_sequence":null,` +
		`"usage":{"input_tokens":900,"output_tokens":200,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`
}

// hijackPartial answers 200 with a Content-Length larger than what it writes,
// then closes the connection: the answer breaks off in the middle.
func hijackPartial(w http.ResponseWriter, partial string) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(partial)+500, partial)
	buf.Flush()
	conn.Close()
}

// hijackClose closes the connection without answering.
func hijackClose(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	conn.Close()
}

// noKeys fails when any test key occurs in s.
func noKeys(t *testing.T, what, s string) {
	t.Helper()
	for _, k := range allKeys {
		if strings.Contains(s, k) {
			t.Errorf("%s contains a key: %s", what, s)
		}
	}
}

func ptr[T any](v T) *T { return &v }
