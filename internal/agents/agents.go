// Package agents reads the session files that coding agents write on disk
// into one message model, with the compactions the agents recorded:
//
//   - Claude Code session JSONL (~/.claude/projects/<project>/<session>.jsonl,
//     and the subagents/agent-*.jsonl files beside a session): ReadClaudeCode;
//   - OpenAI Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl,
//     the current envelope and the older bare items): ReadCodex;
//   - SWE-agent trajectories (.traj, one JSON document): ReadSWEAgent;
//   - OpenTelemetry traces of model calls (OTLP JSON, the GenAI semantic
//     conventions' attributes or OpenInference's), one session per
//     conversation: ReadOTelFile (otel.go);
//   - OpenCode sessions (its JSON storage, its opencode.db, or what
//     `opencode export` prints): ReadOpenCodeFile, ReadOpenCodeAll
//     (opencode.go);
//   - Gemini CLI chats (~/.gemini/tmp/<project>/chats/session-*.json and
//     .jsonl): ReadGeminiCLIFile (gemini.go).
//
// Sniff tells the formats apart from the first lines of a file. Every
// reader reports a bad line as a Problem with its 1-based line number and
// goes on; only an I/O error, or a line longer than MaxLineBytes, stops
// it. The readers keep what compact needs of a record and skip the rest
// unbuilt (a tool's structured result, an image's data, a file snapshot).
//
// The model is deliberately small: messages with text, reasoning, image
// placeholders, tool calls and tool results with their error flag, the
// live token usage of each model step, and the recorded compactions
// (where, why, how many tokens before, and the summary the agent wrote).
// internal/convo turns a Session into the generic history the strategies
// simulate and renders it as a compact history.
package agents

import (
	"errors"
	"fmt"
	"time"
)

// Agents, as --from and --format name them.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	SWEAgent   = "swe-agent"
)

// Names lists the agents whose files this package reads (OTel: any
// application's traces).
var Names = []string{ClaudeCode, Codex, SWEAgent, OTel, OpenCode, GeminiCLI}

// Roles of a message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ImagePlaceholder stands for an image in a message's text.
const ImagePlaceholder = "[image]"

// EncryptedReasoning stands for reasoning the agent stored encrypted.
const EncryptedReasoning = "[encrypted reasoning]"

// MaxLineBytes bounds one line of a session file; a longer line (a binary
// file, an endless stream) stops the reader with an error rather than
// being read whole.
const MaxLineBytes = 256 << 20

// ErrLineTooLong is wrapped by the error about a line over MaxLineBytes.
var ErrLineTooLong = errors.New("line too long")

// Problem is one line (or fact) a reader reports: a line it could not
// read, or left out, and why.
type Problem struct {
	Line    int    `json:"line,omitempty"` // 1-based; 0 when not about one line
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("line %d: %s", p.Line, p.Message)
	}
	return p.Message
}

// ToolCall is one call an assistant message makes.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Input is the call's arguments: JSON (an object, as the agent wrote
	// it) or, for a free-form tool such as Codex's apply_patch, the raw
	// text.
	Input string `json:"input"`
}

// Usage is the token usage of one model step, as the agent recorded it.
type Usage struct {
	// Input counts the input tokens not read from or written to a prompt
	// cache where the agent tells them apart (Claude Code); all input
	// tokens otherwise (Codex counts the cached ones in its input).
	Input         int64 `json:"input"`
	CacheRead     int64 `json:"cacheRead,omitempty"`
	CacheCreation int64 `json:"cacheCreation,omitempty"`
	Output        int64 `json:"output"`
}

// Context is the size of the context the model was sent at that step:
// every input token, cached or not.
func (u Usage) Context() int64 { return u.Input + u.CacheRead + u.CacheCreation }

// Message is one message of a session.
type Message struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	// Text is what the message says; images are ImagePlaceholder lines.
	Text string `json:"text"`
	// Reasoning is the model's visible reasoning (thinking blocks,
	// reasoning summaries), EncryptedReasoning where it is encrypted.
	Reasoning string     `json:"reasoning,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Tool results: the call answered, and whether the tool failed.
	// ExitCode is the command's exit status where the result gives one.
	ToolCallID string `json:"toolCallId,omitempty"`
	IsError    bool   `json:"isError,omitempty"`
	ExitCode   *int   `json:"exitCode,omitempty"`
	// ClearedAt is when the agent cleared a tool result's output from
	// the context it sends (OpenCode's prune), zero when it never did;
	// Text is still the whole output.
	ClearedAt time.Time `json:"clearedAt,omitzero"`
	// Model is the model that wrote an assistant message, when recorded.
	Model string `json:"model,omitempty"`
	// Usage is the live usage of the model step that wrote an assistant
	// message (nil when not recorded).
	Usage *Usage    `json:"usage,omitempty"`
	Time  time.Time `json:"time,omitempty"`
	// Line is the 1-based line of the message's first record.
	Line int `json:"line"`
}

// Compaction is one compaction the agent recorded.
type Compaction struct {
	// Index is the number of the session's Messages before it: the
	// compaction replaced Messages[Prev:Index], where Prev is the Index of
	// the compaction before it (0 for the first), less Preserved.
	Index int `json:"index"`
	// Line is the 1-based line of its record (the boundary).
	Line int    `json:"line"`
	ID   string `json:"id,omitempty"`
	// Trigger is "auto" or "manual" when the agent says which.
	Trigger string `json:"trigger,omitempty"`
	// PreTokens is the context size the agent gave for the moment it
	// compacted (Claude Code's preTokens; Codex: the last token count
	// before it), 0 when unknown.
	PreTokens int64 `json:"preTokens,omitempty"`
	// PostTokens and DurationMs are what later Claude Code versions
	// record of the compaction: the context after it and how long it
	// took (0 when not recorded).
	PostTokens int64 `json:"postTokens,omitempty"`
	DurationMs int64 `json:"durationMs,omitempty"`
	// Summary is the summary the agent recorded, byte for byte; HasSummary
	// says whether there is one.
	Summary    string `json:"-"`
	HasSummary bool   `json:"hasSummary"`
	// SummaryLine is the 1-based line of the summary's record (0: the
	// boundary's own).
	SummaryLine int `json:"summaryLine,omitempty"`
	// Unauditable says why the compaction cannot be checked ("" when it
	// can): a remote compaction whose output is encrypted.
	Unauditable string    `json:"unauditable,omitempty"`
	Time        time.Time `json:"time,omitempty"`
	// Preserved are the ids of the messages before the boundary the agent
	// kept verbatim after it (Claude Code's preservedMessages, the user
	// messages of Codex's replacement_history).
	Preserved []string `json:"preserved,omitempty"`
	// Usage is the compaction call's own usage where the agent recorded
	// it apart from the steps' (Codex), nil otherwise.
	Usage *Usage `json:"usage,omitempty"`
	// TraceID and SpanID name, for a compaction read from traces (OTel),
	// the span of the model call whose output its summary is: the
	// compaction call, where one wrote it, else the first call of the
	// compacted view ("" otherwise).
	TraceID string `json:"traceId,omitempty"`
	SpanID  string `json:"spanId,omitempty"`
}

// Session is one session file read.
type Session struct {
	Agent string `json:"agent"`
	Path  string `json:"path"`
	ID    string `json:"id"`
	// Cwd is the working directory of the session, "" when unknown.
	Cwd   string `json:"cwd,omitempty"`
	Model string `json:"model,omitempty"`
	// ContextWindow is the model's context window where the agent
	// recorded it (Codex), 0 otherwise.
	ContextWindow int64 `json:"contextWindow,omitempty"`
	// Messages are the session's main thread, oldest first, joined across
	// its compactions (the summaries are in Compactions, not here).
	Messages    []Message    `json:"-"`
	Compactions []Compaction `json:"compactions"`
	// Partial says why the file does not hold the session from its
	// start ("" when it does): a Claude Code file copied from the middle
	// of a session, whose first records' parents are not in it.
	Partial string `json:"partial,omitempty"`
	// NoContent says why the session's messages hold no text ("" when
	// they do): traces whose instrumentation recorded none (OTel; the
	// messages are then one per model call, with its usage).
	NoContent string `json:"noContent,omitempty"`
	// Conversation is the conversation id traces recorded for it
	// (gen_ai.conversation.id, else OpenInference's session.id); "" when
	// none did (a trace of its own) and for the agents' files.
	Conversation string `json:"conversation,omitempty"`
	// Subagents are the sessions of the subagents it ran, where they are
	// stored beside it (Claude Code's subagents/agent-*.jsonl).
	Subagents []*Session `json:"subagents,omitempty"`
	// Stats are totals the agent recorded for the whole session
	// (SWE-agent's model_stats), nil when none.
	Stats    *Stats    `json:"stats,omitempty"`
	Problems []Problem `json:"problems"`
}

// Stats are a session's recorded totals.
type Stats struct {
	TokensSent     int64   `json:"tokensSent"`
	TokensReceived int64   `json:"tokensReceived"`
	APICalls       int64   `json:"apiCalls"`
	CostUSD        float64 `json:"costUsd"`
}

// Steps counts the assistant messages (the model steps) of s.
func (s *Session) Steps() int {
	n := 0
	for i := range s.Messages {
		if s.Messages[i].Role == RoleAssistant {
			n++
		}
	}
	return n
}

func (s *Session) problem(line int, format string, a ...any) {
	s.Problems = append(s.Problems, Problem{Line: line, Message: fmt.Sprintf(format, a...)})
}

// maxProblemLines bounds the problems one reader reports line by line;
// beyond it, one problem counts the rest (a file of another format would
// otherwise give one problem per line).
const maxProblemLines = 200

// capProblems keeps the first maxProblemLines problems of s and counts the
// others in one more.
func (s *Session) capProblems() {
	if n := len(s.Problems); n > maxProblemLines {
		s.Problems = append(s.Problems[:maxProblemLines:maxProblemLines],
			Problem{Message: fmt.Sprintf("%d more problems like these not shown", n-maxProblemLines)})
	}
}
