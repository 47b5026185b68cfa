package cmd

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/estimate"
	"github.com/compactlab/compact/internal/history"
)

func init() { register(newCmdTokens) }

type tokensOptions struct {
	f       *Factory
	Profile string
	Args    []string
}

func newCmdTokens(f *Factory) *cobra.Command {
	opts := &tokensOptions{f: f}
	c := &cobra.Command{
		Use:   "tokens [FILE]",
		Short: "Estimate the tokens of messages as the upstream does",
		Long: "Reads the superjson text of one message or of a message array (a file, or\n" +
			"stdin) and prints estimateMessageTokens for each, one per line: the\n" +
			"upstream's UTF-16 characters / 4 with whole-part JSON for tool parts and\n" +
			"the metadata overhead. NaN where JavaScript yields NaN; \"throws\" where the\n" +
			"upstream estimate throws (the compression then aborts).",
		Example: "  compact tokens history.superjson\n" +
			"  compact tokens --profile head --json < message.superjson",
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Args = args
			if !c.Flags().Changed("profile") {
				opts.Profile = f.Config.String("profile")
			}
			return runTokens(opts)
		},
	}
	addProfileFlag(c, &opts.Profile, profileUsage)
	return c
}

type tokenLine struct {
	Index  int      `json:"index"`
	Tokens *float64 `json:"tokens"` // null for NaN or a throw
	NaN    bool     `json:"nan,omitempty"`
	Error  string   `json:"error,omitempty"`
}

func runTokens(opts *tokensOptions) error {
	if _, err := resolveProfile("--profile", opts.Profile); err != nil {
		return err
	}
	p := estimate.Profiles[opts.Profile]
	text, name, err := readInput(opts.f, opts.Args)
	if err != nil {
		return err
	}
	v, err := decodeInput(text, name)
	if err != nil {
		return err
	}
	msgs := []history.Value{v}
	if v.Kind() == history.Array {
		msgs = v.Elems()
	} else if !v.IsObjectLike() {
		return usageErr("%s holds %s, not a message or a message array", name, describeTop(v))
	}
	var lines []tokenLine
	for i, m := range msgs {
		n, err := p.MessageTokens(m)
		l := tokenLine{Index: i}
		switch {
		case err != nil:
			l.Error = err.Error()
		case math.IsNaN(n):
			l.NaN = true
		default:
			l.Tokens = &n
		}
		lines = append(lines, l)
	}
	out := opts.f.IO.Out
	if opts.f.JSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(lines)
	}
	for i, l := range lines {
		if i > 0 {
			fmt.Fprintln(out)
		}
		switch {
		case l.Error != "":
			fmt.Fprint(out, "throws")
			fmt.Fprintf(opts.f.IO.ErrOut, "compact tokens: warning: message %d: %s\n", l.Index, l.Error)
		case l.NaN:
			fmt.Fprint(out, "NaN")
		default:
			fmt.Fprint(out, history.FormatNumber(*l.Tokens))
		}
	}
	return nil
}
