package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/simulate"
	"github.com/compactlab/compact/internal/strategy"
)

func TestSimulateJSONLExamples(t *testing.T) {
	// hint is all of stderr: a run in which nothing compacts says which
	// window would make it.
	tests := []struct {
		name string
		args []string
		want []string
		hint string
	}{
		{"a list", []string{"--jsonl", simExample("linear.jsonl"), "--strategy", "sliding-window", "--context-window", "5200"},
			[]string{"linear.jsonl\n", "strategy sliding-window, summarizer builtin, context window 5,200; 23 messages, 10 steps", "  step  line  context  fired  boundary line"}, ""},
		{"a tree, newest leaf", []string{"--jsonl", simExample("branching.jsonl"), "--strategy", "onyx"},
			[]string{"branching.jsonl (branch to b25)", "20 messages, 8 steps"},
			"compact simulate: hint: no compaction fired: the largest context is 1% of its window (860 of 128,000 tokens); try --context-window 680"},
		{"a tree, newest leaf, the hint's window", []string{"--jsonl", simExample("branching.jsonl"), "--strategy", "onyx", "--context-window", "680"},
			[]string{"branching.jsonl (branch to b25)", "context window 680;"}, ""},
		{"a tree, chosen leaf", []string{"--jsonl", simExample("branching.jsonl"), "--leaf", "b11", "-q"},
			[]string{"branching.jsonl (branch to b11)", "11 messages, 4 steps"}, ""},
		{"compare", []string{"--jsonl", simExample("branching.jsonl"), "--compare", "stagewise,onyx,summary-buffer", "--tokenizer", "o200k", "--context-window", "1000"},
			[]string{"branching.jsonl (branch to b25); summarizer builtin", "summary-buffer "}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := simRun(t, "", append([]string{"simulate"}, tc.args...)...)
			if code != 0 || strings.TrimSpace(errOut) != tc.hint {
				t.Fatalf("exit %d, stderr %q; want 0 and %q", code, errOut, tc.hint)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestSimulateJSONLFromStdinAsJSON(t *testing.T) {
	data, err := os.ReadFile(simExample("linear.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := simRun(t, string(data), "simulate", "--jsonl", "-", "--strategy", "summary-buffer", "--context-window", "1200", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Strategy  string                     `json:"strategy"`
		Histories []simulate.HistoryTimeline `json:"histories"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Strategy != "summary-buffer" || len(got.Histories) != 1 {
		t.Fatalf("%+v", got)
	}
	h := got.Histories[0]
	if h.Name != "stdin" || h.Source != "jsonl" || h.Messages != 23 || len(h.Origin) != 23 || h.Origin[22] != 23 {
		t.Errorf("history: %s %s %d messages, origin %v", h.Name, h.Source, h.Messages, h.Origin)
	}
	if h.Timeline == nil || len(h.Timeline.Steps) != 10 {
		t.Fatalf("timeline: %+v", h.Timeline)
	}
	if h.Timeline.Compactions == 0 || h.Retention == nil || h.Retention.Items == 0 {
		t.Errorf("a 1,200-token window should make summary-buffer summarize: %d compactions, retention %+v", h.Timeline.Compactions, h.Retention)
	}
}

func TestSimulateBadJSONL(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	some := write("some.jsonl", `{"id":"u1","role":"user","content":"hi"}
{"id":"a1","role":"assistant","content":"hel
{"id":"x","role":"robot","content":"?"}
{"id":"t1","role":"tool","tool_call_id":"c9","content":"orphan"}
{"id":"a2","role":"assistant","content":"hello"}
{"id":"u3","parent_id":"nowhere","role":"user","content":"?"}
`)
	code, out, errOut := simRun(t, "", "simulate", "--jsonl", some, "--strategy", "onyx")
	if code != 0 {
		t.Fatalf("exit %d, want 0 when some lines are usable: %s", code, errOut)
	}
	for _, want := range []string{
		some + ": line 2: not JSON",
		some + `: line 3: unknown role "robot"`,
		some + `: line 4: tool message without its call: tool_call_id "c9"`,
		some + `: line 6: parent_id "nowhere" points nowhere`,
	} {
		if !strings.Contains(errOut, "compact simulate: warning: "+want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "; 1 message, 1 step\n") || !strings.Contains(out, "0 compactions, 0 rejected, 0 summarizer calls;") || !strings.Contains(out, "; 1 message verbatim at the end") {
		t.Errorf("the usable lines were not simulated (or a plural is wrong):\n%s", out)
	}

	none := write("none.jsonl", "garbage\n{\"id\":\"x\",\"role\":\"robot\"}\n")
	code, _, errOut = simRun(t, "", "simulate", "--jsonl", none)
	if code != 2 {
		t.Fatalf("exit %d, want 2 when no line is usable", code)
	}
	if !strings.Contains(errOut, none+": line 1: not JSON") || !strings.Contains(errOut, "compact simulate: "+none+": no usable line (2 problems reported above)") {
		t.Errorf("stderr:\n%s", errOut)
	}

	empty := write("empty.jsonl", "\n\n")
	if code, _, errOut = simRun(t, "", "simulate", "--jsonl", empty); code != 2 || !strings.Contains(errOut, "holds no message") {
		t.Errorf("empty file: exit %d: %s", code, errOut)
	}
	if code, _, errOut = simRun(t, "", "simulate", "--jsonl", filepath.Join(dir, "missing.jsonl")); code != 2 || !strings.Contains(errOut, "missing.jsonl") {
		t.Errorf("missing file: exit %d: %s", code, errOut)
	}
}

// simNotes is a file in no format compact reads.
func simNotes(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(p, []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSimulateUsageErrors(t *testing.T) {
	db := simSampleDB(t)
	jl := simExample("linear.jsonl")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"jsonl and db", []string{"--jsonl", jl, "--db", db}, "choose one"},
		{"leaf without jsonl", []string{"--db", db, "--leaf", "x"}, "--leaf chooses a branch of one history file"},
		{"unknown leaf", []string{"--jsonl", jl, "--leaf", "nope"}, `--leaf "nope": no message has that id`},
		{"unknown strategy", []string{"--db", db, "--strategy", "magic"}, `unknown strategy "magic"`},
		{"unknown strategy in compare", []string{"--db", db, "--compare", "onyx,magic"}, `unknown strategy "magic"`},
		{"bad sweep", []string{"--db", db, "--sweep", "threshold"}, "want knob=from:to:step"},
		{"unknown knob", []string{"--db", db, "--sweep", "colour=1:2:1"}, `unknown knob "colour"`},
		{"against recorded with jsonl", []string{"--jsonl", jl, "--against-recorded"}, "needs a stagewise database"},
		{"against recorded with compare", []string{"--db", db, "--against-recorded", "--compare", "onyx"}, "--compare goes with agents' session files"},
		{"against recorded with sweep", []string{"--db", db, "--against-recorded", "--sweep", "threshold=0.5"}, "does not go with --sweep"},
		{"format without a file", []string{"--db", db, "--format", "codex"}, "--format reads history files"},
		{"unknown format", []string{"--jsonl", jl, "--format", "cursor"}, `--format: unknown format "cursor"`},
		{"not a history", []string{simNotes(t)}, "not a history compact reads (tried claude-code, codex, swe-agent, OTLP JSON traces, opencode, gemini-cli and the generic JSONL)"},
		{"leaf of an agent's session", []string{"../testdata/agents/codex/rollout-44444444-4444-4444-8444-444444444444.jsonl", "--leaf", "x"}, "--leaf chooses a branch of a generic JSONL history"},
		{"against recorded with another strategy", []string{"--db", db, "--against-recorded", "--strategy", "onyx"}, "simulates the stagewise strategy"},
		{"recorded summaries of a jsonl", []string{"--jsonl", jl, "--summarizer", "recorded"}, "a history file has none"},
		{"unknown summarizer", []string{"--db", db, "--summarizer", "oracle"}, "want builtin, recorded, model:ID or cascade"},
		{"unknown model", []string{"--db", db, "--summarizer", "model:gpt-9"}, `unknown model "gpt-9"`},
		{"unknown tokenizer", []string{"--db", db, "--tokenizer", "p50k"}, `unknown tokenizer "p50k"`},
		{"negative window", []string{"--db", db, "--context-window", "-1"}, "not a negative one"},
		{"unknown chat", []string{"--db", db, "--chat", "nope"}, "no such chat in " + db + ": nope"},
		{"unknown channel", []string{"--channel", "beta"}, `unknown channel "beta"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := simRun(t, "", append([]string{"simulate"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tc.want)
			}
		})
	}
	// A path that is not there is exit 2, as for every command (issue 29).
	if code, _, errOut := simRun(t, "", "simulate", "--db", filepath.Join(t.TempDir(), "none.sqlite")); code != 2 || !strings.Contains(errOut, "database not found") {
		t.Errorf("missing database: exit %d: %s", code, errOut)
	}
}

// TestSimulateFlags checks the flags' wiring: the shared --channel and
// -j/--jobs, completion of the fixed values, and help text a reader can
// use.
func TestSimulateFlags(t *testing.T) {
	complete := func(args ...string) []string {
		t.Helper()
		code, out, errOut := simRun(t, "", append([]string{"__complete", "simulate"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var vals []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasPrefix(l, ":") {
				vals = append(vals, strings.SplitN(l, "\t", 2)[0])
			}
		}
		return vals
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--strategy", ""}, strings.Join(strategy.Names(), " ")},
		{[]string{"--channel", ""}, "release prerelease nightly dev"},
		{[]string{"--tokenizer", ""}, strings.Join(strategy.Tokenizers, " ")},
		{[]string{"--compare", "stagewise,o"}, "stagewise,observation-masking stagewise,onyx"},
		{[]string{"--compare", "onyx,sliding-window,tool-clearing,codex-user-retention,mask-then-summarize,observation-masking,"},
			"onyx,sliding-window,tool-clearing,codex-user-retention,mask-then-summarize,observation-masking,prune-summarize " +
				"onyx,sliding-window,tool-clearing,codex-user-retention,mask-then-summarize,observation-masking,selective-prune " +
				"onyx,sliding-window,tool-clearing,codex-user-retention,mask-then-summarize,observation-masking,stagewise " +
				"onyx,sliding-window,tool-clearing,codex-user-retention,mask-then-summarize,observation-masking,summary-buffer"},
		{[]string{"--sweep", "thr"}, "threshold="},
	}
	for _, tc := range tests {
		got := complete(tc.args...)
		var match []string
		for _, v := range got {
			if strings.HasPrefix(v, tc.args[len(tc.args)-1]) {
				match = append(match, v)
			}
		}
		if strings.Join(match, " ") != tc.want {
			t.Errorf("complete %v = %v, want %s", tc.args, match, tc.want)
		}
	}
	sums := strings.Join(complete("--summarizer", ""), " ")
	for _, want := range []string{"builtin", "recorded", "cascade", "model:builtin"} {
		if !slices.Contains(strings.Fields(sums), want) {
			t.Errorf("--summarizer completes %q, lacking %s", sums, want)
		}
	}

	root, _ := NewRootCmd(iostreams.System())
	c, _, err := root.Find([]string{"simulate"})
	if err != nil {
		t.Fatal(err)
	}
	if fl := c.Flags().ShorthandLookup("j"); fl == nil || fl.Name != "jobs" {
		t.Errorf("-j is not --jobs: %+v", fl)
	}
	code, out, _ := simRun(t, "", "simulate", "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 160 {
			t.Errorf("help line of %d characters: %s", len([]rune(l)), l)
		}
		if strings.Contains(l, "`") {
			t.Errorf("backtick in help: %s", l)
		}
	}
	for _, k := range simulate.KnobNames() {
		if !strings.Contains(out, k) {
			t.Errorf("help does not name the knob %s", k)
		}
	}
	if code, _, errOut := simRun(t, "", "simulate", "--db", simSampleDB(t), "--jobs", "-1"); code != 2 || !strings.Contains(errOut, "want 0 (one per CPU) or more") {
		t.Errorf("--jobs -1: exit %d: %s", code, errOut)
	}
}

// TestSimulateInterrupted checks that a cancelled run exits 130.
func TestSimulateInterrupted(t *testing.T) {
	db := simSampleDB(t)
	io, _, _, _ := iostreams.Test()
	root, f := NewRootCmd(io)
	f.Getenv = func(string) string { return "" }
	root.SetArgs([]string{"simulate", "--db", db, "--compare", "stagewise,onyx"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := root.ExecuteContext(ctx)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != exitInterrupted {
		t.Errorf("err = %v, want exit %d", err, exitInterrupted)
	}
}
