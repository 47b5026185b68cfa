package diff

import (
	"strings"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/history"
)

// DefaultTarget is the prompt's target size in UTF-16 units
// (COMPRESSION_TARGET_CHARS).
const DefaultTarget = 30000

func len16(s string) int { return history.Len16(s) }

// Input is everything one comparison needs. LoadBundle and LoadFiles fill
// it from files; tests build it by hand.
type Input struct {
	// Bundle names the comparison: the bundle directory, or A's path when
	// two loose files are compared.
	Bundle       string
	AFile, BFile string
	A, B         string
	// History is the compact history the briefings were written from;
	// without it (HasHistory false) no must-keep items are measured.
	History    string
	HasHistory bool
	// PreviousChars is the size of the previous briefing of the chain
	// (metadata previousCompressionSize, else the length of the
	// <previous-chat-history> block); HasPrevious is false when there is
	// none.
	PreviousChars int
	HasPrevious   bool
	// Target is the size target (DefaultTarget when 0).
	Target int
	// Profile is ProfileE3E or ProfileHead (ProfileE3E when empty).
	Profile string
	// Chain identifies the chain (the chat directory) and Compression the
	// position in it (compressionNumber), for the per-chain sizes.
	Chain       string
	Compression int
	Run         string
	Replay      *bundle.ReplayInfo
	// WithDiffs asks for the unified diff text of each changed section.
	WithDiffs bool
	Warnings  []string
}

// Side is the measure of one briefing.
type Side struct {
	File  string `json:"file"`
	Chars int    `json:"chars"`
	// Kept and Lost split the must-keep items; both are empty when there
	// is no compact history.
	Kept  []Item      `json:"kept"`
	Lost  []Item      `json:"lost"`
	Leaks []string    `json:"leaks"`
	Rules []Violation `json:"rules"`

	// TargetShare is Chars / target.
	TargetShare float64 `json:"targetShare"`
	// Growth is Chars minus the previous briefing's size (null without a
	// previous briefing); Shrink is the part of the previous size that was
	// lost, max(0, -Growth).
	Growth *int `json:"growth"`
	Shrink int  `json:"shrink"`
	// KeptRatio is kept / all items, 1 when there are none, null without a
	// compact history.
	KeptRatio  *float64             `json:"keptRatio"`
	ByKind     map[Kind]*KindCounts `json:"byKind"`
	LostPaths  int                  `json:"lostPaths"`
	LeakCount  int                  `json:"leakCount"`
	Violations int                  `json:"violations"`
	Sections   int                  `json:"sectionCount"`
	Sentences  int                  `json:"sentenceCount"`
}

// KindCounts counts the items of one kind.
type KindCounts struct {
	Total int `json:"total"`
	Kept  int `json:"kept"`
}

// Comparison is A against B. The JSON shape starts with bundle, a, b and
// similarity.
type Comparison struct {
	Bundle     string     `json:"bundle"`
	A          Side       `json:"a"`
	B          Side       `json:"b"`
	Similarity Similarity `json:"similarity"`

	Chain         string             `json:"chain,omitempty"`
	Compression   int                `json:"compression,omitempty"`
	Run           string             `json:"run,omitempty"`
	Replay        *bundle.ReplayInfo `json:"replay,omitempty"`
	Profile       string             `json:"profile"`
	TargetChars   int                `json:"targetChars"`
	PreviousChars *int               `json:"previousChars"`
	HasHistory    bool               `json:"hasHistory"`
	ItemCount     int                `json:"itemCount"`
	Sections      []SectionDiff      `json:"sections"`
	SectionCounts map[string]int     `json:"sectionCounts"`
	Worse         []string           `json:"worse"`
	Warnings      []string           `json:"warnings,omitempty"`
	// Bounded names the measures that were approximated because the
	// briefings are too large for the exact computation (BoundedRougeL,
	// BoundedReuse); absent when every measure is exact.
	Bounded []string `json:"bounded,omitempty"`
}

// Measures --fail-on can gate on.
const (
	// MeasureLostPaths: B lost more path items than A.
	MeasureLostPaths = "lost-paths"
	// MeasureLeak: B holds more XML tags than A.
	MeasureLeak = "leak"
	// MeasureRules: B breaks more rules (counted per occurrence) than A.
	MeasureRules = "rules"
	// MeasureShrink: B lost more of the previous briefing's size than A.
	MeasureShrink = "shrink"
)

// Measures lists the gating measures.
var Measures = []string{MeasureLostPaths, MeasureLeak, MeasureRules, MeasureShrink}

// WorseOn reports whether B is worse than A on measure m.
func (c *Comparison) WorseOn(m string) bool {
	switch m {
	case MeasureLostPaths:
		return c.B.LostPaths > c.A.LostPaths
	case MeasureLeak:
		return c.B.LeakCount > c.A.LeakCount
	case MeasureRules:
		return c.B.Violations > c.A.Violations
	case MeasureShrink:
		return c.B.Shrink > c.A.Shrink
	}
	return false
}

// Compare measures A and B against the input and each other.
func Compare(in Input) *Comparison {
	target := in.Target
	if target <= 0 {
		target = DefaultTarget
	}
	profile := in.Profile
	if profile == "" {
		profile = ProfileE3E
	}
	var items []mustItem
	if in.HasHistory {
		items = mustKeep(ParseHistory(in.History))
	}
	c := &Comparison{
		Bundle:      in.Bundle,
		Chain:       in.Chain,
		Compression: in.Compression,
		Run:         in.Run,
		Replay:      in.Replay,
		Profile:     profile,
		TargetChars: target,
		HasHistory:  in.HasHistory,
		ItemCount:   len(items),
		Warnings:    in.Warnings,
	}
	if in.HasPrevious {
		p := in.PreviousChars
		c.PreviousChars = &p
	}
	ab := newBriefing(in.A)
	bb := newBriefing(in.B)
	c.A = measure(in.AFile, ab, items, in.HasHistory, target, c.PreviousChars, profile)
	c.B = measure(in.BFile, bb, items, in.HasHistory, target, c.PreviousChars, profile)
	var bounded bool
	if c.Similarity.RougeL, bounded = computeRougeL(in.A, in.B, LCSWorkBudget); bounded {
		c.Bounded = append(c.Bounded, BoundedRougeL)
	}
	if c.Similarity.SentencesA, c.Similarity.SentencesReused, bounded = sentenceReuse(ab.sents, bb.cover, ReuseVisitBudget); bounded {
		c.Bounded = append(c.Bounded, BoundedReuse)
	}
	if c.Similarity.SentencesA > 0 {
		c.Similarity.SentenceReuse = round4(float64(c.Similarity.SentencesReused) / float64(c.Similarity.SentencesA))
	}
	c.Sections = DiffSections(in.A, in.B, in.WithDiffs)
	c.SectionCounts = map[string]int{}
	for _, s := range []SectionStatus{SectionKept, SectionChanged, SectionOnlyA, SectionOnlyB} {
		c.SectionCounts[string(s)] = 0
	}
	for _, s := range c.Sections {
		c.SectionCounts[string(s.Status)]++
	}
	c.Worse = []string{}
	for _, m := range Measures {
		if c.WorseOn(m) {
			c.Worse = append(c.Worse, m)
		}
	}
	return c
}

func measure(file string, b *briefing, items []mustItem, hasHistory bool, target int, prev *int, profile string) Side {
	s := Side{
		File:        file,
		Chars:       len16(b.text),
		Kept:        []Item{},
		Lost:        []Item{},
		TargetShare: round4(float64(len16(b.text)) / float64(target)),
		ByKind:      map[Kind]*KindCounts{},
		Sentences:   len(b.sents),
	}
	if prev != nil {
		g := s.Chars - *prev
		s.Growth = &g
		if g < 0 {
			s.Shrink = -g
		}
	}
	if hasHistory {
		for _, k := range Kinds {
			s.ByKind[k] = &KindCounts{}
		}
		kept := make([]bool, len(items))
		nk := 0
		for i, it := range items {
			if kept[i] = b.keeps(it); kept[i] {
				nk++
			}
		}
		s.Kept = make([]Item, 0, nk)
		s.Lost = make([]Item, 0, len(items)-nk)
		for i, it := range items {
			kc := s.ByKind[it.Kind]
			kc.Total++
			if kept[i] {
				kc.Kept++
				s.Kept = append(s.Kept, it.Item)
			} else {
				s.Lost = append(s.Lost, it.Item)
				if it.Kind == KindPath {
					s.LostPaths++
				}
			}
		}
		r := 1.0
		if len(items) > 0 {
			r = round4(float64(len(s.Kept)) / float64(len(items)))
		}
		s.KeptRatio = &r
	}
	s.Leaks, s.LeakCount = Leaks(b.text)
	if s.Leaks == nil {
		s.Leaks = []string{}
	}
	s.Rules = CheckRules(b.text, profile)
	if s.Rules == nil {
		s.Rules = []Violation{}
	}
	s.Violations = ViolationCount(s.Rules)
	for _, sec := range SplitSections(b.text) {
		if !sec.Preamble {
			s.Sections++
		}
	}
	return s
}

// briefing is a briefing indexed for the kept checks.
type briefing struct {
	text  string
	sents []sentence
	cover *coverIndex
	paths map[string]bool
	hex   map[string]bool
	funcs map[string]bool
	h2    map[string]bool

	// filled on first use
	words     map[string]bool // all words, for named colours
	sentPaths [][]string      // per sentence, for failures
}

func newBriefing(text string) *briefing {
	b := &briefing{
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
			b.h2[normHeading(s.Heading)] = true
		}
	}
	return b
}

// keeps reports whether the briefing keeps item it.
func (b *briefing) keeps(it mustItem) bool {
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
		return b.h2[normHeading(it.Value)]
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
func (b *briefing) keepsFailure(it mustItem) bool {
	n := len(b.sents)
	if len(it.paths) > 0 && b.sentPaths == nil {
		b.sentPaths = make([][]string, n)
		for i, s := range b.sents {
			b.sentPaths[i] = append(linkPaths(s.text), plainPaths(maskLinks(s.text))...)
		}
	}
	for w := 0; w < n; w++ {
		win := b.sents[w:min(w+2, n)]
		has := func(word string) bool {
			for _, s := range win {
				if hasWord(s.words, word) {
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
				l := strings.ToLower(s.text)
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
