package history

import (
	"strings"
	"testing"
	"unicode/utf16"
)

func TestLengthsAndCutsInUTF16Units(t *testing.T) {
	hi := encodeSurrogate(0xD83D)
	tests := []struct {
		name   string
		s      string
		len16  int
		cut    int
		want   string
		wellFd string
	}{
		{"ascii", "hello", 5, 3, "hel", "hel"},
		{"bmp", "é漢", 2, 1, "é", "é"},
		{"pair counts two", "a😀b", 4, 2, "a" + hi, "a\uFFFD"},
		{"cut after pair", "a😀b", 4, 3, "a😀", "a😀"},
		{"cut beyond end", "ab", 2, 10, "ab", "ab"},
		{"zero", "ab", 2, 0, "", ""},
		{"zwj sequence", "👩‍👩‍👧", 8, 8, "👩‍👩‍👧", "👩‍👩‍👧"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := Len16(tt.s); n != tt.len16 {
				t.Errorf("Len16 = %d, want %d", n, tt.len16)
			}
			got := Slice16(tt.s, tt.cut)
			if got != tt.want {
				t.Errorf("Slice16 = %q, want %q", got, tt.want)
			}
			if w := ToWellFormed(got); w != tt.wellFd {
				t.Errorf("ToWellFormed = %q, want %q", w, tt.wellFd)
			}
			if Len16(got) > tt.cut {
				t.Errorf("cut longer than %d units", tt.cut)
			}
		})
	}
}

func TestLoneSurrogateEscapesStayExact(t *testing.T) {
	v, err := ParseJSON(`"\ud800x\udfff"`)
	if err != nil {
		t.Fatal(err)
	}
	if Len16(v.Str()) != 3 {
		t.Errorf("len16 = %d, want 3", Len16(v.Str()))
	}
	s, _, _ := JSONStringify(v)
	if s != `"\ud800x\udfff"` {
		t.Errorf("stringify = %s", s)
	}
	if ToWellFormed(v.Str()) != "\uFFFDx\uFFFD" {
		t.Errorf("well formed = %q", ToWellFormed(v.Str()))
	}
	// Halves that meet again make the character.
	if ToWellFormed(encodeSurrogate(0xD83D)+encodeSurrogate(0xDE00)) != "😀" {
		t.Error("halves did not join")
	}
}

func TestInvalidUTF8DecodesAsNodeDoes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\"a\xffb\"", "a\uFFFDb"},
		{"\"\xe2\x82\"", "\uFFFD"},                 // truncated 3-byte sequence: one replacement
		{"\"\xed\xa0\x80\"", "\uFFFD\uFFFD\uFFFD"}, // encoded surrogate: three
		{"\"\xf0\x9f\x98\"", "\uFFFD"},
	}
	for _, tt := range tests {
		v, err := ParseJSON(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if v.Str() != tt.want {
			t.Errorf("%q decoded to %q, want %q", tt.in, v.Str(), tt.want)
		}
	}
}

func TestParseJSONRejectsWhatJSONParseRejects(t *testing.T) {
	for _, in := range []string{``, `{`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `+1`, `"\x"`, "\"\t\"", `nul`, `{"a" 1}`, `[1 2]`, `"abc`, `1 2`, `NaN`} {
		if _, err := ParseJSON(in); err == nil {
			t.Errorf("ParseJSON(%q) succeeded", in)
		}
	}
}

func TestNumberFormattingMatchesJavaScript(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-1.5, "-1.5"}, {0.1, "0.1"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"},
		{1e-7, "1e-7"}, {1.5e-7, "1.5e-7"}, {0.000001, "0.000001"}, {123456789.123, "123456789.123"},
		{5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"}, {2 << 53, "18014398509481984"},
	}
	for _, tt := range tests {
		if got := FormatNumber(tt.f); got != tt.want {
			t.Errorf("FormatNumber(%v) = %s, want %s", tt.f, got, tt.want)
		}
	}
}

func TestObjectKeyOrderIsJavaScriptOrder(t *testing.T) {
	v, err := ParseJSON(`{"b":1,"2":1,"a":1,"1":1,"b":2,"01":1}`)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := JSONStringify(v)
	if s != `{"1":1,"2":1,"b":2,"a":1,"01":1}` {
		t.Errorf("got %s", s)
	}
}

func TestRawSurrogateBytesBecomeReplacementsEvenBesideEscapes(t *testing.T) {
	// Raw ED A0 80 is ill-formed UTF-8 (three replacements, as Node
	// decodes it); the \ud800 escape is a real lone surrogate.
	v, err := ParseJSON("\"\xed\xa0\x80\\n\\ud800\"")
	if err != nil {
		t.Fatal(err)
	}
	if got := ToWellFormed(v.Str()); got != "\uFFFD\uFFFD\uFFFD\n\uFFFD" {
		t.Errorf("got %q", got)
	}
	if Len16(v.Str()) != 5 {
		t.Errorf("len16 = %d, want 5", Len16(v.Str()))
	}
	s, _, _ := JSONStringify(v)
	if s != "\"\uFFFD\uFFFD\uFFFD\\n\\ud800\"" {
		t.Errorf("stringify %s", s)
	}
}

// len16Bytes is Len16 a byte at a time: a lead or ASCII byte counts one
// unit, a four-byte lead (or any byte from 0xF0) one more.
func len16Bytes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if b := s[i]; b&0xC0 != 0x80 {
			n++
			if b >= 0xF0 {
				n++
			}
		}
	}
	return n
}

// TestLen16Words checks the word-at-a-time count against the byte loop on
// every slice of texts mixing ASCII, two-, three- and four-byte
// characters, WTF-8 surrogates and stray bytes, so that every kind of byte
// sits at every position of a word.
func TestLen16Words(t *testing.T) {
	texts := []string{
		"plain ascii text that is longer than a word or two",
		"héllo wörld — “quotes” 日本語テキスト 😀👍🏽 mixed",
		"\xed\xa0\x80 lone high, \xed\xb0\x80 lone low, \xf0\x9f\x98\x80 pair",
		"\xff\xfe\xf8\x80\x80\xbf\xc0\xf5 stray bytes \x80",
		strings.Repeat("é😀a", 20),
		"a valid \xed\x9f\xbf (U+D7FF) among plain text and \x01\x00 control bytes",
		"\x00\x01\xee\xec\xed\x01\x00\xed\xa0\x80\x01",
	}
	for _, text := range texts {
		for i := 0; i <= len(text); i++ {
			for j := i; j <= len(text); j++ {
				sub := text[i:j]
				if got, want := Len16(sub), len16Bytes(sub); got != want {
					t.Fatalf("Len16(%q) = %d, want %d", sub, got, want)
				}
				// Len16Scan's flag is exactly "holds a 0xED byte",
				// so it is set whenever a lone surrogate is there.
				n, mayLone := Len16Scan(sub)
				if want := strings.IndexByte(sub, 0xED) >= 0; mayLone != want || n != Len16(sub) {
					t.Fatalf("Len16Scan(%q) = %d, %v, want %d, %v", sub, n, mayLone, Len16(sub), want)
				}
				if HasLoneSurrogate(sub) && !mayLone {
					t.Fatalf("Len16Scan(%q) misses a lone surrogate", sub)
				}
			}
		}
	}
	// Valid UTF-8: the length JavaScript gives, through the standard
	// library's UTF-16 encoder.
	for _, text := range texts[:2] {
		if got, want := Len16(text), len(utf16.Encode([]rune(text))); got != want {
			t.Errorf("Len16(%q) = %d, want %d", text, got, want)
		}
	}
}
