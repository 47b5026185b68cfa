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
//
// ErrOut is for people only (errors, warnings, notes), so what is written
// to it is escaped (an *EscapeWriter): a control sequence coming from an
// input, in a file name or a chat title, is shown, not acted on. Out
// carries data too (JSON, a serialized history, an HTML page), written as
// it is; what a command prints on it for a person goes through TextOut.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// stderrTTY reports whether ErrOut is an interactive terminal.
	stderrTTY bool
	// stdoutTTY reports whether Out is one.
	stdoutTTY bool
	// Quiet suppresses progress and informational output on ErrOut.
	Quiet bool

	textOut *EscapeWriter
}

// System returns the process's standard streams.
func System() *IO {
	return &IO{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    NewEscapeWriter(os.Stderr),
		stderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
	}
}

// Test returns streams backed by buffers: stdin, stdout and stderr. As
// with System, what is written to ErrOut reaches its buffer escaped.
func Test() (*IO, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IO{In: in, Out: out, ErrOut: NewEscapeWriter(errOut)}, in, out, errOut
}

// TextOut is Out for text written for a person (tables, summaries,
// reports): escaped, whether Out is a terminal or not, since such text
// is read on one sooner or later (less -R, cat). JSON and other data go
// to Out itself, or DataOut.
func (s *IO) TextOut() io.Writer {
	if s.textOut == nil || s.textOut.w != s.Out {
		s.textOut = NewEscapeWriter(s.Out)
	}
	return s.textOut
}

// DataOut is Out for data a command prints to be piped or saved (a
// serialized history, a prompt): as it is, unless Out is a terminal,
// where it is escaped as TextOut is.
func (s *IO) DataOut() io.Writer {
	if s.stdoutTTY {
		return s.TextOut()
	}
	return s.Out
}

// ProgressOut is ErrOut unescaped, for a progress line's own control
// sequences (carriage return, erase line); whatever goes into the line
// must be escaped by the caller (Escape).
func (s *IO) ProgressOut() io.Writer { return Raw(s.ErrOut) }

// SetStdoutTTY overrides terminal detection of Out (tests).
func (s *IO) SetStdoutTTY(v bool) { s.stdoutTTY = v }

// SetStderrTTY overrides terminal detection (tests).
func (s *IO) SetStderrTTY(v bool) { s.stderrTTY = v }

// ShowProgress reports whether progress should be drawn on ErrOut: only on a
// terminal and never with --quiet.
func (s *IO) ShowProgress() bool { return s.stderrTTY && !s.Quiet }
