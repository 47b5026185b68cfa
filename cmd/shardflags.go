package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/shard"
)

// shardFlags are --shard, --sample, --strata and --seed, which extract,
// replay, eval and simulate share: the sample of the units (chats,
// session files) first, then one shard of it (internal/shard).
type shardFlags struct {
	Shard  string
	Sample int
	Strata string
	Seed   int

	spec     shard.Spec
	sampling shard.Sampling
	f        *Factory
}

// Configuration keys of the flags.
var (
	keyShard        = "shard"
	keySampleSize   = "sample" + config.Delim + "size"
	keySampleStrata = "sample" + config.Delim + "strata"
	keySampleSeed   = "sample" + config.Delim + "seed"
)

// addShardFlags binds the flags; unit names what the command shards
// ("chats", "session files").
func addShardFlags(c *cobra.Command, sf *shardFlags, unit string) {
	fl := c.Flags()
	fl.StringVar(&sf.Shard, "shard", "", "work on shard `K/N` only (K from 0): the "+unit+" whose key hashes to K mod N (configuration shard, COMPACT_SHARD)")
	fl.IntVar(&sf.Sample, "sample", 0, "take a stratified, seeded sample of `N` "+unit+" first (0: all); --shard then splits the sample")
	fl.StringVar(&sf.Strata, "strata", shard.DefaultStrata, "the sample's strata: `LIST` of agent, length, compactions, or none")
	fl.IntVar(&sf.Seed, "seed", 1, "the sample's `SEED`: the same seed and "+unit+" give the same sample")
	completeValues(c, "strata", shard.DefaultStrata, "agent", "length", "compactions", "agent,length", "none")
	completeValues(c, "shard", "0/2", "0/4", "0/8")
}

// resolve reads the flags, or the configuration where a flag is not
// given, and checks them: a usage error names the flag or the key and
// where its value came from.
func (sf *shardFlags) resolve(c *cobra.Command, f *Factory) error {
	changed := c.Flags().Changed
	from := func(flag, key string) string {
		if changed(flag) {
			return "--" + flag
		}
		return configKeyName(key) + " (" + f.Config.Source(key) + ")"
	}
	configDefault(c, f, "shard", keyShard, &sf.Shard)
	configDefault(c, f, "strata", keySampleStrata, &sf.Strata)
	if err := configInt(c, f, "sample", keySampleSize, &sf.Sample); err != nil {
		return err
	}
	if err := configInt(c, f, "seed", keySampleSeed, &sf.Seed); err != nil {
		return err
	}
	spec, err := shard.Parse(sf.Shard)
	if err != nil {
		return usageErr("%s: %v", from("shard", keyShard), err)
	}
	if sf.Sample < 0 {
		return usageErr("%s: %d is negative (want the sample's size, or 0 for every unit)", from("sample", keySampleSize), sf.Sample)
	}
	strata, err := shard.ParseStrata(sf.Strata)
	if err != nil {
		return usageErr("%s: %v", from("strata", keySampleStrata), err)
	}
	if sf.Sample == 0 {
		for _, fl := range []string{"strata", "seed"} {
			if changed(fl) {
				return usageErr("--%s shapes a sample: give --sample N too", fl)
			}
		}
	}
	sf.spec, sf.f = spec, f
	sf.sampling = shard.Sampling{Size: sf.Sample, Strata: strata, Seed: int64(sf.Seed)}
	return nil
}

// active reports whether the run takes less than every unit.
func (sf *shardFlags) active() bool { return sf.spec.Active() || sf.sampling.Size > 0 }

// sampling reports whether a sample is drawn (which needs every unit's
// strata).
func (sf *shardFlags) sampled() bool { return sf.sampling.Size > 0 }

// pick selects the units and says what it took on stderr (unless
// --quiet): keep[i] is units[i]'s. unit names one unit (chat, session
// file).
func (sf *shardFlags) pick(f *Factory, units []shard.Unit, unit string) ([]bool, *shard.Selection) {
	keep, sel := shard.Select(units, sf.sampling, sf.spec, unit)
	say(f, sel)
	return keep, sel
}

// say prints what a selection took on stderr, one line, unless --quiet.
func say(f *Factory, sel *shard.Selection) {
	if !f.IO.Quiet {
		fmt.Fprintf(f.IO.ErrOut, "%s: %s\n", strings.TrimSpace("compact "+f.Command), sel)
	}
}

// bundles keeps the bundles of the chats the sample and the shard take
// (every bundle of a chat, or none: bundle.ChatUnits). Without either it
// returns dirs and nil.
func (sf *shardFlags) bundles(f *Factory, dirs []string) ([]string, *shard.Selection) {
	if !sf.active() {
		return dirs, nil
	}
	keep, sel := sf.pick(f, bundle.ChatUnits(dirs, sf.sampled()), "chat")
	return kept(dirs, keep), sel
}

// kept is the xs whose keep is true.
func kept[T any](xs []T, keep []bool) []T {
	out := xs[:0:0]
	for i, x := range xs {
		if keep[i] {
			out = append(out, x)
		}
	}
	return out
}

// picker is a pick for findPickedBundles that keeps sf.bundles and sets
// *sel; nil (every bundle) without a sample or a shard.
func (sf *shardFlags) picker(sel **shard.Selection) func([]string) []string {
	if !sf.active() {
		return nil
	}
	return func(dirs []string) []string {
		out, s := sf.bundles(sf.f, dirs)
		*sel = s
		return out
	}
}

// keys keeps the items whose key the shard takes, for a shard without a
// sample (which needs no strata): it spares reading the inputs of other
// shards. Without a shard, or with a sample, it keeps every item and
// returns nil.
func (sf *shardFlags) keys(f *Factory, keys []string, unit string) ([]bool, *shard.Selection) {
	keep := make([]bool, len(keys))
	if !sf.spec.Active() || sf.sampled() {
		for i := range keep {
			keep[i] = true
		}
		return keep, nil
	}
	units := make([]shard.Unit, len(keys))
	for i, k := range keys {
		units[i] = shard.Unit{Key: k}
	}
	return sf.pick(f, units, unit)
}

// emptySelection ends a run whose sample and shard left nothing to do,
// which is no error (a matrix of more jobs than chats has empty shards):
// a line says so, and --json prints {"selection": ...}.
func emptySelection(f *Factory, sel *shard.Selection) error {
	if !f.IO.Quiet {
		fmt.Fprintf(f.IO.ErrOut, "%s: nothing to do: this shard holds no %s\n", strings.TrimSpace("compact "+f.Command), sel.Unit)
	}
	if f.JSON {
		return writeIndentedJSON(f.IO.Out, struct {
			Selection *shard.Selection `json:"selection"`
		}{sel})
	}
	return nil
}

// mapSlice is fn of each of xs.
func mapSlice[T, U any](xs []T, fn func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = fn(x)
	}
	return out
}
