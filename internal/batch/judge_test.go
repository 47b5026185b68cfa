package batch

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/batch/fakebatch"
	"github.com/compactlab/compact/internal/eval"
)

// judgeAnswer answers the judge's two requests: "Q1: …" lines, then a
// grade of 4 on every dimension for every set and question.
func judgeAnswer(kind, model, system, user string) fakebatch.Reply {
	pack := eval.DefaultJudgePack()
	if system == pack.AnswerSystem {
		return fakebatch.Reply{Text: "Q1: the button\nQ2: the colour", In: 500, Out: 20}
	}
	var b strings.Builder
	for _, set := range []string{"A", "B", "C"} {
		if !strings.Contains(user, "Answer set "+set+":") {
			continue
		}
		for q := 1; q <= 12; q++ {
			b.WriteString(`{"q":` + strconv.Itoa(q) + `,"set":"` + set + `","accuracy":4,"context_awareness":4,"artifact_trail":4,"completeness":4,"continuity":4,"instruction_following":4}` + "\n")
		}
	}
	return fakebatch.Reply{Text: b.String(), In: 900, Out: 60}
}

func judgeOpts(_ env, root, run string, bundles []string) (JudgeOptions, func(*testing.T) context.Context) {
	return JudgeOptions{Root: root, Run: run, Bundles: bundles, Models: []string{"gpt-5.4-nano"}, Judge: "gpt-5.4-nano", MaxQuestions: 12, ToolVersion: "test"},
		func(*testing.T) context.Context { return context.Background() }
}

// TestJudgeCollectIsIdempotentAfterACrash: a judge run's collect that
// kept the answers, queued and sent the grades and wrote the records, but
// died before committing (the head is put back as it was after the
// submit), does it all again without a grade queued twice: with no
// response cache, the grades are sent once more, one per bundle, and every
// bundle has one record.
func TestJudgeCollectIsIdempotentAfterACrash(t *testing.T) {
	p := providers[0]
	srv := fakebatch.New()
	srv.Answer = judgeAnswer
	ts := httptest.NewServer(srv)
	defer ts.Close()
	e := newEnv(t, p, ts.URL, nil)
	e.cache = ""
	root := t.TempDir()
	bundles, err := fakebatch.WriteBundles(root, 40, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts, ctx := judgeOpts(e, root, "j", bundles)
	cas, s := e.load(t)
	opts.Settings = s
	rep, err := Judge(ctx(t), cas, opts)
	if err != nil || rep.Bundles.Submitted != 40 || rep.Kind != KindJudge || rep.Run != "judge-j" {
		t.Fatalf("submit: %v %+v", err, rep)
	}
	dir := Dir(root, "judge-j")
	saved, err := os.ReadFile(filepath.Join(dir, FileState))
	if err != nil {
		t.Fatal(err)
	}
	cas, _ = e.load(t)
	rep, err = Judge(ctx(t), cas, opts) // collects: answers, grades, records
	if err != nil || rep.Bundles.OK != 40 || rep.Bundles.Pending() != 0 || srv.Requests() != 80 {
		t.Fatalf("collect: %v %+v, %d requests", err, rep.Bundles, srv.Requests())
	}
	for _, b := range bundles {
		data, err := os.ReadFile(filepath.Join(b, "judge", "j.json"))
		var rec eval.JudgeRecord
		if err != nil || json.Unmarshal(data, &rec) != nil || len(rec.Calls) != 2 || rec.Briefings[0].Score != 4 {
			t.Fatalf("%s: %v %+v", b, err, rec)
		}
	}
	// The crash: everything written, the head not.
	if err := os.WriteFile(filepath.Join(dir, FileState), saved, 0o644); err != nil {
		t.Fatal(err)
	}
	cas, _ = e.load(t)
	rep, err = Collect(context.Background(), cas, root, "judge-j", CollectOptions{Settings: s, ToolVersion: "test"})
	if err != nil || rep.Bundles.OK != 40 || rep.Bundles.Failed != 0 || rep.Bundles.Pending() != 0 {
		t.Fatalf("collect after the crash: %v %+v", err, rep.Bundles)
	}
	if srv.Requests() != 120 {
		t.Errorf("%d requests, want 120: 40 answers, then 40 grades twice (no cache), none more", srv.Requests())
	}
	if rep.Ledger.Total.Requests != 80 {
		t.Errorf("ledger %+v, want the 80 requests of the committed collect", rep.Ledger.Total)
	}
}

// TestJudgeFailuresAndChanges: an answer that fails at the last model
// fails its bundle once (the others of the bundle are not graded), a
// grade that fails fails its bundle, and the report names both.
func TestJudgeFailuresAndChanges(t *testing.T) {
	p := providers[0]
	srv := fakebatch.New()
	srv.Answer = func(kind, model, system, user string) fakebatch.Reply {
		pack := eval.DefaultJudgePack()
		if system == pack.AnswerSystem && strings.Contains(user, "PLANTED") {
			return fakebatch.Reply{Status: 500, Error: "planted answer failure"}
		}
		if system == pack.GradeSystem && strings.Contains(user, "Button5.tsx") {
			return fakebatch.Reply{Status: 500, Error: "planted grade failure"}
		}
		return judgeAnswer(kind, model, system, user)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	e := newEnv(t, p, ts.URL, nil)
	root := t.TempDir()
	bundles, err := fakebatch.WriteBundles(root, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(bundles[3], "actual-output.md"), []byte("## Button\n\nPLANTED: the button of src/components/Button3.tsx.\n"), 0o644)
	// A second briefing for every bundle: two answers each.
	for _, b := range bundles {
		dir := filepath.Join(b, "replays", "r")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "output.md"), []byte("## Briefing\n\nThe button of src/components/Button.tsx is blue.\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "replay.json"), []byte(`{"run":"r","model":"builtin","attempts":[],"usage":{"inputTokens":0,"outputTokens":0},"costUsd":0,"pack":"","systemSha256":"","userSha256":"","toolVersion":"dev","startedAt":"2026-01-01T00:00:00Z"}`), 0o644)
	}
	opts, ctx := judgeOpts(e, root, "j", bundles)
	cas, s := e.load(t)
	opts.Settings = s
	if _, err := Judge(ctx(t), cas, opts); err != nil {
		t.Fatal(err)
	}
	cas, _ = e.load(t)
	rep, err := Collect(context.Background(), cas, root, "judge-j", CollectOptions{Settings: s, ToolVersion: "test", Wait: true})
	if err != nil || rep.Bundles.OK != 6 || rep.Bundles.Failed != 2 || rep.Bundles.Pending() != 0 || len(rep.Problems) != 2 {
		t.Fatalf("%v %+v %+v", err, rep.Bundles, rep.Problems)
	}
	// 16 answers, 7 grades (the bundle whose answer failed is not graded).
	if srv.Requests() != 16+7 {
		t.Errorf("%d requests, want 23", srv.Requests())
	}
	for _, pr := range rep.Problems {
		switch {
		case pr.Bundle == bundles[3] && strings.Contains(pr.Error, "judge: answering from actual") && strings.Contains(pr.Error, "planted answer failure"):
		case pr.Bundle == bundles[5] && strings.Contains(pr.Error, "judge: grading:") && strings.Contains(pr.Error, "planted grade failure"):
		default:
			t.Errorf("problem %+v", pr)
		}
	}
	for i, b := range bundles {
		_, err := os.Stat(filepath.Join(b, "judge", "j.json"))
		if (i == 3 || i == 5) != (err != nil) {
			t.Errorf("bundle %d: record %v", i, err)
		}
	}
	// A rerun: everything answered is in the cache; the failures are asked
	// again (and fail again).
	before := srv.Requests()
	cas, _ = e.load(t)
	rep, err = Judge(ctx(t), cas, opts)
	if err != nil || rep.Bundles.OK != 6 || rep.Bundles.FromCache != 15+6 || len(rep.Submitted) != 1 {
		t.Fatalf("rerun: %v %+v, submitted %v", err, rep.Bundles, rep.Submitted)
	}
	if n := srv.Requests() - before; n != 2 {
		t.Errorf("the rerun sent %d requests, want the 2 answers that failed", n)
	}
}
