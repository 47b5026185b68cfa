package cmd

import "testing"

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
