package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

type gen struct {
	*rand.Rand
	// safe: generate nothing that crashes the upstream extraction script
	// (see the crash list in README.md); the function-level inputs are
	// generated with safe = false.
	safe   bool
	slash  []string // slash ids the chats use (some resolve)
	labels []string
}

func (g *gen) chance(pct int) bool { return g.IntN(100) < pct }

func pick[T any](g *gen, xs []T) T { return xs[g.IntN(len(xs))] }

var words = []string{"fix", "the", "button", "color", "run", "lint", "a", "b", "created", "wrote",
	"src/app.ts", "w1a2/src/Button.tsx", "C:\\Users\\x\\f.txt", "dir/", "/", "", " ", "  ", "é", "中文", "😀",
	"<", ">", "&", "\"", "'", "&amp;", "]]>", "<previous-chat-history>", "</user>", "$&", "$1", "\t", "\n",
	"\r\n", "\r", "\u2028", "\u00a0", "\u0000", "\u0001", "\u007f", "e\u0301", "ǅ", "İ", "ΑΣ", "ß", "ﬀ", "x.y", "a\\b",
	"__proto__", "constructor", "toString", "0", "-0", "1e3", "NaN", "null", "undefined", "[object Object]"}

// rawEscapes are JSON escapes written verbatim: lone and reversed
// surrogates, and a well-formed pair.
var rawEscapes = []string{`\ud800`, `\udfff`, `\udbff`, `\udc00`, `\ude00\ud83d`, `\ud83d\ude00`, `\u0000`, `\u2028`, `\ufeff`, `\uFFFE`}

func (g *gen) text(maxWords int) jStr {
	var out jStr
	n := g.IntN(maxWords + 1)
	for i := 0; i < n; i++ {
		switch {
		case g.chance(8):
			out = append(out, strTok{raw: pick(g, rawEscapes)})
		case g.chance(6) && len(g.slash) > 0:
			out = append(out, strTok{text: g.slashLink()})
		case g.chance(3):
			// a long run to cross the 80-unit cut, ending in an astral char
			out = append(out, strTok{text: strings.Repeat("x", 70+g.IntN(12)) + "😀😀"})
		default:
			w := pick(g, words)
			if i > 0 && g.chance(70) {
				w = " " + w
			}
			out = append(out, strTok{text: w})
		}
	}
	return out
}

func (g *gen) slashLink() string {
	label := pick(g, g.labels)
	id := pick(g, g.slash)
	switch g.IntN(10) {
	case 0:
		return "[" + label + "](slash:" + id // unterminated
	case 1:
		return "[" + label + "[x](slash:" + id + ")"
	case 2:
		return "[](slash:" + id + ")"
	}
	return "[" + label + "](slash:" + id + ")"
}

// scalar returns a random JavaScript primitive or special value.
func (g *gen) scalar() jv {
	switch g.IntN(22) {
	case 0:
		return jNull{}
	case 1:
		return jUndef{}
	case 2:
		return jBool(g.chance(50))
	case 3:
		return jNum(pick(g, []string{"0", "1", "-1", "1.5", "127", "-0", "1e400", "-1e400", "1e21", "1e-7", "0.1", "123456789012345678901", "5e-324", "4294967295", "2.50"}))
	case 4:
		return jSpecial(pick(g, []string{"NaN", "Infinity", "-Infinity", "-0"}))
	case 5:
		return jDate(pick(g, dateTexts))
	case 6:
		return jBig(pick(g, []string{"0", "1", "-5", "123456789012345678901234567890"}))
	case 7:
		return jRegex(pick(g, []string{"/a/g", "/x\\/y/i", "/(?:)/", "/[/]/u"}))
	case 8:
		return jURL(pick(g, oddURLs))
	case 9:
		return jErr{name: pick(g, []jv{s("TypeError"), s(""), nil, jUndef{}, jNum("5")}), message: pick(g, []jv{s("bad\nthing"), s(""), nil, g.text(3)})}
	case 10:
		return jTyped{kind: pick(g, []string{"Uint8Array", "Int16Array", "Float32Array", "Float64Array", "Uint8ClampedArray", "BigInt64Array"}), vals: pick(g, [][]string{{}, {"1", "2", "300"}, {"-1", "1.5"}, {"65", "66"}})}
	default:
		return g.text(6)
	}
}

func (g *gen) value(depth int) jv {
	if depth <= 0 || g.chance(55) {
		return g.scalar()
	}
	switch g.IntN(7) {
	case 0, 1:
		n := g.IntN(4)
		a := jArr{}
		for i := 0; i < n; i++ {
			a = append(a, g.value(depth-1))
		}
		return a
	case 2:
		n := g.IntN(3)
		st := jSet{}
		for i := 0; i < n; i++ {
			st = append(st, g.value(depth-1))
		}
		return st
	case 3:
		n := g.IntN(3)
		m := jMap{}
		for i := 0; i < n; i++ {
			m = append(m, [2]jv{g.value(depth - 1), g.value(depth - 1)})
		}
		return m
	case 4:
		if g.safe {
			return jRef{ancestor: false}
		}
		return jRef{ancestor: g.chance(50)}
	default:
		return g.object(depth-1, nil)
	}
}

// oddKeys: "toString" holding a value that is not a function makes
// String() of the object throw (no primitive), as a host serializer meets
// it in an answer or a title.
var oddKeys = []string{"a", "b", "10", "2", "01", "-1", "4294967294", "4294967295", "x.y", "a\\b", "", " ", "é", "0", "toString", "valueOf"}

func (g *gen) object(depth int, keys []string) jObj {
	o := jObj{}
	if keys == nil {
		keys = oddKeys
	}
	n := g.IntN(4)
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		k := pick(g, keys)
		if seen[k] {
			continue
		}
		seen[k] = true
		o = append(o, kv{k, g.value(depth)})
	}
	return o
}

// maybe returns v, or with probability pct a wrong-typed value.
func (g *gen) maybe(pct int, v jv) jv {
	if g.chance(pct) {
		return g.value(2)
	}
	return v
}

var toolNames = []string{"read", "multiEdit", "write", "copy", "delete", "createShellSession", "executeShellCommand",
	"executeSandboxJs", "grepSearch", "glob", "getLintingDiagnostics", "listLibraryDocs", "searchInLibraryDocs",
	"askUserQuestions", "ls", "mkdir", "readConsoleLogs", "updateWorkspaceMd", "listFiles", "createWatcherSession", "", "x",
	// Names a plain object's prototype answers: the agent-core host's
	// registry is one (toString gives "[object Undefined]").
	"toString", "constructor", "valueOf", "__proto__", "hasOwnProperty"}

var states = []string{"output-available", "output-error", "output-denied", "input-available", "input-streaming", "approval-requested"}

func (g *gen) toolInput(name string) jObj {
	str := func() jv { return g.maybe(25, g.text(4)) }
	switch name {
	case "read", "delete":
		return jObj{{"path", str()}}
	case "multiEdit":
		return jObj{{"path", str()}, {"edits", g.maybe(40, jArr{jObj{{"old_string", s("a")}}})}}
	case "write":
		return jObj{{"path", str()}, {"content", str()}}
	case "copy":
		return jObj{{"input_path", str()}, {"output_path", str()}, {"move", g.maybe(50, jBool(g.chance(50)))}}
	case "createShellSession":
		return jObj{{"cwd", str()}}
	case "executeShellCommand":
		o := jObj{{"command", str()}}
		if g.chance(60) {
			o = append(o, kv{"explanation", str()})
		}
		return o
	case "executeSandboxJs":
		return jObj{{"explanation", str()}, {"script", str()}}
	case "grepSearch":
		return jObj{{"query", str()}, {"include_file_pattern", g.maybe(40, s("*.ts"))}}
	case "glob":
		return jObj{{"pattern", str()}}
	case "getLintingDiagnostics":
		return jObj{{"paths", g.maybe(40, jArr{g.text(2), g.text(2)})}}
	case "listLibraryDocs":
		return jObj{{"name", str()}}
	case "searchInLibraryDocs":
		return jObj{{"libraryId", str()}, {"topic", str()}}
	case "askUserQuestions":
		field := func() jv {
			return g.maybe(20, jObj{{"questionId", g.maybe(30, pick(g, []jv{s("q1"), s("q2"), s("1"), s("0"), s("")}))}, {"label", g.maybe(30, g.text(2))}})
		}
		step := func() jv { return g.maybe(20, jObj{{"fields", g.maybe(25, jArr{field(), field()})}}) }
		return jObj{{"title", g.maybe(30, g.text(3))}, {"steps", g.maybe(30, jArr{step(), step()})}}
	}
	return g.object(2, nil)
}

func (g *gen) toolOutput(name string) jv {
	switch name {
	case "write":
		return jObj{{"message", g.maybe(30, pick(g, []jv{s("File created"), s("updated"), s("created")}))}}
	case "createShellSession":
		return jObj{{"session_id", g.maybe(30, s("3f9a"))}}
	case "executeShellCommand":
		return jObj{{"exit_code", g.maybe(50, jNum("0"))}, {"timed_out", g.maybe(30, jBool(false))}, {"output", g.maybe(30, s("ok"))}}
	case "getLintingDiagnostics":
		return jObj{{"summary", g.maybe(30, jObj{{"totalIssues", g.maybe(40, jNum("0"))}, {"errors", g.maybe(30, jNum("2"))}, {"warnings", g.maybe(30, jNum("1"))}})}}
	case "askUserQuestions":
		ans := g.maybe(30, jObj{{"q1", g.value(2)}, {"10", g.value(1)}, {"2", g.value(1)}, {"q2", g.value(1)}})
		return jObj{{"completed", g.maybe(30, jBool(true))}, {"cancelled", g.maybe(30, jBool(false))}, {"cancelReason", g.maybe(50, jUndef{})}, {"answers", ans}}
	}
	return g.value(2)
}

func (g *gen) toolPart() jv {
	name := pick(g, toolNames)
	typ := jv(s("tool-" + name))
	if g.chance(5) {
		typ = g.scalar() // a type that is not a string
	}
	o := jObj{{"type", typ}, {"toolCallId", s("call_" + strconv.Itoa(g.IntN(1000)))}}
	if g.chance(85) {
		o = append(o, kv{"state", g.maybe(10, s(pick(g, states)))})
	}
	if g.chance(92) {
		in := jv(g.toolInput(name))
		if g.chance(8) {
			in = g.value(2) // input of the wrong type: a number, a string, ...
		}
		o = append(o, kv{"input", in})
	}
	if g.chance(70) {
		o = append(o, kv{"output", g.toolOutput(name)})
	}
	if g.chance(40) {
		o = append(o, kv{"errorText", g.maybe(25, g.text(5))})
	}
	if g.chance(10) {
		o = append(o, kv{"toolName", g.maybe(30, s(name))})
	}
	if g.chance(10) {
		o = append(o, kv{"callProviderMetadata", g.value(2)})
	}
	return o
}

// textValue is a text part's text: mostly a string; in safe mode for user
// messages only falsy non-strings (a truthy one crashes the script).
func (g *gen) textValue(user bool) jv {
	if !g.chance(15) {
		return g.text(10)
	}
	if user && g.safe {
		return pick(g, []jv{jNum("0"), jNum("-0"), jSpecial("NaN"), jSpecial("-0"), jBool(false), jNull{}, jUndef{}, jBig("0"), s("")})
	}
	return g.value(2)
}

func (g *gen) part(user bool) jv {
	r := g.IntN(100)
	switch {
	case r < 4 && !(user && g.safe):
		return pick(g, []jv{jNull{}, jUndef{}})
	case r < 8:
		return pick(g, []jv{jNum("5"), s("text"), jArr{}, jBool(true), jDate("2026-05-20T09:00:00.000Z"), jObj{}})
	case r < 45:
		o := jObj{{"type", s("text")}, {"text", g.textValue(user)}}
		if g.chance(30) {
			o = append(o, kv{"state", s("done")})
		}
		return o
	case r < 55:
		return pick(g, []jv{
			jObj{{"type", s("step-start")}},
			jObj{{"type", s("reasoning")}, {"text", g.text(4)}},
			jObj{{"type", s("file")}, {"url", s("data:x")}, {"mediaType", s("image/png")}},
			jObj{{"type", s("dynamic-tool")}, {"toolName", g.maybe(20, s("t"))}, {"input", g.value(2)}, {"state", s("output-available")}},
			jObj{{"type", s("data-x")}, {"data", g.value(2)}},
			jObj{{"type", g.scalar()}, {"text", g.text(3)}},
			jObj{{"text", g.text(3)}},
		})
	}
	return g.toolPart()
}

func (g *gen) attachments() jv {
	if g.chance(20) {
		return g.value(2) // not an array
	}
	a := jArr{}
	for i := g.IntN(3); i >= 0; i-- {
		switch g.IntN(6) {
		case 0:
			a = append(a, g.scalar())
		default:
			a = append(a, jObj{{"path", g.maybe(20, s("w1/"+strings.TrimSpace(pick(g, words))))}, {"originalFileName", g.maybe(40, g.text(2))}})
		}
	}
	return a
}

func (g *gen) mentions() jv {
	if g.chance(20) {
		return g.value(2)
	}
	a := jArr{}
	for i := g.IntN(3); i >= 0; i-- {
		if g.chance(15) {
			a = append(a, g.scalar())
			continue
		}
		pt := g.maybe(15, s(pick(g, []string{"file", "tab", "workspace", "other", ""})))
		a = append(a, jObj{{"providerType", pt}, {"mountedPath", g.maybe(50, g.text(2))}, {"fileName", g.maybe(50, g.text(2))},
			{"title", g.maybe(50, g.text(2))}, {"name", g.maybe(50, g.text(2))}})
	}
	return a
}

// summary is a compressedHistory value: a string, or in unsafe mode (or
// crash mode) any value; a typed array never crashes the script.
func (g *gen) summary(crash bool) jv {
	switch {
	case crash:
		return pick(g, []jv{jNull{}, jNum("5"), jBool(true), jObj{}, jArr{s("x")}, jDate("2026-05-20T09:00:00.000Z")})
	case g.chance(8):
		return pick(g, []jv{jTyped{kind: "Uint8Array", vals: []string{"60", "97", "62"}}, jTyped{kind: "Int16Array", vals: []string{"-1", "300"}}, jTyped{kind: "Float32Array", vals: []string{"1.5"}}, jTyped{kind: "Uint8Array"}})
	case g.chance(8):
		return s("")
	case g.chance(5):
		return s("prev <previous-chat-history> leak")
	}
	return g.text(30)
}

func (g *gen) metadata(user bool, point, crashPoint bool) jv {
	if g.chance(6) && !point {
		return pick(g, []jv{jNull{}, jUndef{}, jNum("5"), s("meta"), jArr{}})
	}
	o := jObj{{"createdAt", jDate("2026-05-20T09:00:00.000Z")}}
	if user {
		o = append(o, kv{"partsMetadata", jArr{}})
		if g.chance(30) {
			o = append(o, kv{"attachments", g.attachments()})
		}
		if g.chance(30) {
			o = append(o, kv{"mentions", g.mentions()})
		}
		if g.chance(25) {
			o = append(o, kv{"environmentSnapshot", g.value(3)})
		}
	}
	if point {
		o = append(o, kv{"compressedHistory", g.summary(crashPoint)})
	} else if g.chance(5) {
		o = append(o, kv{"compressedHistory", jUndef{}})
	}
	if g.chance(10) {
		o = append(o, kv{"x", g.value(2)})
	}
	return o
}

func (g *gen) message(i int, point, crashPoint bool) jv {
	role := "assistant"
	if i%2 == 0 {
		role = "user"
	}
	var roleV jv = s(role)
	if g.chance(4) {
		roleV = pick(g, []jv{s("system"), s("tool"), s("User"), jNull{}, jNum("1"), jUndef{}})
		role = "other"
	}
	user := role == "user"
	var parts jv
	if g.chance(6) {
		parts = pick(g, []jv{jNull{}, jUndef{}, s("parts"), jNum("3"), jObj{{"0", jObj{{"type", s("text")}, {"text", s("x")}}}}, jSet{jObj{{"type", s("text")}, {"text", s("in a set")}}}})
	} else {
		a := jArr{}
		for n := g.IntN(5); n >= 0; n-- {
			a = append(a, g.part(user || role == "other"))
		}
		parts = a
	}
	var id jv = s(fmt.Sprintf("m%d-%x", i, g.IntN(1<<16)))
	if g.chance(5) {
		id = pick(g, []jv{jNum("7"), jUndef{}, jNull{}, jDate("2026-05-20T09:00:00.000Z"), jMap{}, g.text(2)})
	}
	o := jObj{{"id", id}, {"role", roleV}, {"parts", parts}}
	if md := g.metadata(user, point, crashPoint); !(point && false) {
		o = append(o, kv{"metadata", md})
	}
	if g.chance(3) && !point {
		// drop the metadata key
		o = o[:len(o)-1]
	}
	return o
}
