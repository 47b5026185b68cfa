package simulate

import (
	"fmt"
	"math"
	"strings"

	"github.com/compactlab/compact/internal/strategy"
)

// Hint is one line for a run in which some strategy never fired its
// trigger in any history: how much of its window the largest context
// used, and a window under which every such strategy's contexts pass it
// (about 80% of the smallest of their peaks, two significant digits). It
// is "" when every strategy fired, when a sweep varies the window itself,
// or when the suggested window would not be smaller than the one used.
func (rep *Report) Hint() string {
	if rep.kind == kindSweep && rep.opts.Sweep.Knob.Name == "context_window" {
		return ""
	}
	type figures struct {
		fired          bool
		peak           float64 // the largest context of any history
		frac           float64 // the largest share of its window
		fracPeak, fWin float64 // the context and window of that share
		minWin         int     // the smallest window used
	}
	by := map[string]*figures{}
	for _, r := range rep.runs {
		f := by[r.name]
		if f == nil {
			f = &figures{}
			by[r.name] = f
		}
		win := r.cfg.ContextWindow
		if win <= 0 {
			win = strategy.DefaultContextWindow
		}
		if f.minWin == 0 || win < f.minWin {
			f.minWin = win
		}
		tl := r.tl
		if tl.Compactions > 0 || tl.Rejected > 0 {
			f.fired = true
		}
		for _, s := range tl.Steps {
			f.fired = f.fired || s.Fired
		}
		f.peak = math.Max(f.peak, tl.PeakContext)
		if x := tl.PeakContext / float64(win); x > f.frac {
			f.frac, f.fracPeak, f.fWin = x, tl.PeakContext, float64(win)
		}
	}
	var quiet []string
	var worst *figures
	minPeak, minWin := math.Inf(1), math.MaxInt
	for _, name := range rep.opts.Strategies {
		f := by[name]
		if f == nil || f.fired || f.peak <= 0 {
			continue
		}
		quiet = append(quiet, name)
		minPeak = math.Min(minPeak, f.peak)
		minWin = min(minWin, f.minWin)
		if worst == nil || f.frac > worst.frac {
			worst = f
		}
	}
	if len(quiet) == 0 {
		return ""
	}
	suggest := SuggestWindow(minPeak)
	if suggest <= 0 || suggest >= minWin {
		return ""
	}
	what := "no compaction fired"
	switch {
	case len(rep.opts.Strategies) == 1:
	case len(quiet) == len(rep.opts.Strategies):
		what += " for any strategy"
	default:
		what += " for " + strings.Join(quiet, ", ")
	}
	share := fmt.Sprintf("%d%%", int(math.Round(100*worst.frac)))
	if worst.frac < 0.005 {
		share = "under 1%"
	}
	return fmt.Sprintf("%s: the largest context is %s of its window (%s of %s tokens); try --context-window %d",
		what, share, fmtInt(worst.fracPeak), fmtInt(worst.fWin), suggest)
}

// SuggestWindow is a context window that a history peaking at peak tokens
// overflows: 80% of peak, rounded down to two significant digits (14,490
// gives 14,000). 0 when peak is too small to suggest anything.
func SuggestWindow(peak float64) int {
	v := 0.8 * peak
	if v < 10 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	mag := math.Pow(10, math.Floor(math.Log10(v))-1)
	return int(math.Floor(v/mag) * mag)
}
