package convo

import (
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

// MeasureRetention finds the must-keep items of compacted (rendered with
// CompactHistory) and checks which of them summary keeps, with the item
// rules and kept checks of internal/diff (diff.MustKeep, diff.Compare):
// only the kinds of RetentionKinds count.
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
	c := diff.Compare(diff.Input{A: summary, History: CompactHistory(compacted, "", profile), HasHistory: true, Profile: name})
	want := map[diff.Kind]bool{}
	for _, k := range RetentionKinds {
		want[k] = true
	}
	for _, it := range c.A.Kept {
		if want[it.Kind] {
			r.Items++
			r.Kept++
			r.ByKind[it.Kind].Total++
			r.ByKind[it.Kind].Kept++
		}
	}
	for _, k := range RetentionKinds {
		for _, it := range c.A.Lost {
			if it.Kind == k {
				r.Items++
				r.ByKind[k].Total++
				r.Lost = append(r.Lost, it)
			}
		}
	}
	return r
}
