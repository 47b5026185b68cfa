package diff

import (
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/bundle"
)

func TestParseFailOn(t *testing.T) {
	for _, tc := range []struct {
		list      []string
		baseline  string
		measures  []string
		newlyLost bool
		err       string
	}{
		{list: nil},
		{list: []string{" lost-paths", "leak "}, measures: []string{"lost-paths", "leak"}},
		{list: []string{"newly-lost", "shrink"}, baseline: "main", measures: []string{"shrink"}, newlyLost: true},
		{list: []string{"newly-lost"}, err: "--fail-on newly-lost compares the run with a baseline: add --baseline RUN"},
		{list: []string{"leak", "size"}, err: `--fail-on: unknown measure "size" (want lost-paths, leak, rules, shrink or newly-lost)`},
	} {
		m, nl, err := ParseFailOn(tc.list, tc.baseline)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: err = %v, want %q", tc.list, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(m, tc.measures) || nl != tc.newlyLost {
			t.Errorf("%q: %q, %v, %v; want %q, %v", tc.list, m, nl, err, tc.measures, tc.newlyLost)
		}
	}
}

func TestNoAnswerSaysWhichRunsThereAreAndWhatToDo(t *testing.T) {
	answered := func(run string) bundle.RunState { return bundle.RunState{Run: run, Answered: true} }
	failed := func(run, why string) bundle.RunState { return bundle.RunState{Run: run, Error: why} }
	noAns := func(runs ...bundle.RunState) BundleError { return BundleError{Bundle: "b", NoAnswer: true, Runs: runs} }
	long := strings.Repeat("é", 100)
	for _, tc := range []struct {
		name    string
		errs    []BundleError
		run     string
		paths   []string
		channel string
		want    string
	}{
		{name: "no replays on the default channel", errs: []BundleError{noAns(), noAns()}, channel: "prerelease",
			want: "no replays yet in 2 bundles: make one with `compact replay --model builtin` (no key needed), then run diff again"},
		{name: "no replays on another channel", errs: []BundleError{noAns()}, channel: "nightly",
			want: "no replays yet in 1 bundle: make one with `compact replay --channel nightly --model builtin` (no key needed), then run diff again"},
		{name: "failed runs under paths", errs: []BundleError{noAns(failed("gpt", "timeout")), noAns(failed("gpt", "later")), noAns()}, paths: []string{"a", "b"},
			want: "no replay with an answer in 3 bundles; runs found: gpt (2 failed: timeout); no replay at all in 1; compare a run with --run NAME, or make one with `compact replay --model builtin a b`"},
		{name: "a run named with no answer", errs: []BundleError{noAns(answered("builtin"), failed("gpt", long))}, run: "gpt", channel: "prerelease",
			want: `run "gpt" has no answer in 1 bundle; runs found: builtin (1 answered); gpt (1 failed: ` + strings.Repeat("é", 79) + "…); compare one with --run builtin, or make one with `compact replay --model builtin`"},
		{name: "a run that is not there", errs: []BundleError{noAns(answered("builtin"))}, run: "gpt", channel: "prerelease",
			want: `no run named "gpt" in 1 bundle; runs found: builtin (1 answered); compare one with --run builtin, or make one with ` + "`compact replay --model builtin`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !AllNoAnswer(tc.errs) {
				t.Fatal("AllNoAnswer = false")
			}
			if got := NoAnswer(tc.errs, tc.run, tc.paths, tc.channel).Error(); got != tc.want {
				t.Errorf("NoAnswer =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	if AllNoAnswer([]BundleError{{NoAnswer: true}, {Error: "unreadable"}}) {
		t.Error("AllNoAnswer with an unreadable bundle = true")
	}
}
