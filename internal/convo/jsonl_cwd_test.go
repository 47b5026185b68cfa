package convo

import (
	"strings"
	"testing"
)

// TestJSONLCwd: the cwd of a history is the cwd member of the first line
// of its branch that has one; a cwd that is not a string is ignored, not a
// problem.
func TestJSONLCwd(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"none", `{"id":"a","role":"user","content":"x"}`, ""},
		{"first on the branch", `{"id":"a","role":"user","content":"x","cwd":7}
{"id":"b","parent_id":"a","role":"assistant","content":"y","cwd":"/w/app"}
{"id":"c","parent_id":"b","role":"user","content":"z","cwd":"/w/other"}`, "/w/app"},
		{"another branch's is not taken", `{"id":"a","role":"user","content":"x"}
{"id":"b","parent_id":"a","role":"assistant","content":"y","cwd":"/w/side"}
{"id":"c","parent_id":"a","role":"assistant","content":"z"}`, ""},
	} {
		h, err := ReadJSONL(strings.NewReader(tc.in), tc.name, JSONLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if h.Cwd != tc.want || len(h.Problems) != 0 {
			t.Errorf("%s: cwd %q, problems %v; want %q", tc.name, h.Cwd, h.Problems, tc.want)
		}
	}
}
