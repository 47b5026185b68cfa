package serialize

import (
	"strings"

	"github.com/compactlab/compact/internal/history"
)

// toolPart is what a marker reads of a tool part.
type toolPart struct {
	in  history.Value // part.input (truthy)
	out history.Value // part.output, or undefined where the profile hides it
	// errState is 1 for output-error, 2 for output-denied, 0 otherwise;
	// errLine is, for output-error, the first line of String(errorText ||
	// "unknown error") cut to 80 units.
	errState int
	errLine  string
	// available is whether the state is "output-available".
	available bool
}

// read reads what getErrorSuffix reads of a part with a truthy input. The
// upstream builds the {err} suffix before it looks at the type, so a
// String() of the error text that throws fails the part whatever its
// type.
func (t *toolPart) read(part, in history.Value) error {
	t.in, t.out = in, part.Get("output")
	state := part.Get("state")
	if state.Kind() == history.String {
		switch state.Str() {
		case "output-error":
			t.errState = 1
			msg := part.Get("errorText")
			if !msg.Truthy() {
				msg = history.StringValue("unknown error")
			}
			line, err := history.ToStringChecked(msg)
			if err != nil {
				return err
			}
			if i := strings.IndexByte(line, '\n'); i >= 0 {
				line = line[:i]
			}
			t.errLine = history.Slice16(line, 80)
		case "output-denied":
			t.errState = 2
		case "output-available":
			t.available = true
		}
	}
	return nil
}

// hasErr reports whether the marker takes the {err} suffix.
func (t toolPart) hasErr() bool { return t.errState != 0 }

// appendErr writes the {err} suffix: " ✗ " and the first line of the error
// text cut to 80 units, escaped; or " ✗ denied".
func (t toolPart) appendErr(b []byte) []byte {
	switch t.errState {
	case 1:
		b = append(b, cross...)
		return appendEscString(b, t.errLine)
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
	b = appendEscString(b, history.Slice16(jsString(label), 80))
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

func markSandbox(b []byte, t toolPart) ([]byte, error) {
	// String(explanation ?? '').slice(0, 80): the text is cut, not the
	// value.
	label := history.StringValue(history.Slice16(jsString(orEmpty(t.get("explanation"))), 80))
	return simple(b, "sandbox", label, t, true), nil
}

func markGrep(b []byte, t toolPart) ([]byte, error) {
	b = append(b, `[searched: "`...)
	b = appendEsc(b, t.get("query"))
	b = append(b, '"')
	pat := t.get("include_file_pattern")
	if t.hasErr() {
		if pat.Truthy() {
			// Escaped before the error is looked at: it may throw.
			jsString(pat)
		}
		b = t.appendErr(b)
		return append(b, ']'), nil
	}
	if pat.Truthy() {
		b = append(b, " in "...)
		b = appendEsc(b, pat)
	}
	return append(b, ']'), nil
}

func markLint(b []byte, t toolPart) ([]byte, error) {
	paths := t.get("paths")
	b = append(b, "[lint: "...)
	if paths.Kind() == history.Array {
		// paths.join(", "): an element that is the array itself (a cycle
		// through superjson's referentialEqualities) is empty.
		s, err := history.JoinChecked(paths, ", ")
		if err != nil {
			panic(thrown(err))
		}
		b = appendEscString(b, s)
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
			b = append(b, jsString(sum.Get("errors"))...)
			b = append(b, " errors, "...)
			b = append(b, jsString(sum.Get("warnings"))...)
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
		// One entry per UTF-16 unit: a pair's halves apart, each a lone
		// surrogate.
		i := 0
		history.EachUnit16(v.Str(), func(u string) {
			keys = append(keys, history.FormatNumber(float64(i)))
			vals = append(vals, history.StringValue(u))
			i++
		})
	}
	return keys, vals
}

// iterate is `for (const x of v)` over v ?? [] for the values a tool
// input holds: the elements of an array or a set; nothing for what
// iterates into values that hold no label (a string's characters, a map's
// [key, value] pairs, a typed array's numbers) or for null and undefined;
// a TypeError for a value that is not iterable (a number, a boolean, a
// bigint, a plain object, an Error, a Date, a RegExp, a URL).
func iterate(v history.Value, what string) ([]history.Value, error) {
	switch v.Kind() {
	case history.Array, history.Set:
		return v.Elems(), nil
	case history.Undefined, history.Null, history.String, history.Map, history.TypedArray:
		return nil, nil
	}
	return nil, throwf("TypeError: " + what + " is not iterable")
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
	steps, err := iterate(t.get("steps"), "input?.steps ?? []")
	if err != nil {
		return b, err
	}
	for _, step := range steps {
		fields, err := iterate(step.Get("fields"), "step?.fields ?? []")
		if err != nil {
			return b, err
		}
		for _, f := range fields {
			// The labels are keyed by the question id itself, and looked
			// up by the answers' keys, which are strings: an id that is
			// not a string never matches. A falsy id is skipped.
			if qid := f.Get("questionId"); qid.Kind() == history.String && qid.Str() != "" {
				labels[qid.Str()] = f.Get("label")
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

// markObjectToString is the browser host's "serializer" for a tool named
// toString: the registry is a plain object, so its lookup finds
// Object.prototype.toString, and calling it with no receiver returns
// "[object Undefined]".
func markObjectToString(b []byte, _ toolPart) ([]byte, error) {
	return append(b, "[object Undefined]"...), nil
}
