//go:build !unix

package fsutil

// openNoWait: where there is no O_NONBLOCK, the stat before the open is
// the check (CheckInput).
const openNoWait = 0
