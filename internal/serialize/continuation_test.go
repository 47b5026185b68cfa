package serialize

import (
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

func TestAppendContinuation(t *testing.T) {
	raw := `[
 {"role":"user","parts":[{"type":"text","text":"go on"}],"metadata":{"compressedHistory":"## Earlier\n\nthe briefing"}},
 {"role":"assistant","parts":[{"type":"text","text":"Running lint."},
   {"type":"tool-executeShellCommand","toolCallId":"a","state":"output-available","input":{"explanation":"Run lint","command":"pnpm lint"},
    "output":{"output":"src/a.ts: 'fooBar' <unused>","exit_code":1}},
   {"type":"tool-readFile","toolCallId":"b","state":"output-error","input":{"path":"w1/src/b.ts"},"errorText":"nope"}]},
 {"role":"user","parts":[{"type":"text","text":"third turn"}]}
]`
	v, err := history.ParseJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	msgs := v.Elems()
	got := string(AppendContinuation(nil, msgs, Options{}, 10, 0))
	compact := Serialize(msgs, Options{})
	// The summary on the first message is the briefing under test: never
	// written as a previous briefing.
	if strings.Contains(got, PrevOpen) {
		t.Errorf("continuation holds the summary:\n%s", got)
	}
	// The turns are the compact history's, with the outputs after their
	// turn, escaped; a failed call has no output.
	want := "<user>go on</user>\n" + compact[strings.Index(compact, "<assistant>"):strings.Index(compact, "</assistant>")+len("</assistant>")] +
		"\n<tool-output>{&quot;output&quot;:&quot;src/a.ts: &apos;fooBar&apos; &lt;unused&gt;&quot;,&quot;exit_code&quot;:1}</tool-output>\n<user>third turn</user>"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// maxTurns and maxOutput bound it.
	two := string(AppendContinuation(nil, msgs, Options{}, 2, 12))
	if strings.Contains(two, "third turn") || !strings.Contains(two, "<tool-output>{&quot;output&quot;:&quot;s</tool-output>") {
		t.Errorf("bounds not kept:\n%s", two)
	}
}
