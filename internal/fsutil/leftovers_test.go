//go:build unix

package fsutil

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The helper process: FSUTIL_HOLD=<dir> makes the test binary create a
// held temporary directory there, with a file in it, print its name and
// wait to be killed.
func init() {
	dir := os.Getenv("FSUTIL_HOLD")
	if dir == "" {
		return
	}
	name, err := MkdirTemp(dir, ".out.partial-", "")
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	os.WriteFile(filepath.Join(name, "chat.md"), []byte("half"), 0o644)
	fmt.Println(name)
	time.Sleep(time.Minute)
	os.Exit(3)
}

// holder starts a process holding a temporary directory in dir, as a run
// of compact does, and returns it with the directory's name.
func holder(t *testing.T, dir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FSUTIL_HOLD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, dir) {
		t.Fatalf("helper said %q (%v)", line, err)
	}
	return cmd, strings.TrimSpace(line)
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// TestCleanStaleSparesALiveProcessAndRemovesAKilledOnes: a directory a
// live process holds stays; once that process is killed (SIGKILL: no
// clean-up of its own), the same directory is a leftover and goes, and so
// does one nobody ever held.
func TestCleanStaleSparesALiveProcessAndRemovesAKilledOnes(t *testing.T) {
	if !Locking {
		t.Skip("no locks here: CleanStale removes nothing")
	}
	dir := t.TempDir()
	live, liveName := holder(t, dir)
	dead, deadName := holder(t, dir)
	if err := dead.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	dead.Wait()
	// An old output renamed aside by a killed --force run, and things
	// that are not leftovers of this output.
	for _, d := range []string{".out.partial-77.old/a/b", "out", ".other.partial-5", ".out.partial-8.keep"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("/", filepath.Join(dir, ".out.partial-link"))
	n, err := CleanStale(dir, ".out.partial-")
	if err != nil {
		t.Fatal(err)
	}
	// 77.old, the killed one, and 8.keep (stale, and ours by its prefix).
	if n != 3 {
		t.Errorf("removed %d, want 3; left %v", n, names(t, dir))
	}
	if _, err := os.Stat(filepath.Join(liveName, "chat.md")); err != nil {
		t.Errorf("the live run's directory: %v", err)
	}
	if _, err := os.Lstat(deadName); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed run's directory stays: %v", err)
	}
	want := []string{filepath.Base(liveName), ".other.partial-5", ".out.partial-link", "out"}
	sort.Strings(want)
	if got := names(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("left %v, want %v", got, want)
	}
	// The live one goes once its process is killed.
	live.Process.Signal(syscall.SIGKILL)
	live.Wait()
	if n, err := CleanStale(dir, ".out.partial-"); n != 1 || err != nil {
		t.Errorf("after the kill: removed %d, %v", n, err)
	}
	if n, err := CleanStale(filepath.Join(dir, "missing"), ".x"); n != 0 || err != nil {
		t.Errorf("a missing directory: %d, %v", n, err)
	}
}

// TestHeldInThisProcess: this process's own temporary directory (another
// descriptor of the same process) is spared until released, also after a
// rename; an output held with Hold is spared once renamed to .old.
func TestHeldInThisProcess(t *testing.T) {
	if !Locking {
		t.Skip("no locks here")
	}
	dir := t.TempDir()
	tmp, err := MkdirTemp(dir, ".out.partial-", "")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := CleanStale(dir, ".out.partial-"); n != 0 {
		t.Fatal("removed this process's own directory")
	}
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	release, err := Hold(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Hold(out); !errors.Is(err, ErrHeld) {
		t.Errorf("a second hold: %v", err)
	}
	old := tmp + ".old"
	if err := os.Rename(out, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, out); err != nil {
		t.Fatal(err)
	}
	if n, _ := CleanStale(dir, ".out.partial-"); n != 0 {
		t.Fatal("removed the held .old")
	}
	release()
	release() // twice is harmless
	if n, _ := CleanStale(dir, ".out.partial-"); n != 1 {
		t.Errorf("the released .old: removed %d", n)
	}
	Release(tmp)
	Release(tmp)
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the output: %v", err)
	}
}

// TestMkdirTempRacesACleaner: directories made while other goroutines
// clean the same prefix all survive (the lock is taken before a cleaner
// can, or the name is given up and another tried).
func TestMkdirTempRacesACleaner(t *testing.T) {
	if !Locking {
		t.Skip("no locks here")
	}
	dir := t.TempDir()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					CleanStale(dir, ".r.partial-")
				}
			}
		}()
	}
	var made []string
	for range 200 {
		d, err := MkdirTemp(dir, ".r.partial-", "")
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, d)
	}
	close(stop)
	wg.Wait()
	for _, d := range made {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		Release(d)
	}
	if n, _ := CleanStale(dir, ".r.partial-"); n != len(made) {
		t.Errorf("released: removed %d of %d", n, len(made))
	}
}

// TestRemoveAllCtx removes a tree, and stops where it is once ctx is
// done.
func TestRemoveAllCtx(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	for i := range 30 {
		sub := filepath.Join(tree, fmt.Sprintf("chat-%02d", i), "compression-001")
		os.MkdirAll(sub, 0o755)
		for _, f := range []string{"a.md", "b.md"} {
			os.WriteFile(filepath.Join(sub, f), []byte("x"), 0o644)
		}
	}
	os.Symlink(dir, filepath.Join(tree, "link")) // removed, not followed
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := RemoveAllCtx(ctx, tree); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := os.Stat(tree); err != nil {
		t.Errorf("cancelled before the start removed it: %v", err)
	}
	// Stopped part-way.
	ctx, cancel = context.WithCancel(context.Background())
	var removed int
	stopAfter := &countingCtx{Context: ctx, after: 20, cancel: cancel, n: &removed}
	if err := RemoveAllCtx(stopAfter, tree); !errors.Is(err, context.Canceled) {
		t.Errorf("stopped: %v", err)
	}
	if _, err := os.Stat(tree); err != nil {
		t.Errorf("stopped part-way: %v", err)
	}
	if err := RemoveAllCtx(context.Background(), tree); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tree); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("left: %v", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("followed the link: %v", err)
	}
	if err := RemoveAllCtx(context.Background(), tree); err != nil {
		t.Errorf("missing: %v", err)
	}
}

// countingCtx cancels itself after its Err was asked after times.
type countingCtx struct {
	context.Context
	after  int
	n      *int
	cancel context.CancelFunc
}

func (c *countingCtx) Err() error {
	if *c.n++; *c.n > c.after {
		c.cancel()
	}
	return c.Context.Err()
}

// TestStopOnSecondInterrupt: with the command's context not yet done, the
// first interrupt is only reported and the second stops the work; with it
// done (the run was interrupted), the next one stops it.
func TestStopOnSecondInterrupt(t *testing.T) {
	wait := func(ctx context.Context) bool {
		select {
		case <-ctx.Done():
			return true
		case <-time.After(2 * time.Second):
			return false
		}
	}
	firsts := make(chan struct{}, 4)
	ctx, cancel := StopOnSecondInterrupt(context.Background(), func() { firsts <- struct{}{} })
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-firsts:
	case <-time.After(2 * time.Second):
		t.Fatal("the first interrupt was not reported")
	}
	if ctx.Err() != nil {
		t.Fatal("stopped on the first interrupt")
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	if !wait(ctx) {
		t.Fatal("not stopped on the second interrupt")
	}
	cancel()

	done, doneCancel := context.WithCancel(context.Background())
	doneCancel()
	ctx, cancel = StopOnSecondInterrupt(done, nil)
	defer cancel()
	if ctx.Err() != nil {
		t.Fatal("done with the command's context")
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	if !wait(ctx) {
		t.Fatal("not stopped on the interrupt after the run's")
	}
}
