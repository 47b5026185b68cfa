// Package extract owns the extraction of compression events from a
// stagewise agent database into playground bundles: which chats and
// messages count, how bundles are numbered and named, the five files of
// each bundle, and writing the tree so that nothing is ever half-written.
// It reads through internal/store, decodes through internal/history,
// serializes through internal/serialize and fills the prompt pack.
package extract

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sync/semaphore"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/shard"
	"github.com/compactlab/compact/internal/store"
)

// Sources of messages.
const (
	SourceMessages = "messages" // the agentMessages table (live)
	SourceHistory  = "history"  // the deprecated agentInstances.history column
)

// Options of one extraction.
type Options struct {
	DBPath      string
	Channel     string
	Source      string
	MinMessages int
	// SkillsDir resolves slash commands (e3e profile). Empty: nothing
	// resolves, every id is listed as unresolved, links stay raw.
	SkillsDir string
	Pack      *prompt.Pack
	Locale    string
	Profile   *serialize.Profile
	// OutDir is the channel directory that receives the NNN-slug chat
	// directories.
	OutDir  string
	ChatIDs []string
	Force   bool
	// Workers decode and serialize chats in parallel (default:
	// GOMAXPROCS).
	Workers int
	// Writers create the bundle files (default 1).
	Writers int
	// NoContinuation leaves out continuation.xml, compact's own file of
	// what the chat did after each compaction: the tree is then the
	// upstream's, file for file.
	NoContinuation bool
	// Sample and Shard narrow the chats (after ChatIDs): the sample
	// first, then the shard of it (select.go). The chat directories are
	// numbered within what is written, so a shard's tree holds the same
	// bundles, byte for byte, as the whole run's, under directory numbers
	// of its own.
	Sample shard.Sampling
	Shard  shard.Spec
}

// Continuation bounds: the turns after a compaction a continuation
// keeps (up to the next compaction), and each tool output's bytes. On the
// real Claude Code corpus the grounded measure's validity figures are the
// same at 100, 200 and 2,000 turns (docs/measures.md); the bound keeps a
// chat that goes on for thousands of turns after its last compaction
// from writing them all again.
const (
	ContinuationTurns  = 2000
	ContinuationOutput = 16 << 10
)

// Warning is one problem that did not stop the run.
type Warning struct {
	ChatID string `json:"chatId,omitempty"`
	// ChatTitle is set when the warning names the chat by its title too
	// (a chat that could not be read at all).
	ChatTitle string `json:"chatTitle,omitempty"`
	Message   int    `json:"message"` // message index, -1 when not about one
	Text      string `json:"text"`
}

func (w Warning) String() string {
	var b strings.Builder
	if w.ChatID != "" {
		fmt.Fprintf(&b, "chat %s", w.ChatID)
		if w.ChatTitle != "" {
			fmt.Fprintf(&b, " %q", w.ChatTitle)
		}
		if w.Message >= 0 {
			fmt.Fprintf(&b, " message %d", w.Message)
		}
		b.WriteString(": ")
	}
	b.WriteString(w.Text)
	return b.String()
}

// ChatResult is the outcome for one chat.
type ChatResult struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Dir      string    `json:"directory,omitempty"`
	Messages int       `json:"messages"`
	Points   int       `json:"compressions"`
	Bundles  int       `json:"bundles"`
	Skipped  string    `json:"skipped,omitempty"` // why the chat was not extracted
	Warnings []Warning `json:"warnings,omitempty"`
}

// Summary is the outcome of a run.
type Summary struct {
	DB            string       `json:"db"`
	SchemaVersion int          `json:"schemaVersion"`
	Source        string       `json:"source"`
	Channel       string       `json:"channel"`
	OutDir        string       `json:"outDir"`
	Chats         int          `json:"chats"` // chats considered
	Extracted     int          `json:"extracted"`
	Skipped       int          `json:"skipped"`
	Unreadable    int          `json:"unreadable,omitempty"` // of the skipped: rows on a damaged page (store.DamagedError)
	Bundles       int          `json:"bundles"`
	SkillsLoaded  int          `json:"skillsLoaded"`
	PerChat       []ChatResult `json:"perChat"`
	Warnings      []Warning    `json:"warnings"`
	// Selection is the sample and the shard, when given.
	Selection *shard.Selection `json:"selection,omitempty"`
}

// Hooks let the caller show progress and warnings as they happen. They are
// called one at a time from the goroutine that called Run, never
// concurrently, and a chat's warnings come in chat order.
type Hooks struct {
	Warn     func(Warning)
	Progress func(done, total, bundles int)
	// Leftovers, if set, is called once, before the run writes, when it
	// removed what killed runs had left beside the output (removed > 0)
	// or could not (err != nil); see CleanStaleStaging.
	Leftovers func(removed int, err error)
	// Removing, if set, is called (from another goroutine) when an
	// interrupt comes while the run removes its staging directory or the
	// output it replaced, and one more interrupt will stop the removal.
	Removing func()
	// Selected, if set, is called once, before anything is written, with
	// what a sample or a shard took of the chats.
	Selected func(*shard.Selection)
}

// MissingChatsError is returned, before anything is written, when
// ChatIDs names chats the database does not hold.
type MissingChatsError struct {
	DB  string
	IDs []string // in the order given, without repeats
}

func (e *MissingChatsError) Error() string {
	what := "no such chat"
	if len(e.IDs) > 1 {
		what = "no such chats"
	}
	return fmt.Sprintf("%s in %s: %s", what, e.DB, strings.Join(e.IDs, ", "))
}

// ErrOutputNotEmpty is returned when the output directory holds files and
// Force is not set.
var ErrOutputNotEmpty = errors.New("output directory is not empty")

// Run extracts every compression event of the database into opts.OutDir.
func Run(ctx context.Context, opts Options, hooks Hooks) (*Summary, error) {
	if opts.Pack == nil {
		return nil, errors.New("extract: no prompt pack")
	}
	if opts.Profile == nil {
		opts.Profile = serialize.Profiles["e3e"]
	}
	if opts.Source == "" {
		opts.Source = SourceMessages
	}
	if opts.Source != SourceMessages && opts.Source != SourceHistory {
		return nil, fmt.Errorf("unknown source %q (want messages or history)", opts.Source)
	}
	if err := checkOutDir(opts.OutDir, opts.Force); err != nil {
		return nil, err
	}
	snap, err := store.OpenSnapshot(ctx, opts.DBPath)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	if opts.Source == SourceMessages && !snap.HasMessagesTable() {
		return nil, &store.NoMessagesTableError{Path: opts.DBPath, Version: snap.Version()}
	}
	if opts.Source == SourceHistory && !snap.HasHistoryColumn() {
		return nil, &store.NoHistoryColumnError{Path: opts.DBPath, Version: snap.Version()}
	}

	sum := &Summary{DB: opts.DBPath, SchemaVersion: snap.Version(), Source: opts.Source, Channel: opts.Channel, OutDir: opts.OutDir, Warnings: []Warning{}, PerChat: []ChatResult{}}
	x := &extractor{opts: opts, hooks: hooks, sum: sum}
	x.setSystem()
	if opts.Profile.SlashCommands && opts.SkillsDir != "" {
		skills, err := serialize.LoadSkills(opts.SkillsDir)
		if err != nil {
			x.warn(Warning{Message: -1, Text: fmt.Sprintf("skills directory not found: %s; no slash command resolves", opts.SkillsDir)})
		} else {
			x.skills = skills
			sum.SkillsLoaded = len(skills.List)
			for _, w := range skills.Warnings {
				x.warn(Warning{Message: -1, Text: "skill " + w})
			}
		}
	}

	all, err := snap.Chats(ctx)
	if err != nil {
		return nil, err
	}
	chats, missing := store.SelectChats(all, opts.ChatIDs)
	if len(missing) > 0 {
		// A typo in an id: say so before anything is written.
		return nil, &MissingChatsError{DB: opts.DBPath, IDs: missing}
	}
	if opts.Shard.Active() || opts.Sample.Size > 0 {
		var stats map[string]store.ChatStat
		if opts.Sample.Size > 0 {
			if stats, err = snap.ChatStats(ctx, opts.Source == SourceHistory); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				x.warn(Warning{Message: -1, Text: fmt.Sprintf("cannot count the chats' messages for the sample's strata (%v); every chat counts as empty", err)})
			}
		}
		chats, sum.Selection = selectChats(chats, stats, opts.Shard, opts.Sample)
		if hooks.Selected != nil {
			hooks.Selected(sum.Selection)
		}
	}
	sum.Chats = len(chats)
	if x.blobs, err = snap.BlobColumns(ctx); err != nil {
		return nil, err
	}

	if n, err := CleanStaleStaging(opts.OutDir); (n > 0 || err != nil) && hooks.Leftovers != nil {
		hooks.Leftovers(n, err)
	}
	staging, err := makeStaging(opts.OutDir)
	if err != nil {
		return nil, err
	}
	x.staging = staging
	defer fsutil.Release(staging)
	ok := false
	defer func() {
		if !ok {
			// A second interrupt stops the removal; the next run removes the rest.
			removeInterruptible(ctx, staging, hooks.Removing)
		}
	}()

	if err := x.run(ctx, snap, chats); err != nil {
		return nil, err
	}
	if err := publish(ctx, staging, opts.OutDir, opts.Force, hooks.Removing); err != nil {
		return nil, err
	}
	ok = true
	return sum, nil
}

type extractor struct {
	opts    Options
	hooks   Hooks
	sum     *Summary
	skills  *serialize.Skills
	staging string
	// blobs names the BLOB columns (id, title, history) of the chats
	// that have any, by id (store.Snap.BlobColumns).
	blobs map[string][]string
	mu    sync.Mutex
	// system is the system prompt file of every bundle; systemLone that
	// it may hold a lone surrogate.
	system     []byte
	systemLone bool
	// outFree holds the memory of written bundles, for the next chats'.
	outFree chan []byte
}

// setSystem prepares the system prompt file, the same in every bundle.
func (x *extractor) setSystem() {
	x.system = []byte(x.opts.Pack.System())
	_, x.systemLone = history.Len16Scan(x.opts.Pack.System())
}

func (x *extractor) warn(w Warning) {
	x.mu.Lock()
	x.sum.Warnings = append(x.sum.Warnings, w)
	x.mu.Unlock()
	if x.hooks.Warn != nil {
		x.hooks.Warn(w)
	}
}

// job is one chat on its way through the pipeline: read (in order, one
// snapshot), decode and write (in parallel), then numbered (in order).
type job struct {
	seq   int
	chat  store.Chat
	rows  []store.MessageRow
	mem   *chatMem // the memory of the rows' texts and decoded values, recycled once processed
	hist  string
	hnull bool
	res   ChatResult
	tmp   string // the chat's directory in staging, before numbering
	// out holds the chat's bundles, built by a worker, until the writer
	// has put them on disk.
	out      []bundleOut
	outBytes int64  // what out holds, as counted against writeBudget
	buf      []byte // the memory of out's files (but the system prompt), recycled once written
	mkdir    bool   // the chat has compression points: its directory exists even if no bundle does
	done     chan struct{}
	// unreadable is why the chat's rows could not be read (a damaged
	// page); the chat is then skipped.
	unreadable *store.DamagedError
	// blobs names the chat's columns stored as BLOBs (id, title,
	// history); a BLOB id skips the chat.
	blobs []string
}

// writeBudget bounds the bytes of bundles built but not yet written.
const writeBudget = 64 << 20

// bundleBytes is the size of the chat's bundles in memory.
func (j *job) bundleBytes() int64 {
	var n int64
	for _, b := range j.out {
		for _, f := range b.files {
			n += int64(len(f.data))
		}
	}
	return n
}

// bundleOut is one compression-NNN directory, in memory.
type bundleOut struct {
	name  string
	files [bundle.FileCount + 1]fileOut // the five, then compact's continuation (no name: none)
}

type fileOut struct {
	name string
	data []byte
	// mayLone is false when data is known to hold no lone surrogate
	// (history.Len16Scan), so that bundle.WriteNew need not look.
	mayLone bool
}

func (x *extractor) run(ctx context.Context, snap *store.Snap, chats []store.Chat) error {
	workers := x.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Memory is bounded by the chats read but not yet processed (jobs)
	// and the bundles built but not yet written (toWrite, below). A
	// processed chat keeps only its result until its turn to be numbered,
	// so ordered can be long: a slow chat at the head of the order then
	// never stops the reader, and so never idles the workers.
	jobs := make(chan *job, 2*workers)
	ordered := make(chan *job, 4096)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The memory of a chat's texts and decoded values goes round: a
	// worker hands it back once the chat is processed, and the reader
	// copies the next chat's rows into it. That saves allocating (and
	// zeroing, and collecting) the whole database's text, and more than
	// as much in values, once more.
	spare := make(chan *chatMem, memsKept)
	// So does the memory of the bundles, once written.
	x.outFree = make(chan []byte, outsKept)

	var readErr error
	go func() {
		defer close(jobs)
		defer close(ordered)
		for i, c := range chats {
			j := &job{seq: i, chat: c, done: make(chan struct{}), blobs: x.blobs[c.ID]}
			var err error
			if slices.Contains(j.blobs, "id") {
				// Its rows cannot be found by an id read as text: process
				// skips it.
			} else if x.opts.Source == SourceMessages {
				select {
				case j.mem = <-spare:
				default:
					j.mem = &chatMem{arena: history.NewOwnedArena()}
				}
				j.rows, err = snap.MessagesIn(ctx, c.ID, &j.mem.text)
			} else {
				j.hist, j.hnull, err = snap.History(ctx, c.ID)
			}
			var de *store.DamagedError
			if err != nil && ctx.Err() == nil && errors.As(err, &de) && de.ChatID == c.ID {
				// A damaged page costs this chat alone: the snapshot
				// is still open, and the next chats are read from it.
				j.rows, j.hist, j.unreadable, err = nil, "", de, nil
			}
			if err != nil {
				// After a cancel (the caller's, or another stage's
				// failure) the read fails because of it, often as "transaction
				// has already been committed or rolled back": that error
				// must not hide the real cause.
				if ctx.Err() == nil {
					readErr = fmt.Errorf("chat %s: %w", c.ID, err)
					cancel()
				}
				return
			}
			select {
			case ordered <- j:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	// The workers decode and serialize; one writer (by default) creates
	// the files. Two threads creating files at once cost the kernel nearly
	// twice as much per file on ext4 (measured on the 500 MB benchmark),
	// and one writer keeps up with both workers. Its queue holds up to 16
	// chats' bundles, and at most writeBudget bytes of them, so that a
	// slow moment of the disk does not stall the workers while memory
	// stays bounded whatever the chats' sizes.
	var wg sync.WaitGroup
	var workErr error
	var errOnce sync.Once
	fail := func(err error) { errOnce.Do(func() { workErr = err; cancel() }) }
	toWrite := make(chan *job, 16)
	budget := semaphore.NewWeighted(writeBudget)
	var wwg sync.WaitGroup
	writers := x.opts.Writers
	if writers <= 0 {
		writers = 1
	}
	for range writers {
		wwg.Add(1)
		go func() {
			defer wwg.Done()
			for j := range toWrite {
				if ctx.Err() == nil {
					if err := x.write(j); err != nil {
						fail(err)
					}
				}
				budget.Release(j.outBytes)
				j.out = nil
				if cap(j.buf) <= outKept {
					if testing.Testing() {
						// A file written from it later would show.
						scramble(j.buf[:cap(j.buf)])
					}
					select {
					case x.outFree <- j.buf[:0]:
					default:
					}
				}
				j.buf = nil
				close(j.done)
			}
		}()
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				select {
				case j.buf = <-x.outFree:
				default:
				}
				if err := x.process(j); err != nil {
					fail(err)
				}
				recycle(spare, j)
				j.outBytes = min(j.bundleBytes(), writeBudget)
				_ = budget.Acquire(context.Background(), j.outBytes) // never fails without a deadline
				toWrite <- j
			}
		}()
	}
	go func() {
		wg.Wait()
		close(toWrite)
	}()
	k, bundles, done := 0, 0, 0
	var seqErr error
	for j := range ordered {
		select {
		case <-j.done:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		// Warnings are reported here, in chat order, not from the
		// workers: the hooks are never called concurrently.
		for _, w := range j.res.Warnings {
			x.warn(w)
		}
		if j.res.Skipped == "" {
			k++
			name := ChatDirName(k, j.res.Title)
			if err := os.Rename(j.tmp, filepath.Join(x.staging, name)); err != nil {
				seqErr = err
				cancel()
				break
			}
			j.res.Dir = name
			x.sum.Extracted++
			bundles += j.res.Bundles
		} else {
			x.sum.Skipped++
			if j.unreadable != nil {
				x.sum.Unreadable++
			}
		}
		x.sum.Bundles = bundles
		x.sum.PerChat = append(x.sum.PerChat, j.res)
		done++
		if x.hooks.Progress != nil {
			x.hooks.Progress(done, len(chats), bundles)
		}
		j.rows, j.hist = nil, ""
	}
	cancel()
	for range ordered {
	}
	wg.Wait()
	wwg.Wait()
	for _, err := range []error{readErr, workErr, seqErr} {
		if err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil && done < len(chats) {
		return err
	}
	return nil
}

// chatMem is the memory of one chat on its way: its rows' texts and the
// values decoded from them.
type chatMem struct {
	text  store.Text
	arena *history.Arena
	// vals and errs are the memory of scratch.
	vals []history.Value
	errs []error
}

// scratch is the memory process needs per message of a chat.
type scratch struct {
	metas, msgs, summaries []history.Value
	metaErrs               []error
}

// scratch returns scratch memory for n messages, cleared: m's, or new
// memory without a chatMem.
func (m *chatMem) scratch(n int) scratch {
	if m == nil {
		return scratch{make([]history.Value, n), make([]history.Value, n), make([]history.Value, n), make([]error, n)}
	}
	if cap(m.vals) < 3*n {
		m.vals = make([]history.Value, 3*n)
	}
	if cap(m.errs) < n {
		m.errs = make([]error, n)
	}
	vals, errs := m.vals[:3*n], m.errs[:n]
	clear(vals)
	clear(errs)
	return scratch{vals[:n:n], vals[n : 2*n : 2*n], vals[2*n:], errs}
}

// memsKept is how many chatMems wait for their next chat at most; memKept
// the largest size one may have and still be kept (a huge chat's memory
// is left to the collector).
const (
	memsKept = 32
	memKept  = 64 << 20
)

// outsKept is how many pieces of bundle memory (job.buf) wait for their
// next chat at most; outKept the largest size one may have and still be
// kept.
const (
	outsKept = 16
	outKept  = 16 << 20
)

// recycle hands the memory of the job's texts and values back to the
// reader. It is called once the chat is processed: its bundles, warnings
// and results are built in memory of their own (the briefing, which may
// be a string read straight from a row, is copied), and nothing decoded
// from the rows is in use any more. The arena's values are cleared; under
// go test the texts are scrambled too, so that anything still pointing
// into them shows in the test's output (TestRecycledTextsNotInUse).
func recycle(spare chan<- *chatMem, j *job) {
	m := j.mem
	j.mem = nil
	if m == nil || m.text.Size()+m.arena.Size() > memKept {
		return
	}
	m.arena.Reset()
	if testing.Testing() {
		m.text.Scramble()
	}
	select {
	case spare <- m:
	default:
	}
}

// scramble overwrites b with 0xff bytes.
func scramble(b []byte) {
	for i := range b {
		b[i] = 0xff
	}
}

// decode turns the job's raw rows into messages; a chat that cannot be
// decoded is skipped with a warning.
func (x *extractor) decode(j *job, sc scratch) ([]history.Value, bool) {
	if x.opts.Source == SourceHistory {
		if j.hnull {
			x.chatWarn(j, -1, "the history column is NULL; skipped the chat")
			return nil, false
		}
		msgs, ok, err := history.DecodeMessagesLazy(j.hist)
		if err != nil {
			x.chatWarn(j, -1, fmt.Sprintf("history column: %v; skipped the chat", err))
			return nil, false
		}
		if !ok {
			v, _ := history.DecodeSuperJSON(j.hist)
			switch {
			case v.IsNullish():
				x.chatWarn(j, -1, fmt.Sprintf("the history column holds %s, not a message array: the upstream script crashes on it (TypeError: Cannot read properties of %s (reading 'length')) and writes nothing more; skipped the chat", v.Kind(), v.Kind()))
			default:
				// The upstream skips any other non-array silently, unless
				// it looks like an array with a compression point.
				j.res.Skipped = fmt.Sprintf("the history column holds %s, not a message array", history.Describe(v))
				if crash := arrayLikeCrash(v, x.opts.MinMessages); crash != "" {
					x.chatWarn(j, -1, fmt.Sprintf("%s: the upstream script crashes on it (%s) and writes nothing more; skipped the chat", j.res.Skipped, crash))
				}
			}
			return nil, false
		}
		return msgs, true
	}
	// The chat's messages live and die together, in one arena; one
	// goroutine at a time processes a chat, so the arena is owned.
	var ar *history.Arena
	if j.mem != nil {
		ar = j.mem.arena
	} else {
		ar = history.NewOwnedArena()
	}
	// The metadata first: it says where the last compression point is.
	// The parts after it are never serialized, so they are only checked
	// (history.RowPartsIn with unread). The values and the errors are
	// the same either way, and the errors are reported in the same order
	// as one pass would: row by row, a row's parts before its metadata.
	metas, msgs, metaErrs := sc.metas, sc.msgs, sc.metaErrs
	last := -1
	for i, r := range j.rows {
		metas[i], metaErrs[i] = history.RowMetadataIn(ar, r.Metadata, r.MetadataNull)
		if metaErrs[i] != nil {
			break // the chat is skipped at this row, or before it
		}
		if !history.MetadataSummary(metas[i]).IsUndefined() {
			last = i
		}
	}
	for i, r := range j.rows {
		if r.PartsNull {
			x.chatWarn(j, i, fmt.Sprintf("row seq %d: parts is NULL; skipped the chat", r.Seq))
			return nil, false
		}
		parts, err := history.RowPartsIn(ar, r.Parts, i >= last)
		if err == nil {
			err = metaErrs[i]
		}
		if err != nil {
			x.chatWarn(j, i, fmt.Sprintf("row seq %d: %v; skipped the chat", r.Seq, err))
			return nil, false
		}
		msgs[i] = history.RowMessageIn(ar, TextColumn(r.ID), r.Role, parts, metas[i])
	}
	return msgs, true
}

// chatWarn records a warning about one chat; run reports it in chat order.
func (x *extractor) chatWarn(j *job, msg int, text string) {
	w := Warning{ChatID: j.chat.ID, Message: msg, Text: text}
	j.res.Warnings = append(j.res.Warnings, w)
	if j.res.Skipped == "" && strings.HasSuffix(text, "skipped the chat") {
		j.res.Skipped = text
	}
}

// process decodes one chat and builds its bundles in memory (j.out), for
// write to put in a temporary directory in staging. It lets go of the
// chat's rows.
func (x *extractor) process(j *job) error {
	c := j.chat
	j.res = ChatResult{ID: c.ID, Title: c.Title}
	j.out, j.mkdir = nil, false
	defer func() { j.rows, j.hist = nil, "" }()
	if de := j.unreadable; de != nil {
		why := "its rows cannot be read: the database file is damaged (" + de.Code + ")"
		j.res.Warnings = append(j.res.Warnings, Warning{ChatID: c.ID, ChatTitle: c.Title, Message: -1, Text: why + "; skipped"})
		j.res.Skipped = why
		return nil
	}
	if len(j.blobs) > 0 {
		what := "column " + j.blobs[0] + " is"
		if len(j.blobs) > 1 {
			what = "columns " + strings.Join(j.blobs, " and ") + " are"
		}
		text := fmt.Sprintf("its %s stored as a BLOB: the upstream script's query (sqlite3 json_object) fails on it and the upstream run exits 1 having written nothing", what)
		if slices.Contains(j.blobs, "id") {
			j.res.Warnings = append(j.res.Warnings, Warning{ChatID: c.ID, Message: -1, Text: text + "; skipped the chat"})
			j.res.Skipped = "its id is a BLOB"
			return nil
		}
		j.res.Warnings = append(j.res.Warnings, Warning{ChatID: c.ID, Message: -1, Text: text + "; compact reads the bytes as text"})
	}
	sc := j.mem.scratch(len(j.rows))
	msgs, ok := x.decode(j, sc)
	if !ok {
		if j.res.Skipped == "" {
			j.res.Skipped = "could not be decoded"
		}
		return nil
	}
	j.res.Messages = len(msgs)
	if len(msgs) < x.opts.MinMessages {
		j.res.Skipped = fmt.Sprintf("%s, fewer than the minimum %d", plural(len(msgs), "message"), x.opts.MinMessages)
		return nil
	}
	// Each message's summary is read once: the points, the summaries and
	// where each serialization starts (serialize.Start) all come from it.
	summaries := sc.summaries
	if len(summaries) < len(msgs) { // the history column's messages
		summaries = make([]history.Value, len(msgs))
	}
	var points []int
	for i, m := range msgs {
		if m.IsNullish() {
			// The upstream script reads every message's metadata to find
			// the compression points: a null message ends its whole run.
			x.chatWarn(j, i, fmt.Sprintf("the message is %s: the upstream script crashes on it (TypeError: Cannot read properties of %s (reading 'metadata')) and writes nothing; compact leaves it out of the compact histories, as the upstream serializer does", m.Kind(), m.Kind()))
			continue
		}
		if summaries[i] = history.CompressedHistory(m); !summaries[i].IsUndefined() {
			points = append(points, i)
		}
	}
	j.res.Points = len(points)
	if len(points) == 0 {
		j.res.Skipped = "no compression points"
		return nil
	}
	j.mkdir = true
	if c.TitleNull {
		x.chatWarn(j, -1, "the title is NULL: the upstream script crashes on it (TypeError: Cannot read properties of null (reading 'replace')) and writes nothing; compact names the directory with an empty slug and writes a null chatTitle")
	}

	var scan *slashScan
	if x.opts.Profile.SlashCommands {
		scan = newSlashScan(msgs)
	}
	// Every bundle's files but the system prompt are built in one piece
	// of memory, the chat's (j.buf, which goes round too): the user
	// message with the compact history serialized in place inside it (the
	// compact history file is that part of it), the briefing, the
	// metadata. The files are cut from it once it is complete.
	buf := j.buf[:0]
	type span struct{ user, compact, compactEnd, userEnd, actualEnd, metaEnd, contEnd int }
	var spans []span
	// from is serialize.Start(msgs[:b]) for the point at hand: the last
	// earlier message with a truthy summary (every such message is a
	// point).
	from, fromSummary := 0, history.Value{}
	// Every message the serializer leaves out or cannot vouch for is a
	// warning naming it, once per chat however many bundles hold it; a
	// null message was named above.
	reported := map[[2]int]bool{}
	problems := func(p serialize.Problem) {
		if p.Upstream && msgs[p.Message].IsNullish() {
			return
		}
		key := [2]int{p.Message, p.Part}
		if reported[key] {
			return
		}
		reported[key] = true
		what := p.What
		if p.Part >= 0 {
			what = fmt.Sprintf("part %d: %s", p.Part, what)
		}
		if !p.Upstream {
			what += " (compact cannot vouch that this matches the upstream)"
		}
		x.chatWarn(j, p.Message, "compact history: "+what)
	}
	for cp, b := range points {
		if cp > 0 && summaries[points[cp-1]].Truthy() {
			from, fromSummary = points[cp-1], summaries[points[cp-1]]
		}
		n := cp + 1
		summary := summaries[b]
		if k := summary.Kind(); k != history.String && k != history.TypedArray {
			// fs.writeFileSync takes a string or a typed array: anything
			// else ends the upstream run (ERR_INVALID_ARG_TYPE), after it
			// wrote this bundle's first three files.
			x.chatWarn(j, b, fmt.Sprintf("compressedHistory is %s, neither a string nor a typed array: the upstream script crashes on it (ERR_INVALID_ARG_TYPE) and writes nothing more; skipped %s", history.Describe(summary), bundle.CompressionDirName(n)))
			continue
		}
		md := bundle.UpstreamMetadata{
			ChatID:                   c.ID,
			ChatTitle:                history.StringValue(c.Title),
			Channel:                  x.opts.Channel,
			CompressionNumber:        n,
			TotalCompressions:        len(points),
			TotalChatMessages:        len(msgs),
			BoundaryMessageIndex:     b,
			BoundaryMessageID:        msgs[b].Get("id"),
			TotalMessagesInSlice:     b,
			SerializedMessageCount:   b,
			PreviousCompressionIndex: -1,
		}
		if c.TitleNull {
			md.ChatTitle = history.NullValue()
		}
		if cp > 0 {
			prev := points[cp-1]
			md.PreviousCompressionIndex = prev
			md.SerializedMessageCount = b - prev
			md.PreviousCompressionSize = summaryLength(summaries[prev])
		}
		var slash map[string]serialize.SlashItem
		if scan != nil {
			ids, err := scan.idsBefore(b)
			if err != nil {
				x.chatWarn(j, err.Message, fmt.Sprintf("user part %d: %s: the upstream slash-command scan crashes on it (%s) and writes nothing; skipped %s", err.Part, err.What, err.JS, bundle.CompressionDirName(n)))
				continue
			}
			md.HasSlash = true
			slash, md.SlashIdsResolved = serialize.Resolve(ids, x.skills)
		}
		before, after := x.opts.Pack.UserMessageAround(md.PreviousCompressionSize, x.opts.Locale)
		var sp span
		sp.user = len(buf)
		buf = append(buf, before...)
		sp.compact = len(buf)
		buf = serialize.AppendSerializeFrom(buf, msgs[:b], from, fromSummary, serialize.Options{Profile: x.opts.Profile, Slash: slash, Problems: problems})
		sp.compactEnd = len(buf)
		buf = append(buf, after...)
		sp.userEnd = len(buf)
		var actualChars int
		var actualLone bool
		if summary.Kind() == history.String {
			actual := summary.Str()
			buf = append(buf, actual...) // a copy: actual may point into the rows' text, which goes round
			actualChars, actualLone = history.Len16Scan(actual)
			md.ActualOutputIncludesPreviousTag = strings.Contains(actual, serialize.PrevOpen)
		} else {
			// A typed array: its buffer's bytes, its element count for
			// .length; its includes() of a string is false.
			buf = appendTypedArrayBytes(buf, summary)
			actualChars = summary.Len()
		}
		sp.actualEnd = len(buf)

		compactChars, compactLone := history.Len16Scan(unsafe.String(unsafe.SliceData(buf[sp.compact:]), sp.compactEnd-sp.compact))
		beforeChars, beforeLone := history.Len16Scan(before)
		afterChars, afterLone := history.Len16Scan(after)
		md.CompactHistoryChars = compactChars
		md.UserMessageChars = beforeChars + compactChars + afterChars
		md.ActualOutputChars = actualChars
		if id := md.BoundaryMessageID; id.Kind() == history.BigInt || id.IsObjectLike() {
			if _, err := history.JSONLen16(id); err != nil {
				x.chatWarn(j, b, fmt.Sprintf("the message id is %s, which JSON.stringify cannot write (%v): the upstream script crashes on it and writes nothing more; compact writes boundaryMessageId null in %s", history.Describe(id), err, bundle.CompressionDirName(n)))
			}
		}
		buf = md.AppendJSON(buf)
		sp.metaEnd = len(buf)
		sp.contEnd = sp.metaEnd
		if !x.opts.NoContinuation {
			// What the chat did next, up to the next compaction: the
			// message that holds the summary first.
			// A point with a falsy summary compacts nothing: the agent's
			// memory changes at the next truthy one.
			next := len(msgs)
			for _, p := range points[cp+1:] {
				if summaries[p].Truthy() {
					next = p
					break
				}
			}
			buf = serialize.AppendContinuation(buf, msgs[b:next], serialize.Options{Profile: x.opts.Profile, Problems: func(serialize.Problem) {}}, ContinuationTurns, ContinuationOutput)
			sp.contEnd = len(buf)
		}
		spans = append(spans, sp)

		j.out = append(j.out, bundleOut{name: bundle.CompressionDirName(n), files: [bundle.FileCount + 1]fileOut{
			{name: bundle.FileSystemPrompt, data: x.system, mayLone: x.systemLone},
			{name: bundle.FileUserMessage, mayLone: beforeLone || compactLone || afterLone},
			{name: bundle.FileCompact, mayLone: compactLone},
			{name: bundle.FileActual, mayLone: actualLone},
			{name: bundle.FileMetadata, mayLone: true}, // small: always checked
			{mayLone: true}, // the continuation, if any
		}})
		j.res.Bundles++
	}
	for i, sp := range spans {
		f := &j.out[i].files
		f[1].data = buf[sp.user:sp.userEnd:sp.userEnd]
		f[2].data = buf[sp.compact:sp.compactEnd:sp.compactEnd]
		f[3].data = buf[sp.userEnd:sp.actualEnd:sp.actualEnd]
		f[4].data = buf[sp.actualEnd:sp.metaEnd:sp.metaEnd]
		if sp.contEnd > sp.metaEnd {
			f[5] = fileOut{name: bundle.FileContinuation, data: buf[sp.metaEnd:sp.contEnd:sp.contEnd], mayLone: true}
		}
	}
	j.buf = buf
	return nil
}

// write creates the chat's directory in staging and its bundles.
func (x *extractor) write(j *job) error {
	if !j.mkdir {
		return nil
	}
	dir := filepath.Join(x.staging, fmt.Sprintf(".chat-%06d", j.seq))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	j.tmp = dir
	for _, b := range j.out {
		bdir := filepath.Join(dir, b.name)
		if err := os.Mkdir(bdir, 0o755); err != nil {
			return err
		}
		for _, f := range b.files {
			if f.name == "" {
				continue
			}
			if err := bundle.WriteNew(bdir, f.name, f.data, f.mayLone); err != nil {
				return err
			}
		}
	}
	return nil
}

// slashScan caches the slash ids of each message of a chat, scanning a
// message when a bundle first needs it (messages after the last point
// never are).
type slashScan struct {
	msgs    []history.Value
	ids     [][]string
	errs    []*serialize.SlashScanError
	scanned int // messages [0, scanned) are scanned
}

func newSlashScan(msgs []history.Value) *slashScan {
	return &slashScan{msgs: msgs, ids: make([][]string, len(msgs)), errs: make([]*serialize.SlashScanError, len(msgs))}
}

// idsBefore returns the ids linked from messages [0, b), or the first
// place the upstream scan throws (Message is the index in the chat).
func (s *slashScan) idsBefore(b int) ([]string, *serialize.SlashScanError) {
	for ; s.scanned < b; s.scanned++ {
		i := s.scanned
		var err error
		s.ids[i], err = serialize.SlashIDs(s.msgs[i : i+1])
		if err != nil {
			var se *serialize.SlashScanError
			if !errors.As(err, &se) {
				se = &serialize.SlashScanError{What: err.Error(), JS: "?"}
			}
			e := *se
			e.Message = i
			s.errs[i] = &e
		}
	}
	var ids []string
	for i := 0; i < b; i++ {
		if s.errs[i] != nil {
			return nil, s.errs[i]
		}
		ids = append(ids, s.ids[i]...)
	}
	return ids, nil
}

// checkOutDir refuses a non-empty output directory unless force is set.
func checkOutDir(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("output directory %s: %w", dir, err)
	}
	if len(entries) > 0 && !force {
		return fmt.Errorf("%w: %s holds %s; pass --force to replace it as a whole, or choose another --out", ErrOutputNotEmpty, dir, pluralForm(len(entries), "entry", "entries"))
	}
	return nil
}

// makeStaging creates the hidden directory beside dir that the run writes
// into.
func makeStaging(dir string) (string, error) {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("cannot create the output directory: %w", err)
	}
	// The staging directory is renamed into place: it gets what any new
	// directory gets, as the chat directories inside it do.
	st, err := fsutil.MkdirTemp(parent, fsutil.PartialPrefix(dir), "")
	if err == nil {
		return st, nil
	}
	return "", fmt.Errorf("cannot write to %s: %w", parent, err)
}

// publish renames the finished staging directory to dir, replacing a
// previous dir as a whole when force is set.
func publish(ctx context.Context, staging, dir string, force bool, removing func()) error {
	_, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.Rename(staging, dir)
	}
	if err != nil {
		return err
	}
	if err := checkOutDir(dir, force); err != nil {
		return err
	}
	old := staging + ".old"
	// Held while renamed aside and removed: not a leftover to another run.
	release, _ := fsutil.Hold(dir)
	defer release()
	if err := os.Rename(dir, old); err != nil {
		return fmt.Errorf("cannot replace %s: %w", dir, err)
	}
	if err := os.Rename(staging, dir); err != nil {
		_ = os.Rename(old, dir)
		return fmt.Errorf("cannot replace %s: %w", dir, err)
	}
	// The new output is in place: a second interrupt stops the removal of
	// the old one, which the next run's CleanStaleStaging finishes.
	_, err = removeInterruptible(ctx, old, removing)
	return err
}

// plural is "1 message", "2 messages": word's plural adds s.
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
