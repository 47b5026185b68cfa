package strategy

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// Message constructors for hand-made histories.

func usr(id, text string) Message { return Message{ID: id, Role: RoleUser, Content: text} }
func asst(id, text string, calls ...ToolCall) Message {
	return Message{ID: id, Role: RoleAssistant, Content: text, ToolCalls: calls}
}
func tool(id, callID, text string) Message {
	return Message{ID: id, Role: RoleTool, ToolCallID: callID, Content: text}
}
func sysm(id, text string) Message { return Message{ID: id, Role: RoleSystem, Content: text} }
func call(id, name, args string) ToolCall {
	return ToolCall{ID: id, Name: name, Arguments: args}
}

// chars is a text of n ASCII characters.
func chars(n int) string { return strings.Repeat("x", n) }

// fixed is a summarizer that returns text and records the requests.
type fixed struct {
	mu   sync.Mutex
	text string
	err  error
	reqs []SummaryRequest
}

func (f *fixed) Summarize(_ context.Context, req SummaryRequest) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	return f.text, f.err
}

var errDown = errors.New("model unavailable")

func ids(msgs []Message) []string {
	out := make([]string, len(msgs))
	for k := range msgs {
		out[k] = msgs[k].ID
	}
	return out
}

func idsAt(msgs []Message, idx []int) []string {
	out := make([]string, len(idx))
	for k, j := range idx {
		out[k] = msgs[j].ID
	}
	return out
}

// stepAll runs the strategy's Step on every assistant message of h (no
// guardrails) and returns the reports.
func stepAll(t *testing.T, s Strategy, h []Message, sum Summarizer) []StepReport {
	t.Helper()
	var out []StepReport
	for i := range h {
		if h[i].Role != RoleAssistant {
			continue
		}
		r, err := s.Step(context.Background(), h, i, sum)
		if err != nil {
			t.Fatal(err)
		}
		r.Index = i
		out = append(out, r)
	}
	return out
}

func mustNew(t *testing.T, name string, cfg Config) Strategy {
	t.Helper()
	s, err := New(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
