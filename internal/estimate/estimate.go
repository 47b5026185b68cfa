// Package estimate owns estimateMessageTokens, the upstream's characters/4
// token estimate of one message (UTF-16 units of the text, whole-part JSON
// for everything else, a metadata overhead), reproduced exactly, NaN
// included.
//
// The upstream never throws: a part whose estimate throws (a null part, an
// `in` test on a primitive, a bigint added to a number) is skipped by a
// per-part try/catch, JSON.stringify failures count 0, a throw in the
// metadata estimate adds 2000, and a message that is not an object with a
// parts array is 0. The running total is a JavaScript `let`: adding a
// `.length` that is undefined makes it NaN, and adding one that is a
// string (an object whose "length" key holds a string) turns it into a
// string, concatenated from then on and read back as a number at the end;
// both are reproduced.
package estimate

import (
	"errors"
	"math"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/upstream"
)

// Constants of the estimate.
const (
	MetadataBase      = 400  // every message's metadata overhead
	MetadataThrowCost = 2000 // added when the metadata estimate throws
	AttachmentCost    = 100  // per attachment
	CharsPerToken     = 4
)

// Profile selects what the metadata estimate counts.
type Profile struct {
	// EnvSnapshot counts JSON.stringify(metadata.environmentSnapshot) (e3e).
	EnvSnapshot bool
	// EnvState counts renderedState and renderedStateChange of every entry
	// of metadata.envState (HEAD).
	EnvState bool
}

// byGen holds the estimate of each generation of internal/upstream.
var byGen = map[string]Profile{
	upstream.GenE3E:  {EnvSnapshot: true},
	upstream.GenHead: {EnvState: true},
}

// Profiles by every profile name and alias of internal/upstream.
var Profiles = func() map[string]Profile {
	out := map[string]Profile{}
	for _, r := range upstream.Releases {
		out[r.Name] = byGen[r.Gen]
		for _, a := range r.Aliases {
			out[a] = byGen[r.Gen]
		}
	}
	return out
}()

// MessageTokens is estimateMessageTokens(msg) of the e3e reference.
func MessageTokens(msg history.Value) (float64, error) {
	return Profiles["e3e"].MessageTokens(msg)
}

// errMixBigInt is what JavaScript throws for a number plus (or times) a
// bigint.
var errMixBigInt = errors.New("TypeError: Cannot mix BigInt and other types, use explicit conversions")

// total is a JavaScript variable that starts as the number 0 and is
// only ever added to (`+=`): a number, or a string once something added
// to it was a string or an object.
type total struct {
	n     float64
	s     []byte
	isStr bool
}

// addNum is t += f for a number f.
func (t *total) addNum(f float64) {
	if t.isStr {
		t.s = append(t.s, history.NumberToString(f)...)
		return
	}
	t.n += f
}

// add is t += v. An object goes in as its primitive, which for every
// object a message can hold is its String() (valueOf gives the object
// itself; a Date's default hint is string). A number plus a bigint throws.
func (t *total) add(v history.Value) error {
	if !t.isStr {
		switch v.Kind() {
		case history.Undefined:
			t.n = math.NaN()
			return nil
		case history.Null:
			return nil
		case history.Bool, history.Number:
			t.n += v.Num()
			return nil
		case history.BigInt:
			return errMixBigInt
		}
	}
	s, err := history.ToStringChecked(v)
	if err != nil {
		return err // RangeError: Invalid string length
	}
	if !t.isStr {
		t.s = append(t.s[:0], history.NumberToString(t.n)...)
		t.isStr = true
	}
	t.s = append(t.s, s...)
	return nil
}

// addTotal is t += u.
func (t *total) addTotal(u total) {
	if !u.isStr {
		t.addNum(u.n)
		return
	}
	if !t.isStr {
		t.s = append(t.s[:0], history.NumberToString(t.n)...)
		t.isStr = true
	}
	t.s = append(t.s, u.s...)
}

// number is Number(t).
func (t *total) number() float64 {
	if t.isStr {
		return history.StringToNumber(string(t.s))
	}
	return t.n
}

// length is v.length for a value that is neither null nor undefined: a
// string's UTF-16 length, an array's length, an object's own "length"
// member, undefined for everything else.
func length(v history.Value) history.Value { return v.Get("length") }

// jsonLen is safeStringifyLength(v): the UTF-16 length of
// JSON.stringify(v), 0 when that is undefined or throws.
func jsonLen(v history.Value) float64 {
	n, err := history.JSONLen16(v)
	if err != nil {
		return 0
	}
	return float64(n)
}

// MessageTokens is estimateMessageTokens(msg) under profile p. It never
// fails: the upstream catches whatever a part or the metadata throws (the
// error result is always nil).
func (p Profile) MessageTokens(msg history.Value) (float64, error) {
	// !msg?.parts || !Array.isArray(msg.parts): a primitive's parts are
	// undefined.
	parts := msg.Get("parts")
	if parts.Kind() != history.Array {
		return 0, nil
	}
	var c total
	for _, part := range parts.Elems() {
		// try { … } catch { skip the part }: what it added before the
		// throw stays (nothing here: every throw comes first).
		p.part(&c, part)
	}
	m := p.metadata(msg.Get("metadata"))
	c.addTotal(m)
	return math.Ceil(c.number() / CharsPerToken), nil
}

// part adds one part's characters to c, or nothing when the part's
// estimate throws.
func (p Profile) part(c *total, part history.Value) {
	if part.IsNullish() {
		return // part.type throws
	}
	if t := part.Get("type"); t.Kind() == history.String && t.Str() == "text" {
		text := part.Get("text")
		if text.IsNullish() {
			c.addNum(0) // ('').length: a string total still gets its "0"
			return
		}
		_ = c.add(length(text))
		return
	}
	if !part.IsObjectLike() {
		return // 'toolName' in <primitive> throws
	}
	if part.Has("toolName") && part.Has("input") {
		if name := part.Get("toolName"); name.IsNullish() {
			c.addNum(0)
		} else if err := c.add(length(name)); err != nil {
			return
		}
		c.addNum(jsonLen(part.Get("input")))
		if out := part.Get("output"); !out.IsUndefined() {
			c.addNum(jsonLen(out))
		}
		return
	}
	c.addNum(jsonLen(part))
}

// metadata is estimateMetadataChars(meta).
func (p Profile) metadata(meta history.Value) total {
	m := total{n: MetadataBase}
	if !meta.Truthy() {
		return m
	}
	if err := p.metadataTry(&m, meta); err != nil {
		m.addNum(MetadataThrowCost)
	}
	return m
}

// metadataTry is the try block of estimateMetadataChars: what it adds
// before a throw stays.
func (p Profile) metadataTry(m *total, meta history.Value) error {
	if p.EnvSnapshot {
		if env := meta.Get("environmentSnapshot"); env.Truthy() {
			m.addNum(jsonLen(env))
		}
	}
	if p.EnvState {
		if env := meta.Get("envState"); env.Truthy() {
			for _, d := range objectValues(env) {
				// entry?.renderedState: a primitive entry has none.
				if s := d.Get("renderedState"); s.Truthy() {
					if err := m.add(length(s)); err != nil {
						return err
					}
				}
				if s := d.Get("renderedStateChange"); s.Truthy() {
					if err := m.add(length(s)); err != nil {
						return err
					}
				}
			}
		}
	}
	if ch := meta.Get("compressedHistory"); ch.Truthy() {
		if err := m.add(length(ch)); err != nil {
			return err
		}
	}
	if mentions := meta.Get("mentions"); mentions.Truthy() {
		m.addNum(jsonLen(mentions))
	}
	if a := meta.Get("attachments"); a.Truthy() {
		// attachments.length * 100: Number(length), a bigint throws.
		n, err := toNumber(length(a))
		if err != nil {
			return err
		}
		m.addNum(n * AttachmentCost)
	}
	return nil
}

// objectValues is Object.values(v) for the entries that can have
// properties (a string's characters and a typed array's numbers have
// none that count).
func objectValues(v history.Value) []history.Value {
	switch v.Kind() {
	case history.Object, history.Error:
		keys := v.Keys()
		out := make([]history.Value, len(keys))
		for i, k := range keys {
			out[i] = v.Get(k)
		}
		return out
	case history.Array:
		return v.Elems()
	}
	return nil
}

// toNumber is ToNumeric for a multiplication by a number: a bigint
// throws; an object goes through its primitive (a Date's time value, an
// array's joined text, "[object …]" otherwise).
func toNumber(v history.Value) (float64, error) {
	switch v.Kind() {
	case history.Undefined:
		return math.NaN(), nil
	case history.Null:
		return 0, nil
	case history.Bool, history.Number, history.Date:
		return v.Num(), nil
	case history.BigInt:
		return 0, errMixBigInt
	case history.String:
		return history.StringToNumber(v.Str()), nil
	}
	s, err := history.ToStringChecked(v)
	if err != nil {
		return 0, err
	}
	return history.StringToNumber(s), nil
}
