package cascade

import (
	"context"
	"testing"

	"github.com/compactlab/compact/internal/respcache"
)

// TestRepeatsHaveTheirOwnCacheEntries: Input.Repeat keeps each repeat of
// one request apart in the response cache. The first repeat (0 or 1) is
// the plain request, with the plain request's key; repeats 2 and on are
// each sent once, then answered by their own entry; BatchRequest keys
// them as Run does.
func TestRepeatsHaveTheirOwnCacheEntries(t *testing.T) {
	r := newRig(t, testSettings(), ok(geminiAnswer, longAnswer), ok(openaiAnswer, longAnswer), ok(anthropicAnswer, longAnswer))
	cache, err := respcache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r.c.Cache = cache
	order := []string{"gpt-5.4-nano"}
	run := func(repeat int) *Outcome {
		t.Helper()
		out, err := r.c.Run(context.Background(), Input{System: testSystem, User: testUser, Repeat: repeat}, order)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, step := range []struct {
		repeat int
		cached bool
		sent   int // requests so far
	}{
		{0, false, 1}, {1, true, 1}, {2, false, 2}, {3, false, 3}, {2, true, 3}, {3, true, 3}, {1, true, 3},
	} {
		if out := run(step.repeat); out.Cached != step.cached || r.oai.count() != step.sent {
			t.Errorf("repeat %d: cached %v, %d requests; want %v, %d", step.repeat, out.Cached, r.oai.count(), step.cached, step.sent)
		}
	}
	keys := map[string]int{}
	for _, repeat := range []int{0, 1, 2, 3} {
		br, err := r.c.BatchRequest("gpt-5.4-nano", Input{System: testSystem, User: testUser, Repeat: repeat})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := r.c.CachedAnswer(br); !ok {
			t.Errorf("repeat %d: the batch request misses the entry Run wrote", repeat)
		}
		keys[br.Key]++
	}
	if len(keys) != 3 {
		t.Errorf("%d distinct keys for repeats 0, 1, 2, 3; want 3", len(keys))
	}
}
