package cascade

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// wire records what the transport saw of one call: the last response's
// status and headers, and a transport or body read error. The SDKs turn
// these into errors of their own types and wording; the record lets the
// cascade classify them the same way for every provider.
type wire struct {
	// limit caps the bytes read of a response body (see bodyLimit); 0: no
	// cap. Set before the call.
	limit int64

	mu      sync.Mutex
	status  int
	header  http.Header
	rtErr   error
	bodyErr error
}

func (w *wire) snapshot() (int, http.Header, error, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status, w.header, w.rtErr, w.bodyErr
}

// wireTransport records into rec (or, when rec is nil, into the *wire of
// the request's context, see withWire) and, when patch is not nil, rewrites
// the JSON body of POST requests with it.
type wireTransport struct {
	base  http.RoundTripper
	rec   *wire
	patch func(body map[string]json.RawMessage)
}

type wireKey struct{}

// withWire makes the wireTransport of a shared client record into rec.
func withWire(ctx context.Context, rec *wire) context.Context {
	return context.WithValue(ctx, wireKey{}, rec)
}

func (t *wireTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := t.rec
	if rec == nil {
		rec, _ = req.Context().Value(wireKey{}).(*wire)
	}
	if rec == nil {
		rec = &wire{}
	}
	if t.patch != nil && req.Method == http.MethodPost && req.Body != nil {
		r2, err := patchBody(req, t.patch)
		if err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
		req = r2
	}
	resp, err := t.base.RoundTrip(req)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if err != nil {
		rec.rtErr = err
		return nil, err
	}
	rec.status = resp.StatusCode
	rec.header = resp.Header.Clone()
	resp.Body = &wireBody{ReadCloser: resp.Body, rec: rec, left: rec.limit, limited: rec.limit > 0}
	return resp, nil
}

// errBodyTooLarge ends the read of a response body longer than its limit.
var errBodyTooLarge = errors.New("response body too large")

// wireBody records read errors and stops reading after left bytes.
type wireBody struct {
	io.ReadCloser
	rec     *wire
	left    int64
	limited bool
}

func (b *wireBody) Read(p []byte) (int, error) {
	if b.limited {
		if b.left <= 0 {
			// At the limit: one byte more means the body is too large.
			var one [1]byte
			if n, err := io.ReadFull(b.ReadCloser, one[:]); n == 0 {
				if err != io.EOF {
					b.record(err)
				}
				return 0, err
			}
			b.record(errBodyTooLarge)
			return 0, errBodyTooLarge
		}
		if int64(len(p)) > b.left {
			p = p[:b.left]
		}
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if err != nil && err != io.EOF {
		b.record(err)
	}
	return n, err
}

func (b *wireBody) record(err error) {
	b.rec.mu.Lock()
	if b.rec.bodyErr == nil {
		b.rec.bodyErr = err
	}
	b.rec.mu.Unlock()
}

// bodyLimit is the most of a response body read for an answer of at most
// maxAnswer bytes: JSON escapes make the body longer than the answer, so
// four times as much and 1 MiB for the rest of the body. A longer body is
// not read further and the call fails. 0: no limit.
func bodyLimit(maxAnswer int) int64 {
	if maxAnswer <= 0 {
		return 0
	}
	return 4*int64(maxAnswer) + 1<<20
}

// patchBody returns a copy of req whose JSON object body went through patch.
// Values the patch does not touch keep their JSON text; the keys come out
// sorted.
func patchBody(req *http.Request, patch func(map[string]json.RawMessage)) (*http.Request, error) {
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("request body is not a JSON object: %v", err)
	}
	patch(obj)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	r2 := req.Clone(req.Context())
	r2.Body = io.NopCloser(bytes.NewReader(out))
	r2.ContentLength = int64(len(out))
	r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	r2.Header.Del("Content-Length")
	return r2, nil
}

// jsonNumber is f as a JSON number, shortest form: 0, 0.1, 1.
func jsonNumber(f float64) json.RawMessage {
	return json.RawMessage(strconv.FormatFloat(f, 'f', -1, 64))
}

// newCallClient is an *http.Client for one call over base's transport,
// recording into rec. base comes from HTTPClient; its CheckRedirect
// (refuse every redirect) is kept, and set when missing.
func newCallClient(base *http.Client, rec *wire, patch func(map[string]json.RawMessage)) *http.Client {
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	check := base.CheckRedirect
	if check == nil {
		check = refuseRedirect("")
	}
	GuardLog()
	return &http.Client{
		Transport:     &wireTransport{base: rt, rec: rec, patch: patch},
		CheckRedirect: check,
		Jar:           base.Jar,
		Timeout:       base.Timeout,
	}
}

// classify turns an SDK error and the wire record of the same call into an
// *Error, scrubbing the provider's key out of the message.
func classify(ctx context.Context, provider string, err error, rec *wire, key string) *Error {
	status, header, rtErr, bodyErr := rec.snapshot()
	e := &Error{Provider: provider, Status: status}
	var re *RedirectError
	redirect := errors.As(rtErr, &re) || errors.As(err, &re)
	if redirect {
		// The transport refused the redirect: the status is the
		// redirect's.
		e.Status = re.Status
	}
	if header != nil {
		e.RetryAfter, e.HasRetryAfter = retryAfter(header, time.Now())
		e.RequestID = scrub(firstHeader(header, "request-id", "x-request-id"), key)
	}
	switch {
	case errors.Is(bodyErr, errBodyTooLarge):
		// Not transient: the same request gets the same answer.
	case redirect:
		// Not transient either, whatever its URL says.
	case errors.Is(err, context.Canceled) && ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		e.Canceled = true
	case errors.Is(err, context.DeadlineExceeded) || (ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)):
		e.Timeout = true
	case bodyErr != nil && connDropped(bodyErr):
		// The connection went away while the answer was being read; the
		// status (often 200) does not matter.
		e.Transient = true
	case status == http.StatusTooManyRequests || status >= 500:
		e.Transient = true
	case status == 0 && (rtErr != nil && connDropped(rtErr) || connDropped(err)):
		e.Transient = true
	}
	msg := err.Error()
	switch {
	case errors.Is(bodyErr, errBodyTooLarge):
		msg = fmt.Sprintf("the response body is over %d bytes (4 × cascade.max_answer_bytes + 1 MiB) and was not read to its end", rec.limit)
	case e.Timeout:
		msg = "timed out: " + msg
	case e.Transient && bodyErr != nil:
		msg = "connection closed mid-answer: " + msg
		if !strings.Contains(msg, bodyErr.Error()) {
			msg += " (" + bodyErr.Error() + ")"
		}
	}
	e.Msg = scrub(msg, key)
	return e
}

// connDropped reports whether err is a connection reset or closed early.
func connDropped(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	s := err.Error()
	for _, frag := range []string{"unexpected EOF", "connection reset", "broken pipe", "server closed idle connection", ": EOF"} {
		if strings.Contains(s, frag) {
			return true
		}
	}
	return strings.HasSuffix(s, "EOF")
}

// retryAfter reads retry-after-ms (milliseconds) or Retry-After (seconds or
// an HTTP date).
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || math.IsNaN(secs) || math.IsInf(secs, 0) {
			return 0, true
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

func firstHeader(h http.Header, names ...string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// joinURL is base (a server root) followed by path.
func joinURL(base, path string) string {
	return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/")
}

func elapsedSince(t time.Time) time.Duration { return time.Since(t) }
