package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateAgainstRecordedAgentSessions: on a Claude Code session and
// a Codex rollout, every strategy's compactions beside the agent's, read
// from the files themselves (sniffed), with the live usage.
func TestSimulateAgainstRecordedAgentSessions(t *testing.T) {
	claude := filepath.Join(agentsTestdata, "claude-code", "synthetic-shop.jsonl")
	codex := filepath.Join(agentsTestdata, "codex", "rollout-2026-03-04T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	code, out, errOut := simRun(t, "", "simulate", claude, codex, "--against-recorded", "--context-window", "20000", "--system-overhead", "9000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		claude + " (claude-code session 7c1e2f40-0000-4000-8000-00000000c0de)",
		codex + " (codex session)",
		"the agent compacted 2 times:",
		"strategy              compactions  at steps",
		"  - (unauditable)",
		"2 sessions, 4 compactions recorded; compacting within 2 steps of one: codex-user-retention ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	code, out, errOut = simRun(t, "", "--json", "simulate", claude, "--against-recorded", "--compare", "stagewise,summary-buffer", "--context-window", "20000", "--system-overhead", "14300")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var v struct {
		Strategies []string
		Sessions   []struct {
			Recorded   []struct{ Step int }
			Strategies []struct {
				Strategy    string
				Compactions []struct{ Step int }
				Nearest     []struct{ Step, Delta int }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if strings.Join(v.Strategies, ",") != "stagewise,summary-buffer" || len(v.Sessions) != 1 || len(v.Sessions[0].Recorded) != 2 {
		t.Fatalf("json %+v", v)
	}
	for _, st := range v.Sessions[0].Strategies {
		if len(st.Compactions) == 0 || len(st.Nearest) != 2 || st.Nearest[0].Step == 0 {
			t.Errorf("%s: %+v", st.Strategy, st)
		}
	}
	// A timeline of a session shows the live usage beside the estimate.
	code, out, errOut = simRun(t, "", "simulate", codex, "--format", "codex")
	if code != 0 || !strings.Contains(out, "  step  line  context    live  fired") || !strings.Contains(out, "context window 272,000 (recorded)") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}
