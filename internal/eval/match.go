package eval

import (
	"math/bits"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/mdtext"
)

// How an answer was found.
const (
	HowExact      = "exact"      // the expected text as written
	HowNormalized = "normalized" // the same words, case, white space and punctuation aside
	HowPath       = "path"       // the same file, written another way
	HowWords      = "words"      // enough content words in one window
)

// Briefing is a briefing indexed for the offline score. Build it once with
// NewBriefing and ask it about every probe of its bundle.
type Briefing struct {
	text string
	norm string          // " " + normalize(text) + " "
	rel  map[string]bool // every path written, workspace-relative
	abs  []string        // absolute paths (/…, ~/…), for suffix matches

	sents []sentenceInfo // filled on first use
	index map[string][]int32
}

type sentenceInfo struct {
	lower string
	words []string
	cues  uint8 // cueFail, cueFix, cueTimeout, cueNeg
}

// Cues of a sentence, found once when the briefing is split.
const (
	cueFail uint8 = 1 << iota
	cueFix
	cueTimeout
	cueNeg
)

func sentenceCues(lower string) uint8 {
	var c uint8
	if containsAny(lower, failCues) {
		c |= cueFail
	}
	if containsAny(lower, fixCues) {
		c |= cueFix
	}
	if containsAny(lower, timeoutCues) {
		c |= cueTimeout
	}
	if hasNegation(lower) {
		c |= cueNeg
	}
	return c
}

// NewBriefing indexes text.
func NewBriefing(text string) *Briefing {
	b := &Briefing{text: text, norm: " " + normalize(text) + " ", rel: map[string]bool{}}
	for _, p := range linkTargets(text) {
		b.addPath(p)
	}
	for _, t := range tokens(text) {
		b.addPath(t.s)
	}
	return b
}

func (b *Briefing) addPath(p string) {
	p = strings.TrimRight(p, ".:,;")
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~/") {
		b.abs = append(b.abs, p)
	}
	if r := relPath(p); r != "" {
		b.rel[r] = true
	}
}

// Answer is one probe's verdict on one briefing. The offline score fills
// Present and How; a model-judged score would add the answerer's text and
// the grades beside them.
type Answer struct {
	Probe   int    `json:"probe"` // index in the bundle's probes
	Present bool   `json:"present"`
	How     string `json:"how,omitempty"`
}

// Check looks for p's answer in b.
func (b *Briefing) Check(p *Probe) (bool, string) {
	switch p.Match {
	case MatchPath:
		if b.rel[p.relKey] {
			if strings.Contains(b.text, p.Expected[0]) {
				return true, HowExact
			}
			return true, HowPath
		}
		for _, a := range b.abs {
			if strings.HasSuffix(a, "/"+p.relKey) {
				return true, HowPath
			}
		}
		return false, ""
	case MatchText:
		for _, e := range p.Expected {
			if containsWord(b.text, e) {
				return true, HowExact
			}
		}
		for _, e := range p.Expected {
			if n := normalize(e); n != "" && strings.Contains(b.norm, " "+n+" ") {
				return true, HowNormalized
			}
		}
		return false, ""
	case MatchWords:
		if strings.Contains(b.text, p.Expected[0]) {
			return true, HowExact
		}
		var need uint8
		if p.neg {
			need = cueNeg
		}
		if b.windowHas(p.words, p.min, 2, need) {
			return true, HowWords
		}
		return false, ""
	case MatchFailure:
		return b.failure(p), HowWords
	}
	return false, ""
}

// sentences splits and analyses the briefing on first use.
func (b *Briefing) sentences() []sentenceInfo {
	if b.sents == nil {
		ss := mdtext.Sentences(b.text)
		b.sents = make([]sentenceInfo, len(ss))
		b.index = map[string][]int32{}
		for i, s := range ss {
			ws := mdtext.ContentWords(s)
			lower := strings.ToLower(s)
			b.sents[i] = sentenceInfo{lower: lower, words: ws, cues: sentenceCues(lower)}
			for _, w := range ws {
				b.index[w] = append(b.index[w], int32(i))
			}
		}
	}
	return b.sents
}

// windowHas reports whether some window of up to span consecutive
// sentences holds at least min of words (at most 64 count) and, when cue
// is not 0, a sentence with that cue.
func (b *Briefing) windowHas(words []string, min float64, span int, cue uint8) bool {
	if len(words) == 0 {
		return false
	}
	words = capWords(words, 64)
	ss := b.sentences()
	masks := map[int32]uint64{}
	for k, w := range words {
		for _, i := range b.index[w] {
			masks[i] |= 1 << k
		}
	}
	need := int(min*float64(len(words)) + 0.999999)
	if need < 1 {
		need = 1
	}
	for i := range masks {
		for start := max(0, int(i)-span+1); start <= int(i); start++ {
			end := min2(start+span, len(ss))
			var m uint64
			var cues uint8
			for j := start; j < end; j++ {
				m |= masks[int32(j)]
				cues |= ss[j].cues
			}
			if bits.OnesCount64(m) >= need && cues&cue == cue {
				return true
			}
		}
	}
	return false
}

func min2(a, b int) int {
	if a < b {
		return a
	}
	return b
}

var (
	failCues    = []string{"fail", "error", "broke", "crash", "nonzero", "non-zero", "exit", "✗", "denied", "timed out", "timeout", "time out", "did not pass", "didn't pass"}
	fixCues     = []string{"pass", "succeed", "success", "fixed", "fixing", "fix ", "works", "working", "clean", "resolved", "green", "✓", "then ran", "now run", "now build"}
	timeoutCues = []string{"timed out", "timeout", "time out", "timing out", "timed-out", "kept running"}
)

// failure: one window of up to three sentences names the subject (one of
// its paths, or half its content words) and says it failed (for a
// time-out, that it timed out); when it was fixed later, one window (the
// same or another) names the subject and says so.
func (b *Briefing) failure(p *Probe) bool {
	failed := cueFail
	if p.code == "timeout" {
		failed = cueTimeout
	}
	if !b.subjectWindow(p, failed) {
		return false
	}
	return !p.fixed || b.subjectWindow(p, cueFix)
}

// subjectWindow reports whether a window of up to three sentences names
// p's subject and has a sentence with cue.
func (b *Briefing) subjectWindow(p *Probe, cue uint8) bool {
	if len(p.paths) == 0 {
		return b.windowHas(p.words, 0.5, 3, cue)
	}
	ss := b.sentences()
	for i := range ss {
		for _, rel := range p.paths {
			if !strings.Contains(ss[i].lower, strings.ToLower(rel)) {
				continue
			}
			for start := max(0, i-2); start <= i; start++ {
				var cues uint8
				for j := start; j < min2(start+3, len(ss)); j++ {
					cues |= ss[j].cues
				}
				if cues&cue == cue {
					return true
				}
			}
		}
	}
	return false
}

// containsWord reports whether e occurs in s with no letter or digit
// glued to either end (2,400 is not in 12,400).
func containsWord(s, e string) bool {
	if e == "" {
		return false
	}
	for i := 0; ; {
		k := strings.Index(s[i:], e)
		if k < 0 {
			return false
		}
		start, end := i+k, i+k+len(e)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if !glued(before, e, true) && !glued(after, e, false) {
			return true
		}
		i = start + 1
	}
}

// glued reports whether r, beside e, makes it part of a longer word.
func glued(r rune, e string, before bool) bool {
	if r == utf8.RuneError {
		return false
	}
	edge, _ := utf8.DecodeRuneInString(e)
	if !before {
		edge, _ = utf8.DecodeLastRuneInString(e)
	}
	word := func(x rune) bool { return unicode.IsLetter(x) || unicode.IsDigit(x) }
	return word(r) && word(edge)
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// normalize lower-cases s and turns every run of characters other than
// letters and digits into one space.
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// token is a run of path characters holding a '/' or a '.' between two
// other characters: a path, a file name, a domain.
type token struct {
	s          string
	start, end int
}

// tokens lists the path-like words of s.
func tokens(s string) []token {
	var out []token
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		t := strings.TrimRight(s[start:end], ".")
		if strings.IndexByte(t, '/') >= 0 || strings.IndexByte(strings.TrimLeft(t, "."), '.') >= 0 {
			out = append(out, token{s: t, start: start, end: start + len(t)})
		}
		start = -1
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if mdtext.IsPathRune(r) {
			if start < 0 {
				start = i
			}
		} else {
			flush(i)
		}
		i += size
	}
	flush(len(s))
	return out
}

// linkTargets lists the paths of the [](path:…) and [](wsfile:…) links of
// s, percent-decoded.
func linkTargets(s string) []string {
	var out []string
	for i := 0; ; {
		k := strings.Index(s[i:], "](")
		if k < 0 {
			return out
		}
		t := i + k + 2
		e := t
		for e < len(s) && s[e] != ')' && s[e] != ' ' && s[e] != '\n' && s[e] != '\t' {
			e++
		}
		if p, ok := mdtext.LinkPath(s[t:e]); ok {
			if d, err := url.PathUnescape(p); err == nil {
				p = d
			}
			out = append(out, p)
		}
		i = t
	}
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}
