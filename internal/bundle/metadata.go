package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/serialize"
)

// metadata.json has two writers, each with its own key order:
// UpstreamMetadata, byte for byte as the upstream extraction writes it
// (compact extract from a stagewise database, compact compress), and
// AgentMetadata (compact extract --from, an agent's compactions), which
// has the same keys where they mean the same and more of its own.
// Metadata is what the readers read of either.

// Metadata is what diff, replay, eval, report and the commands read of a
// bundle's metadata.json. Every writer writes chatId, chatTitle,
// compressionNumber, boundaryMessageIndex, previousCompressionIndex and
// previousCompressionSize; the other fields are optional.
type Metadata struct {
	ChatID            string `json:"chatId"`
	ChatTitle         string `json:"chatTitle"` // null reads as ""
	CompressionNumber int    `json:"compressionNumber"`
	// BoundaryMessageIndex, PreviousCompressionIndex and
	// PreviousCompressionSize are nil when null or missing.
	BoundaryMessageIndex     *int `json:"boundaryMessageIndex"`
	PreviousCompressionIndex *int `json:"previousCompressionIndex"`
	PreviousCompressionSize  *int `json:"previousCompressionSize"`
	// SlashIdsResolved is present (not nil) only in a bundle written at
	// the e3e profile (see HasSlash).
	SlashIdsResolved json.RawMessage `json:"slashIdsResolved"`
	// Auditable is set only in an agent's bundle: false when the agent's
	// summary cannot be read (Unauditable says why), and the bundle has no
	// FileActual.
	Auditable   *bool  `json:"auditable"`
	Unauditable string `json:"unauditable"`
	// Agent is set only in an agent's bundle (AgentMetadata.Agent);
	// ConversationID, TraceID and SpanID only in one read from traces.
	Agent          string `json:"agent"`
	ConversationID string `json:"conversationId"`
	TraceID        string `json:"traceId"`
	SpanID         string `json:"spanId"`
}

// HasSlash reports whether the metadata has slashIdsResolved: the bundle
// was written at the e3e profile.
func (m *Metadata) HasSlash() bool { return m.SlashIdsResolved != nil }

// IsAuditable reports whether the bundle's briefing can be read, and why
// not: a bundle without the key (a stagewise bundle) is.
func (m *Metadata) IsAuditable() (ok bool, why string) {
	if m.Auditable == nil {
		return true, ""
	}
	return *m.Auditable, m.Unauditable
}

// ParseMetadata reads data as a metadata.json; the error is
// encoding/json's.
func ParseMetadata(data []byte) (Metadata, error) {
	var md Metadata
	err := json.Unmarshal(data, &md)
	return md, err
}

// ReadMetadata reads dir's metadata.json (at most MaxRecordBytes).
func ReadMetadata(dir string) (Metadata, error) {
	path := filepath.Join(dir, FileMetadata)
	data, err := fsutil.ReadFileLimit(path, MaxRecordBytes)
	if err != nil {
		return Metadata{}, err
	}
	md, err := ParseMetadata(data)
	if err != nil {
		return md, fmt.Errorf("%s: %v", path, err)
	}
	return md, nil
}

// UpstreamMetadata is metadata.json of a stagewise bundle, in the upstream
// key order.
//
// ChatID and ChatTitle hold the bytes of the agentInstances TEXT columns as
// SQLite stores them; AppendJSON decodes them as the upstream does (see
// extract.TextColumn), so invalid UTF-8 in them comes out as U+FFFD.
type UpstreamMetadata struct {
	ChatID                          string
	ChatTitle                       history.Value // string, or null for a NULL title
	Channel                         string
	CompressionNumber               int
	TotalCompressions               int
	TotalChatMessages               int
	BoundaryMessageIndex            int
	BoundaryMessageID               history.Value // undefined drops the key, as JSON.stringify does
	TotalMessagesInSlice            int
	SerializedMessageCount          int
	PreviousCompressionIndex        int // -1: null
	PreviousCompressionSize         int // 0: null
	CompactHistoryChars             int
	UserMessageChars                int
	ActualOutputChars               int
	ActualOutputIncludesPreviousTag bool
	// SlashIdsResolved is written only when HasSlash (the e3e profile).
	HasSlash         bool
	SlashIdsResolved []serialize.Resolution
}

// AppendJSON writes m as JSON.stringify(m, null, 2) does.
func (m *UpstreamMetadata) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	key := func(k string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, "\n  \""...)
		b = append(b, k...)
		b = append(b, "\": "...)
	}
	str := func(k, v string) {
		key(k)
		b, _ = history.AppendJSON(b, history.StringValue(v))
	}
	val := func(k string, v history.Value) {
		if v.IsUndefined() {
			return
		}
		key(k)
		out, err := history.AppendJSON(b, v)
		if err != nil {
			out = append(b, "null"...)
		}
		b = out
	}
	num := func(k string, n int) {
		key(k)
		b = strconv.AppendInt(b, int64(n), 10)
	}
	numOrNull := func(k string, n int, isNull bool) {
		key(k)
		if isNull {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, int64(n), 10)
		}
	}
	str("chatId", history.ToValidUTF8(m.ChatID))
	title := m.ChatTitle
	if title.Kind() == history.String {
		if t := title.Str(); !utf8.ValidString(t) {
			title = history.StringValue(history.ToValidUTF8(t))
		}
	}
	val("chatTitle", title)
	str("channel", m.Channel)
	num("compressionNumber", m.CompressionNumber)
	num("totalCompressions", m.TotalCompressions)
	num("totalChatMessages", m.TotalChatMessages)
	num("boundaryMessageIndex", m.BoundaryMessageIndex)
	val("boundaryMessageId", m.BoundaryMessageID)
	num("totalMessagesInSlice", m.TotalMessagesInSlice)
	num("serializedMessageCount", m.SerializedMessageCount)
	numOrNull("previousCompressionIndex", m.PreviousCompressionIndex, m.PreviousCompressionIndex < 0)
	numOrNull("previousCompressionSize", m.PreviousCompressionSize, m.PreviousCompressionSize == 0)
	num("compactHistoryChars", m.CompactHistoryChars)
	num("userMessageChars", m.UserMessageChars)
	num("actualOutputChars", m.ActualOutputChars)
	key("actualOutputIncludesPreviousTag")
	b = strconv.AppendBool(b, m.ActualOutputIncludesPreviousTag)
	if m.HasSlash {
		key("slashIdsResolved")
		if len(m.SlashIdsResolved) == 0 {
			b = append(b, "[]"...)
		} else {
			b = append(b, '[')
			for i, r := range m.SlashIdsResolved {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, "\n    {\n      \"id\": "...)
				b, _ = history.AppendJSON(b, history.StringValue(r.ID))
				b = append(b, ",\n      \"resolved\": "...)
				b = strconv.AppendBool(b, r.Resolved)
				b = append(b, "\n    }"...)
			}
			b = append(b, "\n  ]"...)
		}
	}
	return append(b, "\n}"...)
}

// AgentMetadata is metadata.json of an agent's bundle. The keys Metadata
// reads mean what they mean in a stagewise bundle; message indices count
// the session's messages as convo.FromSession lists them.
type AgentMetadata struct {
	Agent       string `json:"agent"`
	ChatID      string `json:"chatId"`
	ChatTitle   string `json:"chatTitle"`
	Session     string `json:"session"`
	SessionFile string `json:"sessionFile"`
	Model       string `json:"model"`
	Cwd         string `json:"cwd"`
	// ConversationID, TraceID and SpanID link a bundle read from traces
	// (--from otel) to them: the conversation's gen_ai.conversation.id
	// (or session.id; "" when the trace recorded none), and the trace
	// and span of the model call that wrote the summary
	// (agents.Compaction's TraceID and SpanID). compact eval --otel
	// writes its scores as events of that span.
	ConversationID string `json:"conversationId,omitempty"`
	TraceID        string `json:"traceId,omitempty"`
	SpanID         string `json:"spanId,omitempty"`

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
	RecordedCompactionUsage *TokenUsage `json:"recordedCompactionUsage,omitempty"`
	LiveTokensBefore        int64       `json:"liveTokensBefore"`
	EstimatedTokens         int64       `json:"estimatedTokens"`

	TotalMessagesInSlice     int  `json:"totalMessagesInSlice"`
	SerializedMessageCount   int  `json:"serializedMessageCount"`
	PreservedMessages        int  `json:"preservedMessages"`
	PreviousCompressionIndex *int `json:"previousCompressionIndex"`
	PreviousCompressionSize  *int `json:"previousCompressionSize"`
	CompactHistoryChars      int  `json:"compactHistoryChars"`
	UserMessageChars         int  `json:"userMessageChars"`
	ActualOutputChars        int  `json:"actualOutputChars"`

	// Auditable is false when the summary cannot be read (Unauditable
	// says why): the bundle has no FileActual, and diff and eval skip it.
	// PreviousUnauditable: the compaction before it was such a one, so
	// the compact history starts without a previous summary.
	Auditable           bool   `json:"auditable"`
	Unauditable         string `json:"unauditable,omitempty"`
	PreviousUnauditable bool   `json:"previousUnauditable,omitempty"`
	Pack                string `json:"pack"`
	// PartialHistory says why the history of the session's first
	// compaction holds less than the session had: the file starts after
	// the session did.
	PartialHistory string `json:"partialHistory,omitempty"`
}

// TokenUsage is a model call's token usage as an agent recorded it
// (agents.Usage, which converts to it).
type TokenUsage struct {
	Input         int64 `json:"input"`
	CacheRead     int64 `json:"cacheRead,omitempty"`
	CacheCreation int64 `json:"cacheCreation,omitempty"`
	Output        int64 `json:"output"`
}

// JSON is m as metadata.json holds it: two-space indented, no trailing
// newline, nothing escaped for HTML.
func (m *AgentMetadata) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(m)
	return bytes.TrimRight(b.Bytes(), "\n")
}
