//go:build unix

package strategy

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user and system): the
// scaling tests compare it, not the wall time, which a busy machine
// stretches at random.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
