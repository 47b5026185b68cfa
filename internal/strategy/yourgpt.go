package strategy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/compactlab/compact/internal/history"
)

// YourGPT copilot-sdk defaults (peers.md B1, B3).
const (
	YourGPTReserve        = 4096
	YourGPTThreshold      = 0.75
	YourGPTRecentBuffer   = 10
	YourGPTToolResultCap  = 10000
	YourGPTPruneThreshold = 500
	YourGPTPruneExtract   = 200
	// YourGPTSummaryTarget is the size goal handed to the summarizer:
	// about what the SDK's server summarizer returns at most (1024 output
	// tokens × 3.5 characters).
	YourGPTSummaryTarget = 3500
	// YourGPTDedupPlaceholder replaces a system message whose first 100
	// characters repeat an earlier one's.
	YourGPTDedupPlaceholder = "[skill instruction — deduplicated]"
)

// yourgpt holds the knobs the three YourGPT strategies share.
type yourgpt struct {
	base
	reserve   int
	threshold float64
	recentBuf int
	toolCap   int // <= 0: none
}

func newYourGPT(cfg Config) (yourgpt, error) {
	b, err := newBase(cfg)
	if err != nil {
		return yourgpt{}, err
	}
	y := yourgpt{
		base:      b,
		reserve:   intOr(cfg.Reserved, YourGPTReserve),
		threshold: floatOr(cfg.Threshold, YourGPTThreshold),
		recentBuf: intOr(cfg.RecentBuffer, YourGPTRecentBuffer),
		toolCap:   intOr(cfg.ToolResultCap, YourGPTToolResultCap),
	}
	if y.recentBuf < 0 {
		y.recentBuf = 0
	}
	return y, nil
}

// CapToolResult is YourGPT's toolResultMaxChars, applied at the end of
// every strategy: a tool message longer than limit UTF-16 units keeps its
// first limit units plus a note with the original length and the limit.
// limit <= 0 means no cap.
func CapToolResult(content string, limit int) string {
	if limit <= 0 {
		return content
	}
	n := history.Len16(content)
	if n <= limit {
		return content
	}
	return history.Slice16(content, limit) + fmt.Sprintf("\n[truncated — original %d chars, limit %d]", n, limit)
}

// capped is what a message sends after the cap.
func (y *yourgpt) capped(m *Message, content string) string {
	if m.Role != RoleTool {
		return content
	}
	return CapToolResult(content, y.toolCap)
}

// sentTokens is the estimate of message m sent with content (after any
// rewrite, before the cap), the cap applied.
func (y *yourgpt) sentTokens(m *Message, content string) float64 {
	return yourgptTokens(y.counter, y.capped(m, content), m)
}

// CompactedToolResult is selective-prune's stub for an old, long tool
// result, in YourGPT's field order.
type CompactedToolResult struct {
	Type         string          `json:"type"`
	ToolName     string          `json:"toolName"`
	ToolCallID   string          `json:"toolCallId"`
	Args         json.RawMessage `json:"args"`
	ExecutedAt   *int64          `json:"executedAt,omitempty"`
	Status       string          `json:"status"`
	OriginalSize int             `json:"originalSize"`
	Summary      string          `json:"summary"`
	Extract      string          `json:"extract"`
}

// ToolResultStub builds the stub of a tool result: toolName and args of
// the call it answers ("tool" and {} when unknown; args as the call's JSON
// when it is JSON), executedAt the message time in ms (omitted when
// unknown), status "error" when the content contains `"error"` (with the
// quotes, as the SDK tests it) else "success", originalSize its UTF-16
// length, summary StubSummary(content), extract its first extractLen
// units.
func ToolResultStub(m *Message, call *ToolCall, extractLen int) CompactedToolResult {
	st := CompactedToolResult{
		Type:         "compacted-tool-result",
		ToolName:     "tool",
		ToolCallID:   m.ToolCallID,
		Args:         json.RawMessage("{}"),
		Status:       "success",
		OriginalSize: history.Len16(m.Content),
		Summary:      StubSummary(m.Content),
		Extract:      history.Slice16(m.Content, extractLen),
	}
	if call != nil {
		st.ToolName = call.Name
		if a := strings.TrimSpace(call.Arguments); a != "" && json.Valid([]byte(a)) {
			var b bytes.Buffer
			if err := json.Compact(&b, []byte(a)); err == nil {
				st.Args = json.RawMessage(b.Bytes())
			}
		}
	}
	if !m.CreatedAt.IsZero() {
		ms := m.CreatedAt.UnixMilli()
		st.ExecutedAt = &ms
	}
	if strings.Contains(m.Content, `"error"`) {
		st.Status = "error"
	}
	return st
}

// StubSummary is the stub's one-line summary of a tool result: its JSON
// "message" (first 120 units), "Error: " + its JSON "error" (first 100),
// "Array result — N items", "Object result — keys: " + its first three
// keys, or, when it is not JSON, its first 120 units.
func StubSummary(content string) string {
	v, err := history.ParseJSON(content)
	if err != nil || v.Kind() == history.Null {
		return history.Slice16(content, 120)
	}
	if v.IsObjectLike() {
		if msg := v.Get("message"); msg.Truthy() {
			return history.Slice16(history.ToString(msg), 120)
		}
		if e := v.Get("error"); e.Truthy() {
			return "Error: " + history.Slice16(history.ToString(e), 100)
		}
	}
	if v.Kind() == history.Array {
		return fmt.Sprintf("Array result — %d items", v.Len())
	}
	var keys []string
	switch v.Kind() {
	case history.Object:
		keys = v.Keys()
	case history.String: // Object.keys of a string: its indices
		for k := 0; k < history.Len16(v.Str()) && k < 3; k++ {
			keys = append(keys, fmt.Sprint(k))
		}
	}
	if len(keys) > 3 {
		keys = keys[:3]
	}
	return "Object result — keys: " + strings.Join(keys, ", ")
}

// stubJSON is JSON.stringify of the stub.
func stubJSON(st CompactedToolResult) string { return marshalJS(st) }

// PrunedContent is what selective-prune, with the knobs of cfg, puts in
// place of the tool result m (the answer to call, nil when unknown): the
// JSON of its stub.
func PrunedContent(m *Message, call *ToolCall, cfg Config) string {
	return stubJSON(ToolResultStub(m, call, intOr(cfg.PruneExtract, YourGPTPruneExtract)))
}
