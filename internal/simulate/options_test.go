package simulate

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/strategy"
)

// request is a valid request on a database; edit changes it.
func request(edit func(*Request)) Request {
	r := Request{Format: "auto", Strategy: strategy.NameStagewise, Summarizer: "builtin"}
	if edit != nil {
		edit(&r)
	}
	return r
}

func TestRequestCheckSaysWhatDoesNotGoTogether(t *testing.T) {
	file := []string{"h.jsonl"}
	for _, tc := range []struct {
		name string
		edit func(*Request)
		err  string
	}{
		{"a database", nil, ""},
		{"a file", func(r *Request) { r.Files, r.FormatSet, r.Format = file, true, "claude-code" }, ""},
		{"a file and a database", func(r *Request) { r.Files, r.Database = file, true }, "a history file is read alone; --db, --channel and --chat read a database: choose one"},
		{"an unknown format", func(r *Request) { r.Format = "xml" }, `--format: unknown format "xml" (want auto, `},
		{"a format without a file", func(r *Request) { r.FormatSet = true }, "--format reads history files; pass one (FILE or --jsonl FILE)"},
		{"a leaf of two files", func(r *Request) { r.Files, r.Leaf = []string{"a", "b"}, "m9" }, "--leaf chooses a branch of one history file"},
		{"a leaf of one file", func(r *Request) { r.Files, r.Leaf = file, "m9" }, ""},
		{"against recorded and a sweep", func(r *Request) { r.AgainstRecorded, r.Sweep = true, "context_window=1000" }, "--against-recorded does not go with --sweep"},
		{"against recorded comparing a database", func(r *Request) { r.AgainstRecorded, r.Compare = true, "onyx" }, "--against-recorded on a database simulates the stagewise strategy; --compare goes with agents' session files"},
		{"against recorded comparing files", func(r *Request) { r.AgainstRecorded, r.Compare, r.Files = true, "onyx", file }, ""},
		{"against recorded with another strategy", func(r *Request) { r.AgainstRecorded, r.Strategy = true, "onyx" }, "--against-recorded simulates the stagewise strategy, not onyx"},
		{"negative jobs", func(r *Request) { r.Jobs = -1 }, "-j: want 0 (one per CPU) or more, got -1"},
		{"a negative window", func(r *Request) { r.ContextWindow = -1 }, "--context-window and --system-overhead take a number of tokens, not a negative one"},
		{"a negative overhead", func(r *Request) { r.SystemOverhead = -5 }, "--context-window and --system-overhead take a number of tokens, not a negative one"},
		{"an unknown tokenizer", func(r *Request) { r.Tokenizer = "words" }, `--tokenizer: unknown tokenizer "words" (want `},
		{"a known tokenizer", func(r *Request) { r.Tokenizer = strategy.Tokenizers[0] }, ""},
		{"recorded summaries of a file", func(r *Request) { r.Files, r.Summarizer = file, "recorded" }, "--summarizer recorded replays the briefings of a stagewise database; a history file has none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := request(tc.edit).Check()
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)) {
				t.Errorf("Check = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestRequestOptions(t *testing.T) {
	st, err := config.LoadEnv("", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ms, err := cascade.LoadModels(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		edit       func(*Request)
		strategies []string
		compare    bool
		overhead   bool
		priceModel string
		summarizer string
		sweep      bool
		err        string
	}{
		{name: "one strategy", strategies: []string{strategy.NameStagewise}, overhead: true},
		{name: "a comparison", edit: func(r *Request) { r.Compare = "onyx,stagewise" }, strategies: []string{"onyx", "stagewise"}, compare: true, overhead: true},
		{name: "a comparison beside the recorded ones", edit: func(r *Request) { r.Compare, r.AgainstRecorded = "onyx", true }, strategies: []string{"onyx"}, overhead: true},
		{name: "an overhead given", edit: func(r *Request) { r.SystemOverheadSet = true }, strategies: []string{strategy.NameStagewise}},
		{name: "a sweep", edit: func(r *Request) { r.Sweep = "context_window=1000:3000:1000" }, strategies: []string{strategy.NameStagewise}, overhead: true, sweep: true},
		{name: "a price model", edit: func(r *Request) { r.PriceModel = "gpt-5.4-nano" }, strategies: []string{strategy.NameStagewise}, overhead: true, priceModel: "gpt-5.4-nano"},
		{name: "a model summarizing", edit: func(r *Request) { r.Summarizer = "model:claude-haiku-4.5" }, strategies: []string{strategy.NameStagewise}, overhead: true, summarizer: "claude-haiku-4.5"},
		{name: "the builtin model summarizing", edit: func(r *Request) { r.Summarizer = "model:builtin" }, strategies: []string{strategy.NameStagewise}, overhead: true},
		{name: "an unknown price model", edit: func(r *Request) { r.PriceModel = "gpt-9" }, err: `--price-model: unknown model "gpt-9" (known: `},
		{name: "an unknown strategy", edit: func(r *Request) { r.Strategy = "nope" }, err: "nope"},
		{name: "an unknown strategy compared", edit: func(r *Request) { r.Compare = "onyx,nope" }, err: "--compare: "},
		{name: "a sweep of nothing", edit: func(r *Request) { r.Sweep = "nothing=1" }, err: "--sweep: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			so, err := request(tc.edit).Options(ms)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(so.Strategies, tc.strategies) || so.Compare != tc.compare || so.RecordedOverhead != tc.overhead || (so.Sweep != nil) != tc.sweep {
				t.Errorf("options %+v", so)
			}
			if len(so.Pricing.Models) != len(ms) || so.Pricing.Model != tc.priceModel || so.Pricing.Summarizer != tc.summarizer {
				t.Errorf("pricing: model %q, summarizer %q; want %q, %q", so.Pricing.Model, so.Pricing.Summarizer, tc.priceModel, tc.summarizer)
			}
		})
	}
}

func TestNewSummarizerLoadsTheCascadeOnlyForAModel(t *testing.T) {
	st, err := config.LoadEnv("", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	loads := 0
	load := func() (*cascade.Cascade, error) {
		loads++
		return cascade.Load(st, func(string) string { return "" })
	}
	for _, tc := range []struct {
		spec, name string
		kind       string
		loads      int
		err        string
	}{
		{spec: "builtin", name: "builtin", kind: "strategy.Builtin"},
		{spec: "model:builtin", name: "builtin", kind: "strategy.Builtin"},
		{spec: "recorded", name: "recorded", kind: "strategy.Recorded"},
		{spec: "cascade", name: "cascade", kind: "*simulate.CascadeSummarizer", loads: 1},
		{spec: "model:gpt-5.4-nano", name: "model:gpt-5.4-nano", kind: "*simulate.CascadeSummarizer", loads: 1},
		{spec: "model:gpt-9", loads: 1, err: `--summarizer: unknown model "gpt-9" (known: `},
		{spec: "someone", err: `--summarizer: want builtin, recorded, model:ID or cascade, not "someone"`},
	} {
		loads = 0
		s, name, err := NewSummarizer(tc.spec, load)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) || s != nil {
				t.Errorf("%s: %v, %v; want the error %q", tc.spec, s, err, tc.err)
			}
		} else if err != nil || name != tc.name || typeName(s) != tc.kind {
			t.Errorf("%s: %s %q, %v; want %s %q", tc.spec, typeName(s), name, err, tc.kind, tc.name)
		}
		if loads != tc.loads {
			t.Errorf("%s: the cascade loaded %d times, want %d", tc.spec, loads, tc.loads)
		}
	}
	failed := errors.New("config: broken")
	if _, _, err := NewSummarizer("cascade", func() (*cascade.Cascade, error) { return nil, failed }); err != failed {
		t.Errorf("a cascade that does not load: %v", err)
	}
}

func typeName(s strategy.Summarizer) string {
	switch s.(type) {
	case strategy.Builtin:
		return "strategy.Builtin"
	case strategy.Recorded:
		return "strategy.Recorded"
	case *CascadeSummarizer:
		return "*simulate.CascadeSummarizer"
	}
	return "?"
}

func TestAgentSessions(t *testing.T) {
	in := func(source string) *Input { return &Input{History: &convo.History{Source: source}} }
	for _, tc := range []struct {
		inputs []*Input
		want   bool
	}{
		{nil, false},
		{[]*Input{in(convo.SourceStagewise), in(convo.SourceJSONL)}, false},
		{[]*Input{in(convo.SourceJSONL), in("claude-code")}, true},
	} {
		if got := AgentSessions(tc.inputs); got != tc.want {
			t.Errorf("AgentSessions(%d inputs) = %v, want %v", len(tc.inputs), got, tc.want)
		}
	}
}
