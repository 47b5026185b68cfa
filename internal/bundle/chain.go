package bundle

import (
	"path/filepath"
	"sort"
)

// A chain is the bundles of one chat: its compressions in order, each
// briefing carried into the next. This file is the one definition that
// compact diff and compact report both count and draw chains by:
//
//   - a bundle's chain is its chat directory, the directory that holds
//     the bundle's own (ChainOf);
//   - its place in the chain is metadata.json's compressionNumber, else
//     the number of its directory's name (Position);
//   - every chat with a bundle is a chain, of one briefing or more; a
//     chain's bundles are in compression order, then by directory, and
//     the chains by name (Chains).

// ChainOf is the chain of the bundle in dir: its chat directory.
func ChainOf(dir string) string { return filepath.Dir(dir) }

// Position is the place of the bundle in dir in its chain: md's
// compressionNumber when it has one (md may be nil), else the number of
// the directory's name (compression-NNN), else 0.
func Position(dir string, md *Metadata) int {
	if md != nil && md.CompressionNumber > 0 {
		return md.CompressionNumber
	}
	return CompressionOf(dir)
}

// ChainLink is one bundle as Chains orders it: its directory, its chain
// and its place in it.
type ChainLink struct {
	Dir, Chain string
	Position   int
}

// Chains groups n bundles into their chains; link(i) is the i-th's. It
// returns each chain's bundles as indexes, in compression order (then by
// directory), the chains sorted by name. A bundle whose chain is "" is
// in none.
func Chains(n int, link func(i int) ChainLink) [][]int {
	links := make([]ChainLink, n)
	by := map[string][]int{}
	var names []string
	for i := range n {
		l := link(i)
		links[i] = l
		if l.Chain == "" {
			continue
		}
		if _, ok := by[l.Chain]; !ok {
			names = append(names, l.Chain)
		}
		by[l.Chain] = append(by[l.Chain], i)
	}
	sort.Strings(names)
	out := make([][]int, 0, len(names))
	for _, name := range names {
		c := by[name]
		sort.SliceStable(c, func(a, b int) bool {
			la, lb := links[c[a]], links[c[b]]
			if la.Position != lb.Position {
				return la.Position < lb.Position
			}
			return la.Dir < lb.Dir
		})
		out = append(out, c)
	}
	return out
}
