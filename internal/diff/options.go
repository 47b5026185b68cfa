package diff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/compactlab/compact/internal/mdtext"
)

// FailNewlyLost is the --fail-on gate against a baseline run: the run
// lost a must-keep item the baseline kept (what a pull request's CI job
// gates on).
const FailNewlyLost = "newly-lost"

// ParseFailOn reads the --fail-on list: the measures B is gated on (of
// Measures), and whether the FailNewlyLost gate is asked for, which needs
// a baseline run.
func ParseFailOn(list []string, baseline string) (measures []string, newlyLost bool, err error) {
	for _, m := range list {
		m = strings.TrimSpace(m)
		if m == FailNewlyLost {
			if baseline == "" {
				return nil, false, fmt.Errorf("--fail-on %s compares the run with a baseline: add --baseline RUN", FailNewlyLost)
			}
			newlyLost = true
			continue
		}
		if !slices.Contains(Measures, m) {
			return nil, false, fmt.Errorf("--fail-on: unknown measure %q (want %s or %s)", m, strings.Join(Measures, ", "), FailNewlyLost)
		}
		measures = append(measures, m)
	}
	return measures, newlyLost, nil
}

// AllNoAnswer reports whether every error is a bundle without a replay to
// compare with.
func AllNoAnswer(errs []BundleError) bool {
	for _, e := range errs {
		if !e.NoAnswer {
			return false
		}
	}
	return true
}

// NoAnswer is the one error for bundles none of which has a replay to
// compare with (AllNoAnswer): which runs there are and how to pick or make
// one. run is the run asked for; paths and channel are where the bundles
// were found, for the replay command it suggests.
func NoAnswer(errs []BundleError, run string, paths []string, channel string) error {
	tally := TallyRuns(errs)
	replayCmd := "compact replay --model builtin"
	if len(paths) > 0 {
		replayCmd += " " + strings.Join(paths, " ")
	} else if channel != "prerelease" {
		replayCmd = "compact replay --channel " + channel + " --model builtin"
	}
	where := plural(len(errs), "bundle")
	if len(tally) == 0 {
		return fmt.Errorf("no replays yet in %s: make one with `%s` (no key needed), then run diff again", where, replayCmd)
	}
	var found []string
	answered, named := "", false
	for _, t := range tally {
		named = named || t.Run == run
		var parts []string
		if t.Answered > 0 {
			parts = append(parts, fmt.Sprintf("%d answered", t.Answered))
			if answered == "" {
				answered = t.Run
			}
		}
		if t.Failed > 0 {
			failed := fmt.Sprintf("%d failed", t.Failed)
			if t.FirstError != "" {
				failed += ": " + mdtext.Clip(t.FirstError, 80)
			}
			parts = append(parts, failed)
		}
		found = append(found, t.Run+" ("+strings.Join(parts, ", ")+")")
	}
	none := 0
	for _, e := range errs {
		if len(e.Runs) == 0 {
			none++
		}
	}
	runs := "runs found: " + strings.Join(found, "; ")
	if none > 0 {
		runs += fmt.Sprintf("; no replay at all in %d", none)
	}
	what := "no replay with an answer"
	switch {
	case run != "" && named:
		what = fmt.Sprintf("run %q has no answer", run)
	case run != "":
		what = fmt.Sprintf("no run named %q", run)
	}
	pick := "compare a run with --run NAME"
	if answered != "" && answered != run {
		pick = "compare one with --run " + answered
	}
	return fmt.Errorf("%s in %s; %s; %s, or make one with `%s`", what, where, runs, pick, replayCmd)
}
