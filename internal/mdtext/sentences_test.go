package mdtext

import (
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"blank", " \t ", nil},
		{"no end mark", "just words", []string{"just words"}},
		{"two", "One. Two.", []string{"One.", "Two."}},
		{"end marks", "Is it? Yes! Done.", []string{"Is it?", "Yes!", "Done."}},
		{"a run of marks", "Wait... What?!", []string{"Wait...", "What?!"}},
		{"lower case after", "lower. case after", []string{"lower. case after"}},
		{"lower case letter beyond ASCII", "It ends. élan follows", []string{"It ends. élan follows"}},
		{"digit after", "Step 1. 2 more", []string{"Step 1.", "2 more"}},
		{"abbreviation", "Use e.g. Two.", []string{"Use e.g. Two."}},
		{"abbreviation in capitals", "Use E.G. This", []string{"Use E.G. This"}},
		{"every abbreviation", "a i.e. B etc. C vs. D cf. E approx. F", []string{"a i.e. B etc. C vs. D cf. E approx. F"}},
		{"abbreviation ends the text", "Apples, pears etc.", []string{"Apples, pears etc."}},
		{"abbreviation only for a dot", "Say etc! Then", []string{"Say etc!", "Then"}},
		{"word that ends like one", "Go to the xetc. Then", []string{"Go to the xetc.", "Then"}},
		{"ASCII closers", `He said "Stop." Then (it ran.) And **bold.** Done`, []string{`He said "Stop."`, "Then (it ran.)", "And **bold.**", "Done"}},
		{"code span", "It ran `a.` Then stopped.", []string{"It ran `a.`", "Then stopped."}},
		{"typographic quote is no closer", "It said “Done.” Next one.", []string{"It said “Done.” Next one."}},
		{"tab and spaces", "One.\t  Two.", []string{"One.", "Two."}},
		{"no white space after", "a.b.c w1/a.ts. Next", []string{"a.b.c w1/a.ts.", "Next"}},
		{"newline is not a gap", "One.\nTwo.", []string{"One.\nTwo."}},
		{"end then only white space", "One.  ", []string{"One."}},
		{"leading white space", "  One. Two", []string{"One.", "Two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SplitSentences(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SplitSentences(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestEndsWithAbbreviation(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", false},
		{"e.g", true},
		{"use e.g", true},
		{"use E.G", true},
		{"i.e", true},
		{"and so on, etc", true},
		{"(etc", true},
		{"apples vs", true},
		{"cf", true},
		{"Approx", true},
		{"xetc", false},
		{"3.approx", false}, // the run of letters and dots is ".approx"
		{"etc ", false},
		{"e.g.", false},
		{"done", false},
	}
	for _, tt := range tests {
		if got := EndsWithAbbreviation(tt.in); got != tt.want {
			t.Errorf("EndsWithAbbreviation(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestTrailingWord(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"use e.g", "e.g"},
		{"x (etc", "etc"},
		{"naïve", "naïve"},
		{"3.approx", ".approx"},
		{"ends with space ", ""},
		{"w1/a.ts", "a.ts"},
	}
	for _, tt := range tests {
		if got := trailingWord(tt.in); got != tt.want {
			t.Errorf("trailingWord(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzSplitSentences: the sentences are trimmed and not empty, and together
// they hold all of the text but white space.
func FuzzSplitSentences(f *testing.F) {
	for _, s := range []string{"One. Two.", "Use e.g. Two.", "It ran `a.` Then stopped.", "Wait... What?!", " \t", "a.\t\tB"} {
		f.Add(s)
	}
	noSpace := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return r
		}, s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := SplitSentences(s)
		for _, x := range got {
			if x == "" || x != strings.TrimSpace(x) {
				t.Fatalf("SplitSentences(%q) holds %q", s, x)
			}
		}
		if a, b := noSpace(strings.Join(got, "")), noSpace(s); a != b {
			t.Fatalf("SplitSentences(%q) = %q: %q, want %q", s, got, a, b)
		}
	})
}

func TestSentencesSplitsProseAndSkipsHeadings(t *testing.T) {
	text := "## Topic\n\nYou read [](path:w1/a.ts). Then you fixed it, e.g. the import!\n" +
		"It was wrapped\nover two lines. Is it done? yes it is.\n\n" +
		"- a bullet. Two\n| a | b |\n"
	got := Sentences(text)
	want := []string{
		"You read [](path:w1/a.ts).",
		"Then you fixed it, e.g. the import!",
		"It was wrapped over two lines.",
		"Is it done? yes it is.",
		"- a bullet.", "Two",
		"| a | b |",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Sentences (-want +got):\n%s", d)
	}
}
