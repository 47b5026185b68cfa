package convo

import (
	"strings"

	"github.com/compactlab/compact/internal/diff"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/strategy"
)

// RetentionKinds are the must-keep kinds Retention measures, in report
// order: mount-prefixed paths and [](path:…) links, markdown links, and
// failed tool outcomes (✗, exit N, timed out).
var RetentionKinds = []diff.Kind{diff.KindPath, diff.KindLink, diff.KindFailure}

// Retention is how many must-keep items of the compacted messages a
// summary kept.
type Retention struct {
	Items  int                      `json:"items"`
	Kept   int                      `json:"kept"`
	ByKind map[diff.Kind]*KindCount `json:"byKind"`
	// Lost lists the items the summary lost, in the order of
	// RetentionKinds.
	Lost []diff.Item `json:"lost"`
}

// KindCount counts the items of one kind.
type KindCount struct {
	Total int `json:"total"`
	Kept  int `json:"kept"`
}

// Ratio is Kept/Items, 1 when there are no items.
func (r Retention) Ratio() float64 {
	if r.Items == 0 {
		return 1
	}
	return float64(r.Kept) / float64(r.Items)
}

// retentionChunk is the size, in bytes, of the pieces of the compact
// history MeasureRetention measures one at a time (a var for the tests).
var retentionChunk = 64 << 10

// MeasureRetention finds the must-keep items of compacted (rendered with
// CompactHistory) and checks which of them summary keeps, with the item
// rules and kept checks of internal/diff (diff.MustKeep, diff.Compare):
// only the kinds of RetentionKinds count.
//
// The history is measured in pieces of whole turns, about retentionChunk
// bytes each, and the items merged (first appearance wins, as within one
// diff.Compare): diff.ParseHistory looks ahead to the end of its input for
// every turn, quadratic over a whole long history (a 200,000-message
// simulation spent nearly all its time there), linear over bounded
// pieces. The result is the same: a turn's items do not depend on the
// other turns, an item's kept check only on the item and the summary,
// and items are told apart by kind and value for these kinds.
func MeasureRetention(compacted []strategy.Message, summary string, profile *serialize.Profile) Retention {
	r := Retention{ByKind: map[diff.Kind]*KindCount{}, Lost: []diff.Item{}}
	for _, k := range RetentionKinds {
		r.ByKind[k] = &KindCount{}
	}
	if len(compacted) == 0 {
		return r
	}
	name := ""
	if profile != nil {
		name = profile.Name
	}
	seen := map[diff.Kind]map[string]bool{}
	for _, k := range RetentionKinds {
		seen[k] = map[string]bool{}
	}
	first := func(it diff.Item) bool {
		s, want := seen[it.Kind]
		if !want || s[it.Value] {
			return false
		}
		s[it.Value] = true
		return true
	}
	lost := map[diff.Kind][]diff.Item{}
	var b strings.Builder
	measure := func() {
		c := diff.Compare(diff.Input{A: summary, History: b.String(), HasHistory: true, Profile: name})
		b.Reset()
		for _, it := range c.A.Kept {
			if first(it) {
				r.Items++
				r.Kept++
				r.ByKind[it.Kind].Total++
				r.ByKind[it.Kind].Kept++
			}
		}
		for _, it := range c.A.Lost {
			if first(it) {
				r.Items++
				r.ByKind[it.Kind].Total++
				lost[it.Kind] = append(lost[it.Kind], it)
			}
		}
	}
	compactTurns(compacted, &RenderOptions{Profile: profile}, func(turn string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(turn)
		if b.Len() >= retentionChunk {
			measure()
		}
	})
	if b.Len() > 0 {
		measure()
	}
	for _, k := range RetentionKinds {
		r.Lost = append(r.Lost, lost[k]...)
	}
	return r
}
