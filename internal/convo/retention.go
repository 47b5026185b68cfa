package convo

import (
	"strings"

	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/strategy"
)

// RetentionKinds are the must-keep kinds Retention measures, in report
// order: mount-prefixed paths and [](path:…) links, markdown links, and
// failed tool outcomes (✗, exit N, timed out).
var RetentionKinds = []mdtext.Kind{mdtext.KindPath, mdtext.KindLink, mdtext.KindFailure}

// Retention is how many must-keep items of the compacted messages a
// summary kept.
type Retention struct {
	Items  int                        `json:"items"`
	Kept   int                        `json:"kept"`
	ByKind map[mdtext.Kind]*KindCount `json:"byKind"`
	// Lost lists the items the summary lost, in the order of
	// RetentionKinds.
	Lost []mdtext.Item `json:"lost"`
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
// rules and kept checks of `compact diff` (mdtext.Needs,
// mdtext.Briefing.Keeps): only the kinds of RetentionKinds count.
//
// The history is measured in pieces of whole turns, about retentionChunk
// bytes each, and the items merged (first appearance wins, as within one
// mdtext.Needs): mdtext.ParseHistory looks ahead to the end of its input
// for every turn, quadratic over a whole long history (a 200,000-message
// simulation spent nearly all its time there), linear over bounded
// pieces. The result is the same: a turn's items do not depend on the
// other turns, an item's kept check only on the item and the summary,
// and items are told apart by kind and value for these kinds.
func MeasureRetention(compacted []strategy.Message, summary string, profile *serialize.Profile) Retention {
	r := Retention{ByKind: map[mdtext.Kind]*KindCount{}, Lost: []mdtext.Item{}}
	for _, k := range RetentionKinds {
		r.ByKind[k] = &KindCount{}
	}
	if len(compacted) == 0 {
		return r
	}
	sum := mdtext.NewBriefing(summary)
	seen := map[mdtext.Kind]map[string]bool{}
	for _, k := range RetentionKinds {
		seen[k] = map[string]bool{}
	}
	first := func(it mdtext.Item) bool {
		s, want := seen[it.Kind]
		if !want || s[it.Value] {
			return false
		}
		s[it.Value] = true
		return true
	}
	lost := map[mdtext.Kind][]mdtext.Item{}
	var b strings.Builder
	measure := func() {
		items := mdtext.Needs(mdtext.ParseHistory(b.String()))
		b.Reset()
		for _, it := range items {
			if !first(it.Item) {
				continue
			}
			r.Items++
			r.ByKind[it.Kind].Total++
			if sum.Keeps(it) {
				r.Kept++
				r.ByKind[it.Kind].Kept++
			} else {
				lost[it.Kind] = append(lost[it.Kind], it.Item)
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
