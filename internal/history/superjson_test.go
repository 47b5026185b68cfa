package history

import (
	"bufio"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// The golden renderings of Date.prototype.toString were made with TZ=UTC.
	time.Local = time.UTC
	os.Exit(m.Run())
}

// TestSuperJSONMatchesNode checks decoding and both renderings against the
// real superjson 2.2.6 under Node 20 (testdata/superjson-golden.jsonl, made
// by scripts/superjson-golden/gen.mjs).
//
// It runs once eagerly and once per depth of lazy decoding: a lazy value
// must decode, render and fail exactly as the eager one.
func TestSuperJSONMatchesNode(t *testing.T) {
	f, err := os.Open("testdata/superjson-golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) < 300 {
		t.Fatalf("only %d golden lines", len(lines))
	}
	for _, lazyAt := range []int{0, 1, 2, 3, 4} {
		t.Run(fmt.Sprintf("lazyAt=%d", lazyAt), func(t *testing.T) { checkGolden(t, lines, lazyAt) })
	}
}

func checkGolden(t *testing.T, lines []string, lazyAt int) {
	for i, line := range lines {
		n := i + 1
		// Read the golden line with our own parser, so lone surrogates
		// survive exactly.
		g, err := ParseJSON(line)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		text := g.Get("text").Str()
		v, err := DecodeSuperJSONLazy(text, lazyAt)
		if ok := g.Get("ok").Bool(); ok != (err == nil) {
			t.Errorf("line %d %s: decode error %v, want ok=%v (%s)", n, text, err, ok, ToString(g.Get("error")))
			continue
		}
		if err != nil {
			continue
		}
		if g.Get("stringifyThrows").Truthy() {
			if _, _, err := JSONStringify(v); err == nil {
				t.Errorf("line %d %s: JSON.stringify should throw", n, text)
			}
		} else {
			want := g.Get("stringify")
			got, ok, err := JSONStringify(v)
			switch {
			case err != nil:
				t.Errorf("line %d %s: stringify: %v", n, text, err)
			case want.Kind() == Null && ok:
				t.Errorf("line %d %s: stringify = %s, want undefined", n, text, got)
			case want.Kind() == String && got != want.Str():
				t.Errorf("line %d %s:\nstringify  %s\nwant       %s", n, text, got, want.Str())
			}
			if want.Kind() == String {
				if l, _ := JSONLen16(v); l != Len16(want.Str()) {
					t.Errorf("line %d %s: JSONLen16 = %d, want %d", n, text, l, Len16(want.Str()))
				}
			}
		}
		if s := g.Get("string"); s.Kind() == String && ToString(v) != s.Str() {
			t.Errorf("line %d %s:\nString  %q\nwant    %q", n, text, ToString(v), s.Str())
		}
		if members := g.Get("members"); members.Kind() == Array {
			var vals []Value
			if v.Kind() == Array {
				vals = v.Elems()
			} else {
				for _, k := range v.Keys() {
					vals = append(vals, v.Get(k))
				}
			}
			if len(vals) != members.Len() {
				t.Errorf("line %d %s: %d members, want %d", n, text, len(vals), members.Len())
				continue
			}
			for i, m := range members.Elems() {
				if m.Kind() == String && ToString(vals[i]) != m.Str() {
					t.Errorf("line %d %s: member %d String %q, want %q", n, text, i, ToString(vals[i]), m.Str())
				}
				if l := g.Get("lengths").Index(i); l.Kind() == Number && Len16(vals[i].Str()) != int(l.Num()) {
					t.Errorf("line %d %s: member %d length %d, want %v", n, text, i, Len16(vals[i].Str()), l.Num())
				}
			}
		}
	}
}
