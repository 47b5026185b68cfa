package serialize

import (
	"strings"

	"github.com/compactlab/compact/internal/history"
)

// toolPart is what a marker reads of a tool part.
type toolPart struct {
	in     history.Value // part.input (truthy)
	out    history.Value // part.output, or undefined where the profile hides it
	hasOut bool
	// errState is 1 for output-error, 2 for output-denied, 0 otherwise;
	// errText is the part's errorText.
	errState int
	errText  history.Value
}

// hasErr reports whether the marker takes the {err} suffix.
func (t toolPart) hasErr() bool { return t.errState != 0 }

// appendErr writes the {err} suffix: " ✗ " and the first line of the error
// text cut to 80 units, escaped; or " ✗ denied".
func (t toolPart) appendErr(b []byte) []byte {
	switch t.errState {
	case 1:
		msg := t.errText
		if !msg.Truthy() {
			msg = history.StringValue("unknown error")
		}
		line := history.ToString(msg)
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		b = append(b, cross...)
		return appendEscString(b, history.Slice16(line, 80))
	case 2:
		return append(b, cross+"denied"...)
	}
	return b
}

// markerFunc writes one marker.
type markerFunc func(b []byte, t toolPart) ([]byte, error)

const (
	cross = " ✗ "
	arrow = " → "
	check = "✓"
)

// appendToolMarker writes the marker of a tool-<name> part. Parts without a
// truthy input write nothing, in any state.
func appendToolMarker(b []byte, part history.Value, name string, p *Profile) ([]byte, bool, error) {
	in := part.Get("input")
	if !in.Truthy() {
		return b, false, nil
	}
	t := toolPart{in: in, out: part.Get("output")}
	state := part.Get("state")
	if p.OutputOnlyWhenAvailable[name] && !(state.Kind() == history.String && state.Str() == "output-available") {
		t.out = history.Value{}
	}
	if state.Kind() == history.String {
		switch state.Str() {
		case "output-error":
			t.errState, t.errText = 1, part.Get("errorText")
		case "output-denied":
			t.errState = 2
		}
	}
	mark, ok := p.Markers[name]
	if !ok {
		b = append(b, "[tool-"...)
		b = append(b, name...)
		b = t.appendErr(b)
		return append(b, ']'), true, nil
	}
	nb, err := mark(b, t)
	return nb, err == nil, err
}

func (t toolPart) get(key string) history.Value { return t.in.Get(key) }

// simple writes "[label: " + esc(v) + err + "]"; withErr false leaves the
// suffix out.
func simple(b []byte, label string, v history.Value, t toolPart, withErr bool) []byte {
	b = append(b, '[')
	b = append(b, label...)
	b = append(b, ": "...)
	b = appendEsc(b, v)
	if withErr {
		b = t.appendErr(b)
	}
	return append(b, ']')
}

func markRead(b []byte, t toolPart) ([]byte, error) {
	return simple(b, "read", t.get("path"), t, true), nil
}

func markDelete(b []byte, t toolPart) ([]byte, error) {
	return simple(b, "deleted", t.get("path"), t, true), nil
}

func markGlob(b []byte, t toolPart) ([]byte, error) {
	return simple(b, "glob", t.get("pattern"), t, true), nil
}

func markDocsSearch(b []byte, t toolPart) ([]byte, error) {
	return simple(b, "docs-search", t.get("name"), t, true), nil
}

func markDocsRead(b []byte, t toolPart) ([]byte, error) {
	b = append(b, "[docs-read: "...)
	b = appendEsc(b, t.get("libraryId"))
	b = append(b, arrow...)
	b = appendEsc(b, t.get("topic"))
	b = t.appendErr(b)
	return append(b, ']'), nil
}

func markMultiEdit(b []byte, t toolPart) ([]byte, error) {
	if t.hasErr() {
		return simple(b, "edited", t.get("path"), t, true), nil
	}
	b = append(b, "[edited: "...)
	b = appendEsc(b, t.get("path"))
	b = append(b, " ("...)
	if edits := t.get("edits"); edits.Kind() == history.Array {
		b = append(b, history.FormatNumber(float64(edits.Len()))...)
	} else {
		b = append(b, '?')
	}
	return append(b, " edits)]"...), nil
}

func markWrite(b []byte, t toolPart) ([]byte, error) {
	if t.hasErr() {
		return simple(b, "wrote", t.get("path"), t, true), nil
	}
	if msg := t.out.Get("message"); msg.Kind() == history.String && strings.Contains(msg.Str(), "created") {
		return simple(b, "created", t.get("path"), t, false), nil
	}
	return simple(b, "wrote", t.get("path"), t, false), nil
}

func markCopy(b []byte, t toolPart) ([]byte, error) {
	if t.get("move").Truthy() {
		b = append(b, "[moved: "...)
	} else {
		b = append(b, "[copied: "...)
	}
	b = appendEsc(b, t.get("input_path"))
	b = append(b, arrow...)
	b = appendEsc(b, t.get("output_path"))
	b = t.appendErr(b)
	return append(b, ']'), nil
}

func markCreateShellSession(b []byte, t toolPart) ([]byte, error) {
	b = append(b, "[shell: new session "...)
	id := t.out.Get("session_id")
	if id.IsNullish() {
		id = history.StringValue("?")
	}
	b = appendEsc(b, id)
	b = append(b, " in "...)
	b = appendEsc(b, t.get("cwd"))
	b = t.appendErr(b)
	return append(b, ']'), nil
}

func markExecuteShellCommand(b []byte, t toolPart) ([]byte, error) {
	label := firstDefined(t.get("explanation"), t.get("command"), history.StringValue(""))
	b = append(b, "[shell: "...)
	b = appendEscString(b, history.Slice16(history.ToString(label), 80))
	if t.hasErr() {
		b = t.appendErr(b)
		return append(b, ']'), nil
	}
	if t.out.Truthy() {
		code := t.out.Get("exit_code")
		switch {
		case t.out.Get("timed_out").Truthy():
			b = append(b, arrow+"timed out"...)
		case code.Kind() == history.Number && code.Num() != 0:
			b = append(b, arrow+"exit "...)
			b = append(b, history.NumberToString(code.Num())...)
		case code.Kind() == history.Number:
			b = append(b, arrow+check...)
		}
	}
	return append(b, ']'), nil
}

// first80 is x.slice(0, 80) for the values it is called on: a string's
// first 80 UTF-16 units, an array's first 80 elements; anything else
// throws.
func first80(v history.Value) (history.Value, error) {
	switch v.Kind() {
	case history.String:
		return history.StringValue(history.Slice16(v.Str(), 80)), nil
	case history.Array:
		el := v.Elems()
		if len(el) > 80 {
			el = el[:80]
		}
		return history.NewArray(el), nil
	}
	return history.Value{}, throwf("TypeError: x.slice is not a function")
}

func markSandbox(b []byte, t toolPart) ([]byte, error) {
	label, err := first80(orEmpty(t.get("explanation")))
	if err != nil {
		return b, err
	}
	return simple(b, "sandbox", label, t, true), nil
}

func markGrep(b []byte, t toolPart) ([]byte, error) {
	b = append(b, `[searched: "`...)
	b = appendEsc(b, t.get("query"))
	b = append(b, '"')
	if t.hasErr() {
		b = t.appendErr(b)
		return append(b, ']'), nil
	}
	if pat := t.get("include_file_pattern"); pat.Truthy() {
		b = append(b, " in "...)
		b = appendEsc(b, pat)
	}
	return append(b, ']'), nil
}

func markLint(b []byte, t toolPart) ([]byte, error) {
	paths := t.get("paths")
	b = append(b, "[lint: "...)
	if paths.Kind() == history.Array {
		for i, e := range paths.Elems() {
			if i > 0 {
				b = append(b, ", "...)
			}
			if !e.IsNullish() {
				b = appendEscString(b, history.ToString(e))
			}
		}
	} else {
		b = appendEsc(b, paths)
	}
	if t.hasErr() {
		b = t.appendErr(b)
		return append(b, ']'), nil
	}
	if sum := t.out.Get("summary"); sum.Truthy() {
		total := sum.Get("totalIssues")
		if total.Kind() == history.Number && total.Num() == 0 {
			b = append(b, arrow+"clean"...)
		} else {
			b = append(b, arrow...)
			b = append(b, history.ToString(sum.Get("errors"))...)
			b = append(b, " errors, "...)
			b = append(b, history.ToString(sum.Get("warnings"))...)
			b = append(b, " warnings"...)
		}
	}
	return append(b, ']'), nil
}

// entries is Object.entries(v) for the values answers can hold.
func entries(v history.Value) (keys []string, vals []history.Value) {
	switch v.Kind() {
	case history.Object, history.Error:
		for _, k := range v.Keys() {
			keys = append(keys, k)
			vals = append(vals, v.Get(k))
		}
	case history.Array, history.TypedArray:
		for i, e := range v.Elems() {
			keys = append(keys, history.FormatNumber(float64(i)))
			vals = append(vals, e)
		}
	case history.String:
		i := 0
		for _, r := range v.Str() {
			keys = append(keys, history.FormatNumber(float64(i)))
			vals = append(vals, history.StringValue(string(r)))
			i++
			if r > 0xFFFF {
				// A pair is two entries in JavaScript; keep the count right.
				keys = append(keys, history.FormatNumber(float64(i)))
				vals = append(vals, history.StringValue(""))
				i++
			}
		}
	}
	return keys, vals
}

func markAskUser(b []byte, t toolPart) ([]byte, error) {
	title := t.get("title")
	if title.IsNullish() {
		title = history.StringValue("form")
	}
	b = simple(b, "asked user", title, t, false)
	b = b[:len(b)-1] // reopen before "]"
	if t.hasErr() {
		b = t.appendErr(b)
		return append(b, ']'), nil
	}
	out := t.out
	if !out.Truthy() {
		return append(b, ']'), nil
	}
	b = append(b, arrow...)
	if out.Get("cancelled").Truthy() || !out.Get("completed").Truthy() {
		reason := out.Get("cancelReason")
		if reason.IsNullish() {
			reason = history.StringValue("cancelled")
		}
		b = appendEsc(b, reason)
		return append(b, ']'), nil
	}
	labels := map[string]history.Value{}
	if steps := t.get("steps"); steps.Kind() == history.Array {
		for _, step := range steps.Elems() {
			if step.IsNullish() {
				continue
			}
			fields := step.Get("fields")
			if fields.Kind() != history.Array {
				continue
			}
			for _, f := range fields.Elems() {
				// Fields with an empty question id give no label (the
				// upstream skips falsy ids).
				if f.IsNullish() || !f.Get("questionId").Truthy() {
					continue
				}
				labels[history.ToString(f.Get("questionId"))] = f.Get("label")
			}
		}
	}
	answers := out.Get("answers")
	keys, vals := entries(answers)
	for i, k := range keys {
		if i > 0 {
			b = append(b, "; "...)
		}
		label, ok := labels[k]
		if !ok || label.IsNullish() {
			label = history.StringValue(k)
		}
		b = appendEsc(b, label)
		b = append(b, ": "...)
		b = appendEsc(b, vals[i])
	}
	return append(b, ']'), nil
}

func markWatcher(b []byte, t toolPart) ([]byte, error) {
	title := t.get("title")
	if title.IsNullish() {
		title = history.StringValue("watcher")
	}
	if t.hasErr() {
		return simple(b, "watcher creation failed", title, t, true), nil
	}
	if !t.out.Truthy() {
		return simple(b, "watcher requested", title, t, false), nil
	}
	b = append(b, "[watcher created: "...)
	b = appendEsc(b, title)
	b = append(b, arrow+"session "...)
	b = appendEsc(b, t.out.Get("session_id"))
	return append(b, ']'), nil
}
