//go:build unix

package bundle

import (
	"io/fs"
	"syscall"
)

// createFile writes data to a new file at path with open, write and close
// only: an *os.File would also try the poller on the descriptor and toggle
// its flags, five more system calls per file, which the writer pays for
// every one of a run's files.
func createFile(path string, data []byte) error {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_CLOEXEC, 0o644)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return &fs.PathError{Op: "write", Path: path, Err: err}
		}
		data = data[n:]
	}
	if err := syscall.Close(fd); err != nil {
		return &fs.PathError{Op: "close", Path: path, Err: err}
	}
	return nil
}
