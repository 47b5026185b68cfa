//go:build unix

package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/iostreams"
)

// mkfifo makes a named pipe at path (and the directories above it).
func mkfifo(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	return path
}

// fifoBundle writes a bundle with every file a reader of bundles reads:
// the prompts, the history, the app's briefing, the metadata, a replay
// and a judge record.
func fifoBundle(t *testing.T, dir string) string {
	t.Helper()
	b := filepath.Join(dir, "chat", "compression-001")
	for name, text := range map[string]string{
		"system-prompt.md":             "Summarize.",
		"user-message.md":              "<chat-history>\n<user>Fix the build.</user>\n</chat-history>",
		"compact-history.xml":          "<user>Fix the build.</user>\n<assistant>Fixed it.\n[edited: src/app.ts (1 edit)]</assistant>",
		"actual-output.md":             "## Task\n\nFix the build in src/app.ts.",
		"metadata.json":                `{"chatId":"c","compressionNumber":1}`,
		"replays/builtin/output.md":    "## Task\n\nFix src/app.ts.",
		"replays/builtin/replay.json":  `{"run":"builtin","model":"builtin","startedAt":"2026-07-01T10:00:00Z"}`,
		"judge/gpt-5.4-nano.json":      `{}`,
		"replays/builtin/judge-x.json": `{}`,
	} {
		diffWrite(t, filepath.Join(b, filepath.FromSlash(name)), text)
	}
	return b
}

// runWithin runs compact in-process with args, failing the test when it
// has not returned within d (a command blocked opening a named pipe would
// otherwise block the test for ever).
func runWithin(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	io.In = strings.NewReader("")
	type result struct{ code int }
	done := make(chan result, 1)
	start := time.Now()
	go func() { done <- result{RunEnv(io, args, func(string) string { return "" })} }()
	select {
	case r := <-done:
		if el := time.Since(start); el > d {
			t.Errorf("%v took %v", args, el)
		}
		return r.code, out.String(), errOut.String()
	case <-time.After(d):
		t.Fatalf("%v did not return within %v: it blocked on a named pipe", args, d)
	}
	return 0, "", ""
}

// TestNamedPipeAsEveryInput: a named pipe given as any input of any
// command, or found where a command reads a file (a bundle's files, a
// session in a directory, a pack's files), is refused at once, before it
// is opened: one line naming the path and saying it is a named pipe, exit
// 2. Before, opening it blocked for ever, and SIGTERM was ignored by the
// commands that catch it.
func TestNamedPipeAsEveryInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.md")
	diffWrite(t, file, "## A\n\nx")
	sample, err := filepath.Abs(filepath.Join("..", DefaultSampleDBPath))
	if err != nil {
		t.Fatal(err)
	}
	type tc struct {
		name string
		// setup makes the pipe (and what goes around it) under d and
		// returns the pipe's path and the arguments.
		setup func(d string) (fifo string, args []string)
	}
	plain := func(args ...string) func(string) (string, []string) {
		return func(d string) (string, []string) {
			p := mkfifo(t, filepath.Join(d, "pipe"))
			out := make([]string, len(args))
			for i, a := range args {
				out[i] = strings.ReplaceAll(a, "PIPE", p)
				out[i] = strings.ReplaceAll(out[i], "OUT", filepath.Join(d, "out"))
			}
			return p, out
		}
	}
	cases := []tc{
		{"--config", plain("--config", "PIPE", "tokens")},
		{"extract --db", plain("extract", "--db", "PIPE", "--out", "OUT")},
		{"extract --pack", plain("extract", "--db", sample, "--pack", "PIPE", "--out", "OUT")},
		{"extract --from claude-code FILE", plain("extract", "--from", "claude-code", "PIPE", "--out", "OUT")},
		{"extract --from codex FILE", plain("extract", "--from", "codex", "PIPE", "--out", "OUT")},
		{"extract --from otel FILE", plain("extract", "--from", "otel", "PIPE", "--out", "OUT")},
		{"simulate --format otel", plain("simulate", "--format", "otel", "PIPE")},
		{"extract --from opencode FILE", plain("extract", "--from", "opencode", "PIPE", "--out", "OUT")},
		{"extract --from gemini-cli FILE", plain("extract", "--from", "gemini-cli", "PIPE", "--out", "OUT")},
		{"simulate --format opencode", plain("simulate", "--format", "opencode", "PIPE")},
		{"simulate --format gemini-cli", plain("simulate", "--format", "gemini-cli", "PIPE")},
		{"extract --from claude-code --pack", plain("extract", "--from", "claude-code", filepath.Join(agentsTestdata, "claude-code", "synthetic-shop.jsonl"), "--pack", "PIPE", "--out", "OUT")},
		{"compress --db", plain("compress", "--db", "PIPE", "--chat", "x", "--out", "OUT")},
		{"simulate FILE", plain("simulate", "PIPE")},
		{"simulate --jsonl", plain("simulate", "--jsonl", "PIPE")},
		{"simulate --format claude-code", plain("simulate", "--format", "claude-code", "PIPE")},
		{"simulate --db", plain("simulate", "--db", "PIPE")},
		{"diff PATH", plain("diff", "PIPE")},
		{"diff --a", plain("diff", "--a", "PIPE", "--b", file)},
		{"diff --b", plain("diff", "--a", file, "--b", "PIPE")},
		{"replay PATH", plain("replay", "--model", "builtin", "PIPE")},
		{"eval PATH", plain("eval", "PIPE")},
		{"eval --judge-pack", plain("eval", "--judge", "gpt-5.4-nano", "--judge-pack", "PIPE")},
		{"eval --calibrate", plain("eval", "--calibrate", "PIPE")},
		{"report PATH", plain("report", "PIPE", "-o", "OUT")},
		{"report --simulate", plain("report", "--simulate", "PIPE", "-o", "OUT")},
		{"prompt import", plain("prompt", "import", "PIPE", "--out", "OUT")},
		{"prompt system --pack", plain("prompt", "system", "--pack", "PIPE")},
		{"serialize FILE", plain("serialize", "PIPE")},
		{"serialize --resolved-slash", plain("serialize", "--resolved-slash", "PIPE")},
		{"tokens FILE", plain("tokens", "PIPE")},
		{"boundary FILE", plain("boundary", "PIPE")},
		{"extract --from claude-code DIR", func(d string) (string, []string) {
			p := mkfifo(t, filepath.Join(d, "sessions", "project", "0b6e.jsonl"))
			return p, []string{"extract", "--from", "claude-code", filepath.Join(d, "sessions"), "--out", filepath.Join(d, "out")}
		}},
		{"extract --from codex DIR", func(d string) (string, []string) {
			p := mkfifo(t, filepath.Join(d, "sessions", "2026", "05", "rollout-2026-05-20T09-00-00-0b6e.jsonl"))
			return p, []string{"extract", "--from", "codex", filepath.Join(d, "sessions"), "--out", filepath.Join(d, "out")}
		}},
		{"extract --from otel DIR", func(d string) (string, []string) {
			p := mkfifo(t, filepath.Join(d, "traces", "collector", "traces.json"))
			return p, []string{"extract", "--from", "otel", filepath.Join(d, "traces"), "--out", filepath.Join(d, "out")}
		}},
		{"extract --from opencode DIR", func(d string) (string, []string) {
			p := mkfifo(t, filepath.Join(d, "share", "opencode", "opencode.db"))
			return p, []string{"extract", "--from", "opencode", filepath.Join(d, "share"), "--out", filepath.Join(d, "out")}
		}},
		{"extract --from gemini-cli DIR", func(d string) (string, []string) {
			p := mkfifo(t, filepath.Join(d, "tmp", "api", "chats", "session-2026-05-20T09-00-7c1e2a44.jsonl"))
			return p, []string{"extract", "--from", "gemini-cli", filepath.Join(d, "tmp"), "--out", filepath.Join(d, "out")}
		}},
		{"extract --skills-dir", func(d string) (string, []string) {
			p := mkfifo(t, filepath.Join(d, "skills-root", "skills", "deploy", "SKILL.md"))
			return p, []string{"extract", "--db", sample, "--skills-dir", filepath.Join(d, "skills-root"), "--out", filepath.Join(d, "out")}
		}},
		{"serialize --skills-dir", func(d string) (string, []string) {
			p := mkfifo(t, filepath.Join(d, "skills-root", "plugins", "deploy", "SKILL.md"))
			return p, []string{"serialize", "--skills-dir", filepath.Join(d, "skills-root")}
		}},
		{"extract --pack DIR", func(d string) (string, []string) {
			diffWrite(t, filepath.Join(d, "pack", "pack.json"), "{}")
			p := mkfifo(t, filepath.Join(d, "pack", "system-prompt.md"))
			return p, []string{"extract", "--db", sample, "--pack", filepath.Join(d, "pack"), "--out", filepath.Join(d, "out")}
		}},
		{"replay --pack DIR", func(d string) (string, []string) {
			b := fifoBundle(t, d)
			diffWrite(t, filepath.Join(d, "pack", "system-prompt.md"), "Summarize.")
			p := mkfifo(t, filepath.Join(d, "pack", "pack.json"))
			return p, []string{"replay", "--model", "builtin", "--pack", filepath.Join(d, "pack"), b}
		}},
		{"eval --judge-pack DIR", func(d string) (string, []string) {
			for _, n := range []string{"answer-user.md", "grade-system.md", "grade-user.md"} {
				diffWrite(t, filepath.Join(d, "jp", n), "x")
			}
			p := mkfifo(t, filepath.Join(d, "jp", "answer-system.md"))
			return p, []string{"eval", "--judge", "gpt-5.4-nano", "--judge-pack", filepath.Join(d, "jp"), fifoBundle(t, d)}
		}},
		{"batch status: a run's state", func(d string) (string, []string) {
			b := fifoBundle(t, d)
			p := mkfifo(t, filepath.Join(d, "chat", ".batches", "r1", "state.json"))
			return p, []string{"batch", "status", "--run", "r1", filepath.Dir(b)}
		}},
	}
	// Every file of a bundle, for every command that reads bundles.
	bundleFiles := []string{"system-prompt.md", "user-message.md", "compact-history.xml", "actual-output.md", "metadata.json",
		"replays/builtin/output.md", "replays/builtin/replay.json", "judge/gpt-5.4-nano.json"}
	bundleCommands := [][]string{
		{"replay", "--model", "builtin"}, {"replay", "--model", "gpt-5.4-nano", "--batch"}, {"diff"}, {"eval"}, {"report", "-o", "OUT"},
	}
	for _, name := range bundleFiles {
		for _, command := range bundleCommands {
			cases = append(cases, tc{strings.Join(command[:1], " ") + " " + name, func(d string) (string, []string) {
				b := fifoBundle(t, d)
				p := mkfifo(t, filepath.Join(b, filepath.FromSlash(name)))
				args := append([]string(nil), command...)
				for i, a := range args {
					args[i] = strings.ReplaceAll(a, "OUT", filepath.Join(d, "report.html"))
				}
				if command[0] == "replay" && len(command) > 3 {
					args = append(args, "--run", "batched")
				}
				// The bundle, its chat and their channel.
				return p, append(args, filepath.Dir(filepath.Dir(b)))
			}})
		}
	}
	// The bundle without a pipe is read by each of them.
	t.Run("no pipe", func(t *testing.T) {
		d := t.TempDir()
		b := fifoBundle(t, d)
		for _, args := range [][]string{{"replay", "--model", "builtin", "--run", "again"}, {"diff"}, {"eval"}, {"report", "-o", filepath.Join(d, "r.html")}} {
			if code, _, errOut := runWithin(t, 30*time.Second, append(args, b)...); code != 0 {
				t.Errorf("%v: exit %d: %s", args, code, errOut)
			}
		}
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			fifo, args := c.setup(d)
			code, out, errOut := runWithin(t, 5*time.Second, args...)
			if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, fifo+" is a named pipe") {
				t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line naming %s as a named pipe", args, code, errOut, out, fifo)
			}
		})
	}
}

// TestSignalEndsARunBlockedOnStdin: a command reading stdin from a pipe
// whose writer writes no more ends within a second of Ctrl-C or SIGTERM.
// simulate catches both (to exit 130 after cleaning up), which used to
// leave it blocked in the read for ever; the commands that do not catch
// them are ended by them. The test binary runs compact as a separate
// process (CMD_LEFTOVERS_RUN, leftovers_test.go).
func TestSignalEndsARunBlockedOnStdin(t *testing.T) {
	for _, tc := range []struct {
		args   string
		sig    syscall.Signal
		caught bool // compact catches the signal and exits 130
	}{
		{"simulate -", syscall.SIGTERM, true},
		{"simulate --jsonl -", syscall.SIGINT, true},
		{"simulate --format claude-code -", syscall.SIGTERM, true},
		{"tokens", syscall.SIGTERM, false},
		{"serialize", syscall.SIGINT, false},
		{"prompt user", syscall.SIGTERM, false},
	} {
		t.Run(tc.args+" "+tc.sig.String(), func(t *testing.T) {
			t.Parallel()
			c := exec.Command(os.Args[0], "-test.run=^$")
			c.Env = append(os.Environ(), "CMD_LEFTOVERS_RUN="+tc.args)
			stdin, err := c.StdinPipe() // held open, and the line never ended
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			var stderr strings.Builder
			c.Stderr = &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			t.Cleanup(func() { c.Process.Kill() })
			// Lines of a history, more than the pipe holds: once they are
			// written, compact has read most of them, so it is past its
			// start (and has set up its signal handling) and waits in a
			// read for the rest, which never comes.
			written := make(chan error, 1)
			go func() {
				var lines strings.Builder
				for i := 0; lines.Len() < 256<<10; i++ {
					fmt.Fprintf(&lines, `{"id":"m%d","role":"user","content":"%s"}`+"\n", i, strings.Repeat("x", 100))
				}
				_, err := stdin.Write([]byte(lines.String()))
				written <- err
			}()
			select {
			case err := <-done:
				t.Fatalf("ended before the signal: %v: %s", err, stderr.String())
			case err := <-written:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("stdin not read in 30 s")
			}
			select {
			case err := <-done:
				t.Fatalf("ended before the signal: %v: %s", err, stderr.String())
			case <-time.After(100 * time.Millisecond):
			}
			sent := time.Now()
			if err := c.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				t.Fatalf("still running 2 s after %v", tc.sig)
			}
			if el := time.Since(sent); el > time.Second {
				t.Errorf("ended %v after %v", el, tc.sig)
			}
			if tc.caught && (c.ProcessState.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "interrupted")) {
				t.Errorf("exit %d, stderr %q; want 130, interrupted", c.ProcessState.ExitCode(), stderr.String())
			}
		})
	}
}
