package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/replay"
)

// Options of a submit.
type Options struct {
	// Root is the directory the bundles were found under: the run's state
	// goes to Root/.batches/<Run>/.
	Root    string
	Run     string
	Bundles []string
	// Walk, when set, finds the bundles instead of Bundles: it calls fn
	// with each as it is found, so that a channel of many bundles is
	// never held as a list.
	Walk func(fn func(bundle string) error) error
	// Models are the tiers, in cascade order.
	Models []string
	// Pack rebuilds the prompts (nil: the bundles' own files); PackName
	// is how it was named (resolved again by a collect), Locale the
	// number format of its hint.
	Pack     *prompt.Pack
	PackName string
	Locale   string
	// Force replays bundles that already have an answer for the run.
	Force       bool
	ToolVersion string
	Settings    Settings
	// Now is the clock (tests).
	Now func() time.Time
	// Progress, when set, gets a line now and then.
	Progress func(string)
}

// CollectOptions of a collect.
type CollectOptions struct {
	// Wait polls every Settings.PollInterval until every bundle is done.
	Wait        bool
	Settings    Settings
	ToolVersion string
	Now         func() time.Time
	Progress    func(string)
}

// Report is what a submit, status, collect or cancel says.
type Report struct {
	Run    string   `json:"run"`
	Kind   string   `json:"kind"`
	State  string   `json:"state"`
	Models []string `json:"models"`
	// Judge is what a judge run asks.
	Judge *JudgeSpec `json:"judge,omitempty"`
	// Discount is the batch rate's discount on the table's prices.
	Discount float64    `json:"discount"`
	Batches  []*Batch   `json:"batches"`
	Bundles  ItemCounts `json:"bundles"`
	Ledger   Ledger     `json:"ledger"`
	// Submitted and Collected are the batches this call created and
	// collected.
	Submitted []string `json:"submitted"`
	Collected []string `json:"collected"`
	// Problems are the bundles that failed or could not be read.
	Problems []Problem `json:"problems,omitempty"`
	// Unknown counts result lines whose custom id no request of the run
	// has (ignored).
	Unknown int `json:"unknownResults,omitempty"`
	// SubmitError is why the run's last submission failed, when the
	// requests it left are still waiting to be submitted (Bundles.Queued).
	SubmitError string `json:"submitError,omitempty"`
}

// ItemCounts tally the bundles of a run, and the requests still to be
// answered. For a replay run a request is a bundle's; a judge run makes
// one request per briefing of a bundle, then one to grade them.
type ItemCounts struct {
	Total   int `json:"total"`
	OK      int `json:"ok"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Errors  int `json:"errors"`
	// Queued and Submitted count requests: waiting to be submitted, and
	// in batches not collected yet.
	Queued    int `json:"queued"`
	Submitted int `json:"submitted"`
	// FromCache: requests answered from the response cache, never sent.
	FromCache int `json:"fromCache"`
}

// Pending is the requests not answered yet.
func (c ItemCounts) Pending() int { return c.Queued + c.Submitted }

// Problem is a bundle that failed or could not be read.
type Problem struct {
	Bundle string `json:"bundle"`
	Error  string `json:"error"`
}

// ErrUnfinished: a submit found the run's earlier batches not collected.
var ErrUnfinished = errors.New("batch run not finished")

// ErrInterrupted: the context was cancelled; what was done is recorded.
var ErrInterrupted = errors.New("interrupted")

// ErrNoKey: a model of the run has no API key here.
var ErrNoKey = errors.New("no API key")

// ErrSubmit: requests could not be submitted (the provider refused the
// upload or the batch, or it could not be reached); they wait in the
// run's queues, and the state records why (State.SubmitError).
var ErrSubmit = errors.New("submission failed")

// submitError marks err as ErrSubmit, its message unchanged.
type submitError struct{ err error }

func (e submitError) Error() string   { return e.err.Error() }
func (e submitError) Unwrap() []error { return []error{ErrSubmit, e.err} }

// job is what a run does with its requests: replay bundles or judge
// them. The runner moves requests through the tiers and batches; the job
// builds each request and takes its outcome.
type job interface {
	// input is it's request. skip: the job settled it without one (a
	// bundle answered before). An error: it cannot be built; broken is
	// then called.
	input(it *Item) (in cascade.Input, skip bool, err error)
	// answered: the last of attempts answered text (cached: the input
	// tokens the provider read from its prompt cache). b and cid name
	// the batch request, nil and "" for an answer from the cache.
	answered(it *Item, attempts []cascade.Attempt, text string, cached int64, b *Batch, cid string) error
	// failed: every tier failed it; note, when set, says why no more
	// were tried.
	failed(it *Item, attempts []cascade.Attempt, note string, b *Batch, cid string) error
	// broken: it could not be built or read.
	broken(it *Item, msg string) error
	// leftovers removes what killed writers left in the bundles.
	leftovers(bundles []string) int
}

// runner is one submit, collect, status or cancel of a run.
type runner struct {
	cas  *cascade.Cascade
	st   *State
	root string // the directory the bundles are named under
	dir  string
	s    Settings
	now  func() time.Time
	tool string
	say  func(string)
	svcs map[string]service
	rep  *Report
	job  job
	logs *logs
	// mu guards st's counts, ledger, logs and settled bits while results
	// are written in parallel.
	mu sync.Mutex
}

func newRunner(cas *cascade.Cascade, st *State, root, dir string, s Settings, now func() time.Time, tool string, say func(string)) *runner {
	if now == nil {
		now = time.Now
	}
	return &runner{cas: cas, st: st, root: root, dir: dir, s: s, now: now, tool: tool, say: say, svcs: map[string]service{}, rep: &Report{},
		logs: &logs{dir: dir, files: map[string]*os.File{}}}
}

func (r *runner) service(t Tier) (service, error) {
	if s, ok := r.svcs[t.Provider]; ok {
		return s, nil
	}
	pc, ok := r.cas.ProviderConfigOf(t.Provider)
	if !ok {
		return nil, fmt.Errorf("providers.%s is not configured (model %s)", t.Provider, t.Model)
	}
	s, err := newService(pc, r.s)
	if err != nil {
		return nil, errors.New(r.cas.Redact(err.Error()))
	}
	r.svcs[t.Provider] = s
	return s, nil
}

func (r *runner) progress(format string, a ...any) {
	if r.say != nil {
		r.say(fmt.Sprintf(format, a...))
	}
}

// commit makes what was appended to the logs durable, then writes the
// head that names it.
func (r *runner) commit() error {
	if err := r.logs.sync(); err != nil {
		return err
	}
	r.st.UpdatedAt = r.stamp()
	return writeState(r.dir, r.st)
}

// end closes the run's files and reports: after an error, the head is
// read again, so that the report is of what was committed; a failed
// submission is recorded in it (the run is locked: only a submit or a
// collect submits).
func (r *runner) end(ctx context.Context, err error) (*Report, error) {
	r.logs.close()
	if err != nil {
		if st, rerr := readState(r.dir); rerr == nil {
			r.st = st
		}
	}
	err = stopped(ctx, err)
	if errors.Is(err, ErrSubmit) && !errors.Is(err, ErrInterrupted) {
		r.st.SubmitError, r.st.SubmitFailedAt = err.Error(), r.stamp()
		r.st.UpdatedAt = r.st.SubmitFailedAt
		if werr := writeState(r.dir, r.st); werr != nil {
			err = fmt.Errorf("%w (and recording it: %v)", err, werr)
		}
	}
	return r.report(), err
}

func (r *runner) stamp() string { return r.now().UTC().Format(time.RFC3339Nano) }

// tiers resolves the models of a run in cas; without says what to do
// instead of a batch.
func tiers(cas *cascade.Cascade, models []string, without string) ([]Tier, error) {
	out := make([]Tier, 0, len(models))
	for _, id := range models {
		m, ok := cas.Models.Lookup(id)
		if !ok {
			return nil, fmt.Errorf("model %q is not in the model table", id)
		}
		p, ok := cas.Providers[m.Provider]
		if !ok {
			return nil, fmt.Errorf("%s: provider %q is not configured", id, m.Provider)
		}
		if err := Supported(p.Kind()); err != nil {
			return nil, fmt.Errorf("%s (provider %s): %v; %s", id, m.Provider, err, without)
		}
		out = append(out, Tier{Model: id, Provider: m.Provider, Kind: p.Kind(), APIModel: m.APIModel})
	}
	if len(out) == 0 {
		return nil, errors.New("no models to send to")
	}
	return out, nil
}

// create starts run under root: a new head, with empty logs, replacing a
// run that is done. The run is locked until release.
func create(cas *cascade.Cascade, root, run, kind string, models []string, s Settings, tool string, now func() time.Time, say func(string)) (*runner, func(), error) {
	without := "replay it without --batch"
	if kind == KindJudge {
		without = "judge without --batch"
	}
	ts, err := tiers(cas, models, without)
	if err != nil {
		return nil, nil, err
	}
	dir := Dir(root, run)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	release, err := lockRun(dir)
	if err != nil {
		return nil, nil, err
	}
	if old, err := readState(dir); err == nil {
		// A run none of whose requests was ever submitted (its submission
		// failed) is replaced: nothing of it is in a batch.
		if n := old.pending(); n > 0 && len(old.Batches) > 0 {
			release()
			return nil, nil, fmt.Errorf("%w: %s has %s not collected yet; collect them (compact batch collect --run %s), cancel them (compact batch cancel --run %s), or choose another --run",
				ErrUnfinished, filepath.Join(dir, FileState), plural(n, "request"), run, run)
		}
		if old.Kind != kind {
			release()
			return nil, nil, fmt.Errorf("%s is a %s run, not a %s run; choose another run name", dir, old.Kind, kind)
		}
	} else if !errors.Is(err, ErrNoRun) && !strings.Contains(err.Error(), "state version") {
		release()
		return nil, nil, err
	}
	r := newRunner(cas, nil, root, dir, s, now, tool, say)
	stamp := r.stamp()
	st := &State{Version: stateVersion, Run: run, Kind: kind, Models: models, Tiers: ts, Discount: s.Discount, ToolVersion: tool,
		CreatedAt: stamp, Batches: []*Batch{}, Bundles: Log{File: "bundles.jsonl"}, Problems: Log{File: "problems.jsonl"}}
	for t := range ts {
		st.Queues = append(st.Queues, Log{File: fmt.Sprintf("queue-%d.jsonl", t)})
		st.Ledger.row(st, t)
	}
	r.st = st
	// An empty run first, then the old run's items go: a crash between
	// leaves a run of nothing, not a head naming logs that are gone.
	if err := r.commit(); err != nil {
		release()
		return nil, nil, err
	}
	if err := os.RemoveAll(filepath.Join(dir, DirItems)); err != nil {
		release()
		return nil, nil, err
	}
	return r, release, nil
}

// addBundle appends bundle b (a path) to the run's list, named under the
// root; it returns its item, not queued yet.
func (r *runner) addBundle(b string) (*Item, error) {
	rel, err := filepath.Rel(r.root, b)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		if rel, err = filepath.Abs(b); err != nil {
			return nil, err
		}
	}
	rel = filepath.ToSlash(rel)
	it := &Item{N: r.st.Bundles.Lines, Bundle: rel, StartedAt: r.st.CreatedAt}
	if err := r.logs.append(&r.st.Bundles, rel); err != nil {
		return nil, err
	}
	r.st.Counts.Total++
	return it, nil
}

// Submit starts a batch replay: every bundle's request at the first model
// goes into that provider's batches, except those answered before for
// the same run (skipped unless Force) and those whose answer is in the
// response cache (written from it). The state is committed after every
// batch created, so an interrupted submit is finished by Collect.
func Submit(ctx context.Context, cas *cascade.Cascade, opts Options) (*Report, error) {
	r, release, err := create(cas, opts.Root, opts.Run, KindReplay, opts.Models, opts.Settings, opts.ToolVersion, opts.Now, opts.Progress)
	if err != nil {
		return nil, err
	}
	defer release()
	r.st.Pack, r.st.Locale, r.st.Force = opts.PackName, opts.Locale, opts.Force
	r.job = &replayJob{r: r, pack: opts.Pack}
	walk := opts.Walk
	if walk == nil {
		walk = func(fn func(string) error) error {
			for _, b := range opts.Bundles {
				if err := fn(b); err != nil {
					return err
				}
			}
			return nil
		}
	}
	err = walk(func(b string) error {
		it, err := r.addBundle(b)
		if err != nil {
			return err
		}
		return r.enqueue(0, it)
	})
	if err == nil {
		err = r.commit()
	}
	if err == nil {
		err = r.cleanLeftovers()
	}
	if err != nil {
		// Nothing was submitted: the run is left empty.
		r.end(ctx, err)
		return nil, err
	}
	return r.end(ctx, r.submitQueued(ctx))
}

// stopped makes err ErrInterrupted when ctx was cancelled: a request cut
// short by Ctrl-C fails with the context's error, not a provider's.
func stopped(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && !errors.Is(err, ErrInterrupted) {
		return fmt.Errorf("%w: %v", ErrInterrupted, err)
	}
	return err
}

// open reads run's state under root for a collect or cancel (lock: held
// until release) or a status.
func open(cas *cascade.Cascade, root, run string, lock bool, s Settings, tool string, now func() time.Time, say func(string)) (*runner, func(), error) {
	dir := Dir(root, run)
	if _, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("%w %q under %s", ErrNoRun, run, root)
	}
	release := func() {}
	if lock {
		rel, err := lockRun(dir)
		if err != nil {
			return nil, nil, err
		}
		release = rel
	}
	fail := func(err error) (*runner, func(), error) {
		release()
		return nil, nil, err
	}
	st, err := readState(dir)
	if err != nil {
		return fail(err)
	}
	ts, err := tiers(cas, st.Models, "")
	if err != nil {
		return fail(fmt.Errorf("run %s: %v (the configuration changed since it was submitted)", run, err))
	}
	if _, missing := cas.SplitByKey(st.Models); len(missing) > 0 {
		var parts []string
		for _, m := range missing {
			parts = append(parts, m.Model+" (set "+strings.Join(m.Envs, " or ")+")")
		}
		return fail(fmt.Errorf("%w for %s, a model of run %s: its batches cannot be reached without it", ErrNoKey, strings.Join(parts, ", "), run))
	}
	for i, t := range ts {
		if i < len(st.Tiers) && (t.Provider != st.Tiers[i].Provider || t.Kind != st.Tiers[i].Kind) {
			return fail(fmt.Errorf("run %s: model %s is on provider %s now, on %s when it was submitted; collect it with the configuration it was submitted with", run, t.Model, t.Provider, st.Tiers[i].Provider))
		}
	}
	r := newRunner(cas, st, root, dir, s, now, tool, say)
	switch st.Kind {
	case KindJudge:
		j, err := newJudgeJob(r, st.Judge, nil)
		if err != nil {
			return fail(fmt.Errorf("run %s: %v", run, err))
		}
		r.job = j
	default:
		j := &replayJob{r: r}
		if st.Pack != "" {
			p, err := prompt.Resolve(st.Pack)
			if err != nil {
				return fail(fmt.Errorf("run %s was built with pack %s: %v", run, st.Pack, err))
			}
			j.pack = p
		}
		r.job = j
	}
	return r, release, nil
}

// Collect polls the run's batches, writes the results of those that have
// ended, sends what failed to the next tier's batches (and, for a judge
// run, the grades of the bundles whose answers are all in), and submits
// what an interrupted submit left queued. With Wait it goes on until
// every request is answered.
func Collect(ctx context.Context, cas *cascade.Cascade, root, run string, opts CollectOptions) (*Report, error) {
	r, release, err := open(cas, root, run, true, opts.Settings, opts.ToolVersion, opts.Now, opts.Progress)
	if err != nil {
		return nil, err
	}
	defer release()
	return r.end(ctx, r.collectAll(ctx, opts.Wait))
}

func (r *runner) collectAll(ctx context.Context, wait bool) error {
	if err := r.cleanLeftovers(); err != nil {
		return err
	}
	// Requests left to submit (a submission failed, or was interrupted):
	// what has ended is collected first, so that a submission failing
	// again does not hold it back.
	if r.st.Counts.Queued > 0 && r.open() > 0 {
		if err := r.collectEnded(ctx); err != nil {
			return err
		}
	}
	for {
		if err := r.submitQueued(ctx); err != nil {
			return err
		}
		if err := r.collectEnded(ctx); err != nil {
			return err
		}
		if r.st.pending() == 0 {
			return nil
		}
		if r.st.Counts.Queued > 0 {
			continue // for the next tier, or a judge's grades: submit them now
		}
		if !wait {
			return nil
		}
		r.progress("waiting %v for %s in %s", r.s.PollInterval, plural(r.st.pending(), "request"), pluralForm(r.open(), "batch", "batches"))
		t := time.NewTimer(r.s.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %s still in batches", ErrInterrupted, plural(r.st.pending(), "request"))
		case <-t.C:
		}
	}
}

// cleanLeftovers removes what killed writers left in the run's bundles.
func (r *runner) cleanLeftovers() error {
	n, err := r.leftovers()
	if n > 0 {
		r.progress("removed %s of an interrupted run", plural(n, "leftover"))
	}
	return err
}

// leftovers cleans what killed writers left in the run's bundles, a
// thousand at a time.
func (r *runner) leftovers() (int, error) {
	n := 0
	chunk := make([]string, 0, 1000)
	flush := func() {
		n += r.job.leftovers(chunk)
		chunk = chunk[:0]
	}
	err := readLines(r.logs.path(r.st.Bundles.File), 0, r.st.Bundles.Lines, func(line []byte, _ int64) error {
		var b string
		if err := json.Unmarshal(line, &b); err != nil {
			return fmt.Errorf("%s: %v (the run's state is damaged)", r.logs.path(r.st.Bundles.File), err)
		}
		chunk = append(chunk, r.path(b))
		if len(chunk) == cap(chunk) {
			flush()
		}
		return nil
	})
	flush()
	return n, err
}

// Status polls the run's batches that are not collected and reports,
// changing nothing.
func Status(ctx context.Context, cas *cascade.Cascade, root, run string, s Settings) (*Report, error) {
	r, release, err := open(cas, root, run, false, s, "", nil, nil)
	if err != nil {
		return nil, err
	}
	defer release()
	for _, b := range r.st.Batches {
		if b.Collected {
			continue
		}
		if err := ctx.Err(); err != nil {
			return r.report(), fmt.Errorf("%w: %v", ErrInterrupted, err)
		}
		if _, err := r.poll(ctx, b); err != nil {
			return r.report(), stopped(ctx, err)
		}
	}
	return r.report(), nil
}

// Cancel asks the providers to cancel the run's batches that have not
// ended, and stops the run: nothing more is submitted, and a collect
// records the requests left unanswered as failed.
func Cancel(ctx context.Context, cas *cascade.Cascade, root, run string, s Settings, tool string) (*Report, error) {
	r, release, err := open(cas, root, run, true, s, tool, nil, nil)
	if err != nil {
		return nil, err
	}
	defer release()
	var first error
	for _, b := range r.st.Batches {
		if b.Collected || b.Ended {
			continue
		}
		svc, err := r.service(r.st.Tiers[b.Tier])
		if err == nil {
			err = svc.cancel(ctx, b.ID)
		}
		if err != nil {
			if first == nil {
				first = fmt.Errorf("cancel %s batch %s: %s", b.Provider, b.ID, r.cas.Redact(err.Error()))
			}
			continue
		}
		b.Cancelled = true
	}
	r.st.Cancelled = true
	if err := r.commit(); err != nil {
		return r.end(ctx, err)
	}
	return r.report(), stopped(ctx, first)
}

// path is a bundle's directory: the state names bundles under the run's
// root, so that a collect from another working directory, or another
// machine, finds them through the same PATH.
func (r *runner) path(bundle string) string {
	if filepath.IsAbs(bundle) {
		return bundle
	}
	return filepath.Join(r.root, filepath.FromSlash(bundle))
}

// open is the number of batches not collected.
func (r *runner) open() int {
	n := 0
	for _, b := range r.st.Batches {
		if !b.Collected {
			n++
		}
	}
	return n
}

func (r *runner) report() *Report {
	rep := r.rep
	st := r.st
	rep.Run, rep.Kind, rep.State, rep.Models, rep.Discount, rep.Judge = st.Run, st.Kind, filepath.Join(r.dir, FileState), st.Models, st.Discount, st.Judge
	rep.Batches, rep.Ledger = st.Batches, st.Ledger
	rep.Bundles = st.Counts
	rep.Bundles.FromCache = st.Ledger.Total.FromCache
	rep.SubmitError = ""
	if st.Counts.Queued > 0 {
		rep.SubmitError = st.SubmitError
	}
	rep.Problems = nil
	_ = readLines(r.logs.path(st.Problems.File), 0, st.Problems.Lines, func(line []byte, _ int64) error {
		var p Problem
		if json.Unmarshal(line, &p) == nil {
			p.Bundle = r.path(p.Bundle)
			rep.Problems = append(rep.Problems, p)
		}
		return nil
	})
	if rep.Submitted == nil {
		rep.Submitted = []string{}
	}
	if rep.Collected == nil {
		rep.Collected = []string{}
	}
	return rep
}

// ---- what jobs call (under r.mu where they change the head) ----

// enqueue puts it in tier t's queue.
func (r *runner) enqueue(t int, it *Item) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.logs.append(&r.st.Queues[t], it); err != nil {
		return err
	}
	r.st.Counts.Queued++
	return nil
}

// tally changes the counts.
func (r *runner) tally(fn func(c *ItemCounts)) {
	r.mu.Lock()
	fn(&r.st.Counts)
	r.mu.Unlock()
}

// problem records a bundle that failed or could not be read, and counts
// it (outcome OutcomeFailed or OutcomeError).
func (r *runner) problem(it *Item, outcome, msg string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if outcome == OutcomeFailed {
		r.st.Counts.Failed++
	} else {
		r.st.Counts.Errors++
	}
	return r.logs.append(&r.st.Problems, Problem{Bundle: it.Bundle, Error: msg})
}

// advance records a failed attempt: the request goes to the next tier,
// or, at the last, the job is told it failed.
func (r *runner) advance(it *Item, a cascade.Attempt, b *Batch, customID string) error {
	attempts := append(slices.Clone(it.Attempts), a)
	if it.Tier+1 < len(r.st.Tiers) {
		next := *it
		next.Tier++
		next.Attempts = attempts
		next.Key = ""
		return r.enqueue(next.Tier, &next)
	}
	return r.job.failed(it, attempts, "", b, customID)
}

// parallel runs functions with at most Settings.Jobs at once; the
// context ends at the first error.
func (r *runner) parallel(ctx context.Context) (*errgroup.Group, context.Context) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, r.s.Jobs))
	return g, gctx
}

// record is the replay.json of a bundle whose attempts are attempts.
func (r *runner) record(it *Item, attempts []cascade.Attempt, b *Batch, customID string) *replay.Record {
	rec := &replay.Record{Run: r.st.Run, Bundle: r.path(it.Bundle), Models: slices.Clone(r.st.Models), Attempts: attempts,
		Pack: r.st.Pack, SystemSha256: it.SystemSha, UserSha256: it.UserSha, ToolVersion: r.tool,
		StartedAt: it.StartedAt, FinishedAt: r.stamp()}
	if rec.Pack == "" {
		rec.Pack = "bundle"
	}
	if b != nil {
		rec.Batch = &replay.BatchRef{Provider: b.Provider, ID: b.ID, CustomID: customID}
	}
	for _, a := range attempts {
		rec.Usage.InputTokens += a.Usage.InputTokens
		rec.Usage.OutputTokens += a.Usage.OutputTokens
		rec.CostUSD = cascade.RoundUSD(rec.CostUSD + a.CostUSD)
		rec.LatencyMs += a.LatencyMs
	}
	if n := len(attempts); n > 0 {
		last := attempts[n-1]
		rec.Temperature = last.Temperature
		if last.Outcome == cascade.OutcomeOK {
			m, p := last.Model, last.Provider
			rec.Model, rec.Provider = &m, p
			rec.OutputTruncated, rec.OutputOriginalBytes = last.OutputTruncated, last.OutputOriginalBytes
		} else {
			rec.Error = (&cascade.FailedError{Attempts: attempts}).Error()
		}
	}
	return rec
}

// plural is "1 request", "2 requests": word's plural adds s.
func plural(n int, word string) string {
	return pluralForm(n, word, word+"s")
}

// pluralForm is "1 one" or "N many".
func pluralForm(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
