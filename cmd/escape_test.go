//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evil is what a hostile name or text holds: an OSC title, a screen
// clear, a bell, an OSC 52 clipboard write, a C1 CSI and a right-to-left
// override.
const evil = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07\u009b31m\u202eevil"

// acting reports the first character of s that would act on a terminal:
// a C0 control other than \n and \t, DEL, a C1 control, a bidi override
// or isolate.
func acting(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return r, true
		}
	}
	return 0, false
}

// TestNoEscapeSequenceReachesTheTerminal: bundle, chat and session names
// and texts holding escape sequences go through extract, replay, diff,
// eval, report and simulate, and through their errors and warnings: what
// they print holds none of them, only their visible form (\x1b), while
// --json keeps them as JSON escapes and the files written keep the bytes.
func TestNoEscapeSequenceReachesTheTerminal(t *testing.T) {
	dir := t.TempDir()
	// A session whose directory, file and messages are named with escapes,
	// and with a line that is not JSON (a warning naming the file).
	sessions := filepath.Join(dir, "sessions"+evil)
	session := filepath.Join(sessions, "project"+evil, "s"+evil+".jsonl")
	data, err := os.ReadFile(filepath.Join(agentsTestdata, "claude-code", "synthetic-shop.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "The cart total is wrong", "The cart total "+strings.ReplaceAll(evil, "\x1b", `\u001b`)+" is wrong", 1)
	text = strings.ReplaceAll(text, "\x07", `\u0007`)
	diffWrite(t, session, text+"not json "+evil+"\n")
	out := filepath.Join(dir, "out"+evil)

	// A channel of bundles whose chat directory is named with escapes.
	channel := filepath.Join(dir, "channel")
	b := fifoBundle(t, filepath.Join(channel, "chat"+evil))
	diffWrite(t, filepath.Join(b, "actual-output.md"), "## Task "+evil+"\n\nFix the build in src/app.ts "+evil+".")
	diffWrite(t, filepath.Join(b, "replays", "builtin", "output.md"), "## Task\n\nFix src/app.ts "+evil+".")
	page := filepath.Join(dir, "report"+evil+".html")

	steps := []struct {
		args []string
		code int
		// shown: the visible form of an escape is in the output (the name
		// was printed, escaped, not left out).
		shown bool
	}{
		{[]string{"extract", "--from", "claude-code", sessions, "--out", out}, 0, true},
		{[]string{"replay", "--model", "builtin", out}, 0, true},
		{[]string{"replay", "--model", "builtin", "--run", "again", channel}, 0, true},
		{[]string{"replay", "--model", "builtin", "--dry-run", channel}, 0, true},
		{[]string{"diff", channel}, 0, true},
		{[]string{"diff", "--color", "always", channel}, 0, true},
		{[]string{"diff", "--stat", channel, out}, 0, false},
		{[]string{"diff", "--format", "markdown", channel}, 0, true},
		{[]string{"eval", channel}, 0, false},
		{[]string{"eval", "--format", "markdown", channel, out}, 0, false},
		{[]string{"report", channel, "-o", page}, 0, true},
		{[]string{"simulate", session}, 0, true},
		{[]string{"diff", filepath.Join(dir, "missing"+evil)}, 2, true},
		{[]string{"--config", filepath.Join(dir, "missing"+evil+".yaml"), "eval"}, 2, true},
		{[]string{"extract", "--db", filepath.Join(dir, "missing"+evil)}, 2, true},
	}
	colours := strings.NewReplacer("\x1b[0m", "", "\x1b[1m", "", "\x1b[31m", "", "\x1b[32m", "", "\x1b[36m", "")
	for _, s := range steps {
		code, stdout, stderr := runIn(t, nil, s.args...)
		if code != s.code {
			t.Errorf("%q: exit %d, want %d\n%s%s", s.args, code, s.code, stdout, stderr)
		}
		all := stdout + stderr
		if s.args[0] == "diff" && s.args[1] == "--color" {
			all = colours.Replace(all)
		}
		if r, ok := acting(all); ok {
			t.Errorf("%q: %U reached the terminal:\n%q", s.args, r, all)
		}
		if s.shown && !strings.Contains(all, `\x1b]0;pwned\x07`) {
			t.Errorf("%q: the name is not shown escaped:\n%s", s.args, all)
		}
	}

	// --json keeps the text, escaped as JSON escapes it.
	code, stdout, _ := runIn(t, nil, "diff", "--json", channel)
	if code != 0 || !strings.Contains(stdout, `\u001b]0;pwned\u0007`) {
		t.Errorf("diff --json: exit %d, the names are not JSON-escaped:\n%.400s", code, stdout)
	}
	// Files keep the bytes: the page names the chat as it is.
	if data, err := os.ReadFile(page); err != nil || strings.Contains(string(data), `\x1b]0;pwned`) {
		t.Errorf("the page is written escaped for a terminal (%v)", err)
	}
}
