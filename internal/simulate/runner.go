package simulate

import (
	"context"
	"crypto/sha256"
	"fmt"
	"runtime"
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
}

// job is one simulation: strategy name on in with cfg.
type job struct {
	in   *Input
	name string
	cfg  strategy.Config
}

type result struct {
	tl  *strategy.Timeline
	ret *convo.Retention // nil without a summary
	err error
}

// run runs jobs, at most r.jobs at once. An interrupt returns the
// context's error; a failed job an error naming its history.
func (r *runner) run(ctx context.Context, jobs []job) ([]run, error) {
	res := make([]result, len(jobs))
	workers := r.jobs
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
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

func (r *runner) one(ctx context.Context, j job) result {
	rec := &recorder{inner: r.sum}
	tl, err := r.simulate(ctx, j.in.Messages(j.name), j.name, j.cfg, rec)
	if err != nil {
		return result{err: err}
	}
	out := result{tl: tl}
	if tl.FinalSummary != "" && len(rec.compacted) > 0 {
		ret := convo.MeasureRetention(keptCompacted(tl, rec.compacted), tl.FinalSummary, r.profile)
		out.ret = &ret
	}
	return out
}

// recorder remembers what each summarizer call of one simulation
// compacted, for the must-keep retention.
type recorder struct {
	inner     strategy.Summarizer
	compacted [][]strategy.Message
}

func (r *recorder) Summarize(ctx context.Context, req strategy.SummaryRequest) (string, error) {
	r.compacted = append(r.compacted, req.Compacted)
	return r.inner.Summarize(ctx, req)
}

// keptCompacted is the union (by id, first seen first) of the messages the
// kept compactions summarized. Summarizer calls and the steps that report
// one pair up in order; when they do not, every call counts.
func keptCompacted(tl *strategy.Timeline, calls [][]strategy.Message) []strategy.Message {
	var use [][]strategy.Message
	k := 0
	paired := true
	for _, s := range tl.Steps {
		if !s.SummarizerCalled {
			continue
		}
		if k >= len(calls) {
			paired = false
			break
		}
		if s.Rejected == "" && s.Compacted > 0 {
			use = append(use, calls[k])
		}
		k++
	}
	if !paired || k != len(calls) {
		use = calls
	}
	seen := map[string]bool{}
	var out []strategy.Message
	for _, c := range use {
		for _, m := range c {
			if !seen[m.ID] {
				seen[m.ID] = true
				out = append(out, m)
			}
		}
	}
	return out
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
