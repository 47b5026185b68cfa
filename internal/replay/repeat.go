package replay

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/cascade"
)

// Repeats: compact replay --repeat K replays each bundle K times, as the
// runs RUN, RUN@2, …, RUN@K, since the same model on the same input
// varies from one run to the next. The first keeps the plain name, so that
// K = 1 is a plain replay. Each repeat is its own request: the run's
// repeat index goes into the response cache key (cascade.Input.Repeat),
// so that repeat I is sent to the model the first time and answered by
// its own cached answer after, never by another repeat's.

// RepeatSep separates a run's base name from its repeat index.
const RepeatSep = "@"

// MaxRepeat is the largest --repeat; a suffix @I with I above it is part
// of the name, not a repeat (a model id such as claude@20240620).
const MaxRepeat = 50

// RepeatOf parses a run name: RUN@I, with I from 2 to MaxRepeat written
// without leading zeros, is repeat I of RUN; any other name is repeat 1
// of itself.
func RepeatOf(run string) (base string, index int) {
	i := strings.LastIndex(run, RepeatSep)
	if i <= 0 {
		return run, 1
	}
	digits := run[i+len(RepeatSep):]
	if digits == "" || digits[0] == '0' || strings.Trim(digits, "0123456789") != "" {
		return run, 1
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 2 || n > MaxRepeat {
		return run, 1
	}
	return run[:i], n
}

// RepeatRun is the name of repeat i of run: run itself for the first.
func RepeatRun(run string, i int) string {
	if i <= 1 {
		return run
	}
	return run + RepeatSep + strconv.Itoa(i)
}

// RepeatRuns names the k repeats of run: run, run@2, …, run@k.
func RepeatRuns(run string, k int) []string {
	out := []string{run}
	for i := 2; i <= k; i++ {
		out = append(out, RepeatRun(run, i))
	}
	return out
}

// CheckRepeat checks --repeat k for the run named run: k from 1 to
// MaxRepeat, and, for k > 1, a run that is not itself a repeat.
func CheckRepeat(k int, run string) error {
	if k < 1 || k > MaxRepeat {
		return fmt.Errorf("--repeat: want 1 to %d runs of each bundle, got %d", MaxRepeat, k)
	}
	if base, i := RepeatOf(run); k > 1 && i > 1 {
		return fmt.Errorf("--repeat: run %s is already repeat %d of %s; give the base name (--run %s)", run, i, base, base)
	}
	return nil
}

// Deterministic reports whether every model of the plan is the builtin
// model, which writes the same briefing for the same input every time:
// its repeats are identical.
func (p *Plan) Deterministic() bool {
	if p.Cascade == nil || len(p.Order) == 0 {
		return false
	}
	for _, id := range p.Order {
		m, ok := p.Cascade.Models.Lookup(id)
		if !ok {
			return false
		}
		if prov := p.Cascade.Providers[m.Provider]; prov == nil || prov.Kind() != cascade.KindBuiltin {
			return false
		}
	}
	return true
}

// Count is what a replay of n bundles, k times each, counts: "7 bundles",
// or, with repeats, "21 replays".
func Count(n, k int) string {
	if k > 1 {
		return plural(n*k, "replay")
	}
	return plural(n, "bundle")
}
