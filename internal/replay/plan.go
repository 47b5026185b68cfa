package replay

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/prompt"
)

// ServerTimeout is each bundle's time budget on an OpenAI-compatible
// server when neither PlanOptions.Timeout nor cascade.timeout says
// otherwise: a local model reading a long history and writing a briefing
// takes minutes, not the 30 s the hosted cascade allows.
const ServerTimeout = 5 * time.Minute

// PlanOptions say what a replay sends through: a model of the table, an
// OpenAI-compatible server, or the cascade. The plan's errors name them as
// compact replay's flags do (--model, --base-url, --api-model,
// --fallback-model, --timeout).
type PlanOptions struct {
	// Config is the configuration the cascade is loaded from (nil: the
	// defaults and the environment).
	Config *config.Store
	// Getenv reads the keys and the environment (nil: os.Getenv).
	Getenv func(string) string
	// Profile is the upstream profile whose cascade and abort grace apply
	// (internal/upstream; "": the configuration's).
	Profile string
	// Wire, when set, is called on the cascade once it is loaded: it
	// connects the builtin model to its briefing writer.
	Wire func(*cascade.Cascade)
	// Generator, when set, is sent through instead of the configured
	// cascade, which is not loaded (tests).
	Generator Generator

	// Model is a model of the table, or the name of a server configured
	// as providers.NAME; BaseURL a server given by its URL; neither: the
	// cascade.
	Model   string
	BaseURL string
	// APIModel is the model a server is asked for.
	APIModel string
	// Fallback is, with the cascade, the chat's own model, tried last.
	Fallback string
	// Timeout is each bundle's budget (0: cascade.timeout, or
	// ServerTimeout on a server when cascade.timeout is not configured).
	Timeout time.Duration
}

// Plan is what a replay sends through and to which models.
type Plan struct {
	Gen Generator
	// Cascade is the configured cascade; nil when a Generator was given.
	Cascade *cascade.Cascade
	// Order is the models, tried in turn.
	Order []string
	// Run is the default run name: the model's, or "cascade".
	Run string
	// Single: one model was asked for (not the cascade).
	Single bool
}

// NewPlan loads the cascade and picks the models from o.
func NewPlan(o PlanOptions) (*Plan, error) {
	if o.Generator != nil {
		p := &Plan{Gen: o.Generator, Order: []string{"cascade"}, Run: "cascade"}
		if o.Model != "" {
			p.Order, p.Run, p.Single = []string{o.Model}, o.Model, true
		}
		return p, nil
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	st := o.Config
	if st == nil {
		var err error
		if st, err = config.LoadEnv("", getenv); err != nil {
			return nil, err
		}
	}
	profile := o.Profile
	if profile == "" {
		profile = st.String("profile")
	}
	c, err := cascade.LoadFor(st, getenv, profile)
	if err != nil {
		return nil, err
	}
	if o.Wire != nil {
		o.Wire(c)
	}
	p := &Plan{Gen: c, Cascade: c, Single: true}
	server := false
	switch {
	case o.BaseURL != "":
		if strings.TrimSpace(o.APIModel) == "" {
			return nil, fmt.Errorf("--base-url needs --api-model NAME, the model the server is to run (e.g. qwen2.5-coder:7b)")
		}
		pc, err := cascade.ServerConfig(o.BaseURL, getenv)
		if err != nil {
			return nil, fmt.Errorf("--base-url: %v", err)
		}
		id, err := c.UseServer(pc, o.APIModel)
		if err != nil {
			return nil, fmt.Errorf("--base-url: %v", err)
		}
		p.Order, p.Run, server = []string{id}, RunNameFor(id), true
	case o.Model != "":
		if m, ok := c.Models.Lookup(o.Model); ok {
			if o.APIModel != "" {
				return nil, fmt.Errorf("--api-model goes with --base-url or with --model naming a configured server; %s is a model of the table (api model %s)", m.ID, m.APIModel)
			}
			p.Order, p.Run = []string{m.ID}, m.ID
			server = c.LocalServer(m.Provider)
			break
		}
		id, err := serverModel(c, o.Model, o.APIModel)
		if err != nil {
			return nil, err
		}
		p.Order, p.Run, server = []string{id}, RunNameFor(id), true
	default:
		if o.APIModel != "" {
			return nil, fmt.Errorf("--api-model goes with --base-url URL or with --model naming a configured server")
		}
		if o.Fallback != "" {
			if _, ok := c.Models.Lookup(o.Fallback); !ok {
				return nil, fmt.Errorf("--fallback-model: unknown model %q (known: %s)", o.Fallback, strings.Join(c.Models.IDs(), ", "))
			}
		}
		p.Order, p.Run, p.Single = c.Order(o.Fallback), "cascade", false
	}
	switch {
	case o.Timeout < 0:
		return nil, fmt.Errorf("--timeout: want a positive duration, got %v", o.Timeout)
	case o.Timeout > 0:
		c.Settings.Timeout = o.Timeout
	case server && st.Source("cascade"+config.Delim+"timeout") == "default":
		c.Settings.Timeout = ServerTimeout
	}
	return p, nil
}

// serverModel is the model id of apiModel on the server configured as
// providers.name; without apiModel, the one model the table has on it.
func serverModel(c *cascade.Cascade, name, apiModel string) (string, error) {
	prov, ok := c.Providers[name]
	if !ok || prov.Kind() != cascade.KindOpenAICompatible {
		return "", fmt.Errorf("--model: unknown model %q (known: %s)", name, strings.Join(ModelChoices(c), ", "))
	}
	if apiModel == "" {
		var on []string
		for _, m := range c.Models {
			if m.Provider == name {
				on = append(on, m.APIModel)
			}
		}
		if len(on) != 1 {
			return "", fmt.Errorf("--model %s is a server: add --api-model NAME, the model it is to run", name)
		}
		apiModel = on[0]
	}
	id, err := c.ServerModel(name, apiModel)
	if err != nil {
		return "", fmt.Errorf("--model %s: %v", name, err)
	}
	return id, nil
}

// CheckKeys leaves out of the plan the models whose provider has no key
// and returns them. When none is left it fails, naming the variables
// that would give the keys, and changes nothing. A plan on a Generator
// has no keys to check.
func (p *Plan) CheckKeys() ([]cascade.MissingKey, error) {
	if p.Cascade == nil {
		return nil, nil
	}
	ready, missing := p.Cascade.SplitByKey(p.Order)
	if len(ready) == 0 && len(missing) > 0 {
		what := "any model of the cascade"
		if p.Single {
			what = missing[0].Model
		}
		return missing, fmt.Errorf("no API key for %s: set %s", what, cascade.KeyVars(missing, !p.Single))
	}
	p.Order = ready
	return missing, nil
}

// ModelChoices lists what a plan's Model takes: the table's ids and the
// configured openai-compatible servers.
func ModelChoices(c *cascade.Cascade) []string {
	out := c.Models.IDs()
	var servers []string
	for name, p := range c.Providers {
		if p.Kind() == cascade.KindOpenAICompatible {
			if _, ok := c.Models.Lookup(name); !ok {
				servers = append(servers, name)
			}
		}
	}
	sort.Strings(servers)
	return append(out, servers...)
}

// RunNameFor makes a model name a run directory name: characters other
// than letters, digits, ".", "_", "+" and "-" become "-" (qwen2.5-coder:7b
// gives qwen2.5-coder-7b).
func RunNameFor(model string) string {
	b := []byte(model)
	for i, ch := range b {
		ok := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("._+-", ch) >= 0
		if !ok {
			b[i] = '-'
		}
	}
	name := strings.TrimLeft(string(b), ".-")
	if name == "" {
		return "local"
	}
	return name
}

// Totals add up a replay's items.
type Totals struct {
	Bundles int `json:"bundles"`
	// Replays counts the items when bundles were replayed more than once
	// (--repeat): Bundles is then the bundles, Replays their repeats, and
	// the other counts are of replays.
	Replays      int     `json:"replays,omitempty"`
	OK           int     `json:"ok"`
	Failed       int     `json:"failed"`
	Skipped      int     `json:"skipped"`
	Errors       int     `json:"errors"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	CostUSD      float64 `json:"costUsd"`
}

// Tally adds up the items: how many of each status, the tokens and the
// cost.
func Tally(items []Item) Totals {
	t := Totals{Bundles: len(items)}
	bundles := map[string]bool{}
	for _, it := range items {
		if it.Run != "" {
			bundles[it.Bundle] = true
		}
		switch it.Status {
		case StatusOK:
			t.OK++
		case StatusFailed:
			t.Failed++
		case StatusSkipped:
			t.Skipped++
		default:
			t.Errors++
		}
		t.InputTokens += it.Usage.InputTokens
		t.OutputTokens += it.Usage.OutputTokens
		t.CostUSD = cascade.RoundUSD(t.CostUSD + it.CostUSD)
	}
	if len(bundles) > 0 {
		t.Bundles, t.Replays = len(bundles), len(items)
	}
	return t
}

// DryBundle is what a dry run would send for one bundle: the requests to
// each model in turn, or why the bundle's request could not be built.
type DryBundle struct {
	Bundle string `json:"bundle"`
	// Runs are the runs the request would be sent for, when more than
	// one (--repeat): the same request, sent once for each.
	Runs     []string         `json:"runs,omitempty"`
	Requests []cascade.DryRun `json:"requests"`
	Error    string           `json:"error,omitempty"`
}

// DryRun describes what would be sent for each bundle, sending nothing.
func DryRun(gen Generator, bundles, order []string, pack *prompt.Pack, packName, locale string) []DryBundle {
	var all []DryBundle
	for _, b := range bundles {
		req, err := BuildRequest(b, pack, packName, locale)
		if err != nil {
			all = append(all, DryBundle{Bundle: b, Error: err.Error()})
			continue
		}
		all = append(all, DryBundle{Bundle: b, Requests: gen.Describe(req.Input, order)})
	}
	return all
}
