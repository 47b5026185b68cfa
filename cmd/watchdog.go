package cmd

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopGrace is how long a run may take to stop after the first SIGINT or
// SIGTERM before the process ends anyway.
const stopGrace = time.Second

// watchSignals ends the process (exit 130) when a run is still going
// stopGrace after the first SIGINT or SIGTERM. The commands stop on the
// signal by themselves (their context is cancelled) and say so; this is
// the guarantee behind it, for a step that does not look at its context
// often enough (one enormous bundle, a library call). Everything compact
// writes is written under a temporary name and renamed, so a run ended
// here leaves at most temporary files, which the next run of the same
// kind removes. The returned function stops watching.
func watchSignals(errOut io.Writer) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go watchdog(sigs, done, stopGrace, func(code int) {
		fmt.Fprintln(errOut, "compact: interrupted; stopped")
		os.Exit(code)
	})
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// watchdog calls exit(130) grace after the first value on sigs, unless
// done is closed first.
func watchdog(sigs <-chan os.Signal, done <-chan struct{}, grace time.Duration, exit func(int)) {
	select {
	case <-sigs:
	case <-done:
		return
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-t.C:
		exit(130)
	case <-done:
	}
}
