package simulate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/strategy"
)

// Request is a simulation as compact simulate is asked for it, before the
// configuration fills in the rest: Check says whether its parts go
// together, Options makes the run's options of it. The errors name the
// parts as the command's flags do.
type Request struct {
	// Files are the history files to read; none: a database.
	Files []string
	// Database: a database was named (--db, --channel or --chat).
	Database bool
	// Format reads the history files (one of Formats); FormatSet: it was
	// given.
	Format    string
	FormatSet bool
	// Leaf is the branch of a generic JSONL history to simulate.
	Leaf string

	// Strategy is the one strategy simulated; Compare lists strategies to
	// compare instead ("a,b,c"); Sweep a knob's values ("KNOB=FROM:TO:STEP").
	Strategy string
	Compare  string
	Sweep    string
	// AgainstRecorded puts the simulated boundaries beside the recorded
	// ones.
	AgainstRecorded bool

	Jobs           int
	ContextWindow  int
	SystemOverhead int
	// SystemOverheadSet: SystemOverhead was given (an agent's recorded
	// overhead is not used then).
	SystemOverheadSet bool
	Tokenizer         string
	// Summarizer is who writes the summaries: builtin, recorded,
	// model:ID or cascade.
	Summarizer string
	// PriceModel prices every history at this model's prices ("": each
	// history's model).
	PriceModel string
}

// Check says which parts of r do not go together, or are out of range.
func (r Request) Check() error {
	files := len(r.Files) > 0
	if files && r.Database {
		return fmt.Errorf("a history file is read alone; --db, --channel and --chat read a database: choose one")
	}
	if !slices.Contains(Formats, r.Format) {
		return fmt.Errorf("--format: unknown format %q (want %s)", r.Format, strings.Join(Formats, ", "))
	}
	if r.FormatSet && !files {
		return fmt.Errorf("--format reads history files; pass one (FILE or --jsonl FILE)")
	}
	if r.Leaf != "" && len(r.Files) != 1 {
		return fmt.Errorf("--leaf chooses a branch of one history file")
	}
	if r.AgainstRecorded && r.Sweep != "" {
		return fmt.Errorf("--against-recorded does not go with --sweep")
	}
	if r.AgainstRecorded && !files {
		if r.Compare != "" {
			return fmt.Errorf("--against-recorded on a database simulates the stagewise strategy; --compare goes with agents' session files")
		}
		if r.Strategy != strategy.NameStagewise {
			return fmt.Errorf("--against-recorded simulates the stagewise strategy, not %s", r.Strategy)
		}
	}
	if r.Jobs < 0 {
		return fmt.Errorf("-j: want 0 (one per CPU) or more, got %d", r.Jobs)
	}
	if r.ContextWindow < 0 || r.SystemOverhead < 0 {
		return fmt.Errorf("--context-window and --system-overhead take a number of tokens, not a negative one")
	}
	if r.Tokenizer != "" && !slices.Contains(strategy.Tokenizers, r.Tokenizer) {
		return fmt.Errorf("--tokenizer: unknown tokenizer %q (want %s)", r.Tokenizer, strings.Join(strategy.Tokenizers, " or "))
	}
	if r.Summarizer == "recorded" && files {
		return fmt.Errorf("--summarizer recorded replays the briefings of a stagewise database; a history file has none")
	}
	return nil
}

// Options are the run's options r gives, priced with the model table ms:
// the strategies, the comparison or sweep, the pricing. The
// configuration's part (Base, Stagewise, Params) and the summarizer are
// the caller's to fill.
func (r Request) Options(ms cascade.Models) (Options, error) {
	so := Options{
		Strategies:       []string{r.Strategy},
		Compare:          r.Compare != "" && !r.AgainstRecorded,
		AgainstRecorded:  r.AgainstRecorded,
		Jobs:             r.Jobs,
		RecordedOverhead: !r.SystemOverheadSet,
	}
	so.Pricing.Models, so.Pricing.Model = ms, r.PriceModel
	if r.PriceModel != "" {
		if _, ok := ms.Lookup(r.PriceModel); !ok {
			return so, fmt.Errorf("--price-model: unknown model %q (known: %s)", r.PriceModel, strings.Join(ms.IDs(), ", "))
		}
	}
	if id, ok := strings.CutPrefix(r.Summarizer, "model:"); ok && id != "builtin" {
		so.Pricing.Summarizer = id
	}
	if r.Compare != "" {
		names, err := ParseStrategies(r.Compare)
		if err != nil {
			return so, fmt.Errorf("--compare: %v", err)
		}
		so.Strategies = names
	} else if err := CheckStrategies(so.Strategies); err != nil {
		return so, err
	}
	if r.Sweep != "" {
		s, err := ParseSweep(r.Sweep)
		if err != nil {
			return so, fmt.Errorf("--sweep: %v", err)
		}
		so.Sweep = s
	}
	return so, nil
}

// NewSummarizer builds the summarizer spec names: builtin (or
// model:builtin), recorded, model:ID or cascade. load gives the configured
// cascade, and is called only for the last two. The name is the one the
// output gives it.
func NewSummarizer(spec string, load func() (*cascade.Cascade, error)) (s strategy.Summarizer, name string, err error) {
	switch {
	case spec == "builtin" || spec == "model:builtin":
		return strategy.Builtin{}, "builtin", nil
	case spec == "recorded":
		return strategy.Recorded{}, spec, nil
	case spec == "cascade" || strings.HasPrefix(spec, "model:"):
		c, err := load()
		if err != nil {
			return nil, "", err
		}
		order := c.Order("")
		if id, ok := strings.CutPrefix(spec, "model:"); ok {
			if _, ok := c.Models.Lookup(id); !ok {
				return nil, "", fmt.Errorf("--summarizer: unknown model %q (known: %s)", id, strings.Join(c.Models.IDs(), ", "))
			}
			order = []string{id}
		}
		return NewCascadeSummarizer(c, order), spec, nil
	}
	return nil, "", fmt.Errorf("--summarizer: want builtin, recorded, model:ID or cascade, not %q", spec)
}

// AgentSessions reports whether any input is an agent's session (not a
// stagewise chat or a generic JSONL history).
func AgentSessions(inputs []*Input) bool {
	for _, in := range inputs {
		if s := in.History.Source; s != convo.SourceStagewise && s != convo.SourceJSONL {
			return true
		}
	}
	return false
}
