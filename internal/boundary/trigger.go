package boundary

import (
	"fmt"
	"math"
	"strconv"
)

// Trigger reasons, for TriggerResult.Reason.
const (
	ReasonLookupFailed = "lookup-failed"   // no context window: the check is skipped
	ReasonDisabled     = "disabled"        // threshold < 0 (or NaN)
	ReasonAboveLimit   = "above-limit"     // usedTokens > limit: compress
	ReasonNotAbove     = "not-above-limit" // usedTokens <= limit (or a NaN operand)
)

// TriggerResult explains one trigger decision.
type TriggerResult struct {
	Trigger    bool    `json:"trigger"`
	UsedTokens float64 `json:"usedTokens"`
	Threshold  float64 `json:"threshold"`
	// ContextWindow is nil when the model lookup failed.
	ContextWindow *int    `json:"contextWindow"`
	HardCap       float64 `json:"hardCap"`
	// Limit is min(threshold*contextWindow, hardCap); nil when the lookup
	// failed.
	Limit  *float64 `json:"limit"`
	Reason string   `json:"reason"`
	// Explanation says the same in words, with the numbers.
	Explanation string `json:"explanation"`
}

// Trigger reports whether handlePostStep would start a compression after a
// step that used usedTokens (the step's usage.totalTokens). contextWindow
// nil means the model lookup threw, which skips the check. Otherwise it is
// threshold >= 0 && usedTokens > min(threshold*ctx, hardCap), in float64,
// strict, without flooring.
func Trigger(usedTokens float64, contextWindow *int, p Params) bool {
	return ExplainTrigger(usedTokens, contextWindow, p).Trigger
}

// ExplainTrigger is Trigger with the numbers that led to the decision.
func ExplainTrigger(usedTokens float64, contextWindow *int, p Params) TriggerResult {
	r := TriggerResult{
		UsedTokens: usedTokens,
		Threshold:  p.Threshold,
		HardCap:    p.HardCap,
	}
	if contextWindow == nil {
		r.Reason = ReasonLookupFailed
		r.Explanation = "no context window (the model lookup failed): the check is skipped"
		return r
	}
	ctx := *contextWindow
	r.ContextWindow = &ctx
	// Math.min: NaN if either operand is NaN, and -0 < +0; Go's min agrees.
	limit := min(p.Threshold*float64(ctx), p.HardCap)
	r.Limit = &limit
	test := fmt.Sprintf("usedTokens %s > limit %s = min(threshold %s * contextWindow %d, hardCap %s)",
		num(usedTokens), num(limit), num(p.Threshold), ctx, num(p.HardCap))
	switch {
	case !(p.Threshold >= 0):
		r.Reason = ReasonDisabled
		r.Explanation = fmt.Sprintf("threshold %s is not >= 0: compression is disabled", num(p.Threshold))
	case usedTokens > limit:
		r.Trigger = true
		r.Reason = ReasonAboveLimit
		r.Explanation = test + " is true: compress"
	default:
		r.Reason = ReasonNotAbove
		r.Explanation = test + " is false: no compression"
	}
	return r
}

// num prints f the way JavaScript does for the values met here: integers
// without exponent or fraction, NaN, Infinity.
func num(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == math.Trunc(f) && math.Abs(f) < 1e21:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
