package history

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// dagText is a superjson value whose referentialEqualities share each
// level: level k is {"a": level k+1, "b": level k+1}, depth levels deep,
// over the leaf "leaf-text". Its JSON.stringify doubles per level.
func dagText(depth int) string {
	node := `"leaf-text"`
	for i := 0; i < depth; i++ {
		node = `{"a":` + node + `,"b":null}`
	}
	var eq []string
	for k := 0; k < depth; k++ {
		p := "input" + strings.Repeat(".a", k)
		eq = append(eq, fmt.Sprintf(`%q:[%q]`, p+".a", p+".b"))
	}
	return `{"json":{"input":` + node + `},"meta":{"referentialEqualities":{` + strings.Join(eq, ",") + `},"v":1}}`
}

// treeText is the same value written out in full: no sharing.
func treeText(depth int) string {
	node := `"leaf-text"`
	for i := 0; i < depth; i++ {
		node = `{"a":` + node + `,"b":` + node + `}`
	}
	return `{"json":{"input":` + node + `}}`
}

// dagLen is the closed form of len(JSON.stringify(level 0)): a level is
// {"a":X,"b":X}, 11 units around two copies of the level below.
func dagLen(depth int) int {
	n := len(`"leaf-text"`)
	for i := 0; i < depth; i++ {
		n = 11 + 2*n
	}
	return n
}

func TestSharedJSONMatchesTree(t *testing.T) {
	for depth := 1; depth <= 12; depth++ {
		for _, lazy := range []int{0, 2, 3} {
			dag, err := DecodeSuperJSONLazy(dagText(depth), lazy)
			if err != nil {
				t.Fatal(err)
			}
			tree, err := DecodeSuperJSON(treeText(depth))
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := JSONStringify(tree.Get("input"))
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := JSONStringify(dag.Get("input"))
			if err != nil || got != want {
				t.Fatalf("depth %d lazy %d: JSONStringify = %.80q, %v; want %.80q", depth, lazy, got, err, want)
			}
			n, err := JSONLen16(dag.Get("input"))
			if err != nil || n != len(want) || n != dagLen(depth) {
				t.Fatalf("depth %d lazy %d: JSONLen16 = %d, %v; want %d (closed form %d)", depth, lazy, n, err, len(want), dagLen(depth))
			}
			// The whole message: the shared container below a plain one.
			m, _ := JSONLen16(dag)
			w, _ := JSONLen16(tree)
			if m != w {
				t.Fatalf("depth %d: whole value %d, tree %d", depth, m, w)
			}
		}
	}
}

// The depth-40 value took about 29 hours before shared containers were
// memoized; its JSON would be over 2^40 units, past V8's string limit, so
// JSON.stringify throws.
func TestSharedDeepIsFast(t *testing.T) {
	done := make(chan struct{})
	var n24, n40 int
	var err24, err40, errBuild error
	go func() {
		defer close(done)
		v, err := DecodeSuperJSON(dagText(24))
		if err != nil {
			err24 = err
			return
		}
		n24, err24 = JSONLen16(v.Get("input"))
		v, err = DecodeSuperJSON(dagText(40))
		if err != nil {
			err40 = err
			return
		}
		n40, err40 = JSONLen16(v.Get("input"))
		_, _, errBuild = JSONStringify(v.Get("input"))
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a hang guard (hours without the memo), generous for loaded cores
		t.Fatal("depth 40 did not finish in 30 s (exponential walk)")
	}
	if err24 != nil || n24 != dagLen(24) || n24 > MaxStringLength {
		t.Fatalf("depth 24: %d, %v; want %d", n24, err24, dagLen(24))
	}
	if !errors.Is(err40, ErrStringLength) || n40 != 0 {
		t.Fatalf("depth 40: %d, %v; want ErrStringLength (%d > %d)", n40, err40, dagLen(40), MaxStringLength)
	}
	if !errors.Is(errBuild, ErrTooLarge) {
		t.Fatalf("depth 40 JSONStringify: %v, want ErrTooLarge", errBuild)
	}
}

// The length limit is V8's, exactly: depth 25 is just past it.
func TestSharedStringLengthLimit(t *testing.T) {
	if dagLen(24) > MaxStringLength || dagLen(25) <= MaxStringLength {
		t.Fatalf("closed form: %d, %d around %d", dagLen(24), dagLen(25), MaxStringLength)
	}
	v, _ := DecodeSuperJSON(dagText(25))
	if _, err := JSONLen16(v.Get("input")); !errors.Is(err, ErrStringLength) {
		t.Fatalf("depth 25: %v", err)
	}
}

// arrayDAG is [level1, null] with level k+1 shared as both elements of
// level k, depth levels down to "x": String() of it joins with commas.
func arrayDAG(depth int) string {
	node := `"x"`
	for i := 0; i < depth; i++ {
		node = `[` + node + `,null]`
	}
	var eq []string
	for k := 0; k < depth; k++ {
		p := "t" + strings.Repeat(".0", k)
		eq = append(eq, fmt.Sprintf(`%q:[%q]`, p+".0", p+".1"))
	}
	return `{"json":{"t":` + node + `},"meta":{"referentialEqualities":{` + strings.Join(eq, ",") + `}}}`
}

// arrayTree is arrayDAG written out in full.
func arrayTree(depth int) string {
	full := `"x"`
	for i := 0; i < depth; i++ {
		full = `[` + full + `,` + full + `]`
	}
	return `{"json":{"t":` + full + `}}`
}

func TestSharedToString(t *testing.T) {
	for depth := 1; depth <= 12; depth++ {
		dag, err := DecodeSuperJSON(arrayDAG(depth))
		if err != nil {
			t.Fatal(err)
		}
		tree, _ := DecodeSuperJSON(arrayTree(depth))
		want := ToString(tree.Get("t"))
		got, err := ToStringChecked(dag.Get("t"))
		if err != nil || got != want {
			t.Fatalf("depth %d: %.60q, %v; want %.60q", depth, got, err, want)
		}
	}
	// Past V8's string limit JavaScript throws too; past the cap but
	// within the limit compact gives up where JavaScript would not.
	for _, tc := range []struct {
		depth int
		want  error
	}{{40, ErrStringLength}, {28, ErrStringLength}, {26, ErrTooLarge}} {
		v, _ := DecodeSuperJSON(arrayDAG(tc.depth))
		start := time.Now()
		if _, err := ToStringChecked(v.Get("t")); !errors.Is(err, tc.want) {
			t.Fatalf("depth %d: %v, want %v", tc.depth, err, tc.want)
		}
		if s := ToString(v.Get("t")); s != "" {
			t.Fatalf("depth %d: ToString past the cap: %d bytes", tc.depth, len(s))
		}
		// A hang guard, not a speed target (the time is under a second;
		// without the cap it is hours): generous for loaded cores.
		if el := time.Since(start); el > 30*time.Second {
			t.Fatalf("depth %d String() took %v", tc.depth, el)
		}
	}
}

// strLen measures String() as strWriter builds it, shared arrays, cycles
// and all.
func TestSharedStringLen(t *testing.T) {
	texts := []string{
		`{"json":[[["y",null],null],null,null],"meta":{"referentialEqualities":[["0.0.1"],{"0":["1"],"0.0":["0.1"]}]}}`,
		`{"json":[[["é😀",null],null],null,[1,{"a":1}]],"meta":{"referentialEqualities":{"0":["1","2"],"0.0":["0.1"]}}}`,
	}
	for depth := 1; depth <= 12; depth++ {
		texts = append(texts, arrayDAG(depth))
	}
	for _, text := range texts {
		v, err := DecodeSuperJSON(text)
		if err != nil {
			t.Fatal(err)
		}
		want, err := toStringShared(v)
		if err != nil {
			t.Fatal(err)
		}
		l := strLen{memo: map[*Container]int{}}
		if n, _, err := l.value(v, nil); err != nil || n != Len16(want) {
			t.Fatalf("%.80s: strLen %d, %v; want %d", text, n, err, Len16(want))
		}
	}
}

// Shared arrays that reach back to an ancestor: String() cuts the cycle,
// and a shared array's text then depends on where it is met.
func TestSharedToStringCycles(t *testing.T) {
	// root = [s, s, root-ref]; s = [s2, s2]; s2 = ["y", root]
	text := `{"json":[[["y",null],null],null,null],"meta":{"referentialEqualities":[["0.0.1"],{"0":["1"],"0.0":["0.1"]}]}}`
	v, err := DecodeSuperJSON(text)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ToStringChecked(v)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: s2 = "y," (root cut), s = "y,,y,", root = s + "," + s + ",".
	if want := "y,,y,,y,,y,,"; got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	if _, err := JSONLen16(v); !errors.Is(err, ErrCircular) {
		t.Fatalf("JSONLen16 of a cycle: %v", err)
	}
	if _, _, err := JSONStringify(v); !errors.Is(err, ErrCircular) {
		t.Fatalf("JSONStringify of a cycle: %v", err)
	}
}
