// Package replay owns replaying playground bundles: building each request
// (the bundle's own prompt files byte for byte, or rebuilt with another
// prompt pack), sending it through a model or the cascade with bounded
// parallelism, and recording each result beside the bundle under
// replays/<run>/ (written atomically by internal/bundle), resumably.
package replay

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
)

// Generator sends one request through an ordered list of models.
type Generator interface {
	Run(ctx context.Context, in cascade.Input, order []string) (*cascade.Outcome, error)
	Describe(in cascade.Input, order []string) []cascade.DryRun
}

// Redacter is a Generator that knows its keys (*cascade.Cascade): every
// text of a record, of output.md and of an Item goes through Redact before
// it is written or returned. Without it, URL credentials are still
// removed.
type Redacter interface {
	Redact(s string) string
}

// Request is what one bundle sends.
type Request struct {
	Bundle string
	Input  cascade.Input
	// Pack names the prompt pack the request was rebuilt with; "" means the
	// bundle's own files.
	Pack string
}

// BuildRequest reads a bundle's request: its own system prompt and user
// message, or, with pack, the two rebuilt from the compact history and
// the previous briefing size in the metadata.
func BuildRequest(dir string, pack *prompt.Pack, packName, locale string) (Request, error) {
	r := Request{Bundle: dir}
	if pack == nil {
		sys, err := fsutil.ReadFileLimit(filepath.Join(dir, bundle.FileSystemPrompt), fsutil.MaxJSStringBytes)
		if err != nil {
			return r, err
		}
		user, err := fsutil.ReadFileLimit(filepath.Join(dir, bundle.FileUserMessage), fsutil.MaxJSStringBytes)
		if err != nil {
			return r, err
		}
		r.Input = cascade.Input{System: string(sys), User: string(user)}
		return r, nil
	}
	compact, err := fsutil.ReadFileLimit(filepath.Join(dir, bundle.FileCompact), fsutil.MaxJSStringBytes)
	if err != nil {
		return r, fmt.Errorf("--pack needs %s: %w", bundle.FileCompact, err)
	}
	md, err := bundle.ReadMetadata(dir)
	if err != nil {
		return r, err
	}
	prev := 0
	if md.PreviousCompressionSize != nil {
		prev = *md.PreviousCompressionSize
	}
	r.Input = cascade.Input{System: pack.System(), User: pack.UserMessage(string(compact), prev, locale), TargetChars: pack.TargetChars}
	r.Pack = packName
	return r, nil
}

// Usage is the tokens of a replay.
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
}

// Record is replay.json.
type Record struct {
	Run string `json:"run"`
	// Repeat is, for run RUN@I of compact replay --repeat, I (2 and
	// on): its request was the first repeat's, sent afresh.
	Repeat int `json:"repeat,omitempty"`
	// Bundle is the bundle directory as it was found under the paths
	// replay was given (relative when they were).
	Bundle string   `json:"bundle"`
	Models []string `json:"models"`
	// Model is the model that answered, nil when none did.
	Model    *string           `json:"model"`
	Provider string            `json:"provider,omitempty"`
	Attempts []cascade.Attempt `json:"attempts"`
	Usage    Usage             `json:"usage"`
	// CostUSD is rounded to the micro-dollar (cascade.RoundUSD).
	CostUSD float64 `json:"costUsd"`
	// Temperature is the value sent to the model that answered (or the
	// last one tried), nil when it was left out.
	Temperature  *float64 `json:"temperature"`
	Pack         string   `json:"pack"`
	SystemSha256 string   `json:"systemSha256"`
	UserSha256   string   `json:"userSha256"`
	OutputChars  int      `json:"outputChars"`
	OutputSha256 string   `json:"outputSha256,omitempty"`
	// OutputTruncated: the answer was longer than cascade.max_answer_bytes
	// and output.md holds only that much of it; OutputOriginalBytes is its
	// length before the cut.
	OutputTruncated     bool   `json:"outputTruncated,omitempty"`
	OutputOriginalBytes int    `json:"outputOriginalBytes,omitempty"`
	LatencyMs           int64  `json:"latencyMs"`
	Error               string `json:"error,omitempty"`
	// Batch is set when the answer (or the last failure) came through a
	// provider's batch API (compact replay --batch): which batch.
	Batch *BatchRef `json:"batch,omitempty"`
	// CachedInputTokens are the input tokens the provider reported as
	// read from its prompt cache, where it reports them (a part of
	// Usage.InputTokens).
	CachedInputTokens int64  `json:"cachedInputTokens,omitempty"`
	ToolVersion       string `json:"toolVersion"`
	StartedAt         string `json:"startedAt"`
	FinishedAt        string `json:"finishedAt"`
}

// OK reports whether the replay produced an answer.
func (r *Record) OK() bool { return r.Model != nil }

// ReadRecord reads <bundle>/replays/<run>/replay.json.
func ReadRecord(dir, run string) (*Record, error) {
	path := bundle.RecordPath(dir, run)
	data, err := fsutil.ReadFileLimit(path, bundle.MaxRecordBytes)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &r, nil
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Options of a replay run.
type Options struct {
	Bundles []string
	Models  []string // the order tried; one model or the cascade's
	Run     string   // replays/<Run>/
	// Repeat is how many times each bundle is replayed (--repeat): as
	// the runs Run, Run@2, …, Run@Repeat (RepeatRuns). 0 or 1: once.
	Repeat int
	Pack   *prompt.Pack
	// PackName is recorded; "" means the bundles' own prompt files.
	PackName    string
	Locale      string
	Jobs        int
	Force       bool
	ToolVersion string
	// Now is the clock (tests).
	Now func() time.Time
}

// Item is the outcome for one bundle, or for one repeat of it.
type Item struct {
	Bundle string `json:"bundle"`
	// Run is the repeat's run name, when each bundle is replayed more
	// than once (Options.Repeat > 1).
	Run     string  `json:"run,omitempty"`
	Status  string  `json:"status"` // ok, failed, skipped, error
	Model   string  `json:"model,omitempty"`
	Chars   int     `json:"outputChars"`
	Usage   Usage   `json:"usage"`
	CostUSD float64 `json:"costUsd"`
	Latency int64   `json:"latencyMs"`
	// Truncated: the answer kept was cut (Record.OutputTruncated).
	Truncated bool   `json:"outputTruncated,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Item statuses.
const (
	StatusOK      = "ok"      // answered and recorded
	StatusFailed  = "failed"  // every model failed; the failure is recorded
	StatusSkipped = "skipped" // a result for the same run, models and prompt exists
	StatusError   = "error"   // the bundle could not be read or written
)

// Progress is the running tally.
type Progress struct {
	Total, Done, Failed, Skipped, Running int
	Usage                                 Usage
	CostUSD                               float64
}

// Hooks report progress.
type Hooks struct {
	Progress func(Progress)
	// Leftovers, if set, is called once before any bundle is replayed
	// when leftovers of an interrupted run were removed (removed > 0) or
	// could not be (err != nil); see bundle.CleanRunLeftovers.
	Leftovers func(removed int, err error)
}

// Run replays every bundle, Options.Repeat times. stop cancels: no new
// request starts after it is done, requests in flight finish or time out,
// and nothing partial is written. The returned items are in bundle order,
// a bundle's repeats in turn; those never started are left out.
func Run(stop context.Context, gen Generator, opts Options, hooks Hooks) ([]Item, error) {
	if opts.Jobs <= 0 {
		opts.Jobs = 4
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	runs := RepeatRuns(opts.Run, opts.Repeat)
	removed, cleanErr := 0, error(nil)
	for _, run := range runs {
		n, err := bundle.CleanRunLeftovers(opts.Bundles, run)
		removed += n
		cleanErr = cmp.Or(cleanErr, err)
	}
	if (removed > 0 || cleanErr != nil) && hooks.Leftovers != nil {
		hooks.Leftovers(removed, cleanErr)
	}
	type task struct{ bundle, run string }
	tasks := make([]task, 0, len(opts.Bundles)*len(runs))
	for _, b := range opts.Bundles {
		for _, run := range runs {
			tasks = append(tasks, task{b, run})
		}
	}
	items := make([]*Item, len(tasks))
	var mu sync.Mutex
	prog := Progress{Total: len(tasks)}
	report := func(f func(*Progress)) {
		mu.Lock()
		f(&prog)
		p := prog
		mu.Unlock()
		if hooks.Progress != nil {
			hooks.Progress(p)
		}
	}
	sem := make(chan struct{}, opts.Jobs)
	var wg sync.WaitGroup
	for i, tk := range tasks {
		select {
		case <-stop.Done():
		case sem <- struct{}{}:
		}
		if stop.Err() != nil {
			break
		}
		wg.Add(1)
		report(func(p *Progress) { p.Running++ })
		go func(i int, tk task) {
			defer wg.Done()
			defer func() { <-sem }()
			it := replayOne(gen, opts, tk.bundle, tk.run)
			if len(runs) > 1 {
				it.Run = tk.run
			}
			items[i] = &it
			report(func(p *Progress) {
				p.Running--
				p.Done++
				switch it.Status {
				case StatusFailed, StatusError:
					p.Failed++
				case StatusSkipped:
					p.Skipped++
				}
				p.Usage.InputTokens += it.Usage.InputTokens
				p.Usage.OutputTokens += it.Usage.OutputTokens
				p.CostUSD = cascade.RoundUSD(p.CostUSD + it.CostUSD)
			})
		}(i, tk)
	}
	wg.Wait()
	var out []Item
	for _, it := range items {
		if it != nil {
			out = append(out, *it)
		}
	}
	if stop.Err() != nil && len(out) < len(tasks) {
		return out, fmt.Errorf("interrupted after %d of %s: %w", len(out), Count(len(opts.Bundles), opts.Repeat), stop.Err())
	}
	return out, nil
}

// replayOne runs one bundle. In-flight requests are not cancelled by stop:
// each attempt has its own timeout. A bundle whose request never went out
// (no model could be sent to: no key, no model entry) gets no record: it
// is an error of the run, not an answer of a model.
func replayOne(gen Generator, opts Options, dir, run string) Item {
	redact := func(s string) string { return cascade.Redact(s) }
	if r, ok := gen.(Redacter); ok {
		redact = r.Redact
	}
	it := replayOneRaw(gen, opts, dir, run, redact)
	it.Error = redact(it.Error)
	return it
}

func replayOneRaw(gen Generator, opts Options, dir, run string, redact func(string) string) Item {
	it := Item{Bundle: dir}
	req, err := BuildRequest(dir, opts.Pack, opts.PackName, opts.Locale)
	if err != nil {
		it.Status, it.Error = StatusError, err.Error()
		return it
	}
	_, req.Input.Repeat = RepeatOf(run)
	sysSha, userSha := sha(req.Input.System), sha(req.Input.User)
	if !opts.Force {
		if old, ok := Answered(dir, run, opts.Models, sysSha, userSha); ok {
			it.Status, it.Model, it.Chars = StatusSkipped, *old.Model, old.OutputChars
			return it
		}
	}
	started := opts.Now()
	out, runErr := gen.Run(context.Background(), req.Input, opts.Models)
	rec := Record{
		Run: run, Bundle: filepath.Clean(dir), Models: opts.Models, Pack: opts.PackName,
		SystemSha256: sysSha, UserSha256: userSha, ToolVersion: opts.ToolVersion,
		StartedAt: started.UTC().Format(time.RFC3339Nano), Attempts: []cascade.Attempt{},
	}
	if rec.Pack == "" {
		rec.Pack = "bundle"
	}
	if req.Input.Repeat > 1 {
		rec.Repeat = req.Input.Repeat
	}
	var failed *cascade.FailedError
	switch {
	case runErr == nil && out != nil:
		m := out.Model
		rec.Model, rec.Provider = &m, out.Provider
		rec.Attempts = out.Attempts
		rec.Usage = Usage{InputTokens: out.Usage.InputTokens, OutputTokens: out.Usage.OutputTokens}
		rec.CostUSD, rec.LatencyMs = cascade.RoundUSD(out.CostUSD), out.LatencyMs
		rec.OutputTruncated, rec.OutputOriginalBytes = out.Truncated, out.OriginalBytes
	case errors.As(runErr, &failed) && !failed.Sent():
		it.Status, it.Error = StatusError, "nothing sent: "+runErr.Error()
		return it
	case errors.As(runErr, &failed):
		rec.Attempts = failed.Attempts
		rec.Error = runErr.Error()
		for _, a := range failed.Attempts {
			rec.Usage.InputTokens += a.Usage.InputTokens
			rec.Usage.OutputTokens += a.Usage.OutputTokens
			rec.CostUSD = cascade.RoundUSD(rec.CostUSD + a.CostUSD)
			rec.LatencyMs += a.LatencyMs
		}
	default:
		it.Status, it.Error = StatusError, fmt.Sprint(runErr)
		return it
	}
	if n := len(rec.Attempts); n > 0 {
		rec.Temperature = rec.Attempts[n-1].Temperature
	}
	rec.FinishedAt = opts.Now().UTC().Format(time.RFC3339Nano)
	text := ""
	if out != nil && rec.OK() {
		text = redact(out.Text)
		rec.OutputChars = history.Len16(text)
		rec.OutputSha256 = sha(text)
	}
	redactRecord(&rec, redact)
	if err := writeResult(dir, run, &rec, text); err != nil {
		it.Status, it.Error = StatusError, err.Error()
		return it
	}
	it.Usage, it.CostUSD, it.Latency, it.Chars = rec.Usage, rec.CostUSD, rec.LatencyMs, rec.OutputChars
	it.Truncated = rec.OutputTruncated
	if rec.OK() {
		it.Status, it.Model = StatusOK, *rec.Model
	} else {
		it.Status, it.Error = StatusFailed, rec.Error
	}
	return it
}

// redactRecord passes every text a server may have put into rec through
// redact: errors, request ids (header values), finish reasons, notes. The
// attempts are copied, not changed in place.
func redactRecord(rec *Record, redact func(string) string) {
	rec.Error = redact(rec.Error)
	attempts := make([]cascade.Attempt, len(rec.Attempts))
	for i, a := range rec.Attempts {
		a.Error, a.RequestID, a.FinishReason = redact(a.Error), redact(a.RequestID), redact(a.FinishReason)
		a.Omitted = redactAll(a.Omitted, redact)
		tries := make([]cascade.Try, len(a.Tries))
		for j, tr := range a.Tries {
			tr.Error, tr.RequestID = redact(tr.Error), redact(tr.RequestID)
			tries[j] = tr
		}
		if a.Tries != nil {
			a.Tries = tries
		}
		attempts[i] = a
	}
	if rec.Attempts != nil {
		rec.Attempts = attempts
	}
}

func redactAll(list []string, redact func(string) string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = redact(s)
	}
	return out
}

// writeResult writes replays/<run>/ (bundle.WriteRun): the record and,
// when it has one, the answer.
func writeResult(dir, run string, rec *Record, text string) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return bundle.WriteRun(dir, run, append(data, '\n'), rec.OK(), []byte(history.ToWellFormed(text)))
}

// ValidRunName checks a --run name: one path segment.
func ValidRunName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("run name %q must be one directory name, not starting with a dot", name)
	}
	return nil
}

// plural is "1 bundle", "2 bundles": word's plural adds s.
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
