package briefing

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/compactlab/compact/internal/history"
)

// This file carries the previous briefing over. Its text is kept as it was,
// with the few changes the output rules force: wsfile: links become path:
// links, headings of any level become ## headings, list markers, table pipes
// and code fences go, and an old "Current working state" section is renamed,
// since the new one ends the briefing. When the budget calls for it a section
// is shortened in place: its heading, first two sentences, the sentences that
// record a decision or an outcome, and every link of the rest are kept.
// When even that leaves no room, the oldest sections are merged into one
// digest (mergeOldest, below).

const (
	earlierHeading   = "Earlier work"
	stateHeading     = "Current working state"
	oldStateHeading  = "Working state at the previous compaction"
	maxLinksMinimal  = 12
	keepFirstPrevSen = 2
)

// prevSection is one ## section of the previous briefing.
type prevSection struct {
	heading string
	body    string // lines as they were, sanitized
	isState bool   // the old "Current working state" section
	digest  bool   // the digest of older sections (mergeOldest): never shortened
	bare    string // a digest's body with only the notes of decisions, for level 2
	none    string // a digest's body without notes, for level 3

	// renders by level, and the sentences of the body with their notes
	// (nil for a sentence that is none), once computed
	cache     [4]string
	have      [4]bool
	sents     []string
	sentNotes []*digestNote
	notesDone bool
}

// sentences splits the body into sentences, once.
func (p *prevSection) sentences() []string {
	if p.sents == nil {
		p.sents = sentences(flatten(p.body))
		if p.sents == nil {
			p.sents = []string{}
		}
	}
	return p.sents
}

// sentenceNotes splits the body into sentences and finds their notes,
// once.
func (p *prevSection) sentenceNotes() ([]string, []*digestNote) {
	if !p.notesDone {
		p.notesDone = true
		p.sentences()
		p.sentNotes = make([]*digestNote, len(p.sents))
		for i, s := range p.sents {
			if n, ok := noteOf(s); ok {
				p.sentNotes[i] = &n
			}
		}
	}
	return p.sents, p.sentNotes
}

// decisionWords mark sentences a shortened section keeps: decisions,
// constraints and outcomes.
var decisionWords = []string{
	"decid", "decision", "prefer", "must", "never", "always", "reject", "revert",
	"instead", "fail", "error", "broke", "constraint", "rule", "do not", "don't",
	"should not", "confirmed", "passed", "succeeded", "agreed", "chose",
}

func splitPrev(prev string) []prevSection {
	prev = fixWsfile(strings.ReplaceAll(prev, "\r\n", "\n"))
	var out []prevSection
	var cur *prevSection
	var body []string
	inFence := false
	flush := func() {
		if cur == nil {
			if strings.TrimSpace(strings.Join(body, "\n")) == "" {
				body = body[:0]
				return
			}
			cur = &prevSection{heading: earlierHeading}
		}
		cur.body = strings.TrimRight(strings.Trim(strings.Join(body, "\n"), "\n"), " \t\n")
		out = append(out, *cur)
		cur, body = nil, body[:0]
	}
	for _, ln := range strings.Split(prev, "\n") {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if !inFence {
			if h, ok := headingLine(t); ok {
				flush()
				cur = &prevSection{heading: h}
				if strings.EqualFold(h, stateHeading) {
					cur.isState = true
				}
				continue
			}
		}
		body = append(body, sanitizeLine(ln))
	}
	flush()
	for i := range out {
		// A digest this writer wrote is kept whole, as a digest, and not
		// shortened like prose (that would lose the list its next merge
		// reads the links from); it gives up its notes at levels 2 and 3.
		if _, _, _, ok := parseDigest(&out[i]); ok {
			var d digest
			d.add(&out[i])
			again := d.section()
			out[i].digest, out[i].bare, out[i].none = true, again.bare, again.none
		}
	}
	return out
}

// headingLine recognises "#…# text" (a space or a tab after the marks)
// and returns the text.
func headingLine(t string) (string, bool) {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n >= len(t) || t[n] != ' ' && t[n] != '\t' {
		return "", false
	}
	h := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[n:]), "#"))
	if h == "" {
		return "", false
	}
	return h, true
}

// sanitizeLine keeps a line but takes off what would start a bullet, a
// numbered item, a table row or a heading (lines of code blocks get here),
// and links the plain mount-prefixed paths.
func sanitizeLine(ln string) string { return noFence(sanitizeMarks(ln)) }

// noFence takes the marks off a line that would open or close a code block
// (what is left of "# ```" once its heading marks are gone, say).
func noFence(s string) string {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	if !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
		return s
	}
	return strings.TrimLeft(t, "`~ \t")
}

// sanitizeMarks is sanitizeLine before the fence check.
func sanitizeMarks(ln string) string {
	t := strings.TrimLeftFunc(ln, unicode.IsSpace)
	if strings.TrimFunc(t, func(r rune) bool { return r == '#' || unicode.IsSpace(r) }) == "" {
		return ""
	}
	if s := stripListMarker(t); s != t {
		return linkAllMounts(s)
	}
	if n, rest, ok := numberedItem(t); ok {
		return linkAllMounts("(" + n + ") " + rest)
	}
	if h, ok := headingLine(strings.TrimSpace(t)); ok {
		// A heading-like line of a code block (a shell comment): the block's
		// fences go, so its marks go too.
		return linkAllMounts(h)
	}
	return linkAllMounts(ln)
}

// numberedItem splits "3. text" or "3) text" into "3" and "text".
func numberedItem(t string) (n, rest string, ok bool) {
	i := 0
	for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(t) || t[i] != '.' && t[i] != ')' || t[i+1] != ' ' && t[i+1] != '\t' {
		return "", "", false
	}
	return t[:i], strings.TrimSpace(t[i+2:]), true
}

// render gives the section at a level: 0 as it is, 1 shortened, 2 shortened
// with the kept links capped, 3 without the user's decisions beyond its
// first sentences too. A digest is written whole up to level 1, with the
// notes of decisions only at 2, with none at 3.
func (p *prevSection) render(level int) string {
	level = min(max(level, 0), len(p.cache)-1)
	if !p.have[level] {
		p.cache[level], p.have[level] = p.renderAt(level), true
	}
	return p.cache[level]
}

func (p *prevSection) renderAt(level int) string {
	h := p.heading
	if p.isState {
		h = oldStateHeading
	}
	body := p.body
	switch {
	case p.digest && level == 2 && p.bare != "":
		body = p.bare
	case p.digest && level >= 3 && p.none != "":
		body = p.none
	case level > 0 && !p.digest:
		body = p.shortenBody(level)
	}
	if body == "" {
		return "## " + h
	}
	return "## " + h + "\n\n" + body
}

func (p *prevSection) shortenBody(level int) string {
	ss, notes := p.sentenceNotes()
	if len(ss) <= keepFirstPrevSen {
		return p.body
	}
	var kept []string
	var rest strings.Builder
	for i, s := range ss {
		if i < keepFirstPrevSen || level == 1 && hasDecision(s) {
			kept = append(kept, s)
			continue
		}
		if n := notes[i]; n != nil && n.rule && level < 3 {
			// The user's decisions and rules stay at every level.
			kept = append(kept, s)
			continue
		}
		rest.WriteString(s)
		rest.WriteByte(' ')
	}
	keptText := strings.Join(kept, " ")
	var ls []string
	seen := map[string]bool{}
	for _, l := range links(keptText) {
		seen[l] = true
	}
	for _, l := range links(rest.String()) {
		if !seen[l] {
			seen[l] = true
			ls = append(ls, l)
		}
	}
	if len(ls) > 0 {
		more := ""
		if level >= 2 && len(ls) > maxLinksMinimal {
			more = " and " + strconv.Itoa(len(ls)-maxLinksMinimal) + " more"
			ls = ls[:maxLinksMinimal]
		}
		if more != "" {
			keptText += " This part also named " + strings.Join(ls, ", ") + more + "."
		} else {
			keptText += " This part also named " + joinList(ls) + "."
		}
	}
	return keptText
}

func hasDecision(s string) bool {
	l := strings.ToLower(s)
	for _, w := range decisionWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// When the previous briefing leaves no room even with every section
// shortened and the new material condensed to the least detail (a long
// chain of compactions, each carrying the one before), its oldest sections
// are merged into one digest: how many sections they were, the first and
// last topic, and the first links they named ("and others" for the rest: a
// digest no longer has them, so it could not tell repeats to count them).
// Without it the briefing grows with every compaction, past the target and
// without bound, and each compaction re-reads all of it.

const (
	digestHeading  = "Earlier topics"
	digestLead     = "Before the sections below, your earlier briefings held "
	digestKept     = " Kept from them: "
	digestNamed    = " They named "
	digestNoLinks  = " They named no links."
	digestLong     = " They named only links too long to list."
	digestOthers   = " and others." // after the links listed, when there were more
	maxDigestLinks = maxLinksMinimal
	maxDigestLink  = 300 // bytes: a longer link is not listed
	maxDigestTopic = 80  // UTF-16 units of a topic named
	maxDigestRules = 6   // decisions a digest keeps (the latest)
	maxDigestFails = 3   // failures and error reports a digest keeps (the latest)
	maxDigestNote  = 300 // UTF-16 units of one note
)

// digest is the merged form of the oldest sections of a previous briefing.
type digest struct {
	sections    int             // sections merged, those of earlier digests included
	first, last string          // the first and last topics named, as clauses
	links       []string        // the links listed, in order of first mention
	seen        map[string]bool // links met so far
	more        bool            // links named beyond those listed
	notes       []digestNote    // sentences kept as they were, in order
}

// digestNote is a sentence of a merged section that a digest keeps: a
// decision or rule of the user's, or a failure and its error.
type digestNote struct {
	text string
	rule bool // a decision; else a failure
}

// noteOf says whether a sentence of an earlier briefing is worth a note:
// a decision that names the user or is itself a rule ("Do not reintroduce
// CSS filters."), or a failure or error report.
func noteOf(s string) (digestNote, bool) {
	l := strings.ToLower(s)
	rule := false
	for _, p := range []string{"do not ", "don't ", "don’t ", "never ", "always ", "keep ", "use ", "avoid ", "only "} {
		if strings.HasPrefix(l, p) {
			rule = true
		}
	}
	if !rule && strings.Contains(l, "user") && isDecision(s) {
		rule = true
	}
	if rule {
		return digestNote{text: excerpt(s, 0, maxDigestNote), rule: true}, true
	}
	if strings.Contains(l, "fail") || strings.Contains(l, "error") || len(errorIDs(s)) > 0 {
		return digestNote{text: excerpt(s, 0, maxDigestNote)}, true
	}
	return digestNote{}, false
}

// notesOf lists the notes of a text.
func notesOf(text string) []digestNote {
	var out []digestNote
	for _, s := range sentences(flatten(text)) {
		if n, ok := noteOf(s); ok {
			out = append(out, n)
		}
	}
	return out
}

// bodyNotes are the notes of the section's body.
func (p *prevSection) bodyNotes() []digestNote {
	_, notes := p.sentenceNotes()
	var out []digestNote
	for _, n := range notes {
		if n != nil {
			out = append(out, *n)
		}
	}
	return out
}

// addNotes adds notes, keeping the latest of each kind within the
// digest's caps.
func (d *digest) addNotes(notes []digestNote) {
	for _, n := range notes {
		dup := false
		for _, o := range d.notes {
			dup = dup || o.text == n.text
		}
		if !dup {
			d.notes = append(d.notes, n)
		}
	}
	rules, fails := 0, 0
	for _, n := range d.notes {
		if n.rule {
			rules++
		} else {
			fails++
		}
	}
	if rules <= maxDigestRules && fails <= maxDigestFails {
		return
	}
	kept := d.notes[:0]
	for _, n := range d.notes {
		switch {
		case n.rule && rules > maxDigestRules:
			rules--
		case !n.rule && fails > maxDigestFails:
			fails--
		default:
			kept = append(kept, n)
		}
	}
	d.notes = kept
}

// add merges one section into the digest.
func (d *digest) add(s *prevSection) {
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	body := s.body
	if n, first, last, ok := parseDigest(s); ok {
		// An earlier digest: carry its counts and topics over, and read
		// the links from its list only.
		d.sections += n
		if d.first == "" {
			d.first = first
		}
		if last != "" {
			d.last = last
		}
		body = ""
		end := len(s.body)
		if i := strings.LastIndex(s.body, digestNamed); i >= 0 {
			body = s.body[i:]
			d.more = d.more || strings.HasSuffix(body, digestOthers) || body == digestLong
			end = i
		} else if i := max(strings.LastIndex(s.body, digestLong), strings.LastIndex(s.body, digestNoLinks)); i >= 0 {
			end = i
		}
		if i := strings.Index(s.body[:end], digestKept); i >= 0 {
			d.addNotes(notesOf(s.body[i+len(digestKept) : end]))
		}
	} else {
		if !s.isState && !strings.EqualFold(s.heading, oldStateHeading) {
			d.addNotes(s.bodyNotes())
		}
		d.sections++
		if topic := digestTopic(s.heading); topic != "" && !genericHeading(s) {
			if d.first == "" {
				d.first = topic
			}
			d.last = topic
		}
	}
	for _, l := range links(body) {
		if d.seen[l] {
			continue
		}
		d.seen[l] = true
		if len(d.links) < maxDigestLinks && len(l) <= maxDigestLink {
			d.links = append(d.links, l)
		} else {
			d.more = true
		}
	}
}

// genericHeading reports whether a section's heading names no topic of
// its own (a working state, a merged or digest section, headless text).
func genericHeading(s *prevSection) bool {
	if s.isState {
		return true
	}
	for _, h := range []string{oldStateHeading, mergedHeading, earlierHeading, digestHeading} {
		if strings.EqualFold(s.heading, h) {
			return true
		}
	}
	return false
}

// digestTopic is a heading as a clause to quote in the digest, its
// quotes closed.
func digestTopic(h string) string {
	return closeQuotes(clause(stripLinks(h), maxDigestTopic))
}

// parseDigest recognises a digest section this writer wrote and returns
// how many sections it merged and the first and last topics it names.
func parseDigest(s *prevSection) (n int, first, last string, ok bool) {
	if s.heading != digestHeading {
		return 0, "", "", false
	}
	rest, found := strings.CutPrefix(s.body, digestLead)
	if !found {
		return 0, "", "", false
	}
	i := 0
	for i < len(rest) && i < 9 && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	n, err := strconv.Atoi(rest[:i])
	if err != nil || n <= 0 {
		return 0, "", "", false
	}
	rest = rest[i:]
	if r, ok := strings.CutPrefix(rest, " more sections, from “"); ok {
		if a, b, ok := strings.Cut(r, "” to “"); ok {
			if j := strings.Index(b, "”."); j > 0 {
				first, last = a, b[:j]
			}
		}
	} else if r, ok := strings.CutPrefix(rest, " more section, “"); ok {
		if j := strings.Index(r, "”."); j > 0 {
			first = r[:j]
		}
	} else if r, ok := strings.CutPrefix(rest, " more sections, “"); ok {
		if j := strings.Index(r, "”."); j > 0 {
			first = r[:j]
		}
	}
	return n, first, last, true
}

// section writes the digest as a previous-briefing section.
func (d *digest) section() prevSection { return d.sectionAt(true) }

// sectionAt writes the digest; with levels, its forms with fewer notes too.
func (d *digest) sectionAt(levels bool) prevSection {
	var b strings.Builder
	b.WriteString(digestLead + count(d.sections, "more section"))
	switch {
	case d.first == "":
		b.WriteString(".")
	case d.last == "" || d.last == d.first:
		b.WriteString(", “" + d.first + "”.")
	default:
		b.WriteString(", from “" + d.first + "” to “" + d.last + "”.")
	}
	lead := b.String()
	var links string
	switch {
	case len(d.links) > 0 && d.more:
		links = digestNamed + strings.Join(d.links, ", ") + digestOthers
	case len(d.links) > 0:
		links = digestNamed + joinList(d.links) + "."
	case d.more:
		links = digestLong
	default:
		links = digestNoLinks
	}
	write := func(rules, fails bool) string {
		var notes []string
		for _, n := range d.notes {
			if n.rule && rules || !n.rule && fails {
				notes = append(notes, sentence(n.text))
			}
		}
		if len(notes) == 0 {
			return linkAllMounts(lead + links)
		}
		return linkAllMounts(lead + digestKept + capitalize(strings.Join(notes, " ")) + links)
	}
	if !levels {
		return prevSection{heading: digestHeading, body: write(true, true), digest: true}
	}
	return prevSection{heading: digestHeading, body: write(true, true), bare: write(true, false), none: write(false, false), digest: true}
}

// mergeOldest returns prev with its oldest sections merged into a digest:
// as few as leave the rest, shortened with capped links, and the digest
// within budget (sizes plus separators), or all of them when none do.
func mergeOldest(prev []prevSection, budget int) []prevSection {
	rest := 0
	cost := make([]int, len(prev))
	for i := range prev {
		cost[i] = history.Len16(prev[i].render(2)) + sep
		rest += cost[i]
	}
	var d digest
	for m := 1; m <= len(prev); m++ {
		d.add(&prev[m-1])
		rest -= cost[m-1]
		s := d.sectionAt(false)
		if m == len(prev) || history.Len16(s.render(0))+sep+rest <= budget {
			return append([]prevSection{d.section()}, prev[m:]...)
		}
	}
	return prev
}
