package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The GenAI events recorded as OTLP log records rather than span events:
// instrumentations that follow the semantic conventions' events emit them
// through the logs API (an SDK's logs exporter, the collector's file
// exporter in a logs pipeline). A log record is an event when it has an
// event name (LogRecord.event_name, opentelemetry-proto v1.5.0 on; before
// it, the attribute event.name); its body holds the event's fields.
//
//   - gen_ai.client.inference.operation.details (semantic conventions
//     v1.37.0 on; open-telemetry/semantic-conventions-genai
//     model/gen-ai/events.yaml): the attributes of a model call's span
//     (gen_ai.input.messages, gen_ai.output.messages,
//     gen_ai.system_instructions, gen_ai.operation.name, usage,
//     gen_ai.conversation.id, …), recorded apart from the traces. They are
//     added to the span's attributes it names (a span's own attribute
//     wins); without such a span, the record is a model call of its own.
//   - the per-message events of v1.28.0 to v1.36.0: gen_ai.system.message,
//     gen_ai.user.message, gen_ai.assistant.message, gen_ai.tool.message
//     and gen_ai.choice, their fields in the body ({content, role,
//     tool_calls, id}; a choice's {index, finish_reason, message}); and
//     the gen_ai.content.prompt and gen_ai.content.completion events of
//     v1.27.0. They are the events of the span they name, read as span
//     events are (eventMessages, legacyAttr); the records of one span with
//     no span in the file are one model call.
//
// Records join their span by trace and span id, in the same file or, for
// compact extract, in any file of the run (OTelRun). Other log records are
// left out; message events without a span id are counted in a problem.

// otlpLog is one log record read.
type otlpLog struct {
	traceID, spanID string
	name            string // event name ("" : not an event)
	time            int64
	attrs           map[string]any
	body            any
	line            int
	resource        map[string]any
}

type rawLog struct {
	TraceID    string            `json:"traceId"`
	TraceID2   string            `json:"trace_id"`
	SpanID     string            `json:"spanId"`
	SpanID2    string            `json:"span_id"`
	EventName  string            `json:"eventName"`
	EventName2 string            `json:"event_name"`
	Time       json.RawMessage   `json:"timeUnixNano"`
	Time2      json.RawMessage   `json:"time_unix_nano"`
	Observed   json.RawMessage   `json:"observedTimeUnixNano"`
	Observed2  json.RawMessage   `json:"observed_time_unix_nano"`
	Attributes []json.RawMessage `json:"attributes"`
	Body       json.RawMessage   `json:"body"`
}

// resourceLogs reads one ResourceLogs object.
func (r *otlpReader) resourceLogs(dec *json.Decoder, line func() int) error {
	first := len(r.logs)
	resource, err := r.resourceItems(dec, logScopes, logItems, func() error { return r.logRecord(dec, line) })
	if err != nil {
		return err
	}
	for _, l := range r.logs[first:] {
		l.resource = resource
	}
	return nil
}

// The keys of a ResourceLogs' scopes, and of a scope's log records.
var (
	logScopes = map[string]bool{"scopeLogs": true, "scope_logs": true, "instrumentationLibraryLogs": true, "instrumentation_library_logs": true}
	logItems  = map[string]bool{"logRecords": true, "log_records": true}
)

// logRecord reads one log record; one that is not an object is a
// problem and left out.
func (r *otlpReader) logRecord(dec *json.Decoder, line func() int) error {
	at := line()
	var rl rawLog
	if err := dec.Decode(&rl); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			r.problem(at, "log record: %s", jsonProblem(nil, err))
			return nil
		}
		return err
	}
	l := &otlpLog{traceID: or(rl.TraceID, rl.TraceID2), spanID: or(rl.SpanID, rl.SpanID2), name: or(rl.EventName, rl.EventName2),
		time: nanos(rl.Time, rl.Time2, rl.Observed, rl.Observed2), attrs: attrMap(rl.Attributes), line: at}
	if l.name == "" {
		l.name = attrText(l.attrs["event.name"])
	}
	if len(rl.Body) > 0 {
		l.body = anyValue(rl.Body)
	}
	if genAIEvent(l.name) {
		r.logs = append(r.logs, l)
	}
	return nil
}

// The GenAI events read from log records.
const detailsEvent = "gen_ai.client.inference.operation.details"

func genAIEvent(name string) bool {
	switch name {
	case detailsEvent, "gen_ai.system.message", "gen_ai.user.message", "gen_ai.assistant.message", "gen_ai.tool.message", "gen_ai.choice",
		"gen_ai.content.prompt", "gen_ai.content.completion":
		return true
	}
	return false
}

// fields are a log record's event fields: its body's (a map), then its
// attributes where the body has no such field (event.name and the
// record's own gen_ai.system left as they are).
func (l *otlpLog) fields() map[string]any {
	m := map[string]any{}
	if kv, ok := l.body.(kvList); ok {
		for _, p := range kv {
			m[p.key] = p.value
		}
	} else if s, ok := l.body.(string); ok && l.name != detailsEvent {
		m["content"] = s // a body that is the content itself
	}
	for k, v := range l.attrs {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	return m
}

type spanRef struct{ trace, span string }

// logPool holds the GenAI log records of a run, by the span they name.
type logPool struct {
	bySpan map[spanRef][]*otlpLog
	// spans are the spans of every file of the run (nil: of the file
	// being read only).
	spans map[spanRef]bool
}

func newLogPool() *logPool { return &logPool{bySpan: map[spanRef][]*otlpLog{}} }

func (p *logPool) add(logs []*otlpLog) {
	for _, l := range logs {
		k := spanRef{strings.ToLower(l.traceID), strings.ToLower(l.spanID)}
		p.bySpan[k] = append(p.bySpan[k], l)
	}
}

// joinLogs gives the spans of r the log records of pool that name them,
// and makes a span of the records of r whose span is in no file (nor in
// pool.spans): the records of one span id, one model call. noSpan counts
// message events without a span id.
func (r *otlpReader) joinLogs(pool *logPool) (noSpan int) {
	if pool == nil {
		pool = newLogPool()
		pool.add(r.logs)
	}
	have := map[spanRef]*otlpSpan{}
	for _, s := range r.spans {
		have[spanRef{strings.ToLower(s.traceID), strings.ToLower(s.spanID)}] = s
	}
	for k, s := range have {
		attach(s, pool.bySpan[k])
	}
	// The records of this file with no span anywhere.
	orphans := map[spanRef][]*otlpLog{}
	var order []spanRef
	details := 0
	for _, l := range r.logs {
		k := spanRef{strings.ToLower(l.traceID), strings.ToLower(l.spanID)}
		if have[k] != nil || pool.spans[k] {
			continue
		}
		if l.spanID == "" {
			if l.name != detailsEvent {
				noSpan++
				continue
			}
			// A call's details without a span: a call of its own.
			details++
			k.span = fmt.Sprintf("log%d", details)
		}
		if orphans[k] == nil {
			order = append(order, k)
		}
		orphans[k] = append(orphans[k], l)
	}
	for _, k := range order {
		logs := orphans[k]
		first := logs[0]
		s := &otlpSpan{traceID: first.traceID, spanID: first.spanID, start: first.time, end: first.time, attrs: map[string]any{},
			resource: first.resource, line: first.line, order: len(r.spans)}
		if s.spanID == "" {
			s.spanID = k.span
		}
		for _, l := range logs {
			s.start, s.end = minNonZero(s.start, l.time), max(s.end, l.time)
		}
		attach(s, logs)
		if _, ok := s.attrs["gen_ai.operation.name"]; !ok {
			// Message events alone: a chat call's, as the conventions
			// emit them for chat calls.
			s.attrs["gen_ai.operation.name"] = "chat"
		}
		r.spans = append(r.spans, s)
	}
	return noSpan
}

func minNonZero(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// attach adds log records to span s: a details record's fields to its
// attributes (the span's own win), the others as its events, in time
// order after its own.
func attach(s *otlpSpan, logs []*otlpLog) {
	if len(logs) == 0 {
		return
	}
	s.logged = true
	logs = append([]*otlpLog(nil), logs...)
	sort.SliceStable(logs, func(i, j int) bool { return logs[i].time < logs[j].time })
	for _, l := range logs {
		f := l.fields()
		if l.name == detailsEvent {
			if s.attrs == nil {
				s.attrs = map[string]any{}
			}
			for k, v := range f {
				if _, ok := s.attrs[k]; !ok && k != "event.name" {
					s.attrs[k] = v
				}
			}
			continue
		}
		s.events = append(s.events, otlpEvent{name: l.name, time: l.time, attrs: f})
	}
}
