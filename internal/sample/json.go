package sample

import (
	"strconv"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/history"
)

// The value model of the generator: JSON values with insertion-ordered
// objects, plus Date, which superjson records in its meta.
//
//	nil, bool, int, int64, float64, string, Obj, Arr, Date
type (
	// Obj is a JSON object whose keys keep their insertion order, as a
	// JavaScript object literal does (the generator never uses integer-like
	// keys, which JavaScript would move to the front).
	Obj []KV
	// KV is one key of an Obj.
	KV struct {
		K string
		V any
	}
	// Arr is a JSON array.
	Arr []any
	// Date is a JavaScript Date: JSON.stringify writes its ISO string and
	// superjson annotates its path with ["Date"].
	Date time.Time
)

// Set appends key k (it does not look for an existing one).
func (o Obj) Set(k string, v any) Obj { return append(o, KV{k, v}) }

// isoDate formats t like Date.prototype.toISOString.
func isoDate(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// jsonWriter writes values the way JavaScript's JSON.stringify does and
// collects the superjson meta paths of Date values.
type jsonWriter struct {
	buf   []byte
	path  []string
	dates []string // dot paths in traversal order
}

func (w *jsonWriter) value(v any) {
	switch x := v.(type) {
	case nil:
		w.buf = append(w.buf, "null"...)
	case bool:
		w.buf = strconv.AppendBool(w.buf, x)
	case int:
		w.buf = strconv.AppendInt(w.buf, int64(x), 10)
	case int64:
		w.buf = strconv.AppendInt(w.buf, x, 10)
	case float64:
		w.buf = appendJSNumber(w.buf, x)
	case string:
		w.buf = appendJSString(w.buf, x)
	case Date:
		w.dates = append(w.dates, strings.Join(w.path, "."))
		w.buf = appendJSString(w.buf, isoDate(time.Time(x)))
	case Obj:
		w.buf = append(w.buf, '{')
		for i, kv := range x {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = appendJSString(w.buf, kv.K)
			w.buf = append(w.buf, ':')
			w.path = append(w.path, kv.K)
			w.value(kv.V)
			w.path = w.path[:len(w.path)-1]
		}
		w.buf = append(w.buf, '}')
	case Arr:
		w.buf = append(w.buf, '[')
		for i, e := range x {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.path = append(w.path, strconv.Itoa(i))
			w.value(e)
			w.path = w.path[:len(w.path)-1]
		}
		w.buf = append(w.buf, ']')
	case rawJSON:
		w.buf = append(w.buf, x...)
	default:
		panic("sample: unsupported JSON value")
	}
}

// rawJSON is pre-rendered JSON text without Date values (used to embed an
// already-written part list into the history copy cheaply).
type rawJSON string

// JSON renders v as JSON.stringify would.
func JSON(v any) string {
	w := jsonWriter{}
	w.value(v)
	return string(w.buf)
}

// Superjson renders v as superjson.stringify does in the app:
// {"json":<JSON>,"meta":{"values":{"<path>":["Date"],...},"v":1}}, with
// the meta left out when there is nothing to annotate.
func Superjson(v any) string {
	var w jsonWriter
	return w.superjson(v)
}

// superjson is Superjson reusing w's buffers.
func (w *jsonWriter) superjson(v any) string {
	w.buf = append(w.buf[:0], `{"json":`...)
	w.path = w.path[:0]
	w.dates = w.dates[:0]
	w.value(v)
	if len(w.dates) > 0 {
		w.buf = append(w.buf, `,"meta":{"values":{`...)
		for i, p := range w.dates {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = appendJSString(w.buf, p)
			w.buf = append(w.buf, `:["Date"]`...)
		}
		w.buf = append(w.buf, `},"v":1}`...)
	}
	w.buf = append(w.buf, '}')
	return string(w.buf)
}

// appendJSString quotes s like JSON.stringify (history's writer: only
// '"', '\\' and control characters are escaped).
func appendJSString(b []byte, s string) []byte {
	out, _ := history.AppendJSON(b, history.StringValue(s))
	return out
}

// appendJSNumber formats f like JavaScript's Number.prototype.toString
// (null for the non-finite, as JSON.stringify).
func appendJSNumber(b []byte, f float64) []byte { return history.AppendNumber(b, f) }

// len16 is JavaScript's String.length.
func len16(s string) int { return history.Len16(s) }
