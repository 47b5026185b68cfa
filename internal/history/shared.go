package history

import (
	"errors"
	"math"
)

// Shared references. superjson's referentialEqualities put one container
// in many places; nested, they make a DAG whose JSON.stringify (and
// String()) is exponentially longer than its superjson text: 40 levels of
// {"a": x, "b": x} over 4 KB of input. decodeSuperJSON marks every
// container it shares (containerExt.shared), and the renderings take the
// paths below only when they meet a marked container: lengths are
// memoized per container (linear time, exact), and text that must really
// be built reuses a shared container's text and stops at MaxSharedOutput.
// Values without shared references never come here.

// MaxStringLength is V8's String::kMaxLength on 64-bit platforms: a
// longer JSON.stringify or String() throws "RangeError: Invalid string
// length".
const MaxStringLength = 1<<29 - 24

// MaxSharedOutput caps, in bytes, the text built for a value with shared
// references: JSON.stringify and String() of one such value that would be
// longer fail with ErrTooLarge instead of taking the memory and the time.
// JavaScript's own limit (MaxStringLength UTF-16 units) is higher; the
// lengths (JSONLen16) keep to it exactly.
const MaxSharedOutput = 64 << 20

// ErrStringLength is what JavaScript throws for a string longer than
// MaxStringLength.
var ErrStringLength = errors.New("RangeError: Invalid string length")

// ErrTooLarge is the failure to build the text of a value with shared
// references past MaxSharedOutput bytes.
var ErrTooLarge = errors.New("RangeError: Invalid string length (a value with shared references expands past 64 MiB; not built)")

// markShared marks v's container as shared, materializing it first (a
// lazy container's decoding would drop the mark).
func markShared(v Value) {
	switch v.k {
	case Array, Object, Error:
	default:
		return // nothing that renders nested values
	}
	c := v.cc()
	if c.x == nil {
		c.x = &containerExt{}
	}
	c.x.shared = true
}

// satAdd is a+b, saturated just past MaxStringLength (a, b >= 0): past it
// the exact length no longer matters, and 2^depth must not overflow.
func satAdd(a, b int) int {
	if a > MaxStringLength || b > MaxStringLength || a+b > MaxStringLength {
		return MaxStringLength + 1
	}
	return a + b
}

// shared measures a shared container not on the stack, once. A measure
// that did not throw is the same wherever the container is met again: it
// reached no container on the stack (that would have been a cycle through
// this one), and JSON.stringify throws on any other cycle.
func (w *lenWriter) shared(v Value, stack []*Container) error {
	if w.memo == nil {
		w.memo = make(map[*Container]int)
	}
	c := v.c
	if n, ok := w.memo[c]; ok {
		w.n = satAdd(w.n, n)
		return nil
	}
	outer := w.n
	w.n = 0
	if err := w.container(v, stack); err != nil {
		return err
	}
	n := min(w.n, MaxStringLength+1)
	w.memo[c] = n
	w.n = satAdd(outer, n)
	return nil
}

// shared writes a shared container not on the stack: its text once, then
// copies of it (sound for the reason lenWriter.shared gives). Every
// container below it that is not shared is written once per container
// that is, so checking the cap here bounds the work.
func (w *jsonWriter) shared(v Value, stack []*Container) error {
	if w.memo == nil {
		w.memo = make(map[*Container][2]int)
	}
	c := v.c
	if r, ok := w.memo[c]; ok {
		if len(w.b)-w.base+r[1]-r[0] > MaxSharedOutput {
			return ErrTooLarge
		}
		w.b = append(w.b, w.b[r[0]:r[1]]...)
		return nil
	}
	start := len(w.b)
	if err := w.container(v, stack); err != nil {
		return err
	}
	if len(w.b)-w.base > MaxSharedOutput {
		return ErrTooLarge
	}
	w.memo[c] = [2]int{start, len(w.b)}
	return nil
}

// strWriter builds String(v) for a value with shared containers. String()
// of an array cuts a cycle (the array met again inside itself is ""), so
// an array's text depends on the stack above it when its elements reach
// back into that stack: a shared array's text is reused only when every
// cut inside it was at the array or below.
type strWriter struct {
	b      []byte
	memo   map[*Container][2]int
	visits int
}

const noCut = math.MaxInt

// toStringShared is ToStringChecked's path for values with shared
// containers.
func toStringShared(v Value) (string, error) { return toStringSharedFrom(v, nil) }

// toStringSharedFrom is toStringShared inside the join of the arrays on
// stack.
func toStringSharedFrom(v Value, stack []*Container) (string, error) {
	// Measured first: past V8's limit JavaScript throws too, and a text
	// of more units than the cap has more bytes, so neither is built.
	l := strLen{memo: make(map[*Container]int)}
	n, _, err := l.value(v, stack)
	switch {
	case err == ErrNoPrimitive:
		return "", err
	case err == nil && n > MaxStringLength:
		return "", ErrStringLength
	case err == nil && n > MaxSharedOutput:
		return "", ErrTooLarge
	}
	w := strWriter{memo: make(map[*Container][2]int)}
	if _, err := w.value(v, stack); err != nil {
		return "", err
	}
	return string(w.b), nil
}

// maxLenVisits bounds the containers strLen visits.
const maxLenVisits = 1 << 22

// strLen measures String(v) in UTF-16 units (saturated just past
// MaxStringLength) without building it, memoizing shared containers as
// strWriter does.
type strLen struct {
	memo   map[*Container]int
	visits int
}

// value returns the length of String(v) and the lowest stack index a
// cycle cut below it reached (noCut: none); ErrTooLarge when it gives up.
func (w *strLen) value(v Value, stack []*Container) (int, int, error) {
	switch v.k {
	case Array, TypedArray:
	case Error:
		s, err := errorString(v)
		if err != nil {
			return 0, noCut, err
		}
		return Len16(s), noCut, nil
	default:
		s, err := ToStringChecked(v) // no arrays here: no recursion
		if err != nil {
			return 0, noCut, err
		}
		return Len16(s), noCut, nil
	}
	for i, s := range stack {
		if s == v.c {
			return 0, i, nil
		}
	}
	c := v.cc()
	if w.visits++; w.visits > maxLenVisits {
		return 0, noCut, ErrTooLarge
	}
	shared := c.isShared()
	if shared {
		if n, ok := w.memo[c]; ok {
			return n, noCut, nil
		}
	}
	pos, n, low := len(stack), 0, noCut
	stack = append(stack, v.c)
	for i, e := range c.Vals {
		if i > 0 {
			n = satAdd(n, 1)
		}
		if e.k > Null {
			m, cut, err := w.value(e, stack)
			if err != nil {
				return 0, noCut, err
			}
			n = satAdd(n, m)
			low = min(low, cut)
		}
	}
	if shared && low >= pos {
		w.memo[c] = n
	}
	return n, low, nil
}

// value writes String(v) and returns the lowest stack index a cycle cut
// below it reached (noCut: none).
func (w *strWriter) value(v Value, stack []*Container) (int, error) {
	switch v.k {
	case Array, TypedArray:
	case Error:
		s, err := errorString(v)
		if err != nil {
			return noCut, err
		}
		w.b = append(w.b, s...)
		return noCut, w.check()
	default:
		s, err := ToStringChecked(v) // no arrays here: no recursion
		if err != nil {
			return noCut, err
		}
		w.b = append(w.b, s...)
		return noCut, w.check()
	}
	for i, s := range stack {
		if s == v.c {
			return i, nil
		}
	}
	c := v.cc()
	w.visits++
	if err := w.check(); err != nil {
		return noCut, err
	}
	shared := c.isShared()
	if shared {
		if r, ok := w.memo[c]; ok {
			if len(w.b)+r[1]-r[0] > MaxSharedOutput {
				return noCut, ErrTooLarge
			}
			w.b = append(w.b, w.b[r[0]:r[1]]...)
			return noCut, nil
		}
	}
	pos, start, low := len(stack), len(w.b), noCut
	stack = append(stack, v.c)
	for i, e := range c.Vals {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		if e.k > Null {
			cut, err := w.value(e, stack)
			if err != nil {
				return noCut, err
			}
			low = min(low, cut)
		}
	}
	if shared && low >= pos {
		w.memo[c] = [2]int{start, len(w.b)}
	}
	return low, w.check()
}

// check stops a build past the cap, in bytes or in containers visited (a
// chain of empty arrays under cycles writes nothing, many times).
func (w *strWriter) check() error {
	if len(w.b) > MaxSharedOutput || w.visits > MaxSharedOutput {
		return ErrTooLarge
	}
	return nil
}

// container writes an Array or an Object (or Error) not on the stack.
func (w *jsonWriter) container(v Value, stack []*Container) error {
	if v.k == Array {
		return w.array(v, stack)
	}
	return w.object(v, stack)
}

// container measures an Array or an Object (or Error) not on the stack.
func (w *lenWriter) container(v Value, stack []*Container) error {
	if v.k == Array {
		return w.array(v, stack)
	}
	return w.object(v, stack)
}
