package cascade

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/config"
)

// Model is one row of the model table (configs/compact.yaml, models:).
type Model struct {
	// ID is the name compact uses (cascade lists, --model, chat models).
	ID string `json:"id"`
	// Provider is the name of an entry of providers:.
	Provider string `json:"provider"`
	// APIModel is the name sent to the API; defaults to ID.
	APIModel      string `json:"apiModel"`
	ContextWindow int    `json:"contextWindow"`
	// AcceptsTemperature false: no temperature is sent, and the attempt
	// record says it was left out.
	AcceptsTemperature bool `json:"acceptsTemperature"`
	// MaxOutputTokens caps the requested output tokens; 0: no cap.
	MaxOutputTokens int `json:"maxOutputTokens"`
	// Prices in USD per million tokens.
	PriceInPerMTok  float64 `json:"priceInPerMTok"`
	PriceOutPerMTok float64 `json:"priceOutPerMTok"`
}

// Cost is the price of u in USD, rounded to the micro-dollar.
func (m Model) Cost(u Usage) float64 {
	return RoundUSD((float64(u.InputTokens)*m.PriceInPerMTok + float64(u.OutputTokens)*m.PriceOutPerMTok) / 1e6)
}

// FormatUSD prints a cost to the micro-dollar, without trailing zeros
// past the cents: $0, $0.000371, $0.0123, $1.50.
func FormatUSD(v float64) string {
	v = RoundUSD(v)
	if v == 0 {
		return "$0"
	}
	s := strconv.FormatFloat(v, 'f', 6, 64)
	for strings.HasSuffix(s, "0") && len(s)-strings.IndexByte(s, '.') > 3 {
		s = s[:len(s)-1]
	}
	return "$" + s
}

// RoundUSD rounds a cost to the micro-dollar (6 decimals), the precision
// every record and report carries: sums of prices per million tokens
// otherwise print as 0.00037055000000000004.
func RoundUSD(usd float64) float64 {
	if usd == 0 || math.IsNaN(usd) || math.IsInf(usd, 0) {
		return usd
	}
	return math.Round(usd*1e6) / 1e6
}

// Models is the model table, in configuration order.
type Models []Model

// Lookup finds a model by id.
func (ms Models) Lookup(id string) (Model, bool) {
	for _, m := range ms {
		if m.ID == id {
			return m, true
		}
	}
	return Model{}, false
}

// IDs lists the ids in table order.
func (ms Models) IDs() []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// LoadModels reads the models: list of st, then extra_models: on top of it
// (a configuration file's list replaces the whole default table, so users
// add or override models with extra_models instead; an entry with the id of
// a listed model replaces it).
func LoadModels(st *config.Store) (Models, error) {
	ms, err := ParseModels(st.Get("models"))
	if err != nil {
		return nil, err
	}
	raw := st.Get("extra_models")
	if raw == nil {
		return ms, nil
	}
	if l, ok := raw.([]any); ok && len(l) == 0 {
		return ms, nil
	}
	extra, err := ParseModels(raw)
	if err != nil {
		return nil, fmt.Errorf("extra_%w", err)
	}
	for _, m := range extra {
		replaced := false
		for i := range ms {
			if ms[i].ID == m.ID {
				ms[i], replaced = m, true
			}
		}
		if !replaced {
			ms = append(ms, m)
		}
	}
	return ms, nil
}

var modelKeys = map[string]bool{
	"id": true, "provider": true, "api_model": true, "context_window": true,
	"accepts_temperature": true, "max_output_tokens": true,
	"price_in_per_mtok": true, "price_out_per_mtok": true,
}

// ParseModels reads a models: list as the YAML decoder gives it ([]any of
// map[string]any). Errors name the entry.
func ParseModels(raw any) (Models, error) {
	if raw == nil {
		return nil, fmt.Errorf("models: the model table is missing")
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("models: want a list of entries, got %T", raw)
	}
	var out Models
	seen := map[string]int{}
	for i, item := range list {
		entry, ok := toStringMap(item)
		if !ok {
			return nil, fmt.Errorf("models[%d]: want a mapping (id, provider, api_model, …), got %T", i, item)
		}
		id, _ := entry["id"].(string)
		name := fmt.Sprintf("models[%d]", i)
		if id != "" {
			name = fmt.Sprintf("models[%d] (%s)", i, id)
		}
		var unknown []string
		for k := range entry {
			if !modelKeys[k] {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return nil, fmt.Errorf("%s: unknown key %s (known: id, provider, api_model, context_window, accepts_temperature, max_output_tokens, price_in_per_mtok, price_out_per_mtok)", name, strings.Join(unknown, ", "))
		}
		if id == "" {
			return nil, fmt.Errorf("%s: id is missing or not a string", name)
		}
		if j, dup := seen[id]; dup {
			return nil, fmt.Errorf("%s: duplicate id, also models[%d]", name, j)
		}
		seen[id] = i
		m := Model{ID: id, AcceptsTemperature: true}
		var err error
		if m.Provider, err = str(entry, "provider"); err != nil || m.Provider == "" {
			return nil, fmt.Errorf("%s: provider is missing or not a string", name)
		}
		if m.APIModel, err = str(entry, "api_model"); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if m.APIModel == "" {
			m.APIModel = id
		}
		if v, ok := entry["accepts_temperature"]; ok && v != nil {
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("%s: accepts_temperature must be true or false, got %v", name, v)
			}
			m.AcceptsTemperature = b
		}
		for _, f := range []struct {
			key string
			dst *int
		}{{"context_window", &m.ContextWindow}, {"max_output_tokens", &m.MaxOutputTokens}} {
			n, err := num(entry, f.key)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			if n < 0 || n != math.Trunc(n) || n > math.MaxInt32 {
				return nil, fmt.Errorf("%s: %s must be a whole number ≥ 0, got %v", name, f.key, entry[f.key])
			}
			*f.dst = int(n)
		}
		for _, f := range []struct {
			key string
			dst *float64
		}{{"price_in_per_mtok", &m.PriceInPerMTok}, {"price_out_per_mtok", &m.PriceOutPerMTok}} {
			n, err := num(entry, f.key)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			if n < 0 {
				return nil, fmt.Errorf("%s: %s must be ≥ 0, got %v", name, f.key, n)
			}
			*f.dst = n
		}
		out = append(out, m)
	}
	return out, nil
}

func toStringMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(m))
		for k, val := range m {
			out[strings.ToLower(k)] = val
		}
		return out, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, val := range m {
			ks, ok := k.(string)
			if !ok {
				return nil, false
			}
			out[strings.ToLower(ks)] = val
		}
		return out, true
	}
	return nil, false
}

func str(m map[string]any, key string) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s must be a string, got %v", key, v)
	}
	return s, nil
}

// num reads a number; absent is 0.
func num(m map[string]any, key string) (float64, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return 0, nil
	}
	switch n := v.(type) {
	case int:
		return float64(n), nil
	case int64:
		return float64(n), nil
	case uint64:
		return float64(n), nil
	case float64:
		return n, nil
	case float32:
		return float64(n), nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err == nil {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%s must be a number, got %v", key, v)
}
