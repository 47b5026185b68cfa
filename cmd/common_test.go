package cmd

import (
	"testing"

	"github.com/compactlab/compact/internal/config"
)

func TestCommonDir(t *testing.T) {
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{nil, ""},
		{[]string{"a/b/c"}, "a/b"},
		{[]string{"x/prerelease/001-a/compression-001", "x/prerelease/002-b/compression-001"}, "x/prerelease"},
		{[]string{"x/pre/001/c1", "x/pre/001/c2"}, "x/pre/001"},
		{[]string{"x/pre/001/c1", "x/prefix/001/c1"}, "x"},
		{[]string{"a/c1", "b/c1"}, ""},
		{[]string{"/t/a/c1", "/t/b/c1"}, "/t"},
		{[]string{"/a/c1", "/b/c1"}, "/"},
	} {
		if got := commonDir(tc.paths); got != tc.want {
			t.Errorf("commonDir(%q) = %q, want %q", tc.paths, got, tc.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 bundles", 1: "1 bundle", 2: "2 bundles"} {
		if got := plural(n, "bundle"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestFlagValueErrors: a value a flag cannot take is named in words, not in
// the words of Go's parser.
func TestFlagValueErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"extract", "--min-messages", "abc"}, `compact extract: --min-messages: "abc" is not a whole number` + "\n"},
		{[]string{"trigger", "--used", "x"}, `compact trigger: --used: "x" is not a number` + "\n"},
		{[]string{"replay", "--timeout", "5"}, `compact replay: --timeout: "5" is not a duration such as 30s or 2m` + "\n"},
		{[]string{"diff", "-j", "many"}, `compact diff: --jobs: "many" is not a whole number` + "\n"},
	} {
		code, _, errOut := runIn(t, nil, tc.args...)
		if code != 2 || errOut != tc.want {
			t.Errorf("%v: exit %d, %q; want 2, %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestUnknownFlagSuggestsTheNearest: a mistyped flag names the command's
// flag (local or inherited) within two edits, exit 2 (issue 29).
func TestUnknownFlagSuggestsTheNearest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--modle", "builtin"}, "compact replay: unknown flag: --modle (did you mean --model?)\n"},
		{[]string{"replay", "--modle=builtin"}, "compact replay: unknown flag: --modle (did you mean --model?)\n"},
		{[]string{"extract", "--qiuet"}, "compact extract: unknown flag: --qiuet (did you mean --quiet?)\n"},
		{[]string{"diff", "--confg", "x"}, "compact diff: unknown flag: --confg (did you mean --config?)\n"},
		{[]string{"replay", "--frobnicate"}, "compact replay: unknown flag: --frobnicate\n"},
		{[]string{"replay", "--cpuprofil", "x"}, "compact replay: unknown flag: --cpuprofil\n"}, // hidden flags are not suggested
	} {
		code, _, errOut := runIn(t, nil, tc.args...)
		if code != 2 || errOut != tc.want {
			t.Errorf("%v: exit %d, %q; want 2, %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestUnknownCommandSuggestionOnOneLine: Cobra's suggestions for an
// unknown command read as one clear line, exit 2 (issue 29).
func TestUnknownCommandSuggestionOnOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"extrat"}, `compact: unknown command "extrat" for "compact"; did you mean "extract"?` + "\n"},
		{[]string{"re"}, `compact: unknown command "re" for "compact"; did you mean "replay" or "report"?` + "\n"},
		{[]string{"qqqqq"}, `compact: unknown command "qqqqq" for "compact"` + "\n"},
	} {
		code, out, errOut := runIn(t, nil, tc.args...)
		if code != 2 || errOut != tc.want || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"modle", "model", 2}, {"model", "model", 0}, {"", "abc", 3}, {"quiet", "qiet", 1}, {"jobs", "json", 3}} {
		if got := config.Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("config.Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
