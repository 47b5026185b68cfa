// Package cascade calls language models for history compression: one small
// Provider interface with implementations for Gemini (google.golang.org/genai),
// OpenAI and OpenAI-compatible servers (github.com/sashabaranov/go-openai),
// Anthropic (github.com/anthropics/anthropic-sdk-go/v2) and an offline
// builtin writer, a model table with per-model parameter support and prices,
// and the cascade of upstream's compressHistoryInternal
// (history-compression/index.ts of the profile's release, internal/upstream):
// the models are tried in order, each with its own time budget, until one
// answers with at least MinOutputChars UTF-16 units of trimmed text; under
// the agent-core releases a request that does not settle within the abort
// grace after its timeout stops the cascade.
//
// API keys never leave a provider: results, errors, attempt records, dry-run
// descriptions and String forms carry "[redacted]" or the name of the
// environment variable the key came from, never the key. Every header value
// and body excerpt kept (request ids, error messages, finish reasons, the
// answer) goes through Redactor: any 12 characters of a key in a row, in
// any letter case, also behind invisible characters, HTML entities, JSON
// and URL escapes, or in base64 or hex, the key as providers mask it
// (sk-proj-ZZOP*****cdef) and URL credentials are removed.
//
// Every call goes through HTTPClient: no redirect is followed (the key and
// the prompt go to the configured base URL only), and the standard logger,
// through which net/http quotes what a server sends on an idle connection,
// is guarded against the keys (GuardLog).
//
// Answers are capped: Settings.MaxAnswerBytes (cascade.max_answer_bytes).
package cascade

import (
	"context"
	"strings"
	"time"
)

// Provider kinds.
const (
	KindGemini           = "gemini"
	KindOpenAI           = "openai"
	KindOpenAICompatible = "openai-compatible"
	KindAnthropic        = "anthropic"
	KindBuiltin          = "builtin"
)

// Request is one call to one model.
type Request struct {
	System string
	User   string
	// Model is the provider's own model name (the table's api_model).
	Model string
	// Temperature is sent when not nil. The Anthropic API (2026-10-21) has
	// no temperature; that provider leaves it out and says so in
	// Result.Omitted.
	Temperature *float64
	// MaxOutputTokens is sent when > 0.
	MaxOutputTokens int
	// Timeout bounds the call when > 0, on top of the context's deadline.
	Timeout time.Duration
	// TargetChars is Input.TargetChars: read by the builtin model only.
	TargetChars int
	// MaxAnswerBytes, when > 0, bounds the response body read: at most
	// bodyLimit(MaxAnswerBytes) bytes; a longer body fails the call. The
	// cascade cuts the answer itself to MaxAnswerBytes.
	MaxAnswerBytes int
}

// Usage is a token count as the provider reports it.
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens}
}

// Result is a successful answer. Text is as received (not trimmed).
type Result struct {
	Text    string
	Usage   Usage
	Latency time.Duration
	// RequestID is the provider's request id: the request-id /
	// x-request-id response header, else the response id in the body.
	RequestID string
	// FinishReason is the provider's own value (STOP, stop, end_turn, …).
	FinishReason string
	// HTTPStatus is the status of the response, 0 for builtin.
	HTTPStatus int
	// Omitted lists request parameters the provider left out, with why.
	Omitted []string
}

// Provider calls one API. Implementations are safe for concurrent use.
type Provider interface {
	// Name is the provider's name in the configuration (providers.<name>).
	Name() string
	// Kind is one of the Kind* constants.
	Kind() string
	// Generate makes one call, without retries. Its errors are *Error.
	Generate(ctx context.Context, req Request) (*Result, error)
	// Describe says what Generate would send, without sending it.
	Describe(req Request) DryRun
}

// Error is a failed call. Its message never contains an API key.
type Error struct {
	Provider string
	// Status is the HTTP status of the response, 0 when there was none.
	Status int
	// RetryAfter is the delay the server asked for (Retry-After,
	// retry-after-ms, or Gemini's google.rpc.RetryInfo), when HasRetryAfter.
	RetryAfter    time.Duration
	HasRetryAfter bool
	// Transient: 429, 5xx, or the connection reset or closed early. Worth
	// another try of the same model.
	Transient bool
	// Timeout: a deadline ran out (the context's or Request.Timeout).
	Timeout bool
	// Canceled: the caller's context was canceled.
	Canceled  bool
	RequestID string
	Msg       string
}

func (e *Error) Error() string { return e.Provider + ": " + e.Msg }

// DryRun describes a request without making it. It never holds a key.
type DryRun struct {
	// Model is the table id; set by Cascade.Describe.
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider"`
	Kind     string `json:"kind"`
	Method   string `json:"method"`
	// URL is the full request URL (base URL and the provider's path).
	URL      string `json:"url"`
	APIModel string `json:"apiModel"`
	// Auth says how the key is sent and where it comes from, e.g.
	// "x-goog-api-key (env GEMINI_API_KEY)".
	Auth            string          `json:"auth"`
	Temperature     *float64        `json:"temperature"`
	MaxOutputTokens int             `json:"maxOutputTokens"`
	Timeout         string          `json:"timeout,omitempty"`
	Omitted         []string        `json:"omitted,omitempty"`
	Messages        []DryRunMessage `json:"messages"`
	// Extra holds provider specifics (the output limit's field name, the
	// builtin's target size).
	Extra map[string]any `json:"extra,omitempty"`
	// RPM is the provider's rate limit in requests per minute, 0: none.
	RPM   int    `json:"rpm,omitempty"`
	Error string `json:"error,omitempty"`
}

// DryRunMessage is one message of a dry run: its size and first lines.
type DryRunMessage struct {
	Role string `json:"role"`
	// Bytes is the UTF-8 size, Chars the size in UTF-16 units.
	Bytes int `json:"bytes"`
	Chars int `json:"chars"`
	// Head is the first lines, each cut at 120 characters.
	Head []string `json:"head"`
}

// headLines is the number of lines a DryRunMessage keeps.
const headLines = 3

func describeMessage(role, text string) DryRunMessage {
	m := DryRunMessage{Role: role, Bytes: len(text), Chars: len16(text), Head: []string{}}
	for i, line := range strings.SplitN(text, "\n", headLines+1) {
		if i == headLines {
			break
		}
		r := []rune(line)
		if len(r) > 120 {
			line = string(r[:120]) + "…"
		}
		m.Head = append(m.Head, line)
	}
	return m
}

func describeBase(p Provider, req Request) DryRun {
	d := DryRun{
		Provider:        p.Name(),
		Kind:            p.Kind(),
		Method:          "POST",
		APIModel:        req.Model,
		Temperature:     req.Temperature,
		MaxOutputTokens: req.MaxOutputTokens,
		Messages:        []DryRunMessage{describeMessage("system", req.System), describeMessage("user", req.User)},
	}
	if req.Timeout > 0 {
		d.Timeout = req.Timeout.String()
	}
	return d
}

// withTimeout applies Request.Timeout to ctx.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}
