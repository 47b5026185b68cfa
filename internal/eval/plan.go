package eval

import (
	"fmt"
	"sort"
	"strings"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/replay"
)

// JudgePlanOptions say which model judges and how. The plan's errors name
// them as compact eval's flags do (--judge, --judge-base-url,
// --judge-api-model, --judge-pack, --judge-questions, --judge-run,
// --judge-repeat, --judge-timeout, --batch).
type JudgePlanOptions struct {
	// Model is the judge's model, planned as a replay's one model: Model
	// (a model of the table or a configured server) or BaseURL, with
	// APIModel and Timeout; Config, Getenv and Wire load the cascade. No
	// model and no BaseURL: no judge.
	Model replay.PlanOptions
	// Pack is the directory of a judge pack ("": the built-in one).
	Pack string
	// Questions bounds the questions per bundle.
	Questions int
	// Run names the judge's record (default: the judge model's run name).
	Run string
	// Repeats is how many times each bundle is judged (JudgeOptions.
	// Repeats), 1 to replay.MaxRepeat; 0 is 1 (see CheckJudgeRepeat).
	Repeats int
	// Batch: the calls go through the provider's batch API.
	Batch bool
	// Known lists the models a judge can be, for the error that refuses
	// the builtin model (called only then).
	Known func() []string
}

// PlanJudge builds the judge from o: which model, which pack, whether its
// key is set. Without a model it is nil, and an option that only a judge
// takes is an error. The cascade returned is the judge's, tuned for it
// (TuneJudgeCascade); the caller gives it its response cache.
func PlanJudge(o JudgePlanOptions) (*JudgeOptions, *cascade.Cascade, error) {
	m := o.Model
	if o.Repeats == 0 {
		o.Repeats = 1
	}
	if err := CheckJudgeRepeat(o.Repeats); err != nil {
		return nil, nil, err
	}
	if m.Model == "" && m.BaseURL == "" {
		for _, fl := range []struct {
			set  bool
			name string
		}{{m.APIModel != "", "--judge-api-model"}, {o.Pack != "", "--judge-pack"}, {o.Run != "", "--judge-run"}, {o.Repeats > 1, "--judge-repeat"}, {m.Timeout != 0, "--judge-timeout"}} {
			if fl.set {
				return nil, nil, fmt.Errorf("eval: %s goes with --judge MODEL or --judge-base-url URL", fl.name)
			}
		}
		if o.Batch {
			return nil, nil, fmt.Errorf("eval: --batch goes with --judge MODEL: it sends the judge's calls through the provider's batch API")
		}
		return nil, nil, nil
	}
	if o.Batch && m.Model == "" {
		return nil, nil, fmt.Errorf("eval: --batch goes with --judge MODEL: a server (--judge-base-url) has no batch API")
	}
	if o.Batch && o.Repeats > 1 {
		return nil, nil, fmt.Errorf("eval: --batch does not take --judge-repeat: judge the repeats without --batch (each a call of its own at the full price), or once with it")
	}
	if m.Model == "builtin" {
		var known []string
		if o.Known != nil {
			known = o.Known()
		}
		return nil, nil, fmt.Errorf("eval: --judge builtin: the built-in model writes briefings and cannot answer questions; judge with a model of the table (%s) or a local server (--judge-base-url URL --judge-api-model NAME)", strings.Join(known, ", "))
	}
	if o.Questions < 1 {
		return nil, nil, fmt.Errorf("eval: --judge-questions: want at least 1, got %d", o.Questions)
	}
	pack := DefaultJudgePack()
	if o.Pack != "" {
		p, err := LoadJudgePack(o.Pack)
		if err != nil {
			return nil, nil, fmt.Errorf("eval: --judge-pack: %v", err)
		}
		pack = p
	}
	plan, err := replay.NewPlan(m)
	if err != nil {
		// The plan names replay's flags; the judge's are these.
		msg := err.Error()
		for _, pair := range [][2]string{{"--base-url", "--judge-base-url"}, {"--api-model", "--judge-api-model"}, {"--model", "--judge"}, {"--timeout", "--judge-timeout"}} {
			msg = strings.ReplaceAll(msg, pair[0], pair[1])
		}
		return nil, nil, fmt.Errorf("eval: %s", msg)
	}
	run := o.Run
	if run == "" {
		run = plan.Run
	}
	if err := replay.ValidRunName(run); err != nil {
		return nil, nil, fmt.Errorf("eval: --judge-run: %v", err)
	}
	if base, i := replay.RepeatOf(run); o.Repeats > 1 && i > 1 {
		return nil, nil, fmt.Errorf("eval: --judge-repeat: the judge run %s is already repeat %d of %s; give the base name (--judge-run %s)", run, i, base, base)
	}
	if cs := plan.Cascade; cs != nil {
		for _, id := range plan.Order {
			if m, ok := cs.Models.Lookup(id); ok && cs.Providers[m.Provider] != nil && cs.Providers[m.Provider].Kind() == cascade.KindBuiltin {
				return nil, nil, fmt.Errorf("eval: --judge %s: the built-in model cannot answer questions; pick another model", id)
			}
		}
		ready, missing := cs.SplitByKey(plan.Order)
		if len(ready) == 0 {
			return nil, nil, fmt.Errorf("eval: no API key for the judge %s: set %s; or judge with a local server (--judge-base-url URL --judge-api-model NAME)", missing[0].Model, cascade.KeyVars(missing, false))
		}
		// A judge answers tersely ("Q1: not in the briefing"), and is
		// asked for its most likely answer.
		TuneJudgeCascade(cs)
	}
	return &JudgeOptions{Model: plan.Gen, Order: plan.Order, Judge: plan.Order[0], Pack: pack, MaxQuestions: o.Questions, Run: run, Repeats: o.Repeats}, plan.Cascade, nil
}

// CheckJudgeRepeat checks --judge-repeat k: 1 to replay.MaxRepeat
// judgings of each bundle.
func CheckJudgeRepeat(k int) error {
	if k < 1 || k > replay.MaxRepeat {
		return fmt.Errorf("eval: --judge-repeat: want 1 to %d judgings of each bundle, got %d", replay.MaxRepeat, k)
	}
	return nil
}

// NothingToScore says why there is nothing to evaluate, nil when there
// is something: no bundle could be read (results is empty), none has a
// probe, no briefing to score, or a run or baseline named that no bundle
// has. bundles is how many were read; runsFound lists the replay runs
// under them, for the message on a run not found (called only then).
func NothingToScore(bundles int, results []*BundleResult, runs []string, baseline string, runsFound func() string) error {
	where := plural(bundles, "bundle")
	if len(results) == 0 {
		return fmt.Errorf("eval: none of the %s could be read (each is named above); pass bundles that hold a %s", where, bundle.FileCompact)
	}
	probes, briefings := 0, 0
	have := map[string]bool{}
	for _, r := range results {
		probes += len(r.Probes)
		for _, b := range r.Briefings {
			briefings++
			have[b.Name] = true
		}
	}
	for _, r := range runs {
		if !have[r] {
			return fmt.Errorf("eval: no replay run %q with an answer in %s; runs found: %s", r, where, runsFound())
		}
	}
	if baseline != "" && !have[baseline] {
		var names []string
		for n := range have {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Errorf("eval: --baseline %s: no such briefing in %s (have: %s)", baseline, where, strings.Join(names, ", "))
	}
	if probes == 0 {
		return fmt.Errorf("eval: no probes in %s: their compacted histories name no files, failures, decisions or requests", where)
	}
	if briefings == 0 {
		return fmt.Errorf("eval: nothing to score in %s: no %s and no replay with an answer; make one with `compact replay --model builtin`", where, bundle.FileActual)
	}
	return nil
}
