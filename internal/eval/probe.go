package eval

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/mdtext"
)

// Kind is the kind of a probe, after the four probe types of Factory's
// "Evaluating context compression" (2025).
type Kind string

// Probe kinds, in report order.
const (
	KindRecall       Kind = "recall"       // a fact stated in the history
	KindArtifact     Kind = "artifact"     // a file read, created, changed
	KindContinuation Kind = "continuation" // what was asked last, what is open
	KindDecision     Kind = "decision"     // what the user decided or required
)

// Kinds lists every kind in report order.
var Kinds = []Kind{KindArtifact, KindRecall, KindDecision, KindContinuation}

// Match modes: how the offline score looks for a probe's answer.
const (
	MatchPath    = "path"    // a file, however it is written
	MatchText    = "text"    // the text, exact or normalized
	MatchWords   = "words"   // most content words of a sentence in one window
	MatchFailure = "failure" // the subject, that it failed and (if so) that it was fixed
)

// Source is where a probe came from: the message (turn) of the compact
// history, 0-based in document order, and its role ("user", "assistant"),
// or "previous" (Message -1) for the earlier briefing inside
// <previous-chat-history>.
type Source struct {
	Message int    `json:"message"`
	From    string `json:"from"`
}

// Probe is one question with its expected answer. Several probes may share
// a question ("Which files did you edit?"); each expects one answer, any of
// Expected (the same thing written another way).
type Probe struct {
	ID       string   `json:"id"`
	Kind     Kind     `json:"kind"`
	Question string   `json:"question"`
	Expected []string `json:"expected"`
	Source   Source   `json:"source"`
	Match    string   `json:"match"`

	// what the matcher needs
	words   []string // MatchWords, MatchFailure: content words (subject)
	neg     bool     // MatchWords: a negation a paraphrase must keep
	min     float64  // MatchWords: share of words one window must hold
	paths   []string // MatchFailure: workspace-relative paths of the subject
	code    string   // MatchFailure: exit status, "timeout" or "" (an error)
	fixed   bool     // MatchFailure: a later run of the same subject succeeded
	subject string   // MatchFailure: the marker's subject
	relKey  string   // MatchPath: the workspace-relative path
	label   string   // what a report shows, when not Expected[0]
}

// shown is what a report names the probe by: its expected answer, with
// the field it answers for a form answer.
func (p *Probe) shown() string {
	if p.label != "" {
		return p.label
	}
	return p.Expected[0]
}

// Options of Mine.
type Options struct {
	// MaxPerTurn bounds the numbers and identifiers taken from one user
	// turn (default 6).
	MaxPerTurn int
}

// Mine lists the probes of a compact history (compact-history.xml), in
// order of kind (Kinds) and, within a kind, of first appearance: the
// previous briefing first, then the turns. Duplicates are dropped.
func Mine(compactHistory string, opt Options) []Probe {
	var c Miner
	// A redaction placeholder ("[REDACTED 120 chars]") is nobody's words:
	// a history of placeholders gives no probe.
	return c.mine(stripPlaceholders(compactHistory), opt, mdtext.IsDecision)
}

type miner struct {
	byKind map[Kind][]Probe
	seen   map[string]bool
	// artifact probes by relative path, to keep the strongest action
	files     map[string]*fileTrail
	fileOrder []string
	// failures (indexes of recall probes) by subject, to mark later
	// successes
	fails map[string][]int
}

// fileTrail is what happened to one file.
type fileTrail struct {
	path   string // as first written (mount-prefixed where it was)
	action int
	src    Source
}

// File actions, weakest first; a file's probe names the strongest.
const (
	actNamed = iota
	actMentioned
	actRead
	actMoved
	actDeleted
	actEdited
	actCreated
)

var actionQuestion = map[int]string{
	actNamed:     "Which files does the earlier work name?",
	actMentioned: "Which files did the user point you to?",
	actRead:      "Which files did you read?",
	actMoved:     "Which files did you move or copy, and where to?",
	actDeleted:   "Which files did you delete?",
	actEdited:    "Which files did you change?",
	actCreated:   "Which files did you create?",
}

func newMiner() *miner {
	return &miner{byKind: map[Kind][]Probe{}, seen: map[string]bool{}, files: map[string]*fileTrail{}, fails: map[string][]int{}}
}

// add adds p unless a probe of the same kind expects the same answer; it
// returns p's index among the probes of its kind, or -1.
func (m *miner) add(p Probe) int {
	key := string(p.Kind) + "\x00" + p.Match + "\x00" + normalize(p.Expected[0])
	if p.Match == MatchFailure {
		key += "\x00" + p.code
	}
	if m.seen[key] {
		return -1
	}
	m.seen[key] = true
	m.byKind[p.Kind] = append(m.byKind[p.Kind], p)
	return len(m.byKind[p.Kind]) - 1
}

func (m *miner) file(path string, action int, src Source) {
	path = strings.TrimRight(strings.TrimSpace(path), "/.")
	if path == "" || strings.ContainsAny(path, "*?{}") {
		return
	}
	rel := relPath(path)
	if rel == "" {
		return
	}
	if f, ok := m.files[rel]; ok {
		if action > f.action {
			f.action, f.src = action, src
		}
		return
	}
	m.files[rel] = &fileTrail{path: path, action: action, src: src}
	m.fileOrder = append(m.fileOrder, rel)
}

func (m *miner) result() []Probe {
	for _, rel := range m.fileOrder {
		f := m.files[rel]
		exp := []string{f.path}
		if rel != f.path {
			exp = append(exp, rel)
		}
		m.add(Probe{Kind: KindArtifact, Question: actionQuestion[f.action], Expected: exp, Source: f.src, Match: MatchPath, relKey: rel})
	}
	var out []Probe
	n := map[Kind]int{}
	for _, k := range Kinds {
		for _, p := range m.byKind[k] {
			n[k]++
			p.ID = fmt.Sprintf("%s-%d", k, n[k])
			out = append(out, p)
		}
	}
	return out
}

// relPath is a path made workspace-relative: a stagewise mount prefix
// (w1/, w1a2/) and a leading ./ are dropped. "" when nothing is left.
func relPath(p string) string {
	p = strings.TrimPrefix(p, "./")
	if strings.HasPrefix(p, "w") {
		if end, ok := mdtext.MountPathAt(p, 0); ok && end == len(p) {
			if i := strings.IndexByte(p, '/'); i >= 0 {
				p = p[i+1:]
			}
		}
	}
	return strings.TrimRight(p, "/")
}

// previous mines the earlier briefing: its paths, error identifiers and
// decisions (its closing working-state section excepted: the turns after
// it have moved on).
func (m *miner) previous(text string, isDecision func(string) bool) {
	src := Source{Message: -1, From: mdtext.FromPrevious}
	for _, p := range textPaths(text) {
		m.file(p, actNamed, src)
	}
	m.errorIDs(text, src)
	for _, s := range mdtext.SplitSections(text) {
		if strings.EqualFold(strings.TrimSpace(s.Heading), mdtext.WorkingStateHeading) {
			continue
		}
		for _, sent := range mdtext.Sentences(s.Body) {
			if namesUserOrRule(sent) && isDecision(sent) {
				m.decision(sent, "What did the earlier work record as decided or required?", src)
			}
		}
	}
}

func (m *miner) decision(sent, question string, src Source) {
	sent = strings.TrimSpace(sent)
	ws := mdtext.ContentWords(sent)
	if len(ws) < 2 {
		return
	}
	m.add(Probe{Kind: KindDecision, Question: question, Expected: []string{sent}, Source: src, Match: MatchWords,
		words: capWords(ws, 16), neg: hasNegation(sent), min: mdtext.ReuseThreshold})
}

// user mines a user turn: mentioned files, attachments, decisions, numbers
// and identifiers.
func (m *miner) user(text string, src Source, opt Options) {
	var prose []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "[mentioned: ") && strings.HasSuffix(t, "]"):
			for _, it := range strings.Split(t[len("[mentioned: "):len(t)-1], ", ") {
				if looksLikePath(it) {
					m.file(it, actMentioned, src)
				}
			}
			continue
		case strings.HasPrefix(t, "[attached: ") && strings.HasSuffix(t, "]"):
			for _, it := range strings.Split(t[len("[attached: "):len(t)-1], ", ") {
				it = strings.TrimSpace(it)
				if it != "" {
					m.add(Probe{Kind: KindRecall, Question: "Which file did the user attach?", Expected: []string{it}, Source: src, Match: MatchText})
				}
			}
			continue
		}
		prose = append(prose, line)
	}
	body := slashLinks.ReplaceAllString(strings.Join(prose, "\n"), "$1")
	for _, p := range textPaths(body) {
		m.file(p, actMentioned, src)
	}
	for _, d := range mdtext.Decisions(body) {
		m.decision(d, "What did the user decide or require?", src)
	}
	m.errorIDs(body, src)
	n := 0
	for _, sent := range mdtext.Sentences(stripFences(body)) {
		for _, v := range userValues(sent) {
			if n >= opt.MaxPerTurn {
				return
			}
			q := "Fill in the blank, as the user said it: “" + clip(strings.Replace(sent, v.text, "___", 1), 200) + "”"
			if m.add(Probe{Kind: KindRecall, Question: q, Expected: v.expected, Source: src, Match: MatchText}) >= 0 {
				n++
			}
		}
	}
}

// assistant mines an assistant turn: tool markers (files, failures, form
// answers), path links and plain paths, error identifiers.
func (m *miner) assistant(text string, src Source) {
	var prose []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if mk, ok := parseMarker(t); ok {
			m.marker(mk, src)
			continue
		}
		prose = append(prose, line)
	}
	body := strings.Join(prose, "\n")
	for _, p := range textPaths(body) {
		m.file(p, actNamed, src)
	}
	m.errorIDs(text, src)
}

// marker is one tool marker line: "[verb: rest]", with its outcome.
type marker struct {
	verb, subject string
	outcome       string // "ok", "exit", "timeout", "error", ""
	code          string // exit status
	errText       string
}

// splitMarker matches t against ^\[([a-z][a-z -]*?): (.*)\]$ and returns
// the two groups, without the regexp engine (it ran on every line of
// every history, and its cost grows with the line; TestSplitMarkerIsTheRegexp
// holds them the same): "[", a verb of lowercase letters, spaces and
// hyphens that starts with a letter, ": ", a subject without a newline,
// "]" last.
func splitMarker(t string) (verb, subject string, ok bool) {
	if len(t) < 3 || t[0] != '[' || t[len(t)-1] != ']' || t[1] < 'a' || t[1] > 'z' {
		return "", "", false
	}
	i := 2
	for i < len(t) && (t[i] >= 'a' && t[i] <= 'z' || t[i] == ' ' || t[i] == '-') {
		i++
	}
	// The verb is as short as it can be, so it ends at the first ": ";
	// a ':' cannot be in it, so that is where its bytes end.
	if i+2 > len(t)-1 || t[i] != ':' || t[i+1] != ' ' {
		return "", "", false
	}
	subject = t[i+2 : len(t)-1]
	if strings.IndexByte(subject, '\n') >= 0 {
		return "", "", false
	}
	return t[1:i], subject, true
}

func parseMarker(t string) (marker, bool) {
	verb, subject, ok := splitMarker(t)
	if !ok {
		return marker{}, false
	}
	mk := marker{verb: verb, subject: subject}
	if i := strings.Index(mk.subject, " ✗ "); i >= 0 {
		mk.outcome, mk.errText = "error", strings.TrimSpace(mk.subject[i+len(" ✗ "):])
		mk.subject = mk.subject[:i]
		return mk, true
	}
	if i := strings.LastIndex(mk.subject, " → "); i >= 0 {
		out := mk.subject[i+len(" → "):]
		switch {
		case out == "✓" || out == "clean":
			mk.outcome = "ok"
		case out == "timed out":
			mk.outcome = "timeout"
		case strings.HasPrefix(out, "exit "):
			mk.outcome, mk.code = "exit", strings.TrimPrefix(out, "exit ")
			if mk.code == "0" {
				mk.outcome = "ok"
			}
		}
		if mk.outcome != "" || mk.verb == "lint" || mk.verb == "shell" {
			if mk.verb != "moved" && mk.verb != "copied" && mk.verb != "docs-read" {
				mk.subject = mk.subject[:i]
			}
		}
	}
	return mk, true
}

var editCount = regexp.MustCompile(` \(\d+ edits?\)$`)

// trimEditCount is editCount.ReplaceAllString(s, ""), with the regexp
// engine only for what ends as a count of edits does.
func trimEditCount(s string) string {
	if !strings.HasSuffix(s, ")") {
		return s
	}
	return editCount.ReplaceAllString(s, "")
}

func (m *miner) marker(mk marker, src Source) {
	failed := mk.outcome == "error" || mk.outcome == "exit" || mk.outcome == "timeout"
	switch mk.verb {
	case "read":
		if !failed {
			m.file(mk.subject, actRead, src)
		}
	case "created":
		m.file(mk.subject, actCreated, src)
	case "wrote", "edited":
		if !failed {
			m.file(trimEditCount(mk.subject), actEdited, src)
		}
	case "deleted":
		if !failed {
			m.file(mk.subject, actDeleted, src)
		}
	case "moved", "copied":
		if !failed {
			if a, b, ok := strings.Cut(mk.subject, " → "); ok {
				m.file(a, actMoved, src)
				m.file(b, actCreated, src)
			}
		}
	case "lint":
		for _, p := range strings.Split(mk.subject, ", ") {
			if looksLikePath(p) {
				m.file(p, actRead, src)
			}
		}
	case "asked user":
		m.formAnswers(mk.subject, src)
	}
	subjectKey := mk.verb + "\x00" + normalize(trimEditCount(mk.subject))
	if !failed {
		if mk.outcome == "ok" || (mk.outcome == "" && mk.verb != "shell") {
			for _, i := range m.fails[subjectKey] {
				p := &m.byKind[KindRecall][i]
				p.fixed = true
				p.Expected = failureExpected(p.subject, p.code, true)
			}
			delete(m.fails, subjectKey)
		}
		return
	}
	if mk.verb == "asked user" || strings.HasPrefix(mk.subject, "new session") {
		return
	}
	subject := trimEditCount(mk.subject)
	code := mk.code
	if mk.outcome == "timeout" {
		code = "timeout"
	}
	var rels []string
	for _, p := range textPaths(subject) {
		rels = append(rels, relPath(p))
	}
	if len(rels) == 0 && looksLikePath(subject) {
		rels = append(rels, relPath(subject))
	}
	subject = clip(subject, 120)
	q := fmt.Sprintf("What happened when you ran “%s”, and was it fixed?", subject)
	if mk.verb != "shell" && mk.verb != "sandbox" {
		q = fmt.Sprintf("What happened to “%s: %s”, and was it fixed?", mk.verb, subject)
	}
	i := m.add(Probe{Kind: KindRecall, Question: q, Expected: failureExpected(subject, code, false), Source: src, Match: MatchFailure, subject: subject,
		words: capWords(mdtext.ContentWords(subject), 16), paths: rels, code: code})
	if i >= 0 {
		m.fails[subjectKey] = append(m.fails[subjectKey], i)
	}
	if mk.outcome == "error" {
		m.errorIDs(mk.errText, src)
	}
}

func failureExpected(subject, code string, fixed bool) []string {
	var out string
	switch code {
	case "timeout":
		out = "timed out"
	case "":
		out = "failed with an error"
	default:
		out = "failed with exit " + code
	}
	if fixed {
		return []string{subject + ": " + out + ", fixed later"}
	}
	return []string{subject + ": " + out + ", not fixed"}
}

// formAnswers turns "TITLE → label: value; label: value" into decisions.
func (m *miner) formAnswers(s string, src Source) {
	title, answers, ok := strings.Cut(s, " → ")
	if !ok {
		return
	}
	for _, a := range strings.Split(answers, "; ") {
		label, value, ok := strings.Cut(a, ": ")
		value = strings.TrimSpace(value)
		if !ok || value == "" || value == "true" || value == "false" {
			continue
		}
		q := fmt.Sprintf("In the form “%s”, what did the user answer to “%s”?", title, label)
		m.add(Probe{Kind: KindDecision, Question: q, Expected: []string{value}, Source: src, Match: MatchText, label: label + ": " + value})
	}
}

// continuation mines the last user request and a question the assistant
// left open at the end.
func (m *miner) continuation(h mdtext.History) {
	for i := len(h.Turns) - 1; i >= 0; i-- {
		t := h.Turns[i]
		if t.Role != mdtext.FromUser {
			continue
		}
		var prose []string
		for _, line := range strings.Split(t.Text, "\n") {
			l := strings.TrimSpace(line)
			if strings.HasPrefix(l, "[attached: ") || strings.HasPrefix(l, "[mentioned: ") ||
				strings.HasPrefix(l, "[command: ") || strings.HasPrefix(l, "[command output: ") {
				continue
			}
			prose = append(prose, line)
		}
		if strings.TrimSpace(strings.Join(prose, "")) == "" {
			continue // a slash command, not a request: the one before
		}
		req := strings.TrimSpace(slashLinks.ReplaceAllString(strings.Join(prose, " "), "$1"))
		ss := mdtext.Sentences(req)
		if len(ss) > 2 {
			req = strings.Join(ss[:2], " ")
		}
		ws := mdtext.ContentWords(req)
		if len(ws) > 0 {
			m.add(Probe{Kind: KindContinuation, Question: "What did the user ask for last?", Expected: []string{clip(req, 300)},
				Source: Source{Message: i, From: t.Role}, Match: MatchWords, words: capWords(ws, 12), neg: hasNegation(req), min: 0.5})
		}
		break
	}
	if n := len(h.Turns); n > 0 && h.Turns[n-1].Role == mdtext.FromAssistant {
		var prose []string
		for _, line := range strings.Split(h.Turns[n-1].Text, "\n") {
			if _, ok := parseMarker(strings.TrimSpace(line)); !ok {
				prose = append(prose, line)
			}
		}
		ss := mdtext.Sentences(strings.Join(prose, "\n"))
		if len(ss) > 0 && strings.HasSuffix(strings.TrimSpace(ss[len(ss)-1]), "?") {
			q := strings.TrimSpace(ss[len(ss)-1])
			if ws := mdtext.ContentWords(q); len(ws) >= 2 {
				m.add(Probe{Kind: KindContinuation, Question: "What did you last ask the user, still unanswered?", Expected: []string{q},
					Source: Source{Message: n - 1, From: mdtext.FromAssistant}, Match: MatchWords, words: capWords(ws, 12), min: 0.5})
			}
		}
	}
}

// errorIDs adds a recall probe for each error identifier of text:
// TypeScript codes (TS2345), errno names (ENOENT, EACCES) and exception
// names (TypeError).
func (m *miner) errorIDs(text string, src Source) {
	for _, id := range errorIDs(text) {
		m.add(Probe{Kind: KindRecall, Question: "Which error identifiers came up?", Expected: []string{id}, Source: src, Match: MatchText})
	}
}

// errorIDs lists the words of s that are error identifiers: TS and four
// or five digits, an errno name of errnoNames, or a capitalised word
// ending in Error or Exception. Words are runs of ASCII letters and
// digits.
func errorIDs(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		if !isAlnum(c) {
			i++
			continue
		}
		j := i
		for j < len(s) && isAlnum(s[j]) {
			j++
		}
		w := s[i:j]
		glued := (i > 0 && s[i-1] >= 0x80) || (j < len(s) && (s[j] >= 0x80 || s[j] == '_'))
		if !glued && isErrorID(w) {
			out = append(out, w)
		}
		i = j
	}
	return out
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isErrorID(w string) bool {
	switch {
	case len(w) >= 6 && len(w) <= 7 && w[0] == 'T' && w[1] == 'S':
		for k := 2; k < len(w); k++ {
			if w[k] < '0' || w[k] > '9' {
				return false
			}
		}
		return true
	case w[0] == 'E' && errnoNames[w]:
		return true
	case w[0] >= 'A' && w[0] <= 'Z' && (strings.HasSuffix(w, "Error") && len(w) > 5 || strings.HasSuffix(w, "Exception") && len(w) > 9):
		return true
	}
	return false
}

var errnoNames = map[string]bool{}

func init() {
	for _, n := range strings.Fields("EACCES ENOENT EADDRINUSE ECONNREFUSED ECONNRESET EPERM EEXIST EISDIR ENOTDIR ETIMEDOUT ENOTFOUND EMFILE ENOSPC EPIPE ENOTEMPTY ERESOLVE ELIFECYCLE") {
		errnoNames[n] = true
	}
}

var slashLinks = regexp.MustCompile(`\[(/[^\]\n]*)\]\(slash:[^)\s]*\)`)

// value is a number or identifier the user gave, with the forms that
// count as the same answer.
type value struct {
	text     string
	expected []string
}

var (
	numberRe   = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_./#-])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?(px|ms|s|%|k|kb|mb|gb|x|rem|em|fps|min|h)?\b`)
	backtickRe = regexp.MustCompile("`([^`\n]{2,60})`")
	hexRe      = regexp.MustCompile(`(?:^|[^\p{L}\p{N}&#/-])(#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?(?:[0-9a-fA-F]{2})?)\b`)
	urlRe      = regexp.MustCompile(`https?://[^\s)>\]"'` + "`" + `]+`)
)

// userValues lists the numbers (two digits or more, or with a unit),
// backticked identifiers, hex colours and URLs of one user sentence, not
// counting those inside a path.
func userValues(sent string) []value {
	var out []value
	masked := maskPaths(sent)
	for _, m := range urlRe.FindAllString(sent, -1) {
		out = append(out, value{text: m, expected: []string{strings.TrimRight(m, ".,;:")}})
		masked = strings.Replace(masked, m, strings.Repeat(" ", len(m)), 1)
	}
	for _, m := range backtickRe.FindAllStringSubmatch(sent, -1) {
		out = append(out, value{text: m[0], expected: []string{m[1]}})
		masked = strings.Replace(masked, m[0], strings.Repeat(" ", len(m[0])), 1)
	}
	for _, m := range hexRe.FindAllStringSubmatch(masked, -1) {
		out = append(out, value{text: m[1], expected: []string{m[1]}})
	}
	for _, m := range numberRe.FindAllStringSubmatch(masked, -1) {
		num, unit := m[1], m[2]
		digits := strings.ReplaceAll(num, ",", "")
		if unit == "" && len(strings.TrimLeft(strings.Split(digits, ".")[0], "0")) < 2 {
			continue
		}
		v := value{text: strings.TrimSpace(strings.TrimLeft(m[0], " \t")), expected: []string{num}}
		if i := strings.Index(v.text, num); i > 0 {
			v.text = v.text[i:]
		}
		if digits != num {
			v.expected = append(v.expected, digits)
		}
		if unit != "" {
			with := v.expected[:0:0]
			for _, e := range v.expected {
				with = append(with, e+" "+unit, e+unit)
			}
			v.expected = with
		}
		out = append(out, v)
	}
	return out
}

// maskPaths blanks mount-prefixed and slashed paths, so that their digits
// are not taken for numbers.
func maskPaths(s string) string {
	b := []byte(s)
	for _, t := range tokens(s) {
		if strings.IndexByte(t.s, '/') >= 0 {
			for i := t.start; i < t.end; i++ {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// stripFences drops fenced code blocks (pasted code and logs).
func stripFences(s string) string {
	if !strings.Contains(s, "```") && !strings.Contains(s, "~~~") {
		return s
	}
	var out []string
	in := false
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			in = !in
			continue
		}
		if !in {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// looksLikePath reports whether s is a file or folder path: a
// mount-prefixed path, or a word of path characters with a '/' or an
// extension.
func looksLikePath(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " \t*?{}") {
		return false
	}
	for _, r := range s {
		if !mdtext.IsPathRune(r) {
			return false
		}
	}
	return strings.Contains(strings.Trim(s, "/"), "/") || strings.Contains(strings.TrimLeft(s, "."), ".")
}

// textPaths lists the paths of prose: [](path:…) and [](wsfile:…) link
// targets and plain mount-prefixed paths.
func textPaths(s string) []string {
	var out []string
	for _, p := range linkTargets(s) {
		out = append(out, p)
	}
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], 'w')
		if k < 0 {
			break
		}
		w := i + k
		if w > 0 {
			r := lastRune(s[:w])
			if mdtext.GluedBefore(r) {
				i = w + 1
				continue
			}
		}
		if end, ok := mdtext.MountPathAt(s, w); ok {
			p := strings.TrimRight(strings.TrimRight(s[w:end], "."), "/")
			if strings.IndexByte(p, '/') >= 0 {
				out = append(out, p)
			}
			i = end
			continue
		}
		i = w + 1
	}
	return out
}

func capWords(ws []string, n int) []string {
	if len(ws) > n {
		return ws[:n]
	}
	return ws
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// namesUserOrRule keeps, of the previous briefing's sentences, those the
// decision heuristic is asked about: sentences that name the user or are
// themselves a rule ("Do not reintroduce CSS filters."). The heuristic is
// made for the user's own words; a briefing's narration ("you created …")
// is not a decision.
func namesUserOrRule(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"do not ", "don't ", "don’t ", "never ", "always ", "keep ", "use ", "avoid ", "only "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	for i := 0; ; {
		k := strings.Index(l[i:], "user")
		if k < 0 {
			return false
		}
		a, b := i+k, i+k+4
		if (a == 0 || !isLetter(l[a-1])) && (b == len(l) || !isLetter(l[b])) {
			return true
		}
		i = b
	}
}

// negationWords say that something is not to be done, or done instead of
// something else; a decision that holds one keeps its sense only with one.
var negationWords = map[string]bool{"not": true, "no": true, "never": true, "nor": true, "neither": true, "without": true,
	"cannot": true, "avoid": true, "instead": true, "rather": true}

// hasNegation reports whether s holds a negation word (any case) or an
// n't contraction.
func hasNegation(s string) bool {
	if strings.Contains(s, "n't") || strings.Contains(s, "n’t") {
		return true
	}
	for i := 0; i < len(s); {
		if !isLetter(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		// A whole word: no letter, ASCII or not, on either side (a curly
		// quote before "No" is no letter).
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[j:])
		whole := (i == 0 || !unicode.IsLetter(before)) && (j >= len(s) || !unicode.IsLetter(after))
		if j-i >= 2 && j-i <= 7 && whole && negationWords[strings.ToLower(s[i:j])] {
			return true
		}
		i = j
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
