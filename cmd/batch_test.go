package cmd

import (
	"encoding/json"
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
