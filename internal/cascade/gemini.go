package cascade

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"
)

// geminiAPIVersion is the path prefix of the Gemini API.
const geminiAPIVersion = "v1beta"

// Gemini calls the Gemini API through google.golang.org/genai:
// POST {base}/v1beta/models/{model}:generateContent, key in x-goog-api-key.
//
// One genai client serves all calls: genai.NewClient reads the process
// environment and logs a warning when both GOOGLE_API_KEY and
// GEMINI_API_KEY are set, which should happen once, not once per call.
type Gemini struct {
	cfg  ProviderConfig
	base *http.Client

	once      sync.Once
	client    *genai.Client
	clientErr error
}

// NewGemini makes a Gemini provider.
func NewGemini(cfg ProviderConfig) *Gemini {
	return &Gemini{cfg: cfg, base: baseClient(cfg)}
}

// baseClient is the client of a provider's calls (see HTTPClient: no
// redirect is followed, the key is kept out of the log).
func baseClient(cfg ProviderConfig) *http.Client { return HTTPClient(cfg) }

// Name implements Provider.
func (g *Gemini) Name() string { return g.cfg.Name }

// Kind implements Provider.
func (g *Gemini) Kind() string { return KindGemini }

// Describe implements Provider.
func (g *Gemini) Describe(req Request) DryRun {
	d := describeBase(g, req)
	d.URL = joinURL(g.cfg.BaseURL, geminiAPIVersion+"/"+geminiModelPath(req.Model)+":generateContent")
	d.Auth = "x-goog-api-key (" + g.cfg.KeySource + ")"
	return d
}

func geminiModelPath(model string) string {
	if strings.HasPrefix(model, "models/") || strings.HasPrefix(model, "tunedModels/") {
		return model
	}
	return "models/" + model
}

// Generate implements Provider.
func (g *Gemini) Generate(ctx context.Context, req Request) (*Result, error) {
	if g.cfg.APIKey == "" {
		return nil, &Error{Provider: g.cfg.Name, Msg: "no API key (" + g.cfg.KeySource + ")"}
	}
	client, err := g.sdk()
	if err != nil {
		return nil, err
	}
	// The one genai client was made once; the log output may have been
	// replaced since.
	GuardLog()
	ctx, cancel := withTimeout(ctx, req.Timeout)
	defer cancel()
	rec := &wire{limit: bodyLimit(req.MaxAnswerBytes)}
	ctx = withWire(ctx, rec)
	start := time.Now()
	noContinuation := false
	gc := &genai.GenerateContentConfig{
		SystemInstruction:     genai.NewContentFromText(req.System, genai.RoleUser),
		AutomaticContinuation: &noContinuation,
	}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		gc.Temperature = &t
	}
	if req.MaxOutputTokens > 0 {
		gc.MaxOutputTokens = int32(min(req.MaxOutputTokens, 1<<31-1))
	}
	resp, err := client.Models.GenerateContent(ctx, req.Model, []*genai.Content{genai.NewContentFromText(req.User, genai.RoleUser)}, gc)
	latency := time.Since(start)
	if err != nil {
		e := classify(ctx, g.cfg.Name, err, rec, g.cfg.APIKey)
		if !e.HasRetryAfter {
			var ae genai.APIError
			if errors.As(err, &ae) {
				e.RetryAfter, e.HasRetryAfter = geminiRetryInfo(ae)
			}
		}
		return nil, e
	}
	status, header, _, _ := rec.snapshot()
	res := &Result{Latency: latency, HTTPStatus: status, RequestID: resp.ResponseID}
	if res.RequestID == "" && header != nil {
		res.RequestID = firstHeader(header, "x-request-id", "x-goog-request-id")
	}
	if u := resp.UsageMetadata; u != nil {
		// Thinking tokens are billed as output.
		res.Usage = Usage{InputTokens: int64(u.PromptTokenCount), OutputTokens: int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount)}
	}
	if len(resp.Candidates) > 0 && resp.Candidates[0] != nil {
		c := resp.Candidates[0]
		res.FinishReason = string(c.FinishReason)
		if c.Content != nil {
			var sb strings.Builder
			for _, p := range c.Content.Parts {
				if p != nil && !p.Thought {
					sb.WriteString(p.Text)
				}
			}
			res.Text = sb.String()
		}
	} else if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
		res.FinishReason = "blocked: " + string(pf.BlockReason)
	}
	// Header values and body fields may echo the key.
	res.RequestID, res.FinishReason = scrub(res.RequestID, g.cfg.APIKey), scrub(res.FinishReason, g.cfg.APIKey)
	return res, nil
}

func (g *Gemini) sdk() (*genai.Client, error) {
	g.once.Do(func() {
		g.client, g.clientErr = genai.NewClient(context.Background(), &genai.ClientConfig{
			APIKey:     g.cfg.APIKey,
			Backend:    genai.BackendGeminiAPI,
			HTTPClient: newCallClient(g.base, nil, nil),
			HTTPOptions: genai.HTTPOptions{
				BaseURL:    strings.TrimRight(g.cfg.BaseURL, "/") + "/",
				APIVersion: geminiAPIVersion,
				// RetryOptions nil: the SDK does not retry.
			},
		})
		if g.clientErr != nil {
			// The SDK's message prints the whole ClientConfig, key included.
			g.clientErr = &Error{Provider: g.cfg.Name, Msg: scrub("client: "+g.clientErr.Error(), g.cfg.APIKey)}
		}
	})
	return g.client, g.clientErr
}

// geminiRetryInfo reads the retryDelay of a google.rpc.RetryInfo detail.
func geminiRetryInfo(ae genai.APIError) (time.Duration, bool) {
	for _, d := range ae.Details {
		t, _ := d["@type"].(string)
		if !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		s, _ := d["retryDelay"].(string)
		if dur, err := time.ParseDuration(s); err == nil && dur >= 0 {
			return dur, true
		}
	}
	return 0, false
}
