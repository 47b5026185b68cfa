package convo

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadJSONL: any input reads without a panic, every problem names a
// line of the input, the branch is a path of usable messages (each one's
// parent is the message before it, in a tree), and the problems stay
// within a small multiple of the input (a cycle is reported once, not
// once per member with the whole cycle).
func FuzzReadJSONL(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","role":"user","content":"hi"}` + "\n" + `{"id":"b","parent_id":"a","role":"assistant","content":"ok"}`,
		`{"id":"a","parent_id":"b","role":"user","content":"x"}` + "\n" + `{"id":"b","parent_id":"a","role":"user","content":"y"}`,
		`{"id":"a","role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{}"}}]}` + "\n" + `{"id":"t","role":"tool","tool_call_id":"c1","content":"{\"exit_code\":1}"}`,
		"not json\n{}\n[]\n{\"id\":1}",
		`{"id":"a","parent_id":"zz","role":"user","content":"x","created_at":"2026-01-02T03:04:05Z"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadJSONL(bytes.NewReader(data), "fuzz", JSONLOptions{})
		if err != nil {
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, p := range h.Problems {
			if p.Line < 0 || p.Line > lines {
				t.Fatalf("problem on line %d of %d: %v", p.Line, lines, p)
			}
		}
		var size int
		for _, p := range h.Problems {
			size += len(p.Message)
		}
		if size > 2000+400*lines+4*len(data) {
			t.Fatalf("%d bytes of problems for %d bytes of input", size, len(data))
		}
		if len(h.Origin) != len(h.Branch) {
			t.Fatalf("%d origins for %d messages", len(h.Origin), len(h.Branch))
		}
		if h.Tree {
			for i := 1; i < len(h.Branch); i++ {
				if h.Branch[i].ParentID != h.Branch[i-1].ID {
					t.Fatalf("branch breaks at %d: parent %q after %q", i, h.Branch[i].ParentID, h.Branch[i-1].ID)
				}
			}
		}
		for _, m := range h.Branch {
			if !strings.Contains("system user assistant tool", m.Role) || m.Role == "" {
				t.Fatalf("role %q on the branch", m.Role)
			}
		}
	})
}
