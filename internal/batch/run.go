package batch

import (
	"context"
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
	State  string   `json:"state"`
	Models []string `json:"models"`
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
	// Unknown counts result lines whose custom id no bundle of the run
	// has (ignored).
	Unknown int `json:"unknownResults,omitempty"`
}

// ItemCounts tally the bundles of a run.
type ItemCounts struct {
	Total     int `json:"total"`
	OK        int `json:"ok"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	Errors    int `json:"errors"`
	Queued    int `json:"queued"`
	Submitted int `json:"submitted"`
	// FromCache: answered from the response cache, never sent.
	FromCache int `json:"fromCache"`
}

// Pending is the bundles not done yet.
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

// runner is one submit, collect, status or cancel of a run.
type runner struct {
	cas   *cascade.Cascade
	st    *State
	root  string // the directory the bundles are named under
	dir   string
	s     Settings
	now   func() time.Time
	tool  string
	pack  *prompt.Pack
	force bool
	say   func(string)
	svcs  map[string]service
	rep   *Report
	// mu guards st's items and ledger while results are written in
	// parallel.
	mu sync.Mutex
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

func (r *runner) save() error {
	r.st.UpdatedAt = r.stamp()
	return writeState(r.dir, r.st)
}

func (r *runner) stamp() string { return r.now().UTC().Format(time.RFC3339Nano) }

// tiers resolves the models of a run in cas.
func tiers(cas *cascade.Cascade, models []string) ([]Tier, error) {
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
			return nil, fmt.Errorf("%s (provider %s): %v; replay it without --batch", id, m.Provider, err)
		}
		out = append(out, Tier{Model: id, Provider: m.Provider, Kind: p.Kind(), APIModel: m.APIModel})
	}
	if len(out) == 0 {
		return nil, errors.New("no models to send to")
	}
	return out, nil
}

// Submit starts a batch run: every bundle's request at the first model
// goes into that provider's batches, except those answered before for
// the same run (skipped unless Force) and those whose answer is in the
// response cache (written from it). The state is saved after every batch
// created, so an interrupted submit is finished by Collect.
func Submit(ctx context.Context, cas *cascade.Cascade, opts Options) (*Report, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ts, err := tiers(cas, opts.Models)
	if err != nil {
		return nil, err
	}
	dir := Dir(opts.Root, opts.Run)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	release, err := lockRun(dir)
	if err != nil {
		return nil, err
	}
	defer release()
	if old, err := readState(dir); err == nil {
		if n := old.pending(); n > 0 {
			return nil, fmt.Errorf("%w: %s has %d bundles not collected yet; collect them (compact batch collect --run %s), cancel them (compact batch cancel --run %s), or choose another --run",
				ErrUnfinished, filepath.Join(dir, FileState), n, opts.Run, opts.Run)
		}
	} else if !errors.Is(err, ErrNoRun) {
		return nil, err
	}
	now := opts.Now().UTC().Format(time.RFC3339Nano)
	st := &State{Version: stateVersion, Run: opts.Run, Models: opts.Models, Tiers: ts, Pack: opts.PackName, Locale: opts.Locale,
		Discount: opts.Settings.Discount, Force: opts.Force, ToolVersion: opts.ToolVersion, CreatedAt: now, Batches: []*Batch{}}
	st.Items = make([]*Item, len(opts.Bundles))
	for i, b := range opts.Bundles {
		rel, err := filepath.Rel(opts.Root, b)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			if rel, err = filepath.Abs(b); err != nil {
				return nil, err
			}
		}
		st.Items[i] = &Item{Bundle: filepath.ToSlash(rel), State: ItemQueued, StartedAt: now}
	}
	for t := range ts {
		st.Ledger.row(st, t)
	}
	r := &runner{cas: cas, st: st, root: opts.Root, dir: dir, s: opts.Settings, now: opts.Now, tool: opts.ToolVersion, pack: opts.Pack,
		force: opts.Force, say: opts.Progress, svcs: map[string]service{}, rep: &Report{}}
	if err := r.save(); err != nil {
		return nil, err
	}
	if n, err := replay.CleanLeftovers(opts.Bundles, opts.Run); err == nil && n > 0 {
		r.progress("removed %d leftovers of an interrupted run", n)
	}
	err = r.submitQueued(ctx)
	return r.report(), stopped(ctx, err)
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
	if now == nil {
		now = time.Now
	}
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
	st, err := readState(dir)
	if err != nil {
		release()
		return nil, nil, err
	}
	ts, err := tiers(cas, st.Models)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("run %s: %v (the configuration changed since it was submitted)", run, err)
	}
	if _, missing := cas.SplitByKey(st.Models); len(missing) > 0 {
		release()
		var parts []string
		for _, m := range missing {
			parts = append(parts, m.Model+" (set "+strings.Join(m.Envs, " or ")+")")
		}
		return nil, nil, fmt.Errorf("%w for %s, a model of run %s: its batches cannot be reached without it", ErrNoKey, strings.Join(parts, ", "), run)
	}
	for i, t := range ts {
		if i < len(st.Tiers) && (t.Provider != st.Tiers[i].Provider || t.Kind != st.Tiers[i].Kind) {
			release()
			return nil, nil, fmt.Errorf("run %s: model %s is on provider %s now, on %s when it was submitted; collect it with the configuration it was submitted with", run, t.Model, t.Provider, st.Tiers[i].Provider)
		}
	}
	r := &runner{cas: cas, st: st, root: root, dir: dir, s: s, now: now, tool: tool, say: say, svcs: map[string]service{}, rep: &Report{}}
	if st.Pack != "" {
		p, err := prompt.Resolve(st.Pack)
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("run %s was built with pack %s: %v", run, st.Pack, err)
		}
		r.pack = p
	}
	return r, release, nil
}

// Collect polls the run's batches, writes the results of those that have
// ended, sends what failed to the next tier's batches, and submits what
// an interrupted submit left queued. With Wait it goes on until every
// bundle is done.
func Collect(ctx context.Context, cas *cascade.Cascade, root, run string, opts CollectOptions) (*Report, error) {
	r, release, err := open(cas, root, run, true, opts.Settings, opts.ToolVersion, opts.Now, opts.Progress)
	if err != nil {
		return nil, err
	}
	defer release()
	if n, err := replay.CleanLeftovers(r.bundles(), run); err == nil && n > 0 {
		r.progress("removed %d leftovers of an interrupted run", n)
	}
	for {
		if err := r.submitQueued(ctx); err != nil {
			return r.report(), stopped(ctx, err)
		}
		if err := r.collectEnded(ctx); err != nil {
			return r.report(), stopped(ctx, err)
		}
		if r.st.pending() == 0 {
			break
		}
		if r.queued() > 0 {
			continue // failures for the next tier: submit them now
		}
		if !opts.Wait {
			break
		}
		r.progress("waiting %v for %d bundles in %d batches", r.s.PollInterval, r.st.pending(), r.open())
		t := time.NewTimer(r.s.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return r.report(), fmt.Errorf("%w: %d bundles still in batches", ErrInterrupted, r.st.pending())
		case <-t.C:
		}
	}
	return r.report(), nil
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
// records the bundles left unanswered as failed.
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
	if err := r.save(); err != nil {
		return r.report(), err
	}
	return r.report(), stopped(ctx, first)
}

// path is an item's bundle directory: the state names bundles under the
// run's root, so that a collect from another working directory, or
// another machine, finds them through the same PATH.
func (r *runner) path(it *Item) string {
	if filepath.IsAbs(it.Bundle) {
		return it.Bundle
	}
	return filepath.Join(r.root, filepath.FromSlash(it.Bundle))
}

func (r *runner) bundles() []string {
	out := make([]string, len(r.st.Items))
	for i, it := range r.st.Items {
		out[i] = r.path(it)
	}
	return out
}

func (r *runner) queued() int {
	n := 0
	for _, it := range r.st.Items {
		if it.State == ItemQueued {
			n++
		}
	}
	return n
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
	rep.Run, rep.State, rep.Models, rep.Discount = st.Run, filepath.Join(r.dir, FileState), st.Models, st.Discount
	rep.Batches, rep.Ledger = st.Batches, st.Ledger
	rep.Bundles = ItemCounts{Total: len(st.Items)}
	rep.Problems = nil
	for _, it := range st.Items {
		switch it.State {
		case ItemQueued:
			rep.Bundles.Queued++
		case ItemSubmitted:
			rep.Bundles.Submitted++
		default:
			switch it.Outcome {
			case OutcomeOK:
				rep.Bundles.OK++
			case OutcomeSkipped:
				rep.Bundles.Skipped++
			case OutcomeFailed:
				rep.Bundles.Failed++
				rep.Problems = append(rep.Problems, Problem{r.path(it), it.Error})
			default:
				rep.Bundles.Errors++
				rep.Problems = append(rep.Problems, Problem{r.path(it), it.Error})
			}
		}
	}
	rep.Bundles.FromCache = st.Ledger.Total.FromCache
	if rep.Submitted == nil {
		rep.Submitted = []string{}
	}
	if rep.Collected == nil {
		rep.Collected = []string{}
	}
	return rep
}

// record is the replay.json of an item whose attempts are attempts.
func (r *runner) record(it *Item, attempts []cascade.Attempt, b *Batch, customID string) *replay.Record {
	rec := &replay.Record{Run: r.st.Run, Bundle: r.path(it), Models: slices.Clone(r.st.Models), Attempts: attempts,
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

// write writes an item's result; it is done.
func (r *runner) write(it *Item, rec *replay.Record, text string) error {
	if err := replay.WriteResult(r.path(it), r.st.Run, rec, text, r.cas.Redact); err != nil {
		return fmt.Errorf("%s: write the result: %w", r.path(it), err)
	}
	return nil
}

// onDisk reports whether the bundle's result for the run came from this
// batch request already (a collect that stopped before recording it).
func (r *runner) onDisk(it *Item, b *Batch, customID string) bool {
	rec, err := replay.ReadRecord(r.path(it), r.st.Run)
	return err == nil && rec.Batch != nil && rec.Batch.ID == b.ID && rec.Batch.CustomID == customID &&
		rec.SystemSha256 == it.SystemSha && rec.UserSha256 == it.UserSha
}

// finish marks an item done.
func finish(it *Item, outcome, model, msg string) {
	it.State, it.Outcome, it.Model, it.Error = ItemDone, outcome, model, msg
	it.Batch, it.Key = "", ""
	it.Attempts = nil
}

// parallel runs functions with at most Settings.Jobs at once; the
// context ends at the first error.
func (r *runner) parallel(ctx context.Context) (*errgroup.Group, context.Context) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, r.s.Jobs))
	return g, gctx
}
