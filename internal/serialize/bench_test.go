package serialize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

// proseChat builds a long chat with the text lengths of a typical coding
// session: a user request of a few sentences, an assistant answer of a few
// paragraphs, and four tool calls per turn.
func proseChat(tb testing.TB, turns int) []history.Value {
	tb.Helper()
	para := strings.Repeat("The colour token lives in the theme, so the change belongs in one place; the button only reads it. ", 6)
	var b strings.Builder
	b.WriteString(`{"json":[`)
	for i := 0; i < turns; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"u%d","role":"user","parts":[{"type":"text","text":"Turn %d: please look at the <Button> variants & make 'primary' use the brand colour. %s"}],"metadata":{"createdAt":"2026-05-20T09:00:00.000Z","partsMetadata":[]}},`, i, i, para[:200])
		fmt.Fprintf(&b, `{"id":"a%d","role":"assistant","parts":[{"type":"step-start"},{"type":"text","text":"%s"},`, i, para)
		fmt.Fprintf(&b, `{"type":"tool-read","toolCallId":"r%d","state":"output-available","input":{"path":"w1/src/components/Button%d.tsx"},"output":{"content":"x"}},`, i, i)
		fmt.Fprintf(&b, `{"type":"tool-multiEdit","toolCallId":"e%d","state":"output-available","input":{"path":"w1/src/components/Button%d.tsx","edits":[{"old_string":"red","new_string":"blue"}]}},`, i, i)
		fmt.Fprintf(&b, `{"type":"tool-executeShellCommand","toolCallId":"s%d","state":"output-available","input":{"explanation":"Run the unit tests for the button component","command":"pnpm test button"},"output":{"exit_code":0}},`, i)
		fmt.Fprintf(&b, `{"type":"text","text":"%s"}]}`, para[:300])
	}
	b.WriteString(`]}`)
	msgs, ok, err := history.DecodeMessages(b.String())
	if err != nil || !ok {
		tb.Fatalf("prose chat: ok=%v err=%v", ok, err)
	}
	return msgs
}

// BenchmarkSerializeProse is the headline figure: MB/s of output on a long
// chat with typical text lengths.
func BenchmarkSerializeProse(b *testing.B) {
	msgs := proseChat(b, 2000)
	out := AppendSerialize(nil, msgs, Options{})
	b.SetBytes(int64(len(out)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = AppendSerialize(out[:0], msgs, Options{})
	}
}

// syntheticChat builds a long, marker-heavy coding-agent chat: user turns
// with annotations, assistant turns with short text and seven tool parts.
func syntheticChat(tb testing.TB, turns int) []history.Value {
	tb.Helper()
	var b strings.Builder
	b.WriteString(`{"json":[`)
	for i := 0; i < turns; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"u%d","role":"user","parts":[{"type":"text","text":"Please fix the <Button> colour in src/components/Button%d.tsx & run the checks; keep the 'primary' variant."}],"metadata":{"createdAt":"2026-05-20T09:00:00.000Z","partsMetadata":[],"attachments":[{"path":"att/shot_%d.png","originalFileName":"Shot %d.png"}],"mentions":[{"providerType":"file","mountedPath":"w1/src/Button%d.tsx","fileName":"Button%d.tsx"}]}},`, i, i, i, i, i, i)
		fmt.Fprintf(&b, `{"id":"a%d","role":"assistant","parts":[{"type":"step-start"},{"type":"reasoning","text":"Thinking about the change."},{"type":"text","text":"I will read the file, edit it, and run lint and the tests. The colour comes from the theme tokens, so the fix belongs in one place."},`, i)
		fmt.Fprintf(&b, `{"type":"tool-read","toolCallId":"r%d","state":"output-available","input":{"path":"w1/src/components/Button%d.tsx"},"output":{"content":"export const Button = () => null;"}},`, i, i)
		fmt.Fprintf(&b, `{"type":"tool-multiEdit","toolCallId":"e%d","state":"output-available","input":{"path":"w1/src/components/Button%d.tsx","edits":[{"old_string":"red","new_string":"blue"},{"old_string":"a","new_string":"b"}]}},`, i, i)
		fmt.Fprintf(&b, `{"type":"tool-executeShellCommand","toolCallId":"s%d","state":"output-available","input":{"explanation":"Run the unit tests for the button component","command":"pnpm test button"},"output":{"exit_code":%d,"timed_out":false}},`, i, i%3)
		fmt.Fprintf(&b, `{"type":"tool-getLintingDiagnostics","toolCallId":"l%d","state":"output-available","input":{"paths":["w1/src/components/Button%d.tsx","w1/src/theme.ts"]},"output":{"summary":{"totalIssues":%d,"errors":%d,"warnings":1}}},`, i, i, i%2, i%2)
		fmt.Fprintf(&b, `{"type":"tool-grepSearch","toolCallId":"g%d","state":"output-error","input":{"query":"color=\"red\"","include_file_pattern":"*.tsx"},"errorText":"ripgrep failed: \"unexpected\" <eof>\nsecond line"}]}`, i)
	}
	b.WriteString(`]}`)
	msgs, ok, err := history.DecodeMessages(b.String())
	if err != nil || !ok {
		tb.Fatalf("synthetic chat: ok=%v err=%v", ok, err)
	}
	return msgs
}

// BenchmarkSerializeMarkers reports MB/s of output on the marker-heavy
// chat: the worst case, where every few bytes of output need a lookup.
func BenchmarkSerializeMarkers(b *testing.B) {
	msgs := syntheticChat(b, 2000)
	out := AppendSerialize(nil, msgs, Options{})
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = AppendSerialize(out[:0], msgs, Options{})
	}
}

// BenchmarkSerializeWithSlash measures the slash-command path (regexp scan
// and rewrite of every user text).
func BenchmarkSerializeWithSlash(b *testing.B) {
	msgs := syntheticChat(b, 2000)
	slash := map[string]SlashItem{"command:build": {ID: "command:build", DisplayName: "Build", Content: "Build it."}}
	out := AppendSerialize(nil, msgs, Options{Slash: slash})
	b.SetBytes(int64(len(out)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = AppendSerialize(out[:0], msgs, Options{Slash: slash})
	}
}

func TestSyntheticChatSerializes(t *testing.T) {
	msgs := syntheticChat(t, 3)
	out := Serialize(msgs, Options{})
	for _, want := range []string{
		"<user>[attached: Shot 0.png]\n[mentioned: w1/src/Button0.tsx]\nPlease fix the &lt;Button&gt;",
		"[edited: w1/src/components/Button1.tsx (2 edits)]",
		"[shell: Run the unit tests for the button component → exit 1]",
		"[shell: Run the unit tests for the button component → ✓]",
		"[lint: w1/src/components/Button0.tsx, w1/src/theme.ts → clean]",
		"[lint: w1/src/components/Button1.tsx, w1/src/theme.ts → 1 errors, 1 warnings]",
		`[searched: "color=&quot;red&quot;" ✗ ripgrep failed: &quot;unexpected&quot; &lt;eof&gt;]`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}
