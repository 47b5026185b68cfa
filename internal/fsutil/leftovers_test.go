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
	"testing"
	"time"
)

// The helper process: FSUTIL_HOLD=<dir> makes the test binary create a
// held temporary directory there, with a file in it, print its name and
// wait to be killed; FSUTIL_HOLD_FILE=<dir> does the same with a held
// temporary file.
func init() {
	dir, file := os.Getenv("FSUTIL_HOLD"), false
	if dir == "" {
		if dir, file = os.Getenv("FSUTIL_HOLD_FILE"), true; dir == "" {
			return
		}
	}
	var name string
	var err error
	if file {
		var f *os.File
		if f, err = CreateTemp(dir, ".pack.json.tmp-", ""); err == nil {
			f.WriteString("half")
			name = f.Name()
		}
	} else if name, err = MkdirTemp(dir, ".out.partial-", ""); err == nil {
		os.WriteFile(filepath.Join(name, "chat.md"), []byte("half"), 0o644)
	}
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	fmt.Println(name)
	time.Sleep(time.Minute)
	os.Exit(3)
}

// holder starts a process holding a temporary directory in dir, as a run
// of compact does, and returns it with the directory's name.
func holder(t *testing.T, dir string) (*exec.Cmd, string) {
	return holderOf(t, "FSUTIL_HOLD", dir)
}

// holderOf starts a helper process with env=dir.
func holderOf(t *testing.T, env, dir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"="+dir)
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
		if !isLockFile(e.Name()) { // the locks of live holders, on Windows
			out = append(out, e.Name())
		}
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
	if err := dead.Process.Kill(); err != nil { // SIGKILL on Unix
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
	linked := os.Symlink("/", filepath.Join(dir, ".out.partial-link")) == nil
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
	want := []string{filepath.Base(liveName), ".other.partial-5", "out"}
	if linked {
		want = append(want, ".out.partial-link")
	}
	sort.Strings(want)
	if got := names(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("left %v, want %v", got, want)
	}
	// The live one goes once its process is killed.
	live.Process.Kill()
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

// TestCleanStaleSparesALiveProcessFile: a temporary file is held as a
// directory is: CleanStale leaves a live process's, removes a killed
// one's.
func TestCleanStaleSparesALiveProcessFile(t *testing.T) {
	if !Locking {
		t.Skip("no locks here")
	}
	dir := t.TempDir()
	_, liveName := holderOf(t, "FSUTIL_HOLD_FILE", dir)
	dead, deadName := holderOf(t, "FSUTIL_HOLD_FILE", dir)
	if n, err := CleanStale(dir, ".pack.json.tmp-"); n != 0 || err != nil {
		t.Fatalf("removed %d (%v) of two live processes' files", n, err)
	}
	dead.Process.Kill()
	dead.Wait()
	if n, err := CleanStale(dir, ".pack.json.tmp-"); n != 1 || err != nil {
		t.Errorf("removed %d, %v; want the killed one's", n, err)
	}
	if b, err := os.ReadFile(liveName); err != nil || string(b) != "half" {
		t.Errorf("the live one's: %q %v", b, err)
	}
	if _, err := os.Lstat(deadName); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed one's stays: %v", err)
	}
	// This process's own, until released, also once renamed.
	f, err := CreateTemp(dir, ".pack.json.tmp-", "")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	renamed := filepath.Join(dir, ".pack.json.tmp-renamed")
	if err := os.Rename(f.Name(), renamed); err != nil {
		t.Fatal(err)
	}
	if n, _ := CleanStale(dir, ".pack.json.tmp-"); n != 0 {
		t.Fatal("removed this process's own file")
	}
	Release(f.Name())
	if n, _ := CleanStale(dir, ".pack.json.tmp-"); n != 1 {
		t.Errorf("released: removed %d", n)
	}
	if got := names(t, dir); len(got) != 1 || got[0] != filepath.Base(liveName) {
		t.Errorf("left %v", got)
	}
}

// TestCleanStaleMatch removes what the function matches (stale), and
// nothing with a nil function.
func TestCleanStaleMatch(t *testing.T) {
	if !Locking {
		t.Skip("no locks here")
	}
	dir := t.TempDir()
	for _, name := range []string{".db.123.tmp", ".db.123.tmp-journal", ".db.bak", "db"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	if n, err := CleanStaleMatch(dir, nil); n != 0 || err != nil {
		t.Errorf("nil: %d %v", n, err)
	}
	n, err := CleanStaleMatch(dir, func(name string) bool { return strings.Contains(name, ".tmp") })
	if n != 2 || err != nil {
		t.Errorf("removed %d, %v", n, err)
	}
	if got := names(t, dir); strings.Join(got, " ") != ".db.bak db" {
		t.Errorf("left %v", got)
	}
}
