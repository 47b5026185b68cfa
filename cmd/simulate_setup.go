package cmd

import (
	"context"
	"errors"

	"github.com/compactlab/compact/internal/boundary"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/simulate"
	"github.com/compactlab/compact/internal/strategy"
)

// simErr gives an error of internal/simulate its exit status.
func simErr(err error) error {
	var ie *simulate.InputError
	var me *convo.MissingChatsError
	switch {
	case errors.As(err, &ie), errors.As(err, &me):
		return usageErr("%v", err)
	case errors.Is(err, context.Canceled):
		return interrupted("interrupted")
	}
	return err
}

// simDatabase is the database to read: --db, or the channel's for this OS.
func simDatabase(f *Factory, opts *simulateOptions) (string, error) {
	db := opts.DB
	if db == "" {
		var err error
		if db, err = extract.DefaultDBPath(opts.Channel, opts.GOOS, f.Getenv); err != nil {
			return "", usageErr("%v", err)
		}
	}
	if err := checkDB(f, db, opts.DB != "", opts.Channel, opts.GOOS); err != nil {
		return "", err
	}
	return db, nil
}

// simBaseConfig is the configuration every run starts from: the flags and
// the stagewise settings of the configuration.
func simBaseConfig(f *Factory, opts *simulateOptions) (strategy.Config, error) {
	st := f.Config
	cfg := strategy.Config{
		ContextWindow:  opts.ContextWindow,
		SystemOverhead: opts.SystemOverhead,
		Tokenizer:      opts.Tokenizer,
		Profile:        st.String("profile"),
		TargetChars:    st.Int("compression" + config.Delim + "target_chars"),
		Agent:          st.String("compression" + config.Delim + "agent"),
	}
	if _, err := serialize.LookupProfile(cfg.Profile); err != nil {
		return cfg, usageErr("config: profile: %v", err)
	}
	pack, err := resolvePack("config: pack", st.String("pack"))
	if err != nil {
		return cfg, err
	}
	cfg.Pack = pack
	cfg.Locale = st.String("locale")
	if cfg.Locale == "" {
		cfg.Locale = prompt.LocaleFromEnv(f.Getenv)
	}
	return cfg, nil
}

// stagewiseDefaults are the stagewise knobs the user set in the
// configuration (threshold and minimum uncompressed messages of the
// configured agent); unset, the strategy's own defaults for the agent
// apply.
func stagewiseDefaults(st *config.Store, agent string, p boundary.Params) simulate.StagewiseDefaults {
	var d simulate.StagewiseDefaults
	keys := agentConfigKeys[agent]
	if keys.threshold != "" && st.Source(keys.threshold) != "default" {
		d.Threshold = p.Threshold
	}
	if keys.min != "" && st.Source(keys.min) != "default" {
		n := p.DefaultMin
		d.MinUncompressed = &n
	}
	return d
}
