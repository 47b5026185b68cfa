package bundle

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestChains: every chat directory is a chain, one of a single bundle
// too; a chain is in compression order (compressionNumber over the
// directory's name, then the directory), the chains by name; a bundle
// of no chain is left out.
func TestChains(t *testing.T) {
	md := func(n int) *Metadata { return &Metadata{CompressionNumber: n} }
	dirs := []string{
		filepath.Join("p", "002-b", "compression-001"),
		filepath.Join("p", "001-a", "compression-002"),
		filepath.Join("p", "001-a", "compression-001"),
		filepath.Join("p", "001-a", "compression-003"),
		"",
	}
	pos := []int{Position(dirs[0], nil), Position(dirs[1], md(3)), Position(dirs[2], md(0)), Position(dirs[3], md(2)), 0}
	if want := []int{1, 3, 1, 2, 0}; !reflect.DeepEqual(pos, want) {
		t.Fatalf("positions %v, want %v", pos, want)
	}
	got := Chains(len(dirs), func(i int) ChainLink {
		c := ""
		if dirs[i] != "" {
			c = ChainOf(dirs[i])
		}
		return ChainLink{Dir: dirs[i], Chain: c, Position: pos[i]}
	})
	if want := [][]int{{2, 3, 1}, {0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("chains %v, want %v", got, want)
	}
	if ChainOf(dirs[0]) != filepath.Join("p", "002-b") {
		t.Errorf("ChainOf %q", ChainOf(dirs[0]))
	}
}
