package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/replay"
)

// judgeModel is the replay plan options of a judge: the defaults, a
// builtin model under another name, and env's keys.
func judgeModel(t *testing.T, env map[string]string) replay.PlanOptions {
	t.Helper()
	getenv := func(k string) string { return env[k] }
	path := filepath.Join(t.TempDir(), "compact.yaml")
	yaml := "extra_models:\n  - id: offline\n    provider: builtin\n    api_model: offline\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := config.LoadEnv(path, getenv)
	if err != nil {
		t.Fatal(err)
	}
	return replay.PlanOptions{Config: st, Getenv: getenv}
}

func TestPlanJudgeRefusesWhatNoJudgeCanDo(t *testing.T) {
	badPack := t.TempDir()
	for _, tc := range []struct {
		name string
		o    JudgePlanOptions
		err  string
	}{
		{"an api model without a judge", JudgePlanOptions{Model: replay.PlanOptions{APIModel: "x"}}, "eval: --judge-api-model goes with --judge MODEL or --judge-base-url URL"},
		{"a pack without a judge", JudgePlanOptions{Pack: "dir"}, "eval: --judge-pack goes with --judge MODEL or --judge-base-url URL"},
		{"a run without a judge", JudgePlanOptions{Run: "r"}, "eval: --judge-run goes with --judge MODEL or --judge-base-url URL"},
		{"a timeout without a judge", JudgePlanOptions{Model: replay.PlanOptions{Timeout: time.Second}}, "eval: --judge-timeout goes with --judge MODEL or --judge-base-url URL"},
		{"a batch without a judge", JudgePlanOptions{Batch: true}, "eval: --batch goes with --judge MODEL: it sends the judge's calls through the provider's batch API"},
		{"a batch on a server", JudgePlanOptions{Model: replay.PlanOptions{BaseURL: "http://127.0.0.1:9/v1", APIModel: "q"}, Batch: true, Questions: 1}, "eval: --batch goes with --judge MODEL: a server (--judge-base-url) has no batch API"},
		{"the builtin model", JudgePlanOptions{Model: replay.PlanOptions{Model: "builtin"}, Questions: 1, Known: func() []string { return []string{"a", "b"} }},
			"eval: --judge builtin: the built-in model writes briefings and cannot answer questions; judge with a model of the table (a, b) or a local server (--judge-base-url URL --judge-api-model NAME)"},
		{"no question", JudgePlanOptions{Model: replay.PlanOptions{Model: "gpt-5.4-nano"}}, "eval: --judge-questions: want at least 1, got 0"},
		{"a pack that is not one", JudgePlanOptions{Model: replay.PlanOptions{Model: "gpt-5.4-nano"}, Questions: 1, Pack: badPack}, "eval: --judge-pack: "},
		{"an unknown model, in the judge's words", JudgePlanOptions{Model: replay.PlanOptions{Model: "nope"}, Questions: 1}, `eval: --judge: unknown model "nope"`},
		{"a URL without its model, in the judge's words", JudgePlanOptions{Model: replay.PlanOptions{BaseURL: "http://127.0.0.1:9/v1"}, Questions: 1}, "eval: --judge-base-url needs --judge-api-model NAME"},
		{"a negative timeout, in the judge's words", JudgePlanOptions{Model: replay.PlanOptions{Model: "gpt-5.4-nano", Timeout: -time.Second}, Questions: 1}, "eval: --judge-timeout: want a positive duration"},
		{"a builtin model by another name", JudgePlanOptions{Model: replay.PlanOptions{Model: "offline"}, Questions: 1}, "eval: --judge offline: the built-in model cannot answer questions; pick another model"},
		{"no key", JudgePlanOptions{Model: replay.PlanOptions{Model: "gpt-5.4-nano"}, Questions: 1},
			"eval: no API key for the judge gpt-5.4-nano: set OPENAI_API_KEY; or judge with a local server (--judge-base-url URL --judge-api-model NAME)"},
		{"a run name that is not one", JudgePlanOptions{Model: replay.PlanOptions{BaseURL: "http://127.0.0.1:9/v1", APIModel: "q"}, Questions: 1, Run: "../x"}, "eval: --judge-run: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			m := judgeModel(t, nil)
			o.Model.Config, o.Model.Getenv = m.Config, m.Getenv
			judge, cs, err := PlanJudge(o)
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) || judge != nil || cs != nil {
				t.Errorf("PlanJudge = %v, %v, %v; want the error %q", judge, cs, err, tc.err)
			}
		})
	}
}

func TestPlanJudgeWithoutAJudgeIsNil(t *testing.T) {
	judge, cs, err := PlanJudge(JudgePlanOptions{Questions: 12})
	if judge != nil || cs != nil || err != nil {
		t.Errorf("PlanJudge = %v, %v, %v; want nothing", judge, cs, err)
	}
}

func TestPlanJudgeBuildsTheJudge(t *testing.T) {
	for _, tc := range []struct {
		name          string
		model         replay.PlanOptions
		run, wantRun  string
		judge         string
		timeout       time.Duration
		env           map[string]string
		knownCalled   bool
		wantQuestions int
	}{
		{name: "a model of the table", model: replay.PlanOptions{Model: "gpt-5.4-nano"}, env: map[string]string{"OPENAI_API_KEY": "k"},
			wantRun: "gpt-5.4-nano", judge: "gpt-5.4-nano", timeout: 30 * time.Second},
		{name: "a server, with a run name", model: replay.PlanOptions{BaseURL: "http://127.0.0.1:9/v1", APIModel: "qwen2.5:14b", Timeout: time.Minute},
			run: "mine", wantRun: "mine", timeout: time.Minute},
		{name: "a server", model: replay.PlanOptions{BaseURL: "http://127.0.0.1:9/v1", APIModel: "qwen2.5:14b"},
			wantRun: "qwen2.5-14b", timeout: replay.ServerTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := judgeModel(t, tc.env)
			m.Model, m.BaseURL, m.APIModel, m.Timeout = tc.model.Model, tc.model.BaseURL, tc.model.APIModel, tc.model.Timeout
			known := false
			judge, cs, err := PlanJudge(JudgePlanOptions{Model: m, Questions: 7, Run: tc.run, Known: func() []string { known = true; return nil }})
			if err != nil {
				t.Fatal(err)
			}
			if known {
				t.Error("the models a judge can be were listed for nothing")
			}
			if judge.Run != tc.wantRun || judge.MaxQuestions != 7 || judge.Pack == nil {
				t.Errorf("judge = %+v, want run %q, 7 questions, the default pack", judge, tc.wantRun)
			}
			if len(judge.Order) != 1 || judge.Judge != judge.Order[0] || (tc.judge != "" && judge.Judge != tc.judge) {
				t.Errorf("judge %q, order %v", judge.Judge, judge.Order)
			}
			if g, ok := judge.Model.(*cascade.Cascade); !ok || g != cs {
				t.Errorf("the judge's model is not its cascade: %T", judge.Model)
			}
			if cs.Settings.MinOutputChars != 1 || cs.Settings.Temperature != 0 || cs.Settings.Timeout != tc.timeout {
				t.Errorf("cascade settings: min %d, temperature %v, timeout %v; want 1, 0, %v",
					cs.Settings.MinOutputChars, cs.Settings.Temperature, cs.Settings.Timeout, tc.timeout)
			}
		})
	}
}

func TestNothingToScoreSaysWhy(t *testing.T) {
	probe := Probe{}
	full := []*BundleResult{
		{Bundle: "b1", Probes: []Probe{probe}, Briefings: []BriefingScore{{Name: Actual}, {Name: "builtin"}}},
		{Bundle: "b2", Probes: []Probe{probe}, Briefings: []BriefingScore{{Name: Actual}}},
	}
	noProbes := []*BundleResult{{Bundle: "b1", Briefings: []BriefingScore{{Name: Actual}}}}
	noBriefings := []*BundleResult{{Bundle: "b1", Probes: []Probe{probe}}}
	for _, tc := range []struct {
		name     string
		bundles  int
		results  []*BundleResult
		runs     []string
		baseline string
		err      string
		found    bool
	}{
		{name: "something to score", bundles: 2, results: full, runs: []string{"builtin"}, baseline: Actual},
		{name: "nothing read", bundles: 3, err: "eval: none of the 3 bundles could be read (each is named above); pass bundles that hold a compact-history.xml"},
		{name: "a run no bundle has", bundles: 2, results: full, runs: []string{"builtin", "gpt"}, found: true,
			err: `eval: no replay run "gpt" with an answer in 2 bundles; runs found: builtin, other`},
		{name: "a baseline no bundle has", bundles: 2, results: full, baseline: "gpt",
			err: "eval: --baseline gpt: no such briefing in 2 bundles (have: actual, builtin)"},
		{name: "no probes", bundles: 1, results: noProbes,
			err: "eval: no probes in 1 bundle: their compacted histories name no files, failures, decisions or requests"},
		{name: "no briefing", bundles: 1, results: noBriefings,
			err: "eval: nothing to score in 1 bundle: no actual-output.md and no replay with an answer; make one with `compact replay --model builtin`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			called := false
			found := func() string { called = true; return "builtin, other" }
			err := NothingToScore(tc.bundles, tc.results, tc.runs, tc.baseline, found)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
				t.Errorf("err = %v, want %q", err, tc.err)
			}
			if called != tc.found {
				t.Errorf("runs found listed: %v, want %v", called, tc.found)
			}
		})
	}
}
