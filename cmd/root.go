// Package cmd holds compact's command-line interface: one file per
// subcommand, each an options struct, a constructor that binds flags and
// configuration, and a run function that calls into internal/.
package cmd

import (
	"errors"
	"fmt"
	"log"
	"os"
	"regexp"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/store"
)

// Version is set at build time with -ldflags "-X .../cmd.Version=…".
var Version = "dev"

// Factory carries what every command needs: its streams, the global flags
// and the configuration, loaded once the flags are parsed.
type Factory struct {
	IO         *iostreams.IO
	ConfigPath string
	JSON       bool
	Quiet      bool
	// Config is set by the root command before any subcommand runs.
	Config *config.Store
	// Getenv reads the environment (tests replace it).
	Getenv func(string) string
	// CPUProfile names a file for a CPU profile of the run (hidden flag).
	CPUProfile string
	// Command is the name of the command running ("diff"), for the lines
	// a helper shared by commands writes; "" before one runs.
	Command string
}

// ExitError carries a process exit status with its error.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// usageErr marks err as a usage or input error (exit status 2).
func usageErr(format string, a ...any) error {
	return &ExitError{Code: 2, Err: fmt.Errorf(format, a...)}
}

// version is Version, or what the build recorded about the module and its
// source revision when Version was not set at build time.
func version() string {
	if Version != "dev" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version + " " + bi.GoVersion
	}
	v := Version
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " (" + rev + modified + ")"
	}
	return v + " " + bi.GoVersion
}

// NewRootCmd builds the command tree writing through io.
func NewRootCmd(io *iostreams.IO) (*cobra.Command, *Factory) {
	f := &Factory{IO: io, Getenv: os.Getenv}
	root := &cobra.Command{
		Use:   "compact",
		Short: "Offline agent-history compression and replay workbench",
		Long: "compact measures the step that squeezes an agent's old messages into one\n" +
			"briefing, on your own histories, offline. The path, each step finding what\n" +
			"the one before wrote:\n\n" +
			"  compact extract                 one bundle per compression event (a stagewise\n" +
			"                                  database; --from claude-code|codex for theirs)\n" +
			"  compact replay --model builtin  another model's briefing of each bundle\n" +
			"                                  (builtin: offline, no key)\n" +
			"  compact eval                    score the briefings against the history\n" +
			"  compact report -o report.html   one HTML page over it all\n\n" +
			"Start with the shipped sample: compact extract --db examples/stagewise/instances.sqlite",
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			st, err := loadConfig(f)
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			f.Config = st
			f.IO.Quiet = f.Quiet
			f.Command = c.Name()
			if f.CPUProfile != "" {
				pf, err := os.Create(f.CPUProfile)
				if err != nil {
					return err
				}
				if err := pprof.StartCPUProfile(pf); err != nil {
					return err
				}
			}
			return nil
		},
		PersistentPostRun: func(*cobra.Command, []string) {
			if f.CPUProfile != "" {
				pprof.StopCPUProfile()
			}
		},
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	pf := root.PersistentFlags()
	pf.StringVar(&f.ConfigPath, "config", "", "read the configuration `FILE` (YAML) over the defaults; also COMPACT_CONFIG")
	pf.BoolVar(&f.JSON, "json", false, "print results as JSON")
	pf.BoolVarP(&f.Quiet, "quiet", "q", false, "no progress or informational output")
	pf.StringVar(&f.CPUProfile, "cpuprofile", "", "write a CPU profile to FILE (for performance work)")
	_ = pf.MarkHidden("cpuprofile")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &ExitError{Code: 2, Err: unknownFlagError(c, flagValueError(err))}
	})

	// The commands in groups, the path first and in its order (cobra's own
	// sorting is off: init in cmd/common.go).
	for _, g := range commandGroups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
	}
	cmds := make([]*cobra.Command, 0, len(subcommands))
	for _, add := range subcommands {
		cmds = append(cmds, add(f))
	}
	slices.SortStableFunc(cmds, func(a, b *cobra.Command) int { return commandRank(a.Name()) - commandRank(b.Name()) })
	for _, c := range cmds {
		for _, g := range commandGroups {
			if slices.Contains(g.names, c.Name()) {
				c.GroupID = g.id
			}
		}
		sortChildren(c)
		root.AddCommand(c)
	}
	root.SetHelpCommandGroupID("more")
	root.SetCompletionCommandGroupID("more")
	return root, f
}

// commandGroups are the groups of compact --help, in order, each listing
// its commands in the order shown.
var commandGroups = []struct {
	id, title string
	names     []string
}{
	{"path", "The path (on your histories, in this order):", []string{"extract", "replay", "eval", "diff", "report", "simulate"}},
	{"runs", "Runs, cache and configuration:", []string{"batch", "cache", "config"}},
	{"pipeline", "The compression pipeline, step by step (to check compact against the app):", []string{"compress", "boundary", "trigger", "tokens", "serialize", "prompt", "sample-db"}},
	{"more", "More:", nil},
}

// sortChildren lists the subcommands below c by name, as Cobra does with
// its sorting on (it is off, for the root's path order).
func sortChildren(c *cobra.Command) {
	kids := c.Commands()
	if len(kids) == 0 {
		return
	}
	c.RemoveCommand(kids...)
	kids = slices.Clone(kids)
	slices.SortFunc(kids, func(a, b *cobra.Command) int { return strings.Compare(a.Name(), b.Name()) })
	for _, k := range kids {
		sortChildren(k)
	}
	c.AddCommand(kids...)
}

// commandRank orders the commands as commandGroups lists them.
func commandRank(name string) int {
	rank := 0
	for _, g := range commandGroups {
		for _, n := range g.names {
			if n == name {
				return rank
			}
			rank++
		}
	}
	return rank
}

// subcommands is filled by each command file's init, so that adding a
// command touches only its own file.
var subcommands []func(*Factory) *cobra.Command

func register(c func(*Factory) *cobra.Command) { subcommands = append(subcommands, c) }

// Run executes the command line args with io and returns the exit status.
func Run(io *iostreams.IO, args []string) int {
	return RunEnv(io, args, os.Getenv)
}

// RunEnv is Run with the environment read through getenv (tests).
//
// Every error is printed as one line "compact <command>: <message>" (a
// message that already starts with the command's name is not prefixed
// twice). Exit status: 0 done, 1 the run failed, 2 usage or input error or
// nothing to work on, 130 interrupted.
func RunEnv(io *iostreams.IO, args []string, getenv func(string) string) int {
	root, f := NewRootCmd(io)
	f.Getenv = getenv
	root.SetArgs(args)
	c, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	fmt.Fprintln(io.ErrOut, errorLine(c, err))
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if isInterrupt(err) {
		return exitInterrupted
	}
	// A file given as a stagewise database that is not one is a path
	// that is not what the command needs: exit 2, as a missing one (a
	// damaged one is a failed run, exit 1).
	if isUsage(err) || errors.Is(err, store.ErrNotAgentDB) && !errors.Is(err, store.ErrDamaged) {
		return exitUsage
	}
	return exitFailed
}

// errorLine is err as one line prefixed "compact <command>: ".
func errorLine(c *cobra.Command, err error) string {
	prefix := "compact"
	name := ""
	if c != nil && c.HasParent() {
		path := strings.Fields(c.CommandPath())
		name = strings.Join(path[1:], " ")
		prefix += " " + name
	}
	msg := strings.TrimSpace(err.Error())
	if name != "" {
		msg = strings.TrimPrefix(msg, name+": ")
		msg = strings.TrimPrefix(msg, c.Name()+": ")
	}
	msg = commandSuggestion(msg)
	msg = strings.ReplaceAll(msg, "\n", " ")
	return prefix + ": " + msg
}

// cobraSuggestion is Cobra's unknown command error with its suggestions,
// one a line after "Did you mean this?".
var cobraSuggestion = regexp.MustCompile(`(?s)^(unknown command .*?)\s*\n\s*Did you mean this\?\s*\n(.*)$`)

// commandSuggestion puts Cobra's suggestions for an unknown command on
// the error's line: `unknown command "extrat" for "compact"; did you mean
// "extract"?`.
func commandSuggestion(msg string) string {
	m := cobraSuggestion.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	var names []string
	for _, n := range strings.Fields(m[2]) {
		names = append(names, strconv.Quote(n))
	}
	if len(names) == 0 {
		return m[1]
	}
	return m[1] + "; did you mean " + config.JoinOr(names, "or") + "?"
}

// isUsage recognises cobra's own argument errors.
func isUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument", "if any flags in the group", "required flag(s)", "flag needs an argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// configDefault fills *dst from the configuration key unless the user set
// the flag: flags win over the environment, which wins over the file.
func configDefault(c *cobra.Command, f *Factory, flag, key string, dst *string) {
	if !c.Flags().Changed(flag) {
		*dst = f.Config.String(key)
	}
}

// configInt is configDefault for a whole number: the flag's value, else
// the configuration's, which must be one.
func configInt(c *cobra.Command, f *Factory, flag, key string, dst *int) error {
	if c.Flags().Changed(flag) {
		return nil
	}
	v := strings.TrimSpace(f.Config.String(key))
	n, err := strconv.Atoi(v)
	if err != nil {
		return usageErr("%s: %q is not a whole number (%s)", configKeyName(key), v, f.Config.Source(key))
	}
	*dst = n
	return nil
}

// Execute runs compact with the process's arguments and streams.
func Execute() int {
	// Whatever a library logs through the standard logger or log/slog's
	// default (net/http quoting a server's bytes, the SDKs' warnings) goes
	// to stderr without any provider's key (cascade.GuardLog).
	// Escape characters in such a line are shown escaped, as everywhere
	// on a terminal.
	log.SetOutput(iostreams.NewEscapeWriter(os.Stderr))
	cascade.GuardLog()
	// A run stops on SIGINT or SIGTERM by itself; within a second at the
	// latest (watchSignals).
	defer watchSignals(os.Stderr)()
	return Run(iostreams.System(), os.Args[1:])
}

// badFlagValue is pflag's message for a value its type cannot parse.
var badFlagValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?(--[\w-]+)" flag: (strconv\.Parse(Int|Uint|Float|Bool)|time: (?:invalid|missing unit in) duration)`)

// flagValueError says in words what a flag's value should have been, rather
// than what Go's parser said about it.
func flagValueError(err error) error {
	m := badFlagValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	want := map[string]string{"Int": "a whole number", "Uint": "a whole number, 0 or more", "Float": "a number", "Bool": "true or false"}[m[4]]
	if want == "" {
		want = "a duration such as 30s or 2m"
	}
	return fmt.Errorf("%s: %q is not %s", m[2], m[1], want)
}

// unknownFlag is pflag's message for a long flag the command does not have.
var unknownFlag = regexp.MustCompile(`^unknown flag: --([^\s=]+)$`)

// unknownFlagError adds to pflag's "unknown flag: --modle" the nearest of
// c's flags, local and inherited, hidden ones aside: " (did you mean
// --model?)", when one is within two edits.
func unknownFlagError(c *cobra.Command, err error) error {
	m := unknownFlag.FindStringSubmatch(err.Error())
	if m == nil || c == nil {
		return err
	}
	if best := nearestFlag(c, m[1]); best != "" {
		return fmt.Errorf("%s (did you mean --%s?)", err.Error(), best)
	}
	return err
}

// nearestFlag is the name of c's visible flag nearest to name, within a
// Levenshtein distance of 2 ("" when none is); on a tie, the first by name.
func nearestFlag(c *cobra.Command, name string) string {
	best, bestD := "", 3
	visit := func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		if d := config.Distance(name, fl.Name); d < bestD || d == bestD && fl.Name < best {
			best, bestD = fl.Name, d
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	return best
}
