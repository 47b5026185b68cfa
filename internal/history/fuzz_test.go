package history

import (
	"bufio"
	"os"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeSuperJSON: decoding never panics, whatever decodes renders
// (JSON.stringify, String) without panicking, with consistent lengths, and
// lazy decoding (at a depth picked from the input) gives the same value or
// the same error.
func FuzzDecodeSuperJSON(f *testing.F) {
	if fh, err := os.Open("testdata/superjson-golden.jsonl"); err == nil {
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			if g, err := ParseJSON(sc.Text()); err == nil {
				f.Add(g.Get("text").Str())
			}
		}
		fh.Close()
	}
	f.Add(`{"json":"\ud800","meta":{"values":{"":["undefined"]}}}`)
	f.Fuzz(func(t *testing.T, text string) {
		v, err := DecodeSuperJSON(text)
		checkLazySame(t, text, 1+len(text)%4, v, err)
		if err != nil {
			return
		}
		s, ok, err := JSONStringify(v)
		if err == nil && ok {
			n, lerr := JSONLen16(v)
			if lerr != nil || n != Len16(s) {
				t.Fatalf("JSONLen16 = %d (%v), Len16(stringify) = %d", n, lerr, Len16(s))
			}
			if _, perr := ParseJSON(s); perr != nil {
				t.Fatalf("JSON.stringify output does not parse: %v\n%s", perr, s)
			}
		}
		str := ToString(v)
		if !utf8.ValidString(ToWellFormed(str)) {
			t.Fatalf("String() not well formed")
		}
		cut := Slice16(str, 80)
		if Len16(cut) > 80 {
			t.Fatalf("Slice16 gave %d units", Len16(cut))
		}
	})
}
