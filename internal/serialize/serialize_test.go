package serialize

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

type chVector struct {
	Name          string       `json:"name"`
	Raw           string       `json:"raw"`
	ResolvedSlash *[]SlashItem `json:"resolvedSlash"`
	Expected      string       `json:"expected"`
	ExpectedLen16 int          `json:"expectedLen16"`
}

func readCHVectors(t testing.TB) []chVector {
	t.Helper()
	f, err := os.Open("../../testdata/conformance/vectors/compact-history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []chVector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var v chVector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		t.Fatal("no vectors")
	}
	return out
}

func slashMap(items *[]SlashItem) map[string]SlashItem {
	if items == nil {
		return nil
	}
	m := map[string]SlashItem{}
	for _, it := range *items {
		m[it.ID] = it
	}
	return m
}

func TestSerializeMatchesUpstreamVectors(t *testing.T) {
	for _, v := range readCHVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			msgs, ok, err := history.DecodeMessages(v.Raw)
			if err != nil || !ok {
				t.Fatalf("decode: ok=%v err=%v", ok, err)
			}
			got := Serialize(msgs, Options{Slash: slashMap(v.ResolvedSlash)})
			// encoding/json turns lone surrogates into U+FFFD, as Node does
			// when it writes the file.
			if w := history.ToWellFormed(got); w != v.Expected {
				t.Errorf("got\n%q\nwant\n%q", w, v.Expected)
			}
			if n := history.Len16(got); n != v.ExpectedLen16 {
				t.Errorf("len16 = %d, want %d", n, v.ExpectedLen16)
			}
		})
	}
}

// TestSortLocale checks the order against String.prototype.localeCompare
// under Node 20 (full ICU): symbols, then digits one by one, then letters
// with lower case and unaccented first. The goroutines share the pooled
// collators.
func TestSortLocale(t *testing.T) {
	want := []string{"_x", "10", "9", "a", "A", "b", "e", "é", "z-a", "za", "Zed"}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got := []string{"b", "A", "a", "_x", "10", "9", "é", "e", "Zed", "z-a", "za"}
				SortLocale(got, func(s string) string { return s })
				if !slices.Equal(got, want) {
					t.Errorf("SortLocale = %q, want %q", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	one := []string{"x"}
	SortLocale(one, func(s string) string { return s })
	if one[0] != "x" {
		t.Errorf("one element: %q", one)
	}
}

// TestEscWords checks the word-at-a-time esc against a byte loop on every
// slice of texts where each replaced character, its neighbours in the
// byte table (%, (, =, ?, !, #) and bytes past ASCII sit at every position
// of a word.
func TestEscWords(t *testing.T) {
	ref := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			switch c := s[i]; c {
			case '&':
				b.WriteString("&amp;")
			case '<':
				b.WriteString("&lt;")
			case '>':
				b.WriteString("&gt;")
			case '"':
				b.WriteString("&quot;")
			case '\'':
				b.WriteString("&apos;")
			default:
				b.WriteByte(c)
			}
		}
		return b.String()
	}
	texts := []string{
		`if (a < b && c > d) { say("it's"); } plain text that runs on`,
		"%(=?!#$ neighbours only, nothing to replace here at all",
		"é<ü>\xff&\x80'\"日本\"語'",
		"&&&&&&&&<<<<<<<<>>>>>>>>''''''''\"\"\"\"\"\"\"\"",
	}
	for _, text := range texts {
		for i := 0; i <= len(text); i++ {
			for j := i; j <= len(text); j++ {
				if got, want := Esc(text[i:j]), ref(text[i:j]); got != want {
					t.Fatalf("Esc(%q) = %q, want %q", text[i:j], got, want)
				}
			}
		}
	}
}

// TestSlashLinksPrefilter: skipping the regular expression for texts
// without "](slash:" finds the same links as running it, on texts built
// from the pieces of a link and near misses.
func TestSlashLinksPrefilter(t *testing.T) {
	pieces := []string{"[", "]", "(", ")", "slash:", "](", "](slash:", "] (slash:", "x", "[a]", "é"}
	rng := rand.New(rand.NewPCG(1, 2))
	found := 0
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		want := slashLink.FindAllStringSubmatch(text, -1)
		if got := slashLinks(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("slashLinks(%q) = %q, want %q", text, got, want)
		}
		found += len(want)
	}
	if found == 0 {
		t.Fatal("no text had a link: the test shows nothing")
	}
}
