package mdtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words splits s into lower-case words: maximal runs of letters and
// digits. Everything else separates words.
func Words(s string) []string {
	out := make([]string, 0, len(s)/6)
	EachWord(s, func(start, end int, upper bool) {
		w := s[start:end]
		if upper {
			w = strings.ToLower(w)
		}
		out = append(out, w)
	})
	return out
}

// EachWord calls fn with the bounds of each word of s (see Words); upper
// reports that the word is not all lower case.
func EachWord(s string, fn func(start, end int, upper bool)) {
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
func ContentWords(s string) []string { return analyze(s).Words }

// Sentence is one sentence with its content words (ContentWords) and
// whether it holds a negation word or a contrast word (negationWords,
// contrastWords).
type Sentence struct {
	Text     string
	Words    []string
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

func analyze(s string) Sentence {
	ws := Words(s)
	out := Sentence{Text: s, Words: make([]string, 0, len(ws))}
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
		} else if hasWord(out.Words, w) {
			continue
		}
		out.Words = append(out.Words, w)
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

func analyzeAll(ss []string) []Sentence {
	out := make([]Sentence, len(ss))
	for i, s := range ss {
		out[i] = analyze(s)
	}
	return out
}

// ReuseThreshold is the share of a sentence's distinct content words
// (ContentWords: lower-cased, stemmed, stop words left out) that one window
// of the other text (a sentence, or two consecutive sentences) must hold
// for the sentence to count as reappearing there (Briefing.Reappears): the
// kept check of a decision and diff's sentence reuse.
const ReuseThreshold = 0.6

// coverIndex answers "how much of this word set does the best window of
// the text hold?" quickly for many word sets. A window is one sentence or
// two consecutive sentences, so content split over two sentences is found.
type coverIndex struct {
	sents    []Sentence
	postings map[string][]int32 // content word -> sentences holding it, ascending
	stamp    []int32
	count    []int32 // per window
	hits     []int32 // per sentence
	touched  []int32 // sentences with hits in the current query
	// visits counts the postings entries read by every query so far: the
	// work done, which a caller may put a budget on.
	visits int64
}

func newCoverIndex(sents []Sentence) *coverIndex {
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
		for _, w := range s.Words {
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
