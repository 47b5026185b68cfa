package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtractFromOpenCodeAndGeminiThenReplayEvalDiffReport is the user's
// path on OpenCode's database and Gemini CLI's chats: extract --from
// writes one bundle per recorded compaction (the agent's summary as
// actual-output.md, the agent's pack), and replay with the built-in
// model, eval, diff and report read them unchanged, each exit 0.
func TestExtractFromOpenCodeAndGeminiThenReplayEvalDiffReport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		agent, path, stdout, warning, summary string
		bundles                               int
	}{
		{"opencode", filepath.Join(agentsTestdata, "opencode"), "2 sessions, 2 bundles, 1 skipped -> ",
			"the compaction failed (ContextOverflowError: prompt is too long); not counted", "## Goal\n\nAdd 19% VAT", 2},
		{"gemini-cli", filepath.Join(agentsTestdata, "gemini-cli"), "3 sessions, 1 bundle, 2 skipped -> ",
			"a Gemini CLI chat of v0.38 or earlier (one JSON record), when Gemini CLI recorded no compression", "<scratchpad>", 1},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, tc.agent)
			code, stdout, errOut := runIn(t, nil, "extract", "--from", tc.agent, tc.path, "--out", out)
			if code != 0 || stdout != tc.stdout+out+"\n" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.warning) {
				t.Fatalf("extract: exit %d\n%s%s", code, stdout, errOut)
			}
			bundles, _ := filepath.Glob(filepath.Join(out, "*", "compression-*"))
			if len(bundles) != tc.bundles {
				t.Fatalf("%d bundles: %v", len(bundles), bundles)
			}
			actual, err := os.ReadFile(filepath.Join(bundles[0], "actual-output.md"))
			if err != nil || !strings.HasPrefix(string(actual), tc.summary) {
				t.Errorf("actual-output.md: %q %v", actual, err)
			}
			var md struct {
				Agent, Pack string
				Auditable   bool
			}
			raw, _ := os.ReadFile(filepath.Join(bundles[0], "metadata.json"))
			if err := json.Unmarshal(raw, &md); err != nil || md.Agent != tc.agent || md.Pack != tc.agent || !md.Auditable {
				t.Errorf("metadata.json: %+v %v", md, err)
			}
			if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", out); code != 0 {
				t.Fatalf("replay: exit %d: %s", code, errOut)
			}
			if code, stdout, errOut := runIn(t, nil, "eval", out); code != 0 || !strings.Contains(stdout, plural(tc.bundles, "bundle")) {
				t.Errorf("eval: exit %d\n%s%s", code, stdout, errOut)
			}
			if code, stdout, errOut := runIn(t, nil, "diff", "--stat", out); code != 0 || !strings.Contains(stdout, "compression-001") {
				t.Errorf("diff: exit %d\n%s%s", code, stdout, errOut)
			}
			page := filepath.Join(dir, "report.html")
			if code, stdout, errOut := runIn(t, nil, "report", out, "-o", page); code != 0 {
				t.Errorf("report: exit %d\n%s%s", code, stdout, errOut)
			}
			if st, err := os.Stat(page); err != nil || st.Size() == 0 {
				t.Errorf("report page: %v", err)
			}
		})
	}
}

// TestExtractFromOpenCodeForms: the storage, the database, an export and
// a storage session file give the same bundle; the agent's default
// directory is $XDG_DATA_HOME/opencode.
func TestExtractFromOpenCodeForms(t *testing.T) {
	t.Parallel()
	oc := filepath.Join(agentsTestdata, "opencode")
	var first []byte
	for _, src := range []string{
		filepath.Join(oc, "opencode.db"),
		filepath.Join(oc, "storage"),
		filepath.Join(oc, "export.json"),
		filepath.Join(oc, "storage", "session", "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750", "ses_synthetic_main.json"),
	} {
		out := filepath.Join(t.TempDir(), "o")
		code, stdout, errOut := runIn(t, nil, "extract", "--from", "opencode", src, "--out", out)
		if code != 0 || !strings.Contains(stdout, "2 bundles") {
			t.Fatalf("%s: exit %d\n%s%s", src, code, stdout, errOut)
		}
		got, err := os.ReadFile(filepath.Join(out, "001-the-checkout-page-shows-prices-without-vat-add-19-vat-in-s", "compression-001", "compact-history.xml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), "[shell: npm test → exit 1]") || strings.Contains(string(got), "Ask a subagent") {
			t.Errorf("%s: the history replaced (the kept tail left out):\n%s", src, got)
		}
		if first == nil {
			first = got
		} else if string(got) != string(first) {
			t.Errorf("%s: another history than the database's:\n%s", src, got)
		}
	}
	// The default directory, where OpenCode keeps its data.
	home := t.TempDir()
	data := filepath.Join(home, "data", "opencode")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(filepath.Join(oc, "opencode.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "opencode.db"), db, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(home, "out")
	env := map[string]string{"HOME": home, "XDG_DATA_HOME": filepath.Join(home, "data")}
	if code, stdout, errOut := runIn(t, env, "extract", "--from", "opencode", "--out", out); code != 0 || !strings.Contains(stdout, "2 bundles") {
		t.Errorf("default directory: exit %d\n%s%s", code, stdout, errOut)
	}
	// Never into the agent's own directory.
	if code, _, errOut := runIn(t, env, "extract", "--from", "opencode", "--out", filepath.Join(data, "bundles")); code != 2 || !strings.Contains(errOut, "where the agent keeps its sessions") {
		t.Errorf("--out inside: exit %d: %s", code, errOut)
	}
}

// TestExtractFromNewAgentsBadInput: a damaged file is a warning naming it
// and what is wrong, the rest read; a file of another agent is named as
// such; nothing of the agent is exit 2.
func TestExtractFromNewAgentsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(agentsTestdata, "gemini-cli", "session-2026-05-20T09-00-7c1e2a44.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	chats := filepath.Join(dir, "tmp", "api", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	broken := filepath.Join(chats, "session-2026-05-20T09-00-7c1e2a44.jsonl")
	if err := os.WriteFile(broken, []byte(strings.Join(lines[:4], "")+"{\"id\": oops\n"+strings.Join(lines[4:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := runIn(t, nil, "extract", "--from", "gemini-cli", filepath.Join(dir, "tmp"), "--out", filepath.Join(dir, "o"))
	if code != 0 || !strings.HasPrefix(stdout, "1 session, 1 bundle") ||
		errOut != "compact extract: warning: "+broken+": line 5: not JSON (invalid character 'o' looking for beginning of value at byte 8); left out\n" {
		t.Errorf("bad line: exit %d\n%s%s", code, stdout, errOut)
	}
	// A storage part that is not JSON: a warning naming the file; the
	// session is read without it.
	storage := filepath.Join(dir, "storage")
	copyTree(t, filepath.Join(agentsTestdata, "opencode", "storage"), storage)
	parts, _ := filepath.Glob(filepath.Join(storage, "part", "*", "*.json"))
	if err := os.WriteFile(parts[0], []byte("{oops"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut = runIn(t, nil, "extract", "--from", "opencode", storage, "--out", filepath.Join(dir, "o2"))
	if code != 0 || !strings.Contains(stdout, "2 bundles") || !strings.Contains(errOut, parts[0]+": not JSON") {
		t.Errorf("bad part: exit %d\n%s%s", code, stdout, errOut)
	}
	// Another agent's file, and nothing of the agent.
	codex := filepath.Join(agentsTestdata, "codex", "rollout-2026-03-04T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	code, _, errOut = runIn(t, nil, "extract", "--from", "gemini-cli", codex, "--out", filepath.Join(dir, "o3"))
	if code != 2 || !strings.Contains(errOut, "a codex file, not a gemini-cli chat; skipped") || !strings.Contains(errOut, "no gemini-cli chat under") {
		t.Errorf("codex file: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runIn(t, nil, "extract", "--from", "opencode", filepath.Join(dir, "tmp"), "--out", filepath.Join(dir, "o4"))
	if code != 2 || !strings.Contains(errOut, "no opencode session, storage or database under") {
		t.Errorf("no opencode: exit %d\n%s", code, errOut)
	}
}

// TestSimulateNewAgents: simulate FILE reads an OpenCode session (an
// export; a database, its session updated last) and a Gemini CLI chat
// whole, sniffed, and checks the walk against the recorded compactions.
func TestSimulateNewAgents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, head string
		times      int
	}{
		{filepath.Join(agentsTestdata, "opencode", "export.json"), "(opencode session ses_synthetic_main)", 2},
		{filepath.Join(agentsTestdata, "opencode", "opencode.db"), "(opencode session ses_synthetic_main)", 2},
		{filepath.Join(agentsTestdata, "gemini-cli", "session-2026-05-20T09-00-7c1e2a44.jsonl"), "(gemini-cli session 7c1e2a44-5d6f-4a8b-9c0d-1e2f3a4b5c6d)", 1},
		{filepath.Join(agentsTestdata, "gemini-cli", "session-2025-11-02T14-30-3f9a0b12.json"), "(gemini-cli session 3f9a0b12-7788-4c1d-9e2f-0a1b2c3d4e5f)", 0},
	} {
		code, stdout, errOut := simRun(t, "", "simulate", tc.file, "--against-recorded", "--context-window", "20000")
		want := "the agent compacted " + plural(tc.times, "time")
		if tc.times == 0 {
			want = "0 compactions recorded"
		}
		if code != 0 || !strings.Contains(stdout, tc.file+" "+tc.head) || !strings.Contains(stdout, want) {
			t.Errorf("%s: exit %d\n%s%s", tc.file, code, stdout, errOut)
		}
	}
}
