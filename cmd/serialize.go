package cmd

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/upstream"
)

func init() { register(newCmdSerialize) }

type serializeOptions struct {
	f             *Factory
	Profile       string
	SkillsDir     string
	ResolvedSlash string
	Args          []string
}

func newCmdSerialize(f *Factory) *cobra.Command {
	opts := &serializeOptions{f: f}
	c := &cobra.Command{
		Use:   "serialize [FILE]",
		Short: "Print the compact history of a superjson message array",
		Long: "Reads the superjson text of a message array (a file, or stdin) and prints\n" +
			"the compact history the compression model reads, exactly as the upstream\n" +
			"serializer writes it, without a trailing newline.",
		Example: "  compact serialize history.superjson > compact-history.xml\n" +
			"  compact serialize --profile head --json < history.superjson",
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Args = args
			if !c.Flags().Changed("profile") {
				opts.Profile = f.Config.String("profile")
			}
			if !c.Flags().Changed("skills-dir") {
				opts.SkillsDir = f.Config.String("skills_dir")
			}
			return runSerialize(opts)
		},
	}
	c.Flags().StringVar(&opts.Profile, "profile", upstream.Default, profileUsage)
	c.Flags().StringVar(&opts.SkillsDir, "skills-dir", "", "resolve slash commands against `DIR`/skills/*/SKILL.md and DIR/plugins/*/SKILL.md")
	c.Flags().StringVar(&opts.ResolvedSlash, "resolved-slash", "", "resolve slash commands from `FILE`: a JSON array of {id, displayName, content}")
	c.MarkFlagsMutuallyExclusive("skills-dir", "resolved-slash")
	completeProfile(c)
	completeDBFlags(c)
	_ = c.MarkFlagFilename("resolved-slash", "json")
	return c
}

type serializeResult struct {
	CompactHistory   string                 `json:"compactHistory"`
	Len16            int                    `json:"len16"`
	Messages         int                    `json:"messages"`
	SlashIdsResolved []serialize.Resolution `json:"slashIdsResolved,omitempty"`
}

func runSerialize(opts *serializeOptions) error {
	profile, err := serialize.LookupProfile(opts.Profile)
	if err != nil {
		return usageErr("--profile: %v", err)
	}
	// The files named by flags are checked before stdin is read.
	if opts.ResolvedSlash != "" {
		if err := checkFileArg(opts.ResolvedSlash); err != nil {
			return usageErr("--resolved-slash: %v", err)
		}
	} else if err := checkSkillsDir(opts.SkillsDir); err != nil {
		return err
	}
	text, name, err := readInput(opts.f, opts.Args)
	if err != nil {
		return err
	}
	msgs, err := decodeMessages(text, name)
	if err != nil {
		return err
	}
	res := serializeResult{Messages: len(msgs)}
	var slash map[string]serialize.SlashItem
	switch {
	case opts.ResolvedSlash != "":
		data, err := fsutil.ReadFileLimit(opts.ResolvedSlash, fsutil.MaxJSStringBytes)
		if err != nil {
			return usageErr("--resolved-slash: %v", err)
		}
		var items []serialize.SlashItem
		if err := json.Unmarshal(data, &items); err != nil {
			return usageErr("--resolved-slash %s: want a JSON array of {id, displayName, content}: %v", opts.ResolvedSlash, err)
		}
		slash = map[string]serialize.SlashItem{}
		for _, it := range items {
			slash[it.ID] = it
		}
	case opts.SkillsDir != "":
		skills, err := serialize.LoadSkills(opts.SkillsDir)
		if err != nil {
			if errors.Is(err, serialize.ErrNoSkillsDir) {
				return usageErr("--skills-dir: %v", err)
			}
			return err
		}
		ids, err := serialize.SlashIDs(msgs)
		if err != nil {
			return usageErr("%s: %v", name, err)
		}
		slash, res.SlashIdsResolved = serialize.Resolve(ids, skills)
	}
	// Every message left out is named on stderr (the upstream leaves out
	// the same ones, silently).
	warn := func(p serialize.Problem) { fmt.Fprintf(opts.f.IO.ErrOut, "compact: warning: %s: %s\n", name, p) }
	out := serialize.Serialize(msgs, serialize.Options{Profile: profile, Slash: slash, Problems: warn})
	if opts.f.JSON {
		res.CompactHistory = history.ToWellFormed(out)
		res.Len16 = history.Len16(out)
		enc := json.NewEncoder(opts.f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return writeText(opts.f.IO.DataOut(), out)
}
