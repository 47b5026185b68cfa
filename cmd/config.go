package cmd

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/upstream"
)

func init() { register(newCmdConfig) }

type configShowOptions struct {
	f *Factory
}

func newCmdConfig(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Inspect the configuration",
	}
	opts := &configShowOptions{f: f}
	c.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration and where each value came from",
		Long: "Prints one line per setting: its key (nested keys joined with \".\"), its\n" +
			"effective value and where that value came from: default (the built-in\n" +
			"configs/compact.yaml), file PATH (--config or COMPACT_CONFIG), env NAME,\n" +
			"or profile RELEASE for what the profile sets where nothing else does (its\n" +
			"cascade, abort grace and the context windows of its model catalogue).\n" +
			"Lists of settings, such as the model table, get one line per field, e.g.\n" +
			"models[gpt-5.4-nano].price_in_per_mtok.\n" +
			"Then one line per provider says whether its API key is set and where it\n" +
			"was found, or which variable to set. Keys themselves are never printed.\n" +
			"--json prints the same as a list of {key, value, source, env}; the key\n" +
			"status of a provider is the entry providers.NAME.key_status.",
		Example: "  compact config show\n" +
			"  compact config show --config my.yaml | grep cascade\n" +
			"  COMPACT_OPENAI_BASE_URL=http://127.0.0.1:8080 compact config show --json",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runConfigShow(opts) },
	})
	return c
}

// configEntry is one line of config show.
type configEntry struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
	// Env is the variable that overrides the key ("" for a field of a
	// list, which only a file sets).
	Env string `json:"env"`
}

const redacted = "[redacted]"

func runConfigShow(opts *configShowOptions) error {
	f := opts.f
	st := f.Config
	entries := profileEntries(st, configEntries(st))
	keys, err := providerKeyEntries(st, f.Getenv)
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "compact config show: warning: cannot tell which API keys are set: %v\n", err)
	}
	if f.JSON {
		return writeIndentedJSON(f.IO.Out, append(entries, keys...))
	}
	out := f.IO.TextOut() // values come from a file and the environment
	keyWidth, valWidth := 0, 0
	for _, e := range entries {
		keyWidth = max(keyWidth, len(e.Key))
		valWidth = max(valWidth, len(configValueText(e.Value)))
	}
	valWidth = min(valWidth, 40)
	for _, e := range entries {
		fmt.Fprintf(out, "%-*s  %-*s  %s\n", keyWidth, e.Key, valWidth, configValueText(e.Value), e.Source)
	}
	if len(keys) > 0 {
		fmt.Fprintln(out)
		fmt.Fprintln(out, "API keys (never printed):")
		width := 0
		for _, e := range keys {
			width = max(width, len(keyStatusProvider(e)))
		}
		for _, e := range keys {
			fmt.Fprintf(out, "  %-*s  %s\n", width+1, keyStatusProvider(e)+":", keyStatusText(e))
		}
	}
	return nil
}

// configEntries lists every setting, one entry per leaf: nested keys are
// joined with ".", lists of scalars stay one entry, and each field of a
// list of mappings (the model table) is its own entry, named by the
// element's id (models[gpt-5.4].api_model) or, without ids, its index.
func configEntries(st *config.Store) []configEntry {
	var entries []configEntry
	for _, k := range st.Keys() {
		key := configKeyName(k)
		src := st.Source(k)
		val := st.Get(k)
		if list, ok := val.([]any); ok && len(list) > 0 && allMaps(list) {
			labels := listLabels(list)
			for i, el := range list {
				flattenEntry(&entries, key+"["+labels[i]+"]", el, src, "")
			}
			continue
		}
		entries = append(entries, configEntry{Key: key, Value: redactValue(key, val), Source: src, Env: config.EnvNames(k)[0]})
	}
	return entries
}

func allMaps(list []any) bool {
	for _, el := range list {
		if _, ok := toMap(el); !ok {
			return false
		}
	}
	return true
}

// listLabels names the elements of a list of mappings: by their id when
// every one has a distinct one, else by index.
func listLabels(list []any) []string {
	labels := make([]string, len(list))
	seen := map[string]bool{}
	for i, el := range list {
		m, _ := toMap(el)
		id, ok := m["id"].(string)
		if !ok || id == "" || seen[id] {
			for j := range labels {
				labels[j] = fmt.Sprint(j)
			}
			return labels
		}
		seen[id] = true
		labels[i] = id
	}
	return labels
}

func toMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, val := range m {
			out[fmt.Sprint(k)] = val
		}
		return out, true
	}
	return nil, false
}

// flattenEntry appends val under key, one entry per leaf of a mapping.
func flattenEntry(entries *[]configEntry, key string, val any, src, env string) {
	m, ok := toMap(val)
	if !ok || len(m) == 0 {
		*entries = append(*entries, configEntry{Key: key, Value: redactValue(key, val), Source: src, Env: env})
		return
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		flattenEntry(entries, key+"."+n, m[n], src, env)
	}
}

// redactValue keeps keys and URL passwords off the screen.
func redactValue(key string, val any) any {
	s, isString := val.(string)
	if strings.HasSuffix(key, "api_key") && val != nil && fmt.Sprint(val) != "" {
		return redacted
	}
	if isString && strings.Contains(s, "@") {
		if u, err := url.Parse(s); err == nil && u.User != nil {
			u.User = url.User(redacted)
			return u.String()
		}
	}
	return val
}

// configValueText is a value as config show prints it.
func configValueText(v any) string {
	switch x := v.(type) {
	case nil:
		return "(unset)"
	case string:
		if x == "" {
			return `""`
		}
		return x
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		parts := make([]string, len(x))
		for i, el := range x {
			parts[i] = configValueText(el)
		}
		return strings.Join(parts, ", ")
	case []string:
		return configValueText(toAnySlice(x))
	}
	return fmt.Sprint(v)
}

func toAnySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// providerKeyEntries says for each provider whether its API key is set and
// where it was found, or where it is looked for; never the key.
func providerKeyEntries(st *config.Store, getenv func(string) string) ([]configEntry, error) {
	ps, err := cascade.LoadProviders(st, getenv)
	if err != nil {
		return nil, err
	}
	var out []configEntry
	for _, p := range ps {
		e := configEntry{Key: "providers." + p.Name + ".key_status"}
		lookedAt := keyEnvs(p.KeySource)
		e.Env = strings.Join(lookedAt, ", ")
		switch {
		case p.Kind == cascade.KindBuiltin:
			e.Value = "not needed"
		case p.APIKey != "" && strings.HasPrefix(p.KeySource, "env "):
			e.Value, e.Source = "set", p.KeySource
			e.Env = strings.TrimPrefix(p.KeySource, "env ")
		case p.APIKey != "":
			// From providers.NAME.api_key: say which layer holds it.
			e.Value = "set"
			e.Source = "providers." + p.Name + ".api_key, " + st.Source("providers"+config.Delim+p.Name+config.Delim+"api_key")
		case p.Kind == cascade.KindOpenAICompatible && !p.KeyRequired:
			// A local server mostly takes no key at all.
			e.Value = "optional"
		default:
			e.Value = "missing"
		}
		out = append(out, e)
	}
	// A server given on the command line (replay --base-url) takes its
	// optional key from one variable.
	srv := configEntry{Key: "providers.--base-url.key_status", Value: "optional", Env: cascade.ServerKeyEnv}
	if getenv(cascade.ServerKeyEnv) != "" {
		srv.Value, srv.Source = "set", "env "+cascade.ServerKeyEnv
	}
	out = append(out, srv)
	return out, nil
}

// keyEnvs reads the variables a missing key was looked for in out of the
// cascade's "missing: A, B, providers.x.api_key".
func keyEnvs(keySource string) []string {
	rest, ok := strings.CutPrefix(keySource, "missing: ")
	if !ok {
		return nil
	}
	var envs []string
	for _, n := range strings.Split(rest, ", ") {
		if n != "" && !strings.HasPrefix(n, "providers.") {
			envs = append(envs, n)
		}
	}
	return envs
}

// keyStatusText is a key_status entry as one line of text.
func keyStatusText(e configEntry) string {
	switch e.Value {
	case "not needed":
		return "needs no key"
	case "set":
		return "key set (" + strings.TrimPrefix(e.Source, "env ") + ")"
	case "optional":
		if e.Env == "" {
			return "no key, optional (a server that wants one: set providers." + keyStatusProvider(e) + ".api_key_env)"
		}
		return "no key, optional (a server that wants one: set " + e.Env + ")"
	}
	if e.Env == "" {
		return "no key (set providers." + keyStatusProvider(e) + ".api_key_env to the variable that holds it)"
	}
	return "no key (set " + strings.Join(strings.Split(e.Env, ", "), " or ") + ")"
}

// keyStatusProvider is the provider name of a key_status entry.
func keyStatusProvider(e configEntry) string {
	return strings.TrimSuffix(strings.TrimPrefix(e.Key, "providers."), ".key_status")
}

// profileEntries shows what the profile sets where the configuration does
// not: its cascade and abort grace in place of the defaults, and its
// catalogue's context windows (those the configuration does not
// override), each with the source "profile NAME".
func profileEntries(st *config.Store, entries []configEntry) []configEntry {
	r, err := upstream.Lookup(st.String("profile"))
	if err != nil {
		return entries
	}
	cat := upstream.Catalogs[r.Gen]
	src := "profile " + r.Name
	for i, e := range entries {
		if e.Source != "default" {
			continue
		}
		switch e.Key {
		case "cascade.models":
			list := make([]any, len(cat.Cascade))
			for j, m := range cat.Cascade {
				list[j] = m
			}
			entries[i].Value, entries[i].Source = list, src
		case "cascade.abort_grace":
			entries[i].Value, entries[i].Source = cat.AbortGrace.String(), src
		}
	}
	own := st.ContextWindows()
	var ids []string
	for id := range cat.Windows {
		if _, ok := own[strings.ToLower(id)]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return strings.ToLower(ids[i]) < strings.ToLower(ids[j]) })
	var add []configEntry
	for _, id := range ids {
		key := "context_windows." + strings.ToLower(id)
		add = append(add, configEntry{Key: key, Value: cat.Windows[id], Source: src, Env: config.EnvNames("context_windows" + config.Delim + strings.ToLower(id))[0]})
	}
	// The block of context_windows entries, the configuration's and the
	// catalogue's, in key order where the configuration's would stand.
	at := sort.Search(len(entries), func(i int) bool { return entries[i].Key > "context_windows." })
	end := at
	for end < len(entries) && strings.HasPrefix(entries[end].Key, "context_windows.") {
		end++
	}
	block := append(append([]configEntry{}, entries[at:end]...), add...)
	sort.SliceStable(block, func(i, j int) bool { return block[i].Key < block[j].Key })
	out := append(append(append([]configEntry{}, entries[:at]...), block...), entries[end:]...)
	return out
}
