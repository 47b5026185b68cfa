package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtractFromOTelThenReplayEvalDiffReport is the user's path on
// OpenTelemetry traces, both spellings: extract --from otel writes one
// bundle per recorded compaction; replay with the built-in model, eval,
// diff and report read them unchanged, each exit 0.
func TestExtractFromOTelThenReplayEvalDiffReport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "otel")
	genai := filepath.Join(agentsTestdata, "otel", "genai-compaction.jsonl")
	oi := filepath.Join(agentsTestdata, "otel", "openinference-phoenix.json")
	code, stdout, errOut := runIn(t, nil, "extract", "--from", "otel", genai, oi, "--out", out)
	if code != 0 || stdout != "3 sessions, 3 bundles, 1 skipped -> "+out+"\n" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "has no compaction part") {
		t.Fatalf("extract: exit %d\n%s%s", code, stdout, errOut)
	}
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", out); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	code, stdout, errOut = runIn(t, nil, "eval", out)
	if code != 0 || !strings.Contains(stdout, "3 bundles") {
		t.Errorf("eval: exit %d\n%s%s", code, stdout, errOut)
	}
	if code, stdout, errOut := runIn(t, nil, "diff", "--stat", out); code != 0 || !strings.Contains(stdout, "3 bundles compared") {
		t.Errorf("diff: exit %d\n%s%s", code, stdout, errOut)
	}
	page := filepath.Join(dir, "report.html")
	if code, stdout, errOut := runIn(t, nil, "report", out, "-o", page); code != 0 {
		t.Errorf("report: exit %d\n%s%s", code, stdout, errOut)
	}
	if st, err := os.Stat(page); err != nil || st.Size() == 0 {
		t.Errorf("report page: %v", err)
	}
}

// TestExtractFromOTelWithoutContent: a trace that records no message
// content says so in one warning, with what can still be done, then one
// line that nothing was written: exit 2.
func TestExtractFromOTelWithoutContent(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o")
	nc := filepath.Join(agentsTestdata, "otel", "no-content.jsonl")
	code, stdout, errOut := runIn(t, nil, "extract", "--from", "otel", nc, "--out", out)
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if code != 2 || stdout != "" || len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "compact extract: warning: "+nc+" holds no message content: its model calls record none (") ||
		!strings.Contains(lines[0], "compact simulate "+nc+" still reads its token side") ||
		!strings.HasSuffix(lines[1], "records message content, so there is no history to bundle; nothing written") {
		t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("wrote the output directory")
	}
	// simulate reads its token side: when every strategy would first
	// compact, where the agent did, the recorded cost, and what it cannot
	// say with how to get it.
	for _, args := range [][]string{{"simulate", nc, "--context-window", "20000"}, {"simulate", nc, "--against-recorded", "--context-window", "20000"}} {
		code, stdout, errOut = simRun(t, "", args...)
		if code != 0 || !strings.Contains(errOut, "no message content") || !strings.Contains(stdout, "no message content, the token side only") ||
			!strings.Contains(stdout, "the agent compacted after call 3") || strings.Count(stdout, "  20,000  ") != 10 ||
			!strings.Contains(stdout, "recorded cost at ") || !strings.Contains(stdout, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true") {
			t.Errorf("%q: exit %d\n%s%s", args, code, stdout, errOut)
		}
	}
	if code, _, errOut := simRun(t, "", "simulate", nc, "--sweep", "context_window=10000:20000:10000"); code != 2 || !strings.Contains(errOut, "without --sweep") {
		t.Errorf("sweep: exit %d: %s", code, errOut)
	}
}

// TestExtractFromOTelBadLine: a line of a trace file that is not JSON is
// one warning naming the file and the line; the rest is read.
func TestExtractFromOTelBadLine(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(agentsTestdata, "otel", "genai-compaction.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	broken := filepath.Join(dir, "traces.jsonl")
	if err := os.WriteFile(broken, []byte(strings.Join(lines[:3], "")+"{\"resourceSpans\": [oops\n"+strings.Join(lines[3:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	outs := t.TempDir()
	code, stdout, errOut := runIn(t, nil, "extract", "--from", "otel", broken, "--out", filepath.Join(outs, "o"))
	if code != 0 || !strings.HasPrefix(stdout, "2 sessions, 2 bundles") ||
		errOut != "compact extract: warning: "+broken+": line 4: not JSON (invalid character 'o' looking for beginning of value at byte 16); left out\n" {
		t.Errorf("exit %d\n%s%s", code, stdout, errOut)
	}
	// A trace file that is not JSON at all is told apart by Sniff.
	notJSON := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(notJSON, []byte("{oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runIn(t, nil, "extract", "--from", "otel", notJSON, "--out", filepath.Join(outs, "o2"))
	if code != 2 || !strings.Contains(errOut, notJSON+": not a history compact reads") || !strings.Contains(errOut, "no OTLP JSON trace file under") {
		t.Errorf("not JSON: exit %d\n%s", code, errOut)
	}
}

// TestSimulateOTel: simulate reads a trace file's first conversation,
// sniffed or named by --format otel, and names the others.
func TestSimulateOTel(t *testing.T) {
	genai := filepath.Join(agentsTestdata, "otel", "genai-compaction.jsonl")
	for _, args := range [][]string{{"simulate", genai, "--against-recorded"}, {"simulate", "--format", "otel", genai, "--against-recorded"}} {
		code, stdout, errOut := simRun(t, "", args...)
		if code != 0 || !strings.Contains(stdout, genai+" (otel session conv_shop_7f3a)") || !strings.Contains(stdout, "the agent compacted 2 times") ||
			!strings.Contains(errOut, "1 conversation more (conv_docs_2b1c)") {
			t.Errorf("%q: exit %d\n%s%s", args, code, stdout, errOut)
		}
	}
}

// TestExtractFromOpenInference: openinference is the same reader under
// the name of its conventions: the same bundles, its own default output
// directory; the shell completes it, and an unknown name lists it.
func TestExtractFromOpenInference(t *testing.T) {
	dir := t.TempDir()
	oi := filepath.Join(agentsTestdata, "otel", "openinference-phoenix.json")
	code, stdout, errOut := runIn(t, nil, "extract", "--from", "openinference", oi, "--out", filepath.Join(dir, "oi"))
	if code != 0 || stdout != "1 session, 1 bundle, 0 skipped -> "+filepath.Join(dir, "oi")+"\n" {
		t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
	}
	md, err := os.ReadFile(filepath.Join(dir, "oi", "001-move-the-meeting-notes-from-notes2026-05-01md-into-notesm", "compression-001", "metadata.json"))
	if err != nil || !strings.Contains(string(md), `"agent": "otel"`) || !strings.Contains(string(md), `"spanId": "b000000000000005"`) {
		t.Errorf("metadata: %v\n%s", err, md)
	}
	if _, out, _ := runIn(t, nil, "__complete", "extract", "--from", ""); !strings.Contains(out, "otel\nopeninference\n") {
		t.Errorf("completion:\n%s", out)
	}
	if code, _, errOut := runIn(t, nil, "extract", "--from", "phoenix", oi); code != 2 || !strings.Contains(errOut, "otel or openinference") && !strings.Contains(errOut, "otel, openinference") {
		t.Errorf("unknown: exit %d: %s", code, errOut)
	}
}

// TestExtractFromOTelLogsAndLangfuse: the other spellings' bundles go
// through replay, eval (with --otel, each event linked to the span of its
// compaction), diff and report unchanged: a traces file with its calls'
// content in a logs file beside it, and Langfuse's trace download.
func TestExtractFromOTelLogsAndLangfuse(t *testing.T) {
	otel := filepath.Join(agentsTestdata, "otel")
	for _, tc := range []struct {
		name    string
		files   []string
		summary string
		spans   []string // the compactions' spans, by compression number
	}{
		{"logs", []string{"genai-logs-traces.jsonl", "genai-logs.jsonl"}, "2 sessions, 1 bundle, 1 skipped", []string{"600000000000004a"}},
		{"langfuse", []string{"langfuse-trace.json"}, "3 sessions, 2 bundles, 1 skipped", []string{"c700000000000004", "b700000000000004"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "b")
			args := []string{"extract", "--from", "otel", "--out", out}
			for _, f := range tc.files {
				args = append(args, filepath.Join(otel, f))
			}
			code, stdout, errOut := runIn(t, nil, args...)
			if code != 0 || stdout != tc.summary+" -> "+out+"\n" {
				t.Fatalf("extract: exit %d\n%s%s", code, stdout, errOut)
			}
			if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", out); code != 0 {
				t.Fatalf("replay: exit %d: %s", code, errOut)
			}
			events := filepath.Join(dir, "ev.jsonl")
			if code, stdout, errOut := runIn(t, nil, "eval", out, "--otel", events); code != 0 {
				t.Fatalf("eval: exit %d\n%s%s", code, stdout, errOut)
			}
			_, _, evs := readEvalOTel(t, events)
			spans := map[string]bool{}
			for _, e := range evs {
				spans[e.spanID] = true
				if e.traceID == "" || e.attrs["gen_ai.conversation.id"] == "" {
					t.Errorf("event without its link: %v", e.attrs)
				}
			}
			for _, sp := range tc.spans {
				if !spans[sp] {
					t.Errorf("no event on span %s: %v", sp, spans)
				}
			}
			if len(evs) != 4*len(tc.spans) || len(spans) != len(tc.spans) {
				t.Errorf("%d events on spans %v", len(evs), spans)
			}
			if code, stdout, errOut := runIn(t, nil, "diff", "--stat", out); code != 0 || !strings.Contains(stdout, "builtin") {
				t.Errorf("diff: exit %d\n%s%s", code, stdout, errOut)
			}
			if code, stdout, errOut := runIn(t, nil, "report", out, "-o", filepath.Join(dir, "r.html")); code != 0 {
				t.Errorf("report: exit %d\n%s%s", code, stdout, errOut)
			}
		})
	}
}
