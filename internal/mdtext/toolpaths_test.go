package mdtext

import (
	"reflect"
	"testing"
)

// TestToolPathsAreMustKeep: the workspace-relative files of other agents'
// file markers are must-keep paths, kept by a link or a whole-word
// mention; failed calls and mount-prefixed paths are left to the other
// rules.
func TestToolPathsAreMustKeep(t *testing.T) {
	hist := "<user>Fix the parser.</user>\n<assistant>[read: src/parser.go]\n" +
		"[edited: src/lexer.go (2 edits)]\n[read: missing.go ✗ no such file]\n" +
		"[moved: docs/old.md → docs/new.md]\n[shell: go test ./... → exit 1]\n[read: w1/src/a.ts]\n[read: README]</assistant>"
	var paths []string
	for _, it := range MustKeep(ParseHistory(hist)) {
		if it.Kind == KindPath {
			paths = append(paths, it.Value)
		}
	}
	want := []string{"w1/src/a.ts", "src/parser.go", "src/lexer.go", "docs/old.md", "docs/new.md"}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths %q, want %q", paths, want)
	}
	for _, tc := range []struct {
		briefing string
		kept     []string
	}{
		{"You read [](path:src/parser.go) and edited src/lexer.go. Moved docs/old.md to docs/new.md; see [](path:w1/src/a.ts).", want},
		{"You edited mysrc/lexer.go and src/parser.gox, and docs/new.md.bak.", nil},
		{"Files: src/parser.go, src/lexer.go", []string{"src/parser.go", "src/lexer.go"}},
	} {
		b := NewBriefing(tc.briefing)
		var kept []string
		for _, it := range Needs(ParseHistory(hist)) {
			if it.Kind == KindPath && b.Keeps(it) {
				kept = append(kept, it.Value)
			}
		}
		if !reflect.DeepEqual(kept, tc.kept) {
			t.Errorf("%q keeps %q, want %q", tc.briefing, kept, tc.kept)
		}
	}
}
