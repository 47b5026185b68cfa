package cmd

import (
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/replay"
)

// replayConfig is the configuration for completing replay's flags
// (completionConfig), or the defaults and environment when the file cannot
// be read.
func replayConfig(f *Factory) *config.Store {
	st, err := completionConfig(f)
	if err != nil {
		st, _ = config.LoadEnv("", f.Getenv)
	}
	return st
}

// replayModelNames completes --model.
func replayModelNames(f *Factory) []string {
	st := replayConfig(f)
	if st == nil {
		return nil
	}
	c, err := cascade.Load(st, func(string) string { return "" })
	if err != nil {
		return nil
	}
	return replay.ModelChoices(c)
}

// replayRunNames completes --run with the run names already under the
// bundles of the channel's directory.
func replayRunNames(f *Factory, c *cobra.Command) []string {
	st := replayConfig(f)
	if st == nil {
		return nil
	}
	channel, _ := c.Flags().GetString("channel")
	if !c.Flags().Changed("channel") {
		channel = st.String("extract" + config.Delim + "channel")
	}
	bundles, err := replayFinder.Find([]string{filepath.Join(st.String("extract"+config.Delim+"out"), channel)})
	if err != nil {
		return nil
	}
	return bundle.RunNames(bundles)
}
