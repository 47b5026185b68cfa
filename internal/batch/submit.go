package batch

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/fsutil"
)

// upload is a batch being written: the provider's upload (a temporary
// file) and the run's record of its requests, items/<name>.jsonl, one
// Item a line, with items/<name>.idx, where each line starts.
type upload struct {
	f     *os.File
	size  int64
	n     int
	name  string
	items *os.File
	iw    *bufio.Writer
	idx   *os.File
	xw    *bufio.Writer
	off   int64
}

func (r *runner) newUpload(form uploadFormat) (*upload, error) {
	f, err := fsutil.CreateTemp(r.dir, uploadPrefix, ".jsonl")
	if err != nil {
		return nil, err
	}
	up := &upload{f: f, name: fmt.Sprintf("b-%06d", r.st.NextBatch+1)}
	if err := os.MkdirAll(filepath.Join(r.dir, DirItems), 0o755); err == nil {
		up.items, err = os.Create(r.logs.path(up.name + ".jsonl"))
		if err == nil {
			up.idx, err = os.Create(r.logs.path(up.name + ".idx"))
		}
	}
	if err == nil {
		_, err = f.WriteString(form.prefix)
	}
	if err != nil {
		up.discard()
		return nil, err
	}
	up.iw, up.xw = bufio.NewWriterSize(up.items, 64<<10), bufio.NewWriterSize(up.idx, 16<<10)
	up.size = int64(len(form.prefix))
	return up, nil
}

// add writes one request: line to the upload, it to the record.
func (up *upload) add(form uploadFormat, line []byte, it *Item) error {
	if up.n > 0 {
		if _, err := up.f.WriteString(form.sep); err != nil {
			return err
		}
		up.size += int64(len(form.sep))
	}
	if _, err := up.f.Write(line); err != nil {
		return err
	}
	up.size += int64(len(line))
	data, err := json.Marshal(it)
	if err != nil {
		return err
	}
	var off [8]byte
	binary.LittleEndian.PutUint64(off[:], uint64(up.off))
	up.xw.Write(off[:])
	up.iw.Write(data)
	up.iw.WriteByte('\n')
	up.off += int64(len(data)) + 1
	up.n++
	return nil
}

// finish ends the upload and makes the record durable, before the batch
// is created.
func (up *upload) finish(form uploadFormat) error {
	if _, err := up.f.WriteString(form.suffix); err != nil {
		return err
	}
	up.size += int64(len(form.suffix))
	for _, w := range []struct {
		b *bufio.Writer
		f *os.File
	}{{up.iw, up.items}, {up.xw, up.idx}} {
		if err := w.b.Flush(); err != nil {
			return err
		}
		if err := w.f.Sync(); err != nil {
			return err
		}
	}
	return nil
}

// discard removes the upload's temporary file and closes the record
// (kept: the batch names it, or the next batch's overwrites it).
func (up *upload) discard() {
	if up == nil {
		return
	}
	name := up.f.Name()
	up.f.Close()
	os.Remove(name)
	fsutil.Release(name)
	for _, f := range []*os.File{up.items, up.idx} {
		if f != nil {
			f.Close()
		}
	}
}

// CustomID is the custom id of the request on line line of its batch's
// record, whose response cache key is key: the first CustomIDLen hex
// digits of the key, a dash, the line. Unique within a batch, it finds
// the request in the record without an index held in memory.
func CustomID(key string, line int) string {
	if len(key) > CustomIDLen {
		key = key[:CustomIDLen]
	}
	return key + "-" + strconv.Itoa(line)
}

// parseCustomID is the line of a custom id.
func parseCustomID(id string) (int, bool) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(id[i+1:])
	return n, err == nil && n >= 0
}

// commitEvery is how many requests settled without a batch (from the
// cache, skipped) are committed at a time.
const commitEvery = 1000

// submitQueued sends every queued request to its tier's batches, first
// tier first, until no queue has any left (a request that fails before
// it is sent moves on to the next tier's queue; a judge's grade joins the
// first tier's once its answers are in).
func (r *runner) submitQueued(ctx context.Context) error {
	for {
		any := false
		for t := range r.st.Tiers {
			if r.st.Queues[t].waiting() == 0 {
				continue
			}
			any = true
			var err error
			if r.st.Cancelled {
				err = r.dropCancelled(t)
			} else if err = r.submitTier(ctx, t); err == nil {
				r.st.SubmitError, r.st.SubmitFailedAt = "", ""
			} else if !errors.Is(err, ErrInterrupted) {
				err = submitError{err}
			}
			if err == nil {
				err = r.commit()
			}
			if err != nil {
				return err
			}
		}
		if !any {
			return nil
		}
	}
}

// take calls fn with each request waiting in tier t's queue, in order;
// a request is taken once fn returns without an error.
func (r *runner) take(t int, fn func(it *Item) error) error {
	q := &r.st.Queues[t]
	for q.waiting() > 0 {
		err := readLines(r.logs.path(q.File), q.ReadBytes, q.waiting(), func(line []byte, size int64) error {
			it := &Item{}
			if err := json.Unmarshal(line, it); err != nil {
				return fmt.Errorf("%s: %v (the run's state is damaged)", r.logs.path(q.File), err)
			}
			if err := fn(it); err != nil {
				return err
			}
			q.Read++
			q.ReadBytes += size
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// took counts a request out of the queues.
func (r *runner) took() { r.tally(func(c *ItemCounts) { c.Queued-- }) }

// dropCancelled ends the queued requests of a cancelled run: those tried
// before fail with their attempts, the others are errors.
func (r *runner) dropCancelled(t int) error {
	return r.take(t, func(it *Item) error {
		r.took()
		msg := "the run was cancelled (compact batch cancel) before the request was sent to " + r.st.Tiers[t].Model
		if len(it.Attempts) == 0 {
			return r.job.broken(it, msg)
		}
		return r.job.failed(it, it.Attempts, msg, nil, "")
	})
}

// submitTier sends tier t's queue: answered from the cache where it can,
// the others in as many batches as the provider's limits ask for. Each
// batch is committed as soon as it is created.
func (r *runner) submitTier(ctx context.Context, t int) error {
	tier := r.st.Tiers[t]
	svc, err := r.service(tier)
	if err != nil {
		return fmt.Errorf("tier %d, %s: %v", t+1, tier.Model, err)
	}
	lim := r.s.Limits[tier.Kind]
	form := svc.format()
	var up *upload
	defer func() { up.discard() }()
	flush := func() error {
		if up == nil || up.n == 0 {
			return nil
		}
		if err := up.finish(form); err != nil {
			return fmt.Errorf("write the upload in %s: %w", r.dir, err)
		}
		id, err := svc.create(ctx, tier, up.f, up.size, up.n, "compact "+r.st.Run)
		if err != nil {
			return fmt.Errorf("submit %s for %s to %s: %s", plural(up.n, "request"), tier.Model, tier.Provider, r.cas.Redact(err.Error()))
		}
		b := &Batch{ID: id, Tier: t, Provider: tier.Provider, Kind: tier.Kind, File: up.name, Requests: up.n, Items: up.n, Bytes: up.size,
			SubmittedAt: r.stamp(), Status: "submitted", Counts: Counts{Total: up.n, Pending: up.n}}
		r.st.Batches = append(r.st.Batches, b)
		r.st.NextBatch++
		r.st.SubmitError, r.st.SubmitFailedAt = "", ""
		r.tally(func(c *ItemCounts) { c.Submitted += up.n })
		r.rep.Submitted = append(r.rep.Submitted, id)
		r.progress("submitted %s batch %s: %s for %s", tier.Provider, id, plural(up.n, "request"), tier.Model)
		up.discard()
		up = nil
		// Committed at once: a batch the state does not name would be
		// paid for and never collected.
		return r.commit()
	}
	settled := 0
	err = r.take(t, func(it *Item) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: %v", ErrInterrupted, err)
		}
		if up == nil && settled >= commitEvery {
			if err := r.commit(); err != nil {
				return err
			}
			settled = 0
		}
		in, skip, err := r.job.input(it)
		if err != nil {
			settled++
			r.took()
			return r.job.broken(it, r.cas.Redact(err.Error()))
		}
		if skip {
			settled++
			r.took()
			return nil
		}
		br, err := r.cas.BatchRequest(tier.Model, in)
		if err != nil {
			settled++
			r.took()
			return r.job.broken(it, r.cas.Redact(err.Error()))
		}
		it.Key = br.Key
		if a, text, ok := r.cas.CachedAnswer(br); ok {
			settled++
			r.took()
			r.mu.Lock()
			r.st.Ledger.charge(r.st, t, LedgerRow{FromCache: 1, SavedUSD: a.SavedUSD})
			r.mu.Unlock()
			return r.job.answered(it, append(slices.Clone(it.Attempts), a), text, 0, nil, "")
		}
		n := 0
		if up != nil {
			n = up.n
		}
		line, err := svc.encode(CustomID(br.Key, n), br)
		if err != nil {
			settled++
			r.took()
			return r.advance(it, r.cas.FailedBatchAttempt(br, cascade.OutcomeError, "the request could not be encoded: "+err.Error(), 0, cascade.Usage{}, 1), nil, "")
		}
		if alone := int64(len(form.prefix) + len(line) + len(form.suffix)); lim.MaxBytes > 0 && alone > lim.MaxBytes {
			msg := fmt.Sprintf("the request is %d bytes, over the %s batch limit of %d bytes (batch.limits.%s.max_bytes)", alone, tier.Kind, lim.MaxBytes, tier.Kind)
			settled++
			r.took()
			return r.advance(it, r.cas.FailedBatchAttempt(br, cascade.OutcomeError, msg, 0, cascade.Usage{}, 1), nil, "")
		}
		if up != nil && (lim.MaxRequests > 0 && up.n+1 > lim.MaxRequests ||
			lim.MaxBytes > 0 && up.size+int64(len(form.sep)+len(line)+len(form.suffix)) > lim.MaxBytes) {
			if err := flush(); err != nil {
				return err
			}
			if line, err = svc.encode(CustomID(br.Key, 0), br); err != nil {
				return err
			}
		}
		if up == nil {
			if up, err = r.newUpload(form); err != nil {
				return err
			}
		}
		if err := up.add(form, line, it); err != nil {
			return fmt.Errorf("write the upload in %s: %w", r.dir, err)
		}
		r.took()
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// batchFile is the record of a batch's requests, read a line at a time.
type batchFile struct {
	items, idx *os.File
	size       int64
	n          int
}

func openBatchFile(path string, n int) (*batchFile, error) {
	items, err := os.Open(path + ".jsonl")
	if err != nil {
		return nil, fmt.Errorf("the batch's record: %w (the run's state is damaged)", err)
	}
	idx, err := os.Open(path + ".idx")
	if err != nil {
		items.Close()
		return nil, fmt.Errorf("the batch's record: %w (the run's state is damaged)", err)
	}
	st, err := items.Stat()
	if err != nil {
		items.Close()
		idx.Close()
		return nil, err
	}
	return &batchFile{items: items, idx: idx, size: st.Size(), n: n}, nil
}

func (f *batchFile) close() {
	f.items.Close()
	f.idx.Close()
}

// item reads the request on line n (safe for concurrent use).
func (f *batchFile) item(n int) (*Item, error) {
	if n < 0 || n >= f.n {
		return nil, fmt.Errorf("no line %d", n)
	}
	var b [16]byte
	k, err := f.idx.ReadAt(b[:], int64(n)*8)
	if k < 8 {
		return nil, fmt.Errorf("%s: %v", f.idx.Name(), err)
	}
	start, end := int64(binary.LittleEndian.Uint64(b[:8])), f.size
	if k == 16 {
		end = int64(binary.LittleEndian.Uint64(b[8:]))
	}
	if start < 0 || end > f.size || end-start > maxItemLine || end <= start {
		return nil, fmt.Errorf("%s: line %d out of bounds", f.items.Name(), n)
	}
	data := make([]byte, end-start)
	if _, err := f.items.ReadAt(data, start); err != nil && err != io.EOF {
		return nil, err
	}
	it := &Item{}
	if err := json.Unmarshal(data, it); err != nil {
		return nil, fmt.Errorf("%s line %d: %v", f.items.Name(), n, err)
	}
	return it, nil
}
