package briefing

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestScratchAdversarial(t *testing.T) {
	if os.Getenv("ADV") == "" {
		t.Skip()
	}
	const mb = 1 << 20
	rep := func(s string) string { return strings.Repeat(s, mb/len(s)) }
	cases := map[string]string{
		"same user":        rep("<user>x</user>\n"),
		"distinct user":    rep("<user>fix it now</user>\n<assistant>done.</assistant>\n"),
		"slash open":       "<user>" + rep("<slash-command "),
		"slash no end":     "<user>" + rep(`<slash-command id="a" name="b"><![CDATA[x`),
		"marker no close":  "<assistant>" + rep("[read: abc\n"),
		"angles":           rep("<"),
		"entities":         "<user>" + rep("&amp;") + "</user>",
		"giant user":       "<user>" + rep("word. ") + "</user>",
		"giant line":       "<assistant>" + rep("word ") + "</assistant>",
		"giant prev":       "<previous-chat-history>" + rep("## h\n\nA sentence here. Another one [](path:w1/a.ts).\n\n") + "</previous-chat-history><user>go</user>",
		"prev ends":        "<previous-chat-history>" + rep("</previous-chat-history>x"),
		"paths":            "<user>" + rep("w1/a/b.ts ") + "</user>",
		"links":            "<user>" + rep("[a](b) ") + "</user>",
		"brackets":         "<user>" + rep("[") + "</user>",
		"tags in text":     "<user>" + rep("&lt;a") + "</user>",
		"many markers":     "<user>go</user><assistant>" + rep("[shell: x → exit 1]\n") + "</assistant>",
		"many asks":        "<user>go</user><assistant>" + rep("[asked user: t → a: b]\n") + "</assistant>",
		"acks":             "<user>do it</user>" + rep("<user>ok</user>"),
		"user attachments": rep("<user>[attached: a.png]</user>"),
		"newlines":         "<user>" + rep("\n") + "</user>",
		"stray":            rep("stray text "),
		"sentences":        "<assistant>" + rep("A. ") + "</assistant>",
		"unicode":          "<user>" + rep("İ́ ") + "</user>",
	}
	for name, in := range cases {
		start := time.Now()
		out := Write(in, Options{})
		d := time.Since(start)
		t.Logf("%-18s %8v out=%d", name, d, len(out))
		for _, e := range ruleErrors(out, Options{}, 1<<30) {
			t.Errorf("%s: %s", name, e)
		}
	}
}
