package serialize

import (
	"testing"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/history"
)

// FuzzSerialize feeds arbitrary superjson to the serializer: it must never
// panic, never leave a message out (the upstream catches every throw in a
// part or an annotation), and its output, made well formed, is valid
// UTF-8.
func FuzzSerialize(f *testing.F) {
	for _, v := range readCHVectors(f) {
		f.Add(v.Raw, true)
	}
	for _, v := range readUpstreamVectors(f) {
		f.Add(v.Raw, v.ResolvedSlash != nil)
	}
	f.Add(`{"json":[{"role":"assistant","parts":[{"type":"tool-askUserQuestions","input":{"steps":[{"fields":[null,{"questionId":1}]}]},"output":{"completed":1,"answers":"ab"}}]}]}`, false)
	f.Fuzz(func(t *testing.T, raw string, slash bool) {
		v, err := history.DecodeSuperJSON(raw)
		if err != nil {
			return
		}
		msgs := []history.Value{v}
		if v.Kind() == history.Array {
			msgs = v.Elems()
		}
		opts := Options{Problems: func(p Problem) {
			if p.Dropped && !p.Upstream {
				t.Fatalf("message dropped: %v", p)
			}
		}}
		if slash {
			opts.Slash = map[string]SlashItem{"command:build": {ID: "command:build", DisplayName: "B", Content: "x]]>y"}}
		}
		for _, p := range Profiles {
			opts.Profile = p
			out := Serialize(msgs, opts)
			if !utf8.ValidString(history.ToWellFormed(out)) {
				t.Fatalf("output is not UTF-8 after ToWellFormed: %q", out)
			}
		}
		_, _ = SlashIDs(msgs)
	})
}
