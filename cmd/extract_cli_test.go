package cmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/compactlab/compact/internal/iostreams"
)

// Tests of extract's command line: flag names, messages, exit statuses,
// completion and help (issue 13). Helpers come from extract_test.go.

// TestExtractMissingDatabaseMessages: a --db that is not there is named
// as given, without telling the user to pass --db; a channel's default
// path that is not there names the channel and the path and suggests
// --db, another --channel and the shipped sample; a channel that has a
// database is named.
func TestExtractMissingDatabaseMessages(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.sqlite")
	r := xtRun(t, map[string]string{"HOME": t.TempDir()}, "extract", "--db", missing, "--out", xtOut(t))
	if r.code != 2 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	xtOneLineError(t, r, "compact extract: database not found: "+missing+" (check the path)")
	if strings.Contains(r.stderr, "pass --db") || strings.Contains(r.stderr, "channel") {
		t.Errorf("stderr %q: --db was given; it should not suggest it or the channel", r.stderr)
	}

	home := t.TempDir()
	want := filepath.Join(home, ".config", "stagewise-prerelease", "stagewise", "agents", "instances.sqlite")
	r = xtRun(t, map[string]string{"HOME": home}, "extract", "--out", xtOut(t))
	if r.code != 2 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	xtOneLineError(t, r, "database not found for channel prerelease: "+want, "--db PATH", "another --channel (release, nightly, dev)",
		"--db examples/stagewise/instances.sqlite")

	// The nightly channel has a database: it is the suggestion.
	nightly := filepath.Join(home, ".config", "stagewise-nightly", "stagewise", "agents", "instances.sqlite")
	if err := os.MkdirAll(filepath.Dir(nightly), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(xtWriteDB(t, xtSchemaV9), nightly); err != nil {
		t.Fatal(err)
	}
	r = xtRun(t, map[string]string{"HOME": home}, "extract", "--out", xtOut(t))
	xtOneLineError(t, r, "channel prerelease", "--channel nightly (a database is there)")
	if strings.Contains(r.stderr, "release,") {
		t.Errorf("stderr %q lists channels without a database", r.stderr)
	}
}

// TestExtractUnknownChat: --chat with an id the database does not hold
// exits 2 naming it, before anything is written, also when other ids are
// found.
func TestExtractUnknownChat(t *testing.T) {
	db := xtWriteDB(t, xtSchemaV9,
		xtChat{id: "id-a", title: "A", lastAt: 2, rows: xtConvo(8, 4)},
		xtChat{id: "id-b", title: "B", lastAt: 1, rows: xtConvo(8, 4)})
	for _, tt := range []struct {
		name    string
		args    []string
		missing string
	}{
		{"only unknown", []string{"--chat", "nope"}, "no such chat in " + db + ": nope"},
		{"some found", []string{"--chat", "id-a", "--chat", "nope", "--chat", "id-b", "--chat", "gone"}, "no such chats in " + db + ": nope, gone"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := xtOut(t)
			r := xtExtract(t, db, out, tt.args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
			}
			xtOneLineError(t, r, "compact extract: --chat: "+tt.missing, "nothing written")
			if strings.Contains(r.stderr, "id-a") {
				t.Errorf("stderr %q names a chat that was found", r.stderr)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("output directory %s created", out)
			}
			xtNoStaging(t, filepath.Dir(out))
		})
	}
}

// TestExtractJobsFlag: -j and --jobs set the number of workers; the old
// --workers still works, hidden, and so does the hidden --writers; the
// output does not depend on them.
func TestExtractJobsFlag(t *testing.T) {
	var chats []xtChat
	for i := 0; i < 6; i++ {
		chats = append(chats, xtChat{id: "id-" + string(rune('a'+i)), title: "Chat", lastAt: int64(10 - i), rows: xtConvo(10, 3, 7)})
	}
	db := xtWriteDB(t, xtSchemaV9, chats...)
	var first []string
	for _, args := range [][]string{{"-j", "2"}, {"--jobs", "1"}, {"--workers", "2"}, {"-j", "3", "--writers", "2"}} {
		out := xtOut(t)
		r := xtExtract(t, db, out, args...)
		if r.code != 0 || r.stdout != xtSummaryLine(6, 12, 0, out) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
		got := xtTree(t, out)
		if first == nil {
			first = got
		} else if !slices.Equal(got, first) {
			t.Errorf("%v: tree differs from -j 2", args)
		}
	}
	r := xtExtract(t, db, xtOut(t), "-j", "-1")
	if r.code != 2 || !strings.Contains(r.stderr, "--jobs") {
		t.Errorf("-j -1: exit %d, stderr %q", r.code, r.stderr)
	}
	help := xtRun(t, nil, "extract", "--help")
	if !strings.Contains(help.stdout, "-j, --jobs N") {
		t.Errorf("help lacks -j, --jobs N:\n%s", help.stdout)
	}
	for _, hidden := range []string{"--workers", "--writers"} {
		if strings.Contains(help.stdout, hidden) {
			t.Errorf("help shows the hidden %s", hidden)
		}
	}
}

// TestExtractMinMessages: --min-messages is a number flag; the
// configuration's extract.min_messages applies without it and is checked.
func TestExtractMinMessages(t *testing.T) {
	db := xtWriteDB(t, xtSchemaV9,
		xtChat{id: "long", title: "Long", lastAt: 2, rows: xtConvo(12, 4)},
		xtChat{id: "short", title: "Short", lastAt: 1, rows: xtConvo(8, 4)})
	run := func(env map[string]string, args ...string) (xtResult, string) {
		out := xtOut(t)
		env["HOME"] = t.TempDir()
		return xtRun(t, env, append([]string{"extract", "--db", db, "--out", out}, args...)...), out
	}
	if r, out := run(map[string]string{}, "--min-messages", "10"); r.code != 0 || r.stdout != xtSummaryLine(1, 1, 1, out) {
		t.Errorf("--min-messages 10: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r, out := run(map[string]string{"COMPACT_EXTRACT_MIN_MESSAGES": "10"}); r.code != 0 || r.stdout != xtSummaryLine(1, 1, 1, out) {
		t.Errorf("env 10: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r, out := run(map[string]string{"COMPACT_EXTRACT_MIN_MESSAGES": "10"}, "--min-messages", "6"); r.code != 0 || r.stdout != xtSummaryLine(2, 2, 0, out) {
		t.Errorf("the flag does not win over the environment: exit %d, stdout %q", r.code, r.stdout)
	}
	r, _ := run(map[string]string{"COMPACT_EXTRACT_MIN_MESSAGES": "ten"})
	if r.code != 2 {
		t.Fatalf("env ten: exit %d, stderr %q", r.code, r.stderr)
	}
	xtOneLineError(t, r, `config: environment: COMPACT_EXTRACT_MIN_MESSAGES: "ten" is not a whole number`)
	if r, _ := run(map[string]string{}, "--min-messages", "6.5"); r.code != 2 || !strings.Contains(r.stderr, "--min-messages") {
		t.Errorf("--min-messages 6.5: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestExtractInterruptedContextExits130: a run whose context is cancelled
// (what Ctrl-C does) ends with exit status 130 and a one-line message, and
// leaves no output and no staging directory.
func TestExtractInterruptedContextExits130(t *testing.T) {
	db := xtWriteDB(t, xtSchemaV9, xtChat{id: "a", title: "A", lastAt: 1, rows: xtConvo(8, 4)})
	out := xtOut(t)
	io, _, stdout, _ := iostreams.Test()
	root, f := NewRootCmd(io)
	f.Getenv = func(string) string { return "" }
	root.SetArgs([]string{"extract", "--db", db, "--out", out})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, err := root.ExecuteContextC(ctx)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != exitInterrupted {
		t.Fatalf("err %v, want an ExitError with code 130", err)
	}
	if line := errorLine(c, err); line != "compact extract: interrupted; "+out+" left as it was" {
		t.Errorf("error line %q", line)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q", stdout)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("output directory %s exists", out)
	}
	xtNoStaging(t, filepath.Dir(out))
}

// xtComplete runs the shell's completion request and returns the
// candidates (without descriptions).
func xtComplete(t *testing.T, env map[string]string, args ...string) []string {
	t.Helper()
	r := xtRun(t, env, append([]string{cobra.ShellCompRequestCmd}, args...)...)
	if r.code != 0 {
		t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.HasPrefix(l, ":") {
			break // the directive
		}
		out = append(out, strings.SplitN(l, "\t", 2)[0])
	}
	return out
}

// TestExtractCompletion: the shell completes the values of the flags of
// extract and its sibling commands.
func TestExtractCompletion(t *testing.T) {
	channels := []string{"release", "prerelease", "nightly", "dev"}
	for _, cmd := range []string{"extract", "compress"} {
		if got := xtComplete(t, nil, cmd, "--channel", ""); !slices.Equal(got, channels) {
			t.Errorf("%s --channel: %v, want %v", cmd, got, channels)
		}
	}
	profiles := []string{"v1.4.1-nightly20260602c001", "v1.29.0", "v1.29.0-nohost", "e3e", "head", "head-nohost"}
	for _, cmd := range []string{"extract", "compress", "serialize", "tokens", "replay", "diff", "report"} {
		if got := xtComplete(t, nil, cmd, "--profile", ""); !slices.Equal(got, profiles) {
			t.Errorf("%s --profile: %v", cmd, got)
		}
	}
	if got := xtComplete(t, nil, "extract", "--source", ""); !slices.Equal(got, []string{"messages", "history"}) {
		t.Errorf("--source: %v", got)
	}
	dir := t.TempDir()
	for _, d := range []string{"pack-a", "pack-b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "pack-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.Separator)
	for _, cmd := range [][]string{{"extract"}, {"compress"}, {"prompt", "system"}, {"prompt", "user"}} {
		if got := xtComplete(t, nil, append(cmd, "--pack", "")...); !slices.Contains(got, "default") {
			t.Errorf("%v --pack: %v lacks the built-in pack", cmd, got)
		}
		want := []string{filepath.Join(dir, "pack-a") + sep, filepath.Join(dir, "pack-b") + sep}
		if got := xtComplete(t, nil, append(cmd, "--pack", dir+sep+"pa")...); !slices.Equal(got, want) {
			t.Errorf("%v --pack DIR/pa: %v, want %v", cmd, got, want)
		}
	}
	// --model of trigger and boundary: the context_windows table, with the
	// user's configuration file read although no command runs.
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("context_windows:\n  my-local-model: 32768\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"trigger", "boundary"} {
		got := xtComplete(t, nil, "--config", cfg, cmd, "--model", "")
		for _, want := range []string{"claude-sonnet-4.6", "gpt-5.4-nano", "my-local-model"} {
			if !slices.Contains(got, want) {
				t.Errorf("%s --model: %v lacks %s", cmd, got, want)
			}
		}
		if got := xtComplete(t, map[string]string{"COMPACT_CONFIG": cfg}, cmd, "--model", "my-"); !slices.Equal(got, []string{"my-local-model"}) && !slices.Contains(got, "my-local-model") {
			t.Errorf("%s --model my- with COMPACT_CONFIG: %v", cmd, got)
		}
	}
	if got := xtComplete(t, nil, "compress", "--model", ""); !slices.Contains(got, "builtin") || !slices.Contains(got, "gpt-5.4-nano") {
		t.Errorf("compress --model: %v", got)
	}
}

// xtOwnCommands are the commands of issue 13's help review.
var xtOwnCommands = [][]string{
	{"extract"}, {"compress"}, {"trigger"}, {"boundary"}, {"serialize"}, {"tokens"}, {"sample-db"},
	{"prompt", "user"}, {"prompt", "system"}, {"prompt", "import"}, {"config", "show"},
}

// TestExtractHelpReadsRight: the help of every command above shows a
// readable placeholder for each flag value (not a backquoted phrase taken
// as a type, not "string" for a number), no internal key delimiter, and
// examples.
func TestExtractHelpReadsRight(t *testing.T) {
	root, _ := NewRootCmd(iostreams.System())
	numeric := map[string]bool{"min-messages": true, "jobs": true, "used": true, "context-window": true, "hard-cap": true,
		"threshold": true, "at": true, "min-uncompressed": true, "prev": true, "chats": true, "messages-per-chat": true, "seed": true, "schema-version": true}
	for _, path := range xtOwnCommands {
		c, _, err := root.Find(path)
		if err != nil {
			t.Fatalf("%v: %v", path, err)
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%v: no Example", path)
		}
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			name, usage := pflag.UnquoteUsage(fl)
			if strings.Contains(name, " ") {
				t.Errorf("%v --%s: value placeholder %q", path, fl.Name, name)
			}
			if numeric[fl.Name] && fl.Value.Type() == "string" {
				t.Errorf("%v --%s is a string flag for a number", path, fl.Name)
			}
			if strings.Contains(usage, "::") {
				t.Errorf("%v --%s: usage %q shows an internal key", path, fl.Name, usage)
			}
		})
		r := xtRun(t, nil, append(path, "--help")...)
		if strings.Contains(r.stdout, "::") || strings.Contains(r.stdout, "compact prompt import  ") {
			t.Errorf("%v --help:\n%s", path, r.stdout)
		}
	}
	r := xtRun(t, nil, "extract", "--help")
	for _, want := range []string{
		"  compact extract\n", "  compact extract --channel nightly\n", "  compact extract --db path/to/instances.sqlite --out runs/x\n",
		"--pack NAME ", "--min-messages N ", "--db PATH ", "--channel NAME ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("extract --help lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := xtRun(t, nil, "trigger", "--help"); !strings.Contains(r.stdout, "compression.hard_cap_tokens") {
		t.Errorf("trigger --help: %s", r.stdout)
	}
}

// TestExtractWarningsAreNamed: warnings of a run that succeeds carry the
// command's name, as errors do.
func TestExtractWarningsAreNamed(t *testing.T) {
	rows := xtConvo(8, 4)
	rows[4].meta = `{"json":{"compressedHistory":null}}`
	db := xtWriteDB(t, xtSchemaV9, xtChat{id: "w", title: "W", lastAt: 1, rows: rows})
	out := xtOut(t)
	r := xtExtract(t, db, out, "--skills-dir", filepath.Join(t.TempDir(), "none"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("stderr %q, want two warnings", r.stderr)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "compact extract: warning: ") {
			t.Errorf("warning %q", l)
		}
	}
	if r.stdout != xtSummaryLine(1, 0, 0, out) {
		t.Errorf("stdout %q", r.stdout)
	}
}

// TestExtractNothingFoundSaysWhy: an extraction that finds no compression
// event says why on stderr (it is not an error).
func TestExtractNothingFoundSaysWhy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x")
	io, _, stdout, errOut := iostreams.Test()
	code := RunEnv(io, []string{"extract", "--db", sampleDB, "--min-messages", "500", "--out", out}, func(string) string { return "" })
	if code != 0 || !strings.HasPrefix(stdout.String(), "0 chats, 0 bundles, 6 skipped") ||
		!strings.Contains(errOut.String(), "no compression event found") || !strings.Contains(errOut.String(), "500 messages") {
		t.Errorf("exit %d\n%s%s", code, stdout, errOut)
	}
}
