package history

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// checkLazySame fails unless DecodeSuperJSONLazy(text, lazyAt) gives what
// the eager decoder gave (v, err): the same error text, or a deeply equal
// value.
func checkLazySame(t *testing.T, text string, lazyAt int, v Value, err error) {
	t.Helper()
	lv, lerr := DecodeSuperJSONLazy(text, lazyAt)
	if (err == nil) != (lerr == nil) || (err != nil && err.Error() != lerr.Error()) {
		t.Fatalf("lazyAt %d: error %v, eager %v\n%q", lazyAt, lerr, err, text)
	}
	if err == nil {
		if d := deepDiff(v, lv, map[[2]*Container]bool{}, rootPath); d != "" {
			t.Fatalf("lazyAt %d: %s\n%q", lazyAt, d, text)
		}
		// Again on a fresh lazy value, reading members with Get first,
		// scalars before containers, so that reads from the text of a
		// still lazy object are checked too.
		lv, _ = DecodeSuperJSONLazy(text, lazyAt)
		if d := getDiff(v, lv, map[*Container]bool{}, rootPath); d != "" {
			t.Fatalf("lazyAt %d (Get): %s\n%q", lazyAt, d, text)
		}
	}
}

// getDiff compares a and b member by member through Get and Index only.
func getDiff(a, b Value, seen map[*Container]bool, at *path) string {
	if a.k != b.k {
		return at.String() + ": kind " + b.k.String() + ", eager " + a.k.String()
	}
	if a.c == nil || seen[a.c] {
		return deepDiff(a, b, map[[2]*Container]bool{}, at)
	}
	seen[a.c] = true
	switch a.k {
	case Object:
		keys := append(a.Keys(), "nope", "__proto__", "length", "0")
		for pass := 0; pass < 2; pass++ {
			for _, k := range keys {
				am := a.Get(k)
				if (am.c != nil) != (pass == 1) {
					continue
				}
				if d := getDiff(am, b.Get(k), seen, at.in(k)); d != "" {
					return d
				}
			}
		}
	case Array:
		if a.Len() != b.Len() {
			return at.String() + ": length differs"
		}
		for i := 0; i < a.Len(); i++ {
			if d := getDiff(a.Index(i), b.Index(i), seen, at.in(NumberToString(float64(i)))); d != "" {
				return d
			}
		}
	}
	return ""
}

// path is where getDiff and deepDiff are in a value: "$" and the member
// names below it, joined with "." only for a message. (Joining at every
// level made the texts 10,000 containers deep quadratic: 400 MB of
// strings for each comparison.)
type path struct {
	up   *path
	name string
}

var rootPath = &path{name: "$"}

func (p *path) in(name string) *path { return &path{up: p, name: name} }

func (p *path) String() string {
	var names []string
	for q := p; q != nil; q = q.up {
		names = append(names, q.name)
	}
	slices.Reverse(names)
	return strings.Join(names, ".")
}

// deepDiff describes the first difference between a and b, "" when they
// are the same value (same kinds, payloads, keys and members; cycles are
// followed once).
func deepDiff(a, b Value, seen map[[2]*Container]bool, at *path) string {
	if a.k != b.k {
		return at.String() + ": kind " + b.k.String() + ", eager " + a.k.String()
	}
	if math.Float64bits(a.n) != math.Float64bits(b.n) && !(math.IsNaN(a.n) && math.IsNaN(b.n)) {
		return at.String() + ": number differs"
	}
	if a.s != b.s {
		return at.String() + ": text differs"
	}
	if (a.c == nil) != (b.c == nil) {
		return at.String() + ": container differs"
	}
	if a.c == nil {
		return ""
	}
	pair := [2]*Container{a.c, b.c}
	if seen[pair] {
		return ""
	}
	seen[pair] = true
	ac, bc := a.cc(), b.cc()
	if strings.Join(ac.Keys, "\x00") != strings.Join(bc.Keys, "\x00") || len(ac.Keys) != len(bc.Keys) {
		return at.String() + ": keys differ"
	}
	if len(ac.Vals) != len(bc.Vals) || len(ac.mapKeys()) != len(bc.mapKeys()) {
		return at.String() + ": member counts differ"
	}
	for i := range ac.Vals {
		if d := deepDiff(ac.Vals[i], bc.Vals[i], seen, at.in(memberName(ac, i))); d != "" {
			return d
		}
	}
	for i := range ac.mapKeys() {
		if d := deepDiff(ac.mapKeys()[i], bc.mapKeys()[i], seen, at.in("<key>")); d != "" {
			return d
		}
	}
	return ""
}

func memberName(c *Container, i int) string {
	if i < len(c.Keys) {
		return c.Keys[i]
	}
	return NumberToString(float64(i))
}

// TestLazySameAsEager decodes texts with containers at every depth, with
// the cases where laziness could show (annotations reaching into a lazy
// container, shared references, duplicate and index keys, invalid text
// inside a container that would stay lazy), eagerly and at each lazy depth.
// lazyTexts are superjson payloads for the lazy decoder: nesting that
// crosses the lazy depths, annotations that reach into lazy containers,
// repeated and index keys, escapes, invalid text and UTF-8.
var lazyTexts = []string{
	`{"json":[{"type":"tool-read","input":{"path":"a.ts","opts":{"deep":[1,2,{"x":"y"}]}},"output":{"content":"line\nline","n":[1,{"k":null}]}}]}`,
	`{"json":{"createdAt":"2026-01-05T08:39:00.000Z","partsMetadata":[{"startedAt":"2026-01-05T08:39:00.031Z"},{"startedAt":"x"}]},"meta":{"values":{"createdAt":["Date"],"partsMetadata.0.startedAt":["Date"],"partsMetadata.1.startedAt":["Date"]}}}`,
	`{"json":[{"a":{"b":{"c":{"d":"1"}}}}],"meta":{"values":{"0.a.b.c.d":["bigint"],"0.a.b.c":["map"]}}}`,
	`{"json":[{"a":{"b":[["k",{"v":1}]]}}],"meta":{"values":{"0.a.b":["map"]}}}`,
	`{"json":[{"a":{"b":{"c":1}},"z":{"b":{"c":1}}}],"meta":{"referentialEqualities":{"0.a":["0.z"]}}}`,
	`{"json":[{"o":{"2":"two","b":"x","1":"one","b":"y"}}]}`,
	`{"json":[{"o":{"s":"\ud800 lone","u":"\u00e9\n\"q\""}}]}`,
	"{\"json\":[{\"o\":{\"bad\":\"\xff\xfe utf8\"}}]}",
	`{"json":[{"o":{"n":[-0,1e400,0.5e-3,12345678901234567890]}}]}`,
	`{"json":[{"o":{"k":1,"k":"two","\u006b":true,"é":"e","\u00e9":null,"a\"b":"q","big":{"x":1},"s":"\ud83d\ude00\n"}}]}`,
	"{\"json\":[{\"o\":{\"k\xff\":1,\"v\":\"\xc3(\"}}]}",
	`{"json":[{"o":{ "a" : 1 , "b" :[ 1 ] , "c" : "x" }}]}`,
	`{"json":[{"o":{"a":[[[[[[]]]]]],"b":{}}}],"meta":{"values":{"0.o.c":["undefined"]}}}`,
	// Deferred annotations (Date, undefined) into lazy containers,
	// then something that reads or transforms them.
	`{"json":{"a":{"b":[{"t":"2026-01-05T08:39:00.000Z"},{"t":"x"}]}},"meta":{"values":{"a.b.0.t":["Date"],"a.b.1.t":["Date"],"a.b.1.u":["undefined"],"a.b":["set"]}}}`,
	`{"json":{"a":{"b":{"c":{"d":"2026-01-05T08:39:00.000Z"}}}},"meta":{"values":{"a.b.c.d":["Date"],"a.b.c":["Date"]}}}`,
	`{"json":{"a":{"b":[[5]]}},"meta":{"values":{"a.b.0.0":["number"],"a.b.0":["Date"]}}}`,
	`{"json":{"a":{"b":{"c":"2026-01-05T08:39:00.000Z"},"z":{"c":"2026-01-05T08:39:00.000Z"}}},"meta":{"values":{"a.b.c":["Date"],"a.z.c":["Date"]},"referentialEqualities":{"a.b":["a.z"]}}}`,
	`{"json":{"a":{"b":["x","y"]}},"meta":{"values":{"a.b.x":["Date"],"a.b.5":["undefined"],"a.b.01":["Date"]}}}`,
	`{"json":{"a":{"b":{"c.d":"2026-01-05T08:39:00.000Z","c":{"d":"1"}}}},"meta":{"values":{"a.b.c\.d":["Date"],"a.b.c.d":["bigint"]},"v":1}}`,
	`{"json":{"a":{"b":{"c.d":"2026-01-05T08:39:00.000Z"}}},"meta":{"values":{"a.b.c\.d":["Date"]}}}`,
	`{"json":{"a":{"b":{"1":"2026-01-05T08:39:00.000Z","0":"x"}}},"meta":{"values":{"a.b.1":["Date"],"a.b.2":["undefined"],"a.b.0":["undefined"]}}}`,
	`{"json":{"a":{"b":{"c":1}}},"meta":{"values":{"a":{"b":{"c":["Date"]}}}}}`,
	`{"json":{"a":{"b":{"c":1}}},"meta":{"values":{"a":["map",{"b.c":["Date"]}]}}}`,
	// meta.values trees that wait whole for the json value, and
	// ones that must not (escapes, forbidden keys, other types,
	// equalities, a root annotation, odd spacing).
	`{"json":{"createdAt":"2026-01-05T08:39:00.000Z","compressedHistory":"brief","p":[{"s":"2026-01-05T08:39:00.031Z"}],"gone":1},"meta":{"values":{"createdAt":["Date"],"p.0.s":["Date"],"gone":["undefined"],"new":["undefined"]},"v":1}}`,
	`{"json":{"a":"2026-01-05T08:39:00.000Z","b":"x"},"meta":{"values":{ "a" : ["Date"] , "b.c" : [ "Date" ] }}}`,
	`{"json":{"a":{"b":"2026-01-05T08:39:00.000Z"},"a.b":"x"},"meta":{"values":{"a\\.b":["Date"],"a.b":["Date"]},"v":1}}`,
	`{"json":{"a":{"b":"2026-01-05T08:39:00.000Z"}},"meta":{"values":{"a.__proto__":["Date"]}}}`,
	`{"json":{"a":{"b":"1"}},"meta":{"values":{"a.b":["bigint"]}}}`,
	`{"json":{"a":{"b":"x"}},"meta":{"values":{"a.b":["Date"],"a.c":["nope"]}}}`,
	`{"json":{"a":{"b":"2026-01-05T08:39:00.000Z"},"z":{"b":"2026-01-05T08:39:00.000Z"}},"meta":{"values":{"a.b":["Date"],"z.b":["Date"]},"referentialEqualities":{"a":["z"]}}}`,
	`{"json":{"a":1,"":"2026-01-05T08:39:00.000Z"},"meta":{"values":{"":["Date"]}}}`,
	`{"json":["2026-01-05T08:39:00.000Z"],"meta":{"values":{"":["Date"],"0":["Date"]}}}`,
	`{"json":{"2":"x","1":"2026-01-05T08:39:00.000Z"},"meta":{"values":{"2":["undefined"],"1":["Date"],"1.x":["Date"]}}}`,
	`{"json":{"a":"2026-01-05T08:39:00.000Z"},"meta":{"values":{"a":["Date"],"a":["undefined"]}}}`,
	`{"json":{"a":"2026-01-05T08:39:00.000Z"},"meta":{"values":["Date"]}}`,
	"{\"json\":{\"a\xff\":\"2026-01-05T08:39:00.000Z\"},\"meta\":{\"values\":{\"a\xff\":[\"Date\"]}}}",
	// More first segments than scanSimpleValues keeps on its stack; the
	// json members in the other order, so the last segment is read first.
	`{"json":{"k":"2026-01-05T08:39:00.000Z","j":"2026-01-05T08:39:09.000Z","i":"2026-01-05T08:39:08.000Z","h":"2026-01-05T08:39:07.000Z","g":"2026-01-05T08:39:06.000Z","f":"2026-01-05T08:39:05.000Z","e":"2026-01-05T08:39:04.000Z","d":"2026-01-05T08:39:03.000Z","c":"2026-01-05T08:39:02.000Z","b":"2026-01-05T08:39:01.000Z","a":"2026-01-05T08:39:00.000Z"},"meta":{"values":{"a":["Date"],"b":["Date"],"c":["Date"],"d":["Date"],"e":["Date"],"f":["Date"],"g":["Date"],"h":["Date"],"i":["Date"],"j":["Date"],"k":["Date"],"c.x":["undefined"]},"v":1}}`,
	// Invalid inside what would be lazy: the error must be the eager one.
	`{"json":[{"o":{"a":[1,2,]}}]}`,
	`{"json":[{"o":{"a":"\x"}}]}`,
	"{\"json\":[{\"o\":{\"a\":\"tab\there\"}}]}",
	`{"json":[{"o":{"a":01}}]}`,
	`{"json":[{"o":{"a":tru}}]}`,
	`{"json":[{"o":{"a":"\u12G4"}}]}`,
	`{"json":[{"o":{"a":1}}]} x`,
	`{"json":[{"o":{"a":1}`,
	`{"json":[{"o":{"a":1}}],"meta":{"values":{"0.o.a":["nope"]}}}`,
	`{"json":[{"o":{"__proto__":{"a":1}}}],"meta":{"values":{"0.o.__proto__.a":["number"]}}}`,
	`{"json":[{"o":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}]}`,
	`{"json":[{"o":` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + `}]}`,
}

func TestLazySameAsEager(t *testing.T) {
	for _, text := range lazyTexts {
		v, err := DecodeSuperJSON(text)
		pv, perr := ParseJSON(text)
		for lazyAt := 1; lazyAt <= 6; lazyAt++ {
			checkLazySame(t, text, lazyAt, v, err)
			// Plain JSON too: the same value, or the same error.
			lv, lerr := ParseJSONLazy(text, lazyAt)
			if (perr == nil) != (lerr == nil) || (perr != nil && perr.Error() != lerr.Error()) {
				t.Fatalf("ParseJSONLazy(%d): error %v, eager %v\n%q", lazyAt, lerr, perr, text)
			}
			if perr == nil {
				if d := deepDiff(pv, lv, map[[2]*Container]bool{}, rootPath); d != "" {
					t.Fatalf("ParseJSONLazy(%d): %s\n%q", lazyAt, d, text)
				}
			}
		}
	}
}

// TestLazyDecodesOnFirstUse shows the point of it: an untouched container
// stays text; reading a string member reads the text; anything else decodes
// exactly the container read.
func TestLazyDecodesOnFirstUse(t *testing.T) {
	v, err := DecodeSuperJSONLazy(`{"json":[{"type":"tool-x","input":{"path":"p"},"output":{"big":{"x":1}}}]}`, 4)
	if err != nil {
		t.Fatal(err)
	}
	part := v.Index(0)
	if part.c.lz.Load() != nil {
		t.Fatal("a part (depth 3) should be decoded at once")
	}
	in, out := part.Get("input"), part.Get("output")
	if in.c.lz.Load() == nil || out.c.lz.Load() == nil {
		t.Fatal("input and output (depth 4) should start lazy")
	}
	if got := ToString(in.Get("path")); got != "p" {
		t.Fatalf("input.path = %q", got)
	}
	if in.c.lz.Load() == nil {
		t.Fatal("reading a string member (input.path) is done from the text: input should stay lazy")
	}
	if in.Len() != 1 || in.c.lz.Load() != nil {
		t.Fatal("counting input's keys should decode input")
	}
	if out.c.lz.Load() == nil {
		t.Fatal("output was never read and should still be lazy")
	}
	if big := out.Get("big"); out.c.lz.Load() != nil || big.c.lz.Load() == nil {
		t.Fatal("reading an object member decodes the object, and the member starts lazy")
	}
}

// TestLazyConcurrentFirstUse: many goroutines reading the same lazy value
// for the first time (run with -race).
func TestLazyConcurrentFirstUse(t *testing.T) {
	v, err := DecodeSuperJSONLazy(`{"json":[{"o":{"a":[1,2,3],"b":"x"}}]}`, 3)
	if err != nil {
		t.Fatal(err)
	}
	o := v.Index(0).Get("o")
	done := make(chan string)
	for range 8 {
		go func() {
			s, _, _ := JSONStringify(o)
			done <- s
		}()
	}
	for range 8 {
		if s := <-done; s != `{"a":[1,2,3],"b":"x"}` {
			t.Fatalf("got %s", s)
		}
	}
}

// TestISODateArithmetic checks the calendar arithmetic of the ISO fast
// path against the time package, over every month of years 0 to 9999
// (leap years and the 24:00 rule included).
func TestISODateArithmetic(t *testing.T) {
	for y := 0; y <= 9999; y += 7 {
		for m := 1; m <= 12; m++ {
			last := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
			if got := daysIn(y, m); got != last {
				t.Fatalf("daysIn(%d, %d) = %d, want %d", y, m, got, last)
			}
			for _, d := range []int{1, 15, last} {
				s := fmt.Sprintf("%04d-%02d-%02dT13:07:59.123Z", y, m, d)
				want := float64(time.Date(y, time.Month(m), d, 13, 7, 59, 123e6, time.UTC).UnixMilli())
				if got, ok := parseISOFast(s); !ok || got != want {
					t.Fatalf("parseISOFast(%s) = %v, %v; want %v", s, got, ok, want)
				}
			}
		}
	}
	if got, ok := parseISOFast("2024-02-29T24:00:00.000Z"); !ok || got != float64(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()) {
		t.Fatalf("24:00 = %v, %v", got, ok)
	}
	for _, bad := range []string{"2023-02-29T00:00:00.000Z", "2024-13-01T00:00:00.000Z", "2024-01-01T24:00:00.001Z", "2024-01-00T00:00:00.000Z"} {
		if _, ok := parseISOFast(bad); ok {
			t.Fatalf("parseISOFast(%s) accepted", bad)
		}
	}
}

// rowIn decodes a row column by column in ar, as extract does: the parts
// first, then the metadata.
func rowIn(ar *Arena, id, parts, meta string) (Value, error) {
	p, err := RowPartsIn(ar, parts, false)
	if err != nil {
		return Value{}, err
	}
	m, err := RowMetadataIn(ar, meta, false)
	if err != nil {
		return Value{}, err
	}
	return RowMessageIn(ar, id, "user", p, m), nil
}

// TestArenaRows decodes every text as a row's parts and as its metadata,
// all in one arena, and only then compares each message with the eager
// decoding: the messages share chunks but none writes over another, not
// even when some are changed afterwards.
func TestArenaRows(t *testing.T) {
	ar := NewArena()
	type row struct {
		id, parts, meta string
		got             Value
		err             error
	}
	var rows []row
	for i, text := range lazyTexts {
		for _, r := range []row{{parts: text, meta: `{"json":{"i":1}}`}, {parts: `{"json":[]}`, meta: text}} {
			r.id = fmt.Sprint(i)
			r.got, r.err = rowIn(ar, r.id, r.parts, r.meta)
			rows = append(rows, r)
		}
	}
	check := func(when string, every int) {
		t.Helper()
		for i := 0; i < len(rows); i += every {
			r := rows[i]
			want, err := MessageFromRow(r.id, "user", r.parts, r.meta, false)
			if (err == nil) != (r.err == nil) || (err != nil && err.Error() != r.err.Error()) {
				t.Fatalf("%s: row %d: error %v, eager %v", when, i, r.err, err)
			}
			if err != nil {
				continue
			}
			if d := deepDiff(want, r.got, map[[2]*Container]bool{}, rootPath); d != "" {
				t.Fatalf("%s: row %d: %s", when, i, d)
			}
		}
	}
	check("decoded", 1)
	// Change the odd rows' messages and metadata (an index key goes
	// first, so Set shifts the keys); the even rows must not move.
	for i := 1; i < len(rows); i += 2 {
		if rows[i].err != nil {
			continue
		}
		rows[i].got.Set("extra", StringValue("x"))
		rows[i].got.Set("0", NumberValue(1))
		if m := rows[i].got.Get("metadata"); m.Kind() == Object {
			m.Set("0", NullValue())
		}
		if got := rows[i].got.Keys(); len(got) != 6 || got[0] != "0" || got[5] != "extra" {
			t.Fatalf("row %d keys %q", i, got)
		}
	}
	check("after changes", 2)
}

// TestArenaReset: an arena used again decodes the same values as a new one
// and does not grow; what was decoded before reads as cleared. In an
// owned arena, the lazy containers' members are decoded into the arena
// too: cleared by Reset with the rest, and allocating next to nothing
// once the arena has grown.
func TestArenaReset(t *testing.T) {
	allocs := map[bool]float64{}
	for _, owned := range []bool{false, true} {
		t.Run(fmt.Sprintf("owned=%v", owned), func(t *testing.T) {
			ar := NewArena()
			if owned {
				ar = NewOwnedArena()
			}
			decodeAll := func() []Value {
				var out []Value
				for i, text := range lazyTexts {
					for _, r := range [][2]string{{text, `{"json":{"i":1}}`}, {`{"json":[]}`, text}} {
						v, err := rowIn(ar, fmt.Sprint(i), r[0], r[1])
						if err == nil {
							out = append(out, v)
						}
					}
				}
				return out
			}
			// compare reads every value to the bottom, so decoding every
			// lazy container.
			compare := func(round int, got []Value) {
				t.Helper()
				fresh := NewArena()
				k := 0
				for i, text := range lazyTexts {
					for _, r := range [][2]string{{text, `{"json":{"i":1}}`}, {`{"json":[]}`, text}} {
						want, err := rowIn(fresh, fmt.Sprint(i), r[0], r[1])
						if err != nil {
							continue
						}
						if k >= len(got) {
							t.Fatalf("round %d: %d values, want more", round, len(got))
						}
						if d := deepDiff(want, got[k], map[[2]*Container]bool{}, rootPath); d != "" {
							t.Fatalf("round %d, value %d: %s", round, k, d)
						}
						k++
					}
				}
				if k != len(got) {
					t.Fatalf("round %d: %d values, want %d", round, len(got), k)
				}
			}
			first := decodeAll()
			// A member of a lazy container, decoded when read.
			inner := first[0].Get("parts").Index(0).Get("input").Get("opts")
			if inner.Kind() != Object || inner.Get("deep").Len() != 3 {
				t.Fatalf("parts[0].input.opts = %v", inner)
			}
			compare(0, first)
			old := first[0]
			ar.Reset()
			if old.Get("id").Kind() != Undefined {
				t.Errorf("a value decoded before Reset still reads %v", old.Get("id"))
			}
			if cleared := inner.Get("deep").Kind() == Undefined; cleared != owned {
				t.Errorf("after Reset, a lazy container's member reads %v", inner.Get("deep"))
			}
			size := 0
			for round := 1; round <= 3; round++ {
				compare(round, decodeAll())
				if round == 1 {
					size = ar.Size() // the first use may have read in another order
				} else if ar.Size() != size {
					t.Errorf("round %d: the arena went from %d to %d bytes", round, size, ar.Size())
				}
				ar.Reset()
			}
			// Decoding and reading everything, once the arena has grown.
			var walk func(v Value)
			walk = func(v Value) {
				for _, e := range v.Elems() {
					walk(e)
				}
				for _, k := range v.Keys() {
					walk(v.Get(k))
				}
			}
			allocs[owned] = testing.AllocsPerRun(5, func() {
				for _, v := range decodeAll() {
					walk(v)
				}
				ar.Reset()
			})
		})
	}
	// What is left: the ids, errors, dates, maps, annotations waiting.
	if allocs[true] > allocs[false]*2/3 {
		t.Errorf("decoding and reading every text allocates %.0f times in an owned arena, %.0f in another", allocs[true], allocs[false])
	}
}

// TestScanSimpleValues: the first segments of a meta.values tree, grouped
// or not, a path beginning like another (ab after a) included; and the
// trees that are not simple.
func TestScanSimpleValues(t *testing.T) {
	pad := strings.Repeat(" ", 40) // texts long enough for the AVX2 scan too
	for _, tt := range []struct {
		tree  string
		first []string // nil: not simple
	}{
		{`{"a.0":["Date"],"a.1":["Date"],"b":["undefined"],"a.2":["Date"],"ab.0":["Date"],"a":["Date"],"ab":["undefined"]}`, []string{"a", "b", "ab"}},
		{`{"createdAt":["Date"],"partsMetadata.0.startedAt":["Date"],"partsMetadata.0.endedAt":["Date"],"partsMetadata.1.startedAt":["Date"]}`, []string{"createdAt", "partsMetadata"}},
		{`{}`, []string{}},
		{`{"x.é":["Date"]}`, nil},
		{`{"x\n":["Date"]}`, nil},
		{`{"a.__proto__":["Date"]}`, nil},
		{`{"a":["map"]}`, nil},
		{`{"a":["Date"],}`, nil},
	} {
		for _, text := range []string{tt.tree, tt.tree + pad} {
			var a slab
			a.reset(len(text))
			end, first, ok := scanSimpleValues(text, 0, &a)
			if ok != (tt.first != nil) {
				t.Errorf("%s: ok %v", tt.tree, ok)
				continue
			}
			if !ok {
				continue
			}
			if end != len(tt.tree) || !slices.Equal(first, tt.first) && !(len(first) == 0 && len(tt.first) == 0) {
				t.Errorf("%s: end %d first %q, want %d %q", tt.tree, end, first, len(tt.tree), tt.first)
			}
		}
	}
}
