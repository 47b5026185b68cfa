package strategy

import (
	"context"
	"strings"
)

// Strategy names, as registered.
const (
	NameStagewise      = "stagewise"
	NameOnyx           = "onyx"
	NameSlidingWindow  = "sliding-window"
	NameSelectivePrune = "selective-prune"
	NameSummaryBuffer  = "summary-buffer"

	NameObservationMasking = "observation-masking"
	NameToolClearing       = "tool-clearing"
	NamePruneSummarize     = "prune-summarize"
	NameMaskThenSummarize  = "mask-then-summarize"
	NameCodexUserRetention = "codex-user-retention"
)

// ExtraKnobs are the Config.Extra names the strategies read, with what
// they set. Any other name is ignored.
var ExtraKnobs = map[string]string{
	"kept_fraction": "stagewise: kept budget share of the context window (0.2)",
	"kept_cap":      "stagewise: kept budget cap in tokens (40000)",
	"hard_cap":      "stagewise: trigger hard cap in tokens (200000 at e3e, 100000 at head)",
	"min_floor":     "stagewise: lower bound of the walk's message floor (5)",

	"keep_results":   "observation-masking, mask-then-summarize: tool results kept whole (10); tool-clearing: (3; Claude Code's microcompact keeps 5)",
	"trigger_tokens": "tool-clearing: clear when the context passes this many tokens (100000, at most half the window)",
	"clear_at_least": "tool-clearing: clear only when that frees at least this many tokens (0: any)",
	"prune_protect":  "prune-summarize: the newest tool-output tokens never pruned (40000, at most a fifth of the window)",
	"prune_minimum":  "prune-summarize: prune only when that frees more than this many tokens (20000, at most a tenth of the window)",
	"tail_tokens":    "prune-summarize: the newest tokens a summary keeps verbatim (15000, at least 2000, at most a quarter of the usable window)",
	"summary_turns":  "mask-then-summarize: summarize when the view holds this many turns (43)",
	"keep_turns":     "mask-then-summarize: the newest turns a summary keeps verbatim (10)",
	"user_budget":    "codex-user-retention: tokens of user messages a compaction keeps (20000, at most a tenth of the window)",
}

// base holds what every strategy of this package shares.
type base struct {
	cfg      Config
	hold     bool
	counter  *counter // nil: the strategy's own estimator
	overhead float64  // Config.SystemOverhead
	window   int
	upto     int // the last history index appended to the state (-1)
}

func newBase(cfg Config) (base, error) {
	c, err := newCounter(cfg.Tokenizer)
	if err != nil {
		return base{}, err
	}
	w := cfg.ContextWindow
	if w <= 0 {
		w = DefaultContextWindow
	}
	return base{cfg: cfg, counter: c, overhead: float64(cfg.SystemOverhead), window: w, upto: -1}, nil
}

// SetHold implements Guarded.
func (b *base) SetHold(h bool) { b.hold = h }

// intOr is v, or def when v is 0.
func intOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func floatOr(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// callSummarizer asks sum for req's summary and marks r as having called
// it. note says why there is no summary to use ("" when there is one):
// the summarizer failed, or answered nothing. err is the context's error
// only.
func callSummarizer(ctx context.Context, sum Summarizer, req SummaryRequest, r *StepReport) (text, note string, err error) {
	text, err = sum.Summarize(ctx, req)
	r.SummarizerCalled = true
	if err != nil {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", "summarizer failed: " + err.Error(), nil
	}
	if text = strings.TrimSpace(text); text == "" {
		return "", "empty summary: nothing stored", nil
	}
	return text, "", nil
}
