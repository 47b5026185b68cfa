package cmd

import (
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/iostreams"
)

// endless is a stdin that never ends: a byte repeated forever.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// TestEndlessInputFailsAtItsFirstByte: tokens, serialize and boundary read
// superjson; an endless stream that cannot be JSON (/dev/zero, yes(1))
// fails at its first byte with one line, instead of being read until
// memory runs out (2.9 GB in 5 s before).
func TestEndlessInputFailsAtItsFirstByte(t *testing.T) {
	for _, args := range [][]string{{"tokens"}, {"serialize"}, {"boundary"}} {
		for _, b := range []byte{0, 'y'} {
			io, _, _, errOut := iostreams.Test()
			io.In = endless(b)
			code := RunEnv(io, args, func(string) string { return "" })
			msg := errOut.String()
			if code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "invalid JSON at byte 0") {
				t.Errorf("%v on endless %q: exit %d, %q", args, b, code, msg)
			}
		}
	}
}

// TestInputThatIsADevice: a device given as the file (/dev/zero) is
// refused from its stat, before it is opened or read.
func TestInputThatIsADevice(t *testing.T) {
	for _, cmd := range []string{"tokens", "serialize", "boundary"} {
		code, _, errOut := runIn(t, nil, cmd, "/dev/zero")
		if code != 2 || errOut != "compact "+cmd+": /dev/zero is a character device, not a regular file; give the file itself\n" {
			t.Errorf("%s /dev/zero: exit %d, %q", cmd, code, errOut)
		}
	}
}

func TestInputThatIsADirectory(t *testing.T) {
	code, _, errOut := runIn(t, nil, "tokens", t.TempDir())
	if code != 2 || !strings.Contains(errOut, "is a directory") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}
