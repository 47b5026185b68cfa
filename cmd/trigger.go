package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cast"
	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/boundary"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/upstream"
)

func init() { register(newCmdTrigger) }

type triggerOptions struct {
	f *Factory

	used          float64
	contextWindow int
	threshold     float64
	hardCap       float64
	model         string
}

func newCmdTrigger(f *Factory) *cobra.Command {
	opts := &triggerOptions{f: f}
	c := &cobra.Command{
		Use:   "trigger --used N (--context-window W | --model ID)",
		Short: "Decide whether a step's token usage triggers history compression",
		Long: "trigger applies the post-step test of the agent: compress when\n" +
			"threshold >= 0 and usedTokens > min(threshold*contextWindow, hardCap)\n" +
			"(strict, no rounding). Without a context window (no --context-window, or\n" +
			"a --model in neither the profile's model catalogue nor context_windows)\n" +
			"the lookup failed and nothing triggers. Threshold and hard cap come from\n" +
			"the configuration (compression.agent and profile) unless given as flags.\n" +
			"Prints true or false; --json explains the decision.",
		Example: "  compact trigger --used 130001 --context-window 200000\n" +
			"  compact trigger --used 90000 --model claude-sonnet-4.6 --json",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runTrigger(c, opts) },
	}
	fl := c.Flags()
	fl.Float64Var(&opts.used, "used", 0, "`TOKENS` the step used (usage.totalTokens; required)")
	fl.IntVar(&opts.contextWindow, "context-window", 0, "the model's context window in `TOKENS`")
	fl.StringVar(&opts.model, "model", "", "look the context window of model `ID` (or MODEL@INSTANCE) up in the profile's catalogue and context_windows")
	fl.Float64Var(&opts.threshold, "threshold", 0, "trigger above this `FRACTION` of the context window; negative: never (default: compression.threshold, or chat_threshold for the chat agent)")
	fl.Float64Var(&opts.hardCap, "hard-cap", 0, "trigger above `TOKENS` whatever the window (default: compression.hard_cap_tokens, else the profile's: e3e 200000, head 100000)")
	completeContextWindowModels(c, f)
	return c
}

// completeContextWindowModels completes --model with the ids of the
// profile's window table (its catalogue and context_windows).
func completeContextWindowModels(c *cobra.Command, f *Factory) {
	_ = c.RegisterFlagCompletionFunc("model", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		st, err := completionConfig(f)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var ids []string
		table, _ := windowTable(st, st.String("profile"))
		for id := range table {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
}

func runTrigger(c *cobra.Command, opts *triggerOptions) error {
	fl := c.Flags()
	if !fl.Changed("used") {
		return usageErr("--used is required (the step's usage.totalTokens)")
	}
	p, err := compressionParams(opts.f.Config)
	if err != nil {
		return err
	}
	if fl.Changed("threshold") {
		p.Threshold = opts.threshold
	}
	if fl.Changed("hard-cap") {
		p.HardCap = opts.hardCap
	}
	win, err := lookupContextWindow(opts.f.Config, fl.Changed("context-window"), opts.contextWindow, opts.model)
	if err != nil {
		return err
	}
	r := boundary.ExplainTrigger(opts.used, win.window, p)
	out := opts.f.IO.Out
	if !opts.f.JSON {
		_, err := fmt.Fprintln(out, strconv.FormatBool(r.Trigger))
		return err
	}
	if note := win.note(); note != "" {
		r.Explanation = note + "; " + r.Explanation
	}
	return writeIndentedJSON(out, r)
}

// windowLookup is the outcome of the context-window lookup.
type windowLookup struct {
	window *int   // nil: the lookup failed
	model  string // --model, if given
}

// note says where the window came from, when a model was looked up.
func (w windowLookup) note() string {
	switch {
	case w.model == "":
		return ""
	case w.window == nil:
		return fmt.Sprintf("model %q is neither in the profile's catalogue nor in the context_windows table", w.model)
	}
	return fmt.Sprintf("model %q has a context window of %d", w.model, *w.window)
}

// lookupContextWindow gives the context window of --context-window (explicit, 0
// included) or of --model looked up in the profile's window table (its
// catalogue and the context_windows configuration; MODEL@INSTANCE names a
// provider instance's). Neither, or a model not in the table, is a failed
// lookup (nil). Configuration keys are lower case, so the model id is
// looked up in lower case.
func lookupContextWindow(st *config.Store, explicit bool, value int, model string) (windowLookup, error) {
	if explicit && model != "" {
		return windowLookup{}, usageErr("--context-window and --model are mutually exclusive")
	}
	if explicit {
		return windowLookup{window: &value}, nil
	}
	if model == "" {
		return windowLookup{}, nil
	}
	w := windowLookup{model: model}
	table, err := windowTable(st, st.String("profile"))
	if err != nil {
		return w, err
	}
	if n, ok := upstream.LookupWindow(table, model, ""); ok {
		w.window = &n
	}
	return w, nil
}

// agentConfigKeys are the configuration keys of each agent's threshold and
// unset-minimum default.
var agentConfigKeys = map[string]struct{ threshold, min string }{
	boundary.AgentBase: {"compression" + config.Delim + "threshold", "compression" + config.Delim + "min_uncompressed_messages"},
	boundary.AgentChat: {"compression" + config.Delim + "chat_threshold", "compression" + config.Delim + "chat_min_uncompressed_messages"},
}

// compressionParams builds the trigger and walk parameters from the
// configuration: profile and compression::agent choose the defaults, then
// every compression key that is set overrides them (hard_cap_tokens empty
// keeps the profile's cap).
func compressionParams(st *config.Store) (boundary.Params, error) {
	return compressionParamsFor(st, st.String("profile"))
}

// compressionParamsFor is compressionParams for profile (a command's
// --profile) rather than the configuration's.
func compressionParamsFor(st *config.Store, profile string) (boundary.Params, error) {
	agent := st.String("compression" + config.Delim + "agent")
	p, err := boundary.AgentParams(profile, agent)
	if err != nil {
		return p, usageErr("config: %v", err)
	}
	keys := agentConfigKeys[agent]
	floats := []struct {
		key string
		dst *float64
	}{
		{keys.threshold, &p.Threshold},
		{"compression" + config.Delim + "hard_cap_tokens", &p.HardCap},
		{"compression" + config.Delim + "kept_budget_fraction", &p.KeptFraction},
		{"compression" + config.Delim + "kept_budget_hard_cap_tokens", &p.KeptCap},
	}
	for _, k := range floats {
		if !st.IsSet(k.key) {
			continue
		}
		v, err := cast.ToFloat64E(st.Get(k.key))
		if err != nil || math.IsNaN(v) {
			return p, usageErr("config: %s: %v is not a number", configKeyName(k.key), st.Get(k.key))
		}
		*k.dst = v
	}
	ints := []struct {
		key string
		dst *int
	}{
		{keys.min, &p.DefaultMin},
		{"compression" + config.Delim + "min_floor", &p.MinFloor},
		{"compression" + config.Delim + "default_context_window", &p.DefaultContextWindow},
	}
	for _, k := range ints {
		if !st.IsSet(k.key) {
			continue
		}
		v, err := cast.ToIntE(st.Get(k.key))
		if err != nil {
			return p, usageErr("config: %s: %v is not an integer", configKeyName(k.key), st.Get(k.key))
		}
		*k.dst = v
	}
	return p, nil
}

// configKeyName is key as `compact config show` prints it.
func configKeyName(key string) string { return strings.ReplaceAll(key, config.Delim, ".") }

// writeIndentedJSON prints v indented, with a final newline, without HTML escaping.
func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
