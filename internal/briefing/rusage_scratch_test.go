package briefing

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func TestScratchCPU(t *testing.T) {
	if os.Getenv("CPU") == "" {
		t.Skip()
	}
	in := megabyteHistory()
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	start := time.Now()
	const n = 20
	for range n {
		Write(in, Options{})
	}
	wall := time.Since(start)
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	u := time.Duration(r1.Utime.Nano()-r0.Utime.Nano()) / n
	s := time.Duration(r1.Stime.Nano()-r0.Stime.Nano()) / n
	t.Logf("per op: wall %v, user %v, sys %v", wall/n, u, s)
}
