//go:build unix

package cmd

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/batch/fakebatch"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/replay"
)

// TestBatchSurvivesSIGKILLDuringSubmit: a replay --batch killed with
// SIGKILL while its batch is being created (a separate process, the test
// binary running compact) leaves a state that a collect in this process
// finishes: every bundle gets exactly one result, and the lock the dead
// process held is gone with it.
func TestBatchSurvivesSIGKILLDuringSubmit(t *testing.T) {
	if !fsutil.Locking {
		t.Skip("no locks here")
	}
	srv := fakebatch.New()
	srv.SetCreateDelay(500 * time.Millisecond)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	env := batchEnv(t, ts.URL)
	dir := t.TempDir()
	bundles, err := fakebatch.WriteBundles(dir, 500, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), "CMD_LEFTOVERS_RUN=replay --batch --quiet --run k "+dir)
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	// Killed once the upload is in and the batch is being created.
	deadline := time.Now().Add(60 * time.Second)
	for srv.Calls("openai") < 2 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	if srv.Calls("openai") < 2 {
		t.Fatal("the helper sent nothing in 60 s")
	}
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if _, err := os.Stat(filepath.Join(dir, ".batches", "k", "state.json")); err != nil {
		t.Fatalf("no state left by the killed submit: %v", err)
	}
	srv.SetCreateDelay(0)
	code, out, errOut := runIn(t, env, "batch", "collect", "--wait", "--run", "k", dir)
	if code != 0 {
		t.Fatalf("collect after the kill: exit %d\n%s%s", code, out, errOut)
	}
	for _, b := range bundles {
		rec, err := replay.ReadRecord(b, "k")
		if err != nil || !rec.OK() {
			t.Fatalf("%s: %v %+v", b, err, rec)
		}
		if ents, _ := os.ReadDir(filepath.Join(b, "replays")); len(ents) != 1 {
			t.Fatalf("%s: replays/ holds %d entries", b, len(ents))
		}
	}
	// No leftover of the killed submit (its upload, a temporary head).
	ents, _ := os.ReadDir(filepath.Join(dir, ".batches", "k"))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ", ") != "items, state.json" {
		t.Errorf("the run's directory holds %s, want only items and state.json", strings.Join(names, ", "))
	}
}

// TestBatchCollectWaitStopsOnInterrupt: Ctrl-C while collect --wait waits
// for the provider exits 130 and says how to go on.
func TestBatchCollectWaitStopsOnInterrupt(t *testing.T) {
	srv := fakebatch.New()
	srv.Polls = 1 << 30
	ts := httptest.NewServer(srv)
	defer ts.Close()
	env := batchEnv(t, ts.URL)
	env["COMPACT_BATCH_POLL_INTERVAL"] = "20ms"
	dir := t.TempDir()
	if _, err := fakebatch.WriteBundles(dir, 3, nil); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runIn(t, env, "replay", "--batch", dir); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	// A stray interrupt must not kill the test binary.
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	calls := srv.Calls("")
	go func() {
		code, out, errOut := runIn(t, env, "batch", "collect", "--wait", dir)
		done <- result{code, out, errOut}
	}()
	// Interrupted once it is waiting: it has polled a few times.
	deadline := time.Now().Add(30 * time.Second)
	for srv.Calls("") < calls+3 {
		if time.Now().After(deadline) {
			t.Fatal("collect --wait did not poll")
		}
		time.Sleep(5 * time.Millisecond)
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	var res result
	select {
	case res = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the interrupted collect did not stop")
	}
	code, out, errOut := res.code, res.out, res.errOut
	if code != 130 || !strings.Contains(errOut, "compact batch collect --run cascade goes on") {
		t.Fatalf("exit %d, want 130\n%s%s", code, out, errOut)
	}
}
