package agents

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/fsutil"
)

// OpenTelemetry traces of model calls, read from OTLP JSON (otlp.go), in
// the spellings of two conventions:
//
//   - the OpenTelemetry GenAI semantic conventions
//     (open-telemetry/semantic-conventions-genai, status Development;
//     followed as of commit 7568a2406479 of its message schemas and the
//     attribute registry that defines gen_ai.conversation.compacted): a
//     model call is a span whose gen_ai.operation.name is chat,
//     text_completion or generate_content; its content, opt-in
//     (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT), is
//     gen_ai.input.messages and gen_ai.output.messages, JSON lists of
//     {role, parts: [{type, …}]} (gen-ai-input-messages.json,
//     gen-ai-output-messages.json: text, reasoning, tool_call,
//     tool_call_response, server_tool_call(_response), blob, file, uri,
//     compaction parts), recorded as a JSON string or structured;
//     gen_ai.conversation.id threads a conversation;
//     gen_ai.conversation.compacted=true marks a call whose context is a
//     compacted view of the conversation; gen_ai.usage.input_tokens (the
//     cache counts gen_ai.usage.cache_read.input_tokens and
//     cache_creation.input_tokens included in it) and output_tokens. The
//     older names, from open-telemetry/semantic-conventions up to
//     v1.36.0, are read too: gen_ai.prompt and gen_ai.completion (JSON in
//     OpenAI's message shape, as span attributes or on the
//     gen_ai.content.prompt and gen_ai.content.completion events of
//     v1.27.0), the per-message events gen_ai.system.message,
//     gen_ai.user.message, gen_ai.assistant.message, gen_ai.tool.message
//     and gen_ai.choice (v1.28.0 to v1.36.0; read where their body's
//     fields are the span event's attributes), gen_ai.usage.prompt_tokens
//     and completion_tokens, gen_ai.system; and OpenLLMetry's indexed
//     spelling gen_ai.prompt.N.role/content/tool_calls….
//   - OpenInference (Arize-ai/openinference spec/, semantic conventions
//     0.1.32): a model call is a span whose openinference.span.kind is
//     LLM; its messages are flattened attributes
//     llm.input_messages.N.message.role, .content,
//     .contents.K.message_content.*, .tool_calls.K.tool_call.*,
//     .tool_call_id, and llm.output_messages…; session.id threads a
//     session; llm.token_count.prompt, .completion and
//     .prompt_details.cache_read/cache_write are the usage.
//
// One Session per conversation (gen_ai.conversation.id, else
// OpenInference's session.id, on the span, an ancestor span or the
// resource; a call without either in a trace whose other calls name one
// conversation is that conversation's; a trace without any is a session
// of its own), its calls in start-time order. Of two model-call spans one inside the other (a
// framework's span around the SDK's), the inner one is read. Each call's
// input is its context: the messages it adds to what the call before it
// was sent and answered are the conversation's next messages (system
// messages and instructions left out), and its output's first message is
// the reply, with the call's usage. A compaction is a call whose input
// is a compacted view: gen_ai.conversation.compacted=true on the first
// such call (or on a later one whose view dropped more of the
// conversation or carries another compaction part), an input holding a
// new compaction part, or, after a compaction call, an input that dropped
// messages of the conversation. The conventions give no place to the summary
// but the compaction part (CompactionPart's content: "the unencrypted
// compacted conversation summary, when available"), in the compacted
// input or in the output of the compaction call before it (whose output
// holds a compaction part); a compaction part without content is
// unauditable. Without one, the summary is the first message of the
// compacted view that the conversation before it does not hold, and the
// file says so. The messages the view kept verbatim are the compaction's
// preserved messages.

// OTel is the format name of OpenTelemetry traces (OTLP JSON).
const OTel = "otel"

// MaxTraceBytes bounds a trace file, read whole.
const MaxTraceBytes = 1 << 30

// NoContent says why a session read from traces holds no message text.
const NoContent = "its model calls record none (GenAI instrumentations capture content only when asked, e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true; OpenInference's drop it under OPENINFERENCE_HIDE_INPUTS and OPENINFERENCE_HIDE_OUTPUTS)"

// OTelFile is what one trace file holds.
type OTelFile struct {
	Path string
	// Sessions are its conversations, in the order of their first call.
	Sessions []*Session
	// Spans counts the spans read, Logs the GenAI events among its log
	// records, Calls the model calls (a span, or the log records of one
	// with no span).
	Spans, Logs, Calls int
	// Problems are the file's lines that could not be read.
	Problems []Problem
}

// ReadOTelFile reads the OTLP JSON trace file at path (its log records
// join the spans of this file), JSON Lines as a stream (otlpstream.go).
func ReadOTelFile(path string) (*OTelFile, error) {
	r, err := readOTLPFile(path, false)
	if err != nil {
		return nil, err
	}
	return readOTelData(r, path, nil), nil
}

// OTelRun reads the trace files of one run (compact extract --from otel)
// so that a log record joins its span in whichever file holds it: the
// collector writes a traces pipeline and a logs pipeline to files of their
// own. NewOTelRun pools the GenAI log records of every file (and, when
// there are any, the span ids of every file); Read reads one file with
// them.
type OTelRun struct {
	pool *logPool // nil: no file holds a GenAI log record
}

// NewOTelRun reads the log records of paths ahead: a first pass over the
// files that hold any (resourceLogs), and, when some do, over the others
// for their span ids. A file that cannot be read is passed over here:
// Read says why.
func NewOTelRun(paths []string) *OTelRun {
	run := &OTelRun{}
	var withLogs, others []string
	for _, p := range paths {
		if holdsLogs(p) {
			withLogs = append(withLogs, p)
		} else {
			others = append(others, p)
		}
	}
	if len(withLogs) == 0 {
		return run
	}
	run.pool = newLogPool()
	run.pool.spans = map[spanRef]bool{}
	for i, p := range append(withLogs, others...) {
		r, err := readOTLPFile(p, true)
		if err != nil {
			continue
		}
		if i < len(withLogs) {
			run.pool.add(r.logs)
		}
		for _, s := range r.spans {
			run.pool.spans[spanRef{strings.ToLower(s.traceID), strings.ToLower(s.spanID)}] = true
		}
	}
	return run
}

// holdsLogs reports whether the file at path names resourceLogs (or
// resource_logs), read a block at a time.
func holdsLogs(path string) bool {
	f, err := fsutil.OpenInputMax(path, MaxTraceBytes)
	if err != nil {
		return false
	}
	defer f.Close()
	const keep = len("resource_logs") // a name cut by a block's end
	buf := make([]byte, 1<<20)
	tail := 0
	for {
		n, err := f.Read(buf[tail:])
		block := buf[:tail+n]
		if bytes.Contains(block, []byte("esourceLogs")) || bytes.Contains(block, []byte("esource_logs")) {
			return true
		}
		if err != nil {
			return false
		}
		tail = copy(buf, block[max(0, len(block)-keep):])
	}
}

// Read reads the trace file at path, its spans joined with the run's log
// records.
func (run *OTelRun) Read(path string) (*OTelFile, error) {
	r, err := readOTLPFile(path, false)
	if err != nil {
		return nil, err
	}
	if run.pool == nil {
		return readOTelData(r, path, newLogPool()), nil
	}
	return readOTelData(r, path, run.pool), nil
}

// ReadOTelAll reads one OTLP JSON trace file from r.
func ReadOTelAll(rd io.Reader, name string) (*OTelFile, error) {
	r, err := readOTLPStream(rd, name, false)
	if err != nil {
		return nil, err // it names the file
	}
	return readOTelData(r, name, nil), nil
}

// ReadOTel reads the first conversation of a trace file (by its first
// call) as one session, as ReadFile reads an agent's session: the other
// conversations are named in a problem, the file's bad lines are its
// problems. A file without a model call gives a session without
// messages.
func ReadOTel(r io.Reader, name string) (*Session, error) {
	f, err := ReadOTelAll(r, name)
	if err != nil {
		return nil, err
	}
	return f.First(), nil
}

// First is the file's first conversation, as ReadOTel returns it.
func (f *OTelFile) First() *Session {
	if len(f.Sessions) == 0 {
		s := newOTelSession(f.Path, "")
		s.Problems = append(s.Problems, f.Problems...)
		if f.Calls == 0 {
			s.problem(0, "no model call among its %d spans (no span is a GenAI chat call or an OpenInference LLM span)", f.Spans)
		}
		return s
	}
	cp := *f.Sessions[0]
	s := &cp
	s.Problems = append(append([]Problem{}, f.Problems...), s.Problems...)
	if n := len(f.Sessions) - 1; n > 0 {
		ids := make([]string, 0, n)
		for _, o := range f.Sessions[1:] {
			ids = append(ids, o.ID)
		}
		if len(ids) > 3 {
			ids = append(ids[:3], "…")
		}
		s.problem(0, "the file holds %s more (%s): this is the first, %s; compact extract --from otel reads them all", plural(n, "conversation"), strings.Join(ids, ", "), s.ID)
	}
	s.capProblems()
	return s
}

func newOTelSession(path, id string) *Session {
	return &Session{Agent: OTel, Path: path, ID: id, Problems: []Problem{}, Compactions: []Compaction{}}
}

// otelCall is one model call of a conversation.
type otelCall struct {
	span      *otlpSpan
	input     []oMsg
	output    []oMsg
	content   bool // the call records content (input or output)
	usage     *Usage
	model     string
	compacted bool
}

// readOTelData reads what r read of one trace file; its spans join the
// log records of pool (nil: of this file).
func readOTelData(r *otlpReader, name string, pool *logPool) *OTelFile {
	spans := len(r.spans)
	if n := r.joinLogs(pool); n > 0 {
		r.problem(0, "%s name no span; left out", plural(n, "GenAI message event recorded as a log record"))
	}
	f := &OTelFile{Path: name, Spans: spans, Logs: len(r.logs), Problems: r.problems}
	if n := len(f.Problems); n > maxProblemLines {
		f.Problems = append(f.Problems[:maxProblemLines:maxProblemLines], Problem{Message: fmt.Sprintf("%d more problems like these not shown", n-maxProblemLines)})
	}
	type key struct{ trace, span string }
	byID := make(map[key]*otlpSpan, len(r.spans))
	for _, s := range r.spans {
		if s.spanID != "" {
			byID[key{s.traceID, s.spanID}] = s
		}
	}
	parent := func(s *otlpSpan) *otlpSpan {
		if s.parentID == "" {
			return nil
		}
		return byID[key{s.traceID, s.parentID}]
	}
	var chats []*otlpSpan
	isChat := map[*otlpSpan]bool{}
	for _, s := range r.spans {
		if isModelCall(s) {
			chats = append(chats, s)
			isChat[s] = true
		}
	}
	// A model-call span with another inside it: the inner one is read.
	outer := map[*otlpSpan]bool{}
	for _, s := range chats {
		seen := map[*otlpSpan]bool{s: true}
		for p := parent(s); p != nil && !seen[p]; p = parent(p) {
			seen[p] = true
			if isChat[p] {
				outer[p] = true
			}
		}
	}
	sessions := map[string]*Session{}
	states := map[string]*otelConversation{}
	var order []string
	var calls []otelCall
	for _, s := range chats {
		if outer[s] {
			continue
		}
		if s.call != nil && !s.logged {
			calls = append(calls, *s.call) // read as the span was (digest)
			s.call = nil
			continue
		}
		c := readCall(s)
		r.intern.msgs(c.input)
		r.intern.msgs(c.output)
		dropContent(s)
		calls = append(calls, c)
	}
	sort.SliceStable(calls, func(i, j int) bool {
		a, b := calls[i].span, calls[j].span
		if a.start != b.start {
			return a.start < b.start
		}
		return a.order < b.order
	})
	f.Calls = len(calls)
	// A call without a conversation id in a trace whose other calls name
	// exactly one is that conversation's (Microsoft Agent Framework's
	// first call has none: the id is the first response's).
	convs := make([]string, len(calls))
	inTrace := map[string]map[string]bool{}
	for i := range calls {
		convs[i] = conversationOf(calls[i].span, parent)
		if strings.HasPrefix(convs[i], "conv:") {
			t := calls[i].span.traceID
			if inTrace[t] == nil {
				inTrace[t] = map[string]bool{}
			}
			inTrace[t][convs[i]] = true
		}
	}
	for i := range calls {
		if ids := inTrace[calls[i].span.traceID]; strings.HasPrefix(convs[i], "trace:") && len(ids) == 1 {
			for id := range ids {
				convs[i] = id
			}
		}
	}
	for i := range calls {
		c := &calls[i]
		conv := convs[i]
		if _, ok := sessions[conv]; !ok {
			kind, id, _ := strings.Cut(conv, ":")
			sessions[conv] = newOTelSession(name, id)
			if kind == "conv" {
				sessions[conv].Conversation = id
			}
			states[conv] = &otelConversation{s: sessions[conv], calls: map[string]bool{}, roles: map[string]bool{}}
			order = append(order, conv)
		}
		states[conv].add(c)
	}
	for _, conv := range order {
		st := states[conv]
		st.finish()
		f.Sessions = append(f.Sessions, st.s)
	}
	return f
}

// isModelCall reports whether a span is a model call: a GenAI chat,
// text_completion or generate_content span (older spans without an
// operation name: gen_ai.system or gen_ai.provider.name with a model or
// content), or an OpenInference LLM span.
func isModelCall(s *otlpSpan) bool {
	a := s.attrs
	if op, ok := a["gen_ai.operation.name"].(string); ok {
		switch op {
		case "chat", "text_completion", "generate_content":
			return true
		}
		return false
	}
	if k, ok := a["openinference.span.kind"].(string); ok {
		return strings.EqualFold(k, "LLM")
	}
	_, sys := a["gen_ai.system"]
	_, prov := a["gen_ai.provider.name"]
	if !sys && !prov {
		return false
	}
	for k := range a {
		if k == "gen_ai.request.model" || strings.HasPrefix(k, "gen_ai.prompt") || strings.HasPrefix(k, "gen_ai.completion") || strings.HasPrefix(k, "gen_ai.input.") || strings.HasPrefix(k, "gen_ai.output.") {
			return true
		}
	}
	return false
}

// conversationOf is the conversation a call belongs to:
// "conv:"+gen_ai.conversation.id or session.id, on the span, its nearest
// ancestor that has one, or the resource; else "trace:"+its trace id.
func conversationOf(s *otlpSpan, parent func(*otlpSpan) *otlpSpan) string {
	seen := map[*otlpSpan]bool{}
	for p := s; p != nil && !seen[p]; p = parent(p) {
		seen[p] = true
		if id := conversationAttr(p.attrs); id != "" {
			return "conv:" + id
		}
	}
	if id := conversationAttr(s.resource); id != "" {
		return "conv:" + id
	}
	return "trace:" + s.traceID
}

func conversationAttr(a map[string]any) string {
	for _, k := range []string{"gen_ai.conversation.id", "session.id"} {
		if id := strings.TrimSpace(attrText(a[k])); id != "" {
			return id
		}
	}
	return ""
}

// interner keeps one copy of each text of a file's messages.
type interner map[string]string

func (in interner) str(s string) string {
	if s == "" {
		return s
	}
	if t, ok := in[s]; ok {
		return t
	}
	in[s] = s
	return s
}

func (in interner) msgs(ms []oMsg) {
	for i := range ms {
		m := &ms[i]
		m.text, m.reasoning, m.callID = in.str(m.text), in.str(m.reasoning), in.str(m.callID)
		for k := range m.calls {
			c := &m.calls[k]
			c.ID, c.Name, c.Input = in.str(c.ID), in.str(c.Name), in.str(c.Input)
		}
		for k := range m.summary {
			m.summary[k] = in.str(m.summary[k])
		}
	}
}

// dropContent drops what readCall read of a span's content: its message
// attributes and events.
func dropContent(s *otlpSpan) {
	for k := range s.attrs {
		switch {
		case k == "gen_ai.input.messages", k == "gen_ai.output.messages", k == "gen_ai.system_instructions",
			strings.HasPrefix(k, "gen_ai.prompt"), strings.HasPrefix(k, "gen_ai.completion"),
			strings.HasPrefix(k, "llm.input_messages."), strings.HasPrefix(k, "llm.output_messages."):
			delete(s.attrs, k)
		}
	}
	s.events = nil
}

// readCall reads a model call's content, usage and model.
func readCall(s *otlpSpan) otelCall {
	a := s.attrs
	c := otelCall{span: s, usage: otelUsage(a)}
	c.compacted, _ = a["gen_ai.conversation.compacted"].(bool)
	if v, ok := a["gen_ai.conversation.compacted"].(string); ok {
		c.compacted = strings.EqualFold(v, "true")
	}
	for _, k := range []string{"gen_ai.response.model", "gen_ai.request.model", "llm.model_name"} {
		if m := attrText(a[k]); m != "" {
			c.model = m
			break
		}
	}
	in, inOK := genAIAttr(a, "gen_ai.input.messages")
	out, outOK := genAIAttr(a, "gen_ai.output.messages")
	if !inOK {
		in, inOK = legacyAttr(s, "gen_ai.prompt", "gen_ai.content.prompt")
	}
	if !outOK {
		out, outOK = legacyAttr(s, "gen_ai.completion", "gen_ai.content.completion")
	}
	if !inOK {
		if m := openInferenceMessages(a, "llm.input_messages."); len(m) > 0 {
			in, inOK = m, true
		} else if m := openLLMetryMessages(a, "gen_ai.prompt."); len(m) > 0 {
			in, inOK = m, true
		}
	}
	if !outOK {
		if m := openInferenceMessages(a, "llm.output_messages."); len(m) > 0 {
			out, outOK = m, true
		} else if m := openLLMetryMessages(a, "gen_ai.completion."); len(m) > 0 {
			out, outOK = m, true
		}
	}
	if !inOK && !outOK {
		if ein, eout, found := eventMessages(s.events); found {
			in, out, inOK, outOK = ein, eout, len(ein) > 0, len(eout) > 0
		}
	}
	c.input, c.output, c.content = in, out, inOK || outOK
	return c
}

// genAIAttr reads a GenAI messages attribute, recorded as JSON text or
// structured.
func genAIAttr(a map[string]any, k string) ([]oMsg, bool) {
	v, ok := a[k]
	if !ok || v == nil {
		return nil, false
	}
	raw := []byte(nil)
	if s, ok := v.(string); ok {
		raw = []byte(s)
	} else {
		raw = toJSON(v)
	}
	msgs, ok := parseGenAIMessages(raw)
	if !ok {
		if s, isStr := v.(string); isStr && strings.TrimSpace(s) != "" {
			// Text that is not the schema's JSON: one message of it.
			role := RoleUser
			if k == "gen_ai.output.messages" {
				role = RoleAssistant
			}
			return []oMsg{{role: role, text: s}}, true
		}
		return nil, false
	}
	return msgs, true
}

// legacyAttr reads the older gen_ai.prompt or gen_ai.completion: a span
// attribute, or the attribute of the span's event of that name.
func legacyAttr(s *otlpSpan, attr, event string) ([]oMsg, bool) {
	v, ok := s.attrs[attr]
	if !ok {
		for _, e := range s.events {
			if e.name == event {
				v, ok = e.attrs[attr]
				break
			}
		}
	}
	if !ok {
		return nil, false
	}
	text := attrText(v)
	if msgs, ok := parseOpenAIMessages(text); ok {
		return msgs, true
	}
	if strings.TrimSpace(text) == "" {
		return nil, false
	}
	role := RoleUser
	if attr == "gen_ai.completion" {
		role = RoleAssistant
	}
	return []oMsg{{role: role, text: text}}, true
}

// otelUsage reads a call's token usage; nil when it records none.
func otelUsage(a map[string]any) *Usage {
	get := func(keys ...string) (int64, bool) {
		for _, k := range keys {
			if n, ok := intOf(a[k]); ok {
				return n, true
			}
		}
		return 0, false
	}
	in, okIn := get("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")
	out, okOut := get("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion")
	read, _ := get("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens", "llm.token_count.prompt_details.cache_read")
	write, _ := get("gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_creation_input_tokens", "llm.token_count.prompt_details.cache_write")
	if !okIn && !okOut {
		return nil
	}
	u := &Usage{Input: in, CacheRead: read, CacheCreation: write, Output: out}
	if read >= 0 && write >= 0 && in >= read+write {
		// The cache counts are part of the input count, as the
		// conventions say they should be: Usage counts them apart.
		u.Input = in - read - write
	}
	return u
}

// otelConversation builds one session from its calls in order.
type otelConversation struct {
	s *Session
	// view is what the previous call was sent (less system messages) and
	// answered, with the index in s.Messages of each (-1: not in the
	// history, a summary).
	view     []viewMsg
	prev     *otelCall
	started  bool
	calls    map[string]bool // the tool calls made so far
	roles    map[string]bool // unknown roles reported
	lastUse  *Usage
	pending  *Compaction // a compaction call's summary, for the compacted call after it
	noText   int         // calls without content
	rewrote  int         // calls whose input rewrote earlier messages
	sawPart  string      // the compaction parts of the previous call's input
	contents bool        // some call recorded content
	allCalls []*otelCall
}

type viewMsg struct {
	key string
	idx int
}

func (c *otelConversation) add(call *otelCall) {
	c.allCalls = append(c.allCalls, call)
	if call.content {
		c.contents = true
	}
}

// finish reads the calls in order into the session.
func (c *otelConversation) finish() {
	s := c.s
	if !c.contents {
		c.noContent()
		return
	}
	for _, call := range c.allCalls {
		if s.Model == "" {
			s.Model = call.model
		}
		if !call.content {
			c.noText++
			continue
		}
		c.call(call)
	}
	if c.noText > 0 {
		s.problem(0, "%d of its model calls record no message content; left out (their usage with them)", c.noText)
	}
	if c.rewrote > 0 {
		s.problem(0, "%d calls were sent earlier messages changed; the history keeps them as first sent", c.rewrote)
	}
	s.capProblems()
}

// noContent makes a session of a conversation whose calls hold no text:
// one empty assistant message per call with its usage, and its
// compactions, unauditable.
func (c *otelConversation) noContent() {
	s := c.s
	s.NoContent = NoContent
	s.problem(0, "no message content: %s; each step is a model call with its token usage only", NoContent)
	prevCompacted := false
	for i, call := range c.allCalls {
		if s.Model == "" {
			s.Model = call.model
		}
		if call.compacted && !prevCompacted {
			comp := Compaction{Index: len(s.Messages), Line: call.span.line, ID: call.span.spanID, Time: spanTime(call.span.start), Unauditable: "the trace records no message content",
				TraceID: call.span.traceID, SpanID: call.span.spanID}
			if c.lastUse != nil {
				comp.PreTokens = c.lastUse.Context()
			}
			if call.usage != nil {
				comp.PostTokens = call.usage.Context()
			}
			s.Compactions = append(s.Compactions, comp)
		}
		prevCompacted = call.compacted
		m := Message{ID: fmt.Sprintf("%s/%d", spanKey(call.span, i), 0), Role: RoleAssistant, Model: call.model, Usage: call.usage, Time: spanTime(call.span.end), Line: call.span.line}
		s.Messages = append(s.Messages, m)
		if call.usage != nil {
			c.lastUse = call.usage
		}
	}
}

func spanKey(sp *otlpSpan, i int) string {
	if sp.spanID != "" {
		return sp.spanID
	}
	return fmt.Sprintf("span%d", i)
}

func spanTime(n int64) time.Time {
	if n <= 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// call reads one model call that records content.
func (c *otelConversation) call(call *otelCall) {
	s := c.s
	sp := call.span
	id := spanKey(sp, len(s.Messages))
	// The compaction call: its output is a compaction part, the summary
	// of the compacted call after it.
	for _, m := range call.output {
		if m.compaction {
			comp := &Compaction{Line: sp.line, ID: sp.spanID, Time: spanTime(sp.end), TraceID: sp.traceID, SpanID: sp.spanID}
			setSummary(comp, m.summary, "the compaction call's output")
			c.pending = comp
			if call.usage != nil {
				comp.Usage = call.usage
			}
			return
		}
	}
	// The input less system messages; the message carrying compaction
	// parts (the compacted view's summary) apart.
	var in []oMsg
	var parts *oMsg
	for i := range call.input {
		m := call.input[i]
		if m.role == "" && m.unknownRole == "" {
			// No role given: what the message holds tells.
			switch {
			case m.callID != "":
				m.role = RoleTool
			case len(m.calls) > 0:
				m.role = RoleAssistant
			default:
				m.role = RoleUser
			}
		}
		if m.unknownRole != "" {
			if !c.roles[m.unknownRole] {
				c.roles[m.unknownRole] = true
				s.problem(sp.line, "span %s: a message of role %q; left out", sp.spanID, m.unknownRole)
			}
			continue
		}
		if m.compaction {
			if parts == nil {
				parts = &oMsg{compaction: true}
			}
			parts.summary = append(parts.summary, m.summary...)
			continue
		}
		if m.role == RoleSystem {
			continue
		}
		in = append(in, m)
	}
	partSig := ""
	if parts != nil {
		partSig = "\x00" + strings.Join(parts.summary, "\x00")
	}
	// Align the input with the view: matched[i] is the history index of
	// in[i], -1 when it is not in the view.
	matched := make([]int, len(in))
	keys := make([]string, len(in))
	last, used := -1, 0
	j := 0
	for i := range in {
		matched[i] = -1
		keys[i] = in[i].key()
		k := keys[i]
		for p := j; p < len(c.view); p++ {
			if c.view[p].key == k {
				matched[i] = c.view[p].idx
				j = p + 1
				last = i
				used++
				break
			}
		}
	}
	dropped := 0
	for _, v := range c.view {
		if v.idx >= 0 {
			dropped++
		}
	}
	dropped -= used
	prevCompacted := c.prev != nil && (c.prev.compacted || c.sawPart != "")
	isCompaction := c.started && (call.compacted && (!prevCompacted || dropped > 0 || (partSig != "" && partSig != c.sawPart)) ||
		!call.compacted && partSig != "" && partSig != c.sawPart ||
		// after a compaction call, a view that dropped messages
		c.pending != nil && dropped > 0)
	if !c.started && (call.compacted || parts != nil) {
		// The first call of the file is already a compacted view: the
		// history before it is not in the file.
		isCompaction = true
	}
	newFrom := last + 1
	var summaryAt = -1
	if isCompaction {
		comp := Compaction{Index: len(s.Messages), Line: sp.line, ID: sp.spanID, Time: spanTime(sp.start), TraceID: sp.traceID, SpanID: sp.spanID}
		if c.lastUse != nil {
			comp.PreTokens = c.lastUse.Context()
		}
		if call.usage != nil {
			comp.PostTokens = call.usage.Context()
		}
		switch {
		case parts != nil:
			setSummary(&comp, parts.summary, "its compaction part")
		case c.pending != nil:
			comp.Summary, comp.HasSummary, comp.Unauditable, comp.Usage = c.pending.Summary, c.pending.HasSummary, c.pending.Unauditable, c.pending.Usage
			comp.SummaryLine = c.pending.Line
			comp.TraceID, comp.SpanID = c.pending.TraceID, c.pending.SpanID
			// The summary sent back as a message of the view is not a
			// message of the conversation.
			for i := range in {
				if matched[i] < 0 && comp.HasSummary && strings.TrimSpace(in[i].text) == strings.TrimSpace(comp.Summary) {
					summaryAt = i
					break
				}
			}
		default:
			// No compaction part: the first message of the view the
			// history before it lacks.
			for i := range in {
				if matched[i] < 0 && in[i].role != RoleTool {
					summaryAt = i
					break
				}
			}
			if summaryAt >= 0 {
				comp.Summary, comp.HasSummary = in[summaryAt].text, true
				s.problem(sp.line, "span %s: its compacted view has no compaction part; the first message the conversation before it lacks is read as the summary", sp.spanID)
			} else {
				comp.Unauditable = "the compacted view holds no compaction part and no message the conversation before it lacked"
			}
		}
		for i := range in {
			if matched[i] >= 0 {
				comp.Preserved = append(comp.Preserved, s.Messages[matched[i]].ID)
			}
		}
		s.Compactions = append(s.Compactions, comp)
		newFrom = 0
	} else if last >= 0 {
		for i := 0; i < last; i++ {
			if matched[i] < 0 {
				c.rewrote++
				break
			}
		}
	}
	c.pending = nil
	// The new messages of the input, then the reply.
	view := make([]viewMsg, 0, len(in)+1)
	for i := range in {
		if matched[i] >= 0 {
			view = append(view, viewMsg{key: keys[i], idx: matched[i]})
			continue
		}
		if i < newFrom || i == summaryAt {
			view = append(view, viewMsg{key: keys[i], idx: -1})
			continue
		}
		view = append(view, viewMsg{key: keys[i], idx: c.append(in[i], fmt.Sprintf("%s/in/%d", id, i), sp, spanTime(sp.start), nil, "")})
	}
	replied := false
	for i := range call.output {
		m := call.output[i]
		if m.unknownRole != "" || m.role == RoleSystem {
			continue
		}
		if m.role == RoleUser || m.role == "" {
			m.role = RoleAssistant // an output message is the model's
		}
		if m.role == RoleAssistant {
			if replied {
				continue // another choice
			}
			replied = true
			view = append(view, viewMsg{key: m.key(), idx: c.append(m, fmt.Sprintf("%s/out/%d", id, i), sp, spanTime(sp.end), call.usage, call.model)})
			continue
		}
		view = append(view, viewMsg{key: m.key(), idx: c.append(m, fmt.Sprintf("%s/out/%d", id, i), sp, spanTime(sp.end), nil, "")})
	}
	if !replied && call.usage != nil {
		// No reply recorded (a failed call): its usage still counts.
		c.append(oMsg{role: RoleAssistant}, id+"/out", sp, spanTime(sp.end), call.usage, call.model)
	}
	if call.usage != nil {
		c.lastUse = call.usage
	}
	c.view, c.prev, c.started, c.sawPart = view, call, true, partSig
}

// setSummary sets a compaction's summary from compaction parts' content,
// or says why there is none.
func setSummary(comp *Compaction, summary []string, where string) {
	if len(summary) == 0 {
		comp.Unauditable = where + " holds no content (encrypted, or not captured)"
		return
	}
	comp.Summary, comp.HasSummary = strings.Join(summary, "\n\n"), true
}

// append adds m to the session; its index there, or -1 when it is left
// out (a tool result for a call not made before it).
func (c *otelConversation) append(m oMsg, id string, sp *otlpSpan, t time.Time, use *Usage, model string) int {
	s := c.s
	if m.role == RoleTool {
		if !c.calls[m.callID] {
			s.problem(sp.line, "span %s: tool result for %q, a call not made before it; left out", sp.spanID, m.callID)
			return -1
		}
	}
	msg := Message{ID: id, Role: m.role, Text: m.text, Reasoning: m.reasoning, ToolCallID: m.callID, Usage: use, Model: model, Time: t, Line: sp.line}
	for k, tc := range m.calls {
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("%s/call/%d", id, k)
		}
		c.calls[tc.ID] = true
		msg.ToolCalls = append(msg.ToolCalls, tc)
	}
	if m.role == RoleTool {
		if n, ok := exitCodeOf(m.text); ok {
			msg.ExitCode = &n
		}
	}
	s.Messages = append(s.Messages, msg)
	return len(s.Messages) - 1
}
