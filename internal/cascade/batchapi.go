package cascade

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/compactlab/compact/internal/history"
)

// This file is what internal/batch needs to send the cascade's requests
// through the providers' batch APIs and to treat their answers the way Run
// treats its own: the same request, the same response-cache key, the same
// checks of an answer, the same records.

// BatchRequest is what an attempt at one model sends for an input.
type BatchRequest struct {
	Model Model
	// Provider is the name of the model's provider (providers.<name>),
	// Kind its kind.
	Provider string
	Kind     string
	// Request is what Run would send (Timeout left out).
	Request Request
	// Omitted lists the parameters left out and why, as Attempt.Omitted.
	Omitted []string
	// Key is the response cache key of the request (see cacheKey): the
	// content hash of the endpoint, the model, every parameter and both
	// prompts. Batch custom ids derive from it.
	Key string
	// Check is Input.Check: an answer it refuses is unusable and never
	// cached.
	Check func(text string) error `json:"-"`
}

// BatchRequest is the request an attempt at model would send for in, and
// its response cache key. An error names what is missing (the model, its
// provider).
func (c *Cascade) BatchRequest(model string, in Input) (BatchRequest, error) {
	m, ok := c.Models.Lookup(model)
	if !ok {
		return BatchRequest{}, fmt.Errorf("model %q is not in the model table", model)
	}
	p := c.Providers[m.Provider]
	if p == nil {
		return BatchRequest{}, fmt.Errorf("%s: provider %q is not configured", model, m.Provider)
	}
	req, omitted := c.request(in, m)
	if p.Kind() == KindAnthropic && req.Temperature != nil {
		// What the provider itself leaves out (Anthropic.Generate).
		omitted = append(omitted, anthropicNoTemperature)
	}
	return BatchRequest{Model: m, Provider: m.Provider, Kind: p.Kind(), Request: req, Omitted: omitted, Key: c.cacheKey(p, req, in.Repeat), Check: in.Check}, nil
}

// ProviderConfigOf is the configuration of the provider named name, its
// API key included: the key is for the batch client, never to be stored,
// printed or put in an error.
func (c *Cascade) ProviderConfigOf(name string) (ProviderConfig, bool) {
	p, ok := c.Providers[name].(interface{ providerConfig() ProviderConfig })
	if !ok {
		return ProviderConfig{}, false
	}
	return p.providerConfig(), true
}

func (g *Gemini) providerConfig() ProviderConfig    { return g.cfg }
func (o *OpenAI) providerConfig() ProviderConfig    { return o.cfg }
func (a *Anthropic) providerConfig() ProviderConfig { return a.cfg }
func (b *Builtin) providerConfig() ProviderConfig   { return b.cfg }

// batchAttempt is the attempt record of br before any answer.
func (c *Cascade) batchAttempt(br BatchRequest) Attempt {
	a := Attempt{Model: br.Model.ID, Provider: br.Provider, APIModel: br.Model.APIModel, Tries: []Try{},
		Temperature: br.Request.Temperature, MaxOutputTokens: br.Request.MaxOutputTokens}
	for _, o := range br.Omitted {
		a.Omitted = append(a.Omitted, c.scrub(o))
	}
	if br.Kind == KindAnthropic {
		a.Temperature = nil
	}
	return a
}

// CachedAnswer answers br from the response cache as Run would: an attempt
// with Cached set, cost 0 and SavedUSD, and the answer. ok is false on a
// miss (or without a cache).
func (c *Cascade) CachedAnswer(br BatchRequest) (Attempt, string, bool) {
	if c.Cache == nil || br.Kind == KindBuiltin {
		return Attempt{}, "", false
	}
	a, text, ok := c.fromCache(c.batchAttempt(br), br.Model, br.Key, time.Now())
	if !ok || checkAnswer(br.Check, text) != nil {
		return Attempt{}, "", false
	}
	return a, text, true
}

// BatchAnswer is an answer received outside Run, from a batch result.
type BatchAnswer struct {
	Text         string
	Usage        Usage
	FinishReason string
	RequestID    string
	HTTPStatus   int
	// LatencyMs is the time from the batch's submission to its end.
	LatencyMs int64
}

// AcceptAnswer checks a batch answer as Run checks its own: trimmed,
// redacted, cut to cascade.max_answer_bytes, at least MinOutputChars long
// (else the attempt is too-short); an accepted answer goes into the
// response cache under br.Key. The attempt costs the model's price times
// priceFactor (1 minus the batch discount).
func (c *Cascade) AcceptAnswer(br BatchRequest, ans BatchAnswer, priceFactor float64) (Attempt, string) {
	a := c.batchAttempt(br)
	rid := c.scrub(ans.RequestID)
	a.Tries = append(a.Tries, Try{N: 1, Status: ans.HTTPStatus, RequestID: rid, LatencyMs: ans.LatencyMs})
	a.Usage = ans.Usage
	a.CostUSD = RoundUSD(br.Model.Cost(ans.Usage) * priceFactor)
	a.FinishReason, a.RequestID = c.scrub(ans.FinishReason), rid
	text := TrimJS(ans.Text)
	size := len(text)
	text = c.scrub(text)
	if err := checkAnswer(br.Check, text); err != nil {
		a.Outcome, a.Error = OutcomeUnusable, c.scrub(err.Error())
		a.OutputChars, a.LatencyMs = history.Len16(text), ans.LatencyMs
		return a, ""
	}
	if c.Cache != nil && br.Kind != KindBuiltin && history.Len16(text) >= c.Settings.MinOutputChars {
		c.toCache(br.Key, a, text)
	}
	a, text = c.finish(a, text, size, time.Now())
	a.LatencyMs = ans.LatencyMs
	return a, text
}

// FailedBatchAttempt is the attempt of a batch request that got no answer
// (errored, expired, cancelled): outcome is OutcomeError or
// OutcomeTimeout, msg says why. Usage, when the provider billed any, is
// priced at priceFactor.
func (c *Cascade) FailedBatchAttempt(br BatchRequest, outcome, msg string, status int, usage Usage, priceFactor float64) Attempt {
	a := c.batchAttempt(br)
	a.Tries = append(a.Tries, Try{N: 1, Status: status, Error: c.scrub(msg)})
	a.Outcome, a.Error = outcome, c.scrub(msg)
	a.Usage = usage
	a.CostUSD = RoundUSD(br.Model.Cost(usage) * priceFactor)
	return a
}

// anthropicUsageJSON is the part of an Anthropic usage object that
// counts: with server-side compaction, each sampling step is an entry of
// usage.iterations, and a compaction step's tokens are billed but left
// out of the top-level fields.
type anthropicUsageJSON struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	Iterations               []struct {
		Type                     string `json:"type"`
		InputTokens              int64  `json:"input_tokens"`
		OutputTokens             int64  `json:"output_tokens"`
		CacheCreationInputTokens int64  `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64  `json:"cache_read_input_tokens"`
	} `json:"iterations"`
}

// AnthropicUsage reads the billed tokens of an Anthropic usage object
// (raw JSON): input counts the cache writes and reads as the interactive
// provider does; cached is the cache reads. Where usage.iterations is
// present (server-side compaction), the tokens are the sum over its
// entries, not the top-level fields, which leave the compaction steps
// out.
func AnthropicUsage(raw []byte) (u Usage, cached int64, err error) {
	var v anthropicUsageJSON
	if err := json.Unmarshal(raw, &v); err != nil {
		return u, 0, err
	}
	if len(v.Iterations) == 0 {
		u = Usage{InputTokens: v.InputTokens + v.CacheCreationInputTokens + v.CacheReadInputTokens, OutputTokens: v.OutputTokens}
		return u, v.CacheReadInputTokens, nil
	}
	for _, it := range v.Iterations {
		u.InputTokens += it.InputTokens + it.CacheCreationInputTokens + it.CacheReadInputTokens
		u.OutputTokens += it.OutputTokens
		cached += it.CacheReadInputTokens
	}
	return u, cached, nil
}
