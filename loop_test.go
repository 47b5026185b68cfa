package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// userEnv is the environment of a newcomer with no API keys and no compact
// settings: the test process's environment less every *_API_KEY and
// COMPACT_* variable, with HOME and XDG_CONFIG_HOME pointing into home.
func userEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(k, "_API_KEY") || strings.HasPrefix(k, "COMPACT_") ||
			k == "HOME" || k == "XDG_CONFIG_HOME" || k == "LC_ALL" || k == "LC_MESSAGES" || k == "LANG" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
}

// runUser runs the binary in dir with env and no input.
func runUser(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return execBinary(t, dir, env, "", args...)
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// replayDirs lists every replays/<run> directory under root.
func replayDirs(t *testing.T, root string) []string {
	t.Helper()
	var runs []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && filepath.Base(filepath.Dir(p)) == "replays" {
			rel, _ := filepath.Rel(root, p)
			runs = append(runs, rel)
		}
		return nil
	})
	return runs
}

// TestNewcomerLoop runs the loop a new user runs, through the built binary,
// on the shipped sample database with no API keys: extract; the default
// replay, which must stop at once (exit 2, one line naming the keys and the
// offline way) without writing a record; the built-in model; the default
// replay again; then diff --stat, which must compare every bundle with the
// built-in run. Then the same on the nightly channel, from a database at
// the path the desktop app uses for it.
func TestNewcomerLoop(t *testing.T) {
	sample, err := filepath.Abs(filepath.Join("examples", "stagewise", "instances.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		channel []string // the --channel flag, if any
		place   func(home, work string) []string
	}{
		{"prerelease, --db", nil, func(home, work string) []string {
			copyFile(t, sample, filepath.Join(work, "instances.sqlite"))
			return []string{"--db", "instances.sqlite"}
		}},
		{"nightly, the app's path", []string{"--channel", "nightly"}, func(home, work string) []string {
			copyFile(t, sample, filepath.Join(home, ".config", "stagewise-nightly", "stagewise", "agents", "instances.sqlite"))
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, work := t.TempDir(), t.TempDir()
			env := userEnv(home)
			dbArgs := tc.place(home, work)
			channel := "prerelease"
			if len(tc.channel) > 0 {
				channel = tc.channel[1]
			}
			bundles := filepath.Join(work, "experiments-data", "history-compression", channel)
			with := func(args ...string) []string { return append(args, tc.channel...) }

			out, errOut, code := runUser(t, work, env, with(append([]string{"extract"}, dbArgs...)...)...)
			if code != 0 {
				t.Fatalf("extract: exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, "7 bundles") {
				t.Fatalf("extract: %q, want 7 bundles", out)
			}

			defaultReplay := func(step string) {
				t.Helper()
				out, errOut, code := runUser(t, work, env, with("replay")...)
				if code != 2 {
					t.Fatalf("%s: default replay with no keys: exit %d, want 2\nstdout: %s\nstderr: %s", step, code, out, errOut)
				}
				lines := strings.Split(strings.TrimSpace(errOut), "\n")
				if len(lines) != 1 {
					t.Errorf("%s: default replay with no keys printed %d lines on stderr, want one:\n%s", step, len(lines), errOut)
				}
				for _, want := range []string{"compact replay:", "GEMINI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "--model builtin", "--dry-run"} {
					if !strings.Contains(errOut, want) {
						t.Errorf("%s: the no-key line does not say %q: %s", step, want, errOut)
					}
				}
				if strings.TrimSpace(out) != "" {
					t.Errorf("%s: default replay with no keys printed on stdout: %s", step, out)
				}
			}
			defaultReplay("first")
			if runs := replayDirs(t, bundles); len(runs) != 0 {
				t.Fatalf("a replay that sent nothing wrote records: %v", runs)
			}

			if _, errOut, code := runUser(t, work, env, with("replay", "--model", "builtin")...); code != 0 {
				t.Fatalf("replay --model builtin: exit %d: %s", code, errOut)
			}
			defaultReplay("after the builtin run")
			runs := replayDirs(t, bundles)
			if len(runs) != 7 {
				t.Fatalf("after the builtin run: %d run directories, want 7: %v", len(runs), runs)
			}
			for _, r := range runs {
				if filepath.Base(r) != "builtin" {
					t.Errorf("unexpected run directory %s", r)
				}
				if _, err := os.Stat(filepath.Join(bundles, r, "output.md")); err != nil {
					t.Errorf("builtin run without an answer: %v", err)
				}
			}

			out, errOut, code = runUser(t, work, env, with("diff", "--stat")...)
			if code != 0 {
				t.Fatalf("diff --stat: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			if strings.Contains(out+errOut, "not compared") {
				t.Errorf("diff --stat left bundles out:\n%s%s", out, errOut)
			}
			if !strings.Contains(out, "7 bundles") || !strings.Contains(out, "builtin") {
				t.Errorf("diff --stat does not say it compared 7 bundles with the builtin run:\n%s", out)
			}
			if n := strings.Count(out, "\n"); n > 60 {
				t.Errorf("diff --stat printed %d lines for 7 bundles", n)
			}
		})
	}
}
