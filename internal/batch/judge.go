package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/replay"
)

// A judge run (compact eval --judge MODEL --batch) takes the judge's two
// steps through the providers' batch APIs. Each bundle's answer requests,
// one per briefing, are queued at submit; each answer collected is kept in
// items/judge/<n>.json; once a bundle's answers are all in, its grade
// request is queued, built from them, and goes out with the next submit
// (the same collect); the collected grade writes the bundle's record,
// <bundle>/judge/<run>.json, as the interactive judge writes it. Every
// request is the interactive judge's, byte for byte, and shares its
// response cache key: answers in the cache are not sent, and every answer
// collected goes into the cache, so that compact eval --judge afterwards
// sends nothing.

// Parts of a judge run's requests.
const (
	partAnswer = "answer"
	partGrade  = "grade"
)

// scratchTmp starts the temporary names of items/judge/<n>.json.
const scratchTmp = ".tmp-"

// JudgeOptions of a judge run.
type JudgeOptions struct {
	// Root is the directory the bundles were found under: the run's state
	// goes to Root/.batches/<JudgeRun(Run)>/.
	Root string
	// Run names the judge's records, <bundle>/judge/<Run>.json.
	Run     string
	Bundles []string
	// Models are the judge's model, then any to fall back to.
	Models []string
	// Judge names the judge in the records.
	Judge string
	// Pack is the judge pack (nil: the built-in one), PackDir the
	// directory it was read from ("" for the built-in one).
	Pack    *eval.JudgePack
	PackDir string
	// MaxQuestions and Runs are eval's: the questions per bundle, and the
	// replay runs judged (all when empty).
	MaxQuestions int
	Runs         []string
	ToolVersion  string
	Settings     Settings
	Now          func() time.Time
	Progress     func(string)
}

// JudgeRun is the batch run of the judge's records run: judge-<run>,
// beside the replay runs.
func JudgeRun(run string) string { return "judge-" + run }

func (o JudgeOptions) spec() (*JudgeSpec, *eval.JudgePack) {
	pack := o.Pack
	if pack == nil {
		pack = eval.DefaultJudgePack()
	}
	return &JudgeSpec{Run: o.Run, Judge: o.Judge, Pack: o.PackDir, PackHash: pack.Hash(), MaxQuestions: o.MaxQuestions, Runs: o.Runs}, pack
}

// Judge moves a judge run on: while the run under Root has requests in
// batches, it collects what has ended (and submits what follows: the
// next tier's requests, the grades of the bundles whose answers are all
// in); otherwise it submits the run anew. The report's Pending is 0 once
// every bundle's record is written (or failed).
func Judge(ctx context.Context, cas *cascade.Cascade, opts JudgeOptions) (*Report, error) {
	run := JudgeRun(opts.Run)
	st, err := readState(Dir(opts.Root, run))
	if err != nil || st.pending() == 0 {
		return SubmitJudge(ctx, cas, opts)
	}
	spec, _ := opts.spec()
	if old := st.Judge; st.Kind != KindJudge || old == nil || old.Judge != spec.Judge || old.PackHash != spec.PackHash ||
		old.MaxQuestions != spec.MaxQuestions || !slices.Equal(old.Runs, spec.Runs) || !slices.Equal(st.Models, opts.Models) {
		return nil, fmt.Errorf("%w: %s was submitted with other options (judge, pack, questions or runs) and has %s not collected yet; collect it (compact batch collect --run %s), cancel it (compact batch cancel --run %s), or choose another --judge-run",
			ErrUnfinished, filepath.Join(Dir(opts.Root, run), FileState), plural(st.pending(), "request"), run, run)
	}
	return Collect(ctx, cas, opts.Root, run, CollectOptions{Settings: opts.Settings, ToolVersion: opts.ToolVersion, Now: opts.Now, Progress: opts.Progress})
}

// SubmitJudge starts a judge run: every bundle's answer requests go into
// the first model's batches (or are answered from the cache).
func SubmitJudge(ctx context.Context, cas *cascade.Cascade, opts JudgeOptions) (*Report, error) {
	eval.TuneJudgeCascade(cas)
	r, release, err := create(cas, opts.Root, JudgeRun(opts.Run), KindJudge, opts.Models, opts.Settings, opts.ToolVersion, opts.Now, opts.Progress)
	if err != nil {
		return nil, err
	}
	defer release()
	fail := func(err error) (*Report, error) {
		// Nothing was submitted: the run is left empty.
		r.end(ctx, err)
		return nil, err
	}
	spec, pack := opts.spec()
	r.st.Judge = spec
	j, err := newJudgeJob(r, spec, pack)
	if err != nil {
		return fail(err)
	}
	r.job = j
	for _, b := range opts.Bundles {
		it, err := r.addBundle(b)
		if err != nil {
			return fail(err)
		}
		t, err := j.task(it, true)
		switch {
		case err != nil:
			r.st.settle(it.N)
			err = r.problem(it, OutcomeError, err.Error())
		case t == nil:
			r.st.settle(it.N)
			r.tally(func(c *ItemCounts) { c.Skipped++ })
		default:
			for _, name := range t.Names {
				if err = r.enqueue(0, &Item{N: it.N, Bundle: it.Bundle, Part: partAnswer, Name: name, Names: t.Names, StartedAt: it.StartedAt}); err != nil {
					break
				}
			}
		}
		if err != nil {
			return fail(err)
		}
	}
	err = r.commit()
	if err == nil {
		err = r.cleanLeftovers()
	}
	if err != nil {
		return fail(err)
	}
	return r.end(ctx, r.submitQueued(ctx))
}

// judgeJob is a judge run's job.
type judgeJob struct {
	r    *runner
	spec *JudgeSpec
	opt  eval.JudgeOptions
	// tasks are the bundles evaluated lately (requests are queued and
	// built a bundle at a time).
	mu    sync.Mutex
	tasks map[int]*eval.JudgeTask
	// locks guard the answers kept (items/judge/<n>.json), by n.
	locks [64]sync.Mutex
}

func newJudgeJob(r *runner, spec *JudgeSpec, pack *eval.JudgePack) (*judgeJob, error) {
	if spec == nil {
		return nil, errors.New("a judge run without its judge (the state is damaged)")
	}
	if pack == nil {
		pack = eval.DefaultJudgePack()
		if spec.Pack != "" {
			p, err := eval.LoadJudgePack(spec.Pack)
			if err != nil {
				return nil, fmt.Errorf("it was submitted with judge pack %s: %v", spec.Pack, err)
			}
			pack = p
		}
	}
	if h := pack.Hash(); h != spec.PackHash {
		return nil, fmt.Errorf("judge pack %s changed since the run was submitted (%s then, %s now); put it back, or judge again under another --judge-run", pack.Name, spec.PackHash, h)
	}
	eval.TuneJudgeCascade(r.cas)
	return &judgeJob{r: r, spec: spec, tasks: map[int]*eval.JudgeTask{},
		opt: eval.JudgeOptions{Judge: spec.Judge, Pack: pack, MaxQuestions: spec.MaxQuestions, Run: spec.Run}}, nil
}

// task evaluates it's bundle (from the cache of bundles evaluated lately
// when cached): nil when there is nothing to judge.
func (j *judgeJob) task(it *Item, cached bool) (*eval.JudgeTask, error) {
	if cached {
		j.mu.Lock()
		t, ok := j.tasks[it.N]
		j.mu.Unlock()
		if ok {
			return t, nil
		}
	}
	res, err := eval.EvaluateBundle(j.r.path(it.Bundle), eval.EvalOptions{Runs: j.spec.Runs})
	if err != nil {
		return nil, err
	}
	t := eval.NewJudgeTask(res, j.opt)
	if cached {
		j.mu.Lock()
		if len(j.tasks) >= 64 {
			clear(j.tasks)
		}
		j.tasks[it.N] = t
		j.mu.Unlock()
	}
	return t, nil
}

func (j *judgeJob) input(it *Item) (cascade.Input, bool, error) {
	t, err := j.task(it, true)
	if err != nil {
		return cascade.Input{}, false, err
	}
	if t == nil {
		return cascade.Input{}, false, errors.New("judge: the bundle has nothing to judge any more (no question or no briefing); judge it again")
	}
	var in cascade.Input
	switch it.Part {
	case partAnswer:
		b := t.R.Briefing(it.Name)
		if b == nil {
			return in, false, fmt.Errorf("judge: the briefing %s is gone since the run was submitted; judge the bundle again", it.Name)
		}
		data, err := fsutil.ReadFileLimit(b.File, fsutil.MaxJSStringBytes)
		if err != nil {
			return in, false, err
		}
		in = t.AnswerInput(string(data))
	case partGrade:
		answers, _, err := j.answers(it, t)
		if err != nil {
			return in, false, err
		}
		in = t.GradeInput(answers)
	default:
		return in, false, fmt.Errorf("a request of part %q (the state is damaged)", it.Part)
	}
	sys, user := replay.Sha256(in.System), replay.Sha256(in.User)
	if it.SystemSha == "" {
		it.SystemSha, it.UserSha = sys, user
	} else if it.SystemSha != sys || it.UserSha != user {
		return in, false, errors.New("judge: the bundle changed since the batch run was submitted; judge it again")
	}
	return in, false, nil
}

// scratch is what items/judge/<n>.json keeps of a bundle's answers.
type scratch struct {
	Answers map[string]scratchAnswer `json:"answers"`
}

type scratchAnswer struct {
	Text string         `json:"text"`
	Call eval.JudgeCall `json:"call"`
}

func (j *judgeJob) scratchPath(n int) string {
	return filepath.Join(j.r.dir, DirItems, KindJudge, strconv.Itoa(n)+".json")
}

func (j *judgeJob) readScratch(n int) (*scratch, error) {
	sc := &scratch{Answers: map[string]scratchAnswer{}}
	data, err := fsutil.ReadFileLimit(j.scratchPath(n), 1<<30)
	if err != nil {
		if os.IsNotExist(err) || errors.Is(err, os.ErrNotExist) {
			return sc, nil
		}
		return nil, err
	}
	if err := json.Unmarshal(data, sc); err != nil {
		return nil, fmt.Errorf("%s: %v (the run's state is damaged)", j.scratchPath(n), err)
	}
	if sc.Answers == nil {
		sc.Answers = map[string]scratchAnswer{}
	}
	return sc, nil
}

// keep adds an answer to its bundle's, and reports whether they are all
// in.
func (j *judgeJob) keep(it *Item, text string, call eval.JudgeCall) (bool, error) {
	l := &j.locks[it.N%len(j.locks)]
	l.Lock()
	defer l.Unlock()
	sc, err := j.readScratch(it.N)
	if err != nil {
		return false, err
	}
	sc.Answers[it.Name] = scratchAnswer{Text: text, Call: call}
	data, err := json.Marshal(sc)
	if err != nil {
		return false, err
	}
	dir := filepath.Dir(j.scratchPath(it.N))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	f, err := fsutil.CreateTemp(dir, scratchTmp, "")
	if err != nil {
		return false, err
	}
	defer fsutil.Release(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), j.scratchPath(it.N))
	}
	if err != nil {
		os.Remove(f.Name())
		return false, fmt.Errorf("keep an answer in %s: %w", dir, err)
	}
	for _, name := range it.Names {
		if _, ok := sc.Answers[name]; !ok {
			return false, nil
		}
	}
	return true, nil
}

// answers are the bundle's answers kept, parsed, and their calls in the
// briefings' order.
func (j *judgeJob) answers(it *Item, t *eval.JudgeTask) (map[string][]string, []eval.JudgeCall, error) {
	sc, err := j.readScratch(it.N)
	if err != nil {
		return nil, nil, err
	}
	out := map[string][]string{}
	var calls []eval.JudgeCall
	for _, name := range t.Names {
		a, ok := sc.Answers[name]
		if !ok {
			return nil, nil, fmt.Errorf("judge: no answer from the briefing %s (the bundle's briefings changed since the run was submitted); judge it again", name)
		}
		out[name] = eval.ParseAnswers(a.Text, len(t.Questions))
		calls = append(calls, a.Call)
	}
	return out, calls, nil
}

// call is the judge's call record of a request's attempts.
func (j *judgeJob) call(it *Item, attempts []cascade.Attempt) eval.JudgeCall {
	c := eval.JudgeCall{Purpose: it.Part, Model: j.spec.Judge}
	if it.Part == partAnswer {
		c.Purpose = "answer " + it.Name
	}
	for _, a := range attempts {
		c.Usage = c.Usage.Add(a.Usage)
		c.CostUSD = cascade.RoundUSD(c.CostUSD + a.CostUSD)
		c.SavedUSD = cascade.RoundUSD(c.SavedUSD + a.SavedUSD)
		c.LatencyMs += a.LatencyMs
	}
	if n := len(attempts); n > 0 && attempts[n-1].Outcome == cascade.OutcomeOK {
		c.Model, c.Cached = attempts[n-1].Model, attempts[n-1].Cached
	}
	return c
}

func (j *judgeJob) answered(it *Item, attempts []cascade.Attempt, text string, _ int64, _ *Batch, _ string) error {
	r := j.r
	call := j.call(it, attempts)
	if it.Part == partAnswer {
		all, err := j.keep(it, text, call)
		if err != nil || !all {
			return err
		}
		r.mu.Lock()
		first := !r.st.settled(it.N)
		r.st.settle(it.N)
		r.mu.Unlock()
		if !first {
			return nil
		}
		return r.enqueue(0, &Item{N: it.N, Bundle: it.Bundle, Part: partGrade, StartedAt: it.StartedAt})
	}
	t, err := j.task(it, false)
	if err == nil && t == nil {
		err = errors.New("judge: the bundle has nothing to judge any more; judge it again")
	}
	if err != nil {
		return r.problem(it, OutcomeError, err.Error())
	}
	answers, calls, err := j.answers(it, t)
	if err != nil {
		return r.problem(it, OutcomeError, err.Error())
	}
	if err := t.Finish(append(calls, call), answers, text); err != nil {
		return fmt.Errorf("%s: %w", r.path(it.Bundle), err)
	}
	r.tally(func(c *ItemCounts) { c.OK++ })
	return nil
}

func (j *judgeJob) failed(it *Item, attempts []cascade.Attempt, note string, _ *Batch, _ string) error {
	msg := (&cascade.FailedError{Attempts: attempts}).Error()
	if note != "" {
		msg += "; " + note
	}
	if it.Part == partGrade {
		return j.r.problem(it, OutcomeFailed, "judge: grading: "+msg)
	}
	if !j.first(it) {
		return nil
	}
	return j.r.problem(it, OutcomeFailed, "judge: answering from "+it.Name+": "+msg)
}

func (j *judgeJob) broken(it *Item, msg string) error {
	if it.Part == partAnswer && !j.first(it) {
		return nil
	}
	return j.r.problem(it, OutcomeError, msg)
}

// Judged sets the judged scores of results from the records a finished
// judge run wrote, as the interactive judge sets them, and returns the
// bundles without one: those the run failed (with its reason), then
// those whose record cannot be used (eval.ReadJudged).
func Judged(rep *Report, results []*eval.BundleResult, opt eval.JudgeOptions) []eval.BundleError {
	failed := map[string]string{}
	for _, p := range rep.Problems {
		failed[filepath.Clean(p.Bundle)] = p.Error
	}
	var errs []eval.BundleError
	var judged []*eval.BundleResult
	for _, r := range results {
		if msg, ok := failed[filepath.Clean(r.Bundle)]; ok {
			errs = append(errs, eval.BundleError{Bundle: r.Bundle, Error: msg})
			continue
		}
		judged = append(judged, r)
	}
	return append(errs, eval.ReadJudgedAll(judged, opt)...)
}

// first settles an answer's bundle: false when it was settled already
// (another of its answers failed first).
func (j *judgeJob) first(it *Item) bool {
	r := j.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st.settled(it.N) {
		return false
	}
	r.st.settle(it.N)
	return true
}

func (j *judgeJob) leftovers(bundles []string) int {
	n, _ := bundle.CleanJudgeLeftovers(bundles, j.spec.Run)
	return n
}
