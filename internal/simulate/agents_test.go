package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/strategy"
	"github.com/compactlab/compact/internal/testfiles"
)

const agentsData = "../../testdata/agents"

var (
	claudeShop  = filepath.Join(agentsData, "claude-code", "synthetic-shop.jsonl")
	codexRelay  = filepath.Join(agentsData, "codex", "rollout-2026-03-04T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	sweFunction = filepath.Join(agentsData, "swe-agent", "function_calling_simple.traj")
)

// TestReadFileSniffs: every format is told by its content, read through
// its reader, with the window the session gives.
func TestReadFileSniffs(t *testing.T) {
	for _, c := range []struct {
		path, source string
		window       int
		from         string
	}{
		{claudeShop, agents.ClaudeCode, ClaudeCodeWindow, "Claude Code's"},
		{codexRelay, agents.Codex, 272000, "recorded"},
		{sweFunction, agents.SWEAgent, 0, ""},
		{"../../examples/histories/linear.jsonl", "jsonl", 0, ""},
	} {
		in, _, err := ReadFile(c.path, "auto", nil, "", nil)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if in.History.Source != c.source || in.Window != c.window || in.WindowFrom != c.from {
			t.Errorf("%s: source %s, window %d (%s)", c.path, in.History.Source, in.Window, in.WindowFrom)
		}
	}
	// The configuration's window of the model wins over Claude Code's.
	in, _, _ := ReadFile(claudeShop, "", nil, "", map[string]int{"claude-sonnet-4-5-20250929": 1000000})
	if in.Window != 1000000 {
		t.Errorf("window %d", in.Window)
	}
	// stdin is sniffed too.
	data, _ := os.ReadFile(codexRelay)
	in, _, err := ReadFile("-", "", bytes.NewReader(data), "", nil)
	if err != nil || in.History.Source != agents.Codex || in.History.Name != "stdin" {
		t.Errorf("stdin: %v %+v", err, in)
	}
}

// TestReadFileUnknownFormat: one line naming the formats tried; a forced
// format reads the file as that format.
func TestReadFileUnknownFormat(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "notes.txt")
	os.WriteFile(p, []byte("hello\nworld\n"), 0o644)
	_, _, err := ReadFile(p, "auto", nil, "", nil)
	var ie *InputError
	if !errors.As(err, &ie) || err.Error() != p+": not a history compact reads (tried claude-code, codex, swe-agent, OTLP JSON traces, opencode, gemini-cli and the generic JSONL): line 1 is not a JSON object" {
		t.Errorf("err %v", err)
	}
	// A Claude Code session read as the generic JSONL is that format's
	// problems; the leaf of an agent's session is refused.
	if _, ws, err := ReadFile(claudeShop, "jsonl", nil, "", nil); err == nil || len(ws) == 0 {
		t.Errorf("forced jsonl: %v, %d warnings", err, len(ws))
	}
	if _, _, err := ReadFile(claudeShop, "", nil, "x", nil); err == nil || !strings.Contains(err.Error(), "--leaf chooses a branch of a generic JSONL history") {
		t.Errorf("leaf: %v", err)
	}
}

// TestAgainstRecordedAgents: where each strategy would have compacted
// against where the agent did, with the live usage beside.
func TestAgainstRecordedAgents(t *testing.T) {
	in, _, err := ReadFile(claudeShop, "", nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []*Input{in}, Options{
		Strategies: strategy.Names(), AgainstRecorded: true, SummarizerName: "builtin",
		Base: strategy.Config{ContextWindow: 22000, SystemOverhead: 14300},
	})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	out := text.String()
	for _, want := range []string{
		"the agent compacted 2 times:",
		"  1           8    26     auto           18,305       18,305",
		"strategy              compactions  at steps",
		// The first strategy's figures: codex-user-retention counts
		// characters / 4 and 4 tokens a message.
		"first step: live usage 14,503 tokens, simulated context 14,410: the agent sends about 93 more (system prompt and tools); try --system-overhead 14393",
		"1 session, 2 compactions recorded; compacting within 2 steps of one: codex-user-retention 0, mask-then-summarize 1, observation-masking 1, onyx 0, ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Sessions []AgentRecorded
	}
	if err := json.Unmarshal(js.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	s := v.Sessions[0]
	if len(s.Recorded) != 2 || s.Recorded[0].Step != 8 || s.Recorded[1].Step != 12 || len(s.Strategies) != len(strategy.Names()) {
		t.Fatalf("json %+v", s)
	}
	compacted := false
	for _, st := range s.Strategies {
		if len(st.Nearest) != 2 {
			t.Errorf("%s: nearest %+v", st.Strategy, st.Nearest)
		}
		if len(st.Compactions) > 0 {
			compacted = true
			if st.Nearest[0].Step == 0 || st.Nearest[0].Delta != st.Nearest[0].Step-8 {
				t.Errorf("%s: nearest %+v", st.Strategy, st.Nearest)
			}
		}
	}
	if !compacted {
		t.Errorf("no strategy compacted:\n%s", out)
	}
	// A generic JSONL history records no compaction.
	g, _, _ := ReadFile("../../examples/histories/linear.jsonl", "", nil, "", nil)
	if _, err := Run(context.Background(), []*Input{g}, Options{Strategies: []string{"stagewise"}, AgainstRecorded: true}); err == nil || !strings.Contains(err.Error(), "records no compaction") {
		t.Errorf("jsonl: %v", err)
	}
}

// TestTimelineShowsLiveUsage: an agent's session gets a live column
// beside the simulated context, and liveTokens in JSON.
func TestTimelineShowsLiveUsage(t *testing.T) {
	in, _, err := ReadFile(codexRelay, "", nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []*Input{in}, Options{Strategies: []string{"stagewise"}, SummarizerName: "builtin"})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "  step  line  context    live  fired") || !strings.Contains(text.String(), "9,100") || !strings.Contains(text.String(), "(codex session)") {
		t.Errorf("timeline:\n%s", text.String())
	}
	var js bytes.Buffer
	rep.WriteJSON(&js)
	var v struct {
		Histories []struct {
			Source     string
			LiveTokens []int64
		}
	}
	json.Unmarshal(js.Bytes(), &v)
	if h := v.Histories[0]; h.Source != agents.Codex || len(h.LiveTokens) != 11 || h.LiveTokens[0] != 9100 || h.LiveTokens[10] != 900 {
		t.Errorf("json %+v", v.Histories)
	}
	// A generic history has no live column.
	g, _, _ := ReadFile("../../examples/histories/linear.jsonl", "", nil, "", nil)
	rep, _ = Run(context.Background(), []*Input{g}, Options{Strategies: []string{"stagewise"}})
	text.Reset()
	rep.WriteText(&text)
	if strings.Contains(text.String(), " live ") {
		t.Errorf("a live column for a generic history:\n%s", text.String())
	}
}

// TestAgainstRecordedRealClaudeCode: real sessions of Claude Code 2.1.14
// and later (entireio/cli's corpus, MIT) used to read as a few messages
// and no compaction: simulate now reads the whole thread (one step per
// response the file records) and finds every recorded compaction.
func TestAgainstRecordedRealClaudeCode(t *testing.T) {
	for _, c := range []struct {
		name        string
		compactions int
	}{
		{"2.1.14-4b-7d5121b42a-0.jsonl.gz", 1},
		{"2.1.20-25-730c662552-0.jsonl.gz", 2},
		{"2.1.39-9b-04c3d92e38-2.jsonl.gz", 1},
		{"2.1.42-ed-51f6581660-0.jsonl.gz", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := testfiles.Gunzip(t, filepath.Join(agentsData, "claude-code", "entire", c.name))
			// The responses the file records on its main side: one model
			// step each.
			responses := map[string]bool{}
			dec := json.NewDecoder(bytes.NewReader(data))
			for {
				var r struct {
					Type        string `json:"type"`
					IsSidechain bool   `json:"isSidechain"`
					Message     struct {
						ID string `json:"id"`
					} `json:"message"`
				}
				if err := dec.Decode(&r); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				if r.Type == "assistant" && !r.IsSidechain && r.Message.ID != "" {
					responses[r.Message.ID] = true
				}
			}
			in, _, err := ReadFile("-", "", bytes.NewReader(data), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Run(context.Background(), []*Input{in}, Options{Strategies: []string{"stagewise"}, AgainstRecorded: true, SummarizerName: "builtin"})
			if err != nil {
				t.Fatal(err)
			}
			var js bytes.Buffer
			if err := rep.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			var v struct {
				Sessions []AgentRecorded
			}
			if err := json.Unmarshal(js.Bytes(), &v); err != nil {
				t.Fatal(err)
			}
			if len(v.Sessions) != 1 || len(v.Sessions[0].Recorded) != c.compactions {
				t.Fatalf("recorded %+v", v.Sessions)
			}
			steps := 0
			for _, m := range in.History.Branch {
				if m.Role == strategy.RoleAssistant {
					steps++
				}
			}
			// Responses split by a compaction count once on each side;
			// none is lost.
			if steps < len(responses) || steps > len(responses)+c.compactions {
				t.Errorf("%d steps read, the file records %d responses", steps, len(responses))
			}
		})
	}
}
