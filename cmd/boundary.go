package cmd

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/boundary"
	"github.com/compactlab/compact/internal/estimate"
	"github.com/compactlab/compact/internal/history"
)

func init() { register(newCmdBoundary) }

type boundaryOptions struct {
	f *Factory

	contextWindow   int
	minUncompressed int
	tokens          string
	model           string
}

func newCmdBoundary(f *Factory) *cobra.Command {
	opts := &boundaryOptions{f: f}
	c := &cobra.Command{
		Use:   "boundary [FILE | --tokens N,N,...] [--context-window W | --model ID] [--min-uncompressed M]",
		Short: "Run the backward boundary walk: which messages a compression would keep",
		Long: "boundary runs the boundary walk of compressHistoryInternal over per-message\n" +
			"token estimates: --tokens gives them oldest first; otherwise FILE (or stdin)\n" +
			"holds a superjson message array ({\"json\":[…],\"meta\":…}) and each message is\n" +
			"estimated as upstream does. Without --context-window (or with a --model\n" +
			"in neither the profile's model catalogue nor context_windows) the lookup\n" +
			"failed and the walk uses compression.default_context_window;\n" +
			"--context-window 0 is a real window of 0. Without --min-uncompressed the\n" +
			"agent's default applies. With the v1.29.0 profiles an absent message is\n" +
			"passed over and a boundary message without an id gives\n" +
			"skip-boundary-no-id, as agent-core does.\n" +
			"Prints the result as JSON: result, boundaryIndex, keptCount, keptBudget,\n" +
			"floor, singleMessageWarning, and why the walk stopped where it did.",
		Example: "  compact boundary --tokens 5000,10000,10000,10001,10000 --context-window 200000\n" +
			"  compact boundary --model claude-sonnet-4.6 < history.superjson",
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return runBoundary(c, opts, args) },
	}
	fl := c.Flags()
	fl.StringVar(&opts.tokens, "tokens", "", "per-message token estimates `N,N,...`, oldest first (empty: no messages)")
	fl.IntVar(&opts.contextWindow, "context-window", 0, "the model's context window in `TOKENS`")
	fl.StringVar(&opts.model, "model", "", "look the context window of model `ID` (or MODEL@INSTANCE) up in the profile's catalogue and context_windows")
	fl.IntVar(&opts.minUncompressed, "min-uncompressed", 0, "keep at least `N` messages uncompressed (default: the agent's, from the configuration)")
	completeContextWindowModels(c, f)
	return c
}

func runBoundary(c *cobra.Command, opts *boundaryOptions, args []string) error {
	fl := c.Flags()
	st := opts.f.Config
	p, err := compressionParams(st)
	if err != nil {
		return err
	}
	if fl.Changed("min-uncompressed") {
		p.MinUncompressed = &opts.minUncompressed
	}
	win, err := lookupContextWindow(st, fl.Changed("context-window"), opts.contextWindow, opts.model)
	if err != nil {
		return err
	}

	var r boundary.Result
	if fl.Changed("tokens") {
		if len(args) > 0 {
			return usageErr("--tokens and a FILE argument are mutually exclusive")
		}
		tokens, err := parseTokenList(opts.tokens)
		if err != nil {
			return err
		}
		r = boundary.Walk(tokens, win.window, p)
	} else {
		text, name, err := readInput(opts.f, args)
		if err != nil {
			return err
		}
		msgs, err := decodeMessages(text, name)
		if err != nil {
			return err
		}
		if r, err = walkMessages(msgs, st.String("profile"), win.window, p); err != nil {
			return err
		}
	}
	return writeIndentedJSON(opts.f.IO.Out, r)
}

// parseTokenList reads "1,2.5,3". An empty list is an empty history; NaN and
// Infinity are accepted (the walk handles them as JavaScript would).
func parseTokenList(s string) ([]float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return []float64{}, nil
	}
	fields := strings.Split(s, ",")
	tokens := make([]float64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, usageErr("--tokens: item %d (%q) is not a number", i+1, strings.TrimSpace(f))
		}
		tokens[i] = v
	}
	return tokens, nil
}

// walkMessages estimates each message under profile and walks. Upstream
// estimates lazily inside the walk, so a message whose estimate throws only
// aborts the compression when the walk reaches it; that is reproduced by
// walking first and checking the newest failing message against where the
// walk stopped.
func walkMessages(msgs []history.Value, profile string, ctx *int, p boundary.Params) (boundary.Result, error) {
	est, ok := estimate.Profiles[profile]
	if !ok {
		return boundary.Result{}, usageErr("config: no estimator for profile %q", profile)
	}
	tokens := make([]float64, len(msgs))
	failed, failErr := -1, error(nil)
	for i, m := range msgs {
		t, err := est.MessageTokens(m)
		if err != nil {
			failed, failErr = i, err // keep the newest: the walk meets it first
			continue
		}
		tokens[i] = t
	}
	r := boundary.WalkEntries(tokens, boundary.EntriesOf(msgs), ctx, p)
	if failed >= 0 && r.StopIndex != nil && failed >= *r.StopIndex {
		return r, usageErr("message %d: estimateMessageTokens throws (%v): upstream aborts the compression", failed, failErr)
	}
	return r, nil
}
