package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/compactlab/compact/internal/cascade"
)

// anthropicService speaks the Message Batches API through
// anthropic-sdk-go: POST /v1/messages/batches {requests: [{custom_id,
// params}]}; GET /v1/messages/batches/{id} polls (processing_status
// in_progress, canceling, ended; request_counts); the results are JSONL,
// {custom_id, result: {type: succeeded|errored|canceled|expired, message
// | error}}.
type anthropicService struct {
	pc     cascade.ProviderConfig
	client anthropic.Client
}

func newAnthropicService(pc cascade.ProviderConfig, hc *http.Client) *anthropicService {
	client := anthropic.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(pc.APIKey),
		option.WithBaseURL(strings.TrimRight(pc.BaseURL, "/")+"/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // retry() retries transient faults
	)
	return &anthropicService{pc: pc, client: client}
}

func (a *anthropicService) format() uploadFormat {
	return uploadFormat{prefix: `{"requests":[`, sep: ",", suffix: "]}"}
}

// encode writes one request with the SDK's own types, as the interactive
// provider sends it (system as one text block, the user message as one).
func (a *anthropicService) encode(customID string, br cascade.BatchRequest) ([]byte, error) {
	r := br.Request
	if r.MaxOutputTokens <= 0 {
		return nil, fmt.Errorf("max output tokens is required by the Messages API")
	}
	return json.Marshal(anthropic.MessageBatchNewParamsRequest{
		CustomID: customID,
		Params: anthropic.MessageBatchNewParamsRequestParams{
			Model:     anthropic.Model(r.Model),
			MaxTokens: int64(r.MaxOutputTokens),
			System:    []anthropic.TextBlockParam{{Text: r.System}},
			Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(r.User))},
		},
	})
}

// create sends the upload, already the JSON body {"requests": […]}, as the
// request body (option.WithRequestBody): the SDK would otherwise encode
// the whole batch in memory, up to 256 MB.
func (a *anthropicService) create(ctx context.Context, tier Tier, f *os.File, size int64, n int, label string) (string, error) {
	var b *anthropic.MessageBatch
	err := retry(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, transferTimeout)
		defer cancel()
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		var err error
		b, err = a.client.Messages.Batches.New(ctx, anthropic.MessageBatchNewParams{},
			option.WithRequestBody("application/json", io.NopCloser(io.LimitReader(f, size))))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("create message batch (%s): %w", plural(n, "request"), err)
	}
	return b.ID, nil
}

func (a *anthropicService) poll(ctx context.Context, id string) (poll, error) {
	var b *anthropic.MessageBatch
	err := retry(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, apiTimeout)
		defer cancel()
		var err error
		b, err = a.client.Messages.Batches.Get(ctx, id, anthropic.MessageBatchGetParams{})
		return err
	})
	if err != nil {
		return poll{}, err
	}
	rc := b.RequestCounts
	p := poll{Status: string(b.ProcessingStatus), Ended: b.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded,
		Counts: Counts{Total: int(rc.Processing + rc.Succeeded + rc.Errored + rc.Canceled + rc.Expired),
			Succeeded: int(rc.Succeeded), Failed: int(rc.Errored + rc.Canceled + rc.Expired), Pending: int(rc.Processing)}}
	if p.Ended && (rc.Canceled > 0 || rc.Expired > 0) {
		p.Why = fmt.Sprintf("%s canceled, %d expired", plural(int(rc.Canceled), "request"), rc.Expired)
	}
	return p, nil
}

func (a *anthropicService) results(ctx context.Context, id string, p poll, each func(result) error) error {
	ctx, cancel := context.WithTimeout(ctx, transferTimeout)
	defer cancel()
	var stream interface {
		Next() bool
		Current() anthropic.MessageBatchIndividualResponse
		Err() error
		Close() error
	}
	err := retry(ctx, func(ctx context.Context) error {
		s := a.client.Messages.Batches.ResultsStreaming(ctx, id, anthropic.MessageBatchResultsParams{})
		if err := s.Err(); err != nil {
			s.Close()
			return err
		}
		stream = s
		return nil
	})
	if err != nil {
		return err
	}
	defer stream.Close()
	for stream.Next() {
		if err := each(anthropicToResult(stream.Current())); err != nil {
			return err
		}
	}
	return stream.Err()
}

func anthropicToResult(r anthropic.MessageBatchIndividualResponse) result {
	res := result{CustomID: r.CustomID, Outcome: cascade.OutcomeError}
	switch r.Result.Type {
	case "succeeded":
		msg := r.Result.Message
		u, cached, err := cascade.AnthropicUsage([]byte(msg.Usage.RawJSON()))
		if err != nil {
			u = cascade.Usage{InputTokens: msg.Usage.InputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens, OutputTokens: msg.Usage.OutputTokens}
			cached = msg.Usage.CacheReadInputTokens
		}
		var sb strings.Builder
		for _, b := range msg.Content {
			if b.Type == "text" {
				sb.WriteString(b.Text)
			}
		}
		res.OK, res.Cached = true, cached
		res.Answer = cascade.BatchAnswer{Text: sb.String(), Usage: u, FinishReason: string(msg.StopReason), RequestID: msg.ID, HTTPStatus: http.StatusOK}
	case "errored":
		e := r.Result.Error.Error
		res.Error = "errored"
		if e.Type != "" || e.Message != "" {
			res.Error = strings.TrimSpace(e.Type + ": " + e.Message)
		}
	case "canceled":
		res.Error = "canceled: the batch was canceled before this request was processed"
	case "expired":
		res.Outcome, res.Error = cascade.OutcomeTimeout, "expired: the batch ended before this request was processed"
	default:
		res.Error = fmt.Sprintf("unknown result type %q", r.Result.Type)
	}
	return res
}

func (a *anthropicService) cancel(ctx context.Context, id string) error {
	return retry(ctx, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, apiTimeout)
		defer cancel()
		_, err := a.client.Messages.Batches.Cancel(ctx, id, anthropic.MessageBatchCancelParams{})
		return err
	})
}
