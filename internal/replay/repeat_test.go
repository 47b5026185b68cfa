package replay

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/bundle"
)

func TestRepeatNames(t *testing.T) {
	if got := RepeatRuns("m1", 3); !slices.Equal(got, []string{"m1", "m1@2", "m1@3"}) {
		t.Errorf("RepeatRuns(m1, 3) = %v", got)
	}
	for _, k := range []int{0, 1} {
		if got := RepeatRuns("m1", k); !slices.Equal(got, []string{"m1"}) {
			t.Errorf("RepeatRuns(m1, %d) = %v", k, got)
		}
	}
	// Every name RepeatRuns gives is a run name, and parses back.
	for i, run := range RepeatRuns("qwen2.5-coder-7b", MaxRepeat) {
		if err := ValidRunName(run); err != nil {
			t.Errorf("%s: %v", run, err)
		}
		if base, index := RepeatOf(run); base != "qwen2.5-coder-7b" || index != i+1 {
			t.Errorf("RepeatOf(%q) = %q, %d; want repeat %d", run, base, index, i+1)
		}
	}
	// Default run names never look like repeats: RunNameFor has no "@".
	if got := RunNameFor("claude@2"); strings.Contains(got, RepeatSep) {
		t.Errorf("RunNameFor(claude@2) = %q", got)
	}
	for _, tt := range []struct {
		k    int
		run  string
		want string // "" when accepted
	}{
		{1, "m1", ""}, {50, "m1", ""}, {1, "m1@2", ""}, {2, "claude@20240620", ""},
		{0, "m1", "--repeat: want 1 to 50 runs of each bundle, got 0"},
		{-3, "m1", "--repeat: want 1 to 50 runs of each bundle, got -3"},
		{51, "m1", "--repeat: want 1 to 50 runs of each bundle, got 51"},
		{3, "m1@2", "--repeat: run m1@2 is already repeat 2 of m1; give the base name (--run m1)"},
	} {
		err := CheckRepeat(tt.k, tt.run)
		if got := ""; err != nil {
			got = err.Error()
			if got != tt.want {
				t.Errorf("CheckRepeat(%d, %q) = %q, want %q", tt.k, tt.run, got, tt.want)
			}
		} else if tt.want != "" {
			t.Errorf("CheckRepeat(%d, %q) accepted", tt.k, tt.run)
		}
	}
	if Count(7, 1) != "7 bundles" || Count(1, 0) != "1 bundle" || Count(7, 3) != "21 replays" {
		t.Errorf("Count: %q %q %q", Count(7, 1), Count(1, 0), Count(7, 3))
	}
}

// TestRunRepeatsEachBundle: Repeat K replays each bundle K times, as the
// runs RUN, RUN@2, …, RUN@K, each a request of its own carrying its
// repeat index (the cache key's), each recorded in its own directory;
// progress and totals count the replays; a second run skips every
// repeat; leftovers of every repeat's run are cleaned.
func TestRunRepeatsEachBundle(t *testing.T) {
	_, bundles := makeBundles(t, 2)
	leftover := filepath.Join(bundles[1], bundle.DirReplays, bundle.RunTempPrefix("m1@3")+"1")
	if err := os.MkdirAll(leftover, 0o755); err != nil {
		t.Fatal(err)
	}
	gen := &fakeGen{}
	var mu sync.Mutex
	var last Progress
	removed := 0
	hooks := Hooks{Progress: func(p Progress) { mu.Lock(); last = p; mu.Unlock() }, Leftovers: func(n int, err error) { removed = n }}
	opts := Options{Bundles: bundles, Models: []string{"m1"}, Run: "m1", Repeat: 3, Jobs: 4}
	items, err := Run(context.Background(), gen, opts, hooks)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 6 || gen.calls.Load() != 6 || last.Total != 6 || last.Done != 6 || removed != 1 {
		t.Fatalf("%d items, %d calls, progress %+v, %d leftovers removed", len(items), gen.calls.Load(), last, removed)
	}
	if _, err := os.Stat(leftover); err == nil {
		t.Error("the leftover of run m1@3 is still there")
	}
	var repeats []int
	for _, in := range gen.seen {
		repeats = append(repeats, in.Repeat)
	}
	slices.Sort(repeats)
	if !slices.Equal(repeats, []int{1, 1, 2, 2, 3, 3}) {
		t.Errorf("the requests' repeat indexes: %v", repeats)
	}
	for i, it := range items {
		b, run := bundles[i/3], RepeatRun("m1", i%3+1)
		if it.Bundle != b || it.Run != run || it.Status != StatusOK {
			t.Errorf("item %d: %+v, want %s %s ok", i, it, b, run)
		}
		rec, err := ReadRecord(b, run)
		if err != nil {
			t.Fatal(err)
		}
		if want := i%3 + 1; rec.Run != run || (want > 1 && rec.Repeat != want) || (want == 1 && rec.Repeat != 0) {
			t.Errorf("%s: record run %q, repeat %d", run, rec.Run, rec.Repeat)
		}
		if _, err := os.Stat(bundle.OutputPath(b, run)); err != nil {
			t.Error(err)
		}
	}
	if tot := Tally(items); tot.Bundles != 2 || tot.Replays != 6 || tot.OK != 6 || tot.InputTokens != 600 {
		t.Errorf("totals %+v", tot)
	}
	items, _ = Run(context.Background(), gen, opts, Hooks{})
	if gen.calls.Load() != 6 || len(items) != 6 {
		t.Fatalf("a second run sent %d more", gen.calls.Load()-6)
	}
	for _, it := range items {
		if it.Status != StatusSkipped || it.Run == "" {
			t.Errorf("second run: %+v", it)
		}
	}
	// A repeat removed is replayed alone.
	if err := os.RemoveAll(filepath.Join(bundles[0], bundle.DirReplays, "m1@2")); err != nil {
		t.Fatal(err)
	}
	Run(context.Background(), gen, opts, Hooks{})
	if gen.calls.Load() != 7 {
		t.Errorf("%d calls after one repeat was removed, want 7", gen.calls.Load())
	}
}

// TestRepeatOneIsAPlainReplay: Repeat 1 is Repeat 0, byte for byte: no
// run in the items, no repeat in the record, no replays in the totals.
func TestRepeatOneIsAPlainReplay(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC) }
	var records []string
	for _, k := range []int{0, 1} {
		_, bundles := makeBundles(t, 1)
		gen := &fakeGen{}
		items, err := Run(context.Background(), gen, Options{Bundles: bundles, Models: []string{"m1"}, Run: "m1", Repeat: k, Now: now}, Hooks{})
		if err != nil || len(items) != 1 || items[0].Run != "" || gen.seen[0].Repeat != 1 {
			t.Fatalf("repeat %d: %+v %v", k, items, err)
		}
		if tot := Tally(items); tot.Replays != 0 || tot.Bundles != 1 {
			t.Errorf("repeat %d: totals %+v", k, tot)
		}
		data, err := os.ReadFile(bundle.RecordPath(bundles[0], "m1"))
		if err != nil {
			t.Fatal(err)
		}
		rec := strings.ReplaceAll(string(data), filepath.Clean(bundles[0]), "BUNDLE")
		if strings.Contains(rec, `"repeat"`) {
			t.Errorf("repeat %d: the record names a repeat:\n%s", k, rec)
		}
		records = append(records, rec)
		if ents, _ := os.ReadDir(filepath.Join(bundles[0], bundle.DirReplays)); len(ents) != 1 {
			t.Errorf("repeat %d: %d runs written", k, len(ents))
		}
	}
	if records[0] != records[1] {
		t.Errorf("Repeat 1 writes another record than Repeat 0:\n%s\n%s", records[0], records[1])
	}
}

// TestPlanDeterministic: only a plan on the builtin model alone is
// deterministic (its repeats are identical); the cascade, a hosted model
// and a test's generator are not.
func TestPlanDeterministic(t *testing.T) {
	st, getenv := planConfig(t, "", map[string]string{"OPENAI_API_KEY": "k"})
	for _, tt := range []struct {
		opts PlanOptions
		want bool
	}{
		{PlanOptions{Config: st, Getenv: getenv, Model: "builtin"}, true},
		{PlanOptions{Config: st, Getenv: getenv, Model: "gpt-5.4-nano"}, false},
		{PlanOptions{Config: st, Getenv: getenv}, false},
		{PlanOptions{Config: st, Getenv: getenv, BaseURL: "http://127.0.0.1:9/v1", APIModel: "m"}, false},
		{PlanOptions{Generator: &fakeGen{}, Model: "builtin"}, false},
	} {
		p, err := NewPlan(tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Deterministic(); got != tt.want {
			t.Errorf("%v: Deterministic() = %v, want %v", p.Order, got, tt.want)
		}
	}
}
