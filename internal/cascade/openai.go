package cascade

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// OpenAI calls chat completions through github.com/sashabaranov/go-openai:
// POST {base}/v1/chat/completions, key as Authorization: Bearer. The same
// type serves openai-compatible servers (vLLM, llama.cpp, Ollama,
// OpenRouter), where the key is optional.
//
// Temperature and, on compatible servers, the output limit are written into
// the JSON body by the transport, not by go-openai: its Temperature float32
// has omitempty, so 0 would never be sent, and its client-side validator
// rejects any temperature other than 1 for model names starting with gpt-5,
// o1, o3 or o4, which is a decision the model table makes instead.
type OpenAI struct {
	cfg  ProviderConfig
	base *http.Client
}

// NewOpenAI makes an OpenAI or openai-compatible provider.
func NewOpenAI(cfg ProviderConfig) *OpenAI {
	return &OpenAI{cfg: cfg, base: baseClient(cfg)}
}

// Name implements Provider.
func (o *OpenAI) Name() string { return o.cfg.Name }

// Kind implements Provider.
func (o *OpenAI) Kind() string { return o.cfg.Kind }

// apiBase is go-openai's BaseURL: the server root and /v1, unless the root
// already ends in /v1.
func (o *OpenAI) apiBase() string {
	b := strings.TrimRight(o.cfg.BaseURL, "/")
	if u, err := url.Parse(b); err == nil && strings.HasSuffix(u.Path, "/v1") {
		return b
	}
	return b + "/v1"
}

func (o *OpenAI) maxTokensField() string {
	if o.cfg.Kind == KindOpenAICompatible && o.cfg.MaxTokensField != "" {
		return o.cfg.MaxTokensField
	}
	return "max_completion_tokens"
}

// Describe implements Provider.
func (o *OpenAI) Describe(req Request) DryRun {
	d := describeBase(o, req)
	d.URL = o.apiBase() + "/chat/completions"
	switch {
	case o.cfg.APIKey != "":
		d.Auth = "Authorization: Bearer (" + o.cfg.KeySource + ")"
	case o.cfg.Kind == KindOpenAICompatible && !o.cfg.KeyRequired:
		d.Auth = "none (" + o.cfg.KeySource + ")"
	default:
		d.Auth = "Authorization: Bearer (" + o.cfg.KeySource + ")"
	}
	if req.MaxOutputTokens > 0 {
		d.Extra = map[string]any{"maxTokensField": o.maxTokensField()}
	}
	return d
}

// Generate implements Provider.
func (o *OpenAI) Generate(ctx context.Context, req Request) (*Result, error) {
	if o.cfg.APIKey == "" && o.cfg.Kind == KindOpenAI {
		return nil, &Error{Provider: o.cfg.Name, Msg: "no API key (" + o.cfg.KeySource + ")"}
	}
	ctx, cancel := withTimeout(ctx, req.Timeout)
	defer cancel()
	rec := &wire{limit: bodyLimit(req.MaxAnswerBytes)}
	patch := o.bodyPatch(req)
	cc := openai.DefaultConfig(o.cfg.APIKey)
	cc.BaseURL = o.apiBase()
	cc.HTTPClient = newCallClient(o.base, rec, patch)
	client := openai.NewClientWithConfig(cc)
	creq := openai.ChatCompletionRequest{
		Model: req.Model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: req.System},
			{Role: openai.ChatMessageRoleUser, Content: req.User},
		},
		// Temperature stays 0 here (omitted by the struct); bodyPatch
		// writes the requested value, 0 included.
	}
	if req.MaxOutputTokens > 0 && o.cfg.Kind == KindOpenAI {
		creq.MaxCompletionTokens = req.MaxOutputTokens
	}
	start := time.Now()
	resp, err := client.CreateChatCompletion(ctx, creq)
	latency := time.Since(start)
	if err != nil {
		return nil, classify(ctx, o.cfg.Name, err, rec, o.cfg.APIKey)
	}
	status, _, _, _ := rec.snapshot()
	res := &Result{
		Latency:    latency,
		HTTPStatus: status,
		Usage:      Usage{InputTokens: int64(resp.Usage.PromptTokens), OutputTokens: int64(resp.Usage.CompletionTokens)},
		RequestID:  firstHeader(resp.Header(), "x-request-id", "request-id"),
	}
	if res.RequestID == "" {
		res.RequestID = resp.ID
	}
	if len(resp.Choices) > 0 {
		res.Text = resp.Choices[0].Message.Content
		res.FinishReason = string(resp.Choices[0].FinishReason)
	}
	// Header values and body fields may echo the key.
	res.RequestID, res.FinishReason = scrub(res.RequestID, o.cfg.APIKey), scrub(res.FinishReason, o.cfg.APIKey)
	return res, nil
}

// bodyPatch writes temperature and, on compatible servers, the output limit
// into the request body.
func (o *OpenAI) bodyPatch(req Request) func(map[string]json.RawMessage) {
	compatLimit := req.MaxOutputTokens > 0 && o.cfg.Kind == KindOpenAICompatible
	if req.Temperature == nil && !compatLimit {
		return nil
	}
	return func(body map[string]json.RawMessage) {
		if req.Temperature != nil {
			body["temperature"] = jsonNumber(*req.Temperature)
		}
		if compatLimit {
			delete(body, "max_tokens")
			delete(body, "max_completion_tokens")
			body[o.maxTokensField()] = jsonNumber(float64(req.MaxOutputTokens))
		}
	}
}
