package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/strategy"
)

// probesInput is testdata/probes.jsonl: a generic history whose probes
// are known. The user asks to fix failing parser tests and not to add
// dependencies (a decision); the agent reads src/parser.go, runs go test
// (exit 1), edits the file, runs go test again (passes); the user asks
// for a benchmark (the last request); a long assistant message follows.
// Lines carry the cwd /home/dev/parser, and the paths of the tool calls
// are absolute.
func probesInput(t *testing.T) *Input {
	t.Helper()
	in, _, err := ReadJSONL("testdata/probes.jsonl", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if in.History.Cwd != "/home/dev/parser" {
		t.Fatalf("cwd %q", in.History.Cwd)
	}
	return in
}

// probeRun simulates the probes history under one strategy.
func probeRun(t *testing.T, name string, cfg strategy.Config) *Report {
	t.Helper()
	rep, err := Run(context.Background(), []*Input{probesInput(t)}, Options{Strategies: []string{name}, SummarizerName: "builtin", Base: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

type lostProbe struct {
	ID       string
	Expected string
}

func lostOf(s SummaryScore) []lostProbe {
	out := []lostProbe{}
	for _, p := range s.Lost {
		out = append(out, lostProbe{p.ID, p.Expected[0]})
	}
	return out
}

func tallies(s SummaryScore) string {
	var parts []string
	for _, k := range eval.Kinds {
		parts = append(parts, string(k)+" "+itoa(s.Kinds[k].Kept)+"/"+itoa(s.Kinds[k].Total))
	}
	return strings.Join(parts, ", ")
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestProbeScoresOfAHandBuiltHistory runs the probes history through a
// strategy that summarizes (summary-buffer, the builtin rule summary) and
// one that drops (sliding-window), each set to compact once, and checks
// the probes mined from what each compaction replaced and which of them
// each lost: the file (relative to the cwd), the failed command fixed
// later, the user's decision and the last request.
func TestProbeScoresOfAHandBuiltHistory(t *testing.T) {
	tests := []struct {
		name      string
		cfg       strategy.Config
		replaced  string
		compacted int
		kinds     string
		lost      []lostProbe
	}{
		// Summarizes m02…m12 at the last step. The rule summary quotes
		// the user and the assistant's conclusions but names tools, not
		// the files they touched: only the file is lost.
		{"summary-buffer", strategy.Config{ContextWindow: 900, Reserved: 1, RecentBuffer: 1}, ReplacedSummarized, 11,
			"artifact 0/1, recall 1/1, decision 1/1, continuation 1/1",
			[]lostProbe{{"artifact-1", "src/parser.go"}}},
		// Drops m02…m10 at the last step: everything it dropped is lost,
		// and the last request among them is the first one.
		{"sliding-window", strategy.Config{ContextWindow: 700, Reserved: 1, RecentBuffer: 1}, ReplacedDropped, 9,
			"artifact 0/1, recall 0/1, decision 0/1, continuation 0/1",
			[]lostProbe{
				{"artifact-1", "src/parser.go"},
				{"recall-1", "go test ./...: failed with exit 1, fixed later"},
				{"decision-1", "Don't add new dependencies."},
				{"continuation-1", "The parser tests fail since yesterday. Please fix them."},
			}},
		// Stubs the long result of the read: its marker stays, the file
		// is kept.
		{"selective-prune", strategy.Config{ContextWindow: 700, Reserved: 1, RecentBuffer: 1}, ReplacedPruned, 1,
			"artifact 1/1, recall 0/0, decision 0/0, continuation 0/0", []lostProbe{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := probeRun(t, tc.name, tc.cfg)
			r := rep.runs[0]
			if r.tl.Compactions != 1 || len(r.probes) != 1 {
				t.Fatalf("%d compactions, %d scored; want 1 and 1", r.tl.Compactions, len(r.probes))
			}
			s := r.probes[0]
			if s.Replaced != tc.replaced || s.Compacted != tc.compacted || s.Chat != "testdata/probes.jsonl" {
				t.Errorf("replaced %q, %d messages, chat %q; want %q, %d", s.Replaced, s.Compacted, s.Chat, tc.replaced, tc.compacted)
			}
			if got := tallies(s); got != tc.kinds {
				t.Errorf("kinds %s, want %s", got, tc.kinds)
			}
			if got := lostOf(s); !equalLost(got, tc.lost) {
				t.Errorf("lost %+v, want %+v", got, tc.lost)
			}
			want := ""
			for _, st := range r.tl.Steps {
				if st.Step == s.Step {
					want = st.Summary
				}
			}
			if s.Summary != want || (tc.replaced == ReplacedSummarized) != (want != "") {
				t.Errorf("summary %q, step %d wrote %q", s.Summary, s.Step, want)
			}
		})
	}
}

func equalLost(a, b []lostProbe) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestProbeScoresDeterministicAndInJSON: two runs give the same JSON,
// which carries each summary's text once (the steps leave it out) and
// the totals per strategy.
func TestProbeScoresDeterministicAndInJSON(t *testing.T) {
	cfg := strategy.Config{ContextWindow: 700, Reserved: 1, RecentBuffer: 1}
	run := func() (string, *Report) {
		rep, err := Run(context.Background(), []*Input{probesInput(t)}, Options{
			Strategies: []string{strategy.NameSummaryBuffer, strategy.NameSlidingWindow, strategy.NameStagewise}, Compare: true,
			SummarizerName: "builtin", Base: cfg,
		})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := rep.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.String(), rep
	}
	a, rep := run()
	b, _ := run()
	if a != b {
		t.Fatal("two runs give different JSON")
	}
	var got struct {
		Rows []Row `json:"rows"`
	}
	if err := json.Unmarshal([]byte(a), &got); err != nil {
		t.Fatal(err)
	}
	summaries := 0
	for i, row := range got.Rows {
		if row.Probes == nil || row.Probes.Scored != len(row.Summaries) || row.Probes.Overall != rep.rows[i].Probes.Overall {
			t.Errorf("%s: totals %+v of %d summaries", row.Strategy, row.Probes, len(row.Summaries))
		}
		for _, s := range row.Summaries {
			if s.Replaced != ReplacedSummarized {
				continue
			}
			summaries++
			if s.Summary == "" || strings.Count(a, jsonString(t, s.Summary)) != 1 {
				t.Errorf("%s step %d: the summary's text is not in the JSON once", row.Strategy, s.Step)
			}
		}
	}
	if summaries < 2 {
		t.Errorf("%d summaries in the JSON", summaries)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	probeTable := false
	for _, line := range strings.Split(text.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "offline probe scores"):
			probeTable = true
		case line == "":
			probeTable = false
		case probeTable && len(line) > 120:
			t.Errorf("a line of %d columns: %s", len(line), line)
		}
	}
	if !strings.Contains(text.String(), "\noffline probe scores of what each compaction replaced") {
		t.Errorf("no probe table:\n%s", text.String())
	}
}

func jsonString(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestProbeHistory: generic tool calls become markers eval reads, paths
// under the cwd relative, and the messages given are not changed.
func TestProbeHistory(t *testing.T) {
	msgs := []strategy.Message{
		{ID: "u", Role: strategy.RoleUser, Content: "Fix /srv/app/main.go & keep /etc/hosts."},
		{ID: "a", Role: strategy.RoleAssistant, ToolCalls: []strategy.ToolCall{
			{ID: "c1", Name: "Read", Arguments: `{"file_path": "/srv/app/main.go"}`},
			{ID: "c2", Name: "Bash", Arguments: `{"command": "go vet /srv/app/..."}`},
		}},
		{ID: "t1", Role: strategy.RoleTool, ToolCallID: "c1", Content: "package main"},
		{ID: "t2", Role: strategy.RoleTool, ToolCallID: "c2", Content: `{"exit_code": 2}`},
	}
	got := probeHistory(msgs, "", nil, "/srv/app/", nil)
	want := "<user>Fix main.go &amp; keep /etc/hosts.</user>\n<assistant>[read: main.go]\n[shell: go vet ... → exit 2]</assistant>"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if msgs[1].ToolCalls[0].Name != "Read" {
		t.Error("the messages given were changed")
	}
	probes := eval.Mine(got, eval.Options{})
	var ids []string
	for _, p := range probes {
		ids = append(ids, p.ID+" "+p.Expected[0])
	}
	if w := "artifact-1 main.go|recall-1 go vet ...: failed with exit 2, not fixed|continuation-1 Fix main.go & keep /etc/hosts."; strings.Join(ids, "|") != w {
		t.Errorf("probes %q, want %q", strings.Join(ids, "|"), w)
	}
}
