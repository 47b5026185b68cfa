// Package batch owns the runs through the providers' batch APIs: compact
// replay --batch, compact eval --judge --batch (judge.go), and compact
// batch status|collect|cancel. Every model of the cascade is one tier,
// and each tier's requests go to its provider as one or more batches
// (split at the provider's limits). Collecting a tier writes the accepted
// answers exactly where the interactive command writes its own (a
// replay's <bundle>/replays/<run>/output.md and replay.json, with batch:
// {provider, id}; the judge's <bundle>/judge/<run>.json), and sends the
// errors, the expired or cancelled requests and the answers too short to
// the next tier's batch.
//
// A run's state lives in <dir>/.batches/<run>/: a small head, state.json
// (the models in cascade order, every provider batch id, what was
// collected, the tallies and the cost ledger), and the per-request state
// in items/, logs read and written a line at a time (see State), so that
// memory does not grow with the number of bundles. The head is written
// through a temporary file and a rename once the logs are synced, and the
// run is held by a lock while a submit, collect or cancel changes it, so
// a run can be collected in another process or on another machine, and
// two collects never race. Collect is idempotent: a result already on
// disk is not written again, and a crash between writing results and
// committing them only means they are read again.
//
// Requests share the response cache's content hash (cascade.BatchRequest):
// a custom id starts with the first CustomIDLen hex digits of the cache
// key, a request whose answer is cached is answered from the cache and
// never submitted, and every accepted batch answer goes into the cache.
//
// Provider clients are the official SDKs' batch clients: go-openai
// (CreateBatch, RetrieveBatch, CancelBatch, GetFileContent),
// anthropic-sdk-go (Messages.Batches New, Get, ResultsStreaming, Cancel)
// and genai (Batches.Create with inline requests, Get, Cancel); where an
// SDK cannot stream or lacks something, the file says so and speaks the
// same wire format with net/http.
package batch

import (
	"fmt"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
)

// CustomIDLen is the number of hex digits of a request's response cache
// key (128 bits) that start its custom id (see CustomID). Anthropic allows
// at most 64 characters of [a-zA-Z0-9_-].
const CustomIDLen = 32

// Limits bound one provider batch; a tier with more requests, or more
// bytes, is split into several batches. 0: no limit.
type Limits struct {
	MaxRequests int
	MaxBytes    int64
}

// DefaultLimits are the providers' documented limits (see
// configs/compact.yaml, batch.limits): OpenAI 50,000 requests and a
// 200 MB input file; Anthropic 100,000 requests and 256 MB; Gemini inline
// requests under 20 MB in all (a little less here, for the JSON the SDK
// wraps around them).
func DefaultLimits() map[string]Limits {
	return map[string]Limits{
		cascade.KindOpenAI:    {MaxRequests: 50000, MaxBytes: 200 << 20},
		cascade.KindAnthropic: {MaxRequests: 100000, MaxBytes: 256 << 20},
		cascade.KindGemini:    {MaxRequests: 0, MaxBytes: 19 << 20},
	}
}

// Settings are the batch section of the configuration.
type Settings struct {
	// Discount is the batch price's discount on the model table's prices
	// (0.5: half price).
	Discount float64
	// PollInterval is the pause between polls of collect --wait.
	PollInterval time.Duration
	// CompletionWindow is OpenAI's completion_window ("24h").
	CompletionWindow string
	// Limits by provider kind.
	Limits map[string]Limits
	// Jobs is the number of results written in parallel.
	Jobs int
}

// PriceFactor is what a batch request costs relative to the table's
// price: 1 - Discount.
func (s Settings) PriceFactor() float64 { return 1 - s.Discount }

// DefaultSettings are the values of configs/compact.yaml.
func DefaultSettings() Settings {
	return Settings{Discount: 0.5, PollInterval: 30 * time.Second, CompletionWindow: "24h", Limits: DefaultLimits(), Jobs: 4}
}

// LoadSettings reads batch: of st; absent keys keep the defaults.
func LoadSettings(st *config.Store) (Settings, error) {
	s := DefaultSettings()
	key := func(k ...string) string { return "batch" + config.Delim + strings.Join(k, config.Delim) }
	if st.IsSet(key("discount")) {
		s.Discount = st.Float(key("discount"))
	}
	if st.IsSet(key("poll_interval")) {
		s.PollInterval = st.Duration(key("poll_interval"))
	}
	if st.IsSet(key("completion_window")) {
		s.CompletionWindow = st.String(key("completion_window"))
	}
	for kind, l := range s.Limits {
		if st.IsSet(key("limits", kind, "max_requests")) {
			l.MaxRequests = st.Int(key("limits", kind, "max_requests"))
		}
		if st.IsSet(key("limits", kind, "max_bytes")) {
			l.MaxBytes = int64(st.Int(key("limits", kind, "max_bytes")))
		}
		if l.MaxRequests < 0 || l.MaxBytes < 0 {
			return s, fmt.Errorf("batch.limits.%s: max_requests and max_bytes must be ≥ 0 (0: no limit)", kind)
		}
		s.Limits[kind] = l
	}
	switch {
	case s.Discount < 0 || s.Discount >= 1:
		return s, fmt.Errorf("batch.discount must be in [0, 1), got %v", s.Discount)
	case s.PollInterval <= 0:
		return s, fmt.Errorf("batch.poll_interval must be > 0, got %v", s.PollInterval)
	case s.CompletionWindow == "":
		return s, fmt.Errorf("batch.completion_window is empty (OpenAI takes 24h)")
	}
	return s, nil
}

// Supported reports whether models of this provider kind can go through
// a batch API, and why not.
func Supported(kind string) error {
	switch kind {
	case cascade.KindOpenAI, cascade.KindAnthropic, cascade.KindGemini:
		return nil
	case cascade.KindOpenAICompatible:
		return fmt.Errorf("an OpenAI-compatible server has no batch API")
	case cascade.KindBuiltin:
		return fmt.Errorf("the builtin model is offline and has no batch API")
	}
	return fmt.Errorf("provider kind %q has no batch API", kind)
}
