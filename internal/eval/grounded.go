package eval

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/mdtext"
)

// Grounded probe kinds: what the agent used after the compaction that the
// compacted part held. Each is mined from the continuation (what the
// session did next, continuation.xml) and kept only when the compacted
// history (compact-history.xml, the earlier briefing in it included)
// holds it too.
const (
	// KindFileUsed is a file of the compacted part the agent went back
	// to: read, edited, searched or named again.
	KindFileUsed Kind = "file-used"
	// KindCommandRerun is a command of the compacted part the agent ran
	// again.
	KindCommandRerun Kind = "command-rerun"
	// KindNameUsed is an identifier, error name or code value of the
	// compacted part the agent wrote in its text or its calls before the
	// user gave it again.
	KindNameUsed Kind = "name-used"
	// KindRequestCarried is the user's last request, when the agent
	// carried on with it (the continuation starts with the agent).
	KindRequestCarried Kind = "request-carried"
)

// GroundedKinds lists the grounded kinds in report order.
var GroundedKinds = []Kind{KindFileUsed, KindCommandRerun, KindNameUsed, KindRequestCarried}

// maxNamesUsed bounds the names one continuation gives, so that a
// continuation that quotes a lot of code does not make the measure a
// measure of names alone.
const maxNamesUsed = 24

// MineGrounded lists the grounded probes of a compaction: compactHistory
// is the compacted part (compact-history.xml), continuation what the
// session did after it (continuation.xml, the same layout). None when the
// continuation is empty or uses nothing of the compacted part: such a
// bundle is not measurable by this measure.
func MineGrounded(compactHistory, continuation string) []Probe {
	return NewGrounded(compactHistory, continuation).Probes
}

// Grounded is what the grounded measure knows of one compaction: its
// probes (what the agent needed next) and the files and names of the
// compacted part, to tell how much of what a briefing names was needed.
type Grounded struct {
	Probes []Probe
	past   *pastIndex
	needed map[string]bool // item keys of the file and name probes
}

// NewGrounded mines the grounded probes of a compaction (MineGrounded).
func NewGrounded(compactHistory, continuation string) *Grounded {
	g := &Grounded{needed: map[string]bool{}}
	compactHistory = stripPlaceholders(compactHistory)
	g.past = newPastIndex(mdtext.ParseHistory(compactHistory))
	g.Probes = mineGrounded(compactHistory, mdtext.ParseContinuation(stripPlaceholders(continuation)), g.past)
	for _, p := range g.Probes {
		switch p.Kind {
		case KindFileUsed:
			g.needed[fileItem(p.relKey)] = true
		case KindNameUsed, KindCommandRerun:
			g.needed[nameItem(p.Expected[0])] = true
		}
	}
	return g
}

func fileItem(rel string) string { return "f\x00" + rel }
func nameItem(n string) string   { return "n\x00" + n }

// named lists the items of text the compacted part holds: its files (with
// an extension) and its code names.
func (g *Grounded) named(text string) map[string]bool {
	out := map[string]bool{}
	for _, p := range prosePaths(text) {
		if rel := relPath(p); g.past.paths[rel] && isFileName(path.Base(rel)) {
			out[fileItem(rel)] = true
		}
	}
	for _, n := range codeNames(text) {
		if g.past.has(n) {
			out[nameItem(n)] = true
		}
	}
	return out
}

func mineGrounded(compactHistory string, c mdtext.History, past *pastIndex) []Probe {
	if len(c.Turns) == 0 {
		return nil
	}
	h := mdtext.ParseHistory(compactHistory)
	m := newMiner()
	given := map[string]bool{} // names the user gave in the continuation
	names := 0
	for i, t := range c.Turns {
		src := Source{Message: i, From: t.Role}
		if t.Role == mdtext.FromOutput || t.Role == mdtext.FromUser {
			for _, n := range codeNames(t.Text) {
				given[n] = true
			}
			for _, p := range prosePaths(t.Text) {
				given["\x00"+relPath(p)] = true
			}
			continue
		}
		var prose []string
		for _, line := range strings.Split(t.Text, "\n") {
			mk, ok := parseMarker(strings.TrimSpace(line))
			if !ok {
				prose = append(prose, line)
				continue
			}
			for _, p := range markerPaths(mk) {
				rel := relPath(p)
				if rel != "" && past.paths[rel] && !given["\x00"+rel] && isFileName(path.Base(rel)) {
					m.add(Probe{Kind: KindFileUsed, Question: "Which files of the earlier work did you need next?", Expected: uniq(p, rel), Source: src, Match: MatchPath, relKey: rel})
				}
			}
			if mk.verb == "shell" || mk.verb == "sandbox" {
				cmd := commandKey(mk.subject)
				if cmd != "" && past.commands[cmd] {
					m.add(Probe{Kind: KindCommandRerun, Question: "Which commands of the earlier work did you run again?", Expected: []string{strings.TrimSpace(mk.subject)}, Source: src, Match: MatchText})
				}
			}
			prose = append(prose, mk.subject)
		}
		for _, p := range prosePaths(strings.Join(prose, "\n")) {
			rel := relPath(p)
			if rel != "" && past.paths[rel] && !given["\x00"+rel] && isFileName(path.Base(rel)) {
				m.add(Probe{Kind: KindFileUsed, Question: "Which files of the earlier work did you need next?", Expected: uniq(p, rel), Source: src, Match: MatchPath, relKey: rel})
			}
		}
		for _, n := range codeNames(strings.Join(prose, "\n")) {
			if names >= maxNamesUsed || given[n] || !past.has(n) {
				continue
			}
			if m.add(Probe{Kind: KindNameUsed, Question: "Which names and values of the earlier work did you use?", Expected: []string{n}, Source: src, Match: MatchText}) >= 0 {
				names++
			}
		}
	}
	if c.Turns[0].Role != mdtext.FromUser {
		// The agent went on without a new request: the last one of the
		// compacted part is what it carried on with, if its first turns
		// show it (two of the request's content words, or all of them).
		var before strings.Builder
		for _, t := range c.Turns {
			if t.Role == mdtext.FromUser {
				break
			}
			if t.Role == mdtext.FromAssistant {
				before.WriteString(t.Text)
				before.WriteByte('\n')
			}
		}
		did := map[string]bool{}
		for _, w := range mdtext.ContentWords(before.String()) {
			did[w] = true
		}
		old := newMiner()
		old.continuation(h)
		for _, p := range old.byKind[KindContinuation] {
			if p.Source.From != mdtext.FromUser {
				continue
			}
			shared := 0
			for _, w := range p.words {
				if did[w] {
					shared++
				}
			}
			if shared >= 2 || shared == len(p.words) && shared > 0 {
				p.Kind, p.Question = KindRequestCarried, "What were you asked to do, that you carried on with?"
				m.add(p)
			}
		}
	}
	var out []Probe
	for _, k := range GroundedKinds {
		for i, p := range m.byKind[k] {
			p.ID = fmt.Sprintf("%s-%d", k, i+1)
			out = append(out, p)
		}
	}
	return out
}

func uniq(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// pastIndex is what the compacted part holds: its files, its commands,
// its words.
type pastIndex struct {
	paths    map[string]bool
	commands map[string]bool
	text     string
	words    map[string]bool
}

func newPastIndex(h mdtext.History) *pastIndex {
	x := &pastIndex{paths: map[string]bool{}, commands: map[string]bool{}, words: map[string]bool{}}
	var all strings.Builder
	add := func(text string) {
		all.WriteString(text)
		all.WriteByte('\n')
		for _, line := range strings.Split(text, "\n") {
			mk, ok := parseMarker(strings.TrimSpace(line))
			if !ok {
				for _, p := range prosePaths(line) {
					x.paths[relPath(p)] = true
				}
				continue
			}
			for _, p := range markerPaths(mk) {
				x.paths[relPath(p)] = true
			}
			if mk.verb == "shell" || mk.verb == "sandbox" {
				x.commands[commandKey(mk.subject)] = true
			}
		}
	}
	if h.HasPrevious {
		add(h.Previous)
	}
	for _, t := range h.Turns {
		add(t.Text)
	}
	delete(x.paths, "")
	delete(x.commands, "")
	x.text = all.String()
	eachNameToken(x.text, func(start, end int) { x.words[x.text[start:end]] = true })
	return x
}

// has reports whether the compacted part holds name: as a token, or, for
// a quoted span with spaces or punctuation, as text.
func (x *pastIndex) has(name string) bool {
	if x.words[name] {
		return true
	}
	return strings.ContainsAny(name, " =:(/\"'") && strings.Contains(x.text, name)
}

// markerPaths lists the files a tool marker names: the file of a read,
// edit, write, creation, deletion, move or copy, the folder or file a
// search ran in ("PATTERN in PATH"), the files of a lint.
func markerPaths(mk marker) []string {
	s := trimEditCount(mk.subject)
	var out []string
	switch mk.verb {
	case "read", "created", "wrote", "edited", "deleted", "viewed", "opened":
		out = append(out, s)
	case "moved", "copied":
		if a, b, ok := strings.Cut(s, " → "); ok {
			out = append(out, a, b)
		}
	case "lint":
		out = append(out, strings.Split(s, ", ")...)
	default:
		if i := strings.LastIndex(s, " in "); i >= 0 {
			out = append(out, s[i+len(" in "):])
		}
		out = append(out, textPaths(s)...)
		for _, w := range strings.Fields(s) {
			w = strings.Trim(w, "`'\"()[]{},;")
			if strings.Contains(w, "/") && looksLikePath(w) {
				out = append(out, w)
			}
		}
	}
	var keep []string
	for _, p := range out {
		p = strings.TrimRight(strings.TrimSpace(p), "/.")
		if p != "" && looksLikePath(p) && !strings.ContainsAny(p, "*?{}") {
			keep = append(keep, p)
		}
	}
	return keep
}

// commandKey is a shell command as it is compared: its first line, white
// space folded, a trailing redirection of stderr dropped ("" for a
// command too short to say anything).
func commandKey(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimSuffix(s, " 2>&1")
	prog, _, _ := strings.Cut(s, " ")
	if len(s) < 4 || !strings.Contains(s, " ") || genericCommands[path.Base(prog)] {
		return ""
	}
	return s
}

// genericCommands are programs any session runs whatever it knows
// (version control, listing, paging, searching): running one again says
// nothing of what the earlier work taught. A project's own commands
// (its build, its tests, its scripts) do.
var genericCommands = map[string]bool{
	"git": true, "gh": true, "ls": true, "cd": true, "pwd": true, "cat": true, "echo": true, "head": true, "tail": true,
	"wc": true, "find": true, "grep": true, "rg": true, "which": true, "tree": true, "date": true, "sleep": true,
	"less": true, "more": true, "sed": true, "awk": true, "sort": true, "diff": true, "stat": true, "file": true,
}

// nameTokens are the words a name is taken from: identifiers with
// dots, colons or arrows between their parts (eachNameToken finds them;
// this is their definition, and a test holds the two equal).
var nameTokens = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|->)[A-Za-z_$][A-Za-z0-9_$]*)*`)

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isNameByte(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

// isOneNameToken reports whether s is one match of nameTokens, whole:
// nameTokens.FindString(s) == s for a non-empty s, without the regexp
// engine (it ran on every code span of every history).
func isOneNameToken(s string) bool {
	whole := false
	first := true
	eachNameToken(s, func(start, end int) {
		if first {
			whole = start == 0 && end == len(s)
			first = false
		}
	})
	return whole && s != ""
}

// eachNameToken calls fn with the bounds of each match of nameTokens in
// s, leftmost first, as FindAllStringIndex would (linear, without the
// regexp engine, which is several times slower on long histories).
func eachNameToken(s string, fn func(start, end int)) {
	for i := 0; i < len(s); {
		if !isNameStart(s[i]) {
			i++
			continue
		}
		start := i
		i++
		for {
			for i < len(s) && isNameByte(s[i]) {
				i++
			}
			j := i
			switch {
			case j < len(s) && s[j] == '.':
				j++
			case j+1 < len(s) && (s[j] == ':' && s[j+1] == ':' || s[j] == '-' && s[j+1] == '>'):
				j += 2
			default:
				j = -1
			}
			if j < 0 || j >= len(s) || !isNameStart(s[j]) {
				break
			}
			i = j + 1
		}
		fn(start, i)
	}
}

// eachCodeSpan calls fn with the inside of each code span of text, as
// the expression `([^`\n]{3,80})` finds them, leftmost first (linear,
// without the regexp engine, which ran on every history;
// TestEachCodeSpanIsTheRegexp holds them the same): a backquote, 3 to 80
// characters that are neither a backquote nor a newline, a backquote.
func eachCodeSpan(text string, fn func(inner string)) {
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '`')
		if j < 0 {
			return
		}
		start := i + j
		k, n := start+1, 0
		for k < len(text) && text[k] != '`' && text[k] != '\n' {
			_, w := utf8.DecodeRuneInString(text[k:])
			k += w
			n++
		}
		if k < len(text) && text[k] == '`' && n >= 3 && n <= 80 {
			fn(text[start+1 : k])
			i = k + 1
			continue
		}
		// No span starts here; the next can start at the next backquote
		// (the one that ended this run, if any).
		i = start + 1
	}
}

// codeNames lists the names of text, in order: code spans that are not
// paths, and identifiers that look like code (snake_case, camelCase,
// PascalCase with two humps, dotted names, letters with digits).
func codeNames(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	eachCodeSpan(text, func(inner string) {
		s := strings.TrimSpace(inner)
		if s == "" || isFileName(s) || strings.HasPrefix(s, "[") {
			return
		}
		if isOneNameToken(s) {
			if codeLike(s) {
				add(s)
			}
			return
		}
		if len(s) >= 6 && strings.IndexFunc(s, unicode.IsLetter) >= 0 {
			add(s)
		}
	})
	eachNameToken(text, func(start, end int) {
		w := text[start:end]
		if start > 0 && (isAlnum(text[start-1]) || text[start-1] == '#') {
			return // the tail of a word or a number: 0f766e, #0f766e
		}
		if codeLike(w) && !isFileName(w) && !mountPrefix.MatchString(w) {
			add(w)
		}
	})
	return out
}

// mountPrefix is a stagewise workspace mount (w1, w1a2): part of a path,
// not a name.
var mountPrefix = regexp.MustCompile(`^w[0-9]+(?:[a-z][0-9]+)*$`)

// codeLike reports whether w is written as code, not as a word: an
// underscore, a dot or colon between parts, a lower-case letter followed
// by an upper-case one (camelCase, PascalCase), or letters and digits
// together; at least four characters.
func codeLike(w string) bool {
	if len(w) < 4 {
		return false
	}
	var lower, digit, letter bool
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c == '_' && i > 0 && i < len(w)-1:
			return true
		case c == '.' || c == ':' || c == '>':
			return true
		case c >= 'a' && c <= 'z':
			lower, letter = true, true
		case c >= 'A' && c <= 'Z':
			if lower {
				return true
			}
			letter = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return letter && digit
}

// isFileName reports whether a name is a file rather than code: a path
// with a slash, or a name whose last dotted part is a short lower-case
// extension (main.go, package.json; not checkpoint.TokenUsage).
func isFileName(s string) bool {
	if !looksLikePath(s) {
		return false
	}
	if strings.Contains(s, "/") {
		return true
	}
	i := strings.LastIndexByte(s, '.')
	ext := s[i+1:]
	if len(ext) == 0 || len(ext) > 5 {
		return false
	}
	for j := 0; j < len(ext); j++ {
		if c := ext[j]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// prosePaths lists the files prose names: path links, mount-prefixed
// paths and words with a slash that look like a path.
func prosePaths(s string) []string {
	out := textPaths(s)
	for _, w := range strings.Fields(s) {
		w = strings.TrimRight(strings.Trim(w, "`'\"()[]{},;:!?*<>"), ".")
		if strings.Contains(w, "/") && !strings.Contains(w, "://") && looksLikePath(w) {
			out = append(out, w)
		}
	}
	return out
}

// placeholder is a redaction placeholder: "[REDACTED]", "[REDACTED 120
// chars]" and the like. Its words are nobody's.
var placeholder = regexp.MustCompile(`\[REDACTED[^\]\n]*\]`)

func stripPlaceholders(s string) string {
	if !strings.Contains(s, "[REDACTED") {
		return s
	}
	return placeholder.ReplaceAllString(s, "")
}

// ReReads lists the files the continuation reads that the compacted
// history had read too (workspace-relative, in the order the agent read
// them again): the re-read tax of the compaction.
func ReReads(compactHistory, continuation string) []string {
	read := func(turns []mdtext.Turn, fn func(rel string)) {
		for _, t := range turns {
			if t.Role != mdtext.FromAssistant {
				continue
			}
			for _, line := range strings.Split(t.Text, "\n") {
				mk, ok := parseMarker(strings.TrimSpace(line))
				if !ok || mk.verb != "read" || mk.outcome == "error" {
					continue
				}
				for _, p := range markerPaths(mk) {
					if rel := relPath(p); rel != "" && isFileName(path.Base(rel)) {
						fn(rel)
					}
				}
			}
		}
	}
	before := map[string]bool{}
	read(mdtext.ParseHistory(compactHistory).Turns, func(rel string) { before[rel] = true })
	out := []string{}
	seen := map[string]bool{}
	read(mdtext.ParseContinuation(continuation).Turns, func(rel string) {
		if before[rel] && !seen[rel] {
			seen[rel] = true
			out = append(out, rel)
		}
	})
	return out
}

// namedFiles counts the files of rels (workspace-relative) text names,
// however it writes them.
func namedFiles(text string, rels []string) int {
	if len(rels) == 0 {
		return 0
	}
	b := NewBriefing(text)
	n := 0
	for _, rel := range rels {
		if ok, _ := b.Check(&Probe{Match: MatchPath, Expected: []string{rel}, relKey: rel}); ok {
			n++
		}
	}
	return n
}
