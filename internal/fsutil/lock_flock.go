//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package fsutil

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Locking reports whether temporary directories are held, so that
// CleanStale can tell a leftover from a live run's directory.
const Locking = true

// lock is an open descriptor carrying an flock.
type lock struct{ fd int }

func (l lock) unlock() { syscall.Close(l.fd) } // closing the last descriptor drops the flock

// lockPath opens path (a directory or a file, not followed if a symbolic
// link) and takes an exclusive flock on it without waiting. It fails with
// ErrHeld when someone holds it, and with fs.ErrNotExist when path is
// gone or names another file by the time the lock is taken.
func lockPath(path string) (lock, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return lock{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		if err == syscall.EWOULDBLOCK {
			return lock{}, fmt.Errorf("%s: %w", path, ErrHeld)
		}
		return lock{}, &fs.PathError{Op: "flock", Path: path, Err: err}
	}
	// Whoever held it before may have removed it, or put another file
	// under the name, while this waited for the descriptor.
	var got, now syscall.Stat_t
	if err := syscall.Fstat(fd, &got); err != nil {
		syscall.Close(fd)
		return lock{}, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if err := syscall.Lstat(path, &now); err != nil || now.Dev != got.Dev || now.Ino != got.Ino {
		syscall.Close(fd)
		return lock{}, &fs.PathError{Op: "lock", Path: path, Err: fs.ErrNotExist}
	}
	return lock{fd: fd}, nil
}

// sweepLockFiles has nothing to do: an flock lives on what it holds.
func sweepLockFiles(string, []os.DirEntry) {}
