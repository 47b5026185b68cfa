package cmd

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/compactlab/compact/internal/iostreams"
)

var updateHelp = flag.Bool("update-help", false, "rewrite cmd/testdata/help golden files")

// allCommands lists the command paths under c, c's own first, skipping
// cobra's hidden ones.
func allCommands(c *cobra.Command) [][]string {
	var out [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden || c.Name() == "help" || strings.HasPrefix(c.Name(), "__") {
			return
		}
		out = append(out, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(c, nil)
	return out
}

// TestHelpGolden checks `compact <cmd> --help` of every command against
// testdata/help; go test ./cmd -run TestHelpGolden -update-help rewrites
// them after a deliberate change (read the diff: it is what users see).
// It also holds every help text to the rules a reader relies on: flag
// types are real types (no backticked words turned into a type, no
// "string" for a number), no internal configuration key spellings, and no
// line wider than a terminal.
func TestHelpGolden(t *testing.T) {
	root, _ := NewRootCmd(iostreams.System())
	paths := allCommands(root)
	if len(paths) < 10 {
		t.Fatalf("only %d commands found", len(paths))
	}
	numeric := regexp.MustCompile(`^(min-|max-)|window|jobs|workers|writers|chats|seed|^at$|^prev$|^used$|hard-cap|threshold|overhead|worst`)
	seen := map[string]bool{}
	for _, p := range paths {
		name := "compact"
		if len(p) > 0 {
			name += "-" + strings.Join(p, "-")
		}
		t.Run(name, func(t *testing.T) {
			io, _, out, errOut := iostreams.Test()
			code := RunEnv(io, append(append([]string(nil), p...), "--help"), func(string) string { return "" })
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			got := out.String()
			golden := filepath.Join("testdata", "help", name+".golden")
			seen[filepath.Base(golden)] = true
			if *updateHelp {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd -run TestHelpGolden -update-help)", err)
			}
			if got != string(want) {
				t.Errorf("compact %s --help differs from %s (rerun with -update-help if deliberate):\n--- got\n%s\n--- want\n%s", strings.Join(p, " "), golden, got, want)
			}
			if strings.Contains(got, "::") {
				t.Errorf("help shows an internal configuration key (with ::):\n%s", got)
			}
			c, _, err := root.Find(p)
			if err != nil {
				t.Fatal(err)
			}
			c.Flags().VisitAll(func(fl *pflag.Flag) {
				if typ, _ := pflag.UnquoteUsage(fl); strings.Contains(typ, " ") {
					t.Errorf("--%s shows %q as its type (backticks in its usage)", fl.Name, typ)
				}
				if numeric.MatchString(fl.Name) && fl.Value.Type() == "string" {
					t.Errorf("--%s takes a number but is typed string", fl.Name)
				}
			})
			for _, line := range strings.Split(got, "\n") {
				if n := len([]rune(line)); n > 200 {
					t.Errorf("help line of %d characters: %.80s…", n, line)
				}
			}
		})
	}
	if *updateHelp {
		return
	}
	// A golden file whose command is gone would hide a removed command.
	files, _ := filepath.Glob(filepath.Join("testdata", "help", "*.golden"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("%s has no command any more: remove it", f)
		}
	}
}
