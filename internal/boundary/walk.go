package boundary

import "math"

// Walk outcomes, for Result.Kind.
const (
	// KindCompress: compress h[0:BoundaryIndex]; h[BoundaryIndex:] stays.
	KindCompress = "compress"
	// KindSkipAllFit: the walk reached message 0 with everything inside the
	// budget and fewer messages than the floor.
	KindSkipAllFit = "skip-all-fit"
	// KindSkipBoundaryLT1: the boundary came out below 1, so there is
	// nothing before it to compress.
	KindSkipBoundaryLT1 = "skip-boundary-lt-1"
	// KindSkipNoBoundaryID: the boundary message has no id (a falsy one,
	// or the entry itself is absent), and agent-core releases give up
	// there (Params.NeedBoundaryID).
	KindSkipNoBoundaryID = "skip-boundary-no-id"
)

// Why the walk stopped, for Result.StopReason.
const (
	// StopBudget: message StopIndex would have pushed the kept tokens over
	// the budget; the boundary is StopIndex+1.
	StopBudget = "budget"
	// StopFloor: after adding message StopIndex, floor messages were kept;
	// the boundary is StopIndex.
	StopFloor = "floor"
	// StopStart: the walk added message 0 without reaching the budget or
	// the floor.
	StopStart = "start"
	// StopEmpty: there were no messages to walk.
	StopEmpty = "empty"
	// StopPassedStart: message 0 was absent and passed over
	// (Params.SkipAbsent), so the walk ran off the start untested.
	StopPassedStart = "passed-start"
)

// Result is the outcome of one walk. The first six fields are the ones
// the conformance vectors' "expected" object holds, under the same JSON
// names; the rest are there to explain the decision.
type Result struct {
	// Kind is KindCompress, KindSkipAllFit, KindSkipBoundaryLT1 or
	// KindSkipNoBoundaryID.
	Kind string `json:"result"`
	// BoundaryIndex is the index of the boundary message (it is not
	// compressed, everything before it is); nil unless Kind is compress
	// or skip-boundary-no-id.
	BoundaryIndex *int `json:"boundaryIndex"`
	// KeptCount is len - BoundaryIndex; nil unless Kind is compress.
	KeptCount *int `json:"keptCount"`
	// KeptBudget is min(floor(ctx*fraction), cap).
	KeptBudget int `json:"keptBudget"`
	// Floor is max(MinFloor, minUncompressed).
	Floor int `json:"floor"`
	// SingleMessageWarning is set when the boundary ran past the last
	// message and was clamped to len-1 (the last message alone busts the
	// budget, or the history is empty).
	SingleMessageWarning bool `json:"singleMessageWarning"`

	// MessageCount is the number of messages walked.
	MessageCount int `json:"messageCount"`
	// ContextWindow is the window the budget was computed from.
	ContextWindow int `json:"contextWindow"`
	// WindowFromLookup is false when the lookup failed and ContextWindow is
	// Params.DefaultContextWindow.
	WindowFromLookup bool `json:"windowFromLookup"`
	// StopReason is StopBudget, StopFloor, StopStart, StopEmpty or
	// StopPassedStart.
	StopReason string `json:"stopReason"`
	// StopIndex is the message the walk stopped at (see StopReason); nil
	// for an empty history.
	StopIndex *int `json:"stopIndex"`
	// Absent counts the messages passed over as absent
	// (Params.SkipAbsent); omitted when none was.
	Absent int `json:"absentMessages,omitempty"`
	// KeptTokens is the accumulated estimate when the walk stopped: the
	// messages after StopIndex for StopBudget, from StopIndex on otherwise.
	// NaN once any of them was NaN. In JSON, non-finite values are the
	// strings "NaN", "Infinity" and "-Infinity".
	KeptTokens float64 `json:"keptTokens"`
}

// Entries are what the agent-core walk reads of each message besides its
// estimate, oldest first; nil slices mean every message is present and
// has an id.
type Entries struct {
	// Absent marks falsy history entries (null, undefined).
	Absent []bool
	// NoID marks messages whose id is falsy.
	NoID []bool
}

func (e Entries) absent(i int) bool { return i < len(e.Absent) && e.Absent[i] }
func (e Entries) noID(i int) bool   { return e.absent(i) || (i < len(e.NoID) && e.NoID[i]) }

// Walk runs the backward boundary walk of compressHistoryInternal (spec §3,
// steps 2-4) over tokens, the estimate of each message, oldest first.
// contextWindow nil means the model lookup failed and
// p.DefaultContextWindow is used.
//
//	keptBudget = min(floor(ctx*KeptFraction), KeptCap)
//	floor = max(MinFloor, MinUncompressed ?? DefaultMin)
//	b = len; acc = 0
//	for i = len-1 .. 0:
//	  t = tokens[i]
//	  if acc + t > keptBudget: b = i+1; break
//	  acc += t
//	  if len - i >= floor: b = i; break     # before the i == 0 check
//	  if i == 0: skip-all-fit
//	if b >= len: b = len-1 (single-message warning)
//	if b < 1: skip-boundary-lt-1
//	compress h[0:b], keep h[b:]
//
// An empty history clamps b from 0 to -1, so it gives skip-boundary-lt-1
// with the warning set, as upstream does.
//
// NaN estimates behave as in JavaScript. `acc + NaN > keptBudget` is false,
// so a NaN message never stops the walk on the budget; it is added, and acc
// stays NaN from then on, so the budget test never fires again for any
// older message either. From the first NaN (counting from the newest
// message) only the floor or the start of the history can stop the walk:
// the result is then a floor stop with b = len-floor (compress, or
// skip-boundary-lt-1 when len == floor), or skip-all-fit when there are
// fewer than floor messages; a NaN never sets the single-message warning,
// and KeptTokens is NaN. A NaN budget (a NaN KeptFraction or KeptCap) never
// fires either. Infinities follow IEEE arithmetic the same way (+Inf busts
// any finite budget; +Inf and -Inf together make NaN).
func Walk(tokens []float64, contextWindow *int, p Params) Result {
	return WalkEntries(tokens, Entries{}, contextWindow, p)
}

// WalkEntries is Walk with what the agent-core releases also look at:
// with p.SkipAbsent an absent message is passed over (not added, and the
// floor and start tests are not made at it, so an absent message 0 lets
// the walk run off the start); with p.NeedBoundaryID a boundary at a
// message without an id gives KindSkipNoBoundaryID.
func WalkEntries(tokens []float64, e Entries, contextWindow *int, p Params) Result {
	ctx, fromLookup := p.DefaultContextWindow, false
	if contextWindow != nil {
		ctx, fromLookup = *contextWindow, true
	}
	budget := min(math.Floor(float64(ctx)*p.KeptFraction), p.KeptCap)
	minUncompressed := p.DefaultMin
	if p.MinUncompressed != nil {
		minUncompressed = *p.MinUncompressed
	}
	floor := max(p.MinFloor, minUncompressed)

	n := len(tokens)
	r := Result{
		KeptBudget:       budgetInt(budget),
		Floor:            floor,
		MessageCount:     n,
		ContextWindow:    ctx,
		WindowFromLookup: fromLookup,
		StopReason:       StopEmpty,
	}

	b, acc := n, 0.0
	for i := n - 1; i >= 0; i-- {
		if p.SkipAbsent && e.absent(i) {
			r.Absent++
			if i == 0 {
				r.StopReason = StopPassedStart
			}
			continue
		}
		t := tokens[i]
		if acc+t > budget {
			b = i + 1
			r.StopReason, r.StopIndex = StopBudget, ptr(i)
			break
		}
		acc += t
		if n-i >= floor {
			b = i
			r.StopReason, r.StopIndex = StopFloor, ptr(i)
			break
		}
		if i == 0 {
			r.StopReason, r.StopIndex = StopStart, ptr(0)
			r.KeptTokens = acc
			r.Kind = KindSkipAllFit
			return r
		}
	}
	r.KeptTokens = acc
	if b >= n {
		b = n - 1
		r.SingleMessageWarning = true
	}
	if b < 1 {
		r.Kind = KindSkipBoundaryLT1
		return r
	}
	if p.NeedBoundaryID && e.noID(b) {
		r.Kind = KindSkipNoBoundaryID
		r.BoundaryIndex = ptr(b)
		return r
	}
	r.Kind = KindCompress
	r.BoundaryIndex, r.KeptCount = ptr(b), ptr(n-b)
	return r
}

// budgetInt reports the budget as an integer. The budget is integral
// unless KeptCap is not (upstream's cap is the constant 40000), in which
// case this truncates; the walk itself compares against the exact float64
// value. A NaN budget reports 0, infinities saturate.
func budgetInt(b float64) int {
	switch {
	case math.IsNaN(b):
		return 0
	case b >= math.MaxInt:
		return math.MaxInt
	case b <= math.MinInt:
		return math.MinInt
	}
	return int(b)
}

func ptr[T any](v T) *T { return &v }
