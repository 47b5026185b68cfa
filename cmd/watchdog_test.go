package cmd

import (
	"os"
	"testing"
	"time"
)

// TestWatchdogEndsALateRun: a run still going the grace after a signal is
// ended with exit 130; one that ends in time, or gets no signal, is not.
func TestWatchdogEndsALateRun(t *testing.T) {
	for _, c := range []struct {
		name     string
		signal   bool
		endAfter time.Duration
		want     int
	}{
		{"late after a signal", true, time.Hour, 130},
		{"in time after a signal", true, 0, -1},
		{"no signal", false, 100 * time.Millisecond, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			sigs := make(chan os.Signal, 1)
			done := make(chan struct{})
			got := make(chan int, 1)
			finished := make(chan struct{})
			go func() {
				watchdog(sigs, done, 50*time.Millisecond, func(code int) { got <- code })
				close(finished)
			}()
			if c.signal {
				sigs <- os.Interrupt
			}
			if c.endAfter < time.Hour {
				time.Sleep(c.endAfter)
				close(done)
			}
			select {
			case <-finished:
			case <-time.After(5 * time.Second):
				t.Fatal("the watchdog did not return")
			}
			code := -1
			select {
			case code = <-got:
			default:
			}
			if code != c.want {
				t.Errorf("exit %d, want %d", code, c.want)
			}
		})
	}
}
