package mdtext

import (
	"regexp"
	"strings"
)

// Kind is the kind of a must-keep item.
type Kind string

// Item kinds, in the order they are listed.
const (
	KindPath     Kind = "path"
	KindLink     Kind = "link"
	KindColor    Kind = "color"
	KindHeading  Kind = "heading"
	KindDecision Kind = "decision"
	KindFailure  Kind = "failure"
)

// Kinds lists every kind in report order.
var Kinds = []Kind{KindPath, KindLink, KindColor, KindHeading, KindDecision, KindFailure}

// Item is one thing the prompt's rules say a briefing must keep.
type Item struct {
	Kind  Kind   `json:"kind"`
	Value string `json:"value"`
	// From is where the item was found: "previous" (the previous briefing),
	// "user" or "assistant" turns.
	From string `json:"from"`
}

// Need is a must-keep Item with what Briefing.Keeps needs to check it.
type Need struct {
	Item
	words   []string // decision: content words; failure: subject words without paths
	neg     bool     // decision: holds a negation that a paraphrase must keep
	paths   []string // failure: paths of the subject
	outcome failureOutcome
}

// Item sources.
const (
	FromPrevious  = "previous"
	FromUser      = "user"
	FromAssistant = "assistant"
)

// Paths.
//
// A path is a mount-prefixed workspace path: a mount prefix, a slash and at
// least one more character, as in w1/src/a.ts, w1a2/src/components/ or
// w3f9/README.md. The mount prefix is "w", one digit, then up to seven
// lower-case letters or digits (w1, w12, w1a2). The rest is letters,
// digits and _ . - @ + ~ % /; a trailing '.' (end of a sentence) and a
// trailing '/' are not part of the path. The character before the prefix
// must not be a letter, digit or one of _ . / - : @, so a.w1/b, x/w1/b and
// path:w1/b (a link, counted as a link) are not plain paths. Absolute
// paths (/home/…) and paths without a mount prefix (src/a.ts) are not
// counted: the prompt asks for mount-prefixed paths.
//
// Paths come from [](path:…) links (and legacy [](wsfile:…) links) and from
// plain paths, in the previous briefing, the user turns (including
// [mentioned: …] lines) and the assistant turns (text and tool markers). A
// briefing keeps a path when the same path appears in it, as a link target
// or plain.
//
// Markdown links are [label](target), ![alt](target) and [label](target
// "title"). Targets with the path:, wsfile: or slash: scheme are not counted
// as links (paths are counted as paths). A briefing keeps a link when the
// target appears in it.

// cleanPath trims a trailing '.' run and a trailing '/'; it returns "" when
// nothing is left after the mount prefix.
func cleanPath(p string) string {
	p = strings.TrimRight(p, ".")
	p = strings.TrimRight(p, "/")
	if strings.IndexByte(p, '/') < 0 {
		return ""
	}
	return p
}

// Colours.
//
// A colour value is a hex colour (#rgb, #rgba, #rrggbb, #rrggbbaa), a CSS
// colour function (rgb(), rgba(), hsl(), hsla(), hwb(), lab(), lch(),
// oklab(), oklch()) or, in user turns only, a CSS named colour (red, teal,
// rebeccapurple…). A hex colour must not follow a letter, digit, '/', '&',
// '#' or '-', nor be followed by one or by '-' (so page#top, &#39; and
// #abc-def are not colours); a short form made of digits only (#123, #000)
// counts only after a ':' (a CSS declaration), since "#123" is usually an
// issue number. Colours are compared case-insensitively, functions without
// white space; a briefing keeps a colour when it holds the same value.

// normColor is the form colours are compared in.
func normColor(v string) string {
	return strings.ToLower(strings.Join(strings.Fields(v), ""))
}

// namedColors returns the CSS named colours that are words of s (not part
// of a path, an identifier or a longer word).
func namedColors(s string) []string {
	var out []string
	letterWords(s, func(start, end int) {
		w := strings.ToLower(s[start:end])
		if !cssColors[w] {
			return
		}
		if start > 0 && strings.IndexByte("/.-_#@", s[start-1]) >= 0 {
			return
		}
		if end < len(s) && strings.IndexByte("/.-_(", s[end]) >= 0 {
			return
		}
		out = append(out, w)
	})
	return out
}

// cssColors are the CSS named colours (CSS Color Module Level 4).
var cssColors = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`aliceblue antiquewhite aqua aquamarine azure beige bisque black
		blanchedalmond blue blueviolet brown burlywood cadetblue chartreuse chocolate coral
		cornflowerblue cornsilk crimson cyan darkblue darkcyan darkgoldenrod darkgray darkgreen
		darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon
		darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink
		deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro
		ghostwhite gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory
		khaki lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan
		lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen
		lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime limegreen linen
		magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen
		mediumslateblue mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream
		mistyrose moccasin navajowhite navy oldlace olive olivedrab orange orangered orchid
		palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum
		powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown
		seagreen seashell sienna silver skyblue slateblue slategray slategrey snow springgreen
		steelblue tan teal thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen`) {
		m[w] = true
	}
	return m
}()

// Failures.
//
// A failure is a tool marker line of an assistant turn ("[verb: …]") that
// reports a failed outcome: " ✗ error" (an error or a denial), "→ exit N"
// with N not 0, or "→ timed out". The item's value is the marker without
// its brackets. A briefing keeps a failure when one window (a sentence, or
// two consecutive sentences) names both:
//   - the subject: one of the marker's paths, or, when it has none, at least
//     half of the content words of its label (a shell command's
//     explanation, a search query);
//   - the outcome: for exit N a word saying it failed (fail, failed,
//     failing, failure, error, broke, broken, crash, nonzero) or the number N
//     with exit, exited, code or status; for a time-out "timed out",
//     "timeout", "time out" or "timing out"; for ✗ at least half of the
//     error text's content words.
type failureOutcome struct {
	kind  string // "error", "exit", "timeout"
	code  string // exit status
	words []string
}

var (
	exitRe    = regexp.MustCompile(`\s→\s+exit\s+(-?\d+)$`)
	timeoutRe = regexp.MustCompile(`\s→\s+timed out$`)
)

// failureItem parses one assistant line; ok is false when it is not a
// failed tool marker.
func failureItem(line string) (Need, bool) {
	t := strings.TrimSpace(line)
	if len(t) < 3 || t[0] != '[' || t[len(t)-1] != ']' {
		return Need{}, false
	}
	inner := t[1 : len(t)-1]
	it := Need{Item: Item{Kind: KindFailure, Value: inner, From: FromAssistant}}
	var subject string
	if i := strings.Index(inner, " ✗ "); i >= 0 {
		subject = inner[:i]
		errText := strings.TrimSpace(inner[i+len(" ✗ "):])
		it.outcome = failureOutcome{kind: "error", words: ContentWords(errText)}
		if len(it.outcome.words) == 0 {
			it.outcome.words = []string{stem(strings.ToLower(errText))}
		}
	} else if m := exitRe.FindStringSubmatchIndex(inner); m != nil {
		code := inner[m[2]:m[3]]
		if code == "0" {
			return Need{}, false
		}
		subject = inner[:m[0]]
		it.outcome = failureOutcome{kind: "exit", code: code}
	} else if m := timeoutRe.FindStringIndex(inner); m != nil {
		subject = inner[:m[0]]
		it.outcome = failureOutcome{kind: "timeout"}
	} else {
		return Need{}, false
	}
	// Drop the marker's verb ("shell: ", "asked user: ").
	if i := strings.Index(subject, ": "); i >= 0 && strings.Count(subject[:i], " ") <= 1 && !strings.ContainsRune(subject[:i], '"') {
		subject = subject[i+2:]
	}
	it.paths = plainPaths(subject)
	it.words = ContentWords(subject)
	return it, true
}

// MustKeep lists the must-keep items of a compact history, grouped by kind
// in the order of Kinds and, within a kind, in order of first appearance
// (previous briefing, then the turns in order). Duplicates are dropped.
func MustKeep(h History) []Item {
	ms := Needs(h)
	out := make([]Item, len(ms))
	for i, m := range ms {
		out[i] = m.Item
	}
	return out
}

// Needs lists the items of MustKeep, each with what Briefing.Keeps needs
// to check it.
func Needs(h History) []Need {
	byKind := map[Kind][]Need{}
	seen := map[string]bool{}
	add := func(k Kind, value, norm, from string, it *Need) {
		key := string(k) + "\x00" + norm
		if seen[key] {
			return
		}
		seen[key] = true
		if it == nil {
			it = &Need{}
		}
		// A clone: the value must not keep the whole history alive.
		it.Kind, it.Value, it.From = k, strings.Clone(value), from
		byKind[k] = append(byKind[k], *it)
	}
	common := func(text, from string, named bool) {
		for _, p := range linkPaths(text) {
			add(KindPath, p, p, from, nil)
		}
		masked := maskLinks(text)
		for _, p := range plainPaths(masked) {
			add(KindPath, p, p, from, nil)
		}
		for _, l := range mdLinks(text) {
			add(KindLink, l, l, from, nil)
		}
		for _, c := range hexColors(masked, true) {
			add(KindColor, c, normColor(c), from, nil)
		}
		for _, c := range colorFuncValues(masked) {
			add(KindColor, c, normColor(c), from, nil)
		}
		if named {
			for _, c := range namedColors(masked) {
				add(KindColor, c, c, from, nil)
			}
		}
	}
	if h.HasPrevious {
		common(h.Previous, FromPrevious, false)
		for _, s := range SplitSections(h.Previous) {
			if !s.Preamble && s.Heading != "" {
				add(KindHeading, s.Heading, NormHeading(s.Heading), FromPrevious, nil)
			}
		}
	}
	for _, t := range h.Turns {
		if t.Role == FromUser {
			common(t.Text, FromUser, true)
			for _, d := range Decisions(t.Text) {
				it := &Need{words: ContentWords(d), neg: hasNegation(d)}
				if len(it.words) == 0 {
					continue
				}
				add(KindDecision, d, strings.ToLower(strings.Join(strings.Fields(d), " ")), FromUser, it)
			}
			continue
		}
		common(t.Text, FromAssistant, false)
		for _, p := range toolPaths(t.Text) {
			add(KindPath, p, p, FromAssistant, nil)
		}
		for _, line := range strings.Split(t.Text, "\n") {
			if it, ok := failureItem(line); ok {
				add(KindFailure, it.Value, it.Value, FromAssistant, &it)
			}
		}
	}
	var out []Need
	for _, k := range Kinds {
		out = append(out, byKind[k]...)
	}
	return out
}
