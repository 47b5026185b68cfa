package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/fsutil"
)

// MaxRecordBytes bounds what is read of a metadata.json or a replay.json,
// a few hundred bytes when compact wrote them.
const MaxRecordBytes = 64 << 20

// ErrEmpty reports a file that holds nothing but white space.
var ErrEmpty = errors.New("is empty")

// FileError names the file a problem was found in.
type FileError struct {
	Path string
	Err  error // ErrEmpty or an os error
}

func (e *FileError) Error() string {
	if errors.Is(e.Err, ErrEmpty) {
		return fmt.Sprintf("%s %v", e.Path, e.Err)
	}
	return e.Err.Error()
}

func (e *FileError) Unwrap() error { return e.Err }

// ReadText reads path as text. Whatever bytes a bundle file holds, it is
// read: what compact writes, compact reads, and extract writes what the
// history held, byte for byte (a NUL byte in a message reaches the user
// message and the compact history; an agent's summary may be empty; a
// model's answer may hold anything). A NUL byte is kept; a byte that is
// not UTF-8 reads as U+FFFD, so that the measures work on text; a blank
// file is a blank briefing. Only a file that is missing, not a regular
// file or over fsutil.MaxJSStringBytes is an error (a *FileError).
func ReadText(path string) (string, error) {
	data, err := fsutil.ReadFileLimit(path, fsutil.MaxJSStringBytes)
	if err != nil {
		return "", &FileError{Path: path, Err: err}
	}
	return ValidText(data), nil
}

// ValidText is data as UTF-8 text: each run of bytes that is not UTF-8
// becomes one U+FFFD.
func ValidText(data []byte) string {
	if utf8.Valid(data) {
		return string(data)
	}
	return string(bytes.ToValidUTF8(data, []byte("\uFFFD")))
}

// CheckText reports whether data has anything to compare: it is not
// blank. The error is a *FileError without a path.
func CheckText(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &FileError{Err: ErrEmpty}
	}
	return nil
}
