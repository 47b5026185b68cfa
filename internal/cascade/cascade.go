package cascade

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/history"
)

// Attempt outcomes.
const (
	OutcomeOK       = "ok"
	OutcomeError    = "error"
	OutcomeTimeout  = "timeout"
	OutcomeTooShort = "too-short"
	// OutcomeUnusable: the caller's Input.Check refused the answer.
	OutcomeUnusable = "unusable"
)

// Input is what the cascade sends to every model.
type Input struct {
	System string
	User   string
	// TargetChars is the briefing size the prompt asks for (a prompt
	// pack's targetChars), when the caller knows it: the builtin model
	// writes to it instead of compression.target_chars. Nothing is sent
	// for it: a real model reads the size from the prompt.
	TargetChars int
	// Repeat is which of several identical requests this is (compact
	// replay --repeat: the run NAME@I is repeat I); 0 or 1 is the first.
	// Nothing is sent for it: it only keeps each repeat's answer apart in
	// the response cache (cacheKey), so that a repeat is a fresh call to
	// the model the first time and is answered by its own cached answer
	// after, never by another repeat's.
	Repeat int
	// Check, when set, is the caller's test of an answer (the judge: are
	// there grades in it?). An answer it refuses fails the attempt
	// (OutcomeUnusable, its error the attempt's) and is never cached; a
	// cached answer it refuses is a miss.
	Check func(text string) error `json:"-"`
}

// Try is one HTTP request (or builtin call) within an attempt.
type Try struct {
	N int `json:"n"`
	// Status is the HTTP status, 0 when no response came.
	Status    int    `json:"status,omitempty"`
	Error     string `json:"error,omitempty"`
	Transient bool   `json:"transient,omitempty"`
	LatencyMs int64  `json:"latencyMs"`
	// RateWaitMs is the time spent waiting for the provider's rate limit
	// before this try.
	RateWaitMs int64 `json:"rateWaitMs,omitempty"`
	// RetryAfterMs is the delay the server asked for, nil when it did not.
	RetryAfterMs *int64 `json:"retryAfterMs,omitempty"`
	// WaitMs is the pause before the next try, 0 when there was none.
	WaitMs    int64  `json:"waitMs,omitempty"`
	RequestID string `json:"requestId,omitempty"`
}

// Attempt is one model of the cascade.
type Attempt struct {
	Model    string `json:"model"`
	Provider string `json:"provider"`
	APIModel string `json:"apiModel,omitempty"`
	// Outcome is ok, error, timeout or too-short.
	Outcome   string `json:"outcome"`
	Error     string `json:"error,omitempty"`
	LatencyMs int64  `json:"latencyMs"`
	Tries     []Try  `json:"tries"`
	// Temperature is the value sent, nil when none was.
	Temperature     *float64 `json:"temperature"`
	MaxOutputTokens int      `json:"maxOutputTokens"`
	// Omitted lists parameters left out and why, e.g. "temperature
	// (gpt-5.4-nano does not accept it)".
	Omitted []string `json:"omitted,omitempty"`
	// OutputChars is the trimmed answer's length in UTF-16 units, after
	// the cut of OutputTruncated.
	OutputChars int `json:"outputChars"`
	// OutputTruncated: the trimmed answer was longer than
	// cascade.max_answer_bytes and only that much of it (cut at a UTF-8
	// character boundary) was kept; OutputOriginalBytes is its length
	// before the cut, in bytes.
	OutputTruncated     bool    `json:"outputTruncated,omitempty"`
	OutputOriginalBytes int     `json:"outputOriginalBytes,omitempty"`
	FinishReason        string  `json:"finishReason,omitempty"`
	RequestID           string  `json:"requestId,omitempty"`
	Usage               Usage   `json:"usage"`
	CostUSD             float64 `json:"costUsd"`
	// Cached: the answer came from the response cache (no request was
	// made); CostUSD is then 0 and SavedUSD what the call cost when it
	// was made.
	Cached   bool    `json:"cached,omitempty"`
	SavedUSD float64 `json:"savedUsd,omitempty"`
	// Unsettled: the attempt timed out and its aborted request had not
	// settled within Settings.AbortGrace, so the cascade stopped there.
	Unsettled bool `json:"unsettled,omitempty"`
}

// Outcome is the result of a cascade run. Text is the trimmed answer of the
// attempt that succeeded; Usage and CostUSD add up every attempt.
type Outcome struct {
	Text string `json:"text"`
	// Truncated and OriginalBytes are the answering attempt's
	// OutputTruncated and OutputOriginalBytes.
	Truncated     bool      `json:"truncated,omitempty"`
	OriginalBytes int       `json:"originalBytes,omitempty"`
	Model         string    `json:"model,omitempty"`
	Provider      string    `json:"provider,omitempty"`
	Attempts      []Attempt `json:"attempts"`
	Usage         Usage     `json:"usage"`
	CostUSD       float64   `json:"costUsd"`
	LatencyMs     int64     `json:"latencyMs"`
	// Cached: the answering attempt came from the response cache.
	Cached   bool    `json:"cached,omitempty"`
	SavedUSD float64 `json:"savedUsd,omitempty"`
}

// FailedError is returned by Run when no model succeeded. It lists every
// attempt.
type FailedError struct{ Attempts []Attempt }

// Sent reports whether any attempt made a request (or a builtin call).
// An attempt that stopped before one, for want of a key or a model entry,
// has no tries.
func (e *FailedError) Sent() bool {
	for _, a := range e.Attempts {
		if len(a.Tries) > 0 {
			return true
		}
	}
	return false
}

func (e *FailedError) Error() string {
	var b strings.Builder
	if n := len(e.Attempts); n > 0 && e.Attempts[n-1].Unsettled {
		fmt.Fprintf(&b, "history compression stopped after %s: the aborted request of %s did not settle:", pluralForm(n, "model", "models"), e.Attempts[n-1].Model)
	} else if len(e.Attempts) == 1 {
		b.WriteString("history compression failed with its one model:")
	} else {
		fmt.Fprintf(&b, "history compression failed with all %d models:", len(e.Attempts))
	}
	for i, a := range e.Attempts {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s (%s): %s", a.Model, a.Provider, a.Outcome)
		if a.Error != "" {
			b.WriteString(": " + a.Error)
		}
		if len(a.Tries) > 1 {
			fmt.Fprintf(&b, " [%d tries]", len(a.Tries))
		}
	}
	return b.String()
}

// Cascade runs models in order until one gives a long enough answer. Run
// and Describe are safe for concurrent use; rate limits are shared by all
// runs of one Cascade.
type Cascade struct {
	Settings  Settings
	Models    Models
	Providers map[string]Provider
	limiters  map[string]*rate.Limiter
	rpm       map[string]int
	// redactor knows every provider's key.
	redactor *Redactor
	// keyless maps the providers that need a key and have none to where
	// it was looked for.
	keyless map[string]ProviderConfig
	// hosted lists the openai-compatible providers that are hosted APIs
	// (ProviderConfig.KeyRequired).
	hosted map[string]bool
	// Cache, when set, answers a request made before from its record, and
	// records every answer that is accepted (see cacheKey). Errors,
	// timeouts and answers too short are never recorded; the builtin
	// model is never cached.
	Cache ResponseCache
}

// ResponseCache stores answers by a content hash (internal/respcache).
type ResponseCache interface {
	Get(key string) ([]byte, bool)
	Put(key string, data []byte) error
}

// Load builds a Cascade from the configuration, for its profile.
func Load(st *config.Store, getenv func(string) string) (*Cascade, error) {
	return LoadFor(st, getenv, st.String("profile"))
}

// LoadFor builds a Cascade from the configuration for profile (a name or
// alias of internal/upstream): its cascade and abort grace, unless the
// configuration sets them.
func LoadFor(st *config.Store, getenv func(string) string, profile string) (*Cascade, error) {
	s, err := LoadSettingsFor(st, profile)
	if err != nil {
		return nil, err
	}
	ms, err := LoadModels(st)
	if err != nil {
		return nil, err
	}
	ps, err := LoadProviders(st, getenv)
	if err != nil {
		return nil, err
	}
	return New(s, ms, ps)
}

// NewProvider makes the provider of pc's kind.
func NewProvider(pc ProviderConfig) (Provider, error) {
	switch pc.Kind {
	case KindGemini:
		return NewGemini(pc), nil
	case KindOpenAI, KindOpenAICompatible:
		return NewOpenAI(pc), nil
	case KindAnthropic:
		return NewAnthropic(pc), nil
	case KindBuiltin:
		return NewBuiltin(pc), nil
	}
	return nil, fmt.Errorf("providers.%s: unknown kind %q", pc.Name, pc.Kind)
}

// New builds a Cascade. Every model must name a provider of provs, and
// every id of s.Models must be in the table.
func New(s Settings, models Models, provs []ProviderConfig) (*Cascade, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	c := &Cascade{
		Settings:  s,
		Models:    models,
		Providers: map[string]Provider{},
		limiters:  map[string]*rate.Limiter{},
		rpm:       map[string]int{},
		keyless:   map[string]ProviderConfig{},
		hosted:    map[string]bool{},
		redactor:  NewRedactor(),
	}
	for _, pc := range provs {
		if _, dup := c.Providers[pc.Name]; dup {
			return nil, fmt.Errorf("providers.%s: defined twice", pc.Name)
		}
		if err := c.addProvider(pc); err != nil {
			return nil, err
		}
	}
	for _, m := range models {
		if _, ok := c.Providers[m.Provider]; !ok {
			return nil, fmt.Errorf("models: %s: provider %q is not defined under providers:", m.ID, m.Provider)
		}
	}
	for _, id := range s.Models {
		if _, ok := models.Lookup(id); !ok {
			return nil, fmt.Errorf("cascade.models: %q is not in the model table (models:)", id)
		}
	}
	return c, nil
}

// addProvider adds pc, replacing a provider of the same name.
func (c *Cascade) addProvider(pc ProviderConfig) error {
	p, err := NewProvider(pc)
	if err != nil {
		return err
	}
	c.Providers[pc.Name] = p
	delete(c.limiters, pc.Name)
	delete(c.rpm, pc.Name)
	delete(c.keyless, pc.Name)
	delete(c.hosted, pc.Name)
	if pc.KeyRequired {
		c.hosted[pc.Name] = true
	}
	if pc.RPM > 0 {
		c.limiters[pc.Name] = newLimiter(pc.RPM)
		c.rpm[pc.Name] = pc.RPM
	}
	if pc.APIKey != "" {
		c.redactor.add(pc.APIKey)
	}
	if pc.NeedsKey() {
		c.keyless[pc.Name] = ProviderConfig{Name: pc.Name, Kind: pc.Kind, KeySource: pc.KeySource, KeyEnvs: pc.KeyEnvs}
	}
	return nil
}

// UseServer adds the OpenAI-compatible server pc (see ServerConfig),
// replacing a provider of the same name, and the model apiModel on it; it
// returns the model's id. Call it before Run.
func (c *Cascade) UseServer(pc ProviderConfig, apiModel string) (string, error) {
	if pc.Kind != KindOpenAICompatible {
		return "", fmt.Errorf("providers.%s: kind %s is not an openai-compatible server", pc.Name, pc.Kind)
	}
	if err := c.addProvider(pc); err != nil {
		return "", err
	}
	return c.ServerModel(pc.Name, apiModel)
}

// ServerModel is the model apiModel on the openai-compatible provider
// named provider: the model table's entry for it when there is one (its
// prices and parameters apply), else a new entry with that id, which
// accepts a temperature and costs nothing (it replaces, for this Cascade,
// a table entry of the same id on another provider). Call it before Run.
func (c *Cascade) ServerModel(provider, apiModel string) (string, error) {
	p, ok := c.Providers[provider]
	if !ok {
		return "", fmt.Errorf("provider %q is not defined under providers:", provider)
	}
	if p.Kind() != KindOpenAICompatible {
		return "", fmt.Errorf("providers.%s is of kind %s, not openai-compatible", provider, p.Kind())
	}
	apiModel = strings.TrimSpace(apiModel)
	if apiModel == "" {
		return "", errors.New("the model name is empty")
	}
	for _, m := range c.Models {
		if m.Provider == provider && m.APIModel == apiModel {
			return m.ID, nil
		}
	}
	m := Model{ID: apiModel, Provider: provider, APIModel: apiModel, AcceptsTemperature: true}
	ms := make(Models, 0, len(c.Models)+1)
	for _, old := range c.Models {
		if old.ID != m.ID {
			ms = append(ms, old)
		}
	}
	c.Models = append(ms, m)
	return m.ID, nil
}

// LocalServer reports whether the provider named is an OpenAI-compatible
// server that is not a hosted API (key_required): a local model, which
// replays allow more time.
func (c *Cascade) LocalServer(provider string) bool {
	p := c.Providers[provider]
	return p != nil && p.Kind() == KindOpenAICompatible && !c.hosted[provider]
}

// MissingKey is a model whose provider needs an API key and has none.
type MissingKey struct {
	Model    string
	Provider string
	// Envs are the variables the key was looked for in, first to last.
	Envs []string
	// Source says where it was looked for (KeySource).
	Source string
}

// SplitByKey divides order into the models that can be sent (their
// provider has its key or needs none) and those whose provider lacks its
// key, each list in order. A model not in the table, or whose provider is
// not configured, counts as ready: its attempt says what is wrong.
func (c *Cascade) SplitByKey(order []string) (ready []string, missing []MissingKey) {
	for _, id := range order {
		m, ok := c.Models.Lookup(id)
		if ok {
			if pc, keyless := c.keyless[m.Provider]; keyless {
				missing = append(missing, MissingKey{Model: id, Provider: m.Provider, Envs: pc.KeyEnvs, Source: pc.KeySource})
				continue
			}
		}
		ready = append(ready, id)
	}
	return ready, missing
}

// newLimiter allows rpm requests per minute, evenly spaced (burst 1).
func newLimiter(rpm int) *rate.Limiter {
	return rate.NewLimiter(rate.Limit(float64(rpm)/60), 1)
}

// Order is the default order followed by fallback (the chat's own model)
// when it is given and not already in it.
func (c *Cascade) Order(fallback string) []string {
	out := slices.Clone(c.Settings.Models)
	if fallback != "" && !slices.Contains(out, fallback) {
		out = append(out, fallback)
	}
	return out
}

// request is what an attempt at m sends, and what it leaves out.
func (c *Cascade) request(in Input, m Model) (Request, []string) {
	req := Request{System: in.System, User: in.User, Model: m.APIModel, MaxOutputTokens: c.Settings.MaxOutputTokens, MaxAnswerBytes: c.Settings.maxAnswerBytes(), TargetChars: in.TargetChars}
	var omitted []string
	if m.AcceptsTemperature {
		t := c.Settings.Temperature
		req.Temperature = &t
	} else {
		omitted = append(omitted, fmt.Sprintf("temperature (%s does not accept it)", m.ID))
	}
	if m.MaxOutputTokens > 0 && req.MaxOutputTokens > m.MaxOutputTokens {
		omitted = append(omitted, fmt.Sprintf("max output tokens %d (capped at %s's %d)", req.MaxOutputTokens, m.ID, m.MaxOutputTokens))
		req.MaxOutputTokens = m.MaxOutputTokens
	}
	return req, omitted
}

// Describe says what Run would send to each model of order.
func (c *Cascade) Describe(in Input, order []string) []DryRun {
	out := make([]DryRun, 0, len(order))
	for _, id := range order {
		m, ok := c.Models.Lookup(id)
		if !ok {
			out = append(out, DryRun{Model: id, Error: "not in the model table"})
			continue
		}
		p := c.Providers[m.Provider]
		if p == nil {
			out = append(out, DryRun{Model: id, Provider: m.Provider, Error: "provider not configured"})
			continue
		}
		req, omitted := c.request(in, m)
		req.Timeout = c.Settings.Timeout
		d := p.Describe(req)
		d.Model = id
		d.Omitted = append(omitted, d.Omitted...)
		d.RPM = c.rpm[m.Provider]
		d.URL = c.scrub(d.URL)
		d.Auth = c.scrub(d.Auth)
		d.Error = c.scrub(d.Error)
		out = append(out, d)
	}
	return out
}

// Redact removes every provider's key from s: any 12 of its characters in
// a row, in any letter case, disguised or encoded, or masked the way
// providers mask keys (see Redactor), and URL credentials. Everything the
// cascade records, returns or prints goes through it.
func (c *Cascade) Redact(s string) string { return c.redactor.Redact(s) }

func (c *Cascade) scrub(s string) string { return c.Redact(s) }

// Run tries the models of order (see Order) until one answers with at least
// MinOutputChars UTF-16 units of trimmed text. The Outcome is returned even
// with an error: a *FailedError when every model failed, or the context's
// error when ctx ended.
func (c *Cascade) Run(ctx context.Context, in Input, order []string) (*Outcome, error) {
	start := time.Now()
	out := &Outcome{Attempts: []Attempt{}}
	finish := func() { out.LatencyMs = time.Since(start).Milliseconds() }
	for _, id := range order {
		a, text := c.attempt(ctx, in, id)
		out.Attempts = append(out.Attempts, a)
		out.Usage = out.Usage.Add(a.Usage)
		out.CostUSD = RoundUSD(out.CostUSD + a.CostUSD)
		out.SavedUSD = RoundUSD(out.SavedUSD + a.SavedUSD)
		if a.Outcome == OutcomeOK {
			out.Text, out.Model, out.Provider, out.Cached = text, a.Model, a.Provider, a.Cached
			out.Truncated, out.OriginalBytes = a.OutputTruncated, a.OutputOriginalBytes
			finish()
			return out, nil
		}
		if a.Unsettled {
			// No other model is started while the request may still run
			// (and bill) in the background.
			finish()
			return out, &FailedError{Attempts: out.Attempts}
		}
		if err := ctx.Err(); err != nil {
			finish()
			return out, fmt.Errorf("history compression stopped after %d of the models: %w", len(out.Attempts), err)
		}
	}
	finish()
	if len(order) == 0 {
		return out, errors.New("history compression: no models to try")
	}
	return out, &FailedError{Attempts: out.Attempts}
}

// attempt runs one model: tries with retries of transient faults, within
// Settings.Timeout.
func (c *Cascade) attempt(ctx context.Context, in Input, id string) (Attempt, string) {
	start := time.Now()
	a := Attempt{Model: id, Tries: []Try{}}
	done := func(outcome, msg string) (Attempt, string) {
		a.Outcome, a.Error = outcome, c.scrub(msg)
		a.LatencyMs = time.Since(start).Milliseconds()
		return a, ""
	}
	m, ok := c.Models.Lookup(id)
	if !ok {
		return done(OutcomeError, fmt.Sprintf("model %q is not in the model table", id))
	}
	a.Provider, a.APIModel = m.Provider, m.APIModel
	p := c.Providers[m.Provider]
	if p == nil {
		return done(OutcomeError, fmt.Sprintf("provider %q is not configured", m.Provider))
	}
	req, omitted := c.request(in, m)
	a.Temperature, a.MaxOutputTokens, a.Omitted = req.Temperature, req.MaxOutputTokens, omitted
	if pc, keyless := c.keyless[m.Provider]; keyless {
		// Nothing is sent: the attempt has no tries.
		return done(OutcomeError, m.Provider+": no API key ("+pc.KeySource+")")
	}

	var key string
	if c.Cache != nil && p.Kind() != KindBuiltin {
		key = c.cacheKey(p, req, in.Repeat)
		if ca, text, ok := c.fromCache(a, m, key, start); ok && checkAnswer(in.Check, text) == nil {
			return ca, text
		}
	}
	// accept applies the answer's checks (trim, redaction, cut, minimum
	// size, the caller's Check) and records an accepted answer in the
	// cache.
	accept := func(raw string) (Attempt, string) {
		text := TrimJS(raw)
		size := len(text)
		text = c.scrub(text)
		if err := checkAnswer(in.Check, text); err != nil {
			a.Outcome, a.Error = OutcomeUnusable, c.scrub(err.Error())
			a.OutputChars = history.Len16(text)
			a.LatencyMs = time.Since(start).Milliseconds()
			return a, ""
		}
		if key != "" && history.Len16(text) >= c.Settings.MinOutputChars {
			c.toCache(key, a, text)
		}
		return c.finish(a, text, size, start)
	}

	actx, cancel := context.WithTimeout(ctx, c.Settings.Timeout)
	defer cancel()
	timedOut := func() (Attempt, string) {
		return done(OutcomeTimeout, fmt.Sprintf("no answer within %v", c.Settings.Timeout))
	}
	for n := 1; ; n++ {
		tr := Try{N: n}
		if lim := c.limiters[m.Provider]; lim != nil {
			w0 := time.Now()
			err := lim.Wait(actx)
			tr.RateWaitMs = time.Since(w0).Milliseconds()
			if err != nil {
				tr.Error = "rate limit: " + err.Error()
				a.Tries = append(a.Tries, tr)
				if ctx.Err() != nil {
					return done(OutcomeError, ctx.Err().Error())
				}
				return timedOut()
			}
		}
		t0 := time.Now()
		res, unsettled, err := c.generate(actx, p, req)
		tr.LatencyMs = time.Since(t0).Milliseconds()
		if unsettled && ctx.Err() != nil {
			a.Tries = append(a.Tries, tr)
			return done(OutcomeError, ctx.Err().Error())
		}
		if unsettled {
			tr.Error = fmt.Sprintf("no answer within %v, and the aborted request did not settle within %v", c.Settings.Timeout, c.Settings.AbortGrace)
			a.Tries = append(a.Tries, tr)
			a.Unsettled = true
			return done(OutcomeTimeout, tr.Error+": the cascade stops")
		}
		if err == nil {
			rid := c.scrub(res.RequestID)
			tr.Status, tr.RequestID = res.HTTPStatus, rid
			a.Tries = append(a.Tries, tr)
			a.Usage = a.Usage.Add(res.Usage)
			a.CostUSD = m.Cost(a.Usage)
			a.FinishReason, a.RequestID = c.scrub(res.FinishReason), rid
			for _, o := range res.Omitted {
				a.Omitted = append(a.Omitted, c.scrub(o))
				if strings.HasPrefix(o, "temperature") {
					a.Temperature = nil
				}
			}
			return accept(res.Text)
		}
		var pe *Error
		if !errors.As(err, &pe) {
			pe = &Error{Provider: m.Provider, Msg: err.Error()}
		}
		tr.Status, tr.Error, tr.Transient, tr.RequestID = pe.Status, c.scrub(pe.Error()), pe.Transient, c.scrub(pe.RequestID)
		if pe.HasRetryAfter {
			ms := pe.RetryAfter.Milliseconds()
			tr.RetryAfterMs = &ms
		}
		switch {
		case ctx.Err() != nil:
			a.Tries = append(a.Tries, tr)
			return done(OutcomeError, ctx.Err().Error())
		case pe.Timeout || actx.Err() != nil:
			a.Tries = append(a.Tries, tr)
			return timedOut()
		case !pe.Transient:
			a.Tries = append(a.Tries, tr)
			return done(OutcomeError, pe.Error())
		case n >= c.Settings.Retry.MaxTries:
			a.Tries = append(a.Tries, tr)
			return done(OutcomeError, fmt.Sprintf("%s (gave up after %s)", pe.Error(), pluralForm(n, "try", "tries")))
		}
		wait := c.backoff(n)
		if pe.HasRetryAfter {
			wait = pe.RetryAfter
		}
		if dl, ok := actx.Deadline(); ok && time.Until(dl) <= wait {
			a.Tries = append(a.Tries, tr)
			return done(OutcomeError, fmt.Sprintf("%s (a retry in %v would not fit in the attempt's %v)", pe.Error(), wait.Round(time.Millisecond), c.Settings.Timeout))
		}
		tr.WaitMs = wait.Milliseconds()
		a.Tries = append(a.Tries, tr)
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-actx.Done():
				t.Stop()
				if ctx.Err() != nil {
					return done(OutcomeError, ctx.Err().Error())
				}
				return timedOut()
			case <-t.C:
			}
		}
	}
}

// generate is p.Generate(actx, req). With an abort grace, a call still
// running when actx ends (its time is up, or the caller stopped) is given
// Settings.AbortGrace to return; what it returns then is its result (an
// answer that arrives within the grace is used, as upstream uses a
// request that settles after its abort), and one that has not returned by
// then is left behind: unsettled.
func (c *Cascade) generate(actx context.Context, p Provider, req Request) (res *Result, unsettled bool, err error) {
	grace := c.Settings.AbortGrace
	if grace <= 0 {
		res, err = p.Generate(actx, req)
		return res, false, err
	}
	type result struct {
		res *Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, e := p.Generate(actx, req)
		done <- result{r, e}
	}()
	select {
	case r := <-done:
		return r.res, false, r.err
	case <-actx.Done():
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case r := <-done:
		return r.res, false, r.err
	case <-t.C:
		return nil, true, nil
	}
}

// finish is the end of an attempt that got an answer: text (trimmed and
// redacted, size bytes long before redaction) is cut to
// cascade.max_answer_bytes and checked against the minimum size. It is
// redacted before the cut, so that no piece of a key is left at the end.
func (c *Cascade) finish(a Attempt, text string, size int, start time.Time) (Attempt, string) {
	if max := c.Settings.maxAnswerBytes(); len(text) > max {
		a.OutputTruncated, a.OutputOriginalBytes = true, size
		text = CutUTF8(text, max)
	}
	a.OutputChars = history.Len16(text)
	a.LatencyMs = time.Since(start).Milliseconds()
	if a.OutputChars < c.Settings.MinOutputChars {
		a.Outcome = OutcomeTooShort
		a.Error = fmt.Sprintf("answer of %s after trimming, under %d (finish reason %q)", pluralForm(a.OutputChars, "character", "characters"), c.Settings.MinOutputChars, a.FinishReason)
		return a, ""
	}
	a.Outcome = OutcomeOK
	return a, text
}

// checkAnswer is check(text), nil without a check.
func checkAnswer(check func(string) error, text string) error {
	if check == nil {
		return nil
	}
	return check(text)
}

// backoff is the pause after the n-th try: a random time in [d/2, d],
// d = min(MaxDelay, BaseDelay·2^(n-1)).
func (c *Cascade) backoff(n int) time.Duration {
	r := c.Settings.Retry
	d := r.BaseDelay
	for i := 1; i < n && d < r.MaxDelay; i++ {
		d *= 2
	}
	if r.MaxDelay > 0 && d > r.MaxDelay {
		d = r.MaxDelay
	}
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(d-half)+1))
}

// pluralForm is "1 one" or "N many".
func pluralForm(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
