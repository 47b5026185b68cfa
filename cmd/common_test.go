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
