package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// NotRegularError says an input path names something that is neither a
// regular file nor a directory: a named pipe, a socket, a device. Opening
// a FIFO blocks until something writes to it, so such a path is refused
// before it is opened.
type NotRegularError struct {
	Path string
	Kind string // "a named pipe", "a socket", …
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; give the file itself", e.Path, e.Kind)
}

// FileKind names the kind of a file that is neither a directory nor a
// regular file.
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// CheckInput stats path (following links) and refuses what is neither a
// regular file nor a directory, without opening it. A missing path gives
// the os.Stat error.
func CheckInput(path string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Kind: FileKind(st.Mode())}
	}
	return st, nil
}

// OpenInput opens the regular file at path for reading. A named pipe, a
// socket or a device is refused before it is opened (CheckInput), and so
// is a directory. The open file is checked again, so a regular file
// swapped for something else between the two checks is refused too; on
// Unix it is opened without waiting (O_NONBLOCK), so even a named pipe
// put there in between cannot block the open.
func OpenInput(path string) (*os.File, error) {
	st, err := CheckInput(path)
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "stat" {
		pe.Op = "open" // what the caller asked for, as os.Open would say
	}
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a file", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: FileKind(st.Mode())}
	}
	return f, nil
}

// OpenInputMax is OpenInput that also refuses, before reading a byte, a
// file larger than max bytes.
func OpenInputMax(path string, max int64) (*os.File, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Size() > max {
		f.Close()
		return nil, &TooLargeError{Name: path, Max: max}
	}
	return f, nil
}
