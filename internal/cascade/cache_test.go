package cascade

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/respcache"
)

// TestCacheAnswersARepeatedRequestWithoutSending: the second run of the
// same input sends nothing, returns the same text at no cost (saving what
// the first cost), and any change to what is sent is a miss; errors and
// answers too short are never recorded; no key reaches the cache.
func TestCacheAnswersARepeatedRequestWithoutSending(t *testing.T) {
	fail := true
	r := newRig(t, testSettings(),
		ok(geminiAnswer, "tiny"), // too short: rejected, not cached
		func(w http.ResponseWriter, req *http.Request, n int) {
			if fail {
				writeJSON(w, 400, `{"error":{"message":"bad request `+openaiKey+`"}}`)
				return
			}
			writeJSON(w, 200, openaiAnswer(longAnswer))
		},
		ok(anthropicAnswer, longAnswer))
	dir := t.TempDir()
	cache, err := respcache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.c.Cache = cache
	order := []string{"gemini-3.1-flash-lite", "gpt-5.4-nano"}
	in := Input{System: testSystem, User: testUser}
	run := func() *Outcome {
		out, _ := r.c.Run(context.Background(), in, order)
		return out
	}
	first := run() // gemini too short, openai 400: nothing cached
	if first.Text != "" || r.gem.count() != 1 || r.oai.count() != 1 {
		t.Fatalf("first run %+v, %d %d requests", first, r.gem.count(), r.oai.count())
	}
	fail = false
	second := run()
	if second.Text == "" || second.Cached || r.gem.count() != 2 || r.oai.count() != 2 {
		t.Fatalf("second run %+v: errors and short answers were cached (%d %d requests)", second, r.gem.count(), r.oai.count())
	}
	third := run()
	if r.oai.count() != 2 {
		t.Errorf("the repeated request was sent again: %d requests", r.oai.count())
	}
	if r.gem.count() != 3 {
		t.Errorf("the too-short answer was cached: %d gemini requests", r.gem.count())
	}
	a := third.Attempts[1]
	if third.Text != second.Text || !third.Cached || !a.Cached || a.CostUSD != 0 || third.CostUSD != third.Attempts[0].CostUSD || len(a.Omitted) != 1 ||
		a.SavedUSD != second.Attempts[1].CostUSD || a.SavedUSD == 0 || a.Usage != second.Attempts[1].Usage || len(a.Tries) != 0 {
		t.Errorf("cached attempt %+v, outcome %+v; first answer's cost %v", a, third, second.Attempts[1].CostUSD)
	}
	// Any change to what is sent is another request.
	for _, change := range []func(){
		func() { in.User += " " },
		func() { in.System += " " },
		func() { r.c.Settings.MaxOutputTokens = 1000 },
	} {
		before := r.oai.count()
		change()
		if out := run(); out.Cached || r.oai.count() != before+1 {
			t.Errorf("a changed request was answered from the cache (%d requests)", r.oai.count())
		}
	}
	st, err := cache.Stats()
	if err != nil || st.Entries != 4 {
		t.Errorf("stats %+v %v", st, err)
	}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			data, _ := os.ReadFile(p)
			noKeys(t, p, string(data))
			var rec cacheRecord
			if json.Unmarshal(data, &rec) != nil || rec.Version != cacheVersion || !strings.Contains(rec.Text, strings.TrimSpace(longAnswer)[:20]) {
				t.Errorf("%s: %s", p, data)
			}
		}
		return nil
	})
	if n, _, err := cache.Prune(time.Time{}); err != nil || n != 4 {
		t.Errorf("prune removed %d: %v", n, err)
	}
}
