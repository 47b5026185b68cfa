package briefing

import (
	"strings"
	"testing"
)

// FuzzWrite: any input gives a briefing that keeps the output rules (the
// size target aside, which an arbitrary previous briefing may defeat), and
// the same input gives the same bytes.
func FuzzWrite(f *testing.F) {
	for _, compact := range corpus(f) {
		f.Add(compact, 0, "")
	}
	f.Add("<user>Fix w1/a.ts &amp; run it.</user>\n<assistant>[shell: go test → exit 1]</assistant>", 200, "head")
	f.Add("<previous-chat-history>## A\n\n- x\n<b>y</b></previous-chat-history><user>ok</user>", 50, "e3e")
	f.Add("<user><slash-command id=\"command:x\" name=\"x\"><![CDATA[a]]]]><![CDATA[>b]]></slash-command>\n//x</user>", 0, "")
	f.Add("[read: a]\n<assistant>[asked user: T → a: b\nc]</assistant>", 10, "")
	f.Fuzz(func(t *testing.T, compact string, target int, profile string) {
		opts := Options{TargetChars: target % 100000, Profile: profile}
		out := Write(compact, opts)
		if again := Write(compact, opts); again != out {
			t.Fatalf("two runs differ")
		}
		for _, e := range ruleErrors(out, opts, 1<<30) {
			if strings.HasPrefix(e, "size ") {
				continue
			}
			t.Fatalf("%s\n--- input ---\n%q\n--- briefing ---\n%s", e, compact, out)
		}
	})
}
