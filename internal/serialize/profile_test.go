package serialize

import (
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

// TestProfilesDifferAsData checks the head profile's three differences on
// one history: annotations not escaped, no slash-command bodies (links stay
// raw), and the watcher marker; e3e escapes, inlines and falls back to the
// generic marker.
func TestProfilesDifferAsData(t *testing.T) {
	raw := `{"json":[` +
		`{"id":"u","role":"user","parts":[{"type":"text","text":"run [/build](slash:command:build)"}],"metadata":{"attachments":[{"path":"a/R&D <1>.png"}]}},` +
		`{"id":"a","role":"assistant","parts":[{"type":"tool-createWatcherSession","state":"output-available","input":{"title":"dev <server>"},"output":{"session_id":"w1"}}]}]}`
	msgs, ok, err := history.DecodeMessages(raw)
	if err != nil || !ok {
		t.Fatal(err)
	}
	slash := map[string]SlashItem{"command:build": {ID: "command:build", DisplayName: "Build", Content: "Build it."}}
	tests := []struct {
		profile string
		want    []string
		not     []string
	}{
		{"e3e", []string{"[attached: R&amp;D &lt;1&gt;.png]", `<slash-command id="command:build"`, "run //build", "[tool-createWatcherSession]"},
			[]string{"watcher created"}},
		{"head", []string{"[attached: R&D <1>.png]", "run [/build](slash:command:build)", "[watcher created: dev &lt;server&gt; → session w1]"},
			[]string{"<slash-command"}},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			p, err := LookupProfile(tt.profile)
			if err != nil {
				t.Fatal(err)
			}
			out := Serialize(msgs, Options{Profile: p, Slash: slash})
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in\n%s", w, out)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(out, n) {
					t.Errorf("unexpected %q in\n%s", n, out)
				}
			}
		})
	}
	if _, err := LookupProfile("nope"); err == nil {
		t.Error("unknown profile accepted")
	}
}

func TestHeadHostToolsSeeOutputOnlyWhenAvailable(t *testing.T) {
	raw := `{"json":[{"id":"a","role":"assistant","parts":[` +
		`{"type":"tool-executeShellCommand","state":"input-available","input":{"explanation":"Build"},"output":{"exit_code":1}}]}]}`
	msgs, _, _ := history.DecodeMessages(raw)
	e3e := Serialize(msgs, Options{Profile: Profiles["e3e"]})
	head := Serialize(msgs, Options{Profile: Profiles["head"]})
	if !strings.Contains(e3e, "[shell: Build → exit 1]") || !strings.Contains(head, "[shell: Build]") {
		t.Errorf("e3e %q head %q", e3e, head)
	}
}
