package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/compactlab/compact/cmd"
	"github.com/compactlab/compact/internal/iostreams"
)

// binary is the compact binary built once for these tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "compact-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "compact")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func runBinary(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	env := append(os.Environ(), "LC_ALL=", "LC_MESSAGES=", "LANG=", "COMPACT_CONFIG=")
	return execBinary(t, "", env, stdin, args...)
}

// execBinary runs the built binary in dir (the test's own directory when
// empty) with env and stdin, and returns stdout, stderr and the exit
// status.
func execBinary(t *testing.T, dir string, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func eachVector(t *testing.T, name string, fn func(t *testing.T, v map[string]json.RawMessage)) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "conformance", "vectors", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	n := 0
	for sc.Scan() {
		var v map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		var vname string
		_ = json.Unmarshal(v["name"], &vname)
		t.Run(vname, func(t *testing.T) { fn(t, v) })
		n++
	}
	if n == 0 {
		t.Fatalf("%s: no vectors", name)
	}
}

func str(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		panic(err)
	}
	return s
}

// vectorRun runs compact with stdin and args and returns stdout, stderr
// and the exit status.
type vectorRun func(t *testing.T, stdin string, args ...string) (string, string, int)

// runInProcess runs args through cmd.RunEnv, as the binary's main does,
// in the environment runBinary gives the binary.
func runInProcess(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	streams, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	code := cmd.RunEnv(streams, args, func(k string) string {
		switch k {
		case "LC_ALL", "LC_MESSAGES", "LANG", "COMPACT_CONFIG":
			return ""
		}
		return os.Getenv(k)
	})
	return out.String(), errOut.String(), code
}

// binaryForms picks the vectors that also go through the built binary:
// the first two of a file and the first of each form of command line
// (the flags given, whether there is input). Every vector runs in-process
// through the commands; the binary adds its own reading of stdin, its
// flags and exit status, which a vector of the same form exercises as
// well as any other (a process for each of the 142 vectors took 18 s
// of the package's run).
type binaryForms struct {
	n    int
	seen map[string]bool
}

func (b *binaryForms) runs(stdin string, args []string) []vectorRun {
	form := fmt.Sprint(stdin != "")
	for _, a := range args {
		if strings.HasPrefix(a, "--") {
			name, _, _ := strings.Cut(a, "=")
			form += " " + name
		}
	}
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	b.n++
	through := b.n <= 2 || !b.seen[form]
	b.seen[form] = true
	if through {
		return []vectorRun{runInProcess, runBinary}
	}
	return []vectorRun{runInProcess}
}

// runName names a vectorRun in a failure.
func runName(i int) string { return []string{"in-process", "binary"}[i] }

// TestVectorsThroughTheBinary drives every function vector through the
// command line: serialize, tokens, boundary, trigger, prompt user; each
// in-process through the commands, and those binaryForms picks through
// the built binary too.
func TestVectorsThroughTheBinary(t *testing.T) {
	tmp := t.TempDir()
	pack := filepath.Join(tmp, "pack")
	if out, errOut, code := runBinary(t, "", "prompt", "import", filepath.Join("testdata", "conformance", "prompt-fixture", "prompt.ts"), "--out", pack); code != 0 {
		t.Fatalf("prompt import: exit %d\n%s%s", code, out, errOut)
	}
	// The vectors' null settings are the base agent's defaults.
	cfg := filepath.Join(tmp, "base.yaml")
	if err := os.WriteFile(cfg, []byte("compression:\n  agent: base\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("serialize", func(t *testing.T) {
		var forms binaryForms
		eachVector(t, "compact-history.jsonl", func(t *testing.T, v map[string]json.RawMessage) {
			args := []string{"serialize"}
			if string(v["resolvedSlash"]) != "null" {
				f := filepath.Join(t.TempDir(), "slash.json")
				if err := os.WriteFile(f, v["resolvedSlash"], 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--resolved-slash", f)
			}
			for i, run := range forms.runs(str(v["raw"]), args) {
				out, errOut, code := run(t, str(v["raw"]), args...)
				if code != 0 || out != str(v["expected"]) {
					t.Errorf("%s: exit %d stderr %q\ngot  %q\nwant %q", runName(i), code, errOut, out, str(v["expected"]))
				}
			}
		})
	})
	t.Run("tokens", func(t *testing.T) {
		var forms binaryForms
		eachVector(t, "estimate-message-tokens.jsonl", func(t *testing.T, v map[string]json.RawMessage) {
			for i, run := range forms.runs(str(v["raw"]), []string{"tokens"}) {
				out, errOut, code := run(t, str(v["raw"]), "tokens")
				want := strings.Trim(string(v["expected"]), `"`)
				if code != 0 || out != want {
					t.Errorf("%s: exit %d stderr %q: got %q want %q", runName(i), code, errOut, out, want)
				}
			}
		})
	})
	t.Run("boundary", func(t *testing.T) {
		var forms binaryForms
		eachVector(t, "boundary-walk.jsonl", func(t *testing.T, v map[string]json.RawMessage) {
			args := []string{"--config", cfg, "boundary"}
			stdin := ""
			if raw, ok := v["raw"]; ok {
				stdin = str(raw)
			} else {
				var toks []float64
				_ = json.Unmarshal(v["tokens"], &toks)
				parts := make([]string, len(toks))
				for i, x := range toks {
					parts[i] = strconv.FormatFloat(x, 'f', -1, 64)
				}
				args = append(args, "--tokens="+strings.Join(parts, ","))
			}
			if w := string(v["contextWindow"]); w != "null" {
				args = append(args, "--context-window", w)
			}
			if m := string(v["minUncompressedMessages"]); m != "null" {
				args = append(args, "--min-uncompressed", m)
			}
			for i, run := range forms.runs(stdin, args) {
				out, errOut, code := run(t, stdin, args...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", runName(i), code, errOut)
				}
				var got, want map[string]any
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatal(err)
				}
				_ = json.Unmarshal(v["expected"], &want)
				for k, w := range want {
					if fmt.Sprint(got[k]) != fmt.Sprint(w) {
						t.Errorf("%s: %s = %v, want %v", runName(i), k, got[k], w)
					}
				}
			}
		})
	})
	t.Run("trigger", func(t *testing.T) {
		var forms binaryForms
		eachVector(t, "trigger.jsonl", func(t *testing.T, v map[string]json.RawMessage) {
			args := []string{"--config", cfg, "trigger", "--used", string(v["usedTokens"]), "--hard-cap", string(v["hardCap"])}
			if w := string(v["contextWindow"]); w != "null" {
				args = append(args, "--context-window", w)
			} else {
				args = append(args, "--model", "no-such-model")
			}
			if th := string(v["threshold"]); th != "null" {
				args = append(args, "--threshold="+th)
			}
			for i, run := range forms.runs("", args) {
				out, errOut, code := run(t, "", args...)
				if code != 0 || out != string(v["expected"])+"\n" {
					t.Errorf("%s: exit %d stderr %q: got %q want %s and a newline", runName(i), code, errOut, out, v["expected"])
				}
			}
		})
	})
	t.Run("prompt-user", func(t *testing.T) {
		var forms binaryForms
		eachVector(t, "user-message.jsonl", func(t *testing.T, v map[string]json.RawMessage) {
			args := []string{"prompt", "user", "--pack", pack, "--prev", string(v["previousBriefingChars"]), "--locale", str(v["locale"])}
			for i, run := range forms.runs(str(v["compactHistory"]), args) {
				out, errOut, code := run(t, str(v["compactHistory"]), args...)
				if code != 0 || out != str(v["expected"]) {
					t.Errorf("%s: exit %d stderr %q\ngot  %q\nwant %q", runName(i), code, errOut, out, str(v["expected"]))
				}
			}
		})
	})
}

// TestBadInputIsOneLineAndExitTwo: non-superjson or truncated input gets
// one clear error line and exit status 2, never a panic.
func TestBadInputIsOneLineAndExitTwo(t *testing.T) {
	for _, tt := range []struct{ name, stdin string }{
		{"empty", ""},
		{"not json", "hello"},
		{"truncated", `{"json":[{"id":"u","role":"user","parts":[{"type":"te`},
		{"unknown annotation", `{"json":[],"meta":{"values":{"0":["class","Foo"]},"v":1}}`},
		{"not an array", `{"json":{"a":1}}`},
	} {
		for _, cmd := range []string{"serialize", "tokens", "boundary"} {
			t.Run(tt.name+"/"+cmd, func(t *testing.T) {
				if cmd == "tokens" && tt.name == "not an array" {
					t.Skip("tokens takes one message too")
				}
				out, errOut, code := runBinary(t, tt.stdin, cmd)
				if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "compact "+cmd+": ") {
					t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
				}
				if strings.Contains(errOut, "panic") || strings.Contains(errOut, "goroutine") {
					t.Errorf("panicked: %s", errOut)
				}
			})
		}
	}
}
