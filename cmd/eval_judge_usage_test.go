package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/eval"
)

// TestEvalJudgeUsage: what --judge refuses, each with one line.
func TestEvalJudgeUsage(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sample")
	db := filepath.Join("..", "examples", "stagewise", "instances.sqlite")
	if code, _, errOut := diffRun(t, nil, "extract", "--db", db, "--out", root); code != 0 {
		t.Fatalf("extract: %s", errOut)
	}
	pack := filepath.Join(t.TempDir(), "pack")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--judge", "builtin"}, "the built-in model writes briefings and cannot answer questions"},
		{[]string{"--judge", "gpt-5.4-nano"}, "no API key for the judge gpt-5.4-nano: set OPENAI_API_KEY"},
		{[]string{"--judge", "nope"}, `--judge: unknown model "nope"`},
		{[]string{"--judge-api-model", "x"}, "--judge-api-model goes with --judge MODEL or --judge-base-url URL"},
		{[]string{"--judge-base-url", "http://127.0.0.1:9/v1"}, "--judge-base-url needs --judge-api-model NAME"},
		{[]string{"--judge", "gpt-5.4-nano", "--judge-pack", pack}, "answer-system.md is missing"},
		{[]string{"--judge", "gpt-5.4-nano", "--judge-questions", "0"}, "--judge-questions: want at least 1"},
	} {
		code, _, errOut := diffRun(t, nil, append([]string{"eval", root}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
	// --write-judge-pack writes the pack, which --judge-pack then reads;
	// a second write refuses to overwrite it.
	if code, _, errOut := diffRun(t, nil, "eval", "--write-judge-pack", pack); code != 0 || !strings.Contains(errOut, "wrote the judge pack") {
		t.Fatalf("write: exit %d %s", code, errOut)
	}
	p, err := eval.LoadJudgePack(pack)
	if err != nil || p.Hash() != eval.DefaultJudgePack().Hash() {
		t.Errorf("the written pack reads back as %v, %v", p, err)
	}
	if code, _, errOut := diffRun(t, nil, "eval", "--write-judge-pack", pack); code != 2 || !strings.Contains(errOut, "already exists") {
		t.Errorf("second write: exit %d %s", code, errOut)
	}
	os.WriteFile(filepath.Join(pack, "answer-user.md"), []byte("no placeholders"), 0o644)
	if _, err := eval.LoadJudgePack(pack); err == nil || !strings.Contains(err.Error(), "{{briefing}}") {
		t.Errorf("a template without its placeholder: %v", err)
	}
}

func listBundles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Name() == "compact-history.xml" {
			out = append(out, filepath.Dir(p))
		}
		return nil
	})
	if len(out) == 0 {
		t.Fatalf("no bundles under %s", root)
	}
	return out
}

// golden compares got with the file at path (rewritten with -update-judge).
func golden(t *testing.T, path, got string) {
	t.Helper()
	if got == "" {
		t.Fatalf("%s: nothing captured", path)
	}
	if *updateJudge {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd -run TestEvalJudge -update-judge)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from what was sent:\n%s", path, got)
	}
}

// TestEvalJudgeUnreadableGrades: a judge whose grade answers hold no grade
// compact can read fails loudly: every bundle's judging is an error named
// on stderr, no briefing gets a judged score (no 0.00), nothing of the
// grade calls is cached (a rerun asks again), exit 1.
func TestEvalJudgeUnreadableGrades(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sample")
	db := filepath.Join("..", "examples", "stagewise", "instances.sqlite")
	if code, _, errOut := diffRun(t, nil, "extract", "--db", db, "--out", out); code != 0 {
		t.Fatalf("extract: exit %d: %s", code, errOut)
	}
	bundles := listBundles(t, out)
	for _, b := range bundles {
		diffReplay(t, b, "same", diffActual(t, b)+"\n(end of briefing)\n", "2026-07-01T10:00:00Z")
	}
	pack := eval.DefaultJudgePack()
	srv := newJudgeServer(t, pack)
	srv.unreadable = true
	cacheDir := t.TempDir()
	env := map[string]string{"OPENAI_API_KEY": judgeKey, "COMPACT_OPENAI_BASE_URL": srv.srv.URL, "COMPACT_CACHE_DIR": cacheDir}
	run := func() (string, string) {
		code, js, errOut := diffRun(t, env, "eval", out, "--judge", "gpt-5.4-nano", "--json")
		if code != 1 {
			t.Fatalf("eval --judge with unreadable grades: exit %d, want 1: %s", code, errOut)
		}
		return js, errOut
	}
	js, errOut := run()
	if !strings.Contains(errOut, "without a grade it could read") || !strings.Contains(errOut, "not judged") {
		t.Errorf("stderr does not name the unreadable grades:\n%s", errOut)
	}
	var rep judgeReport
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		for _, b := range r.Briefings {
			if b.Judged != nil {
				t.Errorf("%s %s: judged %+v from unreadable grades", r.Bundle, b.Name, b.Judged)
			}
		}
		if r.Judge != nil && r.Judge.Error == "" {
			t.Errorf("%s: no judge error", r.Bundle)
		}
	}
	gradeCalls := func() int {
		n := 0
		for _, r := range srv.requests() {
			if r.Messages[0].Content == pack.GradeSystem {
				n++
			}
		}
		return n
	}
	first := gradeCalls()
	if first == 0 {
		t.Fatal("no grade call")
	}
	// The rerun asks the judge again: nothing unusable was cached.
	run()
	if again := gradeCalls() - first; again != first {
		t.Errorf("the rerun sent %d grade calls, want %d (an unusable answer came from the cache)", again, first)
	}
}
