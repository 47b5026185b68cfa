//go:build unix

package cmd

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/iostreams"
)

// The helper processes of the tests below, run by the test binary:
//
//   - CMD_LEFTOVERS_RUN="arg arg …" runs compact with those arguments (a
//     real sample-db, killed or stopped while it writes);
//   - CMD_LEFTOVERS_TEMP=<dir>/<name> creates the temporary file prompt
//     import writes <name> under, prints its path and waits to be killed.
func init() {
	if args := os.Getenv("CMD_LEFTOVERS_RUN"); args != "" {
		os.Exit(Run(iostreams.System(), strings.Fields(args)))
	}
	if p := os.Getenv("CMD_LEFTOVERS_TEMP"); p != "" {
		f, err := fsutil.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-", "")
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		f.WriteString("half")
		fmt.Println(f.Name())
		time.Sleep(time.Minute)
		os.Exit(3)
	}
}

// startHelper starts the test binary as a helper with env set.
func startHelper(t *testing.T, env string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), env)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c, bufio.NewReader(out)
}

// hiddenWith waits for entries of dir that start with prefix and are not
// among skip, and returns them once one of them is a file, or a directory
// with something in it; it fails after 30 s.
func hiddenWith(t *testing.T, dir, prefix string, skip []string) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var found []string
		ready := false
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), prefix) || contains(skip, e.Name()) {
				continue
			}
			found = append(found, e.Name())
			if !e.IsDir() {
				ready = true
			} else if in, _ := os.ReadDir(filepath.Join(dir, e.Name())); len(in) > 0 {
				ready = true
			}
		}
		if ready {
			return found
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("nothing written under %s%s… in 30 s", dir, prefix)
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func listDir(t *testing.T, dir string) []string {
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

// TestSampleDBRemovesWhatAKilledRunLeft: a sample-db SIGKILLed while it
// writes leaves its half-written database beside the output; the next run
// for the same output removes it (and the temporary file an earlier
// version left) and says so in one line, but leaves a live run's (a
// stopped process) and what belongs to other outputs or to the user.
func TestSampleDBRemovesWhatAKilledRunLeft(t *testing.T) {
	if !fsutil.Locking {
		t.Skip("no locks here")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "x.sqlite")
	others := []string{".x.sqlite.bak", ".y.sqlite.partial-5"}
	for _, name := range others {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A live run for the same output, stopped while it writes; then a
	// run killed while it writes (each run cleans first: the live one
	// stays).
	run := "CMD_LEFTOVERS_RUN=sample-db -q --chats 300 --out " + out
	live, _ := startHelper(t, run)
	liveLeft := hiddenWith(t, dir, ".x.sqlite.", others)
	if err := live.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	killed, _ := startHelper(t, run)
	left := hiddenWith(t, dir, ".x.sqlite.", append(others, liveLeft...))
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	// And an earlier version's temporary file, left by a kill.
	if err := os.WriteFile(filepath.Join(dir, ".x.sqlite.4172039485.tmp"), []byte("SQLite format 3\x00"), 0o644); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runIn(t, nil, "sample-db", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := fmt.Sprintf("compact sample-db: removed 2 leftovers of an interrupted run beside %s\n", out)
	if stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if !strings.HasPrefix(stdout, "wrote "+out+": schema v9, 6 chats") {
		t.Errorf("stdout %q", stdout)
	}
	wantLeft := append([]string{"x.sqlite"}, others...)
	wantLeft = append(wantLeft, liveLeft...)
	sort.Strings(wantLeft)
	if got := listDir(t, dir); strings.Join(got, " ") != strings.Join(wantLeft, " ") {
		t.Errorf("left %v, want %v (the killed run left %v)", got, wantLeft, left)
	}

	// Once the live run is killed, its directory goes too.
	live.Process.Signal(syscall.SIGKILL)
	live.Wait()
	code, _, stderr = runIn(t, nil, "sample-db", "--force", "--out", out)
	if want := fmt.Sprintf("compact sample-db: removed 1 leftover of an interrupted run beside %s\n", out); code != 0 || stderr != want {
		t.Errorf("after the second kill: exit %d, stderr %q, want %q", code, stderr, want)
	}
	wantLeft = append([]string{"x.sqlite"}, others...)
	sort.Strings(wantLeft)
	if got := listDir(t, dir); strings.Join(got, " ") != strings.Join(wantLeft, " ") {
		t.Errorf("left %v, want %v", got, wantLeft)
	}
	// Nothing to remove: nothing said.
	if code, _, stderr := runIn(t, nil, "sample-db", "--force", "--out", out); code != 0 || stderr != "" {
		t.Errorf("a clean run: exit %d, stderr %q", code, stderr)
	}
}

// TestPromptImportRemovesWhatAKilledRunLeft: the temporary files of a
// killed prompt import (and of earlier versions) go on the next import
// into the same directory, which says so in one line; a live import's
// stays, and so does what is not prompt import's.
func TestPromptImportRemovesWhatAKilledRunLeft(t *testing.T) {
	if !fsutil.Locking {
		t.Skip("no locks here")
	}
	dir := t.TempDir()
	src := filepath.Join("..", "testdata", "conformance", "prompt-fixture", "prompt.ts")
	// What a killed import left: one file of a helper SIGKILLed while it
	// held it, one of an earlier version (never held).
	killed, r := startHelper(t, "CMD_LEFTOVERS_TEMP="+filepath.Join(dir, "system-prompt.md"))
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, dir) {
		t.Fatalf("helper: %q %v", line, err)
	}
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	if err := os.WriteFile(filepath.Join(dir, ".pack.json.tmp-2718281828"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A live import's, and things that are not an import's.
	_, r = startHelper(t, "CMD_LEFTOVERS_TEMP="+filepath.Join(dir, "pack.json"))
	line, err = r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, dir) {
		t.Fatalf("helper: %q %v", line, err)
	}
	liveTemp := filepath.Base(strings.TrimSpace(line))
	for _, name := range []string{"README.md", ".pack.json.bak", ".other.tmp-1"} {
		os.WriteFile(filepath.Join(dir, name), []byte("keep"), 0o644)
	}

	code, _, stderr := runIn(t, nil, "prompt", "import", src, "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := fmt.Sprintf("compact prompt import: removed 2 leftovers of an interrupted run in %s\n", dir); !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr %q, want it to start with %q", stderr, want)
	}
	want := []string{".other.tmp-1", ".pack.json.bak", liveTemp, "README.md", "pack.json", "system-prompt.md"}
	sort.Strings(want)
	if got := listDir(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("left %v, want %v", got, want)
	}
	// Nothing to remove: nothing said about leftovers.
	if code, _, stderr := runIn(t, nil, "prompt", "import", src, "--out", dir, "-q"); code != 0 || stderr != "" {
		t.Errorf("a clean run: exit %d, stderr %q", code, stderr)
	}
}
