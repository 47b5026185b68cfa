package batch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/compactlab/compact/internal/batch/fakebatch"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/cascade/leaktest"
)

// redirectPair is a server that redirects every request with status to
// the other one (the request's key in the Location's query), and the
// count of requests the other got.
func redirectPair(t *testing.T, status int) (first, other string, got *atomic.Int64) {
	t.Helper()
	got = &atomic.Int64{}
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		http.Error(w, "the request was redirected here", http.StatusTeapot)
	}))
	t.Cleanup(o.Close)
	f := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("x-goog-api-key") + r.Header.Get("x-api-key") + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Location", o.URL+"/elsewhere?key="+key)
		w.WriteHeader(status)
	}))
	t.Cleanup(f.Close)
	return f.URL, o.URL + "/elsewhere", got
}

func noKeyRun(t *testing.T, text, key string) {
	t.Helper()
	if how := leaktest.KeyRun(text, key); how != "" {
		t.Errorf("a piece of the key shows (%s) in %s", how, text)
	}
}

// TestBatchClientsFollowNoRedirect: every batch client (each provider's
// poll, OpenAI's own upload) fails on a 302 or 307 with an error naming
// where it pointed, key redacted, and the other server gets nothing.
func TestBatchClientsFollowNoRedirect(t *testing.T) {
	keys := map[string]string{
		cascade.KindOpenAI:    "sk-proj-BATCHredirect0123456789abcdefXYZ",
		cascade.KindAnthropic: "sk-ant-api03-BATCHredirect0123456789abcdef",
		cascade.KindGemini:    "AIzaSyBATCHredirect0123456789abcdefgh",
	}
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
		for _, kind := range []string{cascade.KindOpenAI, cascade.KindAnthropic, cascade.KindGemini} {
			t.Run(fmt.Sprint(kind, status), func(t *testing.T) {
				first, where, got := redirectPair(t, status)
				key := keys[kind]
				svc, err := newService(cascade.ProviderConfig{Name: kind, Kind: kind, BaseURL: first, APIKey: key, KeySource: "test"}, DefaultSettings())
				if err != nil {
					t.Fatal(err)
				}
				errs := []error{}
				_, err = svc.poll(context.Background(), "batches/1")
				errs = append(errs, err)
				if kind == cascade.KindOpenAI {
					f, err := os.Create(filepath.Join(t.TempDir(), "in.jsonl"))
					if err != nil {
						t.Fatal(err)
					}
					fmt.Fprintln(f, `{"custom_id":"a"}`)
					_, err = svc.create(context.Background(), Tier{}, f, 18, 1, "run")
					f.Close()
					errs = append(errs, err)
				}
				for _, err := range errs {
					if err == nil {
						t.Fatal("no error")
					}
					// The callers redact with the cascade's keys.
					msg := cascade.Redact(err.Error(), key)
					if !strings.Contains(msg, where+"?key="+cascade.Redacted) || !strings.Contains(msg, "redirects are not followed") {
						t.Errorf("error %q does not name %s", msg, where)
					}
					noKeyRun(t, msg, key)
				}
				if got.Load() != 0 {
					t.Errorf("the other server got %d requests", got.Load())
				}
			})
		}
	}
}

// TestBatchSubmitReportsARedirect: a submit whose provider redirects
// fails naming the redirect's URL, without the key; nothing reaches the
// other server.
func TestBatchSubmitReportsARedirect(t *testing.T) {
	first, where, got := redirectPair(t, http.StatusTemporaryRedirect)
	p := providers[0] // openai
	e := newEnv(t, p, first, nil)
	root := t.TempDir()
	bundles, err := fakebatch.WriteBundles(root, 2, func(int) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cas, s := e.load(t)
	_, err = Submit(context.Background(), cas, Options{Root: root, Run: "redirected", Bundles: bundles, Models: p.models[:1], Settings: s, ToolVersion: "test"})
	if err == nil || !strings.Contains(err.Error(), where+"?key="+cascade.Redacted) {
		t.Fatalf("submit: %v", err)
	}
	noKeyRun(t, err.Error(), e.vars["OPENAI_API_KEY"])
	if got.Load() != 0 {
		t.Errorf("the other server got %d requests", got.Load())
	}
}
