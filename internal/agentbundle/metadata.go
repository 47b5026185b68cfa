package agentbundle

import (
	"bytes"
	"encoding/json"

	"github.com/compactlab/compact/internal/agents"
)

// metadata is metadata.json of an agent's bundle. The keys replay and
// diff read (chatId, chatTitle, compressionNumber, boundaryMessageIndex,
// previousCompressionIndex, previousCompressionSize) mean what they mean
// in a stagewise bundle; message indices count the session's messages
// as convo.FromSession lists them.
type metadata struct {
	Agent       string `json:"agent"`
	ChatID      string `json:"chatId"`
	ChatTitle   string `json:"chatTitle"`
	Session     string `json:"session"`
	SessionFile string `json:"sessionFile"`
	Model       string `json:"model"`
	Cwd         string `json:"cwd"`

	CompressionNumber    int    `json:"compressionNumber"`
	TotalCompressions    int    `json:"totalCompressions"`
	TotalChatMessages    int    `json:"totalChatMessages"`
	BoundaryMessageIndex int    `json:"boundaryMessageIndex"`
	BoundaryLine         int    `json:"boundaryLine"`
	Trigger              string `json:"trigger"`
	// RecordedPreTokens is the context size the agent recorded for the
	// compaction (0: none); LiveTokensBefore the live usage of the last
	// step before it; EstimatedTokens the stagewise estimate of the
	// messages it replaced.
	RecordedPreTokens int64 `json:"recordedPreTokens"`
	// RecordedPostTokens and RecordedDurationMs: what later Claude Code
	// versions record of the context after the compaction and its time.
	RecordedPostTokens int64 `json:"recordedPostTokens,omitempty"`
	RecordedDurationMs int64 `json:"recordedDurationMs,omitempty"`
	// RecordedCompactionUsage is the compaction call's own usage where
	// the agent recorded it (Codex).
	RecordedCompactionUsage *agents.Usage `json:"recordedCompactionUsage,omitempty"`
	LiveTokensBefore        int64         `json:"liveTokensBefore"`
	EstimatedTokens         int64         `json:"estimatedTokens"`

	TotalMessagesInSlice     int  `json:"totalMessagesInSlice"`
	SerializedMessageCount   int  `json:"serializedMessageCount"`
	PreservedMessages        int  `json:"preservedMessages"`
	PreviousCompressionIndex *int `json:"previousCompressionIndex"`
	PreviousCompressionSize  *int `json:"previousCompressionSize"`
	CompactHistoryChars      int  `json:"compactHistoryChars"`
	UserMessageChars         int  `json:"userMessageChars"`
	ActualOutputChars        int  `json:"actualOutputChars"`

	// Auditable is false when the summary cannot be read (Unauditable
	// says why): the bundle has no actual-output.md, and diff and eval
	// skip it. PreviousUnauditable: the compaction before it was such a
	// one, so the compact history starts without a previous summary.
	Auditable           bool   `json:"auditable"`
	Unauditable         string `json:"unauditable,omitempty"`
	PreviousUnauditable bool   `json:"previousUnauditable,omitempty"`
	Pack                string `json:"pack"`
	// PartialHistory says why the history of the session's first
	// compaction holds less than the session had: the file starts after
	// the session did.
	PartialHistory string `json:"partialHistory,omitempty"`
}

// json is m as metadata.json holds it: two-space indented, no trailing
// newline, nothing escaped for HTML.
func (m *metadata) json() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(m)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// ReadAuditable reads whether the bundle whose metadata.json is data is
// auditable, and why not: a bundle without the key (a stagewise bundle)
// is.
func ReadAuditable(data []byte) (ok bool, why string) {
	var md struct {
		Auditable   *bool  `json:"auditable"`
		Unauditable string `json:"unauditable"`
	}
	if json.Unmarshal(data, &md) != nil || md.Auditable == nil {
		return true, ""
	}
	return *md.Auditable, md.Unauditable
}
