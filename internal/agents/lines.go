package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxLine is MaxLineBytes (tests lower it).
var maxLine = MaxLineBytes

// eachLine calls fn with every non-blank line of r (CR and LF trimmed, a
// byte order mark dropped from the first) and its 1-based number. The
// slice is only valid during the call.
func eachLine(r io.Reader, name string, fn func(line int, text []byte)) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var long []byte
	for line := 1; ; line++ {
		text, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: gather it.
			long = append(long[:0], text...)
			for err == bufio.ErrBufferFull {
				if len(long) > maxLine {
					return fmt.Errorf("%s: line %d is longer than %d MiB: %w (each line one record); check it is the file you meant", name, line, MaxLineBytes>>20, ErrLineTooLong)
				}
				text, err = br.ReadSlice('\n')
				long = append(long, text...)
			}
			text = long
		}
		if len(text) > maxLine {
			return fmt.Errorf("%s: line %d is longer than %d MiB: %w (each line one record); check it is the file you meant", name, line, MaxLineBytes>>20, ErrLineTooLong)
		}
		if len(text) > 0 {
			text = bytes.TrimRight(text, "\r\n")
			if line == 1 {
				text = bytes.TrimPrefix(text, []byte("\ufeff"))
			}
			if len(bytes.TrimSpace(text)) > 0 {
				fn(line, text)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: line %d: %w", name, line, err)
		}
	}
}

// raw is a JSON value left undecoded, pointing into the line being
// decoded: it is only valid until the reader moves to the next line (the
// line's own decoder validated it).
type raw []byte

func (r *raw) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// lenient is a string member that any JSON value fills: a string gives
// its text, anything else "". A record whose member has an unexpected type
// is read for what it has rather than left out.
type lenient string

func (s *lenient) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		if x, ok := unquote(b); ok {
			*s = lenient(x)
		}
	}
	return nil
}

// unquote decodes the JSON string b (quotes included) as encoding/json
// does. A string the line's decoder has already checked needs no second
// check: the common escapes are decoded here; a \u escape or bytes that
// are not UTF-8 go through encoding/json.
func unquote(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	in := b[1 : len(b)-1]
	i := bytes.IndexByte(in, '\\')
	if i < 0 {
		if utf8.Valid(in) {
			return string(in), true
		}
		return unquoteSlow(b)
	}
	out := make([]byte, 0, len(in))
	for {
		out = append(out, in[:i]...)
		if i+1 >= len(in) {
			return unquoteSlow(b)
		}
		switch in[i+1] {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case '"', '\\', '/':
			out = append(out, in[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default: // \u, or not an escape
			return unquoteSlow(b)
		}
		in = in[i+2:]
		i = bytes.IndexByte(in, '\\')
		if i < 0 {
			out = append(out, in...)
			break
		}
	}
	if !utf8.Valid(out) {
		return unquoteSlow(b)
	}
	return string(out), true
}

func unquoteSlow(b []byte) (string, bool) {
	var s string
	if json.Unmarshal(b, &s) != nil {
		return "", false
	}
	return s, true
}

// jsonProblem says in a few words why a line is not the JSON record
// expected.
func jsonProblem(text []byte, err error) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		if ute.Field != "" {
			return fmt.Sprintf("%s is %s, want %s; left out", ute.Field, kindOf(ute.Value), ute.Type.String())
		}
		return fmt.Sprintf("not a JSON object but %s; left out", kindOf(ute.Value))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not JSON (%v at byte %d); left out", se, se.Offset)
	}
	return fmt.Sprintf("not JSON (%v); left out", err)
}

// kindOf names the JSON kinds the decoder reports ("string", "number"…)
// with an article.
func kindOf(v string) string {
	switch v {
	case "object", "array", "":
		return "an " + strings.TrimSpace(v+" value")
	}
	if strings.HasPrefix(v, "number") {
		return "a number"
	}
	return "a " + v
}

// parseTime reads an RFC 3339 time; the zero time when it is not one.
func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// textOrParts decodes a JSON value that is a string, null, or an array of
// parts (strings, or objects with a text member; image parts give
// ImagePlaceholder), joined with "\n". Other parts are skipped. ok is
// false when raw is none of these.
func textOrParts(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	switch raw[0] {
	case '"':
		return unquote(raw)
	case '[':
		var parts []json.RawMessage
		if json.Unmarshal(raw, &parts) != nil {
			return "", false
		}
		var texts []string
		for _, p := range parts {
			p = bytes.TrimSpace(p)
			if len(p) > 0 && p[0] == '"' {
				var s string
				if json.Unmarshal(p, &s) == nil {
					texts = append(texts, s)
				}
				continue
			}
			var part struct {
				Type string          `json:"type"`
				Text json.RawMessage `json:"text"`
			}
			if json.Unmarshal(p, &part) != nil {
				continue
			}
			if strings.Contains(part.Type, "image") {
				texts = append(texts, ImagePlaceholder)
				continue
			}
			var s string
			if len(part.Text) > 0 && json.Unmarshal(part.Text, &s) == nil {
				texts = append(texts, s)
			}
		}
		return strings.Join(texts, "\n"), true
	}
	return "", false
}

// exitCodeOf reads a command's exit status from a tool result's text:
// a first line "Exit code: N" (Codex) or "Exit code N" (Claude Code), a
// line "Process exited with code N", or JSON whose metadata.exit_code (or
// exit_code) is a number.
func exitCodeOf(text string) (int, bool) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "{") {
		var obj struct {
			ExitCode *float64 `json:"exit_code"`
			Metadata *struct {
				ExitCode *float64 `json:"exit_code"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(t), &obj) == nil {
			if obj.Metadata != nil && obj.Metadata.ExitCode != nil {
				return int(*obj.Metadata.ExitCode), true
			}
			if obj.ExitCode != nil {
				return int(*obj.ExitCode), true
			}
		}
		return 0, false
	}
	for i, line := range strings.SplitN(t, "\n", 8) {
		line = strings.TrimSpace(line)
		for _, p := range []string{"Exit code: ", "Exit code ", "Process exited with code ", "exit code: "} {
			if rest, ok := strings.CutPrefix(line, p); ok && (i == 0 || p == "Process exited with code " || p == "Exit code: ") {
				if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
					return n, true
				}
			}
		}
	}
	return 0, false
}
