package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/upstream"
)

func init() { register(newCmdPrompt) }

type promptOptions struct {
	f      *Factory
	Pack   string
	Locale string
	Prev   int
	Out    string
	Args   []string
}

func newCmdPrompt(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "prompt",
		Short: "Print the compression prompts, or import an upstream prompt.ts as a pack",
		Long: "Prints the system prompt and the user message of the compression call as a\n" +
			"prompt pack builds them, and imports an upstream prompt.ts module into a\n" +
			"pack directory. Packs: \"default\" (built in) or a directory written by\n" +
			"`compact prompt import`.",
	}
	c.AddCommand(newCmdPromptUser(f), newCmdPromptSystem(f), newCmdPromptImport(f))
	return c
}

// packFlag binds --pack; the config key "pack" applies when it is not given.
func packFlag(c *cobra.Command, opts *promptOptions) {
	c.Flags().StringVar(&opts.Pack, "pack", prompt.DefaultPackName, "prompt pack: a built-in `NAME` or a directory written by \"compact prompt import\"")
	completePack(c)
}

func (opts *promptOptions) fromConfig(c *cobra.Command) {
	cfg := opts.f.Config
	if cfg == nil {
		return
	}
	if !c.Flags().Changed("pack") {
		if v := cfg.String("pack"); v != "" {
			opts.Pack = v
		}
	}
	if fl := c.Flags().Lookup("locale"); fl != nil && !fl.Changed {
		opts.Locale = cfg.String("locale")
	}
}

func (opts *promptOptions) pack() (*prompt.Pack, error) {
	return resolvePack("--pack", opts.Pack)
}

func newCmdPromptUser(f *Factory) *cobra.Command {
	opts := &promptOptions{f: f}
	c := &cobra.Command{
		Use:   "user",
		Short: "Print the user message for the compact history on stdin",
		Long: "Reads the compact history (the serializer's output) from stdin and prints\n" +
			"the user message of the compression call, without a trailing newline:\n" +
			"the history in its wrapper, the size hint for a previous briefing of\n" +
			"--prev characters (UTF-16 units; 0 for none), and the closing line.\n" +
			"Numbers are formatted for --locale, else the config value locale, else\n" +
			"the locale Node would take from LC_ALL, LC_MESSAGES and LANG.",
		Example: "  compact serialize history.superjson | compact prompt user --prev 12000\n" +
			"  compact prompt user --locale de-DE --json < compact-history.xml",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.fromConfig(c)
			return runPromptUser(opts)
		},
	}
	packFlag(c, opts)
	c.Flags().IntVar(&opts.Prev, "prev", 0, "the previous briefing was `N` characters long (UTF-16 units; 0: there is none)")
	c.Flags().StringVar(&opts.Locale, "locale", "", "format the hint's numbers for `LOCALE` (BCP 47), e.g. en-US or de-DE (default: the configuration, then LC_ALL, LC_MESSAGES, LANG)")
	_ = c.RegisterFlagCompletionFunc("locale", cobra.NoFileCompletions)
	return c
}

type promptUserResult struct {
	UserMessage string `json:"userMessage"`
	Len16       int    `json:"len16"`
	Locale      string `json:"locale"`
	Prev        int    `json:"prev"`
}

func runPromptUser(opts *promptOptions) error {
	if opts.Prev < 0 {
		return usageErr("--prev: %d is negative", opts.Prev)
	}
	p, err := opts.pack()
	if err != nil {
		return err
	}
	data, err := fsutil.ReadLimit(opts.f.IO.In, "stdin", fsutil.MaxJSStringBytes)
	if err != nil {
		return usageErr("%v", err)
	}
	locale := opts.Locale
	if locale == "" {
		locale = prompt.LocaleFromEnv(opts.f.Getenv)
	}
	msg := p.UserMessage(string(data), opts.Prev, locale)
	if opts.f.JSON {
		enc := json.NewEncoder(opts.f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(promptUserResult{
			UserMessage: history.ToWellFormed(msg),
			Len16:       history.Len16(msg),
			Locale:      locale,
			Prev:        opts.Prev,
		})
	}
	return writeText(opts.f.IO.DataOut(), msg)
}

func newCmdPromptSystem(f *Factory) *cobra.Command {
	opts := &promptOptions{f: f}
	c := &cobra.Command{
		Use:   "system",
		Short: "Print the system prompt of a pack",
		Long:  "Prints the system prompt of the pack exactly, without a trailing newline.",
		Example: "  compact prompt system\n" +
			"  compact prompt system --pack ./my-pack > system-prompt.md",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.fromConfig(c)
			p, err := opts.pack()
			if err != nil {
				return err
			}
			if f.JSON {
				enc := json.NewEncoder(f.IO.Out)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{
					"systemPrompt": history.ToWellFormed(p.System()),
					"len16":        history.Len16(p.System()),
				})
			}
			return writeText(f.IO.DataOut(), p.System())
		},
	}
	packFlag(c, opts)
	return c
}

func newCmdPromptImport(f *Factory) *cobra.Command {
	opts := &promptOptions{f: f}
	c := &cobra.Command{
		Use:   "import PATH/prompt.ts --out DIR",
		Short: "Turn an upstream prompt.ts into a prompt pack directory",
		Long: "Reads an upstream history-compression prompt.ts module (its\n" +
			"COMPRESSION_SYSTEM_PROMPT, COMPRESSION_TARGET_CHARS and\n" +
			"buildCompressionUserMessage) and writes the equivalent pack to DIR:\n" +
			"system-prompt.md and pack.json. Use the pack with --pack DIR.",
		Example: "  compact prompt import ../stagewise/src/history-compression/prompt.ts --out packs/upstream\n" +
			"  compact extract --pack packs/upstream",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Args = args
			return runPromptImport(opts)
		},
	}
	c.Flags().StringVar(&opts.Out, "out", "", "write the pack to `DIR` (created if needed; required)")
	_ = c.MarkFlagDirname("out")
	c.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return []string{"ts"}, cobra.ShellCompDirectiveFilterFileExt
	}
	return c
}

type promptImportResult struct {
	Out         string `json:"out"`
	TargetChars int    `json:"targetChars"`
	Buckets     int    `json:"buckets"`
	SystemLen16 int    `json:"systemLen16"`
	// Hash is the pack's hash (prompt.Pack.Hash); Profiles the profiles
	// whose recorded prompt hash it is.
	Hash     string   `json:"hash"`
	Profiles []string `json:"profiles"`
}

// maxPromptSource bounds the prompt.ts that import reads; upstream's is
// about 20 KB.
const maxPromptSource = 16 << 20

func runPromptImport(opts *promptOptions) error {
	if opts.Out == "" {
		return usageErr("--out: a directory is required")
	}
	src, err := fsutil.ReadFileLimit(opts.Args[0], maxPromptSource)
	if err != nil {
		return usageErr("%v", err)
	}
	p, err := prompt.Import(src)
	if err != nil {
		var ie *prompt.ImportError
		if errors.As(err, &ie) && ie.Line > 0 {
			return usageErr("%s:%d:%d: %s", opts.Args[0], ie.Line, ie.Col, ie.Msg)
		}
		if errors.As(err, &ie) {
			return usageErr("%s: %s", opts.Args[0], ie.Msg)
		}
		return usageErr("%s: %v", opts.Args[0], err)
	}
	// The temporary files of killed imports into the same directory go
	// first, unless a live import holds them.
	n, err := prompt.CleanLeftovers(opts.Out)
	if err != nil {
		fmt.Fprintf(opts.f.IO.ErrOut, "compact prompt import: warning: leftovers of an interrupted run: %v\n", err)
	}
	if n > 0 {
		fmt.Fprintf(opts.f.IO.ErrOut, "compact prompt import: removed %s of an interrupted run in %s\n", plural(n, "leftover"), opts.Out)
	}
	if err := p.Save(opts.Out); err != nil {
		return err
	}
	hash, err := p.Hash()
	if err != nil {
		return err
	}
	res := promptImportResult{Out: opts.Out, TargetChars: p.TargetChars, Buckets: len(p.Hints), SystemLen16: history.Len16(p.System()),
		Hash: hash, Profiles: []string{}}
	for _, r := range upstream.ByPromptHash(hash) {
		res.Profiles = append(res.Profiles, r.Name)
	}
	if opts.f.JSON {
		enc := json.NewEncoder(opts.f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	if !opts.f.IO.Quiet {
		fmt.Fprintf(opts.f.IO.ErrOut, "wrote prompt pack %s (target %s, %s, system prompt %s)\n",
			res.Out, plural(res.TargetChars, "character"), plural(res.Buckets, "hint bucket"), plural(res.SystemLen16, "character"))
		match := "no profile's prompt"
		if len(res.Profiles) > 0 {
			match = "the prompt of profile " + strings.Join(res.Profiles, ", ")
		}
		fmt.Fprintf(opts.f.IO.ErrOut, "prompt hash %s: %s\n", res.Hash, match)
	}
	return nil
}
