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

// TestAgentCoreHosts checks what the two v1.29.0 profiles do that e3e does
// not, each case read from the upstream code at 18ac8a27b and confirmed by
// the differential run (scripts/upstream-diff): a tool-write not in state
// output-available gets no output (so no [created: …]); a host serializer
// that throws gives the generic marker, its {err} included, not
// [tool-X: serialization-error]; the host registry is a plain object, so
// tool-toString finds Object.prototype.toString; without a host (the
// extraction script as shipped) every tool but the seven of agent-core is
// generic.
func TestAgentCoreHosts(t *testing.T) {
	part := func(p string) string {
		return `{"json":[{"id":"a","role":"assistant","parts":[` + p + `]}]}`
	}
	tests := []struct {
		name                 string
		raw                  string
		e3e, browser, noHost string
	}{
		{"write created, not available",
			part(`{"type":"tool-write","state":"input-available","input":{"path":"a.ts"},"output":{"message":"File created"}}`),
			"[created: a.ts]", "[wrote: a.ts]", "[wrote: a.ts]"},
		{"write created, available",
			part(`{"type":"tool-write","state":"output-available","input":{"path":"a.ts"},"output":{"message":"File created"}}`),
			"[created: a.ts]", "[created: a.ts]", "[created: a.ts]"},
		{"host serializer throws",
			part(`{"type":"tool-askUserQuestions","state":"output-available","input":{"title":"Pick","steps":7},"output":{"completed":true,"answers":{"q":1}}}`),
			"[tool-askUserQuestions: serialization-error]", "[tool-askUserQuestions]", "[tool-askUserQuestions]"},
		{"host serializer throws, with err",
			part(`{"type":"tool-executeSandboxJs","state":"output-error","errorText":"boom\nmore","input":{"explanation":{"toString":1}}}`),
			"[tool-executeSandboxJs: serialization-error]", "[tool-executeSandboxJs ✗ boom]", "[tool-executeSandboxJs ✗ boom]"},
		{"core marker throws",
			part(`{"type":"tool-read","input":{"path":{"toString":1}}}`),
			"[tool-read: serialization-error]", "[tool-read: serialization-error]", "[tool-read: serialization-error]"},
		{"toString",
			part(`{"type":"tool-toString","input":{"a":1}}`),
			"[tool-toString]", "[object Undefined]", "[tool-toString]"},
		{"constructor",
			part(`{"type":"tool-constructor","state":"output-denied","input":{"a":1}}`),
			"[tool-constructor ✗ denied]", "[tool-constructor ✗ denied]", "[tool-constructor ✗ denied]"},
		{"shell",
			part(`{"type":"tool-executeShellCommand","state":"output-available","input":{"command":"make"},"output":{"exit_code":0}}`),
			"[shell: make → ✓]", "[shell: make → ✓]", "[tool-executeShellCommand]"},
		{"watcher",
			part(`{"type":"tool-createWatcherSession","input":{"title":"dev"}}`),
			"[tool-createWatcherSession]", "[watcher requested: dev]", "[tool-createWatcherSession]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, ok, err := history.DecodeMessages(tt.raw)
			if err != nil || !ok {
				t.Fatal(err)
			}
			for _, c := range []struct{ profile, want string }{{"e3e", tt.e3e}, {"v1.29.0", tt.browser}, {"v1.29.0-nohost", tt.noHost}} {
				p, err := LookupProfile(c.profile)
				if err != nil {
					t.Fatal(err)
				}
				want := "<assistant>" + c.want + "</assistant>"
				if got := Serialize(msgs, Options{Profile: p}); got != want {
					t.Errorf("%s: got %q, want %q", c.profile, got, want)
				}
			}
		})
	}
}

// TestProfileNames: every name and alias of internal/upstream selects a
// serializer, the aliases the same as their release.
func TestProfileNames(t *testing.T) {
	for name, want := range map[string]string{
		"e3e": "e3e", "v1.4.1-nightly20260602c001": "e3e",
		"head": "head", "v1.29.0": "head",
		"head-nohost": "head-nohost", "v1.29.0-nohost": "head-nohost",
	} {
		p, err := LookupProfile(name)
		if err != nil || p.Name != want || Profiles[name] != p {
			t.Errorf("%s: %v %v", name, p, err)
		}
	}
}
