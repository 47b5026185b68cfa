package cmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/config"
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
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return runConfigShow(opts) },
	})
	return c
}

type configEntry struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
	Env    string `json:"env"`
}

func runConfigShow(opts *configShowOptions) error {
	st := opts.f.Config
	var entries []configEntry
	for _, k := range st.Keys() {
		val := st.Get(k)
		// Keys never reach the screen.
		if strings.HasSuffix(k, "api_key") && val != nil && fmt.Sprint(val) != "" {
			val = "[redacted]"
		}
		entries = append(entries, configEntry{
			Key:    strings.ReplaceAll(k, config.Delim, "."),
			Value:  val,
			Source: st.Source(k),
			Env:    config.EnvName(k),
		})
	}
	out := opts.f.IO.Out
	if opts.f.JSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	width := 0
	for _, e := range entries {
		if len(e.Key) > width {
			width = len(e.Key)
		}
	}
	for _, e := range entries {
		val := fmt.Sprint(e.Value)
		if e.Value == nil {
			val = "(unset)"
		}
		fmt.Fprintf(out, "%-*s  %-24s  %s\n", width, e.Key, val, e.Source)
	}
	return nil
}
