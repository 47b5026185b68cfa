// Package fakebatch is a loopback stand-in for the batch APIs of OpenAI
// (/v1/files and /v1/batches), Anthropic (/v1/messages/batches) and Gemini
// (models/{model}:batchGenerateContent, batches/{id}), speaking their wire
// formats closely enough for their official SDKs: for the tests of
// internal/batch and cmd, and for bench/batch.sh. It counts every request
// it gets, enforces each provider's limits (a batch over them is refused,
// or fails as the provider's would), and can end a batch completed,
// expired, cancelled or failed, with some of its requests unprocessed.
//
// Answers are made when a batch is created (see Reply) and kept small:
// the server's memory grows with the number of requests by a few hundred
// bytes each, not with the prompts.
package fakebatch

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Provider kinds, as compact names them.
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
	Gemini    = "gemini"
)

// Reply is the result of one request.
type Reply struct {
	// Text is the answer; Status, when not 0 or 200, makes the request
	// fail with Error.
	Text   string
	Status int
	Error  string
	// Tokens billed; Cached of In were read from the prompt cache.
	In, Out, Cached int
	// Compaction: Anthropic reports usage.iterations, a compaction step
	// of CompactionIn input and CompactionOut output tokens besides the
	// message (billed, and not in the top-level fields).
	Compaction                  bool
	CompactionIn, CompactionOut int
}

// Fate is how a batch ends: End is completed, expired, cancelled or
// failed; Processed is how many of its requests (the first ones) were
// answered before that, -1 for all.
type Fate struct {
	End       string
	Processed int
}

// Limits of one provider; a batch over them is refused (Anthropic,
// Gemini, an OpenAI file too large) or fails validation (OpenAI requests).
type Limits struct {
	MaxRequests int
	MaxBytes    int64
}

// DefaultLimits are the providers' documented ones.
func DefaultLimits() map[string]Limits {
	return map[string]Limits{
		OpenAI:    {MaxRequests: 50000, MaxBytes: 200 << 20},
		Anthropic: {MaxRequests: 100000, MaxBytes: 256 << 20},
		Gemini:    {MaxBytes: 20 << 20},
	}
}

// Server is the fake. Set its fields before it serves.
type Server struct {
	// Answer makes each request's reply (default DefaultAnswer).
	Answer func(kind, model, system, user string) Reply
	// Fate decides how the seq-th batch (from 1) of n requests ends
	// (default: completed, all processed).
	Fate func(kind string, seq, n int) Fate
	// Polls is how many polls a batch stays in progress before it ends.
	Polls  int
	Limits map[string]Limits

	mu      sync.Mutex
	seq     int
	files   map[string]*file
	batches map[string]*batch

	// HTTP requests by kind and in all; model requests received in
	// batches; batches created; batches refused or failed over limits.
	calls    map[string]*atomic.Int64
	total    atomic.Int64
	requests atomic.Int64
	created  atomic.Int64
	overs    atomic.Int64
	keys     sync.Map // authorization values seen
	delay    atomic.Int64
	// refuse: the status and message every upload gets (SetUploadError).
	refuse atomic.Pointer[uploadError]
}

type uploadError struct {
	status int
	msg    string
}

// SetUploadError makes every upload of a batch's requests from now on
// fail with status and msg, in the provider's error format: OpenAI's
// file upload, Anthropic's and Gemini's batch creation (their requests
// are uploaded inline). Status 0 lets uploads through again.
func (s *Server) SetUploadError(status int, msg string) {
	if status == 0 {
		s.refuse.Store(nil)
		return
	}
	s.refuse.Store(&uploadError{status, msg})
}

// refused answers an upload as SetUploadError says, if it does: errorf
// writes the provider's error.
func (s *Server) refused(w http.ResponseWriter, errorf func(w http.ResponseWriter, status int, msg string)) bool {
	e := s.refuse.Load()
	if e == nil {
		return false
	}
	errorf(w, e.status, e.msg)
	return true
}

// SetCreateDelay holds every batch creation that long from now on (a
// client killed meanwhile leaves a batch it never recorded, as a real one
// would).
func (s *Server) SetCreateDelay(d time.Duration) { s.delay.Store(int64(d)) }

// New makes a server with the default answers, fates and limits.
func New() *Server {
	s := &Server{Limits: DefaultLimits(), files: map[string]*file{}, batches: map[string]*batch{}, calls: map[string]*atomic.Int64{}}
	for _, k := range []string{OpenAI, Anthropic, Gemini} {
		s.calls[k] = &atomic.Int64{}
	}
	return s
}

// Calls is the number of HTTP requests the server got (kind "" for all).
func (s *Server) Calls(kind string) int64 {
	if kind == "" {
		return s.total.Load()
	}
	return s.calls[kind].Load()
}

// Requests is the number of model requests received in batches.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Created is the number of batches created.
func (s *Server) Created() int64 { return s.created.Load() }

// OverLimits is the number of batches refused or failed for exceeding a
// limit.
func (s *Server) OverLimits() int64 { return s.overs.Load() }

// SawKey reports whether a request carried the key (any header).
func (s *Server) SawKey(key string) bool {
	found := false
	s.keys.Range(func(k, _ any) bool {
		if strings.Contains(k.(string), key) {
			found = true
			return false
		}
		return true
	})
	return found
}

// entry is one request of a batch: its id and reply.
type entry struct {
	id    string
	model string
	reply Reply
}

type file struct {
	id      string
	entries []entry
	bytes   int
	// out: a results file, generated from its batch.
	results *batch
	errors  bool
}

type batch struct {
	kind      string
	id        string
	seq       int
	model     string
	entries   []entry
	fate      Fate
	polls     int
	cancel    bool
	created   time.Time
	failedMsg string
	inputFile string
}

func (b *batch) processed() int {
	if b.fate.Processed < 0 || b.fate.Processed > len(b.entries) {
		return len(b.entries)
	}
	return b.fate.Processed
}

// state advances b by one poll and says where it is: running, or ended
// (then how).
func (b *batch) state(polls int) (ended bool, end string) {
	if b.failedMsg != "" {
		return true, "failed"
	}
	b.polls++
	if b.cancel {
		if b.polls > 1 {
			return true, "cancelled"
		}
		return false, "cancelling"
	}
	if b.polls <= polls {
		return false, "in_progress"
	}
	return true, b.fate.End
}

func (s *Server) newBatch(kind, model string, entries []entry) *batch {
	time.Sleep(time.Duration(s.delay.Load()))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	b := &batch{kind: kind, seq: s.seq, model: model, entries: entries, created: time.Now()}
	switch kind {
	case OpenAI:
		b.id = fmt.Sprintf("batch_%06d", s.seq)
	case Anthropic:
		b.id = fmt.Sprintf("msgbatch_%06d", s.seq)
	default:
		b.id = fmt.Sprintf("batches/fake%06d", s.seq)
	}
	b.fate = Fate{End: "completed", Processed: -1}
	if s.Fate != nil {
		b.fate = s.Fate(kind, s.seq, len(entries))
	}
	s.batches[b.id] = b
	s.created.Add(1)
	s.requests.Add(int64(len(entries)))
	return b
}

func (s *Server) answer(kind, model, system, user string) Reply {
	if s.Answer != nil {
		return s.Answer(kind, model, system, user)
	}
	return DefaultAnswer(kind, model, system, user)
}

// Markers planted in a user message make DefaultAnswer fail for one
// model: "[[fail:MODEL]]" an error, "[[short:MODEL]]" an answer too
// short, where MODEL is the API model name; "[[compaction]]" makes
// Anthropic report a compaction step in usage.iterations.
func DefaultAnswer(kind, model, system, user string) Reply {
	sum := sha256.Sum256([]byte(user))
	h := hex.EncodeToString(sum[:4])
	in := (len(system)+len(user))/4 + 1
	switch {
	case strings.Contains(user, "[[fail:"+model+"]]"):
		return Reply{Status: http.StatusBadRequest, Error: "planted failure for " + model, In: in}
	case strings.Contains(user, "[[short:"+model+"]]"):
		return Reply{Text: "Too short.", In: in, Out: 3}
	}
	text := fmt.Sprintf("## Briefing\n\nA briefing of request %s written by %s in a batch; the history was read and every path kept.\n\n## Current working state\n\nNothing is pending.", h, model)
	if j, ok := JudgeAnswer(system, user); ok {
		text = j // the judge's calls get a judge's answers
	}
	r := Reply{Text: text, In: in, Out: len(text)/4 + 1, Cached: in / 4}
	if strings.Contains(user, "[[compaction]]") {
		r.Compaction, r.CompactionIn, r.CompactionOut = true, 5000, 700
	}
	return r
}

// ServeHTTP routes to the three APIs.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.total.Add(1)
	for _, h := range []string{"Authorization", "X-Goog-Api-Key", "X-Api-Key"} {
		if v := r.Header.Get(h); v != "" {
			s.keys.Store(v, true)
		}
	}
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/v1/messages/batches"):
		s.calls[Anthropic].Add(1)
		s.anthropic(w, r, strings.TrimPrefix(p, "/v1/messages/batches"))
	case strings.HasPrefix(p, "/v1/files") || strings.HasPrefix(p, "/v1/batches"):
		s.calls[OpenAI].Add(1)
		s.openai(w, r, strings.TrimPrefix(p, "/v1"))
	case strings.HasPrefix(p, "/v1beta/"):
		s.calls[Gemini].Add(1)
		s.gemini(w, r, strings.TrimPrefix(p, "/v1beta/"))
	default:
		http.Error(w, "not found", http.StatusNotFound)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// ---- OpenAI: /v1/files, /v1/batches ----

func openaiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": nil}})
}

type openaiLine struct {
	CustomID string `json:"custom_id"`
	Method   string `json:"method"`
	URL      string `json:"url"`
	Body     struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		MaxCompletionTokens int `json:"max_completion_tokens"`
	} `json:"body"`
}

func (s *Server) openai(w http.ResponseWriter, r *http.Request, p string) {
	switch {
	case p == "/files" && r.Method == http.MethodPost:
		s.openaiUpload(w, r)
	case strings.HasPrefix(p, "/files/") && strings.HasSuffix(p, "/content") && r.Method == http.MethodGet:
		s.openaiContent(w, strings.TrimSuffix(strings.TrimPrefix(p, "/files/"), "/content"))
	case p == "/batches" && r.Method == http.MethodPost:
		s.openaiCreate(w, r)
	case strings.HasPrefix(p, "/batches/") && strings.HasSuffix(p, "/cancel") && r.Method == http.MethodPost:
		id := strings.TrimSuffix(strings.TrimPrefix(p, "/batches/"), "/cancel")
		s.mu.Lock()
		b := s.batches[id]
		if b != nil {
			b.cancel, b.polls = true, 0
		}
		s.mu.Unlock()
		if b == nil {
			openaiError(w, http.StatusNotFound, "no batch "+id)
			return
		}
		s.openaiBatch(w, b, false)
	case strings.HasPrefix(p, "/batches/") && r.Method == http.MethodGet:
		id := strings.TrimPrefix(p, "/batches/")
		s.mu.Lock()
		b := s.batches[id]
		s.mu.Unlock()
		if b == nil {
			openaiError(w, http.StatusNotFound, "no batch "+id)
			return
		}
		s.openaiBatch(w, b, true)
	default:
		openaiError(w, http.StatusNotFound, "unknown path "+r.URL.Path)
	}
}

// countingReader counts the bytes read and fails past max (over is then
// set, and the bytes past max are not returned).
type countingReader struct {
	r    io.Reader
	n    int64
	max  int64
	over bool
}

var errTooLarge = fmt.Errorf("over the size limit")

func (c *countingReader) Read(p []byte) (int, error) {
	if c.over {
		return 0, errTooLarge
	}
	n, err := c.r.Read(p)
	if c.max > 0 && c.n+int64(n) > c.max {
		c.over = true
		n = int(c.max - c.n)
		err = errTooLarge
	}
	c.n += int64(n)
	return n, err
}

func (s *Server) openaiUpload(w http.ResponseWriter, r *http.Request) {
	if s.refused(w, openaiError) {
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		openaiError(w, http.StatusBadRequest, "want multipart/form-data: "+err.Error())
		return
	}
	purpose := ""
	var f *file
	lim := s.Limits[OpenAI]
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			openaiError(w, http.StatusBadRequest, err.Error())
			return
		}
		switch part.FormName() {
		case "purpose":
			b, _ := io.ReadAll(part)
			purpose = string(b)
		case "file":
			cr := &countingReader{r: part, max: lim.MaxBytes}
			f = &file{}
			seen := map[string]bool{}
			sc := bufio.NewScanner(cr)
			sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
			for sc.Scan() && !cr.over {
				line := bytes.TrimSpace(sc.Bytes())
				if len(line) == 0 {
					continue
				}
				var l openaiLine
				if err := json.Unmarshal(line, &l); err != nil {
					openaiError(w, http.StatusBadRequest, "line is not JSON: "+err.Error())
					return
				}
				if l.CustomID == "" || seen[l.CustomID] {
					openaiError(w, http.StatusBadRequest, "custom_id missing or duplicated: "+l.CustomID)
					return
				}
				if l.Method != http.MethodPost || l.URL != "/v1/chat/completions" || len(l.Body.Messages) != 2 || l.Body.Model == "" {
					openaiError(w, http.StatusBadRequest, "a line is not a chat completion request")
					return
				}
				seen[l.CustomID] = true
				f.entries = append(f.entries, entry{id: l.CustomID, model: l.Body.Model,
					reply: s.answer(OpenAI, l.Body.Model, l.Body.Messages[0].Content, l.Body.Messages[1].Content)})
			}
			if err := sc.Err(); err != nil || cr.over {
				if cr.over {
					s.overs.Add(1)
					openaiError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("file over %d bytes", lim.MaxBytes))
					return
				}
				openaiError(w, http.StatusBadRequest, err.Error())
				return
			}
			f.bytes = int(cr.n)
		}
	}
	if purpose != "batch" || f == nil {
		openaiError(w, http.StatusBadRequest, "want purpose batch and a file")
		return
	}
	s.mu.Lock()
	s.seq++
	f.id = fmt.Sprintf("file-in%06d", s.seq)
	s.files[f.id] = f
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"id": f.id, "object": "file", "bytes": f.bytes, "created_at": time.Now().Unix(),
		"filename": "batchinput.jsonl", "purpose": "batch", "status": "processed"})
}

func (s *Server) openaiCreate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		InputFileID      string `json:"input_file_id"`
		Endpoint         string `json:"endpoint"`
		CompletionWindow string `json:"completion_window"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		openaiError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	f := s.files[req.InputFileID]
	s.mu.Unlock()
	if f == nil || req.Endpoint != "/v1/chat/completions" || req.CompletionWindow != "24h" {
		openaiError(w, http.StatusBadRequest, "unknown input file, or endpoint or completion window not supported")
		return
	}
	model := ""
	if len(f.entries) > 0 {
		model = f.entries[0].model
	}
	b := s.newBatch(OpenAI, model, f.entries)
	b.inputFile = f.id
	if lim := s.Limits[OpenAI]; lim.MaxRequests > 0 && len(f.entries) > lim.MaxRequests {
		s.overs.Add(1)
		b.failedMsg = fmt.Sprintf("the batch has %d requests, over the limit of %d", len(f.entries), lim.MaxRequests)
	}
	s.openaiBatch(w, b, false)
}

// openaiBatch writes b as OpenAI's batch object, advancing it by one poll
// when poll is set.
func (s *Server) openaiBatch(w http.ResponseWriter, b *batch, poll bool) {
	s.mu.Lock()
	status, ended := "validating", false
	end := ""
	if poll {
		ended, end = b.state(s.Polls)
		status = end
	} else if b.cancel {
		status = "cancelling"
	}
	n, done := len(b.entries), 0
	var completed, failed int
	if ended {
		done = b.processed()
		if end == "failed" {
			done = 0
		}
	}
	for _, e := range b.entries[:done] {
		if e.reply.Status == 0 || e.reply.Status == http.StatusOK {
			completed++
		} else {
			failed++
		}
	}
	obj := map[string]any{"id": b.id, "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": b.inputFile,
		"completion_window": "24h", "status": status, "created_at": b.created.Unix(), "output_file_id": nil, "error_file_id": nil,
		"request_counts": map[string]int{"total": n, "completed": completed, "failed": failed}, "metadata": map[string]string{}}
	if ended && end != "failed" {
		if completed > 0 {
			id := "file-out-" + b.id
			s.files[id] = &file{id: id, results: b}
			obj["output_file_id"] = id
		}
		if failed > 0 || done < n && end == "expired" {
			id := "file-err-" + b.id
			s.files[id] = &file{id: id, results: b, errors: true}
			obj["error_file_id"] = id
		}
	}
	if end == "failed" {
		obj["errors"] = map[string]any{"object": "list", "data": []any{map[string]any{"code": "too_many_requests", "message": b.failedMsg}}}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, obj)
}

func (s *Server) openaiContent(w http.ResponseWriter, id string) {
	s.mu.Lock()
	f := s.files[id]
	s.mu.Unlock()
	if f == nil || f.results == nil {
		openaiError(w, http.StatusNotFound, "no file "+id)
		return
	}
	b := f.results
	w.Header().Set("Content-Type", "application/jsonl")
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	done := b.processed()
	for i, e := range b.entries {
		ok := e.reply.Status == 0 || e.reply.Status == http.StatusOK
		var line map[string]any
		switch {
		case i < done && ok && !f.errors:
			line = map[string]any{"id": fmt.Sprintf("batch_req_%d", i), "custom_id": e.id, "error": nil,
				"response": map[string]any{"status_code": 200, "request_id": fmt.Sprintf("req_%s_%d", b.id, i), "body": openaiCompletion(b, i, e)}}
		case i < done && !ok && f.errors:
			line = map[string]any{"id": fmt.Sprintf("batch_req_%d", i), "custom_id": e.id, "error": nil,
				"response": map[string]any{"status_code": e.reply.Status, "request_id": fmt.Sprintf("req_%s_%d", b.id, i),
					"body": map[string]any{"error": map[string]any{"message": e.reply.Error, "type": "invalid_request_error"}}}}
		case i >= done && f.errors && b.fate.End == "expired":
			line = map[string]any{"id": fmt.Sprintf("batch_req_%d", i), "custom_id": e.id, "response": nil,
				"error": map[string]any{"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}
		default:
			continue
		}
		_ = enc.Encode(line)
	}
	bw.Flush()
}

func openaiCompletion(b *batch, i int, e entry) map[string]any {
	return map[string]any{"id": fmt.Sprintf("chatcmpl-%s-%d", b.id, i), "object": "chat.completion", "created": b.created.Unix(), "model": e.model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": e.reply.Text}}},
		"usage": map[string]any{"prompt_tokens": e.reply.In, "completion_tokens": e.reply.Out, "total_tokens": e.reply.In + e.reply.Out,
			"prompt_tokens_details": map[string]int{"cached_tokens": e.reply.Cached}}}
}

// ---- Anthropic: /v1/messages/batches ----

func anthropicError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

var customIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

type anthropicRequest struct {
	CustomID string `json:"custom_id"`
	Params   struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		System    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"system"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	} `json:"params"`
}

func (s *Server) anthropic(w http.ResponseWriter, r *http.Request, p string) {
	switch {
	case p == "" && r.Method == http.MethodPost:
		s.anthropicCreate(w, r)
	case strings.HasSuffix(p, "/results") && r.Method == http.MethodGet:
		s.anthropicResults(w, strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/results"))
	case strings.HasSuffix(p, "/cancel") && r.Method == http.MethodPost:
		id := strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/cancel")
		s.mu.Lock()
		b := s.batches[id]
		if b != nil {
			b.cancel, b.polls = true, 0
		}
		s.mu.Unlock()
		if b == nil {
			anthropicError(w, http.StatusNotFound, "not_found_error", "no batch "+id)
			return
		}
		s.anthropicBatch(w, r, b, false)
	case strings.HasPrefix(p, "/") && r.Method == http.MethodGet:
		s.mu.Lock()
		b := s.batches[strings.TrimPrefix(p, "/")]
		s.mu.Unlock()
		if b == nil {
			anthropicError(w, http.StatusNotFound, "not_found_error", "no batch "+p)
			return
		}
		s.anthropicBatch(w, r, b, true)
	default:
		anthropicError(w, http.StatusNotFound, "not_found_error", "unknown path "+r.URL.Path)
	}
}

func (s *Server) anthropicCreate(w http.ResponseWriter, r *http.Request) {
	if s.refused(w, func(w http.ResponseWriter, status int, msg string) {
		anthropicError(w, status, "invalid_request_error", msg)
	}) {
		return
	}
	lim := s.Limits[Anthropic]
	cr := &countingReader{r: r.Body, max: lim.MaxBytes}
	dec := json.NewDecoder(cr)
	// {"requests": [ … ]}, read one request at a time.
	if err := expectTokens(dec, json.Delim('{'), "requests", json.Delim('[')); err != nil {
		s.anthropicBad(w, err)
		return
	}
	var entries []entry
	seen := map[string]bool{}
	for dec.More() {
		var req anthropicRequest
		if err := dec.Decode(&req); err != nil || cr.over {
			if cr.over {
				err = errTooLarge
			}
			s.anthropicBad(w, err)
			return
		}
		if !customIDPattern.MatchString(req.CustomID) || seen[req.CustomID] {
			anthropicError(w, http.StatusBadRequest, "invalid_request_error", "custom_id must match ^[a-zA-Z0-9_-]{1,64}$ and be unique: "+req.CustomID)
			return
		}
		seen[req.CustomID] = true
		p := req.Params
		if p.Model == "" || p.MaxTokens <= 0 || len(p.System) != 1 || len(p.Messages) != 1 || len(p.Messages[0].Content) != 1 {
			anthropicError(w, http.StatusBadRequest, "invalid_request_error", "params: want model, max_tokens, one system block and one user message")
			return
		}
		entries = append(entries, entry{id: req.CustomID, model: p.Model, reply: s.answer(Anthropic, p.Model, p.System[0].Text, p.Messages[0].Content[0].Text)})
		if lim.MaxRequests > 0 && len(entries) > lim.MaxRequests {
			s.overs.Add(1)
			anthropicError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("more than %d requests", lim.MaxRequests))
			return
		}
	}
	if _, err := io.Copy(io.Discard, cr); err != nil || cr.over {
		if cr.over {
			err = errTooLarge
		}
		s.anthropicBad(w, err)
		return
	}
	if len(entries) == 0 {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "requests: empty")
		return
	}
	b := s.newBatch(Anthropic, entries[0].model, entries)
	s.anthropicBatch(w, r, b, false)
}

func (s *Server) anthropicBad(w http.ResponseWriter, err error) {
	if err == errTooLarge {
		s.overs.Add(1)
		anthropicError(w, http.StatusRequestEntityTooLarge, "request_too_large", "request body over the limit")
		return
	}
	anthropicError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
}

func expectTokens(dec *json.Decoder, want ...any) error {
	for _, w := range want {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if t != w {
			return fmt.Errorf("want %v, got %v", w, t)
		}
	}
	return nil
}

func (s *Server) anthropicBatch(w http.ResponseWriter, r *http.Request, b *batch, poll bool) {
	s.mu.Lock()
	status, ended, end := "in_progress", false, ""
	if poll {
		ended, end = b.state(s.Polls)
		switch {
		case ended:
			status = "ended"
		case b.cancel:
			status = "canceling"
		}
	} else if b.cancel {
		status = "canceling"
	}
	counts := map[string]int{"processing": len(b.entries), "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
	if ended {
		counts["processing"] = 0
		done := b.processed()
		for i, e := range b.entries {
			switch {
			case i < done && (e.reply.Status == 0 || e.reply.Status == http.StatusOK):
				counts["succeeded"]++
			case i < done:
				counts["errored"]++
			case end == "expired":
				counts["expired"]++
			default:
				counts["canceled"]++
			}
		}
	}
	s.mu.Unlock()
	created := b.created.UTC()
	obj := map[string]any{"id": b.id, "type": "message_batch", "processing_status": status, "request_counts": counts,
		"created_at": created.Format(time.RFC3339), "expires_at": created.Add(24 * time.Hour).Format(time.RFC3339),
		"ended_at": nil, "archived_at": nil, "cancel_initiated_at": nil, "results_url": nil}
	if ended {
		obj["ended_at"] = time.Now().UTC().Format(time.RFC3339)
		obj["results_url"] = "http://" + r.Host + "/v1/messages/batches/" + b.id + "/results"
	}
	writeJSON(w, http.StatusOK, obj)
}

func (s *Server) anthropicResults(w http.ResponseWriter, id string) {
	s.mu.Lock()
	b := s.batches[id]
	s.mu.Unlock()
	if b == nil || b.polls == 0 {
		anthropicError(w, http.StatusNotFound, "not_found_error", "no results for "+id)
		return
	}
	w.Header().Set("Content-Type", "application/x-jsonl")
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	done := b.processed()
	for i, e := range b.entries {
		var res map[string]any
		switch {
		case i < done && (e.reply.Status == 0 || e.reply.Status == http.StatusOK):
			usage := map[string]any{"input_tokens": e.reply.In - e.reply.Cached, "output_tokens": e.reply.Out,
				"cache_creation_input_tokens": 0, "cache_read_input_tokens": e.reply.Cached, "service_tier": "batch"}
			if e.reply.Compaction {
				usage["iterations"] = []any{
					map[string]any{"type": "compaction", "input_tokens": e.reply.CompactionIn, "output_tokens": e.reply.CompactionOut, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
					map[string]any{"type": "message", "input_tokens": e.reply.In - e.reply.Cached, "output_tokens": e.reply.Out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": e.reply.Cached},
				}
			}
			res = map[string]any{"type": "succeeded", "message": map[string]any{"id": fmt.Sprintf("msg_%s_%d", b.id, i), "type": "message", "role": "assistant",
				"model": e.model, "content": []any{map[string]any{"type": "text", "text": e.reply.Text}}, "stop_reason": "end_turn", "stop_sequence": nil, "usage": usage}}
		case i < done:
			res = map[string]any{"type": "errored", "error": map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": e.reply.Error}}}
		case b.fate.End == "expired":
			res = map[string]any{"type": "expired"}
		default:
			res = map[string]any{"type": "canceled"}
		}
		_ = enc.Encode(map[string]any{"custom_id": e.id, "result": res})
	}
	bw.Flush()
}

// ---- Gemini: models/{model}:batchGenerateContent, batches/{id} ----

func geminiError(w http.ResponseWriter, status int, st, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg, "status": st}})
}

type geminiBatchRequest struct {
	Batch struct {
		DisplayName string `json:"displayName"`
		InputConfig struct {
			Requests struct {
				Requests []struct {
					Request struct {
						Contents []struct {
							Parts []struct {
								Text string `json:"text"`
							} `json:"parts"`
						} `json:"contents"`
						SystemInstruction *struct {
							Parts []struct {
								Text string `json:"text"`
							} `json:"parts"`
						} `json:"systemInstruction"`
					} `json:"request"`
					Metadata map[string]string `json:"metadata"`
				} `json:"requests"`
			} `json:"requests"`
		} `json:"inputConfig"`
	} `json:"batch"`
}

func (s *Server) gemini(w http.ResponseWriter, r *http.Request, p string) {
	switch {
	case strings.HasPrefix(p, "models/") && strings.HasSuffix(p, ":batchGenerateContent") && r.Method == http.MethodPost:
		s.geminiCreate(w, r, strings.TrimSuffix(strings.TrimPrefix(p, "models/"), ":batchGenerateContent"))
	case strings.HasPrefix(p, "batches/") && strings.HasSuffix(p, ":cancel") && r.Method == http.MethodPost:
		id := strings.TrimSuffix(p, ":cancel")
		s.mu.Lock()
		b := s.batches[id]
		if b != nil {
			b.cancel, b.polls = true, 0
		}
		s.mu.Unlock()
		if b == nil {
			geminiError(w, http.StatusNotFound, "NOT_FOUND", "no batch "+id)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{})
	case strings.HasPrefix(p, "batches/") && r.Method == http.MethodGet:
		s.mu.Lock()
		b := s.batches[p]
		s.mu.Unlock()
		if b == nil {
			geminiError(w, http.StatusNotFound, "NOT_FOUND", "no batch "+p)
			return
		}
		s.geminiBatch(w, b, true)
	default:
		geminiError(w, http.StatusNotFound, "NOT_FOUND", "unknown path "+r.URL.Path)
	}
}

func (s *Server) geminiCreate(w http.ResponseWriter, r *http.Request, model string) {
	if s.refused(w, func(w http.ResponseWriter, status int, msg string) {
		geminiError(w, status, "FAILED_PRECONDITION", msg)
	}) {
		return
	}
	lim := s.Limits[Gemini]
	body, err := io.ReadAll(&countingReader{r: r.Body, max: lim.MaxBytes})
	if err != nil {
		if err == errTooLarge {
			s.overs.Add(1)
			geminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("the request is over %d bytes; use a file", lim.MaxBytes))
			return
		}
		geminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", err.Error())
		return
	}
	var req geminiBatchRequest
	if err := json.Unmarshal(body, &req); err != nil {
		geminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", err.Error())
		return
	}
	reqs := req.Batch.InputConfig.Requests.Requests
	if len(reqs) == 0 {
		geminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "no requests")
		return
	}
	if lim.MaxRequests > 0 && len(reqs) > lim.MaxRequests {
		s.overs.Add(1)
		geminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "too many requests")
		return
	}
	entries := make([]entry, 0, len(reqs))
	for _, q := range reqs {
		sys, user := "", ""
		if si := q.Request.SystemInstruction; si != nil && len(si.Parts) > 0 {
			sys = si.Parts[0].Text
		}
		if len(q.Request.Contents) != 1 || len(q.Request.Contents[0].Parts) != 1 || q.Metadata["key"] == "" {
			geminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "want one content of one part and metadata.key")
			return
		}
		user = q.Request.Contents[0].Parts[0].Text
		entries = append(entries, entry{id: q.Metadata["key"], model: model, reply: s.answer(Gemini, model, sys, user)})
	}
	b := s.newBatch(Gemini, model, entries)
	s.geminiBatch(w, b, false)
}

func (s *Server) geminiBatch(w http.ResponseWriter, b *batch, poll bool) {
	s.mu.Lock()
	state, ended, end := "BATCH_STATE_PENDING", false, ""
	if poll {
		ended, end = b.state(s.Polls)
		switch {
		case !ended:
			state = "BATCH_STATE_RUNNING"
		case end == "completed":
			state = "BATCH_STATE_SUCCEEDED"
		case end == "expired":
			state = "BATCH_STATE_EXPIRED"
		case end == "cancelled":
			state = "BATCH_STATE_CANCELLED"
		default:
			state = "BATCH_STATE_FAILED"
		}
	}
	s.mu.Unlock()
	md := map[string]any{"@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
		"model": "models/" + b.model, "displayName": "compact", "state": state,
		"createTime": b.created.UTC().Format(time.RFC3339Nano), "updateTime": time.Now().UTC().Format(time.RFC3339Nano),
		"batchStats": map[string]string{"requestCount": fmt.Sprint(len(b.entries))}}
	obj := map[string]any{"name": b.id, "metadata": md, "done": ended}
	if ended && end != "failed" {
		done := b.processed()
		var out []any
		for i, e := range b.entries[:done] {
			if e.reply.Status != 0 && e.reply.Status != http.StatusOK {
				out = append(out, map[string]any{"error": map[string]any{"code": e.reply.Status, "message": e.reply.Error}, "metadata": map[string]string{"key": e.id}})
				continue
			}
			out = append(out, map[string]any{"metadata": map[string]string{"key": e.id}, "response": map[string]any{
				"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": e.reply.Text}}}, "finishReason": "STOP", "index": 0}},
				"usageMetadata": map[string]any{"promptTokenCount": e.reply.In, "candidatesTokenCount": e.reply.Out, "totalTokenCount": e.reply.In + e.reply.Out, "cachedContentTokenCount": e.reply.Cached},
				"modelVersion":  b.model, "responseId": fmt.Sprintf("resp-%d-%d", b.seq, i)}})
		}
		if len(out) > 0 {
			md["output"] = map[string]any{"inlinedResponses": map[string]any{"inlinedResponses": out}}
		}
	}
	writeJSON(w, http.StatusOK, obj)
}
