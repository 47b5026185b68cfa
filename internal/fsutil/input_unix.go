//go:build unix

package fsutil

import "syscall"

// openNoWait makes open(2) return at once on a named pipe with no writer
// (it would otherwise wait for one); on a regular file it changes nothing.
const openNoWait = syscall.O_NONBLOCK
