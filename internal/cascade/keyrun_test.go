package cascade

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/cascade/leaktest"
	"github.com/compactlab/compact/internal/testfiles"
)

// assertNoKeyRun fails when text shows any 12 characters of key in a row:
// in any letter case, as it is or decoded (invisible characters removed,
// HTML entities, JSON/JavaScript and URL escapes decoded), or in base64
// (either alphabet, any offset) or hex (see leaktest.KeyRun, which shares
// no code with the redactor).
func assertNoKeyRun(t testing.TB, text, key string) {
	t.Helper()
	if how := leaktest.KeyRun(text, key); how != "" {
		t.Errorf("a piece of the key %.8s… shows (%s) in:\n%.3000s", key, how, text)
	}
}

// keyForm is the forms a server may echo a piece of a key in.
var keyForms = []string{"plain", "case", "zero-width", "entity", "named", "json", "js", "url", "base64", "base64url", "hex", "HEX", "double-entity", "double-json", "mixed"}

var zeroWidth = []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"}

// encodeForm writes piece in form; rnd picks offsets, cases and spots.
func encodeForm(rnd *rand.Rand, piece, form string) string {
	var b strings.Builder
	perChar := func(f func(c byte) string) string {
		b.Reset()
		for i := 0; i < len(piece); i++ {
			b.WriteString(f(piece[i]))
		}
		return b.String()
	}
	entity := func(c byte) string {
		switch rnd.Intn(3) {
		case 0:
			return fmt.Sprintf("&#%d;", c)
		case 1:
			return fmt.Sprintf("&#x%x;", c)
		}
		return fmt.Sprintf("&#X%X;", c)
	}
	wrap := func(raw []byte) []byte {
		// Bytes before (0, 1 or 2: every base64 offset) and after.
		pre := make([]byte, rnd.Intn(3)+3*rnd.Intn(2))
		rnd.Read(pre)
		post := make([]byte, rnd.Intn(4))
		rnd.Read(post)
		return append(append(pre, raw...), post...)
	}
	switch form {
	case "plain":
		return piece
	case "case":
		return perChar(func(c byte) string {
			if rnd.Intn(2) == 0 {
				return strings.ToUpper(string(c))
			}
			return strings.ToLower(string(c))
		})
	case "zero-width":
		return perChar(func(c byte) string {
			if rnd.Intn(2) == 0 {
				return string(c) + zeroWidth[rnd.Intn(len(zeroWidth))]
			}
			return string(c)
		})
	case "entity":
		return perChar(entity)
	case "named":
		return perChar(func(c byte) string {
			switch {
			case c == '_':
				return "&lowbar;"
			case c == '-':
				return "&#45;"
			case rnd.Intn(3) == 0:
				return entity(c)
			}
			return string(c)
		})
	case "json":
		return perChar(func(c byte) string {
			if rnd.Intn(2) == 0 {
				return fmt.Sprintf(`\u%04x`, c)
			}
			return fmt.Sprintf(`\u%04X`, c)
		})
	case "js":
		return perChar(func(c byte) string {
			switch rnd.Intn(3) {
			case 0:
				return fmt.Sprintf(`\x%02x`, c)
			case 1:
				return fmt.Sprintf(`\u{%x}`, c)
			}
			return string(c)
		})
	case "url":
		return perChar(func(c byte) string { return fmt.Sprintf("%%%02X", c) })
	case "base64":
		enc := base64.StdEncoding
		if rnd.Intn(2) == 0 {
			enc = base64.RawStdEncoding
		}
		return enc.EncodeToString(wrap([]byte(piece)))
	case "base64url":
		return base64.RawURLEncoding.EncodeToString(wrap([]byte(piece)))
	case "hex":
		return hex.EncodeToString(wrap([]byte(piece)))
	case "HEX":
		return strings.ToUpper(hex.EncodeToString(wrap([]byte(piece))))
	case "double-entity":
		return perChar(func(c byte) string { return fmt.Sprintf("&amp;#%d;", c) })
	case "double-json":
		return perChar(func(c byte) string { return fmt.Sprintf(`\\u%04x`, c) })
	case "mixed":
		return perChar(func(c byte) string {
			switch rnd.Intn(6) {
			case 0:
				return entity(c)
			case 1:
				return fmt.Sprintf(`\u%04x`, c)
			case 2:
				return string(c) + zeroWidth[rnd.Intn(len(zeroWidth))]
			case 3:
				return fmt.Sprintf("%%%02x", c)
			}
			return string(c)
		})
	}
	panic(form)
}

const keyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func randomKey(rnd *rand.Rand) string {
	prefixes := []string{"sk-", "sk-proj-", "sk-ant-api03-", "AIza", ""}
	b := []byte(prefixes[rnd.Intn(len(prefixes))])
	for n := 20 + rnd.Intn(180); len(b) < n; {
		b = append(b, keyAlphabet[rnd.Intn(len(keyAlphabet))])
	}
	return string(b)
}

// filler is text around the pieces: words, markdown, escapes that decode
// to nothing of the key, base64 and hex of other bytes.
func filler(rnd *rand.Rand) string {
	words := []string{"the", "briefing", "API", "key", "is", "&amp;", "&lt;b&gt;", `\n`, `\"`, "%20", "&", `\`, "%", "&#", `\u`, "deadbeef", "cafe",
		"**Summary**", "sk-", "==", "Bearer", "x-request-id:", "0x", "\u200b", "✓", "😀", "a…b", "****", "QUJD", "c2stcHJv"}
	var b strings.Builder
	for n := rnd.Intn(12); n > 0; n-- {
		if rnd.Intn(4) == 0 {
			b.WriteString(" ")
		}
		b.WriteString(words[rnd.Intn(len(words))])
	}
	if rnd.Intn(3) == 0 {
		buf := make([]byte, rnd.Intn(40))
		rnd.Read(buf)
		b.WriteString(base64.StdEncoding.EncodeToString(buf))
	}
	return b.String()
}

// keyRunCase is a random key and a text that shows pieces of it (of 12
// characters or more) in random forms.
func keyRunCase(rnd *rand.Rand) (key, text string, forms []string) {
	key = randomKey(rnd)
	var b strings.Builder
	b.WriteString(filler(rnd))
	for n := 1 + rnd.Intn(4); n > 0; n-- {
		l := leaktest.RunLen + rnd.Intn(len(key)-leaktest.RunLen+1)
		i := rnd.Intn(len(key) - l + 1)
		form := keyForms[rnd.Intn(len(keyForms))]
		forms = append(forms, form)
		// A space each side: a filler's last character glued to an
		// encoded piece (a "%" before "&amp;#54;") can make another
		// escape of the two, which no server writes and the oracle
		// rightly does not read as the piece.
		b.WriteString(" " + encodeForm(rnd, key[i:i+l], form) + " ")
		b.WriteString(filler(rnd))
	}
	return key, b.String(), forms
}

// TestRedactRemovesEveryKeyRun: for each form a server may echo a key in,
// the whole key, a 12-character piece of its middle, and the key at every
// base64 offset leave nothing of 12 characters in a row, and the text
// around stays.
func TestRedactRemovesEveryKeyRun(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	r := NewRedactor(plantedKeys...)
	for _, key := range plantedKeys {
		middle := key[len(key)/2-6 : len(key)/2+6]
		for _, form := range keyForms {
			for _, piece := range []string{key, middle} {
				for rep := 0; rep < 3; rep++ {
					enc := encodeForm(rnd, piece, form)
					in := "Your key: " + enc + " (keep it safe)."
					if leaktest.KeyRun(in, key) == "" {
						t.Fatalf("%s: the oracle sees no key in %q", form, in)
					}
					out := r.Redact(in)
					assertNoKeyRun(t, out, key)
					if !strings.HasPrefix(out, "Your key: ") || !strings.HasSuffix(out, " (keep it safe).") || !strings.Contains(out, Redacted) {
						t.Errorf("%s: Redact(%q) = %q", form, in, out)
					}
				}
			}
		}
	}
	// The text of a 401 as Go's %q, a JSON body and a header show it.
	k := plantOpenAI
	for _, in := range []string{
		fmt.Sprintf("%q", "HTTP/1.1 200 OK\r\nX-Leak: Bearer "+k+"\r\n\r\n"),
		`{"error":{"message":"key \u0073\u006b-proj-ZZOPq8Xk3LmN0pQrStUvWxYz1234cdef"}}`,
		`{"error":{"message":"key \\u0073\\u006b\\u002d\\u0070\\u0072\\u006f\\u006a\\u002dZZOP"}}`,
		"request-id: " + base64.URLEncoding.EncodeToString([]byte("id:"+k)),
		"<p>" + strings.Join(strings.Split(k, ""), "&shy;") + "</p>",
	} {
		assertNoKeyRun(t, r.Redact(in), k)
	}
	// Near misses stay: 11 characters of a key, other base64 and hex.
	for _, in := range []string{
		"sk-proj-ZZO and q8Xk3LmN0pQ",
		base64.StdEncoding.EncodeToString([]byte("sk-proj-ZZO")),
		"commit 0123456789abcdef0123456789abcdef01234567, see &#115;&#107;",
		"**Summary**: done... and then sk-*** (3 chars shown) and a…b",
	} {
		if out := r.Redact(in); out != in {
			t.Errorf("Redact(%q) = %q, want it unchanged", in, out)
		}
	}
}

// TestRedactKeyRunsProperty: random keys, random texts with random pieces
// of 12 or more of their characters in random forms: no piece survives.
func TestRedactKeyRunsProperty(t *testing.T) {
	rnd := rand.New(rand.NewSource(time.Now().UnixNano()))
	seed := rnd.Int63()
	rnd = rand.New(rand.NewSource(seed))
	n := 500
	if testing.Short() || testfiles.Race {
		n = 80
	}
	for i := 0; i < n; i++ {
		key, text, forms := keyRunCase(rnd)
		checkKeyRunCase(t, fmt.Sprintf("seed %d, case %d, forms %v", seed, i, forms), key, text)
		if t.Failed() {
			return
		}
	}
}

func checkKeyRunCase(t *testing.T, what, key, text string) {
	t.Helper()
	if leaktest.KeyRun(text, key) == "" {
		t.Fatalf("%s: the oracle sees no key in %q", what, text)
	}
	// The key among others.
	out := NewRedactor(plantOpenAI, key, plantGemini).Redact(text)
	if how := leaktest.KeyRun(out, key); how != "" {
		t.Errorf("%s: %s survives\nkey  %s\nin   %q\nout  %q", what, how, key, text, out)
	}
}

// FuzzRedactKeyRuns: the property test's cases from fuzzed seeds.
func FuzzRedactKeyRuns(f *testing.F) {
	for _, s := range []int64{0, 1, 2, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		rnd := rand.New(rand.NewSource(seed))
		key, text, forms := keyRunCase(rnd)
		checkKeyRunCase(t, fmt.Sprintf("seed %d, forms %v", seed, forms), key, text)
	})
}

// FuzzRedactText: whatever the text around a key's piece, nothing of it
// survives.
func FuzzRedactText(f *testing.F) {
	for _, s := range []string{"", "a", "&#115;", `\u0073`, "%73", "\u200b", "c2stcHJvai1aWk9Q", "&amp;&#x", `\\\u`, "sk-proj-ZZOP****"} {
		f.Add(s, s, uint8(0))
	}
	key := plantOpenAI
	r := NewRedactor(key)
	f.Fuzz(func(t *testing.T, before, after string, form uint8) {
		rnd := rand.New(rand.NewSource(int64(form)))
		in := before + encodeForm(rnd, key[3:3+12+int(form)%20], keyForms[int(form)%len(keyForms)]) + after
		if how := leaktest.KeyRun(r.Redact(in), key); how != "" {
			t.Errorf("%s survives in Redact(%q)", how, in)
		}
	})
}

// TestRedactIsLinear: 8 MB of text shaped to make the redactor work (runs
// of key characters, base64, hex, escapes) take well under a second per
// megabyte (about 0.1 s; 2 MB under the race detector).
func TestRedactIsLinear(t *testing.T) {
	r := NewRedactor(plantedKeys...)
	size := 8 << 20
	if testfiles.Race {
		size = 2 << 20
	}
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(strings.Repeat("a", 1000))
		b.WriteString(" &#97;\\u0061%61 ")
		b.WriteString(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("sk-proj-", 50))))
		b.WriteString(" deadbeef0123456789abcdef0123456789abcdef ")
	}
	text := b.String()
	start := time.Now()
	out := r.Redact(text)
	if d := time.Since(start); d > time.Duration(size>>20)*time.Second {
		t.Errorf("%d MB took %v", size>>20, d)
	}
	if out != text {
		t.Error("a text without the keys was changed")
	}
}

// TestRedactManyPiecesIsLinear: a megabyte-long base64 run that holds the
// key thousands of times, and as many plain copies, take well under a
// second: each run is walked once.
func TestRedactManyPiecesIsLinear(t *testing.T) {
	r := NewRedactor(plantOpenAI)
	blob := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("filler "+plantOpenAI+" ", 12000)))
	text := blob + " " + strings.Repeat(plantOpenAI+" ", 12000)
	start := time.Now()
	out := r.Redact(text)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("%d bytes took %v", len(text), d)
	}
	if !strings.HasPrefix(out, Redacted+" "+Redacted+" ") || strings.Count(out, Redacted) != 12001 {
		t.Errorf("out %.200s…", out)
	}
}
