package simulate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/compactlab/compact/internal/briefing"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/strategy"
)

func TestKeptCompacted(t *testing.T) {
	m := func(id string) strategy.Message { return strategy.Message{ID: id} }
	calls := [][]strategy.Message{{m("a"), m("b")}, {m("x")}, {m("b"), m("c")}}
	tests := []struct {
		name  string
		steps []strategy.StepReport
		calls [][]strategy.Message
		want  string
	}{
		{"the rejected call is left out", []strategy.StepReport{
			{SummarizerCalled: true, Compacted: 2},
			{SummarizerCalled: true, Rejected: strategy.RejectNoShrink},
			{},
			{SummarizerCalled: true, Compacted: 1},
		}, calls, "a b c"},
		{"more steps than calls: every call counts", []strategy.StepReport{
			{SummarizerCalled: true, Compacted: 2},
			{SummarizerCalled: true, Rejected: strategy.RejectNoShrink},
			{SummarizerCalled: true, Compacted: 1},
		}, calls[:2], "a b x"},
		{"more calls than steps: every call counts", []strategy.StepReport{
			{SummarizerCalled: true, Compacted: 2},
		}, calls, "a b x c"},
		{"a call that compacted nothing", []strategy.StepReport{
			{SummarizerCalled: true},
			{SummarizerCalled: true, Compacted: 1},
		}, calls[1:], "b c"},
		{"no call", []strategy.StepReport{{}, {}}, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(keptCompacted(&strategy.Timeline{Steps: tc.steps}, tc.calls)); got != tc.want {
				t.Errorf("kept = %q, want %q", got, tc.want)
			}
		})
	}
}

func ids(msgs []strategy.Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return strings.Join(out, " ")
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
	for _, p := range c.Providers {
		if b, ok := p.(*cascade.Builtin); ok {
			b.Writer = func(history string, target int) string {
				return briefing.Write(history, briefing.Options{TargetChars: target})
			}
		}
	}
	s := NewCascadeSummarizer(c, []string{"builtin"})
	req := strategy.SummaryRequest{System: "sys", User: "<chat-history><user>Fix w1/src/a.ts please</user>\n<assistant>Done.</assistant></chat-history>"}
	a, err := s.Summarize(context.Background(), req)
	if err != nil || a == "" {
		t.Fatalf("%q %v", a, err)
	}
	b, err := s.Summarize(context.Background(), req)
	calls, cached, cost := s.Stats()
	if err != nil || b != a || calls != 1 || cached != 1 || cost != 0 {
		t.Errorf("second call: %q %v, calls %d cached %d cost %v", b, err, calls, cached, cost)
	}
	req.User += " "
	if _, err := s.Summarize(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if calls, cached, _ := s.Stats(); calls != 2 || cached != 1 {
		t.Errorf("another request: calls %d cached %d", calls, cached)
	}
}

// sampleDB copies the shipped sample database to a temporary directory.
func sampleDB(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "stagewise", "instances.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "instances.sqlite")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The sample's chat "Fix Button color (v2)!": 16 messages, 31 with the
// tool results, on claude-sonnet-4.6.
const sampleChat = "ba8894fa-3be5-4747-8699-45dea82460da"

func TestReadDB(t *testing.T) {
	db := sampleDB(t)
	ctx := context.Background()
	windows := map[string]int{"claude-sonnet-4.6": 200000, "gpt-5.4": 400000}
	ins, warnings, err := ReadDB(ctx, db, nil, windows)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v %v", err, warnings)
	}
	if len(ins) != 6 {
		t.Fatalf("%d chats, want the sample's 6", len(ins))
	}
	withWindow := 0
	for _, in := range ins {
		if in.Window > 0 {
			withWindow++
			if windows[in.WindowFrom] != in.Window || in.WindowFrom != in.History.Model {
				t.Errorf("%s: window %d from %q", in.History.Name, in.Window, in.WindowFrom)
			}
		}
	}
	if withWindow != 4 {
		t.Errorf("%d chats with a window, want 4 (3 on claude-sonnet-4.6, 1 on gpt-5.4)", withWindow)
	}

	tests := []struct {
		name  string
		chats []string
		n     int
		warn  string
		input bool // an InputError
	}{
		{"one chat", []string{sampleChat}, 1, "", false},
		{"an unknown chat beside a known one", []string{sampleChat, "nope"}, 0, "", true},
		{"no known chat", []string{"nope"}, 0, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ins, warnings, err := ReadDB(ctx, db, tc.chats, windows)
			var ie *InputError
			if tc.input != errors.As(err, &ie) || !tc.input && err != nil {
				t.Fatalf("err = %v, want an InputError: %v", err, tc.input)
			}
			if tc.input && !strings.Contains(err.Error(), "no such chat in "+db+": nope") {
				t.Errorf("err = %v, want it to name the unknown chat", err)
			}
			if len(ins) != tc.n {
				t.Errorf("%d chats, want %d", len(ins), tc.n)
			}
			if got := strings.Join(warnings, "\n"); !strings.Contains(got, tc.warn) || (tc.warn == "") != (got == "") {
				t.Errorf("warnings %q, want %q", got, tc.warn)
			}
		})
	}
	if _, _, err := ReadDB(ctx, filepath.Join(t.TempDir(), "none.sqlite"), nil, nil); err == nil {
		t.Error("a missing database reads")
	}
}

func TestReadJSONL(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"id":"u1","role":"user","content":"hi"}` + "\n" + `{"id":"a1","role":"assistant","content":"hello"}` + "\n"
	tests := []struct {
		name     string
		path     string
		stdin    string
		leaf     string
		messages int
		warnings int
		err      string
	}{
		{"a file", write("good.jsonl", good), "", "", 2, 0, ""},
		{"stdin", "-", good, "", 2, 0, ""},
		{"a bad line", write("some.jsonl", good+"garbage\n"), "", "", 2, 1, ""},
		{"no usable line", write("bad.jsonl", "garbage\nmore\n"), "", "", 0, 2, "no usable line (2 problems reported above)"},
		{"one unusable line", write("bad1.jsonl", "garbage\n"), "", "", 0, 1, "no usable line (1 problem reported above)"},
		{"empty", write("empty.jsonl", "\n"), "", "", 0, 0, "holds no message"},
		{"missing", filepath.Join(dir, "missing.jsonl"), "", "", 0, 0, "missing.jsonl"},
		{"unknown leaf", write("leaf.jsonl", good), "", "zz", 0, 0, `"zz"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, warnings, err := ReadJSONL(tc.path, strings.NewReader(tc.stdin), tc.leaf)
			if len(warnings) != tc.warnings {
				t.Errorf("warnings %q, want %d", warnings, tc.warnings)
			}
			if tc.err != "" {
				var ie *InputError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want an InputError with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(in.History.Branch) != tc.messages || len(in.Messages("stagewise")) != tc.messages {
				t.Errorf("%d messages, want %d", len(in.History.Branch), tc.messages)
			}
		})
	}
}

// TestRunGivesStagewiseTheChatMessages checks, with a fake simulation,
// that the stagewise strategy gets a database chat's own messages and the
// others the branch with the tool results, with the model's window, and
// that a failing simulation names its chat.
func TestRunGivesStagewiseTheChatMessages(t *testing.T) {
	ins, _, err := ReadDB(context.Background(), sampleDB(t), []string{sampleChat}, map[string]int{"claude-sonnet-4.6": 200000})
	if err != nil {
		t.Fatal(err)
	}
	var mu atomicMap
	opts := Options{Strategies: []string{"stagewise", "onyx"}, Compare: true, Jobs: 1,
		Simulate: func(ctx context.Context, history []strategy.Message, name string, cfg strategy.Config, sum strategy.Summarizer) (*strategy.Timeline, error) {
			mu.set(name, len(history))
			if cfg.ContextWindow != 200000 {
				return nil, errors.New("want the chat model's window")
			}
			return &strategy.Timeline{Strategy: name, Steps: []strategy.StepReport{}}, nil
		}}
	if _, err := Run(context.Background(), ins, opts); err != nil {
		t.Fatal(err)
	}
	if mu.get("stagewise") != 16 || mu.get("onyx") != 31 {
		t.Errorf("history lengths: stagewise %d, onyx %d; want 16 (the chat) and 31 (with tool results)", mu.get("stagewise"), mu.get("onyx"))
	}
	if got := ins[0].Origin("stagewise"); len(got) != 16 || got[15] != 15 {
		t.Errorf("stagewise origin %v", got)
	}
	if got := ins[0].Origin("onyx"); len(got) != 31 {
		t.Errorf("onyx origin %v", got)
	}
	opts.Simulate = func(context.Context, []strategy.Message, string, strategy.Config, strategy.Summarizer) (*strategy.Timeline, error) {
		return nil, errors.New("boom")
	}
	if _, err := Run(context.Background(), ins, opts); err == nil || err.Error() != sampleChat+": boom" {
		t.Errorf("err = %v", err)
	}
}

type atomicMap struct{ stagewise, onyx atomic.Int64 }

func (m *atomicMap) set(name string, n int) {
	if name == "stagewise" {
		m.stagewise.Store(int64(n))
	} else {
		m.onyx.Store(int64(n))
	}
}

func (m *atomicMap) get(name string) int64 {
	if name == "stagewise" {
		return m.stagewise.Load()
	}
	return m.onyx.Load()
}

func TestRunChecksItsOptions(t *testing.T) {
	in := jsonlInput("x.jsonl", strategy.RoleUser, strategy.RoleAssistant)
	tests := []struct {
		name   string
		inputs []*Input
		opts   Options
		err    string
	}{
		{"no strategy", []*Input{in}, Options{}, "no strategy named"},
		{"unknown strategy", []*Input{in}, Options{Strategies: []string{"magic"}}, `unknown strategy "magic"`},
		{"against recorded with onyx", []*Input{in}, Options{Strategies: []string{"onyx"}, AgainstRecorded: true}, "simulates the stagewise strategy"},
		{"no input", nil, Options{Strategies: []string{"onyx"}}, "no history"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), tc.inputs, tc.opts)
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want an InputError with %q", err, tc.err)
			}
		})
	}
	names, err := ParseStrategies(" onyx, stagewise,onyx,, ")
	if err != nil || strings.Join(names, " ") != "onyx stagewise" {
		t.Errorf("ParseStrategies: %v %v", names, err)
	}
	if _, err := ParseStrategies(" , "); err == nil {
		t.Error("an empty list parses")
	}
}

func TestRunInterrupted(t *testing.T) {
	in := jsonlInput("x.jsonl", strategy.RoleUser, strategy.RoleAssistant)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, []*Input{in, in, in}, Options{Strategies: []string{"onyx"}, Compare: true, Simulate: fakeTimeline(0)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestRunStagewiseDefaults checks that the configuration's stagewise
// settings reach stagewise runs only, and that a sweep's knob wins.
func TestRunStagewiseDefaults(t *testing.T) {
	in := jsonlInput("x.jsonl", strategy.RoleUser, strategy.RoleAssistant)
	nine := 9
	sd := StagewiseDefaults{Threshold: 0.3, MinUncompressed: &nine}
	opts := Options{Base: strategy.Config{ContextWindow: 5000}, Stagewise: sd}
	for _, tc := range []struct {
		name      string
		set       func(*strategy.Config)
		threshold float64
		min       int
	}{
		{"stagewise", nil, 0.3, 9},
		{"onyx", nil, 0, 0},
		{"stagewise", func(c *strategy.Config) { c.Threshold = 0.8 }, 0.8, 9},
	} {
		cfg := configFor(opts, in, tc.name, tc.set)
		m := 0
		if cfg.MinUncompressed != nil {
			m = *cfg.MinUncompressed
		}
		if cfg.Threshold != tc.threshold || m != tc.min || cfg.ContextWindow != 5000 {
			t.Errorf("%s: threshold %v min %d window %d", tc.name, cfg.Threshold, m, cfg.ContextWindow)
		}
	}
	// A history's model window fills an unset window only.
	in.Window, in.WindowFrom = 7000, "m"
	if cfg := configFor(Options{}, in, "onyx", nil); cfg.ContextWindow != 7000 {
		t.Errorf("window %d, want the model's", cfg.ContextWindow)
	}
	if cfg := configFor(opts, in, "onyx", nil); cfg.ContextWindow != 5000 {
		t.Errorf("window %d, want the given one", cfg.ContextWindow)
	}
}
