package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/prompt"
)

// fakeGen answers every request after delay, failing for users containing
// "FAIL".
type fakeGen struct {
	delay time.Duration
	calls atomic.Int64
	mu    sync.Mutex
	seen  []cascade.Input
}

func (g *fakeGen) Run(ctx context.Context, in cascade.Input, order []string) (*cascade.Outcome, error) {
	g.calls.Add(1)
	g.mu.Lock()
	g.seen = append(g.seen, in)
	g.mu.Unlock()
	time.Sleep(g.delay)
	temp := 0.1
	if strings.Contains(in.User, "NOKEY") {
		// Nothing sent: an attempt without tries.
		return &cascade.Outcome{}, &cascade.FailedError{Attempts: []cascade.Attempt{{Model: order[0], Provider: "fake", Outcome: cascade.OutcomeError, Error: "fake: no API key (missing: FAKE_KEY)"}}}
	}
	if strings.Contains(in.User, "FAIL") {
		return nil, &cascade.FailedError{Attempts: []cascade.Attempt{{Model: order[0], Provider: "fake", Outcome: cascade.OutcomeTooShort, Temperature: &temp,
			Tries: []cascade.Try{{N: 1, Status: 200}}, CostUSD: 0.000123}}}
	}
	if strings.Contains(in.User, "NOISE") {
		// Two attempts whose costs add up with float noise.
		a := cascade.Attempt{Model: order[0], Provider: "fake", Outcome: cascade.OutcomeTooShort, Tries: []cascade.Try{{N: 1, Status: 200}}, CostUSD: 0.1}
		b := a
		b.CostUSD = 0.2
		return nil, &cascade.FailedError{Attempts: []cascade.Attempt{a, b}}
	}
	return &cascade.Outcome{Text: "## Briefing\n\nYou did things for " + fmt.Sprint(len(in.User)) + " characters.", Model: order[0], Provider: "fake",
		Attempts: []cascade.Attempt{{Model: order[0], Provider: "fake", Outcome: cascade.OutcomeOK, Temperature: &temp,
			Usage: cascade.Usage{InputTokens: 100, OutputTokens: 20}, CostUSD: 0.001}},
		Usage: cascade.Usage{InputTokens: 100, OutputTokens: 20}, CostUSD: 0.001}, nil
}

func (g *fakeGen) Describe(in cascade.Input, order []string) []cascade.DryRun { return nil }

// makeBundles writes n bundles into a channel directory.
func makeBundles(t *testing.T, n int) (string, []string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "prerelease")
	var out []string
	for i := 0; i < n; i++ {
		b := filepath.Join(root, fmt.Sprintf("%03d-chat", i/3+1), fmt.Sprintf("compression-%03d", i%3+1))
		if err := os.MkdirAll(b, 0o755); err != nil {
			t.Fatal(err)
		}
		prev := "null"
		if i%3 > 0 {
			prev = "1234"
		}
		files := map[string]string{
			bundle.FileSystemPrompt: "SYSTEM",
			bundle.FileUserMessage:  fmt.Sprintf("<chat-history><user>turn %d</user></chat-history>\n\nhint\n\nclose", i),
			bundle.FileCompact:      fmt.Sprintf("<user>turn %d</user>", i),
			bundle.FileActual:       "## Actual\n\nThe app's briefing.",
			bundle.FileMetadata:     fmt.Sprintf(`{"chatId":"c%d","compressionNumber":%d,"previousCompressionSize":%s}`, i/3, i%3+1, prev),
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(b, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, b)
	}
	return root, out
}

func TestReplayRecordsBesideTheBundleAndSkipsDoneWork(t *testing.T) {
	_, bundles := makeBundles(t, 6)
	gen := &fakeGen{}
	opts := Options{Bundles: bundles, Models: []string{"m1"}, Run: "m1", Jobs: 3, ToolVersion: "test"}
	items, err := Run(context.Background(), gen, opts, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 6 || gen.calls.Load() != 6 {
		t.Fatalf("%d items, %d calls", len(items), gen.calls.Load())
	}
	for _, b := range bundles {
		out, err := os.ReadFile(filepath.Join(b, bundle.DirReplays, "m1", bundle.FileOutput))
		if err != nil || !strings.HasPrefix(string(out), "## Briefing") {
			t.Fatalf("%s: output %q %v", b, out, err)
		}
		rec, err := ReadRecord(b, "m1")
		if err != nil {
			t.Fatal(err)
		}
		if rec.Model == nil || *rec.Model != "m1" || rec.Usage.InputTokens != 100 || rec.Temperature == nil || *rec.Temperature != 0.1 ||
			rec.SystemSha256 != sha("SYSTEM") || rec.Pack != "bundle" || rec.ToolVersion != "test" || rec.StartedAt == "" {
			t.Errorf("record %+v", rec)
		}
		// The upstream files are untouched.
		if a, _ := os.ReadFile(filepath.Join(b, bundle.FileActual)); string(a) != "## Actual\n\nThe app's briefing." {
			t.Errorf("actual-output.md changed: %q", a)
		}
	}
	// A second run skips everything; --force replays again.
	items, _ = Run(context.Background(), gen, opts, Hooks{})
	for _, it := range items {
		if it.Status != StatusSkipped {
			t.Errorf("%s: %s, want skipped", it.Bundle, it.Status)
		}
	}
	if gen.calls.Load() != 6 {
		t.Errorf("skipped bundles were sent again")
	}
	opts.Force = true
	Run(context.Background(), gen, opts, Hooks{})
	if gen.calls.Load() != 12 {
		t.Errorf("--force sent %d, want 12", gen.calls.Load())
	}
	// Another model under the same run name is not a match.
	opts.Force, opts.Models = false, []string{"m2"}
	Run(context.Background(), gen, opts, Hooks{})
	if gen.calls.Load() != 18 {
		t.Errorf("a different model was skipped")
	}
}

func TestReplayRecordsFailuresAndRetriesThem(t *testing.T) {
	_, bundles := makeBundles(t, 1)
	if err := os.WriteFile(filepath.Join(bundles[0], bundle.FileUserMessage), []byte("FAIL"), 0o644); err != nil {
		t.Fatal(err)
	}
	gen := &fakeGen{}
	opts := Options{Bundles: bundles, Models: []string{"m1"}, Run: "r"}
	items, _ := Run(context.Background(), gen, opts, Hooks{})
	if items[0].Status != StatusFailed {
		t.Fatalf("status %s", items[0].Status)
	}
	rec, err := ReadRecord(bundles[0], "r")
	if err != nil || rec.OK() || rec.Error == "" || len(rec.Attempts) != 1 || rec.Attempts[0].Outcome != cascade.OutcomeTooShort {
		t.Fatalf("record %+v %v", rec, err)
	}
	if _, err := os.Stat(filepath.Join(bundles[0], bundle.DirReplays, "r", bundle.FileOutput)); err == nil {
		t.Error("a failed replay wrote output.md")
	}
	Run(context.Background(), gen, opts, Hooks{})
	if gen.calls.Load() != 2 {
		t.Error("a failure was not retried")
	}
}

func TestReplayWithPackRebuildsThePrompts(t *testing.T) {
	_, bundles := makeBundles(t, 2)
	pack, err := prompt.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	gen := &fakeGen{}
	_, err = Run(context.Background(), gen, Options{Bundles: bundles, Models: []string{"m"}, Run: "p", Pack: pack, PackName: "default", Locale: "de-DE"}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range gen.seen {
		if in.System != pack.System() {
			t.Error("system prompt not from the pack")
		}
		if !strings.Contains(in.User, "<user>turn ") || strings.Contains(in.User, "hint") {
			t.Errorf("user message not rebuilt: %q", in.User)
		}
	}
	// The second bundle has a previous briefing of 1234 characters: the
	// pack's hint names it, formatted for de-DE.
	want := pack.UserMessage("<user>turn 1</user>", 1234, "de-DE")
	found := false
	for _, in := range gen.seen {
		found = found || in.User == want
	}
	if !found {
		t.Errorf("no request equals the pack's message for prev 1234")
	}
	rec, _ := ReadRecord(bundles[0], "p")
	if rec.Pack != "default" {
		t.Errorf("pack recorded as %q", rec.Pack)
	}
}

// TestInterruptLeavesOnlyCompleteResults stops a slow replay part way: every
// replays/<run>/ present is complete, nothing temporary is left, and a
// second run finishes the rest.
func TestInterruptLeavesOnlyCompleteResults(t *testing.T) {
	_, bundles := makeBundles(t, 30)
	gen := &fakeGen{delay: 30 * time.Millisecond}
	stop, cancel := context.WithCancel(context.Background())
	var once sync.Once
	opts := Options{Bundles: bundles, Models: []string{"m"}, Run: "slow", Jobs: 4}
	items, err := Run(stop, gen, opts, Hooks{Progress: func(p Progress) {
		if p.Done >= 5 {
			once.Do(cancel)
		}
	}})
	if err == nil {
		t.Fatal("interrupted run reported no error")
	}
	if len(items) >= 30 || len(items) < 5 {
		t.Fatalf("%d items after the interrupt", len(items))
	}
	done := 0
	for _, b := range bundles {
		entries, _ := os.ReadDir(filepath.Join(b, bundle.DirReplays))
		for _, e := range entries {
			if e.Name() != "slow" {
				t.Errorf("%s: stray %s", b, e.Name())
			}
		}
		if _, err := os.Stat(filepath.Join(b, bundle.DirReplays, "slow")); err == nil {
			done++
			var rec Record
			data, err := os.ReadFile(filepath.Join(b, bundle.DirReplays, "slow", bundle.FileRecord))
			if err != nil || json.Unmarshal(data, &rec) != nil {
				t.Fatalf("%s: incomplete result", b)
			}
			if _, err := os.Stat(filepath.Join(b, bundle.DirReplays, "slow", bundle.FileOutput)); err != nil {
				t.Fatalf("%s: record without output", b)
			}
		}
	}
	if done != len(items) {
		t.Errorf("%d results on disk, %d items reported", done, len(items))
	}
	calls := gen.calls.Load()
	items, err = Run(context.Background(), gen, opts, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if got := gen.calls.Load() - calls; got != int64(30-done) {
		t.Errorf("second run sent %d, want %d", got, 30-done)
	}
	for _, it := range items {
		if it.Status != StatusOK && it.Status != StatusSkipped {
			t.Errorf("%s: %s", it.Bundle, it.Status)
		}
	}
}

func TestRunNamesAreOneSegment(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, ".hidden"} {
		if ValidRunName(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if ValidRunName("gpt-5.4-nano") != nil {
		t.Error("a model id was refused")
	}
}

// TestABundleNeverSentGetsNoRecord: when no model could be sent to (no
// key), the bundle is an error of the run and nothing is written under
// replays/; an earlier good result stays.
func TestABundleNeverSentGetsNoRecord(t *testing.T) {
	_, bundles := makeBundles(t, 2)
	if err := os.WriteFile(filepath.Join(bundles[1], bundle.FileUserMessage), []byte("NOKEY"), 0o644); err != nil {
		t.Fatal(err)
	}
	gen := &fakeGen{}
	items, err := Run(context.Background(), gen, Options{Bundles: bundles, Models: []string{"m1"}, Run: "r"}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if items[0].Status != StatusOK || items[1].Status != StatusError || !strings.Contains(items[1].Error, "nothing sent") || !strings.Contains(items[1].Error, "FAKE_KEY") {
		t.Fatalf("items %+v", items)
	}
	if _, err := os.Stat(filepath.Join(bundles[1], bundle.DirReplays)); err == nil {
		t.Error("a bundle never sent got a replays directory")
	}
	// A good result from before is left as it was.
	if err := os.WriteFile(filepath.Join(bundles[0], bundle.FileUserMessage), []byte("NOKEY"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(bundles[0], bundle.DirReplays, "r", bundle.FileRecord))
	Run(context.Background(), gen, Options{Bundles: bundles[:1], Models: []string{"m1"}, Run: "r"}, Hooks{})
	after, _ := os.ReadFile(filepath.Join(bundles[0], bundle.DirReplays, "r", bundle.FileRecord))
	if len(before) == 0 || string(before) != string(after) {
		t.Error("a bundle never sent changed its earlier record")
	}
}

// TestRecordNamesTheBundleDirectory: the record's bundle is the directory
// as found under the given path, not its last element.
func TestRecordNamesTheBundleDirectory(t *testing.T) {
	root, _ := makeBundles(t, 2)
	found, err := (bundle.Finder{Kind: bundle.Replayable}).Find([]string{root + string(filepath.Separator)})
	if err != nil || len(found) != 2 {
		t.Fatal(found, err)
	}
	if _, err := Run(context.Background(), &fakeGen{}, Options{Bundles: found, Models: []string{"m1"}, Run: "r"}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	for _, b := range found {
		rec, err := ReadRecord(b, "r")
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(root, filepath.Base(filepath.Dir(b)), filepath.Base(b))
		if rec.Bundle != want {
			t.Errorf("bundle %q, want %q", rec.Bundle, want)
		}
	}
}

// TestCostsAreRecordedToTheMicroDollar: 0.1 + 0.2 is 0.30000000000000004
// in floating point; the record and the progress say 0.3.
func TestCostsAreRecordedToTheMicroDollar(t *testing.T) {
	_, bundles := makeBundles(t, 1)
	if err := os.WriteFile(filepath.Join(bundles[0], bundle.FileUserMessage), []byte("NOISE"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(0.1+func() float64 { return 0.2 }()) == "0.3" {
		t.Fatal("the example has no float noise")
	}
	var last Progress
	items, _ := Run(context.Background(), &fakeGen{}, Options{Bundles: bundles, Models: []string{"m1"}, Run: "r"}, Hooks{Progress: func(p Progress) { last = p }})
	data, err := os.ReadFile(filepath.Join(bundles[0], bundle.DirReplays, "r", bundle.FileRecord))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"costUsd": 0.3,`) || items[0].CostUSD != 0.3 || last.CostUSD != 0.3 {
		t.Errorf("item %v, progress %v, record:\n%s", items[0].CostUSD, last.CostUSD, data)
	}
}
