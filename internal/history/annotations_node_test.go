package history

import "testing"

// TestAnnotationOnAMissingValue: which annotations superjson 2.2.6 (under
// Node 20) applies to a value that is missing, null or of the wrong type,
// and which ones throw (the upstream then skips the whole chat). The
// expected outcomes were printed by superjson.parse under Node 20.20.2
// (scripts/upstream-diff: seed 1002 of the differential run found the
// Error case).
func TestAnnotationOnAMissingValue(t *testing.T) {
	values := []string{`{}`, `{"y":null}`, `{"y":5}`, `{"y":"s"}`, `{"y":[1]}`}
	for _, tc := range []struct {
		ann   string
		fails [5]bool // per value above
	}{
		{`"Error"`, [5]bool{true, true, false, false, false}},
		{`"regexp"`, [5]bool{true, true, true, false, true}},
		{`"set"`, [5]bool{false, false, true, false, false}},
		{`"map"`, [5]bool{false, false, true, true, true}},
		{`"number"`, [5]bool{}},
		{`"Date"`, [5]bool{}},
		{`"undefined"`, [5]bool{}},
		{`["typed-array","Uint8Array"]`, [5]bool{}},
		{`["class","X"]`, [5]bool{true, true, true, true, true}},
		{`"URL"`, [5]bool{true, true, true, true, true}},
	} {
		for i, v := range values {
			s := `{"json":[{"a":` + v + `}],"meta":{"values":{"0.a.y":[` + tc.ann + `]},"v":1}}`
			_, err := DecodeSuperJSON(s)
			if (err != nil) != tc.fails[i] {
				t.Errorf("%s on %s: error %v, superjson fails: %v", tc.ann, v, err, tc.fails[i])
			}
			_, ok, lerr := DecodeMessagesLazy(s)
			if (lerr != nil || !ok) != tc.fails[i] {
				t.Errorf("lazy: %s on %s: ok %v error %v, superjson fails: %v", tc.ann, v, ok, lerr, tc.fails[i])
			}
		}
	}
}
