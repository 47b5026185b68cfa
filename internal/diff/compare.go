package diff

import (
	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/prompt"
)

// DefaultTarget is the prompt's target size in UTF-16 units
// (COMPRESSION_TARGET_CHARS).
const DefaultTarget = prompt.DefaultTargetChars

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
	// Profile is mdtext.ProfileE3E or mdtext.ProfileHead (ProfileE3E when
	// empty).
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
	Kept  []mdtext.Item      `json:"kept"`
	Lost  []mdtext.Item      `json:"lost"`
	Leaks []string           `json:"leaks"`
	Rules []mdtext.Violation `json:"rules"`

	// TargetShare is Chars / target.
	TargetShare float64 `json:"targetShare"`
	// Growth is Chars minus the previous briefing's size (null without a
	// previous briefing); Shrink is the part of the previous size that was
	// lost, max(0, -Growth).
	Growth *int `json:"growth"`
	Shrink int  `json:"shrink"`
	// KeptRatio is kept / all items, 1 when there are none, null without a
	// compact history.
	KeptRatio  *float64                    `json:"keptRatio"`
	ByKind     map[mdtext.Kind]*KindCounts `json:"byKind"`
	LostPaths  int                         `json:"lostPaths"`
	LeakCount  int                         `json:"leakCount"`
	Violations int                         `json:"violations"`
	Sections   int                         `json:"sectionCount"`
	Sentences  int                         `json:"sentenceCount"`
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
		profile = mdtext.ProfileE3E
	}
	var items []mdtext.Need
	if in.HasHistory {
		items = mdtext.Needs(mdtext.ParseHistory(in.History))
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
	ab := mdtext.NewBriefing(in.A)
	bb := mdtext.NewBriefing(in.B)
	c.A = measure(in.AFile, in.A, ab, items, in.HasHistory, target, c.PreviousChars, profile)
	c.B = measure(in.BFile, in.B, bb, items, in.HasHistory, target, c.PreviousChars, profile)
	var bounded bool
	if c.Similarity.RougeL, bounded = computeRougeL(in.A, in.B, LCSWorkBudget); bounded {
		c.Bounded = append(c.Bounded, BoundedRougeL)
	}
	if c.Similarity.SentencesA, c.Similarity.SentencesReused, bounded = sentenceReuse(ab, bb, ReuseVisitBudget); bounded {
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

func measure(file, text string, b *mdtext.Briefing, items []mdtext.Need, hasHistory bool, target int, prev *int, profile string) Side {
	s := Side{
		File:        file,
		Chars:       len16(text),
		Kept:        []mdtext.Item{},
		Lost:        []mdtext.Item{},
		TargetShare: round4(float64(len16(text)) / float64(target)),
		ByKind:      map[mdtext.Kind]*KindCounts{},
		Sentences:   len(b.Sentences()),
	}
	if prev != nil {
		g := s.Chars - *prev
		s.Growth = &g
		if g < 0 {
			s.Shrink = -g
		}
	}
	if hasHistory {
		for _, k := range mdtext.Kinds {
			s.ByKind[k] = &KindCounts{}
		}
		kept := make([]bool, len(items))
		nk := 0
		for i, it := range items {
			if kept[i] = b.Keeps(it); kept[i] {
				nk++
			}
		}
		s.Kept = make([]mdtext.Item, 0, nk)
		s.Lost = make([]mdtext.Item, 0, len(items)-nk)
		for i, it := range items {
			kc := s.ByKind[it.Kind]
			kc.Total++
			if kept[i] {
				kc.Kept++
				s.Kept = append(s.Kept, it.Item)
			} else {
				s.Lost = append(s.Lost, it.Item)
				if it.Kind == mdtext.KindPath {
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
	s.Leaks, s.LeakCount = mdtext.Leaks(text)
	if s.Leaks == nil {
		s.Leaks = []string{}
	}
	s.Rules = mdtext.CheckRules(text, profile)
	if s.Rules == nil {
		s.Rules = []mdtext.Violation{}
	}
	s.Violations = mdtext.ViolationCount(s.Rules)
	for _, sec := range mdtext.SplitSections(text) {
		if !sec.Preamble {
			s.Sections++
		}
	}
	return s
}
