// Package estimate owns estimateMessageTokens, the upstream's characters/4
// token estimate of one message (UTF-16 units of the text, whole-part JSON
// for everything else, a metadata overhead), reproduced exactly, NaN
// included.
package estimate

import (
	"fmt"
	"math"

	"github.com/compactlab/compact/internal/history"
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

// Profiles by upstream version.
var Profiles = map[string]Profile{
	"e3e":  {EnvSnapshot: true},
	"head": {EnvState: true},
}

// TypeError is what JavaScript throws inside the estimate (a null part, an
// `in` test on a primitive). The upstream walk then aborts the compression.
type TypeError struct {
	Part int
	Msg  string
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("part %d: TypeError: %s", e.Part, e.Msg)
}

// MessageTokens is estimateMessageTokens(msg) of the e3e reference.
func MessageTokens(msg history.Value) (float64, error) {
	return Profiles["e3e"].MessageTokens(msg)
}

// jsLength is x.length for the values a message holds: a string's UTF-16
// length, an array's length, and NaN (undefined) for the rest.
func jsLength(v history.Value) float64 {
	switch v.Kind() {
	case history.String:
		return float64(history.Len16(v.Str()))
	case history.Array, history.TypedArray:
		return float64(v.Len())
	}
	return math.NaN()
}

// lenOrEmpty is (x ?? ”).length.
func lenOrEmpty(v history.Value) float64 {
	if v.IsNullish() {
		return 0
	}
	return jsLength(v)
}

// jsonLen is J(v): the UTF-16 length of JSON.stringify(v), 0 when that is
// undefined or throws.
func jsonLen(v history.Value) float64 {
	n, err := history.JSONLen16(v)
	if err != nil {
		return 0
	}
	return float64(n)
}

// MessageTokens is estimateMessageTokens(msg) under profile p.
func (p Profile) MessageTokens(msg history.Value) (float64, error) {
	if msg.IsNullish() {
		return 0, &TypeError{Part: -1, Msg: fmt.Sprintf("Cannot read properties of %s (reading 'parts')", msg.Kind())}
	}
	parts := msg.Get("parts")
	if parts.Kind() != history.Array {
		return 0, nil
	}
	c := 0.0
	for i, part := range parts.Elems() {
		if part.IsNullish() {
			return 0, &TypeError{Part: i, Msg: fmt.Sprintf("Cannot read properties of %s (reading 'type')", part.Kind())}
		}
		if t := part.Get("type"); t.Kind() == history.String && t.Str() == "text" {
			c += lenOrEmpty(part.Get("text"))
			continue
		}
		if !part.IsObjectLike() {
			return 0, &TypeError{Part: i, Msg: fmt.Sprintf("Cannot use 'in' operator to search for 'toolName' in %s", history.ToString(part))}
		}
		if part.Has("toolName") && part.Has("input") {
			c += lenOrEmpty(part.Get("toolName")) + jsonLen(part.Get("input"))
			if out := part.Get("output"); !out.IsUndefined() {
				c += jsonLen(out)
			}
			continue
		}
		c += jsonLen(part)
	}
	c += p.metadata(msg.Get("metadata"))
	return math.Ceil(c / CharsPerToken), nil
}

// metadata is M(meta).
func (p Profile) metadata(meta history.Value) float64 {
	m := float64(MetadataBase)
	if !meta.Truthy() {
		return m
	}
	if !meta.IsObjectLike() {
		// Properties of a primitive are undefined: nothing more to count.
		return m
	}
	threw := false
	if p.EnvSnapshot {
		if n, err := history.JSONLen16(meta.Get("environmentSnapshot")); err != nil {
			threw = true
		} else {
			m += float64(n)
		}
	}
	if p.EnvState && !threw {
		env := meta.Get("envState")
		if env.Kind() == history.Object {
			for _, k := range env.Keys() {
				d := env.Get(k)
				if d.IsNullish() {
					threw = true
					break
				}
				m += lenOrEmpty(d.Get("renderedState")) + lenOrEmpty(d.Get("renderedStateChange"))
			}
		}
	}
	if !threw {
		if ch := meta.Get("compressedHistory"); ch.Truthy() {
			m += jsLength(ch)
		}
		if n, err := history.JSONLen16(meta.Get("mentions")); err != nil {
			threw = true
		} else {
			m += float64(n)
		}
	}
	if !threw {
		if a := meta.Get("attachments"); !a.IsNullish() {
			if l := jsLength(a); !math.IsNaN(l) {
				m += AttachmentCost * l
			}
		}
	}
	if threw {
		m += MetadataThrowCost
	}
	return m
}
