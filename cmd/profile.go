package cmd

import (
	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/upstream"
)

// Profiles: what --profile offers and how a command reads it. The
// profiles themselves (names, aliases, commits, prompt hashes, catalogues)
// are internal/upstream's.

// profileChoices says in a few words what the --profile values are, for
// every flag help that offers them.
var profileChoices = upstream.Choices()

// profileUsage is the help of --profile where it picks the upstream
// version to reproduce.
var profileUsage = "upstream `RELEASE` to reproduce: " + profileChoices

// completeProfile completes --profile with the profile names and aliases.
func completeProfile(c *cobra.Command) {
	completeValues(c, "profile", upstream.Names()...)
}

// addProfileFlag adds --profile, the configuration's profile by default.
func addProfileFlag(c *cobra.Command, dst *string, usage string) {
	c.Flags().StringVar(dst, "profile", upstream.Default, usage)
	completeProfile(c)
}

// resolveProfile checks a --profile value (a usage error when unknown).
func resolveProfile(flag, name string) (upstream.Release, error) {
	r, err := upstream.Lookup(name)
	if err != nil {
		return r, usageErr("%s: %v", flag, err)
	}
	return r, nil
}

// profileGen is the generation of a --profile value: the key of the
// tables that differ between e3e and head (the briefing rules).
func profileGen(flag, name string) (string, error) {
	r, err := resolveProfile(flag, name)
	return r.Gen, err
}

// windowTable is the context-window table of profile: its catalogue, then
// the configuration's context_windows.
func windowTable(st *config.Store, profile string) (map[string]int, error) {
	t, err := upstream.WindowTable(profile, st.ContextWindows())
	if err != nil {
		return nil, usageErr("config: profile: %v", err)
	}
	return t, nil
}
