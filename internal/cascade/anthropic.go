package cascade

import (
	"context"
	"net/http"
	"strings"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// anthropicDefaultTimeout is the request timeout given to the SDK when
// neither the request nor the context has one. Any explicit timeout also
// keeps the SDK from demanding streaming for MaxTokens > 21,333.
const anthropicDefaultTimeout = 10 * time.Minute

// Anthropic calls the Messages API through
// github.com/anthropics/anthropic-sdk-go/v2 (API version 2026-10-21):
// POST {base}/v1/messages, key as Authorization: Bearer. That API has no
// temperature; a requested one is left out and listed in Result.Omitted.
type Anthropic struct {
	cfg  ProviderConfig
	base *http.Client
}

// NewAnthropic makes an Anthropic provider.
func NewAnthropic(cfg ProviderConfig) *Anthropic {
	return &Anthropic{cfg: cfg, base: baseClient(cfg)}
}

// Name implements Provider.
func (a *Anthropic) Name() string { return a.cfg.Name }

// Kind implements Provider.
func (a *Anthropic) Kind() string { return KindAnthropic }

const anthropicNoTemperature = "temperature (the Anthropic API has none)"

// Describe implements Provider.
func (a *Anthropic) Describe(req Request) DryRun {
	d := describeBase(a, req)
	d.URL = joinURL(a.cfg.BaseURL, "v1/messages")
	d.Auth = "Authorization: Bearer (" + a.cfg.KeySource + ")"
	if req.Temperature != nil {
		d.Temperature = nil
		d.Omitted = append(d.Omitted, anthropicNoTemperature)
	}
	return d
}

// Generate implements Provider.
func (a *Anthropic) Generate(ctx context.Context, req Request) (*Result, error) {
	if a.cfg.APIKey == "" {
		return nil, &Error{Provider: a.cfg.Name, Msg: "no API key (" + a.cfg.KeySource + ")"}
	}
	if req.MaxOutputTokens <= 0 {
		return nil, &Error{Provider: a.cfg.Name, Msg: "max output tokens is required by the Messages API"}
	}
	ctx, cancel := withTimeout(ctx, req.Timeout)
	defer cancel()
	timeout := anthropicDefaultTimeout
	if dl, ok := ctx.Deadline(); ok {
		// Slightly longer than the context, so that the context's deadline
		// is the one that fires and the error is a plain DeadlineExceeded.
		timeout = time.Until(dl) + time.Second
	}
	rec := &wire{limit: bodyLimit(req.MaxAnswerBytes)}
	client := anthropic.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(a.cfg.APIKey),
		option.WithBaseURL(strings.TrimRight(a.cfg.BaseURL, "/")+"/"),
		option.WithHTTPClient(newCallClient(a.base, rec, nil)),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(timeout),
	)
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: int64(req.MaxOutputTokens),
		System:    []anthropic.TextBlockParam{{Text: req.System}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(req.User))},
	}
	start := time.Now()
	msg, err := client.Messages.New(ctx, params)
	latency := time.Since(start)
	if err != nil {
		return nil, classify(ctx, a.cfg.Name, err, rec, a.cfg.APIKey)
	}
	status, header, _, _ := rec.snapshot()
	res := &Result{
		Latency:      latency,
		HTTPStatus:   status,
		FinishReason: string(msg.StopReason),
		Usage: Usage{
			InputTokens:  msg.Usage.InputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens,
			OutputTokens: msg.Usage.OutputTokens,
		},
	}
	// Server-side compaction bills under usage.iterations (AnthropicUsage).
	if u, _, err := AnthropicUsage([]byte(msg.Usage.RawJSON())); err == nil {
		res.Usage = u
	}
	if header != nil {
		res.RequestID = firstHeader(header, "request-id", "x-request-id")
	}
	if res.RequestID == "" {
		res.RequestID = msg.ID
	}
	if req.Temperature != nil {
		res.Omitted = append(res.Omitted, anthropicNoTemperature)
	}
	var sb strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			sb.WriteString(b.Text)
		}
	}
	res.Text = sb.String()
	// Header values and body fields may echo the key.
	res.RequestID, res.FinishReason = scrub(res.RequestID, a.cfg.APIKey), scrub(res.FinishReason, a.cfg.APIKey)
	return res, nil
}
