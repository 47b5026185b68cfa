package convo

import (
	"bufio"
	"errors"
	"strings"
	"testing"
)

// zerosUpTo is an endless reader of zeros that fails the test once it has
// given more than n bytes: the reader should have stopped before.
type zerosUpTo struct {
	t    *testing.T
	n    int
	read int
}

func (z *zerosUpTo) Read(p []byte) (int, error) {
	if z.read > z.n {
		z.t.Fatalf("read %d bytes of an endless line, the limit is %d", z.read, z.n)
	}
	clear(p)
	z.read += len(p)
	return len(p), nil
}

// TestEndlessLineIsRefused: an input with no newline (/dev/zero) used to
// be read into one line until memory ran out (24 GB and still reading
// after 11 minutes); it now fails once a line passes the limit, which
// the message names. The limit is lowered to 4 MiB here: reaching the
// 256 MiB of MaxLineBytes took a minute under the race detector and
// proves nothing more, since ReadJSONL applies maxLineBytes whatever its
// value; TestDefaultLineLimit holds the default at 256 MiB.
func TestEndlessLineIsRefused(t *testing.T) {
	defer func(n int) { maxLineBytes = n }(maxLineBytes)
	maxLineBytes = 4 << 20
	r := &zerosUpTo{t: t, n: maxLineBytes + 1<<20}
	_, err := ReadJSONL(r, "stdin", JSONLOptions{})
	if err == nil || !strings.Contains(err.Error(), "stdin: line 1 is longer than 4 MiB") {
		t.Fatalf("got %v", err)
	}
	if r.read < maxLineBytes {
		t.Errorf("refused after %d bytes, before the limit %d", r.read, maxLineBytes)
	}
}

// TestDefaultLineLimit: without a test lowering it the limit is
// MaxLineBytes, 256 MiB, and the error about it says 256 MiB.
func TestDefaultLineLimit(t *testing.T) {
	if MaxLineBytes != 256<<20 || maxLineBytes != MaxLineBytes {
		t.Fatalf("MaxLineBytes %d, limit applied %d, want 256 MiB", MaxLineBytes, maxLineBytes)
	}
	want := "stdin: line 1 is longer than 256 MiB: not a JSONL history (each line one message); check it is the file you meant"
	if got := lineTooLongError("stdin", 1, maxLineBytes).Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
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
