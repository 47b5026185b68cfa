package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/compactlab/compact/internal/batch/fakebatch"
)

// readmeCommand is one command line of a ```sh block of a Markdown file.
type readmeCommand struct {
	file    string   // the Markdown file
	section string   // the file and the ## heading above it
	line    int      // 1-based line in README.md
	env     []string // VAR=value words before the command
	args    []string // the arguments after "compact" or "go run ."
	exit    int      // the exit status the README promises ("# exit N"), else 0
	shows   []string // the ```text blocks after it: what it prints
}

var exitComment = regexp.MustCompile(`#\s*exit (\d+)\s*$`)

// readmeCommands parses README.md's ```sh blocks. Lines that run compact
// ("compact …" or "go run . …", after optional VAR=value words) are
// returned; go build/install/test lines and comments are not (the build is
// TestMain's, the tests are these). Continuation lines ending in \ are
// joined.
func readmeCommands(t *testing.T, file string) []readmeCommand {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []readmeCommand
	section := ""
	inSh, inOther := false, false
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case !inSh && !inOther && strings.HasPrefix(l, "## "):
			section = strings.TrimPrefix(l, "## ")
			continue
		case strings.HasPrefix(l, "```"):
			if inSh || inOther {
				inSh, inOther = false, false
			} else if strings.TrimSpace(l) == "```sh" {
				inSh = true
			} else {
				inOther = true
				// A text block shows what the last command printed.
				if strings.TrimSpace(l) == "```text" && len(cmds) > 0 && cmds[len(cmds)-1].section == file+" "+section {
					var block []string
					for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "```") {
						i++
						block = append(block, lines[i])
					}
					last := &cmds[len(cmds)-1]
					last.shows = append(last.shows, strings.Join(block, "\n"))
				}
			}
			continue
		}
		if !inSh {
			continue
		}
		start := i + 1
		for strings.HasSuffix(strings.TrimSpace(l), `\`) && i+1 < len(lines) {
			l = strings.TrimSuffix(strings.TrimSpace(l), `\`) + " " + strings.TrimSpace(lines[i+1])
			i++
		}
		c := readmeCommand{file: file, section: file + " " + section, line: start}
		if m := exitComment.FindStringSubmatch(l); m != nil {
			c.exit, _ = strconv.Atoi(m[1])
		}
		if k := strings.Index(l, " #"); k >= 0 {
			l = l[:k]
		}
		words := shellWords(t, strings.TrimSpace(l), start)
		if len(words) == 0 || strings.HasPrefix(words[0], "#") {
			continue
		}
		for len(words) > 0 && regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`).MatchString(words[0]) {
			c.env = append(c.env, words[0])
			words = words[1:]
		}
		switch {
		case len(words) >= 2 && words[0] == "go" && words[1] == "run" && len(words) >= 3 && words[2] == ".":
			c.args = words[3:]
		case len(words) >= 1 && words[0] == "compact":
			c.args = words[1:]
		case len(words) >= 1 && (words[0] == "go" || words[0] == "git" || words[0] == "cd"):
			continue // building, testing, cloning: not a compact command
		default:
			t.Fatalf("%s:%d: a ```sh line that is neither compact nor go: %q", file, start, l)
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// shellWords splits a command line as sh would for the simple lines a
// README holds: spaces, single and double quotes.
func shellWords(t *testing.T, s string, line int) []string {
	var words []string
	var cur strings.Builder
	in := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("README.md:%d: unbalanced quote", line)
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// fakeOpenAI is a local server speaking the chat-completions wire format,
// standing in for a local model server and for OpenAI itself, and OpenAI's
// Batch API (/v1/files, /v1/batches: internal/batch/fakebatch, whose
// batches end at once) for the README's replay --batch.
func fakeOpenAI(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	batches := fakebatch.New()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/files") || strings.HasPrefix(r.URL.Path, "/v1/batches") {
			calls.Add(1)
			batches.ServeHTTP(w, r)
			return
		}
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		calls.Add(1)
		answer := "## Work so far\n\nThe user asked for the change and it was made in one pass.\n\n## Current working state\n\nThe change is in place. Nothing is pending."
		if len(req.Messages) == 2 {
			if j, ok := fakebatch.JudgeAnswer(req.Messages[0].Content, req.Messages[1].Content); ok {
				answer = j // the judge's calls get a judge's answers
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]any{"prompt_tokens": 1000, "completion_tokens": 40, "total_tokens": 1040},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestReadmeCommands runs every compact command of README.md's ```sh
// blocks through the built binary, in order, in one directory holding a
// copy of examples/ and a home whose stagewise app database is the shipped
// sample, with no API keys. The local-server
// address of the README is a local fake that speaks the OpenAI wire
// format, and so is the real-key example's provider. A command must exit
// as the README says (0, or "# exit N" at the end of its line), so the
// README cannot go stale.
func TestReadmeCommands(t *testing.T) {
	cmds := readmeCommands(t, "README.md")
	if len(cmds) < 8 {
		t.Fatalf("only %d compact commands found in README.md", len(cmds))
	}
	cmds = append(cmds, readmeCommands(t, filepath.Join("examples", "histories", "README.md"))...)
	srv, calls := fakeOpenAI(t)
	sample, _ := filepath.Abs(filepath.Join("examples", "stagewise", "instances.sqlite"))
	examples, _ := filepath.Abs("examples")

	var work, home, section string
	fresh := func() {
		work, home = t.TempDir(), t.TempDir()
		if err := os.CopyFS(filepath.Join(work, "examples"), os.DirFS(examples)); err != nil {
			t.Fatal(err)
		}
		for _, ch := range []string{"stagewise-prerelease", "stagewise-nightly"} {
			copyFile(t, sample, filepath.Join(home, ".config", ch, "stagewise", "agents", "instances.sqlite"))
		}
	}
	localURL := regexp.MustCompile(`http://(127\.0\.0\.1|localhost):\d+`)
	// One directory for each file, as a user reading it from the top
	// would run it: a step that only works in a clean directory fails.
	for _, c := range cmds {
		if c.file != section || work == "" {
			section = c.file
			fresh()
		}
		env := userEnv(home)
		for _, kv := range c.env {
			env = append(env, localURL.ReplaceAllString(kv, srv.URL))
		}
		// A real key's provider is the local fake too: nothing leaves the
		// machine.
		env = append(env, "COMPACT_OPENAI_BASE_URL="+srv.URL)
		var args []string
		for _, a := range c.args {
			a = localURL.ReplaceAllString(a, srv.URL)
			if strings.ContainsAny(a, "*?[") {
				m, _ := filepath.Glob(filepath.Join(work, a))
				if len(m) == 0 {
					t.Fatalf("%s:%d: %s matches nothing", c.file, c.line, a)
				}
				for _, p := range m {
					rel, _ := filepath.Rel(work, p)
					args = append(args, rel)
				}
				continue
			}
			args = append(args, a)
		}
		name := fmt.Sprintf("%s:%d compact %s", c.file, c.line, strings.Join(c.args, " "))
		out, errOut, code := runUser(t, work, env, args...)
		if code != c.exit {
			t.Errorf("%s: exit %d, README says %d\nstdout: %s\nstderr: %s", name, code, c.exit, out, errOut)
		}
		// The output the README shows is what the command prints: its
		// first and last lines (the lines between may be elided with …
		// and hold timings).
		for _, block := range c.shows {
			var lines []string
			for _, l := range strings.Split(block, "\n") {
				if strings.TrimSpace(l) != "" && !strings.Contains(l, "…") {
					lines = append(lines, l)
				}
			}
			got := "\n" + out + errOut
			for _, l := range []string{lines[0], lines[len(lines)-1]} {
				if !strings.Contains(got, "\n"+l+"\n") {
					t.Errorf("%s: the README shows the line\n%s\nwhich it does not print:\n%s%s", name, l, out, errOut)
				}
			}
		}
		// An example of simulate shows compactions, not an empty table.
		if strings.Contains(errOut, "no compaction fired") {
			t.Errorf("%s: an example where nothing happens:\n%s", name, errOut)
		}
	}
	if calls.Load() == 0 {
		t.Errorf("no README command reached the local model server")
	}
}

// TestQuickStartHandOff: a newcomer without the desktop app runs the
// Quick start's command as README.md prints it, then the next steps with
// their defaults (replay with the built-in model, eval, diff, report):
// each finds what the one before wrote.
func TestQuickStartHandOff(t *testing.T) {
	cmds := readmeCommands(t, "README.md")
	var quick []string
	for _, c := range cmds {
		if len(c.args) > 0 && c.args[0] == "extract" && slices.Contains(c.args, "--db") {
			quick = c.args
			break
		}
	}
	if quick == nil {
		t.Fatal("README.md has no Quick start extract of the sample")
	}
	examples, _ := filepath.Abs("examples")
	work, home := t.TempDir(), t.TempDir()
	if err := os.CopyFS(filepath.Join(work, "examples"), os.DirFS(examples)); err != nil {
		t.Fatal(err)
	}
	env := userEnv(home)
	for _, args := range [][]string{quick, {"replay", "--model", "builtin"}, {"eval"}, {"diff", "--stat"}, {"report", "-o", "report.html"}} {
		out, errOut, code := runUser(t, work, env, args...)
		if code != 0 {
			t.Fatalf("compact %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
		}
	}
	if st, err := os.Stat(filepath.Join(work, "report.html")); err != nil || st.Size() < 10000 {
		t.Errorf("report.html: %v", err)
	}
}
