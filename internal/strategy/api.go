// Package strategy owns the compression strategies a user can simulate
// and compare offline (stagewise, Onyx, sliding window, selective prune,
// summary buffer, and the cheap ones the agents use since 2025:
// observation masking, tool-result clearing, OpenCode's prune then
// summary, masking with an occasional summary, Codex's user-message
// retention), the generic message model they work on, their token
// estimators, the guardrails every strategy gets, and the step-by-step
// simulation driver.
//
// This file is the contract between the strategies and their callers
// (compact simulate); implementations live in one file per strategy.
package strategy

import (
	"context"
	"time"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
)

// Roles of a generic message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ToolCall is one call an assistant message makes (OpenAI shape).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Message is one message of a history, from any agent. Histories are lists
// (ParentID empty) or trees (ParentID set: the branch simulated is the path
// from the root to the last message).
type Message struct {
	ID         string     `json:"id"`
	ParentID   string     `json:"parent_id,omitempty"`
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	CreatedAt  time.Time  `json:"created_at,omitempty"`

	// Stagewise messages keep the decoded message, so the stagewise
	// strategy serializes and estimates exactly as the app does, and the
	// briefing the app stored on it (StoredSummary, nil when none).
	Raw           *history.Value `json:"-"`
	StoredSummary *string        `json:"-"`

	// Synthetic marks a tool message FromStagewise derived from a tool
	// part's output (Raw nil): the stagewise strategy skips it (the
	// assistant's Raw already holds that output), the others treat it as
	// the tool response.
	Synthetic bool `json:"-"`
}

// Summarizer writes a summary. Request is the strategy's own prompt for the
// messages it compacts (System and User as they would be sent), plus the
// plain facts a rule-based or recorded summarizer needs.
type Summarizer interface {
	Summarize(ctx context.Context, req SummaryRequest) (string, error)
}

// SummaryRequest is what a strategy asks a summarizer for.
type SummaryRequest struct {
	Strategy string
	System   string
	User     string
	// Compacted are the messages being summarized (oldest first), Previous
	// the summary they extend ("" when none), TargetChars a size goal.
	Compacted   []Message
	Previous    string
	TargetChars int
	// BoundaryID is the id of the first message kept verbatim (stagewise:
	// the boundary message, where the app stores the briefing).
	BoundaryID string

	// Boundary is the message BoundaryID names (nil when none); the
	// Recorded summarizer reads its StoredSummary.
	Boundary *Message
	// CompactHistory is the serialized history (stagewise only: the
	// <chat-history> body of User, from the previous briefing on), for
	// the builtin briefing writer.
	CompactHistory string
	// WorkingMemory are the facts the summary-buffer strategy sends along.
	WorkingMemory []string
}

// Config is the knobs of a simulation; every strategy reads the ones it
// uses and ignores the others. Zero values mean the strategy's defaults.
type Config struct {
	ContextWindow  int     // tokens
	SystemOverhead int     // tokens of system prompt and tools, added to every view
	Threshold      float64 // trigger fraction (stagewise 0.65, onyx 0.75, yourgpt 0.75, codex-user-retention 0.9)
	Reserved       int     // onyx reserved tokens; yourgpt reserveForResponse (4096); prune-summarize: what the usable window leaves out (52000)
	RecentRatio    float64 // onyx recent budget share of history (0.2)
	RecentBuffer   int     // yourgpt recent messages (10)
	ToolResultCap  int     // yourgpt tool-result character cap (0: 10000; negative: no cap)
	PruneThreshold int     // selective prune: tool results over this many characters (500)
	PruneExtract   int     // selective prune: extract length (200)
	// MaxConsecutive caps summarizer calls in consecutive steps (guardrail;
	// 0: 2; negative: no cap). Strategies that compact without a summarizer
	// (sliding-window, selective-prune) are not capped: they cost nothing
	// and holding them back would only send an over-budget context.
	MaxConsecutive int
	// Tokenizer: "" the strategy's own estimator, or "o200k" / "cl100k".
	Tokenizer string
	// Stagewise: the upstream profile ("e3e"/"head"), the walk's minimum
	// uncompressed messages (nil: default), the briefing target in chars.
	Profile         string
	MinUncompressed *int
	TargetChars     int
	// Stagewise: the agent whose defaults apply ("base" 0.65/10, "chat"
	// 0.5/12; "" base), the prompt pack (nil: the built-in default pack)
	// and the locale of the hint's numbers ("": en-US).
	Agent  string
	Pack   *prompt.Pack
	Locale string
	// WorkingMemory are summary-buffer facts known from the start (user
	// messages starting with "remember:" add more).
	WorkingMemory []string
	// Extra carries any other knob by name, for --sweep (e.g. "kept_fraction").
	// ExtraKnobs lists the names the strategies read; others are ignored.
	Extra map[string]float64
}

// StepReport is one step of the timeline: the state after assistant
// message Index, and what the strategy did there.
type StepReport struct {
	Step  int `json:"step"`  // 1-based count of assistant messages so far
	Index int `json:"index"` // index in the history of that assistant message
	// ID is that message's id. For a tree, Index and Boundary index the
	// simulated branch (the path from the root to the last message).
	ID string `json:"id"`
	// ContextTokens is the size of what the model would be sent at this
	// step (system overhead plus the strategy's view), by the estimator.
	ContextTokens float64 `json:"contextTokens"`
	Fired         bool    `json:"fired"`
	// Boundary is the index of the first message kept verbatim after a
	// compaction at this step, -1 when none happened.
	Boundary   int    `json:"boundary"`
	BoundaryID string `json:"boundaryId,omitempty"`
	// KeptVerbatim counts the history messages in the view after this step
	// (tool outputs replaced by a placeholder, a stub or a cap still
	// count; summaries and working memory the strategy adds do not).
	KeptVerbatim int `json:"keptVerbatim"`
	SummaryChars int `json:"summaryChars"` // size of the active summary (UTF-16 units)
	// AfterTokens is the context size after the compaction (equal to
	// ContextTokens when none happened).
	AfterTokens float64 `json:"afterTokens"`
	// Rejected says why a compaction that fired was thrown away by a
	// guardrail ("did not shrink", "consecutive cap"), "" otherwise.
	Rejected string `json:"rejected,omitempty"`
	// SummarizerCalled is set when the strategy called the summarizer at
	// this step (kept, rejected or failed).
	SummarizerCalled bool `json:"summarizerCalled,omitempty"`
	// Compacted is the number of messages the compaction summarized,
	// dropped or rewrote (0 when none happened).
	Compacted int `json:"compacted,omitempty"`
	// Note explains a trigger that fired without a compaction (the walk
	// skipped, no user message to cut before, a summarizer error) or how a
	// compaction was rejected.
	Note string `json:"note,omitempty"`
	// Summary is the summary written at this step ("" when none).
	Summary string `json:"-"`
	// Replaced lists the history indices of the messages a compaction
	// without a summarizer took out of the view (sliding-window) or
	// rewrote (selective-prune, and the strategies of Rewrites), in
	// order; nil otherwise. The offline probe scores of compact simulate
	// read it.
	Replaced []int `json:"-"`
	// KeptPrefix is, for a compaction kept, the tokens at the head of the
	// view it left as they were (the system overhead included): a
	// provider's prompt cache still holds them, and the rest of the view
	// (AfterTokens − KeptPrefix) is written to it again. 0 otherwise.
	KeptPrefix float64 `json:"keptPrefixTokens,omitempty"`
	// RawTokens is what this step would send with no compaction ever:
	// the system overhead and every message so far, by the strategy's
	// estimator (0 when the strategy does not say).
	RawTokens float64 `json:"-"`
	// Briefing is, when it is more than Summary, the text that stands in
	// the view for the messages the compaction summarized (Codex's
	// retention: the user messages kept, then the summary); "" otherwise.
	Briefing string `json:"-"`
}

// Timeline is the whole simulation of one history under one strategy.
type Timeline struct {
	Strategy string       `json:"strategy"`
	Steps    []StepReport `json:"steps"`
	// Totals over the run.
	// Compactions counts the compactions kept: for the strategies that
	// summarize, the summarizer calls kept; for sliding-window and
	// selective-prune, the steps that dropped or rewrote messages.
	Compactions int `json:"compactions"`
	// SummarizerCalls counts every summarizer call, kept or not.
	SummarizerCalls int     `json:"summarizerCalls"`
	Rejected        int     `json:"rejected"`
	TokensSent      float64 `json:"tokensSent"` // sum of ContextTokens over steps
	PeakContext     float64 `json:"peakContext"`
	KeptAtEnd       int     `json:"keptVerbatimAtEnd"`
	FinalSummary    string  `json:"-"`
	// TokensRaw sums RawTokens over the steps: what sending every
	// message, never compacting, would have sent.
	TokensRaw float64 `json:"tokensRaw,omitempty"`
}

// Strategy is one compression strategy. A Strategy holds the state of one
// simulation; New gives a fresh one.
type Strategy interface {
	Name() string
	// Step shows the strategy the history up to and including message i
	// (an assistant message) and lets it compact. It returns the report of
	// that step, guardrails not yet applied (the driver applies them).
	Step(ctx context.Context, history []Message, i int, sum Summarizer) (StepReport, error)
	// View is what the model would be sent next, oldest first, summaries
	// included as the strategy places them.
	View() []Message
}

// Factory makes a fresh strategy for a configuration.
type Factory func(cfg Config) (Strategy, error)

// Registry lists the strategies by name: stagewise, onyx, sliding-window,
// selective-prune, summary-buffer, observation-masking, tool-clearing,
// prune-summarize, mask-then-summarize, codex-user-retention.
var Registry = map[string]Factory{}

// About says in a line what each registered strategy does, with its
// defaults and where they come from (compact simulate --help lists them).
var About = map[string]string{}

// Rewrites maps the strategies whose compactions rewrite tool results in
// place, without a summarizer, to what they put in place of the result m
// (the answer to call, nil when unknown) under cfg: the offline probe
// scores read what the view still holds of a rewritten call.
var Rewrites = map[string]func(m *Message, call *ToolCall, cfg Config) string{}

// Simulate runs history through the named strategy step by step (every
// assistant message is a step), applying the guardrails, and returns the
// timeline. It lives in simulate.go.
//
//	func Simulate(ctx context.Context, history []Message, name string, cfg Config, sum Summarizer) (*Timeline, error)
