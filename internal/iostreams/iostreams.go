// Package iostreams owns the input and output streams a command writes
// through, so that commands can run in-process in tests with buffers and on a
// real terminal with progress output.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IO holds the streams of one command invocation.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// stderrTTY reports whether ErrOut is an interactive terminal.
	stderrTTY bool
	// Quiet suppresses progress and informational output on ErrOut.
	Quiet bool
}

// System returns the process's standard streams.
func System() *IO {
	return &IO{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// Test returns streams backed by buffers: stdin, stdout and stderr.
func Test() (*IO, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IO{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// SetStderrTTY overrides terminal detection (tests).
func (s *IO) SetStderrTTY(v bool) { s.stderrTTY = v }

// ShowProgress reports whether progress should be drawn on ErrOut: only on a
// terminal and never with --quiet.
func (s *IO) ShowProgress() bool { return s.stderrTTY && !s.Quiet }
