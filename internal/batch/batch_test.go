package batch

import (
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/compactlab/compact/internal/batch/fakebatch"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/replay"
	"github.com/compactlab/compact/internal/respcache"
)

// provider is one fake batch service and a two-model cascade on it.
type provider struct {
	kind   string
	models [2]string // table ids
	api    [2]string // API model names (what the fake sees)
	env    func(url string) map[string]string
}

var providers = []provider{
	{kind: "openai", models: [2]string{"gpt-5.4-nano", "gpt-5.4-mini"}, api: [2]string{"gpt-5.4-nano", "gpt-5.4-mini"},
		env: func(u string) map[string]string {
			return map[string]string{"OPENAI_API_KEY": "sk-test-SECRETKEY-openai", "COMPACT_OPENAI_BASE_URL": u}
		}},
	{kind: "anthropic", models: [2]string{"claude-haiku-4.5", "claude-sonnet-4.6"}, api: [2]string{"claude-haiku-4-5", "claude-sonnet-4-6"},
		env: func(u string) map[string]string {
			return map[string]string{"ANTHROPIC_API_KEY": "sk-ant-SECRETKEY-anthropic", "COMPACT_ANTHROPIC_BASE_URL": u}
		}},
	{kind: "gemini", models: [2]string{"gemini-3.1-flash-lite", "gemini-3.1-flash"}, api: [2]string{"gemini-3.1-flash-lite", "gemini-3.1-flash"},
		env: func(u string) map[string]string {
			return map[string]string{"GOOGLE_API_KEY": "AIzaSECRETKEY-gemini", "COMPACT_GEMINI_BASE_URL": u}
		}},
}

// env is a test's configuration: a cascade of models on the fake, a
// response cache.
type env struct {
	vars  map[string]string
	cache string
}

// load builds a cascade and settings as a new process would.
func (e env) load(t *testing.T) (*cascade.Cascade, Settings) {
	t.Helper()
	getenv := func(k string) string { return e.vars[k] }
	st, err := config.LoadEnv("", getenv)
	if err != nil {
		t.Fatal(err)
	}
	cas, err := cascade.Load(st, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if e.cache != "" {
		c, err := respcache.Open(e.cache)
		if err != nil {
			t.Fatal(err)
		}
		cas.Cache = c
	}
	s, err := LoadSettings(st)
	if err != nil {
		t.Fatal(err)
	}
	return cas, s
}

func newEnv(t *testing.T, p provider, url string, extra map[string]string) env {
	vars := p.env(url)
	vars["COMPACT_CASCADE_MODELS"] = p.models[0] + "," + p.models[1]
	for k, v := range extra {
		vars[k] = v
	}
	return env{vars: vars, cache: filepath.Join(t.TempDir(), "cache")}
}

// plants: of every 25 bundles, one fails at the first model, one gets an
// answer too short there, one fails at both models; one reports a
// compaction step (Anthropic).
func plants(p provider) func(i int) string {
	return func(i int) string {
		switch i % 25 {
		case 3:
			return fakebatch.Plant("fail", p.api[0])
		case 7:
			return fakebatch.Plant("short", p.api[0])
		case 11:
			return fakebatch.Plant("fail", p.api[0]) + fakebatch.Plant("fail", p.api[1])
		case 13:
			return "[[compaction]]"
		}
		return ""
	}
}

// shared holds the 500 bundles with plants(…) the tests share, each under
// its own run name: writing 500 bundles takes longer than replaying them.
var shared struct {
	once    sync.Once
	dir     string
	bundles []string
	err     error
}

func TestMain(m *testing.M) {
	code := m.Run()
	for i := range firstRuns {
		if firstRuns[i].ts != nil {
			firstRuns[i].ts.Close()
		}
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// bundles500 are 500 bundles; of every 25, the 4th fails at the first
// model of each provider, the 8th gets an answer too short there, the
// 12th fails at both models, the 14th reports a compaction step.
func bundles500(t *testing.T) (string, []string) {
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "batch-bundles-")
		if shared.err == nil {
			shared.bundles, shared.err = fakebatch.WriteBundles(shared.dir, 500, func(i int) string {
				var out string
				for _, p := range providers {
					out += plants(p)(i)
				}
				return out
			})
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.dir, shared.bundles
}

func submit(t *testing.T, e env, root, run string, bundles []string, models []string) *Report {
	t.Helper()
	cas, s := e.load(t)
	rep, err := Submit(context.Background(), cas, Options{Root: root, Run: run, Bundles: bundles, Models: models, Settings: s, ToolVersion: "test"})
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	return rep
}

func collect(t *testing.T, e env, root, run string, wait bool) *Report {
	t.Helper()
	cas, s := e.load(t)
	rep, err := Collect(context.Background(), cas, root, run, CollectOptions{Settings: s, ToolVersion: "test", Wait: wait})
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	return rep
}

func readRecord(t *testing.T, bundle, run string) *replay.Record {
	t.Helper()
	rec, err := replay.ReadRecord(bundle, run)
	if err != nil {
		t.Fatalf("%s: %v", bundle, err)
	}
	return rec
}

// firstRun is the run of the 500 shared bundles on one provider's fake:
// submitted in one process, then collected in another (a new cascade,
// nothing shared but the files and the response cache). The kill test
// checks it; the cache test reruns its answers. Each is made once: 500
// bundles through submit and collect took three seconds a provider under
// the race detector, and the two tests made the same run each.
type firstRun struct {
	once sync.Once
	ok   bool
	srv  *fakebatch.Server
	ts   *httptest.Server
	e    env
	run  string
	// After submit: its report, the state read back and the state file.
	submitted *Report
	state     *State
	stateFile []byte
	// After collect: its report and the fake's counts then.
	collected         *Report
	requests, creates int64
}

// firstRuns are the first runs, by the index in providers.
var firstRuns [3]firstRun

// theFirstRun makes (once) and returns provider i's first run.
func theFirstRun(t *testing.T, i int) *firstRun {
	t.Helper()
	f := &firstRuns[i]
	f.once.Do(func() {
		p := providers[i]
		root, bundles := bundles500(t)
		f.srv = fakebatch.New()
		f.ts = httptest.NewServer(f.srv)
		f.e = newEnv(t, p, f.ts.URL, nil)
		f.e.cache = filepath.Join(root, "cache-"+p.kind) // outlives t's temporary directory
		f.run = "kill-" + p.kind
		f.submitted = submit(t, f.e, root, f.run, bundles, p.models[:])
		// The process dies here: all that is left is the state file.
		st, err := readState(Dir(root, f.run))
		if err != nil {
			t.Fatal(err)
		}
		f.state = st
		f.stateFile, _ = os.ReadFile(filepath.Join(Dir(root, f.run), FileState))
		f.collected = collect(t, f.e, root, f.run, false)
		f.requests, f.creates = f.srv.Requests(), f.srv.Created()
		f.ok = true
	})
	if !f.ok {
		t.Fatalf("the first run on %s failed", providers[i].kind)
	}
	return f
}

// TestBatchOf500SurvivesAKillBetweenSubmitAndCollect: per provider, 500
// bundles are submitted in one process and collected in another (a new
// cascade, nothing shared but the files): every bundle has exactly one
// result where an interactive replay puts it, the planted failures and
// short answers of the first model were sent to the second in its own
// batch, the bundles both models fail get their failed record, and
// every cost is the batch rate.
func TestBatchOf500SurvivesAKillBetweenSubmitAndCollect(t *testing.T) {
	for i, p := range providers {
		t.Run(p.kind, func(t *testing.T) {
			f := theFirstRun(t, i)
			srv, e, run := f.srv, f.e, f.run
			root, bundles := bundles500(t)
			rep := f.submitted
			if rep.Bundles.Submitted != 500 || len(rep.Submitted) != 1 {
				t.Fatalf("after submit: %+v, batches %v", rep.Bundles, rep.Submitted)
			}
			st := f.state
			if st.Counts.Total != 500 || st.Counts.Submitted != 500 || st.Bundles.Lines != 500 || len(st.Batches) != 1 || st.Batches[0].Requests != 500 {
				t.Fatalf("state: %+v, batches %+v", st.Counts, st.Batches)
			}
			if len(f.stateFile) == 0 {
				t.Fatal("no state file")
			}
			for _, secret := range []string{"SECRETKEY"} {
				if strings.Contains(string(f.stateFile), secret) {
					t.Fatalf("the state holds a key")
				}
			}

			rep = f.collected
			if rep.Bundles.Pending() != 0 {
				t.Fatalf("after collect: %+v", rep.Bundles)
			}
			const perCycle = 500 / 25
			wantFailed := perCycle     // both models fail
			wantSecond := 3 * perCycle // fail, short, fail twice: sent to the second model
			wantOK := 500 - wantFailed
			if rep.Bundles.OK != wantOK || rep.Bundles.Failed != wantFailed {
				t.Fatalf("bundles %+v, want %d ok and %d failed", rep.Bundles, wantOK, wantFailed)
			}
			if got := f.requests; got != int64(500+wantSecond) {
				t.Errorf("the fake got %d requests, want %d (500 + %d for the second model): none twice", got, 500+wantSecond, wantSecond)
			}
			if f.creates != 2 {
				t.Errorf("%d batches created, want one per model", f.creates)
			}
			m0, _ := e.mustCascade(t).Models.Lookup(p.models[0])
			m1, _ := e.mustCascade(t).Models.Lookup(p.models[1])
			var secondOK int
			for i, b := range bundles {
				rec := readRecord(t, b, run)
				if rec.Batch == nil || rec.Batch.ID == "" || rec.Batch.Provider != p.kind {
					t.Fatalf("%s: batch %+v", b, rec.Batch)
				}
				var want float64
				for _, a := range rec.Attempts {
					m := m0
					if a.Model == p.models[1] {
						m = m1
					}
					want += m.Cost(a.Usage) * 0.5
				}
				if math.Abs(rec.CostUSD-want) > 2e-6 || (rec.Usage.InputTokens > 0 && rec.CostUSD == 0) {
					t.Fatalf("%s: cost %v, want the batch rate %v (usage %+v)", b, rec.CostUSD, want, rec.Usage)
				}
				_, statErr := os.Stat(filepath.Join(b, "replays", run, "output.md"))
				switch i % 25 {
				case 11:
					if rec.OK() || len(rec.Attempts) != 2 || statErr == nil || !strings.Contains(rec.Error, "planted failure") {
						t.Fatalf("%s: want a failed record of both models, got model %v, %d attempts, error %q", b, rec.Model, len(rec.Attempts), rec.Error)
					}
				case 3, 7:
					if !rec.OK() || *rec.Model != p.models[1] || len(rec.Attempts) != 2 || statErr != nil {
						t.Fatalf("%s: want the second model's answer, got %v, %d attempts", b, rec.Model, len(rec.Attempts))
					}
					wantOutcome := cascade.OutcomeError
					if i%25 == 7 {
						wantOutcome = cascade.OutcomeTooShort
					}
					if rec.Attempts[0].Outcome != wantOutcome || rec.Attempts[0].Model != p.models[0] {
						t.Fatalf("%s: first attempt %+v", b, rec.Attempts[0])
					}
					secondOK++
				default:
					if !rec.OK() || *rec.Model != p.models[0] || len(rec.Attempts) != 1 || statErr != nil {
						t.Fatalf("%s: want the first model's answer, got %v, %d attempts", b, rec.Model, len(rec.Attempts))
					}
					out, _ := os.ReadFile(filepath.Join(b, "replays", run, "output.md"))
					if !strings.HasPrefix(string(out), "## Briefing") || !strings.Contains(string(out), p.api[0]) {
						t.Fatalf("%s: output %q", b, out)
					}
				}
			}
			if secondOK != 2*perCycle {
				t.Errorf("%d answers of the second model, want %d", secondOK, 2*perCycle)
			}
			// The ledger adds up the records.
			var sum float64
			for _, b := range bundles {
				sum += readRecord(t, b, run).CostUSD
			}
			// (Each cost is rounded to the micro-dollar.)
			if l := rep.Ledger.Total; math.Abs(l.CostUSD-sum) > 1e-5 || math.Abs(l.ListUSD-2*l.CostUSD) > 1e-6*float64(l.Requests) ||
				l.Requests != 500+wantSecond || l.Answered != wantOK || l.Failed != 3*perCycle+wantFailed {
				t.Errorf("ledger %+v, records sum to %v", l, sum)
			}
			if p.kind == "anthropic" {
				// usage.iterations counts the compaction step.
				rec := readRecord(t, bundles[13], run)
				if rec.Usage.InputTokens < 5000 || rec.Usage.OutputTokens < 700 {
					t.Errorf("compaction usage not counted: %+v", rec.Usage)
				}
			}
			if rep.Ledger.Total.CachedInputTokens == 0 {
				t.Errorf("no cached input tokens in the ledger: %+v", rep.Ledger.Total)
			}
			// Collecting again changes nothing and sends nothing but polls.
			before := srv.Calls("")
			rep2 := collect(t, e, root, run, false)
			if rep2.Bundles != rep.Bundles || srv.Calls("") != before || len(rep2.Collected) != 0 {
				t.Errorf("a second collect: %+v, %d calls", rep2.Bundles, srv.Calls("")-before)
			}
		})
	}
}

func (e env) mustCascade(t *testing.T) *cascade.Cascade {
	c, _ := e.load(t)
	return c
}

// TestBatchRerunIsAnsweredFromTheCache: a second submit of the bundles
// the first model answered, under another run, sends nothing at all:
// every answer comes from the response cache, written where the first
// run's are. (Bundles the first model failed would be asked again, as an
// interactive rerun asks again: failures are never cached.) The first
// run is the kill test's (theFirstRun): a submit and a collect in two
// processes, as here before.
func TestBatchRerunIsAnsweredFromTheCache(t *testing.T) {
	for i, p := range providers {
		t.Run(p.kind, func(t *testing.T) {
			f := theFirstRun(t, i)
			srv, e := f.srv, f.e
			root, all := bundles500(t)
			first, second := f.run, "cache2-"+p.kind
			var bundles []string
			for _, b := range all {
				if rec := readRecord(t, b, first); rec.OK() && *rec.Model == p.models[0] {
					bundles = append(bundles, b)
				}
			}
			if len(bundles) != 440 {
				t.Fatalf("%d bundles answered by the first model, want 440", len(bundles))
			}
			calls := srv.Calls("")
			rep := submit(t, e, root, second, bundles, p.models[:])
			if n := srv.Calls("") - calls; n != 0 {
				t.Fatalf("the rerun sent %d requests to the fake, want 0", n)
			}
			if rep.Bundles.OK != 440 || rep.Bundles.FromCache != 440 || len(rep.Submitted) != 0 || rep.Ledger.Total.CostUSD != 0 || rep.Ledger.Total.SavedUSD == 0 {
				t.Fatalf("rerun: %+v, ledger %+v", rep.Bundles, rep.Ledger.Total)
			}
			for _, b := range bundles {
				a, b1 := readRecord(t, b, first), readRecord(t, b, second)
				if a.OutputSha256 != b1.OutputSha256 || !b1.Attempts[0].Cached || b1.CostUSD != 0 {
					t.Fatalf("%s: rerun record %+v", b, b1)
				}
			}
		})
	}
}

// TestBatchEndsExpiredCancelledFailed: a batch that expires, is cancelled
// or fails part way sends what it did not answer to the next model; at
// the last model, the bundle's record says why.
func TestBatchEndsExpiredCancelledFailed(t *testing.T) {
	for _, end := range []string{"expired", "cancelled", "failed"} {
		for _, p := range providers {
			if end == "failed" && p.kind == "anthropic" {
				continue // a message batch does not fail as a whole
			}
			t.Run(end+"/"+p.kind, func(t *testing.T) {
				srv := fakebatch.New()
				// The first batch ends after 10 of its 40 requests; the
				// second (the next model) ends the same way.
				srv.Fate = func(kind string, seq, n int) fakebatch.Fate {
					return fakebatch.Fate{End: end, Processed: 10}
				}
				ts := httptest.NewServer(srv)
				defer ts.Close()
				e := newEnv(t, p, ts.URL, nil)
				root := t.TempDir()
				bundles, _ := fakebatch.WriteBundles(root, 40, nil)
				submit(t, e, root, "r", bundles, p.models[:])
				rep := collect(t, e, root, "r", false)
				wantOK := 20
				if end == "failed" {
					wantOK = 0 // a failed batch answers nothing
				}
				if rep.Bundles.OK != wantOK || rep.Bundles.Failed != 40-wantOK || rep.Bundles.Pending() != 0 {
					t.Fatalf("bundles %+v, want %d ok", rep.Bundles, wantOK)
				}
				// A bundle neither tier answered (which ones depends on the
				// order the results came in).
				var rec *replay.Record
				for _, b := range bundles {
					if r := readRecord(t, b, "r"); !r.OK() {
						rec = r
						break
					}
				}
				if rec == nil || len(rec.Attempts) != 2 || !strings.Contains(rec.Error, "failed with all 2 models") {
					t.Fatalf("a failed bundle: %+v", rec)
				}
				if end == "expired" && rec.Attempts[0].Outcome != cascade.OutcomeTimeout {
					t.Errorf("an expired request's attempt is %s, want timeout", rec.Attempts[0].Outcome)
				}
				if end != "failed" {
					// The second tier gets the 30 the first left, in the
					// order their results came (an Anthropic batch's come
					// in any order), and answers 10 of them.
					second := 0
					for _, b := range bundles[10:] {
						if rec := readRecord(t, b, "r"); rec.OK() && *rec.Model == p.models[1] {
							second++
						}
					}
					if second != 10 {
						t.Errorf("%d bundles answered by the second model, want 10", second)
					}
				}
			})
		}
	}
}

// TestBatchSplitsAtTheProviderLimits: a tier larger than a provider's
// limits goes out as several batches, none over them.
func TestBatchSplitsAtTheProviderLimits(t *testing.T) {
	for _, p := range providers {
		t.Run(p.kind, func(t *testing.T) {
			srv := fakebatch.New()
			srv.Limits[p.kind] = fakebatch.Limits{MaxRequests: 30, MaxBytes: 40000}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			e := newEnv(t, p, ts.URL, map[string]string{
				"COMPACT_BATCH_LIMITS_" + strings.ToUpper(p.kind) + "_MAX_REQUESTS": "30",
				"COMPACT_BATCH_LIMITS_" + strings.ToUpper(p.kind) + "_MAX_BYTES":    "40000",
			})
			root := t.TempDir()
			bundles, _ := fakebatch.WriteBundles(root, 100, nil)
			rep := submit(t, e, root, "r", bundles, p.models[:])
			if len(rep.Submitted) < 4 || srv.OverLimits() != 0 {
				t.Fatalf("%d batches, %d over the limits", len(rep.Submitted), srv.OverLimits())
			}
			for _, b := range rep.Batches {
				if b.Requests > 30 || b.Bytes > 40000 {
					t.Errorf("batch %s: %d requests, %d bytes", b.ID, b.Requests, b.Bytes)
				}
			}
			if rep := collect(t, e, root, "r", false); rep.Bundles.OK != 100 {
				t.Fatalf("%+v", rep.Bundles)
			}
		})
	}
}

// TestBatchStatusWaitsAndCollectWaits: while the provider is still
// working, status reports the batch in progress and collect collects
// nothing; collect --wait polls until it is done.
func TestBatchStatusWaitsAndCollectWaits(t *testing.T) {
	p := providers[0]
	srv := fakebatch.New()
	srv.Polls = 3
	ts := httptest.NewServer(srv)
	defer ts.Close()
	e := newEnv(t, p, ts.URL, map[string]string{"COMPACT_BATCH_POLL_INTERVAL": "1ms"})
	root := t.TempDir()
	bundles, _ := fakebatch.WriteBundles(root, 10, nil)
	submit(t, e, root, "r", bundles, p.models[:])
	cas, s := e.load(t)
	rep, err := Status(context.Background(), cas, root, "r", s)
	if err != nil || rep.Batches[0].Ended || rep.Batches[0].Status != "in_progress" || rep.Bundles.Submitted != 10 {
		t.Fatalf("status: %v %+v", err, rep)
	}
	if rep := collect(t, e, root, "r", false); rep.Bundles.Submitted != 10 || len(rep.Collected) != 0 {
		t.Fatalf("collect without wait: %+v", rep.Bundles)
	}
	if rep := collect(t, e, root, "r", true); rep.Bundles.OK != 10 {
		t.Fatalf("collect --wait: %+v", rep.Bundles)
	}
}

// TestBatchCancel: cancel asks the provider to stop; the collect after it
// records what was answered and sends nothing more.
func TestBatchCancel(t *testing.T) {
	for _, p := range providers {
		t.Run(p.kind, func(t *testing.T) {
			srv := fakebatch.New()
			srv.Polls = 100
			srv.Fate = func(string, int, int) fakebatch.Fate { return fakebatch.Fate{End: "completed", Processed: 4} }
			ts := httptest.NewServer(srv)
			defer ts.Close()
			e := newEnv(t, p, ts.URL, map[string]string{"COMPACT_BATCH_POLL_INTERVAL": "1ms"})
			root := t.TempDir()
			bundles, _ := fakebatch.WriteBundles(root, 10, nil)
			submit(t, e, root, "r", bundles, p.models[:])
			cas, s := e.load(t)
			if _, err := Cancel(context.Background(), cas, root, "r", s, "test"); err != nil {
				t.Fatal(err)
			}
			created := srv.Created()
			rep := collect(t, e, root, "r", true)
			if rep.Bundles.Pending() != 0 || srv.Created() != created {
				t.Fatalf("after cancel: %+v, %d batches created after it", rep.Bundles, srv.Created()-created)
			}
			if p.kind != "gemini" && rep.Bundles.OK != 4 {
				t.Errorf("%d answered before the cancel took effect, want 4", rep.Bundles.OK)
			}
		})
	}
}

// TestBatchCollectIsIdempotentAfterACrash: a collect that wrote results
// but died before recording them (the state is put back as it was) reads
// them again and writes nothing twice.
func TestBatchCollectIsIdempotentAfterACrash(t *testing.T) {
	p := providers[1]
	srv := fakebatch.New()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	e := newEnv(t, p, ts.URL, nil)
	root := t.TempDir()
	bundles, _ := fakebatch.WriteBundles(root, 20, nil)
	submit(t, e, root, "r", bundles, p.models[:])
	saved, err := os.ReadFile(filepath.Join(Dir(root, "r"), FileState))
	if err != nil {
		t.Fatal(err)
	}
	collect(t, e, root, "r", false)
	st0, _ := os.Stat(filepath.Join(bundles[0], "replays", "r", "replay.json"))
	// The crash: results written, the state not.
	if err := os.WriteFile(filepath.Join(Dir(root, "r"), FileState), saved, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := collect(t, e, root, "r", false)
	if rep.Bundles.OK != 20 {
		t.Fatalf("%+v", rep.Bundles)
	}
	st1, _ := os.Stat(filepath.Join(bundles[0], "replays", "r", "replay.json"))
	if !os.SameFile(st0, st1) {
		t.Errorf("a result on disk was written again")
	}
	var st State
	data, _ := os.ReadFile(filepath.Join(Dir(root, "r"), FileState))
	if err := json.Unmarshal(data, &st); err != nil || st.Ledger.Total.Requests != 20 {
		t.Errorf("ledger after the rerun: %+v", st.Ledger.Total)
	}
}

// TestBatchKeepsKeysOutOfEverything: a provider that echoes the key in its
// errors and answers does not get it into a record, an answer, the state
// or the report.
func TestBatchKeepsKeysOutOfEverything(t *testing.T) {
	for _, p := range providers {
		t.Run(p.kind, func(t *testing.T) {
			key := p.env("")
			var secret string
			for k, v := range key {
				if strings.HasSuffix(k, "_KEY") {
					secret = v
				}
			}
			srv := fakebatch.New()
			srv.Answer = func(kind, model, system, user string) fakebatch.Reply {
				if strings.Contains(user, "Button1.tsx") {
					return fakebatch.Reply{Status: 401, Error: "invalid key " + secret + " (" + strings.ToUpper(secret) + ")"}
				}
				return fakebatch.Reply{Text: "## Briefing\n\nThe key was " + secret + ", and the answer is long enough.", In: 10, Out: 10}
			}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			e := newEnv(t, p, ts.URL, nil)
			root := t.TempDir()
			bundles, _ := fakebatch.WriteBundles(root, 3, nil)
			submit(t, e, root, "r", bundles, p.models[:])
			rep := collect(t, e, root, "r", false)
			data, _ := json.Marshal(rep)
			all := string(data)
			// The head and every log of the run's state.
			filepath.Walk(Dir(root, "r"), func(path string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() {
					d, _ := os.ReadFile(path)
					all += string(d)
				}
				return nil
			})
			for _, b := range bundles {
				for _, f := range []string{"replay.json", "output.md"} {
					d, _ := os.ReadFile(filepath.Join(b, "replays", "r", f))
					all += string(d)
				}
			}
			if !srv.SawKey(secret) {
				t.Fatal("the key did not reach the fake")
			}
			if strings.Contains(strings.ToLower(all), strings.ToLower(secret)) || !strings.Contains(all, "[redacted]") {
				t.Fatalf("the key leaked, or nothing was redacted:\n%s", all)
			}
		})
	}
}

// TestBatchCollectsOnAnotherMachine: the bundles and their run moved
// elsewhere (another machine, another working directory) are collected
// through the new path: the state names bundles under the run's root.
func TestBatchCollectsOnAnotherMachine(t *testing.T) {
	p := providers[2]
	srv := fakebatch.New()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	e := newEnv(t, p, ts.URL, nil)
	base := t.TempDir()
	root := filepath.Join(base, "here")
	bundles, _ := fakebatch.WriteBundles(root, 5, nil)
	submit(t, e, root, "r", bundles, p.models[:])
	moved := filepath.Join(base, "there", "channel")
	os.MkdirAll(filepath.Dir(moved), 0o755)
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(base, "there"))
	rep := collect(t, e, "channel", "r", false)
	if rep.Bundles.OK != 5 {
		t.Fatalf("%+v %+v", rep.Bundles, rep.Problems)
	}
	for _, b := range bundles {
		rel, _ := filepath.Rel(root, b)
		rec := readRecord(t, filepath.Join(moved, rel), "r")
		if !rec.OK() || rec.Bundle != filepath.Join("channel", rel) {
			t.Fatalf("%s: %+v", rel, rec)
		}
	}
}
