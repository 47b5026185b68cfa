package cmd

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/cascade/leaktest"
)

// Issue 24 from the command line: a server that redirects, a server that
// echoes the key in disguise.

const issue24Key = "sk-local-RDRXq8Vm3KpT9wYz2NbC6DfHj4LsQe7u"

// noKeyRunIn fails when text shows any 12 characters of key in a row,
// decoded or encoded (leaktest.KeyRun).
func noKeyRunIn(t *testing.T, what, text string) {
	t.Helper()
	if how := leaktest.KeyRun(text, issue24Key); how != "" {
		t.Errorf("%s shows a piece of the key (%s):\n%.3000s", what, how, text)
	}
}

// noKeyRunUnder checks every file under dir.
func noKeyRunUnder(t *testing.T, dir string) (files int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		noKeyRunIn(t, p, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestReplayReportsARedirect: the server of --base-url answers 307 (with
// the key in the Location's query) to another server. Nothing reaches
// that one, every bundle is an error naming where the redirect pointed,
// the run exits 1, no briefing is written, and no piece of the key shows
// in stdout, stderr or a file.
func TestReplayReportsARedirect(t *testing.T) {
	dir := extractSample(t)
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"## Briefing\n\nA briefing from the server the call was redirected to."}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/chat/completions?key="+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	env := map[string]string{"COMPACT_API_KEY": issue24Key}
	code, out, errOut := runIn(t, env, "replay", "--json", "--base-url", srv.URL+"/v1", "--api-model", "m", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the server redirected to got %d requests", n)
	}
	want := other.URL + "/v1/chat/completions?key=" + cascade.Redacted
	failed := 0
	for _, l := range strings.Split(errOut, "\n") {
		if strings.HasPrefix(l, "compact replay: ") && strings.Contains(l, want) && strings.Contains(l, "307") {
			failed++
		}
	}
	if failed != 7 {
		t.Errorf("%d of 7 bundles named as failed with the redirect's URL on stderr:\n%s", failed, errOut)
	}
	var res struct {
		Totals struct {
			OK int `json:"ok"`
		} `json:"totals"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Totals.OK != 0 || !strings.Contains(out, want) {
		t.Errorf("--json: %v %+v\n%s", err, res, out)
	}
	noKeyRunIn(t, "stdout", out)
	noKeyRunIn(t, "stderr", errOut)
	noKeyRunUnder(t, dir)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "output.md" {
			t.Errorf("a briefing was written: %s", p)
		}
		return nil
	})
}

// disguises is key in the forms a server may echo it in: whole, split by
// zero-width characters, as HTML entities (decimal, hex, named), as JSON
// escapes once and twice, URL-escaped, base64 at each byte offset in both
// alphabets, hex in both cases, and a 12-character slice of its middle.
func disguises(key string) string {
	var ents, json1, json2, url, split strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '-':
			ents.WriteString("&#45;")
		case i%2 == 0:
			fmt.Fprintf(&ents, "&#%d;", c)
		default:
			fmt.Fprintf(&ents, "&#x%X;", c)
		}
		fmt.Fprintf(&json1, `\u%04x`, c)
		fmt.Fprintf(&json2, `\\u%04X`, c)
		fmt.Fprintf(&url, "%%%02X", c)
		split.WriteByte(c)
		split.WriteString([]string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"}[i%6])
	}
	forms := []string{key, strings.ToUpper(key), split.String(), ents.String(), json1.String(), json2.String(), url.String(),
		hex.EncodeToString([]byte(key)), strings.ToUpper(hex.EncodeToString([]byte(key))), key[len(key)/2-6 : len(key)/2+6]}
	for off := 0; off < 3; off++ {
		raw := append([]byte("ab"[:off]), key...)
		forms = append(forms, base64.StdEncoding.EncodeToString(raw), base64.RawURLEncoding.EncodeToString(raw))
	}
	return strings.Join(forms, " | ")
}

// TestReplayWritesNoPieceOfAnEchoedKey: the server answers with the key
// in every disguise in the briefing, its request id and its finish reason.
// output.md, replay.json, stdout (--json) and stderr show no 12
// characters of the key in a row, in any of those forms.
func TestReplayWritesNoPieceOfAnEchoedKey(t *testing.T) {
	dir := extractSample(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-request-id", base64.StdEncoding.EncodeToString([]byte("req:"+key)))
		text := "## Briefing\n\nYou were working with the key " + disguises(key) + " and nothing else."
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-" + key, "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop " + hex.EncodeToString([]byte(key)),
				"message": map[string]any{"role": "assistant", "content": text}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
		})
	}))
	defer srv.Close()
	env := map[string]string{"COMPACT_API_KEY": issue24Key}
	code, out, errOut := runIn(t, env, "replay", "--json", "--base-url", srv.URL+"/v1", "--api-model", "m", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	noKeyRunIn(t, "stdout", out)
	noKeyRunIn(t, "stderr", errOut)
	outputs := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "output.md" {
			outputs++
			if data, _ := os.ReadFile(p); !strings.Contains(string(data), "You were working with the key "+cascade.Redacted) {
				t.Errorf("%s: %s", p, data)
			}
		}
		return nil
	})
	if outputs != 7 {
		t.Errorf("%d briefings written, want 7", outputs)
	}
	noKeyRunUnder(t, dir)
}
