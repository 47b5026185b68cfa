package replay

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
)

// planConfig is the configuration of the plan tests: the defaults, a
// server configured as providers.lab with one model of the table on it,
// and what extra adds.
func planConfig(t *testing.T, extra string, env map[string]string) (*config.Store, func(string) string) {
	t.Helper()
	getenv := func(k string) string { return env[k] }
	path := filepath.Join(t.TempDir(), "compact.yaml")
	yaml := "providers:\n  lab:\n    kind: openai-compatible\n    base_url: http://127.0.0.1:9/v1\n" +
		"extra_models:\n  - id: lab-llama\n    provider: lab\n    api_model: llama-3.1-8b\n    price_in_per_mtok: 0\n" + extra
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := config.LoadEnv(path, getenv)
	if err != nil {
		t.Fatal(err)
	}
	return st, getenv
}

func TestNewPlanPicksTheModelsAndTheRunName(t *testing.T) {
	cascadeOrder := []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"}
	for _, tc := range []struct {
		name    string
		o       PlanOptions
		order   []string
		run     string
		single  bool
		timeout time.Duration
		err     string
	}{
		{name: "the cascade by default", order: cascadeOrder, run: "cascade", timeout: 30 * time.Second},
		{name: "the chat's model last", o: PlanOptions{Fallback: "gpt-5.4"}, order: append(slices.Clone(cascadeOrder), "gpt-5.4"), run: "cascade", timeout: 30 * time.Second},
		{name: "a fallback already in the list", o: PlanOptions{Fallback: "gpt-5.4-nano"}, order: cascadeOrder, run: "cascade", timeout: 30 * time.Second},
		{name: "an unknown fallback", o: PlanOptions{Fallback: "gpt-9"}, err: `--fallback-model: unknown model "gpt-9" (known: `},
		{name: "a model of the table", o: PlanOptions{Model: "builtin"}, order: []string{"builtin"}, run: "builtin", single: true, timeout: 30 * time.Second},
		{name: "a model of the table on a server", o: PlanOptions{Model: "lab-llama"}, order: []string{"lab-llama"}, run: "lab-llama", single: true, timeout: ServerTimeout},
		{name: "a server's one model", o: PlanOptions{Model: "lab"}, order: []string{"lab-llama"}, run: "lab-llama", single: true, timeout: ServerTimeout},
		{name: "a server by URL", o: PlanOptions{BaseURL: "http://127.0.0.1:8080/v1", APIModel: "qwen2.5-coder:7b"}, run: "qwen2.5-coder-7b", single: true, timeout: ServerTimeout},
		{name: "a server by URL, with a timeout", o: PlanOptions{BaseURL: "http://127.0.0.1:8080/v1", APIModel: "qwen", Timeout: 2 * time.Minute}, run: "qwen", single: true, timeout: 2 * time.Minute},
		{name: "a timeout for the cascade", o: PlanOptions{Timeout: time.Minute}, order: cascadeOrder, run: "cascade", timeout: time.Minute},
		{name: "an unknown model", o: PlanOptions{Model: "nope"}, err: `--model: unknown model "nope" (known: gemini-3.1-flash-lite,`},
		{name: "an api model for a model of the table", o: PlanOptions{Model: "builtin", APIModel: "x"}, err: "--api-model goes with --base-url or with --model naming a configured server; builtin is a model of the table"},
		{name: "an api model alone", o: PlanOptions{APIModel: "x"}, err: "--api-model goes with --base-url URL or with --model naming a configured server"},
		{name: "a URL without its model", o: PlanOptions{BaseURL: "http://127.0.0.1:8080/v1", APIModel: " "}, err: "--base-url needs --api-model NAME"},
		{name: "a negative timeout", o: PlanOptions{Timeout: -time.Second}, err: "--timeout: want a positive duration, got -1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Config, o.Getenv = planConfig(t, "", nil)
			p, err := NewPlan(o)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to start with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.order != nil && !slices.Equal(p.Order, tc.order) {
				t.Errorf("order = %v, want %v", p.Order, tc.order)
			}
			if len(p.Order) == 0 || p.Run != tc.run || p.Single != tc.single || p.Gen != p.Cascade || p.Cascade == nil {
				t.Errorf("plan = %+v, want run %q, single %v, the cascade as generator", p, tc.run, tc.single)
			}
			if got := p.Cascade.Settings.Timeout; got != tc.timeout {
				t.Errorf("timeout = %v, want %v", got, tc.timeout)
			}
		})
	}
}

// A cascade.timeout the configuration sets is kept on a server; the
// unknown model's message lists the configured servers after the table.
func TestNewPlanKeepsAConfiguredTimeoutOnAServer(t *testing.T) {
	st, getenv := planConfig(t, "cascade:\n  timeout: 45s\n", nil)
	p, err := NewPlan(PlanOptions{Config: st, Getenv: getenv, Model: "lab"})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Cascade.Settings.Timeout; got != 45*time.Second {
		t.Errorf("timeout = %v, want the configured 45s", got)
	}
	if got := ModelChoices(p.Cascade); got[len(got)-1] != "lab" || !slices.Contains(got, "builtin") {
		t.Errorf("choices = %v, want the table then lab", got)
	}
}

func TestNewPlanWiresTheCascadeOrUsesTheGenerator(t *testing.T) {
	st, getenv := planConfig(t, "", nil)
	var wired *cascade.Cascade
	p, err := NewPlan(PlanOptions{Config: st, Getenv: getenv, Wire: func(c *cascade.Cascade) { wired = c }})
	if err != nil || wired == nil || wired != p.Cascade {
		t.Errorf("wired %p, plan %+v, %v", wired, p, err)
	}
	gen := &fakeGen{}
	for _, tc := range []struct {
		model, run string
		single     bool
	}{{"", "cascade", false}, {"m1", "m1", true}} {
		p, err := NewPlan(PlanOptions{Generator: gen, Model: tc.model, Fallback: "not looked at"})
		if err != nil || p.Gen != gen || p.Cascade != nil || p.Run != tc.run || p.Single != tc.single || len(p.Order) != 1 || p.Order[0] != tc.run {
			t.Errorf("model %q: plan %+v, %v", tc.model, p, err)
		}
		if missing, err := p.CheckKeys(); missing != nil || err != nil {
			t.Errorf("model %q: a generator's plan has keys missing: %v %v", tc.model, missing, err)
		}
	}
}

func TestCheckKeysLeavesOutTheModelsWithoutAKey(t *testing.T) {
	for _, tc := range []struct {
		name    string
		model   string
		env     map[string]string
		order   []string
		missing []string
		err     string
	}{
		{name: "no key at all", env: nil,
			err: "no API key for any model of the cascade: set GOOGLE_API_KEY or GEMINI_API_KEY (gemini-3.1-flash-lite), OPENAI_API_KEY (gpt-5.4-nano) or ANTHROPIC_API_KEY (claude-haiku-4.5)"},
		{name: "one key", env: map[string]string{"OPENAI_API_KEY": "k"},
			order: []string{"gpt-5.4-nano"}, missing: []string{"gemini-3.1-flash-lite", "claude-haiku-4.5"}},
		{name: "every key", env: map[string]string{"GEMINI_API_KEY": "k", "OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"},
			order: []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"}},
		{name: "one model without its key", model: "claude-haiku-4.5",
			err: "no API key for claude-haiku-4.5: set ANTHROPIC_API_KEY"},
		{name: "the builtin model needs none", model: "builtin", order: []string{"builtin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, getenv := planConfig(t, "", tc.env)
			p, err := NewPlan(PlanOptions{Config: st, Getenv: getenv, Model: tc.model})
			if err != nil {
				t.Fatal(err)
			}
			before := slices.Clone(p.Order)
			missing, err := p.CheckKeys()
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if !slices.Equal(p.Order, before) {
					t.Errorf("a failed check changed the order: %v", p.Order)
				}
				return
			}
			var names []string
			for _, m := range missing {
				names = append(names, m.Model)
			}
			if err != nil || !slices.Equal(p.Order, tc.order) || !slices.Equal(names, tc.missing) {
				t.Errorf("order %v, missing %v, %v; want %v, %v", p.Order, names, err, tc.order, tc.missing)
			}
		})
	}
}

func TestRunNameFor(t *testing.T) {
	for in, want := range map[string]string{
		"qwen2.5-coder:7b":      "qwen2.5-coder-7b",
		"gpt-5.4-nano":          "gpt-5.4-nano",
		"org/model name+v2_x":   "org-model-name+v2_x",
		"../up":                 "up",
		".hidden":               "hidden",
		"::":                    "local",
		"":                      "local",
		"modèle":                "mod--le",
		"-dash-first.and-dots.": "dash-first.and-dots.",
	} {
		if got := RunNameFor(in); got != want {
			t.Errorf("RunNameFor(%q) = %q, want %q", in, got, want)
		}
		if got := RunNameFor(in); ValidRunName(got) != nil {
			t.Errorf("RunNameFor(%q) = %q, not a valid run name", in, got)
		}
	}
}

func TestTallyAddsUpTheItems(t *testing.T) {
	items := []Item{
		{Status: StatusOK, Usage: Usage{InputTokens: 100, OutputTokens: 10}, CostUSD: 0.001234},
		{Status: StatusOK, Usage: Usage{InputTokens: 50, OutputTokens: 5}, CostUSD: 0.0005},
		{Status: StatusFailed, Usage: Usage{InputTokens: 7}, CostUSD: 0.0000004},
		{Status: StatusSkipped},
		{Status: StatusError},
	}
	want := Totals{Bundles: 5, OK: 2, Failed: 1, Skipped: 1, Errors: 1, InputTokens: 157, OutputTokens: 15, CostUSD: 0.001734}
	if got := Tally(items); got != want {
		t.Errorf("Tally = %+v, want %+v", got, want)
	}
	if got := Tally(nil); got != (Totals{}) {
		t.Errorf("Tally(nil) = %+v", got)
	}
}

func TestDryRunDescribesEachBundleOrSaysWhyNot(t *testing.T) {
	_, bundles := makeBundles(t, 1)
	st, getenv := planConfig(t, "", nil)
	p, err := NewPlan(PlanOptions{Config: st, Getenv: getenv, Model: "builtin"})
	if err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone")
	got := DryRun(p.Gen, []string{bundles[0], gone}, p.Order, nil, "", "")
	if len(got) != 2 || got[0].Bundle != bundles[0] || got[0].Error != "" || len(got[0].Requests) != 1 || got[0].Requests[0].Model != "builtin" {
		t.Fatalf("dry run = %+v", got)
	}
	if got[1].Bundle != gone || got[1].Error == "" || got[1].Requests != nil {
		t.Errorf("missing bundle: %+v", got[1])
	}
}
