package diff

import (
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/compactlab/compact/internal/mdtext"
)

// SectionStatus says what became of a section.
type SectionStatus string

// Section statuses.
const (
	SectionKept    SectionStatus = "kept"
	SectionChanged SectionStatus = "changed"
	SectionOnlyA   SectionStatus = "only-a"
	SectionOnlyB   SectionStatus = "only-b"
)

// SectionDiff is one section of the comparison.
type SectionDiff struct {
	Heading  string        `json:"heading"`
	Preamble bool          `json:"preamble,omitempty"`
	Status   SectionStatus `json:"status"`
	CharsA   int           `json:"charsA"`
	CharsB   int           `json:"charsB"`
	// Added and Removed count diff lines (sentences).
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Diff is the unified diff of the section, one sentence per line; empty
	// for a kept section and when diffs were not asked for.
	Diff string `json:"diff,omitempty"`
}

// DiffSections matches the sections of a and b by heading (the k-th
// section with a heading in A goes with the k-th with the same heading in
// B) and diffs the matched ones. The result follows A's order; a section
// only in B comes after the matched section that precedes it in B. With
// withText false, Diff is left empty (the counts are still computed).
func DiffSections(a, b string, withText bool) []SectionDiff {
	as, bs := mdtext.SplitSections(a), mdtext.SplitSections(b)
	key := func(secs []mdtext.Section) []string {
		seen := map[string]int{}
		keys := make([]string, len(secs))
		for i, s := range secs {
			k := mdtext.NormHeading(s.Heading)
			if s.Preamble {
				k = "\x00preamble"
			}
			keys[i] = k + "\x00" + strconv.Itoa(seen[k])
			seen[k]++
		}
		return keys
	}
	ak, bk := key(as), key(bs)
	bIdx := map[string]int{}
	for j, k := range bk {
		bIdx[k] = j
	}
	matchA := make([]int, len(as)) // A index -> B index or -1
	matchB := make([]int, len(bs))
	for j := range matchB {
		matchB[j] = -1
	}
	for i, k := range ak {
		matchA[i] = -1
		if j, ok := bIdx[k]; ok {
			matchA[i], matchB[j] = j, i
		}
	}
	// anchor[i] lists the B-only sections to show after A section i; -1
	// (index 0 here, shifted by one) before everything.
	anchor := make([][]int, len(as)+1)
	last := -1
	for j := range bs {
		if matchB[j] >= 0 {
			last = matchB[j]
			continue
		}
		anchor[last+1] = append(anchor[last+1], j)
	}
	var out []SectionDiff
	onlyB := func(at int) {
		for _, j := range anchor[at] {
			out = append(out, sectionDiff(nil, &bs[j], withText))
		}
	}
	onlyB(0)
	for i := range as {
		if j := matchA[i]; j >= 0 {
			out = append(out, sectionDiff(&as[i], &bs[j], withText))
		} else {
			out = append(out, sectionDiff(&as[i], nil, withText))
		}
		onlyB(i + 1)
	}
	return out
}

func sectionDiff(a, b *mdtext.Section, withText bool) SectionDiff {
	d := sectionDiffText(a, b, withText)
	d.Heading = strings.Clone(d.Heading) // not the whole briefing
	return d
}

func sectionDiffText(a, b *mdtext.Section, withText bool) SectionDiff {
	var d SectionDiff
	var at, bt string
	switch {
	case a != nil && b != nil:
		d.Heading, d.Preamble = a.Heading, a.Preamble
		at, bt = mdtext.SentenceLines(a.Body), mdtext.SentenceLines(b.Body)
		if at == bt {
			d.Status = SectionKept
		} else {
			d.Status = SectionChanged
		}
	case a != nil:
		d.Heading, d.Preamble, d.Status = a.Heading, a.Preamble, SectionOnlyA
		at = mdtext.SentenceLines(a.Body)
	default:
		d.Heading, d.Preamble, d.Status = b.Heading, b.Preamble, SectionOnlyB
		bt = mdtext.SentenceLines(b.Body)
	}
	if a != nil {
		d.CharsA = len16(a.Body)
	}
	if b != nil {
		d.CharsB = len16(b.Body)
	}
	if d.Status == SectionKept {
		return d
	}
	edits := udiff.Lines(at, bt)
	u, err := udiff.ToUnifiedDiff("A", "B", at, edits, 2)
	if err != nil {
		// Cannot happen: the edits come from the same texts.
		return d
	}
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				d.Added++
			case udiff.Delete:
				d.Removed++
			}
		}
	}
	if withText {
		u.From, u.To = "A "+sectionLabel(d), "B "+sectionLabel(d)
		d.Diff = u.String()
	}
	return d
}

// sectionLabel names a section in a diff header.
func sectionLabel(d SectionDiff) string {
	if d.Preamble {
		return "(before the first ##)"
	}
	return "## " + d.Heading
}
