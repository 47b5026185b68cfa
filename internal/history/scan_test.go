package history

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// scanText is string content the way tool outputs hold it: code lines
// joined by \n escapes, with an escaped quote now and then.
var scanText = func() string {
	var b strings.Builder
	b.WriteByte('"')
	for b.Len() < 1<<20 {
		b.WriteString(`    const total = items.reduce((sum, it) => sum + it.price * it.qty, 0); // \"sum\"\n`)
		b.WriteString(`export function formatPrice(value: number) {\n  return value.toFixed(2);\n}\n`)
	}
	b.WriteByte('"')
	return b.String()
}()

func BenchmarkSkipString(b *testing.B) {
	b.SetBytes(int64(len(scanText)))
	for b.Loop() {
		if end := checkString(scanText, 0); end != len(scanText) {
			b.Fatal(end)
		}
	}
}

// refScan is scanPlain one byte at a time, with the high flag of
// scanPlainAVX2.
func refScan(s string, i int) (int, bool) {
	high := false
	for ; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 {
			return i, high
		}
		if c >= 0x80 {
			high = true
		}
	}
	return len(s), high
}

// TestScanPlainImplementations: the word loop and, where the CPU has it,
// the AVX2 assembly against a byte loop, from every start, on texts of 32
// to 130 bytes (whole blocks and every size of last, partial block) with
// a special byte at every position, or none, behind every kind of plain
// byte, high ones included.
func TestScanPlainImplementations(t *testing.T) {
	if !haveAVX2 {
		t.Log("no AVX2 on this machine: only the word loop is checked")
	}
	fills := []byte{'a', 0x7f, 0x80, 0xff, 0x21, ' '}
	for n := 32; n <= 130; n++ {
		for _, fill := range fills {
			for _, special := range []byte{0, '"', '\\', 0x00, 0x1f} {
				for at := 0; at < n; at += 1 + n/40 {
					b := []byte(strings.Repeat(string([]byte{fill}), n))
					b[n/3] = 'x' // a plain ASCII byte among high ones
					if special != 0 {
						b[at] = special
					}
					s := string(b)
					for start := 0; start <= n; start++ {
						want, wantHigh := refScan(s, start)
						if got := scanPlainWords(s, start); got != want {
							t.Fatalf("words: n %d fill %#x special %#x at %d start %d: %d, want %d", n, fill, special, at, start, got, want)
						}
						if !haveAVX2 {
							continue
						}
						if got, high := scanPlainAVX2(s, start); got != want || high != wantHigh {
							t.Fatalf("AVX2: n %d fill %#x special %#x at %d start %d: %d %v, want %d %v", n, fill, special, at, start, got, high, want, wantHigh)
						}
					}
					if special == 0 {
						break
					}
				}
			}
		}
	}
}

// TestScanPlainFindsTheFirstSpecialByte: every position and kind of byte
// that ends a plain run, behind every run length (so each byte of a word
// and the tail are covered), with borrow-prone neighbours.
func TestScanPlainFindsTheFirstSpecialByte(t *testing.T) {
	fillers := []byte{'a', ' ', 0x7f, 0x80, 0xff, 0x21, 0x1f + 1}
	for _, special := range []byte{'"', '\\', 0x00, 0x01, 0x1f} {
		for _, fill := range fillers {
			for n := 0; n < 40; n++ {
				for after := 0; after < 3; after++ {
					s := strings.Repeat(string([]byte{fill}), n) + string([]byte{special}) + strings.Repeat(string([]byte{0x00}), after)
					for start := 0; start <= n && start < 9; start++ {
						if got := scanPlain(s, start); got != n {
							t.Fatalf("fill %#x special %#x n %d start %d: got %d", fill, special, n, start, got)
						}
					}
				}
			}
		}
	}
	if got := scanPlain(strings.Repeat("x", 21), 0); got != 21 {
		t.Fatalf("no special byte: got %d, want 21", got)
	}
}

// TestStrValidatesUTF8AtEveryOffset: invalid UTF-8 placed at each byte of
// the words the fast path reads, before and after a quote or an escape,
// decodes as Node decodes it (one U+FFFD per maximal subpart).
func TestStrValidatesUTF8AtEveryOffset(t *testing.T) {
	for n := 0; n < 20; n++ {
		for _, bad := range []string{"\xff", "\xc3", "\xe2\x82", "é", "😀"} {
			for _, tail := range []string{``, `\n`, `abcdefgh`} {
				body := strings.Repeat("a", n) + bad + tail
				v, err := ParseJSON(`"` + body + `"`)
				if err != nil {
					t.Fatal(err)
				}
				want := ToValidUTF8(strings.ReplaceAll(body, `\n`, "\n"))
				if v.Str() != want {
					t.Fatalf("n %d bad %q tail %q: got %q, want %q", n, bad, tail, v.Str(), want)
				}
			}
		}
	}
}

// TestPlainASCIIWords checks the word-at-a-time plainASCII and isASCII
// against their byte-loop definitions on every slice of texts where each
// kind of byte (plain, control, backslash, DEL, past ASCII) sits at every
// position of a word.
func TestPlainASCIIWords(t *testing.T) {
	plain := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x80 || c == '\\' {
				return false
			}
		}
		return true
	}
	ascii := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return false
			}
		}
		return true
	}
	texts := []string{
		"partsMetadata.0.startedAt and a long plain key ~ !",
		"a\\b plain\\\\ with \\u0041 escapes \\",
		"tab\there, newline\n, nul\x00, unit separator\x1f, space ok",
		"DEL\x7f is plain, é is not, \xff neither, \x80 neither",
	}
	for _, text := range texts {
		for i := 0; i <= len(text); i++ {
			for j := i; j <= len(text); j++ {
				s := text[i:j]
				if got, want := plainASCII(s), plain(s); got != want {
					t.Fatalf("plainASCII(%q) = %v, want %v", s, got, want)
				}
				if got, want := isASCII(s), ascii(s); got != want {
					t.Fatalf("isASCII(%q) = %v, want %v", s, got, want)
				}
			}
		}
	}
}

// checkStringBytes is checkString a byte at a time.
func checkStringBytes(s string, i int) int {
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i+1 >= len(s) {
				return -1
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if _, ok := hex4(s, i+2); !ok {
					return -1
				}
				i += 5
			default:
				return -1
			}
		}
	}
	return -1
}

// TestCheckStringWords checks the word-at-a-time checkString against the
// byte loop for strings starting at every offset of texts with escapes,
// bad escapes, control characters and unterminated ends at every position
// of a word.
func TestCheckStringWords(t *testing.T) {
	texts := []string{
		`"plain text that runs past a word or two" tail`,
		`"a\nb\tc\"d\\e\/f\u00e9g\uD83D\ude00h" tail`,
		`"bad \x escape here" tail`,
		`"bad \u12G4 hex" "short \u12"`,
		"\"control \x01 char\" \"tab\tin\"",
		`"unterminated \"`,
		`"ends in a backslash \`,
		`"é日本😀 mixed \\" "\"" ""`,
	}
	for _, text := range texts {
		for start := 0; start < len(text); start++ {
			if text[start] != '"' {
				continue
			}
			for end := start + 1; end <= len(text); end++ {
				s := text[:end]
				if got, want := checkString(s, start), checkStringBytes(s, start); got != want {
					t.Fatalf("checkString(%q, %d) = %d, want %d", s, start, got, want)
				}
			}
		}
	}
}

// TestCheckStringRandom checks checkString (the AVX2 loop where the CPU
// has it, for texts of 32 bytes or more) against the byte loop on random
// strings of JSON's pieces: plain runs, high bytes, every escape, bad
// escapes, \u with good and bad hex digits, control bytes, quotes and
// backslashes, cut at every length, from every quote.
func TestCheckStringRandom(t *testing.T) {
	pieces := []string{"a", "plain text run ", "é", "\xff", "日本", `\n`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\t`,
		`\u00e9`, `\uD83D`, `\u12G4`, `\u12`, `\x`, `\`, "\x01", "\x1f", "\t", `"`, " ", strings.Repeat("z", 40)}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		var b strings.Builder
		b.WriteByte('"')
		for range 1 + rng.IntN(16) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteString(`" tail`)
		text := b.String()
		for start := 0; start < len(text); start++ {
			if text[start] != '"' {
				continue
			}
			for end := start + 1; end <= len(text); end += 1 + rng.IntN(3) {
				s := text[:end]
				if got, want := checkString(s, start), checkStringBytes(s, start); got != want {
					t.Fatalf("checkString(%q, %d) = %d, want %d", s, start, got, want)
				}
			}
		}
	}
}
