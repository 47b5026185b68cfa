//go:build unix

package fsutil

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

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
