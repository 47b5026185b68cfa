// Package boundary owns the compression trigger and the backward boundary
// walk of stagewise's compressHistoryInternal (base-agent.ts at e3e125281a27,
// spec stagewise.md §3, and agent-core's at v1.29.0 under its profiles). It works on per-message token estimates and knows
// nothing about message content: the caller estimates each message (the
// estimator lives elsewhere) and passes the numbers in, oldest first.
//
// Arithmetic is float64 throughout, as in JavaScript: comparisons are
// strict, nothing is floored except the kept budget, and NaN behaves as it
// does in JavaScript (every comparison with NaN is false). See Walk for what
// that means for NaN estimates.
package boundary

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/compactlab/compact/internal/upstream"
)

// Params are the knobs of the trigger and the walk.
type Params struct {
	// Threshold is the fraction of the context window that triggers
	// compression. Negative disables it; 0 compresses after every step.
	Threshold float64
	// HardCap caps the trigger limit in tokens (HISTORY_COMPRESSION_HARD_CAP_TOKENS).
	HardCap float64
	// KeptFraction and KeptCap give the kept budget:
	// min(floor(ctx*KeptFraction), KeptCap).
	KeptFraction float64
	KeptCap      float64
	// MinUncompressed is the agent's minUncompressedMessages; nil means
	// unset, so DefaultMin applies.
	MinUncompressed *int
	// DefaultMin is the value of an unset MinUncompressed (the `?? 10`).
	DefaultMin int
	// MinFloor is the lower bound of the message floor: max(MinFloor, min).
	MinFloor int
	// DefaultContextWindow is the window the walk uses when the model lookup
	// failed.
	DefaultContextWindow int
	// SkipAbsent: a message given as absent (a falsy history entry) is
	// passed over, neither counted nor tested against the floor or the
	// start (agent-core releases).
	SkipAbsent bool
	// NeedBoundaryID: a boundary message whose id is falsy ends the
	// compression before anything is sent (agent-core releases).
	NeedBoundaryID bool
}

// Agents and generations. The two tables are the only places where the
// variants differ; everything else is common.
const (
	AgentBase = "base"
	AgentChat = "chat"

	// ProfileE3E and ProfileHead are the generations of internal/upstream;
	// every profile name and alias of it is accepted.
	ProfileE3E  = upstream.GenE3E
	ProfileHead = upstream.GenHead
)

// profileTable holds what depends on the upstream version.
var profileTable = map[string]struct {
	hardCap float64
	// skipAbsent and needID: the agent-core walk passes over a falsy
	// history entry (`if (!histEntry) continue`) and gives up when the
	// boundary message's id is falsy (`if (!boundaryMessageId) return`).
	skipAbsent, needID bool
}{
	ProfileE3E:  {hardCap: 200_000}, // raised from 100k in 507a2aa21
	ProfileHead: {hardCap: 100_000, skipAbsent: true, needID: true},
}

// agentTable holds what depends on the agent: the base agent's config
// defaults (`?? 0.65`, `?? 10`) and what the chat agent (agents/chat/chat.ts)
// sets.
var agentTable = map[string]struct {
	threshold float64
	min       int
}{
	AgentBase: {threshold: 0.65, min: 10},
	AgentChat: {threshold: 0.5, min: 12},
}

// common holds the values shared by every profile and agent.
var common = Params{
	KeptFraction:         0.2,    // KEPT_BUDGET_FRACTION
	KeptCap:              40_000, // KEPT_BUDGET_HARD_CAP_TOKENS
	MinFloor:             5,
	DefaultContextWindow: 100_000,
}

// DefaultParams returns the base agent's parameters for profile (a name
// or alias of internal/upstream).
func DefaultParams(profile string) (Params, error) {
	return AgentParams(profile, AgentBase)
}

// AgentParams returns the parameters of agent ("base" or "chat") at
// profile (a name or alias of internal/upstream). MinUncompressed is left unset; DefaultMin is
// the agent's value.
func AgentParams(profile, agent string) (Params, error) {
	gen, err := upstream.Gen(profile)
	if err != nil {
		return Params{}, err
	}
	pr := profileTable[gen]
	ag, ok := agentTable[agent]
	if !ok {
		return Params{}, fmt.Errorf("unknown agent %q (want %s)", agent, strings.Join(Agents(), " or "))
	}
	p := common
	p.HardCap = pr.hardCap
	p.SkipAbsent, p.NeedBoundaryID = pr.skipAbsent, pr.needID
	p.Threshold = ag.threshold
	p.DefaultMin = ag.min
	return p, nil
}

// Profiles lists the known profile names and aliases.
func Profiles() []string { return upstream.Names() }

// Agents lists the known agents, sorted.
func Agents() []string { return slices.Sorted(maps.Keys(agentTable)) }
