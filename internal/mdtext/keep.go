package mdtext

import "strings"

// Briefing is a briefing indexed for the kept checks of must-keep items
// (Keeps) and for finding the content of other sentences in it
// (Reappears). Its queries update the index's scratch space: one
// goroutine at a time.
type Briefing struct {
	text  string
	sents []Sentence
	cover *coverIndex
	paths map[string]bool
	hex   map[string]bool
	funcs map[string]bool
	h2    map[string]bool

	// filled on first use
	words     map[string]bool // all words, for named colours
	sentPaths [][]string      // per sentence, for failures
}

// NewBriefing indexes text.
func NewBriefing(text string) *Briefing {
	b := &Briefing{
		text:  text,
		sents: analyzeAll(Sentences(text)),
		paths: map[string]bool{},
		hex:   map[string]bool{},
		funcs: map[string]bool{},
		h2:    map[string]bool{},
	}
	b.cover = newCoverIndex(b.sents)
	for _, p := range linkPaths(text) {
		b.paths[p] = true
	}
	for _, p := range plainPaths(maskLinks(text)) {
		b.paths[p] = true
	}
	for _, c := range hexColors(text, false) {
		b.hex[normColor(c)] = true
	}
	for _, c := range colorFuncValues(text) {
		b.funcs[normColor(c)] = true
	}
	for _, s := range SplitSections(text) {
		if !s.Preamble {
			b.h2[NormHeading(s.Heading)] = true
		}
	}
	return b
}

// Sentences are the briefing's sentences (Sentences) with their content
// words.
func (b *Briefing) Sentences() []Sentence { return b.sents }

// Reappears reports whether one window of the briefing (a sentence, or two
// consecutive sentences) holds at least ReuseThreshold of words (content
// words, as Sentence.Words).
func (b *Briefing) Reappears(words []string) bool {
	_, ok := b.cover.best(words, ReuseThreshold, false)
	return ok
}

// Visits counts the entries of the briefing's word index that Reappears
// and Keeps have read so far: the work done, which a caller may put a
// budget on.
func (b *Briefing) Visits() int64 { return b.cover.visits }

// Keeps reports whether the briefing keeps the must-keep item it (see the
// rules of each kind in items.go).
func (b *Briefing) Keeps(it Need) bool {
	switch it.Kind {
	case KindPath:
		return b.paths[it.Value] || len(plainPaths(it.Value)) == 0 && mentionsFile(b.text, it.Value)
	case KindLink:
		return strings.Contains(b.text, it.Value)
	case KindColor:
		v := normColor(it.Value)
		switch {
		case strings.HasPrefix(v, "#"):
			return b.hex[v]
		case strings.HasSuffix(v, ")"):
			return b.funcs[v]
		default:
			if b.words == nil {
				b.words = map[string]bool{}
				for _, w := range Words(b.text) {
					b.words[w] = true
				}
			}
			return b.words[v]
		}
	case KindHeading:
		return b.h2[NormHeading(it.Value)]
	case KindDecision:
		_, ok := b.cover.best(it.words, ReuseThreshold, it.neg)
		return ok
	case KindFailure:
		return b.keepsFailure(it)
	}
	return false
}

// exitWords name an exit status (with its number); failWords say that
// something failed (stemmed).
var (
	exitWords = []string{"exit", "cod", "statu"}
	failWords = []string{"fail", "failur", "error", "broke", "broken", "crash", "nonzero"}
)

// keepsFailure applies the failure rule of items.go to every window.
func (b *Briefing) keepsFailure(it Need) bool {
	n := len(b.sents)
	if len(it.paths) > 0 && b.sentPaths == nil {
		b.sentPaths = make([][]string, n)
		for i, s := range b.sents {
			b.sentPaths[i] = append(linkPaths(s.Text), plainPaths(maskLinks(s.Text))...)
		}
	}
	for w := 0; w < n; w++ {
		win := b.sents[w:min(w+2, n)]
		has := func(word string) bool {
			for _, s := range win {
				if hasWord(s.Words, word) {
					return true
				}
			}
			return false
		}
		share := func(words []string) float64 {
			if len(words) == 0 {
				return 1
			}
			k := 0
			for _, x := range words {
				if has(x) {
					k++
				}
			}
			return float64(k) / float64(len(words))
		}
		subject := false
		if len(it.paths) > 0 {
			for i := w; i < min(w+2, n) && !subject; i++ {
				for _, p := range it.paths {
					if hasWord(b.sentPaths[i], p) {
						subject = true
						break
					}
				}
			}
		} else {
			subject = share(it.words) >= 0.5
		}
		if !subject {
			continue
		}
		switch it.outcome.kind {
		case "exit":
			for _, x := range failWords {
				if has(x) {
					return true
				}
			}
			if has(strings.TrimPrefix(it.outcome.code, "-")) {
				for _, x := range exitWords {
					if has(x) {
						return true
					}
				}
			}
		case "timeout":
			for _, s := range win {
				l := strings.ToLower(s.Text)
				for _, x := range []string{"timed out", "timeout", "time out", "timing out", "timed-out"} {
					if strings.Contains(l, x) {
						return true
					}
				}
			}
		default:
			if share(it.outcome.words) >= 0.5 {
				return true
			}
		}
	}
	return false
}
