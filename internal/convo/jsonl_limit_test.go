package convo

import (
	"bufio"
	"errors"
	"strings"
	"testing"
)

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestEndlessLineIsRefused: an input with no newline (/dev/zero) used to
// be read into one line until memory ran out (24 GB and still reading
// after 11 minutes); it now fails once a line passes MaxLineBytes.
func TestEndlessLineIsRefused(t *testing.T) {
	_, err := ReadJSONL(zeros{}, "stdin", JSONLOptions{})
	if err == nil || !strings.Contains(err.Error(), "stdin: line 1 is longer than 256 MiB") {
		t.Fatalf("got %v", err)
	}
}

func TestReadLineLimit(t *testing.T) {
	in := strings.Repeat("a", 100) + "\n" + strings.Repeat("b", 101) + "\nc"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	if got, err := readLine(br, 101); err != nil || len(got) != 101 {
		t.Fatalf("first line: %d bytes, %v", len(got), err)
	}
	if _, err := readLine(br, 101); !errors.Is(err, errLineTooLong) {
		t.Fatalf("second line: %v, want errLineTooLong", err)
	}
}
