package jsyaml

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/compactlab/compact/internal/history"
)

// canon is a value as canonical JSON, the same shape testdata/js-yaml.mjs
// prints for JavaScript's: null, booleans and strings as themselves,
// strings with a lone surrogate as {"lone": UTF-16 units}, numbers
// as {"n": String(n)}, dates as {"date": time value}, buffers as
// {"bin": bytes}, arrays as arrays, objects as {"o": [[key, value]...]}
// sorted by key; anything deeper than 20 levels (an alias cycle) "…".
func canon(v *Value, depth int) any {
	if depth > 20 {
		return "…"
	}
	if v == nil {
		return nil
	}
	switch v.Kind {
	case Bool:
		return v.Bool
	case Number:
		return map[string]any{"n": history.NumberToString(v.Num)}
	case String:
		if hasLone(v.str) {
			u := make([]int, len(v.str))
			for i, c := range v.str {
				u[i] = int(c)
			}
			return map[string]any{"lone": u}
		}
		return v.String()
	case Date:
		if math.IsNaN(v.Num) {
			return map[string]any{"date": "NaN"}
		}
		return map[string]any{"date": v.Num}
	case Binary:
		b := make([]int, len(v.Bytes))
		for i, c := range v.Bytes {
			b[i] = int(c)
		}
		return map[string]any{"bin": b}
	case Seq:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			out[i] = canon(e, depth+1)
		}
		return out
	}
	keys := append([]string(nil), v.obj.keys...)
	sort.Strings(keys)
	pairs := make([]any, len(keys))
	for i, k := range keys {
		pairs[i] = []any{k, canon(v.obj.vals[k], depth+1)}
	}
	return map[string]any{"o": pairs}
}

func hasLone(u []uint16) bool {
	for i, c := range u {
		if c >= 0xD800 && c <= 0xDBFF && (i+1 >= len(u) || u[i+1] < 0xDC00 || u[i+1] > 0xDFFF) {
			return true
		}
		if c >= 0xDC00 && c <= 0xDFFF && (i == 0 || u[i-1] < 0xD800 || u[i-1] > 0xDBFF) {
			return true
		}
	}
	return false
}

// result is what one input gives: {"error": true} or {"value": canon}.
func result(input string) string {
	v, err := SafeLoad(input)
	var out any
	if err != nil {
		out = map[string]any{"error": true}
	} else {
		out = map[string]any{"value": canon(v, 0)}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func fmtSscan(s string, n *int) (int, error) { return fmt.Sscan(s, n) }
