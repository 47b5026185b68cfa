package cascade

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/respcache"
)

// cacheVersion changes when what a key covers or what a record holds
// changes: older entries are then misses.
const cacheVersion = "compact-response-v1"

// cacheRecord is what the response cache keeps of an accepted answer.
// Text is trimmed and redacted, not cut.
type cacheRecord struct {
	Version      string   `json:"version"`
	Provider     string   `json:"provider"`
	Kind         string   `json:"kind"`
	APIModel     string   `json:"apiModel"`
	Text         string   `json:"text"`
	Usage        Usage    `json:"usage"`
	FinishReason string   `json:"finishReason,omitempty"`
	RequestID    string   `json:"requestId,omitempty"`
	Status       int      `json:"status,omitempty"`
	Omitted      []string `json:"omitted,omitempty"`
	CostUSD      float64  `json:"costUsd"`
	CreatedAt    string   `json:"createdAt"`
}

// cacheKey is the content hash of everything that decides an answer: the
// provider's kind and endpoint, the model asked for, every parameter sent
// (temperature, output limit and the provider's own, such as the name of
// the output-limit field) and both prompts, and, from the second repeat of
// a request on (Input.Repeat > 1), which repeat it is: the first repeat's
// key is the plain request's. The provider's name, the key and the time
// budget are left out: the same request to the same endpoint is the same
// request.
func (c *Cascade) cacheKey(p Provider, req Request, repeat int) string {
	if repeat < 2 {
		repeat = 0 // left out of the key
	}
	d := p.Describe(req)
	params := struct {
		V           string         `json:"v"`
		Kind        string         `json:"kind"`
		URL         string         `json:"url"`
		Model       string         `json:"model"`
		Temperature *float64       `json:"temperature"`
		MaxOut      int            `json:"maxOutputTokens"`
		Extra       map[string]any `json:"extra,omitempty"`
		Repeat      int            `json:"repeat,omitempty"`
	}{cacheVersion, p.Kind(), c.scrub(d.URL), req.Model, req.Temperature, req.MaxOutputTokens, d.Extra, repeat}
	head, _ := json.Marshal(params)
	return respcache.Key(head, []byte(req.System), []byte(req.User))
}

// fromCache answers the attempt from the cache when key has a record.
func (c *Cascade) fromCache(a Attempt, m Model, key string, start time.Time) (Attempt, string, bool) {
	data, ok := c.Cache.Get(key)
	if !ok {
		return a, "", false
	}
	var rec cacheRecord
	if json.Unmarshal(data, &rec) != nil || rec.Version != cacheVersion {
		return a, "", false
	}
	a.Cached = true
	a.Usage = rec.Usage
	a.SavedUSD = m.Cost(rec.Usage)
	a.CostUSD = 0
	a.FinishReason, a.RequestID = rec.FinishReason, rec.RequestID
	a.Omitted = rec.Omitted // what the request left out, and the provider
	for _, o := range rec.Omitted {
		if strings.HasPrefix(o, "temperature") {
			a.Temperature = nil
		}
	}
	text := c.scrub(rec.Text)
	out, t := c.finish(a, text, len(rec.Text), start)
	return out, t, out.Outcome == OutcomeOK
}

// toCache records an accepted answer. A cache that cannot be written is
// no reason to fail the attempt: the answer is returned all the same.
func (c *Cascade) toCache(key string, a Attempt, text string) {
	m, _ := c.Models.Lookup(a.Model)
	rec := cacheRecord{
		Version: cacheVersion, Provider: a.Provider, Kind: c.Providers[a.Provider].Kind(), APIModel: a.APIModel,
		Text: text, Usage: a.Usage, FinishReason: a.FinishReason, RequestID: a.RequestID, Omitted: a.Omitted,
		CostUSD: m.Cost(a.Usage), CreatedAt: time.Now().UTC().Format(time.RFC3339),
	}
	if n := len(a.Tries); n > 0 {
		rec.Status = a.Tries[n-1].Status
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return
	}
	_ = c.Cache.Put(key, data)
}
