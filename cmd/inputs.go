package cmd

import (
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/serialize"
)

// pipelineInputs are what the commands that build bundles (extract,
// compress) resolve the same way from their flags and the configuration.
type pipelineInputs struct {
	profile *serialize.Profile
	pack    *prompt.Pack
	locale  string
	db      string
}

// resolvePipelineInputs checks --profile and --pack, takes the locale from
// the flag or the environment, and finds the channel's database when --db
// is not given. Every failure is a usage error.
func resolvePipelineInputs(f *Factory, profile, pack, locale, db, channel, goos string) (pipelineInputs, error) {
	var in pipelineInputs
	var err error
	if in.profile, err = serialize.LookupProfile(profile); err != nil {
		return in, usageErr("--profile: %v", err)
	}
	if in.pack, err = prompt.Resolve(pack); err != nil {
		return in, usageErr("--pack: %v", err)
	}
	in.locale = locale
	if in.locale == "" {
		in.locale = prompt.LocaleFromEnv(f.Getenv)
	}
	in.db = db
	if in.db == "" {
		if in.db, err = extract.DefaultDBPath(channel, goos, f.Getenv); err != nil {
			return in, usageErr("%v", err)
		}
	}
	return in, nil
}
