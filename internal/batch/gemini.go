package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"

	"google.golang.org/genai"

	"github.com/compactlab/compact/internal/cascade"
)

// geminiService speaks the Gemini Batch API through genai with inline
// requests: POST /v1beta/models/{model}:batchGenerateContent with the
// requests, each with metadata {key: custom id}; GET
// /v1beta/batches/{id} polls (state JOB_STATE_PENDING, RUNNING,
// SUCCEEDED, FAILED, CANCELLED, EXPIRED) and, once it has ended, carries
// the inlined responses, each with its request's metadata.
type geminiService struct {
	client *genai.Client
}

const geminiAPIVersion = "v1beta"

// metadataKey is the metadata field holding a request's custom id.
const metadataKey = "key"

func newGeminiService(pc cascade.ProviderConfig, hc *http.Client) (*geminiService, error) {
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:     pc.APIKey,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{
			BaseURL:    strings.TrimRight(pc.BaseURL, "/") + "/",
			APIVersion: geminiAPIVersion,
		},
	})
	if err != nil {
		// The SDK's message prints the whole ClientConfig, key included.
		return nil, fmt.Errorf("providers.%s: gemini client: %s", pc.Name, cascade.Redact(err.Error(), pc.APIKey))
	}
	return &geminiService{client: client}, nil
}

// The upload of a Gemini batch is a file of genai.InlinedRequest lines,
// read back into the request at create (at most batch.limits.gemini, about
// 20 MB).
func (g *geminiService) format() uploadFormat { return uploadFormat{sep: "\n", suffix: "\n"} }

func (g *geminiService) encode(customID string, br cascade.BatchRequest) ([]byte, error) {
	r := br.Request
	cfg := &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(r.System, genai.RoleUser)}
	if r.Temperature != nil {
		t := float32(*r.Temperature)
		cfg.Temperature = &t
	}
	if r.MaxOutputTokens > 0 {
		cfg.MaxOutputTokens = int32(min(r.MaxOutputTokens, 1<<31-1))
	}
	return json.Marshal(genai.InlinedRequest{
		Contents: []*genai.Content{genai.NewContentFromText(r.User, genai.RoleUser)},
		Metadata: map[string]string{metadataKey: customID},
		Config:   cfg,
	})
}

func (g *geminiService) create(ctx context.Context, tier Tier, f *os.File, size int64, n int, label string) (string, error) {
	if _, err := f.Seek(0, 0); err != nil {
		return "", err
	}
	reqs := make([]*genai.InlinedRequest, 0, n)
	if err := eachLine(f, func(line []byte) error {
		var r genai.InlinedRequest
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		reqs = append(reqs, &r)
		return nil
	}); err != nil {
		return "", fmt.Errorf("read back the batch's requests: %w", err)
	}
	var job *genai.BatchJob
	err := retry(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, transferTimeout)
		defer cancel()
		var err error
		job, err = g.client.Batches.Create(ctx, tier.APIModel, &genai.BatchJobSource{InlinedRequests: reqs}, &genai.CreateBatchJobConfig{DisplayName: label})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("create batch (%s): %w", plural(n, "request"), err)
	}
	return job.Name, nil
}

func (g *geminiService) poll(ctx context.Context, id string) (poll, error) {
	var job *genai.BatchJob
	err := retry(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, transferTimeout)
		defer cancel()
		var err error
		job, err = g.client.Batches.Get(ctx, id, nil)
		return err
	})
	if err != nil {
		return poll{}, err
	}
	p := poll{Status: string(job.State), gemini: job}
	switch job.State {
	case genai.JobStateSucceeded:
		p.Ended = true
	case genai.JobStateFailed, genai.JobStatePartiallySucceeded:
		p.Ended, p.Why = true, "the batch failed"
	case genai.JobStateCancelled:
		p.Ended, p.Why = true, "the batch was cancelled"
	case genai.JobStateExpired:
		p.Ended, p.Expired, p.Why = true, true, "the batch expired before answering it"
	}
	if job.Error != nil && job.Error.Message != "" {
		p.Why += ": " + job.Error.Message
	}
	if job.Dest != nil {
		for _, r := range job.Dest.InlinedResponses {
			if r == nil {
				continue
			}
			p.Counts.Total++
			if r.Error != nil {
				p.Counts.Failed++
			} else {
				p.Counts.Succeeded++
			}
		}
	}
	return p, nil
}

func (g *geminiService) results(ctx context.Context, id string, p poll, each func(result) error) error {
	if p.gemini == nil || p.gemini.Dest == nil {
		return nil
	}
	for _, r := range p.gemini.Dest.InlinedResponses {
		if r == nil {
			continue
		}
		if err := each(geminiToResult(r)); err != nil {
			return err
		}
	}
	return nil
}

func geminiToResult(r *genai.InlinedResponse) result {
	res := result{CustomID: r.Metadata[metadataKey], Outcome: cascade.OutcomeError}
	switch {
	case r.Error != nil:
		res.Error = r.Error.Message
		if r.Error.Code != nil {
			res.Status = int(*r.Error.Code)
			res.Error = fmt.Sprintf("code %d: %s", *r.Error.Code, r.Error.Message)
		}
	case r.Response == nil:
		res.Error = "no response and no error"
	default:
		resp := r.Response
		res.OK = true
		res.Answer = cascade.BatchAnswer{HTTPStatus: http.StatusOK, RequestID: resp.ResponseID}
		if u := resp.UsageMetadata; u != nil {
			// Thinking tokens are billed as output, as interactively.
			res.Answer.Usage = cascade.Usage{InputTokens: int64(u.PromptTokenCount), OutputTokens: int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount)}
			res.Cached = int64(u.CachedContentTokenCount)
		}
		if len(resp.Candidates) > 0 && resp.Candidates[0] != nil {
			c := resp.Candidates[0]
			res.Answer.FinishReason = string(c.FinishReason)
			if c.Content != nil {
				var sb strings.Builder
				for _, part := range c.Content.Parts {
					if part != nil && !part.Thought {
						sb.WriteString(part.Text)
					}
				}
				res.Answer.Text = sb.String()
			}
		} else if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			res.Answer.FinishReason = "blocked: " + string(pf.BlockReason)
		}
	}
	return res
}

func (g *geminiService) cancel(ctx context.Context, id string) error {
	return retry(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, apiTimeout)
		defer cancel()
		return g.client.Batches.Cancel(ctx, id, nil)
	})
}
