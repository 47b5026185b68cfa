package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// OTLP/JSON, as opentelemetry-proto v1.11.0 docs/specification.md ("JSON
// Protobuf Encoding") defines it: an ExportTraceServiceRequest is
// {"resourceSpans": [{"resource": {"attributes": [...]}, "scopeSpans":
// [{"scope": {...}, "spans": [...]}]}]}; a span has traceId, spanId and
// parentSpanId (hex strings), name, startTimeUnixNano and
// endTimeUnixNano (64-bit integers: decimal strings, numbers accepted),
// attributes and events; an attribute is {"key", "value": AnyValue}, an
// AnyValue one of stringValue, boolValue, intValue, doubleValue,
// arrayValue {values}, kvlistValue {values: [{key, value}]}, bytesValue.
// The collector's file exporter writes one request per line; an SDK's or
// a tool's export is one document, pretty-printed or not.
//
// Field names are lowerCamelCase as OTLP requires; the proto's own
// snake_case names (resource_spans, scope_spans, start_time_unix_nano,
// string_value, …), which Phoenix's "OTLP JSON" download writes, are read
// too, and so are the spans of a Phoenix REST page ({"data": [span, …]},
// GET /v1/projects/{id}/spans/otlpv1) and the instrumentationLibrarySpans
// of OTLP before v0.15.
//
// Log records are read too ({"resourceLogs": [{"resource", "scopeLogs":
// [{"logRecords": [...]}]}]}, an ExportLogsServiceRequest, as the file
// exporter of a logs pipeline writes it, alone or in the traces' file):
// the GenAI events recorded as logs (otellogs.go) join their spans by
// trace and span id.

// otlpSpan is one span read, with what compact needs of it.
type otlpSpan struct {
	traceID, spanID, parentID string
	name                      string
	start, end                int64 // Unix nanoseconds, 0 when absent
	attrs                     map[string]any
	resource                  map[string]any
	events                    []otlpEvent
	line                      int // 1-based line where the span starts
	order                     int // place in the file
	// call is the model call read from the span as it was read (its
	// content then dropped from attrs and events: digest); logged: log
	// records were attached to it since.
	call   *otelCall
	logged bool
}

// otlpEvent is one event of a span.
type otlpEvent struct {
	name  string
	time  int64
	attrs map[string]any
}

// kvList is a kvlistValue: its pairs in order.
type kvList []kvPair

type kvPair struct {
	key   string
	value any
}

// get returns the value of key in l (nil, false when absent).
func (l kvList) get(key string) (any, bool) {
	for _, p := range l {
		if p.key == key {
			return p.value, true
		}
	}
	return nil, false
}

// otlpReader gathers the spans of one file.
type otlpReader struct {
	intern interner
	// keysOnly keeps of each span its ids alone (OTelRun's first pass).
	keysOnly bool
	data     []byte
	spans    []*otlpSpan
	logs     []*otlpLog
	problems []Problem
	// lineAt's cursor: lines counted up to off.
	off  int
	line int
	// errOff is where the value that failed starts (value's error).
	errOff int
}

// lineAt is the 1-based line of byte offset off of r.data; offsets are
// asked in increasing order (an earlier one restarts the count).
func (r *otlpReader) lineAt(off int) int {
	if off < r.off {
		r.off, r.line = 0, 1
	}
	if off > len(r.data) {
		off = len(r.data)
	}
	r.line += bytes.Count(r.data[r.off:off], []byte("\n"))
	r.off = off
	return r.line
}

func (r *otlpReader) problem(line int, format string, a ...any) {
	r.problems = append(r.problems, Problem{Line: line, Message: fmt.Sprintf(format, a...)})
}

// readOTLP reads every span of data: JSON Lines (one request a line, a
// bad line reported and passed over) or one document (a request, or
// several one after another; a syntax error ends it).
func readOTLP(data []byte) *otlpReader {
	return readOTLPWhole(data, false)
}

// read reads data whole: see readOTLP.
func (r *otlpReader) read(data []byte) {
	r.data = data
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if jsonLines(data) {
		start := 0
		for lineNo := 1; start < len(r.data); lineNo++ {
			end := bytes.IndexByte(r.data[start:], '\n')
			if end < 0 {
				end = len(r.data)
			} else {
				end += start
			}
			text := bytes.TrimSpace(r.data[start:end])
			if lineNo == 1 {
				text = bytes.TrimPrefix(text, []byte("\ufeff"))
			}
			if len(text) > 0 {
				if err := r.value(text, lineNo, start); err != nil {
					r.problem(lineNo, "%s", jsonProblem(text, err))
				}
			}
			start = end + 1
		}
		return
	}
	base := len(r.data) - len(data)
	if err := r.value(data, 0, base); err != nil {
		// The line of the value the error is in (the decoder's offsets
		// within a value are not the stream's).
		line := r.lineAt(base + skipSpace(data, r.errOff))
		r.problem(line, "%s; the rest of the file is left out", strings.TrimSuffix(jsonProblem(data, err), "; left out"))
	}
}

// jsonLines reports whether data is JSON Lines: its first non-blank line
// is a whole JSON value and another line follows it.
func jsonLines(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	first, rest, ok := bytes.Cut(t, []byte("\n"))
	return ok && len(bytes.TrimSpace(rest)) > 0 && json.Valid(bytes.TrimSpace(first))
}

// value reads the JSON values of text (one line, lineNo > 0, or the whole
// document, lineNo 0), which starts at offset base of the file.
func (r *otlpReader) value(text []byte, lineNo, base int) (err error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	defer func() {
		if err != nil {
			r.errOff = int(dec.InputOffset())
		}
	}()
	for n := 0; ; n++ {
		tok, err := dec.Token()
		if err == io.EOF {
			if n == 0 {
				return io.ErrUnexpectedEOF
			}
			return nil
		}
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return &json.UnmarshalTypeError{Value: kindOfToken(tok), Type: requestType}
		}
		line := func() int {
			if lineNo > 0 {
				return lineNo
			}
			return r.lineAt(base + skipSpace(text, int(dec.InputOffset())))
		}
		at := line()
		found := false
		for dec.More() {
			key, err := objectKey(dec)
			if err != nil {
				return err
			}
			switch key {
			case "resourceSpans", "resource_spans":
				found = true
				if err := r.eachElem(dec, func() error { return r.resourceSpans(dec, line) }); err != nil {
					return err
				}
			case "resourceLogs", "resource_logs":
				found = true
				if err := r.eachElem(dec, func() error { return r.resourceLogs(dec, line) }); err != nil {
					return err
				}
			case "observations":
				// Langfuse's trace download (langfuse.go).
				found = true
				if err := r.eachElem(dec, func() error { return r.observation(dec, line) }); err != nil {
					return err
				}
			case "data":
				// A Phoenix REST page: the spans themselves (or a
				// Langfuse API page of observations).
				found = true
				if err := r.eachElem(dec, func() error { return r.dataElem(dec, line) }); err != nil {
					return err
				}
			default:
				if err := skipValue(dec); err != nil {
					return err
				}
			}
		}
		if _, err := dec.Token(); err != nil { // the closing brace
			return err
		}
		if !found {
			r.problem(at, "no resourceSpans or resourceLogs: not an OTLP trace or logs request; left out")
		}
	}
}

var requestType = reflectTypeOf[map[string]any]()

func reflectTypeOf[T any]() reflect.Type { return reflect.TypeOf((*T)(nil)).Elem() }

// resourceSpans reads one ResourceSpans object.
func (r *otlpReader) resourceSpans(dec *json.Decoder, line func() int) error {
	first := len(r.spans)
	resource, err := r.resourceItems(dec, spanScopes, spanItems, func() error { return r.span(dec, line) })
	if err != nil {
		return err
	}
	for _, s := range r.spans[first:] {
		s.resource = resource
	}
	return nil
}

// The keys of a ResourceSpans' scopes, and of a scope's spans, in both
// spellings and the older instrumentation-library names.
var (
	spanScopes = map[string]bool{"scopeSpans": true, "scope_spans": true, "instrumentationLibrarySpans": true, "instrumentation_library_spans": true}
	spanItems  = map[string]bool{"spans": true}
)

// resourceItems reads one Resource{Spans,Logs} object: its resource's
// attributes (returned), and item for each element of the items arrays
// (itemKeys) of each scope (scopeKeys); other keys are skipped.
func (r *otlpReader) resourceItems(dec *json.Decoder, scopeKeys, itemKeys map[string]bool, item func() error) (map[string]any, error) {
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var resource map[string]any
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return resource, err
		}
		switch {
		case key == "resource":
			var res struct {
				Attributes []json.RawMessage `json:"attributes"`
			}
			if err := dec.Decode(&res); err != nil {
				return resource, err
			}
			resource = attrMap(res.Attributes)
		case scopeKeys[key]:
			err := r.eachElem(dec, func() error {
				if err := expectDelim(dec, '{'); err != nil {
					return err
				}
				for dec.More() {
					key, err := objectKey(dec)
					if err != nil {
						return err
					}
					if !itemKeys[key] {
						if err := skipValue(dec); err != nil {
							return err
						}
						continue
					}
					if err := r.eachElem(dec, item); err != nil {
						return err
					}
				}
				_, err := dec.Token()
				return err
			})
			if err != nil {
				return resource, err
			}
		default:
			if err := skipValue(dec); err != nil {
				return resource, err
			}
		}
	}
	_, err := dec.Token()
	return resource, err
}

// eachElem calls fn for each element of the array that comes next (null
// counts as an empty array).
func (r *otlpReader) eachElem(dec *json.Decoder, fn func() error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return &json.UnmarshalTypeError{Value: kindOfToken(tok), Type: reflectTypeOf[[]any]()}
	}
	for dec.More() {
		if err := fn(); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// rawSpan is a span as decoded; each field has its two spellings.
type rawSpan struct {
	TraceID    string            `json:"traceId"`
	TraceID2   string            `json:"trace_id"`
	SpanID     string            `json:"spanId"`
	SpanID2    string            `json:"span_id"`
	ParentID   string            `json:"parentSpanId"`
	ParentID2  string            `json:"parent_span_id"`
	Name       string            `json:"name"`
	Start      json.RawMessage   `json:"startTimeUnixNano"`
	Start2     json.RawMessage   `json:"start_time_unix_nano"`
	End        json.RawMessage   `json:"endTimeUnixNano"`
	End2       json.RawMessage   `json:"end_time_unix_nano"`
	Attributes []json.RawMessage `json:"attributes"`
	Events     []json.RawMessage `json:"events"`
}

type rawEvent struct {
	Name       string            `json:"name"`
	Time       json.RawMessage   `json:"timeUnixNano"`
	Time2      json.RawMessage   `json:"time_unix_nano"`
	Attributes []json.RawMessage `json:"attributes"`
}

// span reads one span object; a span that is not an object is a problem
// and left out.
func (r *otlpReader) span(dec *json.Decoder, line func() int) error {
	at := line()
	var rs rawSpan
	if err := dec.Decode(&rs); err != nil {
		return r.badSpan(at, err)
	}
	r.addSpan(&rs, at)
	return nil
}

// badSpan handles the error of decoding the span at line at: a value of
// the wrong type was read whole, so it is a problem, the span is left out
// and the next one is still there (nil); any other error ends the read.
func (r *otlpReader) badSpan(at int, err error) error {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		r.problem(at, "span: %s", jsonProblem(nil, err))
		return nil
	}
	return err
}

// addSpan adds the span rs, read at line at.
func (r *otlpReader) addSpan(rs *rawSpan, at int) {
	s := &otlpSpan{
		traceID: or(rs.TraceID, rs.TraceID2), spanID: or(rs.SpanID, rs.SpanID2), parentID: or(rs.ParentID, rs.ParentID2),
		name: rs.Name, start: nanos(rs.Start, rs.Start2), end: nanos(rs.End, rs.End2),
		attrs: attrMap(rs.Attributes), line: at, order: len(r.spans),
	}
	for _, e := range rs.Events {
		var re rawEvent
		if json.Unmarshal(e, &re) == nil {
			s.events = append(s.events, otlpEvent{name: re.Name, time: nanos(re.Time, re.Time2), attrs: attrMap(re.Attributes)})
		}
	}
	r.digest(s)
	r.spans = append(r.spans, s)
}

// digest reads the content of a model-call span as soon as the span is
// read and drops it from the span: a call's input repeats the
// conversation before it, so the parsed messages share one copy of each
// text and memory follows the conversation, not the trace.
func (r *otlpReader) digest(s *otlpSpan) {
	if r.keysOnly {
		s.attrs, s.events = nil, nil
		return
	}
	if !isModelCall(s) {
		return
	}
	if r.intern == nil {
		r.intern = interner{}
	}
	c := readCall(s)
	r.intern.msgs(c.input)
	r.intern.msgs(c.output)
	dropContent(s)
	s.call = &c
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// nanos reads a 64-bit integer written as a decimal string or a number.
func nanos(raws ...json.RawMessage) int64 {
	for _, raw := range raws {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		s := string(raw)
		if raw[0] == '"' {
			if u, ok := unquote(raw); ok {
				s = u
			}
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && math.Abs(f) < 9e18 {
			return int64(f)
		}
	}
	return 0
}

// attrMap decodes a list of KeyValue into a map; a later key wins, as
// OTLP leaves duplicates to the receiver.
func attrMap(list []json.RawMessage) map[string]any {
	m := make(map[string]any, len(list))
	for _, raw := range list {
		var kv struct {
			Key   string          `json:"key"`
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(raw, &kv) != nil || kv.Key == "" {
			continue
		}
		m[kv.Key] = anyValue(kv.Value)
	}
	return m
}

// rawAny is an AnyValue as decoded, each field in its two spellings.
type rawAny struct {
	String  *string         `json:"stringValue"`
	String2 *string         `json:"string_value"`
	Bool    *bool           `json:"boolValue"`
	Bool2   *bool           `json:"bool_value"`
	Int     json.RawMessage `json:"intValue"`
	Int2    json.RawMessage `json:"int_value"`
	Double  json.RawMessage `json:"doubleValue"`
	Double2 json.RawMessage `json:"double_value"`
	Bytes   *string         `json:"bytesValue"`
	Bytes2  *string         `json:"bytes_value"`
	Array   *rawValues      `json:"arrayValue"`
	Array2  *rawValues      `json:"array_value"`
	KVList  *rawValues      `json:"kvlistValue"`
	KVList2 *rawValues      `json:"kvlist_value"`
}

type rawValues struct {
	Values []json.RawMessage `json:"values"`
}

// anyValue decodes an AnyValue into a Go value: string, bool, int64,
// float64, []any, kvList, or nil.
func anyValue(raw json.RawMessage) any {
	var v rawAny
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	switch {
	case v.String != nil || v.String2 != nil:
		return *orPtr(v.String, v.String2)
	case v.Bool != nil || v.Bool2 != nil:
		return *orPtr(v.Bool, v.Bool2)
	case v.Int != nil || v.Int2 != nil:
		return nanos(v.Int, v.Int2)
	case v.Double != nil || v.Double2 != nil:
		f := v.Double
		if f == nil {
			f = v.Double2
		}
		x, _ := strconv.ParseFloat(strings.Trim(string(bytes.TrimSpace(f)), `"`), 64)
		return x
	case v.Bytes != nil || v.Bytes2 != nil:
		return *orPtr(v.Bytes, v.Bytes2)
	case v.Array != nil || v.Array2 != nil:
		a := orPtr(v.Array, v.Array2)
		out := make([]any, 0, len(a.Values))
		for _, e := range a.Values {
			out = append(out, anyValue(e))
		}
		return out
	case v.KVList != nil || v.KVList2 != nil:
		a := orPtr(v.KVList, v.KVList2)
		out := make(kvList, 0, len(a.Values))
		for _, e := range a.Values {
			var p struct {
				Key   string          `json:"key"`
				Value json.RawMessage `json:"value"`
			}
			if json.Unmarshal(e, &p) == nil {
				out = append(out, kvPair{key: p.Key, value: anyValue(p.Value)})
			}
		}
		return out
	}
	return nil
}

// orPtr is a when it is set, else b.
func orPtr[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

// toJSON writes a decoded AnyValue as JSON (a kvList as an object, its
// keys in order).
func toJSON(v any) []byte {
	var b bytes.Buffer
	writeJSON(&b, v)
	return b.Bytes()
}

func writeJSON(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case string:
		q, _ := json.Marshal(x)
		b.Write(q)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b.WriteString("null")
			return
		}
		q, _ := json.Marshal(x)
		b.Write(q)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case kvList:
		b.WriteByte('{')
		for i, p := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(p.key)
			b.Write(q)
			b.WriteByte(':')
			writeJSON(b, p.value)
		}
		b.WriteByte('}')
	default:
		b.WriteString("null")
	}
}

// objectKey reads the next key of an object.
func objectKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	key, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("an object key expected")
	}
	return key, nil
}

// skipValue reads the next value whole and drops it.
func skipValue(dec *json.Decoder) error {
	var skip json.RawMessage
	return dec.Decode(&skip)
}

// expectDelim reads the next token, which must be d.
func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return &json.UnmarshalTypeError{Value: kindOfToken(tok), Type: reflectTypeOf[map[string]any]()}
	}
	return nil
}

// kindOfToken names a token's JSON kind as UnmarshalTypeError does.
func kindOfToken(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "bool"
	}
	return "null"
}

// skipSpace is the offset of the first byte at or after off that is
// neither white space nor a comma.
func skipSpace(text []byte, off int) int {
	for off < len(text) {
		switch text[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}
