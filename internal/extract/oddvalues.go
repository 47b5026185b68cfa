package extract

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/compactlab/compact/internal/history"
)

// appendTypedArrayBytes appends the bytes of a typed array's buffer, as
// Node's fs.writeFileSync writes a typed array given as the data: its
// elements in the machine's byte order (little-endian on every platform
// Node runs the script on), each as wide as the array type's elements. A
// NaN in a float array is the one V8 writes (the canonical quiet NaN).
// The elements are those superjson's `new Ctor(values)` made, so each
// already fits its type.
func appendTypedArrayBytes(b []byte, v history.Value) []byte {
	elems := v.Elems()
	switch v.Str() {
	case "Int8Array", "Uint8Array", "Uint8ClampedArray":
		for _, e := range elems {
			b = append(b, byte(int64(e.Num())))
		}
	case "Int16Array", "Uint16Array":
		for _, e := range elems {
			b = binary.LittleEndian.AppendUint16(b, uint16(int64(e.Num())))
		}
	case "Int32Array", "Uint32Array":
		for _, e := range elems {
			b = binary.LittleEndian.AppendUint32(b, uint32(int64(e.Num())))
		}
	case "Float32Array":
		for _, e := range elems {
			bits := math.Float32bits(float32(e.Num()))
			if math.IsNaN(e.Num()) {
				bits = 0x7fc00000
			}
			b = binary.LittleEndian.AppendUint32(b, bits)
		}
	case "Float64Array":
		for _, e := range elems {
			bits := math.Float64bits(e.Num())
			if math.IsNaN(e.Num()) {
				bits = 0x7ff8000000000000
			}
			b = binary.LittleEndian.AppendUint64(b, bits)
		}
	}
	return b
}

// summaryLength is summary.length as the upstream reads it for
// previousCompressionSize: a string's UTF-16 length, a typed array's
// element count, 0 for anything else (the upstream has crashed on those
// before it gets here).
func summaryLength(summary history.Value) int {
	switch summary.Kind() {
	case history.String:
		return history.Len16(summary.Str())
	case history.TypedArray:
		return summary.Len()
	}
	return 0
}

// arrayLikeCrash says how the upstream script crashes on a history that
// decodes to v, a value that is not an array, or "" when it passes v over
// (as it does every non-array but an object with a numeric "length" at
// least minMessages): it reads messages[i].metadata for every i below
// that length, which throws on a missing or null entry, and when an entry
// holds a compression point it calls messages.slice, which an object
// lacks.
func arrayLikeCrash(v history.Value, minMessages int) string {
	if v.Kind() != history.Object {
		return ""
	}
	l := v.Get("length")
	if l.Kind() != history.Number || !(l.Num() >= float64(minMessages)) || !(l.Num() > 0) {
		return ""
	}
	// The loop ends at the first missing index at the latest.
	for i := 0; float64(i) < l.Num(); i++ {
		m := v.Get(strconv.Itoa(i))
		if m.IsNullish() {
			return fmt.Sprintf("TypeError: Cannot read properties of %s (reading 'metadata')", m.Kind())
		}
		if !history.CompressedHistory(m).IsUndefined() {
			return "TypeError: messages.slice is not a function"
		}
	}
	return ""
}
