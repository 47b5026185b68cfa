package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/replay"
)

// replayDoc is replay --json's document.
type replayDoc struct {
	Run    string        `json:"run"`
	Repeat int           `json:"repeat"`
	Runs   []string      `json:"runs"`
	Items  []replay.Item `json:"items"`
	Totals replay.Totals `json:"totals"`
}

func decodeReplay(t *testing.T, out string) replayDoc {
	t.Helper()
	var doc replayDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc
}

// TestReplayRepeatWithTheBuiltinModel: --repeat 3 writes three runs of
// each bundle, builtin, builtin@2 and builtin@3, which the builtin model
// makes identical (and says so); --json, the table and its summary count
// the replays; a second run skips them all.
func TestReplayRepeatWithTheBuiltinModel(t *testing.T) {
	dir := extractSample(t)
	bundles, _ := replayFinder.Find([]string{dir})
	code, out, errOut := runIn(t, nil, "replay", "--model", "builtin", "--repeat", "3", "--json", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if errOut != "compact replay: the builtin model is deterministic: the 3 runs of each bundle will be identical\n" {
		t.Errorf("stderr %q", errOut)
	}
	doc := decodeReplay(t, out)
	runs := []string{"builtin", "builtin@2", "builtin@3"}
	if doc.Run != "builtin" || doc.Repeat != 3 || !slices.Equal(doc.Runs, runs) || len(doc.Items) != 21 ||
		doc.Totals.Bundles != 7 || doc.Totals.Replays != 21 || doc.Totals.OK != 21 {
		t.Fatalf("document: run %q, repeat %d, runs %v, %d items, totals %+v", doc.Run, doc.Repeat, doc.Runs, len(doc.Items), doc.Totals)
	}
	for i, it := range doc.Items {
		if it.Bundle != bundles[i/3] || it.Run != runs[i%3] || it.Status != replay.StatusOK {
			t.Errorf("item %d: %+v", i, it)
		}
	}
	for _, b := range bundles {
		first := readFile(t, bundle.OutputPath(b, "builtin"))
		for _, run := range runs[1:] {
			if got := readFile(t, bundle.OutputPath(b, run)); got != first {
				t.Errorf("%s: %s differs from the first run", b, run)
			}
		}
	}
	code, out, _ = runIn(t, nil, "replay", "--model", "builtin", "--repeat", "3", dir)
	if code != 0 || !strings.Contains(out, "BUNDLE                                                    RUN        STATUS") ||
		!strings.Contains(out, "003-fix-button-color-v2/compression-001                   builtin@3  skipped") ||
		!strings.HasSuffix(out, "\n7 bundles, 21 replays: 0 ok, 21 skipped, 0 failed, 0 errors; 0 input and 0 output tokens, $0\n") {
		t.Errorf("exit %d, table:\n%s", code, out)
	}
}

var latency = regexp.MustCompile(`"latencyMs": \d+`)

// TestReplayRepeatOneIsThePlainReplay: --repeat 1 prints what no --repeat
// prints, byte for byte but the builtin model's milliseconds, writes one
// run and says nothing of repeats.
func TestReplayRepeatOneIsThePlainReplay(t *testing.T) {
	dir := extractSample(t)
	var outs []string
	for _, args := range [][]string{{}, {"--repeat", "1"}} {
		code, out, errOut := runIn(t, nil, append([]string{"replay", "--model", "builtin", "--force", "--json", dir}, args...)...)
		if code != 0 || errOut != "" {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
		for _, key := range []string{`"repeat"`, `"runs"`, `"replays"`, `"run": "builtin@`} {
			if strings.Contains(out, key) {
				t.Errorf("%v: %s in\n%s", args, key, out)
			}
		}
		outs = append(outs, latency.ReplaceAllString(out, `"latencyMs": 0`))
		code, out, _ = runIn(t, nil, append([]string{"replay", "--model", "builtin", "--dry-run", "--json", dir}, args...)...)
		if code != 0 || strings.Contains(out, `"runs"`) {
			t.Errorf("%v: dry run, exit %d:\n%s", args, code, out)
		}
	}
	if outs[0] != outs[1] {
		t.Errorf("--repeat 1 prints another document:\n%s\n%s", outs[0], outs[1])
	}
	bundles, _ := replayFinder.Find([]string{dir})
	if runs := bundle.RunNames(bundles); !slices.Equal(runs, []string{"builtin"}) {
		t.Errorf("runs written: %v", runs)
	}
}

// TestReplayRepeatOnAServer: on an OpenAI-compatible server each repeat is
// a request of its own (the server counts them), and the same command
// again, even with --force, is answered from the response cache for every
// repeat: each repeat by its own answer. One more repeat sends only it.
func TestReplayRepeatOnAServer(t *testing.T) {
	dir := extractSample(t)
	bundles, _ := replayFinder.Find([]string{dir})
	srv := newChatServer(t, "## Briefing\n\nThe first answer of the local model, for every repeat.")
	env := map[string]string{"COMPACT_CACHE_DIR": filepath.Join(t.TempDir(), "cache")}
	replayArgs := func(extra ...string) []string {
		return append([]string{"replay", "--json", "--base-url", srv.srv.URL + "/v1", "--api-model", "m", dir}, extra...)
	}
	code, out, errOut := runIn(t, env, replayArgs("--repeat", "3")...)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if n := len(srv.requests()); n != 21 {
		t.Fatalf("%d requests for 7 bundles, 3 times each; want 21", n)
	}
	if doc := decodeReplay(t, out); doc.Totals.Replays != 21 || doc.Totals.OK != 21 || doc.Totals.InputTokens != 21*1000 {
		t.Errorf("totals %+v", doc.Totals)
	}
	for _, run := range []string{"m", "m@2", "m@3"} {
		rec, err := replay.ReadRecord(bundles[0], run)
		if err != nil || rec.Run != run || rec.Attempts[0].Cached {
			t.Fatalf("%s: %+v %v", run, rec, err)
		}
	}
	// The model now answers otherwise: what comes back is each repeat's
	// own cached answer, and nothing is sent.
	srv.answer = "## Briefing\n\nA later answer of the local model."
	code, out, errOut = runIn(t, env, replayArgs("--repeat", "3", "--force")...)
	if code != 0 || len(srv.requests()) != 21 {
		t.Fatalf("the same command again: exit %d, %d requests\n%s", code, len(srv.requests()), errOut)
	}
	if doc := decodeReplay(t, out); doc.Totals.OK != 21 || doc.Totals.CostUSD != 0 {
		t.Errorf("totals %+v", doc.Totals)
	}
	for _, b := range bundles {
		for _, run := range []string{"m", "m@2", "m@3"} {
			rec, err := replay.ReadRecord(b, run)
			if err != nil || !rec.Attempts[0].Cached || !strings.Contains(readFile(t, bundle.OutputPath(b, run)), "first answer") {
				t.Errorf("%s %s: not answered from its cache entry: %+v %v", b, run, rec, err)
			}
		}
	}
	// A fourth repeat is sent; the first three are skipped.
	code, out, _ = runIn(t, env, replayArgs("--repeat", "4")...)
	if doc := decodeReplay(t, out); code != 0 || len(srv.requests()) != 28 || doc.Totals.OK != 7 || doc.Totals.Skipped != 21 {
		t.Fatalf("--repeat 4: exit %d, %d requests, totals %+v", code, len(srv.requests()), doc.Totals)
	}
	if !strings.Contains(readFile(t, bundle.OutputPath(bundles[0], "m@4")), "later answer") {
		t.Error("the fourth repeat was not sent to the model")
	}
	// --run NAME@I alone is that repeat, answered by its entry.
	code, _, errOut = runIn(t, env, replayArgs("--run", "m@2", "--force")...)
	if code != 0 || len(srv.requests()) != 28 {
		t.Errorf("--run m@2: exit %d, %d requests\n%s", code, len(srv.requests()), errOut)
	}
}

func TestReplayRepeatUsageErrors(t *testing.T) {
	dir := extractSample(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--repeat", "0"}, "compact replay: --repeat: want 1 to 50 runs of each bundle, got 0\n"},
		{[]string{"--repeat", "-2"}, "compact replay: --repeat: want 1 to 50 runs of each bundle, got -2\n"},
		{[]string{"--repeat", "51"}, "compact replay: --repeat: want 1 to 50 runs of each bundle, got 51\n"},
		{[]string{"--repeat", "2", "--run", "terse@2"}, "compact replay: --repeat: run terse@2 is already repeat 2 of terse; give the base name (--run terse)\n"},
		{[]string{"--repeat", "2", "--batch"}, "compact replay: --batch does not take --repeat; submit each repeat as its own run (--run builtin@2, …), or replay without --batch\n"},
	} {
		code, out, errOut := runIn(t, nil, append([]string{"replay", "--model", "builtin", dir}, tt.args...)...)
		if code != 2 || errOut != tt.want || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tt.args, code, out, errOut)
		}
	}
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", "--repeat", "two", dir); code != 2 || !strings.Contains(errOut, "--repeat") {
		t.Errorf("--repeat two: exit %d, %q", code, errOut)
	}
	bundles, _ := replayFinder.Find([]string{dir})
	if _, err := os.Stat(filepath.Join(bundles[0], bundle.DirReplays)); err == nil {
		t.Error("a refused command wrote results")
	}
}

// TestReplayRepeatDryRun: the dry run says each request is sent once per
// repeat, and for which runs; it sends and writes nothing.
func TestReplayRepeatDryRun(t *testing.T) {
	dir := extractSample(t)
	bundles, _ := replayFinder.Find([]string{dir})
	code, out, errOut := runIn(t, nil, "replay", "--model", "builtin", "--repeat", "2", "--dry-run", bundles[0])
	if code != 0 || !strings.Contains(out, "\n  sent 2 times, each a request of its own, as runs builtin, builtin@2\n") || !strings.Contains(errOut, "deterministic") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runIn(t, nil, "replay", "--model", "builtin", "--repeat", "2", "--dry-run", "--json", dir)
	var all []replay.DryBundle
	if err := json.Unmarshal([]byte(out), &all); code != 0 || err != nil || len(all) != 7 {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	for _, d := range all {
		if !slices.Equal(d.Runs, []string{"builtin", "builtin@2"}) || len(d.Requests) != 1 {
			t.Errorf("%s: runs %v, %d requests", d.Bundle, d.Runs, len(d.Requests))
		}
	}
	if _, err := os.Stat(filepath.Join(bundles[0], bundle.DirReplays)); err == nil {
		t.Error("a dry run wrote results")
	}
}
