package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	openai "github.com/sashabaranov/go-openai"
	"google.golang.org/genai"

	"github.com/compactlab/compact/internal/cascade"
)

// service is one provider's batch API.
type service interface {
	// format is how the requests of one batch are laid out in its upload.
	format() uploadFormat
	// encode is one request as it goes into the upload (no separator).
	encode(customID string, br cascade.BatchRequest) ([]byte, error)
	// create submits the batch whose upload is f (size bytes, n requests)
	// and returns its id. label names the run (metadata, display name).
	create(ctx context.Context, tier Tier, f *os.File, size int64, n int, label string) (string, error)
	// poll asks for the batch's status.
	poll(ctx context.Context, id string) (poll, error)
	// results calls each for every result of the ended batch p.
	results(ctx context.Context, id string, p poll, each func(result) error) error
	// cancel asks the provider to cancel the batch.
	cancel(ctx context.Context, id string) error
}

// uploadFormat: the upload is prefix, the requests separated by sep, then
// suffix.
type uploadFormat struct{ prefix, sep, suffix string }

// poll is a batch's status.
type poll struct {
	Status string
	Ended  bool
	Counts Counts
	// Why, when the batch ended without answering everything (expired,
	// cancelled, failed): the provider's words.
	Why string
	// Expired: the requests left unanswered ran out of time (attempt
	// outcome timeout rather than error).
	Expired bool
	// data the results need (file ids, the job).
	openai *openai.Batch
	gemini *genai.BatchJob
}

// result is one request's result in a batch.
type result struct {
	CustomID string
	OK       bool
	Answer   cascade.BatchAnswer
	// Cached are the input tokens read from the provider's prompt cache.
	Cached int64
	// For a failure: the outcome (cascade.OutcomeError or
	// OutcomeTimeout for an expired request), the HTTP status if any and
	// the provider's message. Usage, when billed.
	Outcome string
	Status  int
	Error   string
}

// apiTimeout bounds one call to a batch API; an upload or a results file
// gets longer.
const (
	apiTimeout      = 2 * time.Minute
	transferTimeout = 30 * time.Minute
	apiTries        = 4
)

// newService makes the batch client of a provider.
func newService(pc cascade.ProviderConfig, s Settings) (service, error) {
	if err := Supported(pc.Kind); err != nil {
		return nil, fmt.Errorf("providers.%s: %v", pc.Name, err)
	}
	if pc.APIKey == "" {
		return nil, fmt.Errorf("providers.%s: no API key (%s)", pc.Name, pc.KeySource)
	}
	// No redirect is followed (the key and the requests go to the
	// configured base URL only) and the key stays out of the log.
	hc := cascade.HTTPClient(pc)
	switch pc.Kind {
	case cascade.KindOpenAI:
		return newOpenAIService(pc, hc, s.CompletionWindow), nil
	case cascade.KindAnthropic:
		return newAnthropicService(pc, hc), nil
	default:
		return newGeminiService(pc, hc)
	}
}

// retry runs fn until it succeeds, fails for good, or apiTries tries
// have failed on transient faults (429, 5xx, a connection dropped),
// pausing 1 s, 2 s, 4 s between them.
func retry(ctx context.Context, fn func(ctx context.Context) error) error {
	var err error
	wait := time.Second
	for n := 1; ; n++ {
		err = fn(ctx)
		if err == nil || !transient(err) || n >= apiTries || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait *= 2
	}
}

// transient reports a fault worth another try.
func transient(err error) bool {
	var re *cascade.RedirectError
	if errors.As(err, &re) {
		return false // refused, whatever its URL says
	}
	status := 0
	var oe *openai.APIError
	var ore *openai.RequestError
	var ae *anthropic.Error
	var ge genai.APIError
	var he *httpError
	switch {
	case errors.As(err, &oe):
		status = oe.HTTPStatusCode
	case errors.As(err, &ore):
		status = ore.HTTPStatusCode
	case errors.As(err, &ae):
		status = ae.StatusCode
	case errors.As(err, &ge):
		status = ge.Code
	case errors.As(err, &he):
		status = he.Status
	}
	if status == http.StatusTooManyRequests || status >= 500 {
		return true
	}
	if status != 0 {
		return false
	}
	var ne net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		(errors.As(err, &ne) && ne.Timeout()) || strings.Contains(err.Error(), "connection reset")
}

// httpError is a response of the wire calls made without an SDK.
type httpError struct {
	Status int
	Msg    string
}

func (e *httpError) Error() string { return fmt.Sprintf("status %d: %s", e.Status, e.Msg) }

// joinURL is base (a server root) followed by path.
func joinURL(base, path string) string {
	return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/")
}
