package cascade

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// HTTPClient is the client every call with pc's key goes through: the
// providers' Generate and the batch clients (internal/batch). It is
// pc.HTTPClient (its transport, jar and timeout) or, when that is nil, a
// client with its own transport (idle connections not shared with the rest
// of the process, 64 kept per host for parallel replays); either way
//
//   - it follows no redirect: a 301, 302, 303, 307 or 308 answer with a
//     Location fails the call with a *RedirectError naming where it pointed
//     (key redacted), so that neither the key nor the prompt is sent to
//     another host (nor again to the same one);
//   - pc's key is known to the process's log guard (see GuardLog), which is
//     installed: net/http logs what a server sends on an idle connection
//     through the standard logger, and that line may echo the key.
func HTTPClient(pc ProviderConfig) *http.Client {
	ProtectKeys(pc.APIKey)
	GuardLog()
	c := &http.Client{}
	if pc.HTTPClient != nil {
		*c = *pc.HTTPClient
	}
	if c.Transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// Parallel replays keep their connections: the default of 2 idle
		// connections per host would reconnect for most requests.
		t.MaxIdleConnsPerHost = 64
		c.Transport = t
	}
	// The transport turns a redirect into an error before the client sees
	// it: the client hands some back as they are (a 307 whose body it
	// cannot send again, such as an upload) rather than asking
	// CheckRedirect, which refuses the rest.
	if _, ok := c.Transport.(*redirectRefuser); !ok {
		c.Transport = &redirectRefuser{base: c.Transport, key: pc.APIKey}
	}
	c.CheckRedirect = refuseRedirect(pc.APIKey)
	return c
}

// redirectRefuser fails a round trip answered with a redirect (301, 302,
// 303, 307, 308 with a Location) with a *RedirectError.
type redirectRefuser struct {
	base http.RoundTripper
	key  string
}

func (t *redirectRefuser) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return resp, nil
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return resp, nil
	}
	// Read a little of the body so that the connection can be reused.
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	if u, err := req.URL.Parse(loc); err == nil {
		loc = u.String()
	}
	return nil, &RedirectError{Status: resp.StatusCode, Location: redactLocation(loc, t.key)}
}

// CloseIdleConnections closes the idle connections of the transport
// below (http.Client.CloseIdleConnections reaches it through this).
func (t *redirectRefuser) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// redactLocation is a redirect's URL without key nor any protected key.
func redactLocation(loc, key string) string {
	loc = Redact(loc, key)
	if r := processRedactor.Load(); r != nil {
		loc = r.Redact(loc)
	}
	return loc
}

// RedirectError is a call answered with a redirect, which is not followed.
type RedirectError struct {
	// Status is the redirect's HTTP status (301, 302, 303, 307, 308).
	Status int
	// Location is the URL it pointed to, keys and credentials redacted.
	Location string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the server answered %d, a redirect to %s; redirects are not followed (the key and the prompt go to the configured base_url only): set base_url to where the API is", e.Status, e.Location)
}

// refuseRedirect is a CheckRedirect that refuses every redirect with a
// *RedirectError whose Location has key (and every protected key)
// redacted.
func refuseRedirect(key string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		return &RedirectError{Status: status, Location: redactLocation(req.URL.String(), key)}
	}
}

// The process's log guard.

var (
	guardMu sync.Mutex
	// protected are the keys of every provider and batch client made.
	protected []string
	// processRedactor knows the protected keys; nil: none yet.
	processRedactor atomic.Pointer[Redactor]
)

// ProtectKeys adds keys to those the log guard removes from every line of
// the standard logger (see GuardLog). Empty keys are ignored.
func ProtectKeys(keys ...string) {
	guardMu.Lock()
	defer guardMu.Unlock()
	added := false
	for _, k := range keys {
		if k != "" && !contains(protected, k) {
			protected = append(protected, k)
			added = true
		}
	}
	if added {
		processRedactor.Store(NewRedactor(protected...))
	}
}

// GuardLog routes the standard logger (package log, and log/slog's
// default handler, which writes through it) through a writer that removes
// every protected key (ProtectKeys) in every form Redactor knows, and the
// bytes net/http quotes from a server on an idle connection ("Unsolicited
// response received on idle HTTP channel starting with …"): a hostile
// server's header there is not shown at all. It wraps whatever
// log.Writer() is, once; calling it again is cheap and changes nothing
// unless the output was replaced meanwhile (log.SetOutput), in which case
// the new output is wrapped. Every HTTPClient and the command line's start
// call it.
func GuardLog() {
	guardMu.Lock()
	defer guardMu.Unlock()
	w := log.Writer()
	if _, ok := w.(*logGuard); ok {
		return
	}
	log.SetOutput(&logGuard{out: w})
}

// LogWriter is w behind the log guard: what GuardLog puts in front of the
// standard logger's output.
func LogWriter(w io.Writer) io.Writer { return &logGuard{out: w} }

type logGuard struct{ out io.Writer }

// unsolicited is how net/http's Transport starts the line it logs when a
// server writes on an idle connection; the server's bytes follow, quoted.
const unsolicited = "Unsolicited response received on idle HTTP channel starting with "

// Write writes p (one log line: the log package writes each in one call)
// without keys.
func (g *logGuard) Write(p []byte) (int, error) {
	s := string(p)
	if i := strings.Index(s, unsolicited); i >= 0 {
		// The quoted bytes, then "; err=<error>".
		rest := s[i+len(unsolicited):]
		tail := "\n"
		if j := strings.LastIndex(rest, "; err="); j >= 0 {
			tail = rest[j:]
		}
		s = s[:i] + unsolicited + "[" + fmt.Sprint(len(rest)-len(tail)) + " bytes of the server's, not shown]" + tail
	}
	if r := processRedactor.Load(); r != nil {
		s = r.Redact(s)
	} else {
		s = Redact(s)
	}
	if _, err := io.WriteString(g.out, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
