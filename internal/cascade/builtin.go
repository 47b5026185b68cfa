package cascade

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/prompt"
)

// BuiltinWriter writes a briefing from a compact history, aiming at
// targetChars UTF-16 units. The command wires it to internal/briefing
// (briefing.Write). Until then it returns "", and the builtin provider fails
// with "builtin model not wired" rather than passing anything off as a
// briefing.
var BuiltinWriter = func(compactHistory string, targetChars int) string { return "" }

// Chat history markers of the compression user message.
const (
	historyOpen  = "<chat-history>"
	historyClose = "</chat-history>"
)

// DefaultTargetChars is the builtin writer's target when none is configured
// (compression.target_chars).
const DefaultTargetChars = prompt.DefaultTargetChars

// Builtin is the offline deterministic model: it hands the compact history of
// the user message (between the first <chat-history> and the last
// </chat-history>) to BuiltinWriter.
type Builtin struct {
	cfg ProviderConfig
	// Writer replaces BuiltinWriter when not nil.
	Writer func(compactHistory string, targetChars int) string
}

// NewBuiltin makes the builtin provider.
func NewBuiltin(cfg ProviderConfig) *Builtin { return &Builtin{cfg: cfg} }

// Name implements Provider.
func (b *Builtin) Name() string { return b.cfg.Name }

// Kind implements Provider.
func (b *Builtin) Kind() string { return KindBuiltin }

func (b *Builtin) targetChars(req Request) int {
	if req.TargetChars > 0 {
		return req.TargetChars
	}
	if b.cfg.TargetChars > 0 {
		return b.cfg.TargetChars
	}
	return DefaultTargetChars
}

// Describe implements Provider.
func (b *Builtin) Describe(req Request) DryRun {
	d := describeBase(b, req)
	d.Method = "local"
	d.URL = "builtin:"
	d.Auth = "none"
	d.Extra = map[string]any{"targetChars": b.targetChars(req)}
	if req.Temperature != nil {
		d.Temperature = nil
		d.Omitted = append(d.Omitted, "temperature (the builtin model is deterministic)")
	}
	return d
}

// ExtractHistory returns the text between the first <chat-history> and the
// last </chat-history> of a compression user message.
func ExtractHistory(user string) (string, bool) {
	i := strings.Index(user, historyOpen)
	j := strings.LastIndex(user, historyClose)
	if i < 0 || j < i+len(historyOpen) {
		return "", false
	}
	return user[i+len(historyOpen) : j], true
}

// Generate implements Provider.
func (b *Builtin) Generate(ctx context.Context, req Request) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, &Error{Provider: b.cfg.Name, Msg: err.Error(), Timeout: err == context.DeadlineExceeded, Canceled: err == context.Canceled}
	}
	hist, ok := ExtractHistory(req.User)
	if !ok {
		return nil, &Error{Provider: b.cfg.Name, Msg: fmt.Sprintf("the user message has no %s…%s section", historyOpen, historyClose)}
	}
	w := b.Writer
	if w == nil {
		w = BuiltinWriter
	}
	start := time.Now()
	out := w(hist, b.targetChars(req))
	if out == "" {
		return nil, &Error{Provider: b.cfg.Name, Msg: "builtin model not wired: cascade.BuiltinWriter returned no text (connect it to internal/briefing)"}
	}
	res := &Result{Text: out, Latency: time.Since(start), FinishReason: "stop"}
	if req.Temperature != nil {
		res.Omitted = append(res.Omitted, "temperature (the builtin model is deterministic)")
	}
	return res, nil
}
