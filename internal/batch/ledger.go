package batch

import "github.com/compactlab/compact/internal/cascade"

// Ledger is the cost of a batch run, per tier and in total: what the
// providers billed at the batch rate, what the same calls cost at the
// model table's price, and what the response cache saved.
type Ledger struct {
	Tiers []LedgerRow `json:"tiers"`
	Total LedgerRow   `json:"total"`
}

// LedgerRow is one tier's (or the total's) requests, tokens and costs.
type LedgerRow struct {
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
	// Requests whose results were collected; Answered those accepted,
	// Failed the others (errored, expired, cancelled, too short).
	Requests int `json:"requests"`
	Answered int `json:"answered"`
	Failed   int `json:"failed"`
	// FromCache: answered from the response cache, never sent.
	FromCache    int   `json:"fromCache"`
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	// CachedInputTokens: input tokens the provider read from its prompt
	// cache, where it says (a part of InputTokens).
	CachedInputTokens int64 `json:"cachedInputTokens"`
	// CostUSD is billed at the batch rate; ListUSD is the same tokens at
	// the table's price; SavedUSD what the answers from the cache cost
	// when they were made.
	CostUSD  float64 `json:"costUsd"`
	ListUSD  float64 `json:"listUsd"`
	SavedUSD float64 `json:"savedUsd"`
}

func (r *LedgerRow) add(o LedgerRow) {
	r.Requests += o.Requests
	r.Answered += o.Answered
	r.Failed += o.Failed
	r.FromCache += o.FromCache
	r.InputTokens += o.InputTokens
	r.OutputTokens += o.OutputTokens
	r.CachedInputTokens += o.CachedInputTokens
	r.CostUSD = cascade.RoundUSD(r.CostUSD + o.CostUSD)
	r.ListUSD = cascade.RoundUSD(r.ListUSD + o.ListUSD)
	r.SavedUSD = cascade.RoundUSD(r.SavedUSD + o.SavedUSD)
}

// row is tier t's row, made when missing.
func (l *Ledger) row(st *State, t int) *LedgerRow {
	for len(l.Tiers) <= t {
		i := len(l.Tiers)
		l.Tiers = append(l.Tiers, LedgerRow{Model: st.Tiers[i].Model, Provider: st.Tiers[i].Provider})
	}
	return &l.Tiers[t]
}

// charge adds o to tier t and to the total.
func (l *Ledger) charge(st *State, t int, o LedgerRow) {
	l.row(st, t).add(o)
	l.Total.add(o)
}
