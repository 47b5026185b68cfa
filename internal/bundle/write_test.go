package bundle

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWriteRunReplacesAsAWhole: a second result of a run replaces the
// first as a whole (a failed one leaves no output.md), and Replays reads
// what was written.
func TestWriteRunReplacesAsAWhole(t *testing.T) {
	b := t.TempDir()
	if err := WriteRun(b, "r", []byte(`{"model": "m", "startedAt": "2026-07-01T10:00:00Z"}`+"\n"), true, []byte("## A")); err != nil {
		t.Fatal(err)
	}
	runs, err := Replays(b)
	if err != nil || len(runs) != 1 || !runs[0].Answered || *runs[0].Info.Model != "m" || runs[0].Info.StartedAt == "" {
		t.Fatalf("Replays = %+v, %v", runs, err)
	}
	if err := WriteRun(b, "r", []byte(`{"model": null, "error": "no key"}`), false, nil); err != nil {
		t.Fatal(err)
	}
	runs, _ = Replays(b)
	if len(runs) != 1 || runs[0].Answered || runs[0].State() != (RunState{Run: "r", Error: "no key"}) {
		t.Errorf("after a failure: %+v", runs)
	}
	if ents, _ := os.ReadDir(filepath.Join(b, DirReplays)); len(ents) != 1 {
		t.Errorf("replays/ holds %d entries", len(ents))
	}
	if got := RunNames([]string{b, t.TempDir()}); !slices.Equal(got, []string{"r"}) {
		t.Errorf("RunNames = %v", got)
	}
}

// TestJudgeRecords: records are written in place through a temporary
// name, listed by run, and a leftover of a killed writer is removed.
func TestJudgeRecords(t *testing.T) {
	b := t.TempDir()
	for _, run := range []string{"z", "a"} {
		if err := WriteJudgeRecord(b, run, []byte("{}\n")); err != nil {
			t.Fatal(err)
		}
	}
	if data, err := os.ReadFile(JudgePath(b, "a")); err != nil || string(data) != "{}\n" {
		t.Fatalf("%q, %v", data, err)
	}
	writeFile(t, filepath.Join(b, DirJudge, judgeTempPrefix("a")+"123.tmp"), "{")
	if got := JudgeRecords(b); !slices.Equal(got, []string{"a", "z"}) {
		t.Errorf("JudgeRecords = %v", got)
	}
	if n, err := CleanJudgeLeftovers([]string{b}, "a"); n != 1 || err != nil {
		t.Errorf("CleanJudgeLeftovers = %d, %v", n, err)
	}
	if got := JudgeRecords(t.TempDir()); got != nil {
		t.Errorf("no judge/: %v", got)
	}
}
