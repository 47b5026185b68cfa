package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const agentsTestdata = "../testdata/agents"

// TestExtractFromClaudeCodeThenReplayEval is the user's path on a
// Claude Code session: extract --from claude-code, replay with the
// built-in model, eval and diff, unchanged: the bundles have artifact
// probes (the paths of the session's tool calls, workspace-relative) and
// both briefings answer some.
func TestExtractFromClaudeCodeThenReplayEval(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cc")
	session := filepath.Join(agentsTestdata, "claude-code", "synthetic-shop.jsonl")
	code, stdout, errOut := runIn(t, nil, "extract", "--from", "claude-code", session, "--out", out)
	if code != 0 || !strings.HasPrefix(stdout, "2 sessions, 3 bundles, 0 skipped -> ") {
		t.Fatalf("extract: exit %d\n%s%s", code, stdout, errOut)
	}
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", out); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	code, stdout, errOut = runIn(t, nil, "eval", out, "--json")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	var rep struct {
		Bundles int
		Probes  map[string]int
		Sides   []struct {
			Name  string
			Kinds map[string]float64
		}
		Results []struct {
			Bundle string
			Probes []struct {
				Kind     string
				Expected []string
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Bundles != 3 || rep.Probes["artifact"] == 0 {
		t.Fatalf("eval: %d bundles, probes %v", rep.Bundles, rep.Probes)
	}
	var paths []string
	for _, r := range rep.Results {
		for _, p := range r.Probes {
			if p.Kind == "artifact" {
				paths = append(paths, p.Expected[0])
			}
		}
	}
	for _, want := range []string{"src/cart.ts", "src/cart.test.ts", "src/money.ts", "src/tax.ts"} {
		if !strings.Contains(" "+strings.Join(paths, " ")+" ", " "+want+" ") {
			t.Errorf("no artifact probe %s among %q", want, paths)
		}
	}
	for _, side := range rep.Sides {
		if k := side.Kinds["artifact"]; k <= 0 {
			t.Errorf("%s: artifact score %v", side.Name, k)
		}
	}
	if code, stdout, errOut := runIn(t, nil, "diff", "--stat", out); code != 0 || !strings.Contains(stdout, "3 bundles compared") {
		t.Errorf("diff: exit %d\n%s%s", code, stdout, errOut)
	}
}

// TestExtractFromCodex: the local compaction is a bundle diff and eval
// read; the remote one, encrypted, is skipped by both with a note.
func TestExtractFromCodex(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cx")
	rollout := filepath.Join(agentsTestdata, "codex", "rollout-2026-03-04T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	code, stdout, errOut := runIn(t, nil, "extract", "--from", "codex", rollout, "--out", out)
	if code != 0 || !strings.HasPrefix(stdout, "1 session, 2 bundles, 0 skipped") || !strings.Contains(errOut, "1 bundle without the agent's summary") {
		t.Fatalf("extract: exit %d\n%s%s", code, stdout, errOut)
	}
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", out); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	for _, c := range []string{"diff", "eval"} {
		code, stdout, errOut := runIn(t, nil, c, out)
		if code != 0 || !strings.Contains(errOut, "compact "+c+": note: ") || !strings.Contains(errOut, "compression-002: skipped: the agent's compaction is unauditable (remote compaction") {
			t.Errorf("%s: exit %d\n%s%s", c, code, stdout, errOut)
		}
	}
}

// TestExtractFromErrors: what --from refuses, in one line each.
func TestExtractFromErrors(t *testing.T) {
	dir := t.TempDir()
	session := filepath.Join(agentsTestdata, "claude-code", "synthetic-shop.jsonl")
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"extract", "--from", "cursor", session}, nil, `--from: unknown agent "cursor" (want claude-code, codex, otel, openinference, opencode or gemini-cli)`},
		{[]string{"extract", "--from", "swe-agent", filepath.Join(agentsTestdata, "swe-agent")}, nil, "--from swe-agent: SWE-agent trajectories record no compaction, so there is nothing to write"},
		{[]string{"extract", session}, nil, "extract takes no arguments without --from"},
		{[]string{"extract", "--from", "codex", "--db", "x.sqlite", session}, nil, "--db reads a stagewise database"},
		{[]string{"extract", "--from", "codex", filepath.Join(dir, "nope")}, nil, "nope: no such file or directory"},
		{[]string{"extract", "--from", "codex", filepath.Join(agentsTestdata, "swe-agent"), "--out", filepath.Join(dir, "o")}, nil, "no codex session under"},
		{[]string{"extract", "--from", "claude-code"}, map[string]string{"HOME": dir}, "no claude-code sessions at " + filepath.Join(dir, ".claude", "projects")},
		{[]string{"extract", "--from", "otel"}, nil, "--from otel reads the trace files you name"},
		{[]string{"extract", "--from", "otel", filepath.Join(agentsTestdata, "swe-agent"), "--out", filepath.Join(dir, "o")}, nil, "no OTLP JSON trace file under"},
		{[]string{"extract", "--from", "claude-code", "--out", filepath.Join(agentsTestdata, "claude-code", "out"), session}, nil, "where the agent keeps its sessions"},
	} {
		code, stdout, errOut := runIn(t, c.env, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 || stdout != "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(agentsTestdata, "claude-code", "out")); err == nil {
		t.Error("wrote into the agent's directory")
	}
}
