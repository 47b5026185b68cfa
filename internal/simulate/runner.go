package simulate

import (
	"context"
	"crypto/sha256"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/strategy"
)

// runner runs simulations in parallel, results in job order.
type runner struct {
	sum      strategy.Summarizer
	jobs     int
	profile  *serialize.Profile
	simulate func(context.Context, []strategy.Message, string, strategy.Config, strategy.Summarizer) (*strategy.Timeline, error)
	// noProbes leaves the offline probe scores out (against-recorded does
	// not show them).
	noProbes bool
}

// job is one simulation: strategy name on in with cfg.
type job struct {
	in   *Input
	name string
	cfg  strategy.Config
	// overheadLive is, when cfg.SystemOverhead comes from the agent's
	// first step (Options.RecordedOverhead), the live usage there; 0
	// otherwise.
	overheadLive int64
	// The prices of the context and of the summaries.
	ctxPrices, sumPrices Prices
}

type result struct {
	tl  *strategy.Timeline
	ret *convo.Retention // nil without a summary
	// probes are the offline probe scores of the compactions kept.
	probes []SummaryScore
	cost   *Cost
	err    error
}

// run runs jobs, at most r.jobs at once. An interrupt returns the
// context's error; a failed job an error naming its history.
func (r *runner) run(ctx context.Context, jobs []job) ([]run, error) {
	res := make([]result, len(jobs))
	workers := r.workers()
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res[i] = r.one(ctx, jobs[i])
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]run, len(jobs))
	for i, x := range res {
		if x.err != nil {
			return nil, fmt.Errorf("%s: %w", jobs[i].in.History.Name, x.err)
		}
		out[i] = run{jobs[i], x}
	}
	return out, nil
}

// workers is how many simulations run at once.
func (r *runner) workers() int {
	if r.jobs <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return r.jobs
}

func (r *runner) one(ctx context.Context, j job) result {
	rec := &recorder{inner: r.sum}
	tl, err := r.simulate(ctx, j.in.Messages(j.name), j.name, j.cfg, rec)
	if err != nil {
		return result{err: err}
	}
	out := result{tl: tl, cost: costOf(tl, rec.tokens, j.ctxPrices, j.sumPrices)}
	if tl.FinalSummary != "" && len(rec.calls) > 0 {
		ret := convo.MeasureRetention(rec.kept(tl), tl.FinalSummary, r.profile)
		out.ret = &ret
	}
	if !r.noProbes {
		out.probes = scoreRun(j, tl, rec, r.profile, r.workers())
	}
	return out
}

// recorder remembers what each summarizer call of one simulation
// compacted, for the must-keep retention. A call's messages are kept as
// indices into one table of the messages met, each value once: with a
// small window there are tens of thousands of calls, most of them undone
// by a guardrail, each compacting every message since the last kept
// compaction, and copies of those messages made memory grow far faster
// than the history.
type recorder struct {
	inner strategy.Summarizer
	msgs  []strategy.Message
	byID  map[string][]int32 // indices into msgs of the values met with that id
	calls [][]int32
	// prev is each call's previous summary (the strategy's own string,
	// not a copy).
	prev []string
	// tokens are each answered call's request and summary, for the cost.
	tokens []callTokens
	// targets are each call's target size (UTF-16 units), for the
	// grounded scores.
	targets []int
}

func (r *recorder) Summarize(ctx context.Context, req strategy.SummaryRequest) (string, error) {
	r.record(req.Compacted, req.Previous)
	r.targets = append(r.targets, req.TargetChars)
	text, err := r.inner.Summarize(ctx, req)
	if err == nil {
		r.tokens = append(r.tokens, callTokens{in: textTokens(req.System) + textTokens(req.User), out: textTokens(text)})
	}
	return text, err
}

// messages are the messages call k compacted.
func (r *recorder) messages(k int) []strategy.Message {
	out := make([]strategy.Message, len(r.calls[k]))
	for i, m := range r.calls[k] {
		out[i] = r.msgs[m]
	}
	return out
}

// record adds one call's compacted messages and previous summary.
func (r *recorder) record(compacted []strategy.Message, previous string) {
	if r.byID == nil {
		r.byID = map[string][]int32{}
	}
	idx := make([]int32, len(compacted))
	for i := range compacted {
		idx[i] = r.intern(&compacted[i])
	}
	r.calls = append(r.calls, idx)
	r.prev = append(r.prev, previous)
}

// intern returns the index in r.msgs of a message equal to m, adding m
// when there is none.
func (r *recorder) intern(m *strategy.Message) int32 {
	for _, k := range r.byID[m.ID] {
		if sameMessage(&r.msgs[k], m) {
			return k
		}
	}
	k := int32(len(r.msgs))
	r.msgs = append(r.msgs, *m)
	r.byID[m.ID] = append(r.byID[m.ID], k)
	return k
}

func sameMessage(a, b *strategy.Message) bool {
	return a.ID == b.ID && a.ParentID == b.ParentID && a.Role == b.Role && a.Content == b.Content &&
		a.ToolCallID == b.ToolCallID && a.CreatedAt == b.CreatedAt && a.Raw == b.Raw &&
		a.StoredSummary == b.StoredSummary && a.Synthetic == b.Synthetic && slices.Equal(a.ToolCalls, b.ToolCalls)
}

// kept is the union (by id, first seen first) of the messages the kept
// compactions summarized. Summarizer calls and the steps that report one
// pair up in order; when they do not, every call counts.
func (r *recorder) kept(tl *strategy.Timeline) []strategy.Message {
	seen := map[string]bool{}
	var out []strategy.Message
	for _, k := range usedCalls(tl, len(r.calls)) {
		for _, i := range r.calls[k] {
			if m := &r.msgs[i]; !seen[m.ID] {
				seen[m.ID] = true
				out = append(out, *m)
			}
		}
	}
	return out
}

// keptCompacted is recorder.kept for the calls that compacted calls.
func keptCompacted(tl *strategy.Timeline, calls [][]strategy.Message) []strategy.Message {
	var r recorder
	for _, c := range calls {
		r.record(c, "")
	}
	return r.kept(tl)
}

// usedCalls lists the n summarizer calls that count for kept: those of
// the kept compactions, or every call when calls and steps do not pair up.
func usedCalls(tl *strategy.Timeline, n int) []int {
	var use []int
	k := 0
	paired := true
	for _, s := range tl.Steps {
		if !s.SummarizerCalled {
			continue
		}
		if k >= n {
			paired = false
			break
		}
		if s.Rejected == "" && s.Compacted > 0 {
			use = append(use, k)
		}
		k++
	}
	if !paired || k != n {
		use = make([]int, n)
		for i := range use {
			use[i] = i
		}
	}
	return use
}

// CascadeSummarizer sends a strategy's own prompt to a model or the
// cascade. Equal requests (a sweep repeats many) are sent once.
type CascadeSummarizer struct {
	c     *cascade.Cascade
	order []string

	mu     sync.Mutex
	cache  map[[32]byte]string
	calls  int
	cached int
	cost   float64
}

// NewCascadeSummarizer sends through c, trying the models of order.
func NewCascadeSummarizer(c *cascade.Cascade, order []string) *CascadeSummarizer {
	return &CascadeSummarizer{c: c, order: order, cache: map[[32]byte]string{}}
}

// Summarize implements strategy.Summarizer.
func (s *CascadeSummarizer) Summarize(ctx context.Context, req strategy.SummaryRequest) (string, error) {
	key := sha256.Sum256([]byte(req.System + "\x00" + req.User))
	s.mu.Lock()
	if text, ok := s.cache[key]; ok {
		s.cached++
		s.mu.Unlock()
		return text, nil
	}
	s.mu.Unlock()
	out, err := s.c.Run(ctx, cascade.Input{System: req.System, User: req.User}, s.order)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if out != nil {
		s.cost += out.CostUSD
	}
	if err != nil {
		return "", err
	}
	s.cache[key] = out.Text
	return out.Text, nil
}

// Stats reports the requests sent, those answered from the cache, and
// their cost in US dollars.
func (s *CascadeSummarizer) Stats() (calls, cached int, costUSD float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls, s.cached, s.cost
}
