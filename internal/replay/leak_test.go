package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/testfiles"
)

// Distinctive keys in the providers' own shapes.
const (
	plantOpenAI    = "sk-proj-ZZOPq8Xk3LmN0pQrStUvWxYz1234cdef"
	plantAnthropic = "sk-ant-api03-YYQRm7Wj2KnB9vCxDzEaFbGh5678wxyz"
	plantGemini    = "AIzaSyXXSTp6Vh1JmC8bDyEzFaGbHc9012ghij"
)

// leakRE: a distinctive piece of each key (any letter case), or a prefix
// and suffix of one around anything (a mask).
var leakRE = regexp.MustCompile(`(?i)ZZOPq8|q8Xk3L|1234cdef|YYQRm7|m7Wj2K|5678wxyz|XXSTp6|p6Vh1J|9012ghij|hunter2pw|` +
	`ZZOP[^ "]{0,40}cdef|YYQR[^ "]{0,40}wxyz|XXST[^ "]{0,40}ghij`)

func mask(k string, n int, stars string) string { return k[:n] + stars + k[len(k)-4:] }

// keyOf is the key a request carried.
func keyOf(r *http.Request) string {
	return r.Header.Get("x-goog-api-key") + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// captureStderr runs f with os.Stderr and the log package writing into a
// buffer.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&buf, pr); close(done) }()
	oldErr, oldLog := os.Stderr, log.Writer()
	os.Stderr = pw
	log.SetOutput(pw)
	restore := func() {
		os.Stderr = oldErr
		log.SetOutput(oldLog)
		pw.Close()
		<-done
	}
	defer func() {
		if pw != nil {
			restore()
		}
	}()
	f()
	restore()
	pw = nil
	return buf.String()
}

// cascadeFor is the cascade of the default configuration with the three
// providers at the given servers and the planted keys in the environment.
func cascadeFor(t *testing.T, gem, oai, ant string, extra string) *cascade.Cascade {
	t.Helper()
	yaml := fmt.Sprintf("cascade:\n  timeout: 20s\n  max_tries: 2\n  backoff_base: 1ms\n  backoff_max: 2ms\n%s"+
		"providers:\n  gemini:\n    base_url: %s\n  openai:\n    base_url: %s\n  anthropic:\n    base_url: %s\n", extra, gem, oai, ant)
	path := filepath.Join(t.TempDir(), "compact.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GEMINI_API_KEY": plantGemini, "OPENAI_API_KEY": plantOpenAI, "ANTHROPIC_API_KEY": plantAnthropic}
	getenv := func(k string) string { return env[k] }
	st, err := config.LoadEnv(path, getenv)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cascade.Load(st, getenv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReplayWritesAndPrintsNoKey: servers echo the key in request-id
// headers, mask it in 401 bodies as the providers do, echo it in upper
// case, in 5xx bodies and in the answer. No byte written under the bundle
// and nothing returned or printed may carry it.
func TestReplayWritesAndPrintsNoKey(t *testing.T) {
	var answer atomic.Bool
	srv := func(h http.HandlerFunc) string {
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		return s.URL
	}
	gem := srv(func(w http.ResponseWriter, r *http.Request) {
		k := keyOf(r)
		w.Header().Set("x-request-id", k)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"code":401,"message":"API key not valid: %s (%s)","status":"UNAUTHENTICATED"}}`, mask(k, 10, "…"), strings.ToUpper(k))
	})
	oai := srv(func(w http.ResponseWriter, r *http.Request) {
		k := keyOf(r)
		w.Header().Set("x-request-id", "req_"+k)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}`, mask(k, 12, "*****"))
	})
	ant := srv(func(w http.ResponseWriter, r *http.Request) {
		k := keyOf(r)
		w.Header().Set("request-id", strings.ToUpper(k))
		w.Header().Set("Content-Type", "application/json")
		if !answer.Load() {
			w.WriteHeader(500)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"api_error","message":"internal error for %s / %s"}}`, strings.ToLower(k), mask(k, 17, "..."))
			return
		}
		text := "## Briefing\nYou were refactoring the parser with key " + k + " (" + mask(k, 12, "****") + ")."
		fmt.Fprintf(w, `{"id":"msg_%s","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":%q}],"stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":2}}`, k, text)
	})
	c := cascadeFor(t, gem, oai, ant, "")
	root, bundles := makeBundles(t, 2)
	var items []Item
	printed := captureStderr(t, func() {
		for _, run := range []string{"failed", "answered"} {
			answer.Store(run == "answered")
			its, err := Run(context.Background(), c, Options{Bundles: bundles, Models: c.Order(""), Run: run, Jobs: 2, ToolVersion: "test"}, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			items = append(items, its...)
		}
	})
	js, _ := json.Marshal(items)
	if m := leakRE.FindAllString(string(js)+fmt.Sprintf("%+v", items), 5); m != nil {
		t.Errorf("items leak %q: %s", m, js)
	}
	if m := leakRE.FindAllString(printed, 5); m != nil {
		t.Errorf("stderr leaks %q: %s", m, printed)
	}
	statuses := map[string]int{}
	for _, it := range items {
		statuses[it.Status]++
	}
	if statuses[StatusFailed] != 2 || statuses[StatusOK] != 2 {
		t.Errorf("statuses %v: %s", statuses, js)
	}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if m := leakRE.FindAllString(string(data), 5); m != nil {
			t.Errorf("%s leaks %q:\n%s", path, m, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := ReadRecord(bundles[0], "answered")
	if err != nil || files < 2*5+2*3 {
		t.Fatalf("record %v, %d files", err, files)
	}
	if a := rec.Attempts[2]; a.RequestID != cascade.Redacted || a.Outcome != cascade.OutcomeOK {
		t.Errorf("answering attempt: %+v", a)
	}
	if rec.Attempts[0].Tries[0].Status != 401 || !strings.Contains(rec.Attempts[1].Error, cascade.Redacted) {
		t.Errorf("failed attempts: %+v", rec.Attempts[:2])
	}
}

// TestReplayRecordsACutAnswer: a 10 MB answer is kept up to
// cascade.max_answer_bytes (4 MiB by default), cut at a character
// boundary, and replay.json says it was cut and how long it was. Under
// the race detector the answer is 5 MiB, a quarter over the limit: the
// cut and the record are the same, and the answer goes through one
// request on one goroutine, ten times slower there.
func TestReplayRecordsACutAnswer(t *testing.T) {
	const max = cascade.DefaultMaxAnswerBytes
	size := 10 << 20
	if testfiles.Race {
		size = max + max/4
	}
	var b strings.Builder
	b.WriteString(strings.Repeat("a", max-2))
	for b.Len() < size {
		b.WriteString("😀 more ")
	}
	text := strings.TrimSpace(b.String())
	ant := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		js, _ := json.Marshal(text)
		fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":%s}],"stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":2}}`, js)
	}))
	t.Cleanup(ant.Close)
	c := cascadeFor(t, "http://127.0.0.1:9", "http://127.0.0.1:9", ant.URL, "")
	_, bundles := makeBundles(t, 1)
	items, err := Run(context.Background(), c, Options{Bundles: bundles, Models: []string{"claude-haiku-4.5"}, Run: "big", ToolVersion: "test"}, Hooks{})
	if err != nil || len(items) != 1 || items[0].Status != StatusOK || !items[0].Truncated {
		t.Fatalf("%+v %v", items, err)
	}
	rec, err := ReadRecord(bundles[0], "big")
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(bundles[0], bundle.DirReplays, "big", bundle.FileOutput))
	if err != nil {
		t.Fatal(err)
	}
	if !rec.OutputTruncated || rec.OutputOriginalBytes != len(text) || !rec.Attempts[0].OutputTruncated {
		t.Errorf("record: truncated %v original %d, want %d", rec.OutputTruncated, rec.OutputOriginalBytes, len(text))
	}
	if len(out) != max-2 || !utf8.Valid(out) || string(out) != text[:max-2] || rec.OutputSha256 != sha(string(out)) {
		t.Errorf("output.md: %d bytes (valid %v), want %d", len(out), utf8.Valid(out), max-2)
	}
	raw, _ := os.ReadFile(filepath.Join(bundles[0], bundle.DirReplays, "big", bundle.FileRecord))
	if !bytes.Contains(raw, []byte(`"outputTruncated": true`)) || !bytes.Contains(raw, []byte(fmt.Sprintf(`"outputOriginalBytes": %d`, len(text)))) {
		t.Errorf("replay.json:\n%s", raw)
	}
}
