package cmd

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/batch"
	"github.com/compactlab/compact/internal/batch/fakebatch"
	"github.com/compactlab/compact/internal/replay"
)

// batchEnv is the environment of a batch test: OpenAI's two small models
// on the fake, a cache of its own.
func batchEnv(t *testing.T, url string) map[string]string {
	return map[string]string{
		"OPENAI_API_KEY":              "sk-test-BATCHSECRET-0001",
		"COMPACT_OPENAI_BASE_URL":     url,
		"COMPACT_CASCADE_MODELS":      "gpt-5.4-nano,gpt-5.4-mini",
		"COMPACT_CACHE_DIR":           filepath.Join(t.TempDir(), "cache"),
		"COMPACT_BATCH_POLL_INTERVAL": "5ms",
	}
}

// TestBatchReplayThroughTheCommandLine: replay --batch submits, batch
// status polls, batch collect (in what is a new process: nothing is
// shared but the files) writes every answer where replay writes its own,
// sends the planted failures to the second model, exits 1 naming the
// bundles both models failed; a rerun under another run is answered from
// the cache with no request at all.
func TestBatchReplayThroughTheCommandLine(t *testing.T) {
	srv := fakebatch.New()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	env := batchEnv(t, ts.URL)
	dir := t.TempDir()
	bundles, err := fakebatch.WriteBundles(dir, 60, func(i int) string {
		switch i % 20 {
		case 1:
			return fakebatch.Plant("fail", "gpt-5.4-nano")
		case 2:
			return fakebatch.Plant("short", "gpt-5.4-nano")
		case 3:
			return fakebatch.Plant("fail", "gpt-5.4-nano") + fakebatch.Plant("fail", "gpt-5.4-mini")
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runIn(t, env, "replay", "--batch", "--run", "night", dir)
	if code != 0 || !strings.Contains(out, "batch_") || !strings.Contains(errOut, "compact batch collect --run night") {
		t.Fatalf("replay --batch: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, "BATCHSECRET") {
		t.Fatal("the key was printed")
	}
	code, out, errOut = runIn(t, env, "batch", "status", dir)
	if code != 0 || !strings.Contains(out, "gpt-5.4-nano") || !strings.Contains(out, "60 in batches") {
		t.Fatalf("batch status: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runIn(t, env, "--json", "batch", "collect", "--run", "night", dir)
	if code != 1 || strings.Count(errOut, "compact batch collect: ") != 4 {
		t.Fatalf("batch collect: exit %d, want 1 with the 3 failed bundles named and the total\n%s%s", code, out, errOut)
	}
	var rep batch.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Bundles.OK != 57 || rep.Bundles.Failed != 3 || len(rep.Batches) != 2 || rep.Ledger.Total.CostUSD <= 0 {
		t.Fatalf("report %+v", rep.Bundles)
	}
	for i, b := range bundles {
		rec, err := replay.ReadRecord(b, "night")
		if err != nil {
			t.Fatal(err)
		}
		want := "gpt-5.4-nano"
		if i%20 == 1 || i%20 == 2 {
			want = "gpt-5.4-mini"
		}
		if i%20 == 3 {
			if rec.OK() {
				t.Fatalf("%s: answered by %s", b, *rec.Model)
			}
			continue
		}
		if !rec.OK() || *rec.Model != want || rec.Batch == nil || rec.Batch.Provider != "openai" {
			t.Fatalf("%s: %+v", b, rec)
		}
	}
	// diff reads batch results as any other run's.
	if code, out, errOut := runIn(t, env, "diff", "--stat", "--run", "night", dir); code != 0 && code != 1 {
		t.Fatalf("diff: exit %d\n%s%s", code, out, errOut)
	}
	// Collecting again: nothing new, the same exit.
	calls := srv.Calls("")
	if code, _, _ := runIn(t, env, "batch", "collect", dir); code != 1 || srv.Calls("") != calls {
		t.Fatalf("second collect: exit %d, %d calls", code, srv.Calls("")-calls)
	}
	// Another run of the bundles the first model answered: all from the
	// cache. (Those it failed would be asked again, as an interactive
	// rerun asks again: failures are never cached.)
	var ok []string
	for i, b := range bundles {
		if i%20 > 3 || i%20 == 0 {
			ok = append(ok, b)
		}
	}
	calls = srv.Calls("")
	code, out, errOut = runIn(t, env, append([]string{"replay", "--batch", "--run", "again"}, ok...)...)
	if code != 0 || srv.Calls("") != calls || !strings.Contains(out, "51 from the response cache") {
		t.Fatalf("rerun: exit %d, %d calls\n%s%s", code, srv.Calls("")-calls, out, errOut)
	}
}

func TestBatchUsageErrors(t *testing.T) {
	srv := fakebatch.New()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	env := batchEnv(t, ts.URL)
	dir := t.TempDir()
	if _, err := fakebatch.WriteBundles(dir, 3, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"builtin has no batch API", []string{"replay", "--batch", "--model", "builtin", dir}, "no batch API"},
		{"a server has no batch API", []string{"replay", "--batch", "--base-url", ts.URL, "--api-model", "m", dir}, "no batch API"},
		{"not with --dry-run", []string{"replay", "--batch", "--dry-run", dir}, "dry-run"},
		{"no run to collect", []string{"batch", "collect", dir}, "no batch run under"},
		{"no such run", []string{"batch", "status", "--run", "nope", dir}, "no batch run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runIn(t, env, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, want 2 with %q\n%s%s", code, tc.want, out, errOut)
			}
		})
	}
	// A run not collected cannot be submitted again; without its key it
	// cannot be collected.
	srv.Polls = 1000
	if code, out, errOut := runIn(t, env, "replay", "--batch", "--run", "r", dir); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runIn(t, env, "replay", "--batch", "--run", "r", dir); code != 2 || !strings.Contains(errOut, "not collected yet") {
		t.Fatalf("resubmit: exit %d\n%s", code, errOut)
	}
	noKey := map[string]string{}
	for k, v := range env {
		noKey[k] = v
	}
	delete(noKey, "OPENAI_API_KEY")
	if code, _, errOut := runIn(t, noKey, "batch", "collect", dir); code != 2 || !strings.Contains(errOut, "OPENAI_API_KEY") {
		t.Fatalf("collect without the key: exit %d\n%s", code, errOut)
	}
}

// TestBatchSubmissionFails: a provider that refuses the upload gets
// nothing submitted. replay says so under its own name, with the
// provider's error and what to do (exit 1); batch status and collect say
// nothing is in flight and why (exit 1), never that bundles are in
// batches; once the cause is gone, the same replay command submits the
// run anew.
func TestBatchSubmissionFails(t *testing.T) {
	srv := fakebatch.New()
	srv.SetUploadError(http.StatusForbidden, "the Batch API is not enabled for this project")
	ts := httptest.NewServer(srv)
	defer ts.Close()
	env := batchEnv(t, ts.URL)
	dir := t.TempDir()
	if _, err := fakebatch.WriteBundles(dir, 7, nil); err != nil {
		t.Fatal(err)
	}
	const cause = "submit 7 requests for gpt-5.4-nano to openai: upload of the input file (7 requests): status 403: the Batch API is not enabled for this project"
	const tally = "bundles: 0 ok, 0 failed, 0 skipped, 0 errors; 0 in batches, 7 to submit; 0 from the response cache\n"
	code, out, errOut := runIn(t, env, "replay", "--batch", "--run", "night", dir)
	want := "compact replay: nothing was submitted: " + cause + "; fix the cause, then run this command again (or compact batch collect --run night) to submit the 7 bundles\n"
	if code != 1 || errOut != want || !strings.Contains(out, tally) || srv.Created() != 0 {
		t.Fatalf("replay --batch: exit %d, %d batches created\n%s%s\nwant exit 1 and\n%s", code, srv.Created(), out, errOut, want)
	}
	for _, verb := range []string{"status", "collect"} {
		code, out, errOut = runIn(t, env, "batch", verb, dir)
		want = "compact batch " + verb + ": nothing in flight, 7 bundles not submitted yet: the submission failed: " + cause +
			"; fix the cause, then compact batch collect --run night submits them\n"
		if code != 1 || errOut != want || !strings.Contains(out, tally) {
			t.Fatalf("batch %s: exit %d\n%s%s\nwant exit 1 and\n%s", verb, code, out, errOut, want)
		}
	}
	code, out, _ = runIn(t, env, "--json", "batch", "status", dir)
	var rep batch.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.SubmitError != cause || rep.Bundles.Submitted != 0 || rep.Bundles.Queued != 7 {
		t.Fatalf("batch status --json: exit %d, %v\n%s", code, err, out)
	}

	srv.SetUploadError(0, "")
	code, out, errOut = runIn(t, env, "replay", "--batch", "--run", "night", dir)
	if code != 0 || srv.Created() != 1 || !strings.HasPrefix(errOut, "compact replay: submitted 1 batch; next: compact batch status --run night") {
		t.Fatalf("replay --batch once the uploads go through: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runIn(t, env, "batch", "status", dir)
	if want := "compact batch status: 7 bundles in batches; run compact batch collect --run night again later, or with --wait\n"; code != 0 || errOut != want {
		t.Fatalf("batch status: exit %d\n%s%s\nwant\n%s", code, out, errOut, want)
	}
	if code, out, errOut = runIn(t, env, "batch", "collect", dir); code != 0 || !strings.Contains(out, "bundles: 7 ok") {
		t.Fatalf("batch collect: exit %d\n%s%s", code, out, errOut)
	}
}

// TestBatchSubmissionFailsHalfway: the fifth of seven one-request batches
// is refused. replay says what was submitted and what was not; status
// says the same (exit 1); collect writes the four answered and says the
// three left are in no batch.
func TestBatchSubmissionFailsHalfway(t *testing.T) {
	srv := fakebatch.New()
	srv.Limits[fakebatch.OpenAI] = fakebatch.Limits{MaxBytes: 3000}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	env := batchEnv(t, ts.URL)
	env["COMPACT_BATCH_LIMITS_OPENAI_MAX_REQUESTS"] = "1"
	dir := t.TempDir()
	if _, err := fakebatch.WriteBundles(dir, 7, func(i int) string {
		if i == 4 {
			return strings.Repeat("too large ", 500)
		}
		return ""
	}); err != nil {
		t.Fatal(err)
	}
	const cause = "submit 1 request for gpt-5.4-nano to openai: upload of the input file (1 request): status 413: file over 3000 bytes; fix the cause, then compact batch collect --run night submits them\n"
	code, out, errOut := runIn(t, env, "replay", "--batch", "--run", "night", dir)
	lines := strings.SplitAfter(errOut, "\n")
	if code != 1 || len(lines) != 3 || !strings.HasPrefix(lines[0], "compact replay: submitted 4 batches; next:") ||
		lines[1] != "compact replay: 4 bundles in batches and 3 not submitted yet: the submission failed: "+cause {
		t.Fatalf("replay --batch: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runIn(t, env, "batch", "status", dir)
	if want := "compact batch status: 4 bundles in batches and 3 not submitted yet: the submission failed: " + cause; code != 1 || errOut != want {
		t.Fatalf("batch status: exit %d\n%s%s\nwant\n%s", code, out, errOut, want)
	}
	code, out, errOut = runIn(t, env, "batch", "collect", dir)
	if want := "compact batch collect: nothing in flight, 3 bundles not submitted yet: the submission failed: " + cause; code != 1 || errOut != want ||
		!strings.Contains(out, "bundles: 4 ok, 0 failed, 0 skipped, 0 errors; 0 in batches, 3 to submit;") {
		t.Fatalf("batch collect: exit %d\n%s%s\nwant\n%s", code, out, errOut, want)
	}
}
