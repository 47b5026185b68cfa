package agents

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzUnquote: unquote decodes every JSON string as encoding/json does.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"a"`, `"a\nb\t\"c\\d\/"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", `"x\q"`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want string
		if json.Unmarshal(b, &want) != nil {
			return
		}
		got, ok := unquote(bytes.TrimSpace(b))
		if !ok || got != want {
			t.Fatalf("unquote(%q) = %q, %v; want %q", b, got, ok, want)
		}
	})
}
