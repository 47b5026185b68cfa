package mdtext

import (
	"math/rand"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestMountPathAt(t *testing.T) {
	tests := []struct {
		name string
		s    string
		w    int
		end  int // -1: no match
	}{
		{"file", "w1/src/a.ts", 0, 11},
		{"folder", "w1a2/src/", 0, 9},
		{"mount only", "w1/", 0, 3},
		{"seven after the digit", "w1abcdefg/x", 0, 11},
		{"eight after the digit", "w1abcdefgh/x", 0, -1},
		{"two digits", "w12/x", 0, 5},
		{"no digit", "wa/x", 0, -1},
		{"no slash", "w1 src", 0, -1},
		{"at the end", "w1", 0, -1},
		{"a lone w", "w", 0, -1},
		{"upper case in the prefix", "w1A/x", 0, -1},
		{"lower case beyond ASCII in the prefix", "w1é/x", 0, 6},
		{"in a sentence", "see w1/a.ts. Next", 4, 12},
		{"stops at white space", "w1/My Docs", 0, 5},
		{"stops at a bracket", "w1/a(b).ts", 0, 4},
		{"stops at a colon", "w1/x.ts:3:1", 0, 7},
		{"path characters", "w1/a_b-c@d+e~f%20/g.h", 0, 21},
		{"letters and numbers beyond ASCII", "w1/é²Ⅻ/ü", 0, 13},
		{"w at the end of s", "see w", 4, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			end, ok := MountPathAt(tt.s, tt.w)
			if tt.end < 0 {
				if ok {
					t.Errorf("MountPathAt(%q, %d) = %d, true; want no match", tt.s, tt.w, end)
				}
				return
			}
			if !ok || end != tt.end {
				t.Errorf("MountPathAt(%q, %d) = %d, %v; want %d (%q)", tt.s, tt.w, end, ok, tt.end, tt.s[tt.w:tt.end])
			}
		})
	}
}

// MountPathAt against the regular expression it replaces (leftmost
// matches, one after the other).
func TestMountPathAtMatchesItsRegularExpression(t *testing.T) {
	re := regexp.MustCompile(`w[0-9][\p{Ll}\p{N}]{0,7}/[\p{L}\p{N}_.\-@+~%/]*`)
	r := rand.New(rand.NewSource(7))
	pieces := []string{"[", "]", "(", ")", " ", "\n", "\"", "t", "path:", "w1", "w1a2", "/", "src", ".", "é", "x", ":",
		"_", "9", "#", "-", "abcdefgh", "w", "A", "²", "Ⅻ", "@", "~", "%", "+"}
	for n := 0; n < 5000; n++ {
		var b strings.Builder
		for k := 1 + r.Intn(30); k > 0; k-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		s := b.String()
		var want, got [][2]int
		for _, m := range re.FindAllStringIndex(s, -1) {
			want = append(want, [2]int{m[0], m[1]})
		}
		for i := 0; i < len(s); {
			k := strings.IndexByte(s[i:], 'w')
			if k < 0 {
				break
			}
			if end, ok := MountPathAt(s, i+k); ok {
				got = append(got, [2]int{i + k, end})
				i = end
				continue
			}
			i += k + 1
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("paths of %q: want %v, got %v", s, want, got)
		}
	}
}

// TestPathRunes: the characters of a path, and those that glue a mount
// prefix to the word before it. They differ on ':' and on numbers that are
// not decimal digits.
func TestPathRunes(t *testing.T) {
	for _, tc := range []struct {
		runes       string
		path, glued bool
	}{
		{"aZé中09_.-@+~%/", true, true},
		{"²Ⅻ", true, false},
		{":", false, true},
		{" \t\n()[]\"'`,;!?*#&=<>\\|“", false, false},
	} {
		for _, r := range tc.runes {
			if got := IsPathRune(r); got != tc.path {
				t.Errorf("IsPathRune(%q) = %v, want %v", r, got, tc.path)
			}
			if got := GluedBefore(r); got != tc.glued {
				t.Errorf("GluedBefore(%q) = %v, want %v", r, got, tc.glued)
			}
		}
	}
}
