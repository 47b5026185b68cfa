package agentbundle

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/testfiles"
)

const testdata = "../../testdata/agents"

func run(t *testing.T, agent string, paths ...string) (*Summary, string, []string) {
	t.Helper()
	return runOpts(t, Options{Agent: agent, Paths: paths})
}

// runOpts runs opts with the agent's pack, into a new directory.
func runOpts(t *testing.T, opts Options) (*Summary, string, []string) {
	t.Helper()
	pack, err := prompt.Builtin(PackFor(opts.Agent))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var warns []string
	opts.OutDir, opts.Pack, opts.PackName, opts.Locale = out, pack, PackFor(opts.Agent), "en-US"
	sum, err := Run(context.Background(), opts, Hooks{Warn: func(w string) { warns = append(warns, w) }})
	if err != nil {
		t.Fatal(err)
	}
	return sum, out, warns
}

func readMeta(t *testing.T, dir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, bundle.FileMetadata))
	if err != nil {
		t.Fatal(err)
	}
	var md map[string]any
	if err := json.Unmarshal(data, &md); err != nil {
		t.Fatal(err)
	}
	return md
}

// TestClaudeCodeBundles: one bundle per recorded compaction, the summary
// byte for byte, the history before each boundary (after the previous
// summary), the subagent's compaction in a chat of its own.
func TestClaudeCodeBundles(t *testing.T) {
	f := filepath.Join(testdata, "claude-code/synthetic-shop.jsonl")
	sum, out, warns := run(t, agents.ClaudeCode, f)
	if sum.Sessions != 2 || sum.Bundles != 3 || sum.Extracted != 2 || sum.Unauditable != 0 {
		t.Errorf("summary %+v", sum)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "other branches") {
		t.Errorf("warnings %q", warns)
	}
	s, err := agents.ReadFile(f, agents.ClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	chat := filepath.Join(out, "001-the-cart-total-is-wrong-for-carts-over-2400-items-fix-car")
	for n, c := range s.Compactions {
		dir := filepath.Join(chat, bundle.CompressionDirName(n+1))
		got, err := os.ReadFile(filepath.Join(dir, bundle.FileActual))
		if err != nil || string(got) != c.Summary {
			t.Errorf("compression %d: actual-output.md %q (%v), want the recorded summary", n+1, got, err)
		}
		sys, _ := os.ReadFile(filepath.Join(dir, bundle.FileSystemPrompt))
		if !strings.HasPrefix(string(sys), "You are a coding assistant partway through a session") {
			t.Errorf("system prompt %.60q", sys)
		}
	}
	h1, _ := os.ReadFile(filepath.Join(chat, "compression-001", bundle.FileCompact))
	h2, _ := os.ReadFile(filepath.Join(chat, "compression-002", bundle.FileCompact))
	if !strings.HasPrefix(string(h1), "<user>The cart total is wrong") || strings.Contains(string(h1), "tax") || !strings.Contains(string(h1), "[edited: src/cart.ts]") {
		t.Errorf("first history:\n%s", h1)
	}
	if !strings.HasPrefix(string(h2), "<previous-chat-history>"+s.Compactions[0].Summary+"</previous-chat-history>\n<user>Now round the tax") || strings.Contains(string(h2), "Thanks. Run the whole suite") {
		t.Errorf("second history:\n%s", h2)
	}
	user, _ := os.ReadFile(filepath.Join(chat, "compression-002", bundle.FileUserMessage))
	if !strings.HasPrefix(string(user), "<chat-history>"+string(h2)+"</chat-history>\n\nKeep the summary to about 20,000 characters. The earlier summary is 625 characters") {
		t.Errorf("user message %.200q", user)
	}
	md := readMeta(t, filepath.Join(chat, "compression-002"))
	for k, want := range map[string]any{
		"agent": "claude-code", "chatId": s.ID, "model": "claude-sonnet-4-5-20250929", "trigger": "manual", "recordedPreTokens": 9420.0,
		"liveTokensBefore": 9364.0, "compressionNumber": 2.0, "totalCompressions": 2.0, "boundaryMessageIndex": 28.0, "previousCompressionIndex": 18.0,
		"previousCompressionSize": 625.0, "auditable": true, "pack": "claude-code", "cwd": "/home/dev/shop",
	} {
		if md[k] != want {
			t.Errorf("metadata %s = %v, want %v", k, md[k], want)
		}
	}
	if md["estimatedTokens"].(float64) <= 0 {
		t.Errorf("estimatedTokens %v", md["estimatedTokens"])
	}
	sub := filepath.Join(out, "002-subagent-find-every-caller-of-tocents", "compression-001")
	if got, _ := os.ReadFile(filepath.Join(sub, bundle.FileActual)); string(got) != "Summary: toCents is called from src/cart.ts and src/tax.ts." {
		t.Errorf("subagent bundle %q", got)
	}
	// Nothing is left beside the output.
	ents, _ := os.ReadDir(filepath.Dir(out))
	if len(ents) != 1 {
		t.Errorf("beside the output: %v", ents)
	}
}

// TestCodexBundles: the local compaction is a bundle with the recorded
// summary; the remote one has no actual-output.md and says why.
func TestCodexBundles(t *testing.T) {
	f := filepath.Join(testdata, "codex/rollout-2026-03-04T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	sum, out, warns := run(t, agents.Codex, f)
	if sum.Bundles != 2 || sum.Unauditable != 1 || len(warns) != 1 || !strings.Contains(warns[0], "unauditable") {
		t.Errorf("summary %+v, warnings %q", sum, warns)
	}
	chat := filepath.Join(out, "001-the-mail-relay-drops-messages-over-10-mb-raise-the-limit-to")
	h, _ := os.ReadFile(filepath.Join(chat, "compression-001", bundle.FileCompact))
	for _, want := range []string{"[edited: config/relay.toml]", "[created: docs/limits.md]", "[shell: cargo test -p relay → exit 101]", "[moved: src/limits.rs → src/size.rs]", "[deleted: src/old_limits.rs]", "[shell: cargo test -p relay → ✓]"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("no %q in\n%s", want, h)
		}
	}
	if _, err := os.Stat(filepath.Join(chat, "compression-002", bundle.FileActual)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unauditable bundle has an actual-output.md (%v)", err)
	}
	md, err := bundle.ReadMetadata(filepath.Join(chat, "compression-002"))
	if ok, why := md.IsAuditable(); err != nil || ok || !strings.Contains(why, "encrypted") {
		t.Errorf("auditable %v %q (%v)", ok, why, err)
	}
}

// TestRunWarnsAndRefuses: a file of another format is a warning; a run
// that finds no session writes nothing; a non-empty output is refused.
func TestRunWarnsAndRefuses(t *testing.T) {
	sum, _, warns := run(t, agents.Codex, filepath.Join(testdata, "codex"), filepath.Join(testdata, "claude-code/dag_compact_after_rewind.jsonl"))
	if sum.Sessions != 4 || sum.Bundles != 2 {
		t.Errorf("summary %+v", sum)
	}
	found := false
	for _, w := range warns {
		found = found || strings.Contains(w, "a claude-code file, not a codex session; skipped")
	}
	if !found {
		t.Errorf("warnings %q", warns)
	}
	pack, _ := prompt.Builtin("codex")
	out := filepath.Join(t.TempDir(), "o")
	_, err := Run(context.Background(), Options{Agent: agents.Codex, Paths: []string{filepath.Join(testdata, "swe-agent")}, OutDir: out, Pack: pack}, Hooks{})
	var none *NoSessionsError
	if !errors.As(err, &none) {
		t.Errorf("err %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output written for nothing: %v", err)
	}
	os.MkdirAll(filepath.Join(out, "x"), 0o755)
	_, err = Run(context.Background(), Options{Agent: agents.Codex, Paths: []string{filepath.Join(testdata, "codex")}, OutDir: out, Pack: pack}, Hooks{})
	if !errors.Is(err, extract.ErrOutputNotEmpty) {
		t.Errorf("err %v", err)
	}
}

func TestFindSessionsAndDefaultDir(t *testing.T) {
	got, err := FindSessions(agents.ClaudeCode, []string{filepath.Join(testdata, "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		if strings.Contains(p, "subagents") {
			t.Errorf("a subagent file listed as a session: %s", p)
		}
	}
	if len(got) != 5 {
		t.Errorf("sessions %q", got)
	}
	env := map[string]string{"HOME": "/h"}
	getenv := func(k string) string { return env[k] }
	if d, _ := DefaultDir(agents.ClaudeCode, getenv); d != "/h/.claude/projects" {
		t.Errorf("claude dir %s", d)
	}
	if d, _ := DefaultDir(agents.Codex, getenv); d != "/h/.codex/sessions" {
		t.Errorf("codex dir %s", d)
	}
	env["CODEX_HOME"], env["CLAUDE_CONFIG_DIR"] = "/c", "/cc"
	if d, _ := DefaultDir(agents.Codex, getenv); d != "/c/sessions" {
		t.Errorf("codex dir %s", d)
	}
	if d, _ := DefaultDir(agents.ClaudeCode, getenv); d != "/cc/projects" {
		t.Errorf("claude dir %s", d)
	}
}

// TestRealClaudeCodeSession: claude-code-log's public fixture of an
// automatic compaction after a rewind: one bundle, its actual-output.md
// the recorded summary byte for byte, its history the thread before the
// boundary (the rewound branch left out).
func TestRealClaudeCodeSession(t *testing.T) {
	f := filepath.Join(testdata, "claude-code/dag_compact_after_rewind.jsonl")
	sum, out, _ := run(t, agents.ClaudeCode, f)
	if sum.Bundles != 1 {
		t.Fatalf("summary %+v", sum)
	}
	dir := filepath.Join(out, "001-start", "compression-001")
	got, _ := os.ReadFile(filepath.Join(dir, bundle.FileActual))
	if string(got) != "This session is being continued from a previous conversation that ran out of context. Summary: the user asked for a plan." {
		t.Errorf("actual-output.md %q", got)
	}
	h, _ := os.ReadFile(filepath.Join(dir, bundle.FileCompact))
	if string(h) != "<user>Start</user>\n<assistant>Ready</assistant>\n<user>Second attempt</user>\n<assistant>Second answer</assistant>\n<user>Keep going</user>\n<assistant>Kept going</assistant>" {
		t.Errorf("history %q", h)
	}
	md := readMeta(t, dir)
	if md["trigger"] != "auto" || md["recordedPreTokens"] != 150000.0 || md["boundaryLine"] != 9.0 {
		t.Errorf("metadata %v", md)
	}
}

// TestRealClaudeCodeCorpusFiles: real sessions of Claude Code 2.0.76 to
// 2.1.42 from the entireio/cli checkpoint corpus (MIT): every recorded
// compaction becomes a bundle whose actual-output.md is the recorded
// summary and whose compact history is not empty; a file copied from the
// middle of a session says so in its first bundle's metadata.
func TestRealClaudeCodeCorpusFiles(t *testing.T) {
	dir := t.TempDir()
	want := 0
	var paths []string
	entries, err := os.ReadDir(filepath.Join(testdata, "claude-code", "entire"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".gz")
		data := testfiles.Gunzip(t, filepath.Join(testdata, "claude-code", "entire", e.Name()))
		want += strings.Count(string(data), `"subtype":"compact_boundary"`)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	sum, out, warns := run(t, agents.ClaudeCode, paths...)
	if want < 8 || sum.Bundles != want || sum.Unauditable != 0 {
		t.Fatalf("%d bundles (%d unauditable) of %d recorded compactions; warnings %v", sum.Bundles, sum.Unauditable, want, warns)
	}
	partial := 0
	for _, ps := range sum.PerSession {
		if len(ps.Missed) != 0 {
			t.Errorf("%s: missed %+v", ps.File, ps.Missed)
		}
		if ps.Partial != "" {
			partial++
		}
	}
	if partial != 3 {
		t.Errorf("%d sessions read as copied from the middle, want 3 (the 2.0.76, 2.1.7 and 2.1.14 files start mid-session)", partial)
	}
	bundles, _ := filepath.Glob(filepath.Join(out, "*", "compression-*"))
	if len(bundles) != want {
		t.Fatalf("%d bundle directories", len(bundles))
	}
	for _, b := range bundles {
		h, err := os.ReadFile(filepath.Join(b, bundle.FileCompact))
		if err != nil || len(strings.TrimSpace(string(h))) < 100 {
			t.Errorf("%s: compact history %d bytes (%v)", b, len(h), err)
		}
		a, err := os.ReadFile(filepath.Join(b, bundle.FileActual))
		if err != nil || !strings.HasPrefix(string(a), "This session is being continued from a previous conversation") {
			t.Errorf("%s: actual-output.md %.80q (%v)", b, a, err)
		}
		// What the session did next: never the summary itself; its turns
		// are the ones the next compaction of the session compacts.
		c, err := os.ReadFile(filepath.Join(b, bundle.FileContinuation))
		cont := mdtext.ParseContinuation(string(c))
		if err != nil || len(cont.Turns) == 0 || strings.Contains(string(c), "This session is being continued") {
			t.Errorf("%s: continuation %d bytes, %d turns (%v)", b, len(c), len(cont.Turns), err)
			continue
		}
		n := bundle.CompressionOf(b)
		nextH, err := os.ReadFile(filepath.Join(filepath.Dir(b), bundle.CompressionDirName(n+1), bundle.FileCompact))
		if err != nil {
			continue // the session's last compaction
		}
		compacted := map[string]bool{}
		for _, tr := range mdtext.ParseHistory(string(nextH)).Turns {
			compacted[tr.Role+"\x00"+tr.Text] = true
		}
		for _, tr := range cont.Turns {
			if tr.Role != mdtext.FromOutput && !compacted[tr.Role+"\x00"+tr.Text] {
				t.Errorf("%s: continuation turn %.80q is not in %s's compact history", b, tr.Text, bundle.CompressionDirName(n+1))
				break
			}
		}
	}
	// Without it, the same bundles and no continuation.
	sum2, out2, _ := runOpts(t, Options{Agent: agents.ClaudeCode, Paths: paths, NoContinuation: true})
	if sum2.Bundles != want {
		t.Errorf("--no-continuation: %d bundles", sum2.Bundles)
	}
	if found, _ := filepath.Glob(filepath.Join(out2, "*", "compression-*", bundle.FileContinuation)); len(found) != 0 {
		t.Errorf("--no-continuation wrote %d continuations", len(found))
	}
}

// TestMissedCompactionsNamed: a compaction with nothing before it gives
// no empty bundle; the file says "M of N compactions extracted" and names
// the miss with its line.
func TestMissedCompactionsNamed(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"Fix the parser"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Fixed."}]}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"logicalParentUuid":"a1","sessionId":"s","compactMetadata":{"trigger":"manual","preTokens":100}}`,
		`{"type":"user","uuid":"s1","parentUuid":"b1","isCompactSummary":true,"sessionId":"s","message":{"role":"user","content":"first summary"}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"b2","parentUuid":null,"logicalParentUuid":"s1","sessionId":"s","compactMetadata":{"trigger":"manual","preTokens":90}}`,
		`{"type":"user","uuid":"s2","parentUuid":"b2","isCompactSummary":true,"sessionId":"s","message":{"role":"user","content":"second summary"}}`,
		`{"type":"user","uuid":"u2","parentUuid":"s2","sessionId":"s","message":{"role":"user","content":"Next"}}`,
	}
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, out, warns := run(t, agents.ClaudeCode, p)
	if sum.Bundles != 2 {
		// The second compaction replaced nothing but the first summary:
		// a bundle whose history is that summary.
		t.Fatalf("bundles %d, warnings %v", sum.Bundles, warns)
	}
	h, _ := os.ReadFile(filepath.Join(out, "001-fix-the-parser", "compression-002", bundle.FileCompact))
	if !strings.Contains(string(h), "first summary") {
		t.Errorf("second history %q", h)
	}
	// A boundary with no message at all before it: named, not written.
	lines = append([]string{`{"type":"system","subtype":"compact_boundary","uuid":"b0","parentUuid":null,"sessionId":"s","compactMetadata":{"trigger":"manual","preTokens":5}}`,
		`{"type":"user","uuid":"s0","parentUuid":"b0","isCompactSummary":true,"sessionId":"s","message":{"role":"user","content":"empty summary"}}`}, lines...)
	lines[2] = strings.Replace(lines[2], `"parentUuid":null`, `"parentUuid":"s0"`, 1)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, _, warns = run(t, agents.ClaudeCode, p)
	if sum.Bundles != 2 || len(sum.PerSession) != 1 || len(sum.PerSession[0].Missed) != 1 || sum.PerSession[0].Missed[0].Line != 1 {
		t.Fatalf("summary %+v", sum.PerSession)
	}
	said := false
	for _, w := range warns {
		if strings.Contains(w, "2 of 3 compactions extracted; compaction 1 (line 1): no message of the session stands before it") {
			said = true
		}
	}
	if !said {
		t.Errorf("warnings %v", warns)
	}
}
