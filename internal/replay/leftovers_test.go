//go:build unix

package replay

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/fsutil"
)

// The helper process: REPLAY_HELPER=<bundle> <run> makes the test binary
// stop where a replay is killed at its worst: a half-written
// replays/.<run>.tmp-N and, the result being replaced, the previous one
// renamed to .<run>.tmp-N.old. It prints the directory and waits to be
// killed.
func init() {
	arg := os.Getenv("REPLAY_HELPER")
	if arg == "" {
		return
	}
	b, run, _ := strings.Cut(arg, " ")
	dir := filepath.Join(b, bundle.DirReplays)
	tmp, err := fsutil.MkdirTemp(dir, bundle.RunTempPrefix(run), "")
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	os.WriteFile(filepath.Join(tmp, bundle.FileOutput), []byte("## Half"), 0o644)
	final := filepath.Join(dir, run)
	if _, err := os.Stat(final); err == nil {
		if _, err := fsutil.Hold(final); err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		if err := os.Rename(final, tmp+".old"); err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
	}
	fmt.Println(tmp)
	time.Sleep(time.Minute)
	os.Exit(3)
}

// stopMidWrite starts a helper in bundle's replays/ and returns it once it
// holds its directories.
func stopMidWrite(t *testing.T, b, run string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "REPLAY_HELPER="+b+" "+run)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "error") {
		t.Fatalf("helper: %q %v", line, err)
	}
	return cmd, strings.TrimSpace(line)
}

func replaysDir(t *testing.T, b string) []string {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(b, bundle.DirReplays))
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestAKilledReplayLeavesNothingAfterTheNextRun: a replay SIGKILLed while
// it writes (and while it replaces a previous result) leaves
// replays/.<run>.tmp-N and .tmp-N.old; the next run of the same replay
// removes them, says how many through Hooks.Leftovers, and writes the
// result. A replay still running in another process keeps its own.
func TestAKilledReplayLeavesNothingAfterTheNextRun(t *testing.T) {
	if !fsutil.Locking {
		t.Skip("no locks here")
	}
	_, bundles := makeBundles(t, 3)
	gen := &fakeGen{}
	opts := Options{Bundles: bundles, Models: []string{"m1"}, Run: "r", Force: true}
	if _, err := Run(context.Background(), gen, opts, Hooks{}); err != nil {
		t.Fatal(err)
	}
	killed, _ := stopMidWrite(t, bundles[0], "r")
	killed2, _ := stopMidWrite(t, bundles[1], "r")
	for _, c := range []*exec.Cmd{killed, killed2} {
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
	}
	// bundles[0] and [1]: no result, a .tmp-N and a .tmp-N.old each.
	if got := replaysDir(t, bundles[0]); len(got) != 2 {
		t.Fatalf("after the kill: %v", got)
	}
	// A live replay of another run name, and of the same one, in bundle 2.
	_, liveSame := stopMidWrite(t, bundles[2], "r")
	_, liveOther := stopMidWrite(t, bundles[2], "other")
	var removed []int
	items, err := Run(context.Background(), gen, opts, Hooks{Leftovers: func(n int, err error) {
		if err != nil {
			t.Error(err)
		}
		removed = append(removed, n)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != 4 {
		t.Errorf("Leftovers reported %v, want one call with 4", removed)
	}
	for _, it := range items[:2] {
		if it.Status != StatusOK {
			t.Errorf("%s: %s %s", it.Bundle, it.Status, it.Error)
		}
	}
	for _, b := range bundles[:2] {
		if got := replaysDir(t, b); len(got) != 1 || got[0] != "r" {
			t.Errorf("%s: replays/ holds %v, want [r]", b, got)
		}
		if _, err := os.Stat(filepath.Join(b, bundle.DirReplays, "r", bundle.FileOutput)); err != nil {
			t.Error(err)
		}
	}
	for _, d := range []string{liveSame, liveOther} {
		if _, err := os.Stat(filepath.Join(d, bundle.FileOutput)); err != nil {
			t.Errorf("a live replay's directory: %v", err)
		}
	}
	// No call when there is nothing to remove.
	removed = nil
	Run(context.Background(), gen, Options{Bundles: bundles[:2], Models: []string{"m1"}, Run: "r"}, Hooks{Leftovers: func(n int, err error) { removed = append(removed, n) }})
	if removed != nil {
		t.Errorf("Leftovers called with %v", removed)
	}
}
