package cascade

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/rand"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 24: keys and prompts go nowhere else. Servers that log a key
// through net/http, redirect the call elsewhere, or echo the key in forms
// the old redaction did not know.

// plantCompat is the key of an openai-compatible server.
const plantCompat = "compat-WWKLr5Tn8QpZ3vXyMbNc4DfGh7JkLm90qrst"

// hostileProviders are one provider of each kind at url, with the
// planted keys.
func hostileProviders(url string) []Provider {
	return []Provider{
		NewGemini(ProviderConfig{Name: "gemini", Kind: KindGemini, BaseURL: url, APIKey: plantGemini, KeySource: "env GEMINI_API_KEY"}),
		NewOpenAI(ProviderConfig{Name: "openai", Kind: KindOpenAI, BaseURL: url, APIKey: plantOpenAI, KeySource: "env OPENAI_API_KEY"}),
		NewAnthropic(ProviderConfig{Name: "anthropic", Kind: KindAnthropic, BaseURL: url, APIKey: plantAnthropic, KeySource: "env ANTHROPIC_API_KEY"}),
		NewOpenAI(ProviderConfig{Name: "local", Kind: KindOpenAICompatible, BaseURL: url + "/v1", APIKey: plantCompat, KeySource: "env COMPACT_API_KEY"}),
	}
}

var hostileKeys = []string{plantGemini, plantOpenAI, plantAnthropic, plantCompat}

// answerFor is a provider's answer to a request, in its wire format.
func answerFor(kind, text string) string {
	switch kind {
	case KindGemini:
		return geminiAnswer(text)
	case KindAnthropic:
		return anthropicAnswer(text)
	}
	return openaiAnswer(text)
}

// requestKey is the key a request carried.
func requestKey(r *http.Request) string {
	if k := r.Header.Get("x-goog-api-key"); k != "" {
		return k
	}
	if k := r.Header.Get("x-api-key"); k != "" {
		return k
	}
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// requestKind is the provider kind a request's path belongs to.
func requestKind(path string) string {
	switch {
	case strings.Contains(path, ":generateContent"):
		return KindGemini
	case strings.HasSuffix(path, "/messages"):
		return KindAnthropic
	}
	return KindOpenAI
}

// syncBuffer is a bytes.Buffer for writers on several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// captureOutput points os.Stderr and the standard logger at one buffer
// (the logger raw: what guards it must be the code under test) until the
// test ends.
func captureOutput(t *testing.T) *syncBuffer {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	buf := &syncBuffer{}
	done := make(chan struct{})
	go func() { io.Copy(buf, pr); close(done) }()
	oldErr, oldLog := os.Stderr, log.Writer()
	os.Stderr = pw
	log.SetOutput(pw)
	t.Cleanup(func() {
		os.Stderr = oldErr
		log.SetOutput(oldLog)
		pw.Close()
		<-done
	})
	return buf
}

// waitFor waits up to 5 s for s to show in buf.
func waitFor(t *testing.T, buf *syncBuffer, s string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out := buf.String()
		if strings.Contains(out, s) || time.Now().After(deadline) {
			return out
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// unsolicitedServer is a loopback HTTP/1.1 server on a raw listener: it
// answers each request with the answer of its provider and then, on the
// connection now idle, writes a second response nobody asked for that
// carries the request's key in its headers, whole and encoded. net/http's
// Transport logs such a response with its first bytes.
func unsolicitedServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				key := requestKey(req)
				body := answerFor(requestKind(req.URL.Path), longAnswer)
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				time.Sleep(20 * time.Millisecond)
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nX-Leak: Bearer %s\r\nX-Leak-B64: %s\r\nX-Leak-Hex: %s\r\nX-Leak-Piece: %s\r\nContent-Length: 0\r\n\r\n",
					key, base64.StdEncoding.EncodeToString([]byte("k:"+key)), hex.EncodeToString([]byte(key)), key[len(key)/2-6:len(key)/2+6])
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				io.Copy(io.Discard, c) // until the client hangs up
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestUnsolicitedResponseLogsNoKey: a server writes a second response on
// an idle keep-alive connection with the key in its headers; net/http
// logs it through the standard logger. For every provider kind, what
// reaches the logger and stderr holds no 12 characters of any key.
func TestUnsolicitedResponseLogsNoKey(t *testing.T) {
	out := captureOutput(t)
	url := unsolicitedServer(t)
	for _, p := range hostileProviders(url) {
		before := strings.Count(out.String(), unsolicited)
		res, err := p.Generate(context.Background(), Request{System: "s", User: "u", Model: "m", MaxOutputTokens: 100})
		if err != nil || strings.TrimSpace(res.Text) != longAnswer {
			t.Fatalf("%s: %v %+v", p.Name(), err, res)
		}
		deadline := time.Now().Add(5 * time.Second)
		for strings.Count(out.String(), unsolicited) == before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if strings.Count(out.String(), unsolicited) == before {
			t.Fatalf("%s: net/http logged no unsolicited response:\n%s", p.Name(), out)
		}
	}
	// Lines the SDKs or anything else log through log and log/slog.
	for _, k := range hostileKeys {
		log.Printf("a library says: key=%s, masked %s…, piece %s", k, k[:14], k[10:24])
		slog.Warn("a library warns", "key", k, "b64", base64.URLEncoding.EncodeToString([]byte(k)))
	}
	printed := out.String()
	for _, k := range hostileKeys {
		assertNoKeyRun(t, printed, k)
	}
	if strings.Contains(printed, "X-Leak") || !strings.Contains(printed, "bytes of the server's, not shown]; err=") {
		t.Errorf("the server's bytes were shown:\n%s", printed)
	}
}

// TestLogGuardWrapsEveryOutput: GuardLog wraps whatever the standard
// logger writes to, once, and again when it was replaced.
func TestLogGuardWrapsEveryOutput(t *testing.T) {
	old := log.Writer()
	defer log.SetOutput(old)
	ProtectKeys(plantOpenAI)
	var a, b syncBuffer
	log.SetOutput(&a)
	GuardLog()
	GuardLog()
	log.Print("a " + plantOpenAI)
	log.SetOutput(&b)
	NewOpenAI(ProviderConfig{Name: "openai", Kind: KindOpenAI, BaseURL: "http://127.0.0.1:9", APIKey: plantOpenAI})
	log.Print("b " + strings.ToUpper(plantOpenAI))
	if !strings.Contains(a.String(), "a "+Redacted) || strings.Count(a.String(), Redacted) != 1 || !strings.Contains(b.String(), "b "+Redacted) {
		t.Errorf("a %q, b %q", a.String(), b.String())
	}
	var c syncBuffer
	w := LogWriter(&c)
	fmt.Fprintf(w, "%s\n", plantOpenAI)
	if c.String() != Redacted+"\n" {
		t.Errorf("LogWriter: %q", c.String())
	}
}

// redirecting answers every request with status and a Location on
// another server (the key in its query).
func redirecting(status int, location string) handler {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Location", location)
		w.WriteHeader(status)
	}
}

// TestProvidersFollowNoRedirect: a 302 or 307 to another loopback server
// fails the call with an error naming where it pointed (key redacted); the
// other server gets nothing (no key, no prompt); for every provider kind.
func TestProvidersFollowNoRedirect(t *testing.T) {
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			other := newFake(t, nil) // any request fails the test
			var mu sync.Mutex
			var where string
			first := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				mu.Lock()
				defer mu.Unlock()
				where = other.srv.URL + "/v1/elsewhere"
				redirecting(status, where+"?key="+requestKey(r)+"&n=1")(w, r, n)
			})
			for _, p := range hostileProviders(first.srv.URL) {
				before := first.count()
				_, err := p.Generate(context.Background(), Request{System: testSystem, User: testUser, Model: "m", MaxOutputTokens: 100})
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("%s: %v", p.Name(), err)
				}
				if pe.Status != status || pe.Transient || !strings.Contains(pe.Msg, where+"?key="+Redacted) || !strings.Contains(pe.Msg, "redirects are not followed") {
					t.Errorf("%s: %+v", p.Name(), pe)
				}
				for _, k := range hostileKeys {
					assertNoKeyRun(t, err.Error(), k)
				}
				if first.count() != before+1 {
					t.Errorf("%s: %d requests to the first server", p.Name(), first.count()-before)
				}
			}
			if other.count() != 0 {
				t.Errorf("the other server got %d requests", other.count())
			}
		})
	}
}

// TestCascadeReportsARedirectAsAnError: every model redirected: each
// attempt is an error naming the redirect's URL, tried once, no answer.
func TestCascadeReportsARedirectAsAnError(t *testing.T) {
	other := newFake(t, nil)
	loc := other.srv.URL + "/v1/chat/completions?key=" + plantOpenAI
	r := newRig(t, testSettings(), redirecting(307, loc), redirecting(307, loc), redirecting(302, loc))
	for _, pc := range []ProviderConfig{
		{Name: "gemini", Kind: KindGemini, BaseURL: r.gem.srv.URL, APIKey: plantGemini},
		{Name: "openai", Kind: KindOpenAI, BaseURL: r.oai.srv.URL, APIKey: plantOpenAI},
		{Name: "anthropic", Kind: KindAnthropic, BaseURL: r.ant.srv.URL, APIKey: plantAnthropic},
	} {
		if err := r.c.addProvider(pc); err != nil {
			t.Fatal(err)
		}
	}
	out, err := r.c.Run(context.Background(), Input{System: testSystem, User: testUser}, []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"})
	var fe *FailedError
	if !errors.As(err, &fe) || out.Text != "" || len(out.Attempts) != 3 {
		t.Fatalf("%v %+v", err, out)
	}
	want := other.srv.URL + "/v1/chat/completions?key=" + Redacted
	for _, a := range out.Attempts {
		if a.Outcome != OutcomeError || len(a.Tries) != 1 || !strings.Contains(a.Error, want) {
			t.Errorf("attempt %+v", a)
		}
	}
	js, _ := json.Marshal(out)
	for _, k := range plantedKeys {
		assertNoKeyRun(t, string(js)+err.Error(), k)
	}
	if !strings.Contains(err.Error(), want) || other.count() != 0 {
		t.Errorf("error %v; %d requests elsewhere", err, other.count())
	}
}

// echoForms is key in every form a server may echo it in: whole, split by
// invisible characters, as HTML entities (numeric and named), JSON and JS
// escapes (once and twice), URL escapes, base64 at the three byte offsets
// in both alphabets, hex in both cases, a 12-character slice of its middle
// and the same slice in upper case.
func echoForms(key string) string {
	rnd := rand.New(rand.NewSource(24))
	var parts []string
	for _, form := range keyForms {
		parts = append(parts, form+"="+encodeForm(rnd, key, form))
	}
	for off := 0; off < 3; off++ {
		raw := append([]byte("xy"[:off]), key...)
		parts = append(parts, "b64-"+fmt.Sprint(off)+"="+base64.StdEncoding.EncodeToString(raw), "b64url-"+fmt.Sprint(off)+"="+base64.RawURLEncoding.EncodeToString(raw))
	}
	mid := key[len(key)/2-6 : len(key)/2+6]
	parts = append(parts, "hex="+hex.EncodeToString([]byte(key)), "HEX="+strings.ToUpper(hex.EncodeToString([]byte(key))), "slice="+mid, "SLICE="+strings.ToUpper(mid))
	return strings.Join(parts, " ")
}

// TestEchoedKeyFormsNeverReachTheRecord: servers echo the key in every
// form (echoForms) in headers, in error bodies and in the answer; nothing
// of 12 characters of it reaches an attempt, an error or the answer.
func TestEchoedKeyFormsNeverReachTheRecord(t *testing.T) {
	echo := func(status int) handler {
		return func(w http.ResponseWriter, r *http.Request, n int) {
			k := requestKey(r)
			w.Header().Set("x-request-id", base64.StdEncoding.EncodeToString([]byte("id:"+k)))
			w.Header().Set("request-id", strings.Join(strings.Split(k, ""), "\u200b"))
			forms := echoForms(k)
			if status != 200 {
				writeJSON(w, status, `{"error":{"code":`+fmt.Sprint(status)+`,"message":`+jsonString("bad key "+forms)+`,"status":"UNAUTHENTICATED","type":"authentication_error"},"type":"error"}`)
				return
			}
			writeJSON(w, 200, answerFor(requestKind(r.URL.Path), longAnswer+"\n"+forms))
		}
	}
	r := newRig(t, testSettings(), echo(401), echo(500), echo(200))
	for _, pc := range []ProviderConfig{
		{Name: "gemini", Kind: KindGemini, BaseURL: r.gem.srv.URL, APIKey: plantGemini},
		{Name: "openai", Kind: KindOpenAI, BaseURL: r.oai.srv.URL, APIKey: plantOpenAI},
		{Name: "anthropic", Kind: KindAnthropic, BaseURL: r.ant.srv.URL, APIKey: plantAnthropic},
	} {
		if err := r.c.addProvider(pc); err != nil {
			t.Fatal(err)
		}
	}
	out, err := r.c.Run(context.Background(), Input{System: "s", User: "u"}, []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"})
	if err != nil || !strings.HasPrefix(out.Text, longAnswer) {
		t.Fatalf("%v %+v", err, out)
	}
	js, _ := json.Marshal(out)
	for _, k := range plantedKeys {
		assertNoKeyRun(t, string(js)+fmt.Sprintf("%+v", out), k)
	}
	if len(out.Attempts) != 3 || out.Attempts[0].Tries[0].Status != 401 || out.Attempts[1].Tries[0].Status != 500 {
		t.Errorf("attempts: %s", js)
	}
}
