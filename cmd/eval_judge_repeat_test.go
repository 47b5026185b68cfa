package cmd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/eval"
)

// TestEvalJudgeRepeat: --judge-repeat K judges each bundle K times
// against a loopback judge that grades an identical request one more each
// time it sees it: K times the requests, records RUN, RUN@2 … RUN@K, the
// scores the first repeat's and the spread over the repeats right; a
// rerun sends nothing, one more repeat sends only its own requests, and
// K = 1 is answered from the first repeat's cache and reports as before.
func TestEvalJudgeRepeat(t *testing.T) {
	out := extractSample(t)
	bundles := listBundles(t, out)
	for _, b := range bundles {
		diffReplay(t, b, "same", diffActual(t, b)+"\n(the end of the briefing)\n", "2026-07-01T10:00:00Z")
	}
	srv := newJudgeServer(t, eval.DefaultJudgePack())
	srv.vary = true
	env := map[string]string{"OPENAI_API_KEY": judgeKey, "COMPACT_OPENAI_BASE_URL": srv.srv.URL, "COMPACT_CACHE_DIR": t.TempDir()}
	judge := func(args ...string) (string, int) {
		t.Helper()
		before := len(srv.requests())
		code, stdout, errOut := diffRun(t, env, append([]string{"eval", out, "--judge", "gpt-5.4-nano"}, args...)...)
		if code != 0 {
			t.Fatalf("eval %v: exit %d: %s", args, code, errOut)
		}
		return stdout, len(srv.requests()) - before
	}

	// Two answer calls (actual, same) and one grade call per repeat.
	js, sent := judge("--judge-repeat", "3", "--json")
	if sent != 3*3*len(bundles) {
		t.Fatalf("--judge-repeat 3 sent %d requests for %d bundles, want 9 each", sent, len(bundles))
	}
	var rep judgeReport
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Judge == nil || rep.Judge.Repeats != 3 || rep.Judge.Calls != 9*len(bundles) || rep.Judge.Bundles != len(bundles) {
		t.Errorf("report judge %+v", rep.Judge)
	}
	// Repeat i grades a briefing (size + i − 1) modulo 6.
	means := map[string][]float64{}
	for _, res := range rep.Results {
		if res.Judge == nil || res.Judge.Error != "" || res.Judge.Repeats != 3 || len(res.Judge.Calls) != 9 {
			t.Fatalf("%s: judge %+v", res.Bundle, res.Judge)
		}
		for i, run := range []string{"gpt-5.4-nano", "gpt-5.4-nano@2", "gpt-5.4-nano@3"} {
			data, err := os.ReadFile(filepath.Join(res.Bundle, "judge", run+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var rec eval.JudgeRecord
			if err := json.Unmarshal(data, &rec); err != nil {
				t.Fatal(err)
			}
			want := i + 1
			if i == 0 {
				want = 0 // the first repeat's record is the plain one
			}
			if rec.Repeat != want || strings.Contains(string(data), `"repeats"`) {
				t.Errorf("%s: record %s of repeat %d, want %d", res.Bundle, run, rec.Repeat, want)
			}
		}
		for _, b := range res.Briefings {
			text, err := os.ReadFile(b.File)
			if err != nil {
				t.Fatal(err)
			}
			size := len(strings.TrimRight(string(text), "\n"))
			want := []float64{float64(size % 6), float64((size + 1) % 6), float64((size + 2) % 6)}
			if b.Judged == nil || b.Judged.Score != want[0] || len(b.Judged.Repeats) != 3 || b.Judged.Repeats[1] != want[1] || b.Judged.Repeats[2] != want[2] {
				t.Errorf("%s %s: judged %+v, want the repeats %v", res.Bundle, b.Name, b.Judged, want)
			}
			if means[b.Name] == nil {
				means[b.Name] = make([]float64, 3)
			}
			for i, x := range want {
				means[b.Name][i] += x / float64(len(rep.Results))
			}
		}
	}
	for _, s := range rep.Sides {
		want := eval.NewSpread(means[s.Name])
		got := s.Judged.Repeats
		if got == nil || got.N != 3 || math.Abs(got.Min-want.Min) > 1e-9 || math.Abs(got.Median-want.Median) > 1e-9 || math.Abs(got.Max-want.Max) > 1e-9 || math.Abs(got.SD-want.SD) > 1e-9 || want.SD == 0 {
			t.Errorf("side %s: spread %+v, want %+v", s.Name, got, want)
		}
	}

	// A rerun is answered from the cache, each repeat from its own answer.
	text, sent := judge("--judge-repeat", "3")
	if sent != 0 {
		t.Errorf("the rerun sent %d requests", sent)
	}
	for _, want := range []string{"3 times each", "judged repeats", "mean judged score over the repeats"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text report has no %q:\n%s", want, text)
		}
	}
	md, _ := judge("--judge-repeat", "3", "--format", "markdown")
	if !strings.Contains(md, "| judged repeats |") {
		t.Errorf("the markdown report has no table of the repeats:\n%s", md)
	}
	// A fourth repeat sends its own requests only.
	if _, sent := judge("--judge-repeat", "4"); sent != 3*len(bundles) {
		t.Errorf("--judge-repeat 4 after 3 sent %d requests, want 3 per bundle", sent)
	}

	// K = 1 is the first repeat, from its cache, reported as before.
	text, sent = judge()
	js, sentJSON := judge("--judge-repeat", "1", "--json")
	if sent+sentJSON != 0 {
		t.Errorf("one judging after the repeats sent %d requests", sent+sentJSON)
	}
	for _, banned := range []string{"times each", "judged repeats"} {
		if strings.Contains(text, banned) {
			t.Errorf("the report of one judging says %q:\n%s", banned, text)
		}
	}
	if strings.Contains(js, `"repeats"`) || strings.Contains(js, `"repeat"`) {
		t.Errorf("the JSON report of one judging names repeats")
	}
	var one judgeReport
	if err := json.Unmarshal([]byte(js), &one); err != nil {
		t.Fatal(err)
	}
	for i, s := range one.Sides {
		if s.Judged == nil || s.Judged.Score != rep.Sides[i].Judged.Score {
			t.Errorf("side %s: judged %+v once, %+v as the first of three", s.Name, s.Judged, rep.Sides[i].Judged)
		}
	}
}

// TestEvalJudgeRepeatUsage: what --judge-repeat refuses, each in one line,
// exit 2, before any request.
func TestEvalJudgeRepeatUsage(t *testing.T) {
	root := extractSample(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--judge", "gpt-5.4-nano", "--judge-repeat", "0"}, "eval: --judge-repeat: want 1 to 50 judgings of each bundle, got 0"},
		{[]string{"--judge", "gpt-5.4-nano", "--judge-repeat", "51"}, "eval: --judge-repeat: want 1 to 50 judgings of each bundle, got 51"},
		{[]string{"--judge", "gpt-5.4-nano", "--judge-repeat", "-2"}, "got -2"},
		{[]string{"--judge-repeat", "3"}, "eval: --judge-repeat goes with --judge MODEL or --judge-base-url URL"},
		{[]string{"--judge", "gpt-5.4-nano", "--judge-repeat", "3", "--batch"}, "eval: --batch does not take --judge-repeat"},
		{[]string{"--judge", "gpt-5.4-nano", "--judge-repeat", "3", "--judge-run", "nightly@2"}, "the judge run nightly@2 is already repeat 2 of nightly; give the base name (--judge-run nightly)"},
	} {
		code, _, errOut := diffRun(t, nil, append([]string{"eval", root}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}
