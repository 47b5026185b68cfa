// Package headless drives a headless Chromium through the DevTools
// protocol over a pipe (--remote-debugging-pipe: requests on file
// descriptor 3, answers and events on 4, each message JSON ended by a NUL
// byte), with no dependency beyond the standard library. It does what the
// report's browser test and bench/report.sh need: open a page at a given
// width, collect console errors, exceptions and failed loads, evaluate
// JavaScript, and take screenshots.
package headless

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Find returns the Chromium to run: $COMPACT_CHROMIUM when set, else the
// first of /usr/bin/chromium (Debian's package), chromium,
// chromium-browser, google-chrome and google-chrome-stable on PATH; ""
// when there is none.
func Find() string {
	if p := os.Getenv("COMPACT_CHROMIUM"); p != "" {
		return p
	}
	if st, err := os.Stat("/usr/bin/chromium"); err == nil && !st.IsDir() {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd     *exec.Cmd
	out     io.WriteCloser
	profile string
	stderr  *tailBuffer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan message
	pages   map[string]*Page
	closed  error
	done    chan struct{}
}

type message struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Start runs the browser at path (Find's) headless, with a fresh profile
// that Close removes.
func Start(ctx context.Context, path string) (*Browser, error) {
	profile, err := os.MkdirTemp("", "compact-chromium-")
	if err != nil {
		return nil, err
	}
	args := []string{
		"--headless", "--remote-debugging-pipe", "--user-data-dir=" + profile,
		"--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
		"--disable-dev-shm-usage", "--disable-background-networking", "--disable-sync",
		"--hide-scrollbars", "--mute-audio", "--force-color-profile=srgb", "--font-render-hinting=none",
	}
	if runtime.GOOS == "linux" && os.Geteuid() == 0 {
		// Chromium refuses to run as root with its sandbox (containers, CI).
		args = append(args, "--no-sandbox")
	}
	args = append(args, "about:blank")
	cmd := exec.Command(path, args...)
	toBrowser, ourEnd, err := os.Pipe() // the browser reads fd 3
	if err != nil {
		os.RemoveAll(profile)
		return nil, err
	}
	fromBrowser, theirEnd, err := os.Pipe() // the browser writes fd 4
	if err != nil {
		toBrowser.Close()
		ourEnd.Close()
		os.RemoveAll(profile)
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{toBrowser, theirEnd}
	tail := &tailBuffer{max: 8 << 10}
	cmd.Stderr = tail
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=disabled:")
	if err := cmd.Start(); err != nil {
		toBrowser.Close()
		ourEnd.Close()
		fromBrowser.Close()
		theirEnd.Close()
		os.RemoveAll(profile)
		return nil, err
	}
	toBrowser.Close()
	theirEnd.Close()
	b := &Browser{cmd: cmd, out: ourEnd, profile: profile, stderr: tail,
		pending: map[int64]chan message{}, pages: map[string]*Page{}, done: make(chan struct{})}
	go b.read(fromBrowser)
	// The browser is ready when it answers.
	if _, err := b.call(ctx, "", "Browser.getVersion", nil); err != nil {
		b.Close()
		return nil, fmt.Errorf("%s did not answer on its DevTools pipe: %w (stderr: %s)", path, err, strings.TrimSpace(tail.String()))
	}
	return b, nil
}

func (b *Browser) read(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var raw []byte
		raw, err = br.ReadBytes(0)
		if err != nil {
			break
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch := b.pending[m.ID]; ch != nil {
				delete(b.pending, m.ID)
				ch <- m
			}
		} else if p := b.pages[m.SessionID]; p != nil {
			p.event(m)
		}
		b.mu.Unlock()
	}
	b.mu.Lock()
	b.closed = fmt.Errorf("the browser closed its pipe: %v", err)
	for id, ch := range b.pending {
		close(ch)
		delete(b.pending, id)
	}
	b.mu.Unlock()
	close(b.done)
}

// call sends method with params (to the page of session, or the browser
// when session is "") and waits for its result.
func (b *Browser) call(ctx context.Context, session, method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		raw = p
	}
	ch := make(chan message, 1)
	b.mu.Lock()
	if b.closed != nil {
		b.mu.Unlock()
		return nil, b.closed
	}
	b.nextID++
	id := b.nextID
	b.pending[id] = ch
	data, err := json.Marshal(message{ID: id, Method: method, Params: raw, SessionID: session})
	if err == nil {
		_, err = b.out.Write(append(data, 0))
	}
	if err != nil {
		delete(b.pending, id)
		b.mu.Unlock()
		return nil, err
	}
	b.mu.Unlock()
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, b.closedErr()
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (b *Browser) closedErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed != nil {
		return b.closed
	}
	return errors.New("the browser is gone")
}

// Close stops the browser and removes its profile.
func (b *Browser) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	_, _ = b.call(ctx, "", "Browser.close", nil)
	cancel()
	b.out.Close()
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
	}
	_ = b.cmd.Wait()
	os.RemoveAll(b.profile)
}

// Page is one tab.
type Page struct {
	b       *Browser
	session string

	mu       sync.Mutex
	problems []string
	loaded   chan struct{}
}

// NewPage opens a blank tab of width by height CSS pixels (mobile sets a
// touch, mobile-layout viewport) and listens to its console.
func (b *Browser) NewPage(ctx context.Context, width, height int, mobile bool) (*Page, error) {
	res, err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		return nil, err
	}
	var t struct {
		TargetID string `json:"targetId"`
	}
	if err := json.Unmarshal(res, &t); err != nil {
		return nil, err
	}
	res, err = b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true})
	if err != nil {
		return nil, err
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &s); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: s.SessionID}
	b.mu.Lock()
	b.pages[p.session] = p
	b.mu.Unlock()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if _, err := b.call(ctx, p.session, m, nil); err != nil {
			return nil, err
		}
	}
	if err := p.SetViewport(ctx, width, height, mobile); err != nil {
		return nil, err
	}
	return p, nil
}

// SetViewport sets the page's size in CSS pixels.
func (p *Page) SetViewport(ctx context.Context, width, height int, mobile bool) error {
	_, err := p.b.call(ctx, p.session, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile,
	})
	return err
}

// event records what the page reports (called with the browser's lock).
func (p *Page) event(m message) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch m.Method {
	case "Page.loadEventFired":
		if p.loaded != nil {
			close(p.loaded)
			p.loaded = nil
		}
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		if json.Unmarshal(m.Params, &e) == nil && (e.Type == "error" || e.Type == "assert") {
			var parts []string
			for _, a := range e.Args {
				if a.Description != "" {
					parts = append(parts, a.Description)
				} else {
					parts = append(parts, fmt.Sprint(a.Value))
				}
			}
			p.problems = append(p.problems, "console."+e.Type+": "+strings.Join(parts, " "))
		}
	case "Runtime.exceptionThrown":
		var e struct {
			ExceptionDetails struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
				LineNumber int    `json:"lineNumber"`
				URL        string `json:"url"`
			} `json:"exceptionDetails"`
		}
		if json.Unmarshal(m.Params, &e) == nil {
			d := e.ExceptionDetails
			p.problems = append(p.problems, fmt.Sprintf("exception: %s %s (line %d)", d.Text, d.Exception.Description, d.LineNumber+1))
		}
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Level  string `json:"level"`
				Source string `json:"source"`
				Text   string `json:"text"`
				URL    string `json:"url"`
			} `json:"entry"`
		}
		if json.Unmarshal(m.Params, &e) == nil && e.Entry.Level == "error" {
			p.problems = append(p.problems, fmt.Sprintf("log (%s): %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
		}
	}
}

// Problems are the console errors, uncaught exceptions and error log
// entries (a resource that failed to load, a blocked request) so far.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// Navigate opens url and waits for its load event.
func (p *Page) Navigate(ctx context.Context, url string) error {
	loaded := make(chan struct{})
	p.mu.Lock()
	p.loaded = loaded
	p.mu.Unlock()
	res, err := p.b.call(ctx, p.session, "Page.navigate", map[string]any{"url": url})
	if err != nil {
		return err
	}
	var n struct {
		ErrorText string `json:"errorText"`
	}
	if json.Unmarshal(res, &n) == nil && n.ErrorText != "" {
		return fmt.Errorf("navigate %s: %s", url, n.ErrorText)
	}
	select {
	case <-loaded:
		return nil
	case <-p.b.done:
		return p.b.closedErr()
	case <-ctx.Done():
		return fmt.Errorf("waiting for %s to load: %w", url, ctx.Err())
	}
}

// Eval evaluates expr in the page, waits for it when it is a promise, and
// stores its value (JSON) in out (nil to ignore it).
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	res, err := p.b.call(ctx, p.session, "Runtime.evaluate", map[string]any{
		"expression": expr, "returnByValue": true, "awaitPromise": true, "userGesture": true,
	})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("%s: %s", r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Screenshot takes a PNG of the viewport, or of the whole page when full.
func (p *Page) Screenshot(ctx context.Context, full bool) ([]byte, error) {
	params := map[string]any{"format": "png", "captureBeyondViewport": full}
	if full {
		var size struct{ W, H float64 }
		if err := p.Eval(ctx, `({W: document.documentElement.scrollWidth, H: document.documentElement.scrollHeight})`, &size); err != nil {
			return nil, err
		}
		params["clip"] = map[string]any{"x": 0, "y": 0, "width": size.W, "height": size.H, "scale": 1}
	}
	res, err := p.b.call(ctx, p.session, "Page.captureScreenshot", params)
	if err != nil {
		return nil, err
	}
	var s struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(res, &s); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(s.Data)
}

// FileURL is the file:// URL of a local path.
func FileURL(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
