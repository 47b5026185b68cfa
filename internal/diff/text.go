package diff

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/mdtext"
)

// Sentences splits markdown prose into sentences. Blank lines end a
// paragraph; the lines of one paragraph are joined with a space, except
// that a heading, a list item, a table row or a code fence is always a unit
// of its own. Headings are left out. Within a unit a sentence ends at '.',
// '!' or '?' (with any closing quotes or brackets) followed by white space
// and then a character that is not a lower-case letter; "e.g.", "i.e.",
// "etc.", "vs." and "cf." do not end a sentence (mdtext.SplitSentences).
func Sentences(text string) []string {
	var out []string
	for _, u := range units(text) {
		if u.heading {
			continue
		}
		out = append(out, mdtext.SplitSentences(u.text)...)
	}
	return out
}

type unit struct {
	text    string
	heading bool
	line    int  // 1-based line of the unit's first line
	gap     bool // a blank line comes before the unit
}

// units groups lines into paragraphs as Sentences describes.
func units(text string) []unit {
	var out []unit
	var cur []string
	start := 0
	gap := false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, unit{text: strings.Join(cur, " "), line: start, gap: gap})
			cur = cur[:0]
			gap = false
		}
	}
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			flush()
			gap = true
		case isATXHeading(t):
			flush()
			out = append(out, unit{text: t, heading: true, line: i + 1, gap: gap})
			gap = false
		case isListItem(t) || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			flush()
			cur = append(cur, t)
			start = i + 1
			flush()
		default:
			if len(cur) == 0 {
				start = i + 1
			}
			cur = append(cur, t)
		}
	}
	flush()
	return out
}

// isATXHeading reports whether a trimmed line is a markdown ATX heading:
// one to six '#' followed by white space or the end of the line.
func isATXHeading(t string) bool {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t')
}

// isListItem reports whether a trimmed line starts a bullet ("- ", "* ",
// "+ ") or a numbered item ("1. ", "2) ").
func isListItem(t string) bool {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return true
	}
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	return n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && (t[n+1] == ' ' || t[n+1] == '\t')
}

// Words splits s into lower-case words: maximal runs of letters and
// digits. Everything else separates words.
func Words(s string) []string {
	out := make([]string, 0, len(s)/6)
	eachWord(s, func(start, end int, upper bool) {
		w := s[start:end]
		if upper {
			w = strings.ToLower(w)
		}
		out = append(out, w)
	})
	return out
}

// eachWord calls fn with the bounds of each word of s (see Words); upper
// reports that the word is not all lower case.
func eachWord(s string, fn func(start, end int, upper bool)) {
	start := -1
	upper := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
				if start < 0 {
					start = i
				}
			case c >= 'A' && c <= 'Z':
				if start < 0 {
					start = i
				}
				upper = true
			default:
				if start >= 0 {
					fn(start, i, upper)
					start, upper = -1, false
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			upper = upper || !unicode.IsLower(r)
		} else if start >= 0 {
			fn(start, i, upper)
			start, upper = -1, false
		}
		i += size
	}
	if start >= 0 {
		fn(start, len(s), upper)
	}
}

// stopWords are left out of content words. They include the fragments
// that contractions leave ("don't" gives "don" and "t").
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again all also am an and any are as at be
		because been before being below between both but by can could did do does doing done down
		during each few for from further had has have having he her here hers him his how i if in
		into is it its itself just let ll me more most my myself now of off on once only or other
		our ours out over own re s same she should so some such t than that the their them then there
		these they this those through to too under until up us ve very was we were what when where
		which while who whom why will with would you your yours yourself d m o y don doesn didn isn
		wasn aren won wouldn shouldn mustn must please okay ok yes user users not no`) {
		m[w] = true
	}
	return m
}()

// stem is a deliberately crude suffix stripper, applied alike to both
// sides of every comparison: "changed", "changes" and "change" all become
// "chang".
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		w = w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		w = w[:len(w)-2]
	case len(w) > 4 && strings.HasSuffix(w, "es"):
		w = w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		w = w[:len(w)-1]
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// ContentWords are the distinct stemmed words of s that are not stop
// words, in order of first appearance.
func ContentWords(s string) []string { return analyze(s).words }

// sentence is one sentence with its content words and its negation and
// contrast flags (see hasNegation and hasContrast).
type sentence struct {
	text     string
	words    []string
	negation bool
	contrast bool
}

// Negation words: not, no, never, nor, neither, without, cannot, avoid, or
// an "n't" contraction (Words splits "don't" into "don" and "t").
var negationWords = map[string]bool{"not": true, "no": true, "never": true, "nor": true, "without": true, "cannot": true, "avoid": true, "t": true, "dont": true, "neither": true}

// Contrast words carry a negated decision in a paraphrase: "instead" or
// "rather" (the user wanted a cursor instead of offsets) and rejected,
// refused, declined, forbade, forbidden.
var contrastWords = map[string]bool{"instead": true, "rather": true, "rejected": true, "rejects": true, "refused": true, "declined": true, "forbade": true, "forbidden": true, "forbids": true}

func analyze(s string) sentence {
	ws := Words(s)
	out := sentence{text: s, words: make([]string, 0, len(ws))}
	var seen map[string]bool
	if len(ws) > 48 {
		seen = make(map[string]bool, len(ws))
	}
	for _, w := range ws {
		if negationWords[w] {
			out.negation = true
		}
		if contrastWords[w] {
			out.contrast = true
		}
		if stopWords[w] {
			continue
		}
		w = stem(w)
		if seen != nil {
			if seen[w] {
				continue
			}
			seen[w] = true
		} else if hasWord(out.words, w) {
			continue
		}
		out.words = append(out.words, w)
	}
	return out
}

func hasWord(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

func analyzeAll(ss []string) []sentence {
	out := make([]sentence, len(ss))
	for i, s := range ss {
		out[i] = analyze(s)
	}
	return out
}

// coverIndex answers "how much of this word set does the best window of
// the text hold?" quickly for many word sets. A window is one sentence or
// two consecutive sentences, so content split over two sentences is found.
type coverIndex struct {
	sents    []sentence
	postings map[string][]int32 // content word -> sentences holding it, ascending
	stamp    []int32
	count    []int32 // per window
	hits     []int32 // per sentence
	touched  []int32 // sentences with hits in the current query
	// visits counts the postings entries read by every query so far: the
	// work done, which a caller may put a budget on.
	visits int64
}

func newCoverIndex(sents []sentence) *coverIndex {
	ix := &coverIndex{
		sents:    sents,
		postings: map[string][]int32{},
		stamp:    make([]int32, len(sents)+1),
		count:    make([]int32, len(sents)+1),
		hits:     make([]int32, len(sents)+1),
	}
	for i := range ix.stamp {
		ix.stamp[i] = -1
	}
	for i, s := range sents {
		for _, w := range s.words {
			ix.postings[w] = append(ix.postings[w], int32(i))
		}
	}
	return ix
}

// best returns the largest share of words held by one window and whether
// some window reaches min; with wantNeg, that window must also hold a
// negation or a contrast in one of its sentences that holds some of the
// words (not in an unrelated neighbour). Window w is sentences w and w+1.
// The work is proportional to the postings of the words, not to the
// length of the text: only the windows touched are counted and reset.
func (ix *coverIndex) best(words []string, min float64, wantNeg bool) (share float64, ok bool) {
	n := len(ix.sents)
	if len(words) == 0 || n == 0 {
		return 0, false
	}
	ix.touched = ix.touched[:0]
	for k, w := range words {
		ps := ix.postings[w]
		ix.visits += int64(len(ps))
		for _, s := range ps {
			if ix.hits[s] == 0 {
				ix.touched = append(ix.touched, s)
			}
			ix.hits[s]++
			for _, win := range [2]int32{s - 1, s} {
				if win < 0 || ix.stamp[win] == int32(k) {
					continue
				}
				ix.stamp[win] = int32(k)
				ix.count[win]++
			}
		}
	}
	need := int32(0)
	for float64(need) < min*float64(len(words))-1e-9 {
		need++
	}
	negated := func(i int) bool {
		return i < n && ix.hits[i] > 0 && (ix.sents[i].negation || ix.sents[i].contrast)
	}
	var top int32
	for _, s := range ix.touched {
		for _, win := range [2]int32{s - 1, s} {
			if win < 0 {
				continue
			}
			c := ix.count[win]
			if c > top {
				top = c
			}
			if !ok && c >= need && c > 0 && (!wantNeg || negated(int(win)) || negated(int(win)+1)) {
				ok = true
			}
		}
	}
	for _, s := range ix.touched {
		ix.hits[s] = 0
		for _, win := range [2]int32{s - 1, s} {
			if win >= 0 {
				ix.stamp[win] = -1
				ix.count[win] = 0
			}
		}
	}
	return float64(top) / float64(len(words)), ok
}

// hasNegation reports a negation word (negationWords).
func hasNegation(s string) bool { return analyze(s).negation }
