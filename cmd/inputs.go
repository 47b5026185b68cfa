package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/serialize"
)

// pipelineInputs are what the commands that build bundles (extract,
// compress) resolve the same way from their flags and the configuration.
type pipelineInputs struct {
	profile *serialize.Profile
	pack    *prompt.Pack
	locale  string
	db      string
}

// resolvePipelineInputs checks --profile and --pack, takes the locale from
// the flag or the environment, and finds the channel's database when --db
// is not given. A bad flag is a usage error (exit 2), and so is a database
// that is not there, whose message says what to do next (checkDB).
func resolvePipelineInputs(f *Factory, profile, pack, locale, db, channel, goos string) (pipelineInputs, error) {
	var in pipelineInputs
	var err error
	if in.profile, err = serialize.LookupProfile(profile); err != nil {
		return in, usageErr("--profile: %v", err)
	}
	if in.pack, err = resolvePack("--pack", pack); err != nil {
		return in, err
	}
	in.locale = locale
	if in.locale == "" {
		in.locale = prompt.LocaleFromEnv(f.Getenv)
	}
	in.db = db
	if in.db == "" {
		if in.db, err = extract.DefaultDBPath(channel, goos, f.Getenv); err != nil {
			return in, usageErr("%v", err)
		}
	}
	if err := checkDB(f, in.db, db != "", channel, goos); err != nil {
		return in, err
	}
	return in, nil
}

// checkDB says, when the database is not there, what to do instead: a
// path given with --db is checked; for a channel's default path, the
// other channels that have a database here, --db and the shipped sample.
// A path that is not there, or is not a file, is a usage error (exit 2),
// as for every path a command is given; one it cannot read is exit 1.
func checkDB(f *Factory, db string, given bool, channel, goos string) error {
	st, err := fsutil.CheckInput(db)
	var nr *fsutil.NotRegularError
	if errors.As(err, &nr) {
		return usageErr("%s is %s, not a stagewise agent database; give the database file itself", db, nr.Kind)
	}
	switch {
	case err == nil && st.IsDir():
		return usageErr("%s is a directory, not a stagewise agent database; give the database file itself", db)
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("database %s: %v", db, err)
	case given:
		return usageErr("database not found: %s (check the path)", db)
	}
	var others []string
	for _, ch := range otherChannels(channel) {
		if p, err := extract.DefaultDBPath(ch, goos, f.Getenv); err == nil {
			if _, err := os.Stat(p); err == nil {
				others = append(others, "--channel "+ch)
			}
		}
	}
	next := "pass --db PATH or another --channel (" + strings.Join(otherChannels(channel), ", ") + ")"
	if len(others) > 0 {
		next = "pass --db PATH, or " + strings.Join(others, " or ") + " (a database is there)"
	}
	return usageErr("database not found for channel %s: %s; %s; to try the shipped sample: --db %s",
		channel, db, next, DefaultSampleDBPath)
}

func otherChannels(channel string) []string {
	var out []string
	for _, ch := range extract.ChannelNames {
		if ch != channel {
			out = append(out, ch)
		}
	}
	return out
}

// Completion of the flags that extract and compress share.

// completePack completes --pack with the built-in pack names and the
// directories under what is typed so far (a pack is a directory).
func completePack(c *cobra.Command) {
	_ = c.RegisterFlagCompletionFunc("pack", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, n := range prompt.BuiltinNames() {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, n)
			}
		}
		dir, prefix := filepath.Split(toComplete)
		list := dir
		if list == "" {
			list = "."
		}
		entries, _ := os.ReadDir(list)
		for _, e := range entries {
			name := e.Name()
			if !strings.HasPrefix(name, prefix) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".")) {
				continue
			}
			if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
				if st, err := os.Stat(filepath.Join(list, name)); err == nil && st.IsDir() {
					out = append(out, dir+name+string(filepath.Separator))
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
}

// completeDBFlags makes the shell complete --db with SQLite files and --out
// and --skills-dir with directories, where the command has them.
func completeDBFlags(c *cobra.Command) {
	if c.Flags().Lookup("db") != nil {
		_ = c.MarkFlagFilename("db", "sqlite", "db")
	}
	for _, name := range []string{"out", "skills-dir"} {
		if c.Flags().Lookup(name) != nil {
			_ = c.MarkFlagDirname(name)
		}
	}
}
