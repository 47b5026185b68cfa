package briefing

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/mdtext"
)

// This file turns the serializer's one-line tool markers into prose. A
// marker is parsed in its escaped form (so a quote or arrow typed by the
// user cannot be mistaken for the marker's own punctuation) and each part is
// unescaped on its own.

const (
	sepErr   = " ✗ "
	sepArrow = " → "
	okMark   = "✓"
)

// event is one tool call told as prose.
type event struct {
	full  string // the sentence, error message included
	short string // the sentence without the error message

	// group, when set, lets consecutive successful calls of the same kind
	// share one sentence: "You " + group + " " + joinList(objects) + ".".
	group  string
	object string

	paths    []string // files and folders the call named
	acts     []uint8  // what the call did to each path (act*), when it did not fail
	fail     bool     // failed, was denied, exited non-zero, timed out or found errors
	denied   bool
	errMsg   string
	noun     string // "the command X", for the next-step sentence
	decision bool   // carries the user's answers: kept at every level of detail
	answered bool   // a form the user answered (not cancelled, not empty)
	key      string // kind and object, to see a later success resolve a failure

	// unproven: a call that did not fail but showed no result either (a
	// shell command without its outcome): it does not resolve a failure.
	unproven bool
	// resolved: the call failed and a later call of the same kind and
	// object succeeded (set once the whole history is read).
	resolved bool
}

// told is the failure's sentence, and whether a later attempt succeeded.
func (ev *event) told() string {
	if ev.resolved {
		return ev.full + " A later attempt succeeded."
	}
	return ev.full
}

// act returns what the call did to its i-th path.
func (ev *event) act(i int) uint8 {
	if ev.fail || i >= len(ev.acts) {
		return actNamed
	}
	return ev.acts[i]
}

type markerKind struct {
	name  string
	parse func(body string) *event
}

// markerPrefixes are the kinds' names followed by ": ", as they open a
// marker.
var markerPrefixes = func() []string {
	out := make([]string, len(markerKinds))
	for i, k := range markerKinds {
		out[i] = k.name + ": "
	}
	return out
}()

// markerKinds is the table of marker names the serializer writes (spec §6)
// plus the [tests: …] marker the prompt names as evidence.
var markerKinds = []markerKind{
	{"read", fileMarker("read", "read", "reading")},
	{"edited", editedMarker},
	{"created", fileMarker("created", "create", "creating")},
	{"wrote", fileMarker("wrote", "write", "writing")},
	{"deleted", fileMarker("deleted", "delete", "deleting")},
	{"moved", moveMarker("moved", "move")},
	{"copied", moveMarker("copied", "copy")},
	{"shell", shellMarker},
	{"sandbox", sandboxMarker},
	{"searched", searchMarker},
	{"glob", globMarker},
	{"lint", lintMarker},
	{"docs-search", docsSearchMarker},
	{"docs-read", docsReadMarker},
	{"asked user", askMarker},
	{"tests", testsMarker},
	{"watcher created", watcherMarker("created")},
	{"watcher requested", watcherMarker("requested")},
	{"watcher creation failed", watcherMarker("failed")},
}

func markerPrefix(s string) bool {
	if strings.HasPrefix(s, "tool-") {
		return true
	}
	for _, k := range markerKinds {
		if len(s) > len(k.name) && strings.HasPrefix(s, k.name) && s[len(k.name)] == ':' {
			return true
		}
	}
	return false
}

// parseMarker parses the inside of [ … ] or returns nil.
func parseMarker(inner string) *event {
	return linkEvent(parseMarkerKind(inner))
}

func parseMarkerKind(inner string) *event {
	for i, k := range markerKinds {
		if strings.HasPrefix(inner, markerPrefixes[i]) {
			return k.parse(inner[len(k.name)+2:])
		}
		if inner == k.name+":" {
			return k.parse("")
		}
	}
	if strings.HasPrefix(inner, "tool-") {
		return toolMarker(inner[len("tool-"):])
	}
	return nil
}

// linkEvent links any mount-prefixed path an event's sentences still hold
// in plain text (a session id, a test outcome, a watcher's title): the
// output rules want every path as a link.
func linkEvent(ev *event) *event {
	if ev != nil {
		ev.full, ev.short, ev.noun = linkAllMounts(ev.full), linkAllMounts(ev.short), linkAllMounts(ev.noun)
		ev.errMsg = linkAllMounts(ev.errMsg)
	}
	return ev
}

// splitErr splits "main ✗ message".
func splitErr(body string) (main, msg string, failed bool) {
	if i := strings.Index(body, sepErr); i >= 0 {
		return body[:i], unescape(body[i+len(sepErr):]), true
	}
	if strings.HasSuffix(body, " ✗") {
		return strings.TrimSuffix(body, " ✗"), "", true
	}
	return body, "", false
}

// failure completes "You tried to X" with how it went wrong.
func failure(ev *event, attempt, msg string) {
	msg = linkify(msg)
	ev.fail = true
	ev.errMsg = msg
	ev.short = attempt + ", which failed."
	switch msg {
	case "denied":
		ev.denied = true
		ev.full = attempt + ", but it was denied."
		ev.short = ev.full
	case "":
		ev.full = attempt + ", which failed without an error message."
	default:
		ev.full = attempt + ", which failed: " + msg + endMark(msg)
	}
}

func linkOr(p, none string) string {
	if strings.TrimSpace(p) == "" {
		return none
	}
	return mdtext.PathLink(p)
}

func pathsOf(ps ...string) []string {
	var out []string
	for _, p := range ps {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

func fileMarker(past, verb, gerund string) func(string) *event {
	return func(body string) *event {
		main, msg, failed := splitErr(body)
		p := unescape(main)
		obj := linkOr(p, "a file with no recorded path")
		ev := &event{paths: pathsOf(p), noun: gerund + " " + obj, key: verb + "\x00" + p}
		if failed {
			failure(ev, "You tried to "+verb+" "+obj, msg)
			return ev
		}
		ev.acts = []uint8{fileActs[verb]}
		ev.group, ev.object = past, obj
		ev.full = "You " + past + " " + obj + "."
		ev.short = ev.full
		return ev
	}
}

func editedMarker(body string) *event {
	main, msg, failed := splitErr(body)
	count := ""
	if !failed && strings.HasSuffix(main, " edits)") {
		if o := strings.LastIndex(main, " ("); o >= 0 {
			count = main[o+2 : len(main)-len(" edits)")]
			main = main[:o]
		}
	}
	p := unescape(main)
	obj := linkOr(p, "a file with no recorded path")
	ev := &event{paths: pathsOf(p), noun: "the edit of " + obj, key: "edit\x00" + p}
	if failed {
		failure(ev, "You tried to edit "+obj, msg)
		return ev
	}
	ev.acts = []uint8{actEdited}
	switch count {
	case "", "?":
	case "1":
		obj += " (1 edit)"
	default:
		obj += " (" + count + " edits)"
	}
	ev.group, ev.object = "edited", obj
	ev.full = "You edited " + obj + "."
	ev.short = ev.full
	return ev
}

func moveMarker(past, verb string) func(string) *event {
	return func(body string) *event {
		main, msg, failed := splitErr(body)
		a, b, _ := strings.Cut(main, sepArrow)
		pa, pb := unescape(a), unescape(b)
		obj := linkOr(pa, "a file") + " to " + linkOr(pb, "an unrecorded place")
		ev := &event{paths: pathsOf(pa, pb), noun: "the " + verb + " of " + obj, key: verb + "\x00" + pa + "\x00" + pb}
		if failed {
			failure(ev, "You tried to "+verb+" "+obj, msg)
			return ev
		}
		if strings.TrimSpace(pa) != "" {
			ev.acts = append(ev.acts, actMoved)
		}
		ev.acts = append(ev.acts, actCreated)
		ev.full = "You " + past + " " + obj + "."
		ev.short = ev.full
		return ev
	}
}

func shellMarker(body string) *event {
	main, msg, failed := splitErr(body)
	if strings.HasPrefix(main, "new session ") {
		if id, cwd, ok := strings.Cut(main[len("new session "):], " in "); ok {
			return sessionEvent(unescape(id), unescape(cwd), msg, failed)
		}
	}
	l, outcome := main, ""
	if !failed {
		if a := strings.LastIndex(main, sepArrow); a >= 0 {
			o := main[a+len(sepArrow):]
			if o == okMark || o == "timed out" || strings.HasPrefix(o, "exit ") {
				l, outcome = main[:a], o
			}
		}
	}
	cmd := strings.TrimSpace(linkify(unescape(l)))
	what, noun := shellObject(cmd)
	ev := &event{noun: noun, key: "shell\x00" + cmd}
	for _, ln := range links(cmd) {
		ev.paths = append(ev.paths, strings.TrimSuffix(strings.TrimPrefix(ln, "[](path:"), ")"))
	}
	if failed {
		failure(ev, "You tried to run "+what, msg)
		return ev
	}
	switch {
	case outcome == okMark:
		ev.full = "You ran " + what + ", which succeeded."
	case outcome == "timed out":
		ev.fail, ev.errMsg = true, "timed out"
		ev.full = "You ran " + what + ", which timed out."
	case outcome != "":
		code := strings.TrimPrefix(outcome, "exit ")
		ev.fail, ev.errMsg = true, "exit code "+code
		ev.full = "You ran " + what + ", which failed with exit code " + code + "."
	default:
		ev.full = "You ran " + what + " (no result was recorded)."
		ev.unproven = true
	}
	ev.short = ev.full
	return ev
}

func sessionEvent(id, cwd, msg string, failed bool) *event {
	where := ""
	if strings.TrimSpace(cwd) != "" {
		where = " in " + mdtext.PathLink(cwd)
	}
	ev := &event{paths: pathsOf(cwd), noun: "opening a shell session" + where, key: "session\x00" + cwd}
	if failed {
		failure(ev, "You tried to open a shell session"+where, msg)
		return ev
	}
	if id == "?" || strings.TrimSpace(id) == "" {
		ev.full = "You opened a shell session" + where + "."
	} else {
		ev.full = "You opened shell session " + id + where + "."
	}
	ev.short = ev.full
	return ev
}

func sandboxMarker(body string) *event {
	main, msg, failed := splitErr(body)
	e := strings.TrimSpace(linkify(unescape(main)))
	what := "a sandbox script"
	switch {
	case e == "":
	case isDescription(e) && startsWithVerb(e):
		what += " to " + lowerFirst(e)
	default:
		what += " (" + e + ")"
	}
	ev := &event{noun: what, key: "sandbox\x00" + e}
	if failed {
		failure(ev, "You tried to run "+what, msg)
		return ev
	}
	ev.full = "You ran " + what + "."
	ev.short = ev.full
	return ev
}

// shellObject is what "You ran" and "You tried to run" take for a shell
// marker's label, and the noun the next-step sentence uses. The label is
// the command's explanation when the agent gave one ("Run the tests"),
// else the command itself ("pnpm test"). An explanation that starts with a
// verb becomes "a command to run the tests"; any other explanation is
// named in quotes, "the command “Production build”"; a command is set as
// code unless it names a path, which must stay a link.
func shellObject(label string) (what, noun string) {
	switch {
	case label == "":
		return "a shell command", "the shell command"
	case isDescription(label) && startsWithVerb(label):
		what = "a command to " + lowerFirst(label)
		return what, "the command to " + lowerFirst(label)
	case isDescription(label):
		what = "the command “" + label + "”"
		return what, what
	case strings.Contains(label, "](path:"):
		return "the command " + label, "the command " + label
	}
	c := code(label)
	return c, "the command " + c
}

// shellChars mark a label as a command line rather than words about one.
const shellChars = "=|&;<>$`\\*{}"

// isDescription reports whether a shell label is words about a command
// rather than the command: no shell syntax, no flags, and either a
// capitalised first word or a verb first and a function word after it.
func isDescription(label string) bool {
	if strings.ContainsAny(stripLinks(label), shellChars) {
		return false
	}
	words := strings.Fields(label)
	for _, w := range words {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "~/") {
			return false
		}
	}
	first := words[0]
	r, _ := utf8.DecodeRuneInString(first)
	if unicode.IsUpper(r) {
		// "Lint", "Run the tests", "E2E tests"; not "NODE_ENV" or "Setup.sh".
		return len(words) > 1 || !strings.ContainsAny(first, "_./")
	}
	if !unicode.IsLower(r) || !startsWithVerb(label) || len(words) < 2 {
		return false
	}
	for _, w := range words[1:] {
		if descriptionWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// descriptionWords show that a lower-case label is an English phrase
// ("run the tests") and not a command ("make build").
var descriptionWords = map[string]bool{
	"the": true, "a": true, "an": true, "all": true, "for": true, "to": true, "and": true,
	"of": true, "in": true, "with": true, "from": true, "again": true, "that": true, "this": true,
	"its": true, "their": true, "any": true, "every": true, "each": true, "new": true,
}

// commandVerbs are the verbs an explanation of a command usually starts
// with.
var commandVerbs = map[string]bool{
	"run": true, "rerun": true, "re-run": true, "check": true, "build": true, "rebuild": true,
	"lint": true, "test": true, "type-check": true, "typecheck": true, "compile": true,
	"install": true, "reinstall": true, "uninstall": true, "remove": true, "delete": true,
	"clean": true, "clear": true, "start": true, "restart": true, "stop": true, "kill": true,
	"create": true, "make": true, "generate": true, "update": true, "upgrade": true,
	"downgrade": true, "list": true, "show": true, "print": true, "display": true, "find": true,
	"search": true, "look": true, "inspect": true, "verify": true, "validate": true,
	"format": true, "fix": true, "apply": true, "add": true, "move": true, "copy": true,
	"rename": true, "open": true, "read": true, "view": true, "count": true, "fetch": true,
	"pull": true, "push": true, "commit": true, "stage": true, "deploy": true, "serve": true,
	"execute": true, "launch": true, "set": true, "reset": true, "get": true, "download": true,
	"upload": true, "migrate": true, "seed": true, "watch": true, "measure": true,
	"benchmark": true, "profile": true, "debug": true, "try": true, "confirm": true,
	"ensure": true, "see": true, "compare": true, "diff": true, "grep": true, "bundle": true,
	"preview": true, "regenerate": true, "refresh": true, "sync": true, "prepare": true,
	"extract": true, "unpack": true, "initialize": true, "init": true, "configure": true,
	"enable": true, "disable": true, "wait": true, "query": true, "dump": true, "save": true,
	"write": true, "edit": true, "change": true, "replace": true, "revert": true,
	"restore": true, "back": true, "make sure": true,
}

// startsWithVerb reports whether s starts with one of commandVerbs.
func startsWithVerb(s string) bool {
	w, _, _ := strings.Cut(s, " ")
	return commandVerbs[strings.ToLower(strings.TrimRight(w, ":,"))]
}

// lowerFirst lower-cases the first letter of a capitalised word ("Run the
// tests" gives "run the tests") and leaves an acronym or a name in capitals
// ("E2E tests", "CI") alone.
func lowerFirst(s string) string {
	w, _, _ := strings.Cut(s, " ")
	r, n := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		return s
	}
	for _, c := range w[n:] {
		if unicode.IsUpper(c) || unicode.IsDigit(c) {
			return s
		}
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// code wraps a pattern in backticks so markdown leaves its * and _ alone.
func code(s string) string {
	if s == "" || strings.ContainsAny(s, "`\n") {
		return s
	}
	if l := linkAllMounts(s); l != s {
		// A path in the pattern must be a link, which code would not show.
		return l
	}
	return "`" + s + "`"
}

func searchMarker(body string) *event {
	main, msg, failed := splitErr(body)
	q, in := main, ""
	if strings.HasPrefix(main, `"`) {
		if e := strings.IndexByte(main[1:], '"'); e >= 0 {
			q = main[1 : 1+e]
			if r := main[2+e:]; strings.HasPrefix(r, " in ") {
				in = unescape(r[len(" in "):])
			}
		}
	}
	q = linkify(unescape(q))
	what := "the workspace for “" + q + "”"
	if q == "" {
		what = "the workspace with an empty query"
	}
	if in != "" {
		what += " in " + code(in)
	}
	ev := &event{noun: "the search of " + what, key: "search\x00" + q + "\x00" + in}
	if failed {
		failure(ev, "You tried to search "+what, msg)
		return ev
	}
	ev.full = "You searched " + what + "."
	ev.short = ev.full
	return ev
}

func globMarker(body string) *event {
	main, msg, failed := splitErr(body)
	p := unescape(main)
	what := "files matching " + code(p)
	if p == "" {
		what = "files with an empty pattern"
	}
	ev := &event{noun: "the listing of " + what, key: "glob\x00" + p}
	if failed {
		failure(ev, "You tried to list "+what, msg)
		return ev
	}
	ev.full = "You listed " + what + "."
	ev.short = ev.full
	return ev
}

func lintMarker(body string) *event {
	main, msg, failed := splitErr(body)
	x, outcome := main, ""
	if !failed {
		if a := strings.LastIndex(main, sepArrow); a >= 0 {
			x, outcome = main[:a], main[a+len(sepArrow):]
		}
	}
	var ps, objs []string
	for _, p := range strings.Split(unescape(x), ", ") {
		if p = strings.TrimSpace(p); p != "" {
			ps = append(ps, p)
			objs = append(objs, mdtext.PathLink(p))
		}
	}
	what := "the linter"
	if len(objs) > 0 {
		what += " on " + joinList(objs)
	}
	ev := &event{paths: ps, noun: "the lint run on " + joinList(objs), key: "lint\x00" + x}
	if len(objs) == 0 {
		ev.noun = "the lint run"
	}
	if failed {
		failure(ev, "You tried to run "+what, msg)
		return ev
	}
	for range ps {
		ev.acts = append(ev.acts, actRead)
	}
	switch {
	case outcome == "clean":
		ev.full = "You ran " + what + ", which reported no issues."
	case strings.HasSuffix(outcome, " warnings") && strings.Contains(outcome, " errors, "):
		e, w, _ := strings.Cut(strings.TrimSuffix(outcome, " warnings"), " errors, ")
		ev.full = "You ran " + what + ", which reported " + plural(e, "error") + " and " + plural(w, "warning") + "."
		if e != "0" {
			ev.fail, ev.errMsg = true, plural(e, "error")
		}
	case outcome != "":
		ev.full = "You ran " + what + ", which reported " + unescape(outcome) + "."
	default:
		ev.full = "You ran " + what + " (no result was recorded)."
		ev.unproven = true
	}
	ev.short = ev.full
	return ev
}

func docsSearchMarker(body string) *event {
	main, msg, failed := splitErr(body)
	n := linkify(unescape(main))
	what := "the library docs for “" + n + "”"
	if strings.TrimSpace(n) == "" {
		what = "the library docs with an empty query"
	}
	ev := &event{noun: "the search of " + what, key: "docs-search\x00" + n}
	if failed {
		failure(ev, "You tried to search "+what, msg)
		return ev
	}
	ev.full = "You searched " + what + "."
	ev.short = ev.full
	return ev
}

func docsReadMarker(body string) *event {
	main, msg, failed := splitErr(body)
	lib, topic, _ := strings.Cut(main, sepArrow)
	what := "the documentation of " + code(unescape(lib))
	if strings.TrimSpace(lib) == "" {
		what = "the documentation of an unnamed library"
	}
	if t := linkify(unescape(topic)); t != "" {
		what += " on “" + t + "”"
	}
	ev := &event{noun: "reading " + what, key: "docs-read\x00" + main}
	if failed {
		failure(ev, "You tried to read "+what, msg)
		return ev
	}
	ev.full = "You read " + what + "."
	ev.short = ev.full
	return ev
}

func askMarker(body string) *event {
	arrow := strings.Index(body, sepArrow)
	errAt := strings.Index(body, sepErr)
	if errAt >= 0 && (arrow < 0 || errAt < arrow) {
		main, msg, _ := splitErr(body)
		t := linkify(unescape(main))
		ev := &event{noun: "the question form “" + t + "”", key: "ask\x00" + t}
		failure(ev, "You tried to ask the user “"+t+"”", msg)
		return ev
	}
	title, answer := body, ""
	if arrow >= 0 {
		title, answer = body[:arrow], linkify(unescape(body[arrow+len(sepArrow):]))
	}
	t := linkify(unescape(title))
	ev := &event{noun: "the question form “" + t + "”", key: "ask\x00" + t, decision: true}
	base := "You asked the user “" + t + "”"
	switch {
	case arrow < 0:
		ev.full = base + "; no answer was recorded."
	case strings.TrimSpace(answer) == "":
		ev.full = base + "; no answers came back."
	case strings.Contains(answer, ": ") || strings.HasPrefix(answer, ":"):
		ev.full = base + "; they answered “" + strings.TrimRight(answer, " .") + "”."
		ev.answered = true
	case answer == "cancelled":
		ev.full = base + ", but the form was cancelled."
	default:
		ev.full = base + ", but the form was cancelled (" + answer + ")."
	}
	ev.short = ev.full
	return ev
}

func testsMarker(body string) *event {
	main, msg, failed := splitErr(body)
	x, outcome := main, ""
	if !failed {
		if a := strings.LastIndex(main, sepArrow); a >= 0 {
			x, outcome = main[:a], unescape(main[a+len(sepArrow):])
		}
	}
	what := "the tests"
	if t := strings.TrimSpace(linkify(unescape(x))); t != "" {
		what += " (" + t + ")"
	}
	ev := &event{noun: what, key: "tests\x00" + x}
	if failed {
		failure(ev, "You tried to run "+what, msg)
		return ev
	}
	switch outcome {
	case "passed":
		ev.full = "You ran " + what + ", which passed."
	case "":
		ev.full = "You ran " + what + " (no result was recorded)."
		ev.unproven = true
	default:
		ev.fail, ev.errMsg = true, outcome
		ev.full = "You ran " + what + ", which reported " + outcome + endMark(outcome)
	}
	ev.short = ev.full
	return ev
}

func watcherMarker(state string) func(string) *event {
	return func(body string) *event {
		main, msg, failed := splitErr(body)
		title, session, _ := strings.Cut(main, sepArrow)
		t := linkify(unescape(title))
		ev := &event{noun: "the watcher " + t, key: "watcher\x00" + t}
		if failed || state == "failed" {
			failure(ev, "You tried to create the watcher "+t, msg)
			return ev
		}
		if state == "requested" {
			ev.full = "You requested the watcher " + t + "."
		} else {
			ev.full = "You created the watcher " + t
			if s := strings.TrimPrefix(unescape(session), "session "); s != "" {
				ev.full += " (session " + s + ")"
			}
			ev.full += "."
		}
		ev.short = ev.full
		return ev
	}
}

func toolMarker(rest string) *event {
	name, msg, failed := splitErr(rest)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return nil
		}
	}
	if name == "" {
		return nil
	}
	ev := &event{noun: "the " + name + " tool call", key: "tool\x00" + name}
	if failed {
		failure(ev, "You tried to use the "+name+" tool", msg)
		return ev
	}
	ev.full = "You used the " + name + " tool."
	ev.short = ev.full
	return ev
}
