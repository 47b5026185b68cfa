package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/iostreams"
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
		Chats []recChat `json:"chats"`
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
	for _, line := range strings.Split(out, "\n") {
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
		Knob   string    `json:"knob"`
		Values []float64 `json:"values"`
		Rows   []simRow  `json:"rows"`
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
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"a list", []string{"--jsonl", simExample("linear.jsonl"), "--strategy", "sliding-window", "--context-window", "5200"},
			[]string{"linear.jsonl\n", "strategy sliding-window, summarizer builtin, context window 5,200; 23 messages, 10 steps", "  step  line  context  fired  boundary line"}},
		{"a tree, newest leaf", []string{"--jsonl", simExample("branching.jsonl"), "--strategy", "onyx"},
			[]string{"branching.jsonl (branch to b25)", "20 messages, 8 steps"}},
		{"a tree, chosen leaf", []string{"--jsonl", simExample("branching.jsonl"), "--leaf", "b11"},
			[]string{"branching.jsonl (branch to b11)", "11 messages, 4 steps"}},
		{"compare", []string{"--jsonl", simExample("branching.jsonl"), "--compare", "stagewise,onyx,summary-buffer", "--tokenizer", "o200k"},
			[]string{"branching.jsonl (branch to b25); summarizer builtin", "summary-buffer "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := simRun(t, "", append([]string{"simulate"}, tc.args...)...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
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
		Strategy  string            `json:"strategy"`
		Histories []simTimelineJSON `json:"histories"`
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
		if !strings.Contains(errOut, "compact: warning: "+want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "1 steps") && !strings.Contains(out, "; 2 messages, 1 steps") {
		t.Errorf("the usable lines were not simulated:\n%s", out)
	}

	none := write("none.jsonl", "garbage\n{\"id\":\"x\",\"role\":\"robot\"}\n")
	code, _, errOut = simRun(t, "", "simulate", "--jsonl", none)
	if code != 2 {
		t.Fatalf("exit %d, want 2 when no line is usable", code)
	}
	if !strings.Contains(errOut, none+": line 1: not JSON") || !strings.Contains(errOut, "compact: simulate: "+none+": no usable line (2 problems reported above)") {
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

func TestSimulateUsageErrors(t *testing.T) {
	db := simSampleDB(t)
	jl := simExample("linear.jsonl")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"jsonl and db", []string{"--jsonl", jl, "--db", db}, "choose one"},
		{"leaf without jsonl", []string{"--db", db, "--leaf", "x"}, "--leaf chooses a branch of a --jsonl history"},
		{"unknown leaf", []string{"--jsonl", jl, "--leaf", "nope"}, `--leaf "nope": no message has that id`},
		{"unknown strategy", []string{"--db", db, "--strategy", "magic"}, `unknown strategy "magic"`},
		{"unknown strategy in compare", []string{"--db", db, "--compare", "onyx,magic"}, `unknown strategy "magic"`},
		{"bad sweep", []string{"--db", db, "--sweep", "threshold"}, "want knob=from:to:step"},
		{"unknown knob", []string{"--db", db, "--sweep", "colour=1:2:1"}, `unknown knob "colour"`},
		{"against recorded with jsonl", []string{"--jsonl", jl, "--against-recorded"}, "needs a stagewise database"},
		{"against recorded with compare", []string{"--db", db, "--against-recorded", "--compare", "onyx"}, "goes with neither"},
		{"against recorded with another strategy", []string{"--db", db, "--against-recorded", "--strategy", "onyx"}, "simulates the stagewise strategy"},
		{"recorded summaries of a jsonl", []string{"--jsonl", jl, "--summarizer", "recorded"}, "a JSONL history has none"},
		{"unknown summarizer", []string{"--db", db, "--summarizer", "oracle"}, "want builtin, recorded, model:ID or cascade"},
		{"unknown model", []string{"--db", db, "--summarizer", "model:gpt-9"}, `unknown model "gpt-9"`},
		{"unknown tokenizer", []string{"--db", db, "--tokenizer", "p50k"}, `unknown tokenizer "p50k"`},
		{"negative window", []string{"--db", db, "--context-window", "-1"}, "not a negative one"},
		{"unknown chat", []string{"--db", db, "--chat", "nope"}, "none of the chosen chats can be simulated"},
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
	if code, _, errOut := simRun(t, "", "simulate", "--db", filepath.Join(t.TempDir(), "none.sqlite")); code != 1 || !strings.Contains(errOut, "database not found") {
		t.Errorf("missing database: exit %d: %s", code, errOut)
	}
}

func TestParseSweep(t *testing.T) {
	tests := []struct {
		spec   string
		knob   string
		values []float64
		err    string
	}{
		{"threshold=0.4:0.8:0.05", "threshold", []float64{0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8}, ""},
		{"context_window=100000:200000:50000", "context_window", []float64{100000, 150000, 200000}, ""},
		{"context-window=8000", "context_window", []float64{8000}, ""},
		{"recent_ratio=0.1:0.3:0.1", "recent_ratio", []float64{0.1, 0.2, 0.3}, ""},
		{"kept_fraction=0.1:0.2:0.05", "kept_fraction", []float64{0.1, 0.15, 0.2}, ""},
		{"threshold=0.8:0.4:0.1", "", nil, "is above to"},
		{"threshold=0.4:0.8:0", "", nil, "must be positive"},
		{"threshold=0.4:x:0.1", "", nil, `"x" is not a number`},
		{"recent_buffer=1.5", "", nil, "takes whole numbers"},
		{"reserved=-5", "", nil, "is negative"},
		{"threshold=0:1000:0.0001", "", nil, "more than 1000"},
		{"threshold=1:2", "", nil, "want from:to:step or one value"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := parseSweep(tc.spec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.knob.name != tc.knob || len(s.values) != len(tc.values) {
				t.Fatalf("knob %q values %v", s.knob.name, s.values)
			}
			for i := range tc.values {
				if s.values[i] != tc.values[i] {
					t.Errorf("values = %v, want %v", s.values, tc.values)
					break
				}
			}
		})
	}
	s, _ := parseSweep("kept_fraction=0.3")
	var c strategy.Config
	s.knob.set(&c, 0.3)
	if c.Extra["kept_fraction"] != 0.3 {
		t.Errorf("extra knob not set: %v", c.Extra)
	}
	s, _ = parseSweep("min_uncompressed=7")
	s.knob.set(&c, 7)
	if c.MinUncompressed == nil || *c.MinUncompressed != 7 {
		t.Errorf("min_uncompressed not set")
	}
}

func TestRenderChart(t *testing.T) {
	steps := []strategy.StepReport{
		{Step: 1, ContextTokens: 100, Boundary: -1},
		{Step: 2, ContextTokens: 400, Boundary: -1},
		{Step: 3, ContextTokens: 900, Fired: true, Boundary: 1, Compacted: 3, AfterTokens: 300},
		{Step: 4, ContextTokens: 500, Boundary: -1},
		{Step: 5, ContextTokens: 800, Fired: true, Boundary: -1, Rejected: strategy.RejectNoShrink},
	}
	var b bytes.Buffer
	renderChart(&b, steps, 10, 4)
	want := "" +
		"1,000 |    ##  ##\n" +
		"      |    ##  ##\n" +
		"  500 |  ########\n" +
		"      |##########\n" +
		"    0 +----------\n" +
		"           ^   x\n" +
		"       step 1 step 5\n" +
		"       context tokens per step; ^ compaction, x rejected by a guardrail\n"
	if b.String() != want {
		t.Errorf("chart:\n%s\nwant:\n%s", b.String(), want)
	}
	// More steps than columns share columns; the width stays fixed.
	var many []strategy.StepReport
	for i := 0; i < 150; i++ {
		many = append(many, strategy.StepReport{Step: i + 1, ContextTokens: float64(i * 100), Boundary: -1})
	}
	b.Reset()
	renderChart(&b, many, 60, 12)
	for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[:13] {
		if len(line) > len("15,000 |")+60 {
			t.Errorf("line %d is wider than 60 columns: %q", i, line)
		}
	}
}

func TestKeptCompactedPairsCallsWithSteps(t *testing.T) {
	m := func(id string) strategy.Message { return strategy.Message{ID: id} }
	tl := &strategy.Timeline{Steps: []strategy.StepReport{
		{SummarizerCalled: true, Compacted: 2},
		{SummarizerCalled: true, Rejected: strategy.RejectNoShrink},
		{},
		{SummarizerCalled: true, Compacted: 1},
	}}
	calls := [][]strategy.Message{{m("a"), m("b")}, {m("x")}, {m("b"), m("c")}}
	if got := simIDs(keptCompacted(tl, calls)); got != "a b c" {
		t.Errorf("kept = %q, want a b c (the rejected call left out)", got)
	}
	// Calls that do not pair up with the steps all count.
	if got := simIDs(keptCompacted(tl, calls[:2])); got != "a b x" {
		t.Errorf("unpaired = %q", got)
	}
}

func simIDs(msgs []strategy.Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return strings.Join(out, " ")
}

// TestSimulateGivesStagewiseTheChatMessages checks, with a fake
// simulation, that the stagewise strategy gets a database chat's own
// messages and the other strategies the branch with the tool results, and
// that a failing simulation names its chat.
func TestSimulateGivesStagewiseTheChatMessages(t *testing.T) {
	db := simSampleDB(t)
	orig := runSimulation
	t.Cleanup(func() { runSimulation = orig })
	seen := map[string]int{}
	runSimulation = func(ctx context.Context, history []strategy.Message, name string, cfg strategy.Config, sum strategy.Summarizer) (*strategy.Timeline, error) {
		seen[name] = len(history)
		if cfg.ContextWindow != 200000 {
			return nil, errors.New("want the chat model's window")
		}
		return &strategy.Timeline{Strategy: name, Steps: []strategy.StepReport{}}, nil
	}
	code, _, errOut := simRun(t, "", "simulate", "--db", db, "--chat", "ba8894fa-3be5-4747-8699-45dea82460da", "--compare", "stagewise,onyx", "-j", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if seen["stagewise"] != 16 || seen["onyx"] != 31 {
		t.Errorf("history lengths: %v, want stagewise 16 (the chat) and onyx 31 (with tool results)", seen)
	}
	runSimulation = func(context.Context, []strategy.Message, string, strategy.Config, strategy.Summarizer) (*strategy.Timeline, error) {
		return nil, errors.New("boom")
	}
	code, _, errOut = simRun(t, "", "simulate", "--db", db, "--chat", "ba8894fa-3be5-4747-8699-45dea82460da")
	if code != 1 || !strings.Contains(errOut, "compact: simulate: ba8894fa-3be5-4747-8699-45dea82460da: boom") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func TestCascadeSummarizerSendsEqualRequestsOnce(t *testing.T) {
	st, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cascade.Load(st, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	wireBuiltin(c, "e3e")
	s := &cascadeSummarizer{c: c, order: []string{"builtin"}, cache: map[[32]byte]string{}}
	req := strategy.SummaryRequest{System: "sys", User: "<chat-history><user>Fix w1/src/a.ts please</user>\n<assistant>Done.</assistant></chat-history>"}
	a, err := s.Summarize(context.Background(), req)
	if err != nil || a == "" {
		t.Fatalf("%q %v", a, err)
	}
	b, err := s.Summarize(context.Background(), req)
	if err != nil || b != a || s.calls != 1 || s.cached != 1 {
		t.Errorf("second call: %q %v, calls %d cached %d", b, err, s.calls, s.cached)
	}
}
