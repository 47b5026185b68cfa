package fsutil

import (
	"bytes"
	"fmt"
	"io"
)

// MaxJSStringBytes is the most UTF-8 bytes a JavaScript string can take in
// V8: 536,870,888 UTF-16 units, each at most 3 bytes (a pair of surrogates
// is one 4-byte character). Text the app stored can never be longer, so a
// bundle file or a superjson input above it did not come from the app.
const MaxJSStringBytes = 3 * 536_870_888

// TooLargeError says an input is over the size a reader accepts.
type TooLargeError struct {
	Name string // the file, or "stdin"
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, more than any input of this kind can be; check it is the file you meant", e.Name, byteSize(e.Max))
}

// ReadLimit reads r to the end, or fails with a *TooLargeError naming name
// as soon as more than max bytes come, so an endless or huge input costs at
// most max bytes of memory.
func ReadLimit(r io.Reader, name string, max int64) ([]byte, error) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, &TooLargeError{Name: name, Max: max}
	}
	return buf.Bytes(), nil
}

// ReadFileLimit is os.ReadFile with ReadLimit's bound. It opens the file
// as OpenInput does: a named pipe, a socket or a device is refused from
// its stat, before it is opened (a *NotRegularError), and so is a
// directory; a file whose size is already over the bound is refused
// before it is read.
func ReadFileLimit(path string, max int64) ([]byte, error) {
	f, err := OpenInputMax(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLimit(f, path, max)
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
