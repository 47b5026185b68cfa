package main

import (
	"math"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"testing"
)

// TestDocsBinarySize: the size docs/benchmarks.md gives compact's binary
// (measured on linux/amd64 with `go build -o /tmp/c . && ls -l /tmp/c`)
// is within 15% of the binary these tests built the same way: a figure
// left behind as the code grows fails here, not in a reader's hands.
func TestDocsBinarySize(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the documented size is of a linux/amd64 build, this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	doc, err := os.ReadFile("docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`compact's binary is (\d+) MB`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/benchmarks.md no longer says \"compact's binary is N MB\"; keep the figure and this test together")
	}
	documented, _ := strconv.ParseFloat(string(m[1]), 64)
	st, err := os.Stat(binary)
	if err != nil {
		t.Fatal(err)
	}
	built := float64(st.Size()) / 1e6
	if math.Abs(built-documented) > 0.15*built {
		t.Errorf("docs/benchmarks.md says compact's binary is %.0f MB; the binary built here is %.1f MB (%d bytes): measure it again (go build -o /tmp/c . && ls -l /tmp/c) and update the figure", documented, built, st.Size())
	}
}
