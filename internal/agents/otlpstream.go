package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/compactlab/compact/internal/fsutil"
)

// Reading a trace file as a stream: JSON Lines (the collector's file
// exporter: one request a line) are read a line at a time, so that only
// the line being read and what was kept of the lines before it (ids,
// attributes other than the messages, each call's messages parsed with
// one copy of each text: digest) are in memory; a document (an SDK's or a
// tool's export, pretty-printed) is read whole, as before. A file over
// MaxTraceBytes is refused.

// readOTLPFile reads the trace file at path as a stream.
func readOTLPFile(path string, keysOnly bool) (*otlpReader, error) {
	f, err := fsutil.OpenInputMax(path, MaxTraceBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := readOTLPStream(f, path, keysOnly)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// lineReader reads the lines of a stream, each whole however long, and
// counts the bytes read against MaxTraceBytes.
type lineReader struct {
	br   *bufio.Reader
	buf  []byte
	read int64
	name string
	// unended: the last line returned had no newline (the file's end).
	unended bool
}

// next returns the next line without its newline (valid until the next
// call), io.EOF after the last.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		l.read += int64(len(chunk))
		if l.read > MaxTraceBytes {
			return nil, &fsutil.TooLargeError{Name: l.name, Max: MaxTraceBytes}
		}
		switch {
		case err == nil:
			if len(l.buf) == 0 {
				return chunk[:len(chunk)-1], nil
			}
			l.buf = append(l.buf, chunk[:len(chunk)-1]...)
			return l.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			l.buf = append(l.buf, chunk...)
		case err == io.EOF:
			if len(chunk) == 0 && len(l.buf) == 0 {
				return nil, io.EOF
			}
			l.buf = append(l.buf, chunk...)
			l.unended = true
			return l.buf, nil
		default:
			return nil, fmt.Errorf("%s: %w", l.name, err)
		}
	}
}

// readOTLPStream reads a trace file from rd: JSON Lines line by line
// (the first non-blank line a whole JSON value, another line after it),
// anything else whole (readOTLP). keysOnly keeps of each span its ids
// alone (OTelRun's first pass).
func readOTLPStream(rd io.Reader, name string, keysOnly bool) (*otlpReader, error) {
	lr := &lineReader{br: bufio.NewReaderSize(rd, 256<<10), name: name}
	// The lines read before the mode is known.
	var head bytes.Buffer
	var first []byte
	firstNo, lineNo := 0, 0
	for {
		line, err := lr.next()
		if err == io.EOF {
			b := head.Bytes()
			if lr.unended {
				// The newline written after the last line was not in the
				// file: a problem's line must be one of the file's.
				b = b[:len(b)-1]
			}
			return readOTLPWhole(b, keysOnly), nil
		}
		if err != nil {
			return nil, err
		}
		lineNo++
		head.Write(line)
		head.WriteByte('\n')
		t := bytes.TrimSpace(line)
		if lineNo == 1 {
			t = bytes.TrimPrefix(t, []byte("\ufeff"))
		}
		if len(t) == 0 {
			continue
		}
		if first == nil {
			if !json.Valid(t) {
				break // a document over many lines
			}
			first, firstNo = append([]byte(nil), t...), lineNo
			continue
		}
		// A second non-blank line after a whole first one: JSON Lines.
		r := &otlpReader{line: 1, intern: interner{}, keysOnly: keysOnly}
		r.lineValue(first, firstNo)
		r.lineValue(t, lineNo)
		for {
			line, err := lr.next()
			if err == io.EOF {
				return r, nil
			}
			if err != nil {
				return nil, err
			}
			lineNo++
			if t := bytes.TrimSpace(line); len(t) > 0 {
				r.lineValue(t, lineNo)
			}
		}
	}
	// A document: the rest read whole.
	rest, err := io.ReadAll(io.LimitReader(lr.br, MaxTraceBytes+1-lr.read))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(head.Len()+len(rest)) > MaxTraceBytes {
		return nil, &fsutil.TooLargeError{Name: name, Max: MaxTraceBytes}
	}
	if lr.unended {
		head.Truncate(head.Len() - 1) // the newline the file did not have
	}
	head.Write(rest)
	return readOTLPWhole(head.Bytes(), keysOnly), nil
}

func readOTLPWhole(data []byte, keysOnly bool) *otlpReader {
	r := &otlpReader{line: 1, intern: interner{}, keysOnly: keysOnly}
	r.read(data)
	return r
}

// lineValue reads one line of JSON Lines; a bad one is a problem.
func (r *otlpReader) lineValue(text []byte, lineNo int) {
	if err := r.value(text, lineNo, 0); err != nil {
		r.problem(lineNo, "%s", jsonProblem(text, err))
	}
}
