package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/simulate"
	"github.com/compactlab/compact/internal/strategy"
)

var updateSimulate = flag.Bool("update-simulate", false, "rewrite cmd/testdata/simulate golden files")

// simRun runs compact in-process with an empty environment (no user
// configuration, no keys).
func simRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	io, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	code := RunEnv(io, args, func(string) string { return "" })
	return code, out.String(), errOut.String()
}

// simSampleDB copies the sample database to a temporary directory.
func simSampleDB(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "examples", "stagewise", "instances.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "instances.sqlite")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func simExample(name string) string { return filepath.Join("..", "examples", "histories", name) }

func simGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "simulate", name)
	if *updateSimulate {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd -run %s -update-simulate)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (rerun with -update-simulate after checking):\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first differing line.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\nwant: " + w + "\n got: " + g
		}
	}
	return "(same lines, different bytes)"
}

func TestSimulateAgainstRecordedGolden(t *testing.T) {
	db := simSampleDB(t)
	var transcript bytes.Buffer
	for _, args := range [][]string{
		{"--against-recorded"},
		{"--against-recorded", "--context-window", "16000"},
	} {
		code, out, errOut := simRun(t, "", append([]string{"simulate", "--db", db}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		transcript.WriteString("$ compact simulate --db instances.sqlite " + strings.Join(args, " ") + "\n")
		transcript.WriteString(out)
		transcript.WriteString("\n")
	}
	simGolden(t, "against-recorded.golden", transcript.String())
}

func TestSimulateAgainstRecordedJSON(t *testing.T) {
	db := simSampleDB(t)
	code, out, errOut := simRun(t, "", "simulate", "--db", db, "--against-recorded", "--context-window", "16000", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Chats []simulate.RecordedChat `json:"chats"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Chats) != 6 {
		t.Fatalf("%d chats", len(got.Chats))
	}
	recorded := 0
	for _, c := range got.Chats {
		if len(c.Matches)+len(c.Misses) != c.Recorded {
			t.Errorf("chat %s: %d matches + %d misses != %d recorded", c.Chat, len(c.Matches), len(c.Misses), c.Recorded)
		}
		if len(c.Matches)+len(c.Extra) != c.Simulated {
			t.Errorf("chat %s: %d matches + %d extra != %d simulated", c.Chat, len(c.Matches), len(c.Extra), c.Simulated)
		}
		for _, m := range c.Matches {
			if m.RecordedChars == 0 || m.SimulatedChars == 0 || m.Step == 0 {
				t.Errorf("chat %s: match without figures: %+v", c.Chat, m)
			}
		}
		recorded += c.Recorded
	}
	if recorded != 7 {
		t.Errorf("%d recorded boundaries, want the sample's 7", recorded)
	}
}

func TestSimulateCompareAndSweepOnSampleDatabase(t *testing.T) {
	db := simSampleDB(t)
	all := strings.Join(strategy.Names(), ",")
	start := time.Now()
	code, out, errOut := simRun(t, "", "simulate", "--db", db, "--compare", all)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	t.Logf("--compare %s on the sample database: %v", all, time.Since(start))
	for _, name := range strategy.Names() {
		if !strings.Contains(out, "\n  "+name+" ") {
			t.Errorf("compare table has no row for %s:\n%s", name, out)
		}
	}
	if !strings.HasPrefix(out, "6 chats; summarizer builtin\n") {
		t.Errorf("compare heading:\n%s", out)
	}

	start = time.Now()
	code, out, errOut = simRun(t, "", "simulate", "--db", db, "--sweep", "threshold=0.4:0.8:0.05", "--context-window", "16000")
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errOut)
	}
	t.Logf("--sweep threshold=0.4:0.8:0.05 on the sample database: %v", time.Since(start))
	var got []string
	rows, _, _ := strings.Cut(out, "\noffline probe scores") // the first table
	for _, line := range strings.Split(rows, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[1] == "stagewise" {
			got = append(got, f[0])
		}
	}
	if strings.Join(got, " ") != "0.4 0.45 0.5 0.55 0.6 0.65 0.7 0.75 0.8" {
		t.Errorf("sweep rows for %v:\n%s", got, out)
	}

	start = time.Now()
	code, out, errOut = simRun(t, "", "simulate", "--db", db, "--sweep", "threshold=0.4:0.8:0.05", "--compare", all, "--json")
	if code != 0 {
		t.Fatalf("sweep --compare --json: exit %d: %s", code, errOut)
	}
	t.Logf("--sweep with --compare of every strategy, JSON: %v", time.Since(start))
	var sw struct {
		Knob   string         `json:"knob"`
		Values []float64      `json:"values"`
		Rows   []simulate.Row `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &sw); err != nil {
		t.Fatal(err)
	}
	if sw.Knob != "threshold" || len(sw.Values) != 9 || len(sw.Rows) != 9*len(strategy.Names()) {
		t.Errorf("knob %q, %d values, %d rows", sw.Knob, len(sw.Values), len(sw.Rows))
	}
	for _, r := range sw.Rows {
		if r.Value == nil || r.Chats != 6 {
			t.Errorf("row %+v", r)
		}
	}
}

func TestSimulateTimelineOfAChat(t *testing.T) {
	db := simSampleDB(t)
	code, out, errOut := simRun(t, "", "simulate", "--db", db, "--chat", "ff5dc157-1738-4824-a458-f29a0cd9d0fb", "--context-window", "16000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`chat ff5dc157-1738-4824-a458-f29a0cd9d0fb "Add dark mode with a header toggle"`,
		"strategy stagewise, summarizer builtin, context window 16,000; 62 messages, 31 steps",
		"  step  message  context  fired  boundary  kept  summary  after  rejected",
		"context tokens per step; ^ compaction, x rejected by a guardrail",
		"must-keep retention of the final summary: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "^") == 0 {
		t.Errorf("no compaction marked under the chart:\n%s", out)
	}
	// Two runs give the same bytes.
	_, again, _ := simRun(t, "", "simulate", "--db", db, "--chat", "ff5dc157-1738-4824-a458-f29a0cd9d0fb", "--context-window", "16000")
	if again != out {
		t.Error("the output is not deterministic")
	}
}

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
		{"not a history", []string{simNotes(t)}, "not a history compact reads (tried claude-code, codex, swe-agent and the generic JSONL)"},
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

// simReadmeExamples are the simulate commands README.md shows on the
// shipped sample; TestSimulateReadmeExamples runs them and every
// `compact simulate` line of README.md.
var simReadmeExamples = []string{
	"compact simulate --db examples/stagewise/instances.sqlite --chat ff5dc157-1738-4824-a458-f29a0cd9d0fb --context-window 16000",
	"compact simulate --db examples/stagewise/instances.sqlite --compare stagewise,onyx,summary-buffer,sliding-window,selective-prune --context-window 6000",
	"compact simulate --db examples/stagewise/instances.sqlite --sweep context_window=4000:16000:4000 --compare stagewise,summary-buffer",
	"compact simulate --db examples/stagewise/instances.sqlite --against-recorded --context-window 10000",
}

// readmeSimulateLines lists the simulate commands of README.md's ```sh
// blocks ("compact simulate …" or "go run . simulate …"), continuation
// lines joined.
func readmeSimulateLines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	inSh := false
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "```") {
			inSh = !inSh && l == "```sh"
			continue
		}
		for inSh && strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		if k := strings.Index(l, " #"); k >= 0 {
			l = l[:k]
		}
		l = strings.Replace(l, "go run . simulate", "compact simulate", 1)
		if inSh && strings.HasPrefix(l, "compact simulate") {
			out = append(out, l)
		}
	}
	return out
}

// simCompactions runs args (plus --json) and counts the compactions of
// each strategy: over the histories of timelines, per row of a comparison
// or a sweep (the most of any value), the simulated boundaries against
// recorded ones.
func simCompactions(t *testing.T, args []string) map[string]int {
	t.Helper()
	code, out, errOut := simRun(t, "", append(args, "--json")...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	// Timelines name their strategy and give histories as objects; a
	// comparison gives their names.
	var got struct {
		Strategy  string                  `json:"strategy"`
		Histories json.RawMessage         `json:"histories"`
		Rows      []simulate.Row          `json:"rows"`
		Chats     []simulate.RecordedChat `json:"chats"`
		// Against the compactions of agents' sessions.
		Sessions []simulate.AgentRecorded `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	var timelines []simulate.HistoryTimeline
	if got.Strategy != "" {
		if err := json.Unmarshal(got.Histories, &timelines); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	n := map[string]int{}
	for _, h := range timelines {
		n[got.Strategy] += h.Timeline.Compactions
	}
	for _, r := range got.Rows {
		n[r.Strategy] = max(n[r.Strategy], r.Compactions)
	}
	for _, c := range got.Chats {
		n[strategy.NameStagewise] += c.Simulated
	}
	for _, c := range got.Sessions {
		for _, st := range c.Strategies {
			n[st.Strategy] += len(st.Compactions)
		}
	}
	if len(n) == 0 {
		t.Fatalf("%v: no figures in %s", args, out)
	}
	return n
}

// TestSimulateReadmeExamples runs the simulate examples of the README and
// of --help on the shipped sample and example histories: each must show
// compactions for every strategy it names (or a hint whose window does),
// so that the examples cannot go stale.
func TestSimulateReadmeExamples(t *testing.T) {
	db := simSampleDB(t)
	cmds := append(append([]string(nil), simReadmeExamples...), readmeSimulateLines(t)...)
	// The examples of --help too.
	root, _ := NewRootCmd(iostreams.System())
	c, _, err := root.Find([]string{"simulate"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(c.Example, "\n") {
		cmds = append(cmds, strings.TrimSpace(l))
	}
	seen := map[string]bool{}
	for _, line := range cmds {
		if seen[line] {
			continue
		}
		seen[line] = true
		words := strings.Fields(line)[1:]
		uses := false
		for i, w := range words {
			switch {
			case w == "examples/stagewise/instances.sqlite":
				words[i], uses = db, true
			case strings.HasPrefix(w, "examples/"):
				words[i], uses = filepath.Join("..", w), true
			}
		}
		if !uses {
			continue // not on the shipped examples: the app's own database
		}
		t.Run(strings.Join(words[3:], " "), func(t *testing.T) {
			code, out, errOut := simRun(t, "", words...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if strings.Contains(errOut, "compact simulate: hint:") {
				// An example without knobs shows the hint; the
				// hint's window must then compact.
				words = simHintArgs(t, words, errOut)
			} else if strings.Contains(out, " 0 compactions,") && !strings.Contains(out, "^") {
				t.Errorf("nothing compacts:\n%s", out)
			}
			for name, n := range simCompactions(t, words) {
				if n == 0 {
					t.Errorf("%s: 0 compactions", name)
				}
			}
		})
	}
}

var simHintWindow = regexp.MustCompile(`try --context-window (\d+)\n`)

// simHintArgs checks the hint of errOut and returns args with its window.
func simHintArgs(t *testing.T, args []string, errOut string) []string {
	t.Helper()
	m := simHintWindow.FindStringSubmatch(errOut)
	if m == nil || strings.Count(errOut, "compact simulate: hint:") != 1 {
		t.Fatalf("want one hint with a window, got:\n%s", errOut)
	}
	return append(append([]string(nil), args...), "--context-window", m[1])
}

// TestSimulateHintWhenNothingCompacts runs the sample under the chats'
// own windows (200,000 and 400,000 tokens: nothing fires) and follows
// the hint.
func TestSimulateHintWhenNothingCompacts(t *testing.T) {
	db := simSampleDB(t)
	all := strings.Join(strategy.Names(), ",")
	tests := []struct {
		args []string
		hint string
	}{
		{[]string{"--db", db},
			"compact simulate: hint: no compaction fired: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 14000\n"},
		{[]string{"--db", db, "--against-recorded"},
			"compact simulate: hint: no compaction fired: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 14000\n"},
		{[]string{"--db", db, "--compare", "stagewise,onyx,summary-buffer"},
			"compact simulate: hint: no compaction fired for any strategy: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 4700\n"},
		// Observation masking fires at every step (its hybrid too) and
		// selective prune when a result is old enough; the rest need a
		// smaller window.
		{[]string{"--db", db, "--compare", all},
			"compact simulate: hint: no compaction fired for codex-user-retention, onyx, prune-summarize, sliding-window, stagewise, summary-buffer, tool-clearing: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 4700\n"},
		{[]string{"--db", db, "--sweep", "threshold=0.5:0.7:0.1"},
			"compact simulate: hint: no compaction fired: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 14000\n"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[2:], " "), func(t *testing.T) {
			args := append([]string{"simulate"}, tc.args...)
			code, out, errOut := simRun(t, "", args...)
			if code != 0 || errOut != tc.hint {
				t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s", code, errOut, tc.hint)
			}
			if strings.Contains(out, "hint") {
				t.Errorf("the hint is on stdout:\n%s", out)
			}
			for name, n := range simCompactions(t, simHintArgs(t, args, errOut)) {
				if n == 0 && name != strategy.NameSelectivePrune {
					t.Errorf("the hint's window: %s: 0 compactions", name)
				}
			}
			// --quiet drops it, --json keeps stdout JSON.
			if _, _, errOut := simRun(t, "", append(args, "-q")...); errOut != "" {
				t.Errorf("-q: stderr %q", errOut)
			}
		})
	}
	// A sweep of the window itself gives no hint.
	if code, _, errOut := simRun(t, "", "simulate", "--db", db, "--sweep", "context_window=300000"); code != 0 || errOut != "" {
		t.Errorf("sweep of context_window: exit %d, stderr %q", code, errOut)
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

// TestSimulateProbeScoresOnSampleDatabase: on the shipped sample every
// strategy's compactions are scored against probes mined from what they
// replaced, the text shows them in a second table of at most 120 columns,
// and --json carries each summary's text.
func TestSimulateProbeScoresOnSampleDatabase(t *testing.T) {
	db := simSampleDB(t)
	args := []string{"simulate", "--db", db, "--compare", "stagewise,onyx,summary-buffer,sliding-window,selective-prune", "--context-window", "6000"}
	code, out, errOut := simRun(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, table, ok := strings.Cut(out, "\noffline probe scores of what each compaction replaced (as compact eval scores a briefing):\n")
	if !ok {
		t.Fatalf("no probe table:\n%s", out)
	}
	table, _, _ = strings.Cut(table, "\n\n") // the cost table follows
	for _, l := range strings.Split(table, "\n") {
		if len([]rune(l)) > 120 {
			t.Errorf("a line of %d columns: %s", len([]rune(l)), l)
		}
	}
	if !strings.Contains(table, "  strategy         scored  probes") {
		t.Errorf("probe table heading:\n%s", table)
	}

	code, out, errOut = simRun(t, "", append(args, "--json")...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var got struct {
		Rows []simulate.Row `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != 5 {
		t.Fatalf("%d rows", len(got.Rows))
	}
	for _, row := range got.Rows {
		p := row.Probes
		if p == nil || p.Scored == 0 || p.Overall.Total == 0 || p.Scored != len(row.Summaries) {
			t.Errorf("%s: probe totals %+v over %d summaries", row.Strategy, p, len(row.Summaries))
			continue
		}
		total := 0
		for _, s := range row.Summaries {
			total += s.Overall.Total
			if s.Overall.Total-s.Overall.Kept != len(s.Lost) {
				t.Errorf("%s step %d: %d probes, %d kept, %d lost", row.Strategy, s.Step, s.Overall.Total, s.Overall.Kept, len(s.Lost))
			}
			summarizes := row.Strategy != "sliding-window" && row.Strategy != "selective-prune"
			if summarizes != (s.Replaced == simulate.ReplacedSummarized) || summarizes != (s.Summary != "") {
				t.Errorf("%s step %d: replaced %q, summary of %d bytes", row.Strategy, s.Step, s.Replaced, len(s.Summary))
			}
		}
		if total != p.Overall.Total {
			t.Errorf("%s: %d probes over the summaries, %d in the totals", row.Strategy, total, p.Overall.Total)
		}
	}
	// The same scores again.
	_, again, _ := simRun(t, "", append(args, "--json")...)
	if again != out {
		t.Error("the JSON is not deterministic")
	}
}
