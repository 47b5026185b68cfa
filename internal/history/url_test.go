package history

import (
	"os"
	"strings"
	"testing"
)

// urlVectors reads a file written by scripts/upstream-diff/url-vectors.sh:
// a header naming the Node and Ada versions, then one [input, href or
// null] line per input. The lines go through ParseJSON, which keeps a lone
// surrogate of an input as it is (WTF-8), as the JavaScript string has it.
func urlVectors(t *testing.T, name string) (node string, ins []string, want []*string) {
	t.Helper()
	var head struct {
		Node string `json:"node"`
		Ada  string `json:"ada"`
	}
	lines := vectorLines(t, name, &head)
	if head.Node == "" {
		t.Fatalf("%s: no node version in the header", name)
	}
	for _, l := range lines {
		v, err := ParseJSON(l)
		if err != nil || v.Kind() != Array || v.Len() != 2 || v.Index(0).Kind() != String {
			t.Fatalf("%s: bad line %q: %v", name, l, err)
		}
		ins = append(ins, v.Index(0).Str())
		switch h := v.Index(1); h.Kind() {
		case Null:
			want = append(want, nil)
		case String:
			s := h.Str()
			want = append(want, &s)
		default:
			t.Fatalf("%s: bad line %q", name, l)
		}
	}
	return head.Node + " (Ada " + head.Ada + ")", ins, want
}

// TestURLMatchesNode runs newURL (superjson's new URL(v)) over every input
// of testdata/url-node20.jsonl and wants Node's href byte for byte, or
// its TypeError where Node throws. COMPACT_URL_VECTORS names another file
// of the same form (scripts/upstream-diff/url-fuzz.sh writes one).
func TestURLMatchesNode(t *testing.T) {
	name := "testdata/url-node20.jsonl"
	if p := os.Getenv("COMPACT_URL_VECTORS"); p != "" {
		name = p
	}
	node, ins, want := urlVectors(t, name)
	if len(ins) < 500 && name == "testdata/url-node20.jsonl" {
		t.Fatalf("%s: only %d vectors", name, len(ins))
	}
	bad := 0
	for i, in := range ins {
		got, err := newURL(StringValue(in))
		var msg string
		switch {
		case want[i] == nil:
			if err == nil {
				msg = "= " + got.Str() + ", Node throws"
			} else if err.Error() != "TypeError: Invalid URL: "+in {
				msg = "fails with " + err.Error()
			}
		case err != nil:
			msg = "fails (" + err.Error() + "), Node gives " + *want[i]
		case got.Kind() != URL || got.Str() != *want[i]:
			msg = "= " + got.Str() + ", Node gives " + *want[i]
		}
		if msg != "" {
			if bad++; bad <= 30 {
				t.Errorf("new URL(%q) %s", in, msg)
			}
		}
	}
	if bad > 30 {
		t.Errorf("... %d differences in all", bad)
	}
	t.Logf("%d inputs compared with Node %s", len(ins), node)
}

// TestNewURLValue covers what the vectors do not: a value that is not a
// string goes through String(), and the href is the value's text.
func TestNewURLValue(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		href string
		err  string
	}{
		{StringValue("HTTP://EXAMPLE.com"), "http://example.com/", ""},
		{NumberValue(1), "", "TypeError: Invalid URL: 1"},
		{NullValue(), "", "TypeError: Invalid URL: null"},
		{NewArray([]Value{StringValue("https://a.example/x y")}), "https://a.example/x%20y", ""},
		{StringValue("not a url"), "", "TypeError: Invalid URL: not a url"},
	} {
		got, err := newURL(tc.v)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("newURL(%v) = %q, %v; want error %q", tc.v, got.Str(), err, tc.err)
			}
			continue
		}
		if err != nil || got.Kind() != URL || got.Str() != tc.href || ToString(got) != tc.href {
			t.Errorf("newURL(%v) = %q, %v; want %q", tc.v, got.Str(), err, tc.href)
		}
	}
}

// TestURLFastPath checks that the shortcut for a URL already in its
// serialized form agrees with the full parser.
func TestURLFastPath(t *testing.T) {
	for _, s := range []string{
		"https://example.com/", "http://a.b-c_d.example/p/a.b/c?q=1&r='x'#f'g",
		"https://x.0/", "https://x.0x1/", "https://xn--a.com/", "http://a.xn--b/",
		"https://a/./b", "https://a/../b", "https://a/b/.", "https://a/%2e", "https://a/b c",
		"https://A/", "https://a:80/", "https://a/?'", "https://a/b\\c", "http://a/?x#`",
		"https://a../", "https://.a/", "https://a/.b/./c", "http://1.2.3.4/",
	} {
		h, ok := urlFastPath(s)
		if !ok {
			continue
		}
		var u urlRecord
		if !u.parse([]rune(s)) || u.serialize() != h {
			t.Errorf("fast path %q gives %q, the parser %q", s, h, u.serialize())
		}
	}
	if _, ok := urlFastPath("https://example.com/a/b?c=d#e"); !ok {
		t.Error("fast path not taken for a plain URL")
	}
	if strings.Contains(func() string { h, _ := urlHref("https://a/b\tc"); return h }(), "\t") {
		t.Error("tab kept")
	}
}

func BenchmarkURLHref(b *testing.B) {
	for _, in := range []string{
		"https://example.com/a/b?c=d#e",      // fast path
		"HTTP://Example.com:80/a/../b?c d#e", // parser, ASCII host
		"https://bücher.example/ä",           // IDNA
	} {
		b.Run(in, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, ok := urlHref(in); !ok {
					b.Fatal(in)
				}
			}
		})
	}
}
