package agents

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Langfuse's trace download, read as spans. Langfuse (langfuse/langfuse,
// web/src/features/traces/server/buildTraceExport.ts, "Download trace" in
// its trace view, GET /api/traces/{traceId}/download) writes one JSON
// document: {"observations": [...], "scores": [...]}. An observation has
// id, traceId, parentObservationId, sessionId, type (GENERATION, SPAN,
// AGENT, TOOL, EVENT, …), name, model, startTime and endTime (ISO 8601),
// usageDetails ({input, output, total, and cache counts such as
// cache_read_input_tokens or input_cached_tokens}), input and output (the
// call's messages as Langfuse stored them, JSON text) and metadata (for a
// span ingested through Langfuse's OTLP endpoint, metadata.attributes: the
// span's other attributes, values as text). A trace of 350 observations or
// more is downloaded without input, output and metadata: its calls hold
// no content. The public API's observation pages ({"data": [observation,
// …]}) have the same fields and are read too.
//
// Each observation becomes a span: its metadata.attributes are its
// attributes (gen_ai.conversation.compacted, gen_ai.conversation.id, …);
// a GENERATION is a model call (gen_ai.operation.name chat unless the
// attributes name another operation); model, sessionId (as session.id)
// and usageDetails (input taken as the uncached input) fill what the
// attributes lack; input and output are its messages, in whichever
// spelling Langfuse kept: the GenAI conventions' JSON messages, OpenAI's
// ({role, content, tool_calls}), or OpenInference's attributes nested
// back into [{message: {…}}].

type rawObservation struct {
	ID           string             `json:"id"`
	TraceID      string             `json:"traceId"`
	Parent       *string            `json:"parentObservationId"`
	SessionID    *string            `json:"sessionId"`
	Type         string             `json:"type"`
	Name         *string            `json:"name"`
	Model        *string            `json:"model"`
	StartTime    string             `json:"startTime"`
	EndTime      *string            `json:"endTime"`
	UsageDetails map[string]float64 `json:"usageDetails"`
	Input        json.RawMessage    `json:"input"`
	Output       json.RawMessage    `json:"output"`
	Metadata     json.RawMessage    `json:"metadata"`
}

// observation reads one observation object as a span; one that is not
// an object is a problem and left out.
func (r *otlpReader) observation(dec *json.Decoder, line func() int) error {
	at := line()
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	r.observationRaw(raw, at)
	return nil
}

func (r *otlpReader) observationRaw(raw json.RawMessage, at int) {
	var o rawObservation
	if err := json.Unmarshal(raw, &o); err != nil {
		r.problem(at, "observation: %s", jsonProblem(nil, err))
		return
	}
	s := &otlpSpan{traceID: o.TraceID, spanID: o.ID, name: deref(o.Name), start: isoNanos(o.StartTime), end: isoNanos(deref(o.EndTime)),
		attrs: metadataAttrs(o.Metadata), line: at, order: len(r.spans)}
	if o.Parent != nil {
		s.parentID = *o.Parent
	}
	set := func(k string, v any) {
		if _, ok := s.attrs[k]; !ok {
			s.attrs[k] = v
		}
	}
	if strings.EqualFold(o.Type, "GENERATION") {
		set("gen_ai.operation.name", "chat")
	}
	if m := deref(o.Model); m != "" {
		set("gen_ai.request.model", m)
	}
	if id := deref(o.SessionID); id != "" {
		set("session.id", id)
	}
	if u := o.UsageDetails; u != nil {
		if _, ok := u["input"]; ok {
			read := first(u, "cache_read_input_tokens", "input_cached_tokens", "input_cache_read", "prompt_details.cache_read", "cache_read")
			write := first(u, "cache_creation_input_tokens", "input_cache_creation", "prompt_details.cache_write", "cache_creation")
			set("gen_ai.usage.input_tokens", int64(u["input"]+read+write))
			set("gen_ai.usage.cache_read.input_tokens", int64(read))
			set("gen_ai.usage.cache_creation.input_tokens", int64(write))
		}
		if out, ok := u["output"]; ok {
			set("gen_ai.usage.output_tokens", int64(out))
		}
	}
	if in, ok := jsonText(o.Input); ok {
		langfuseMessages(s.attrs, in, "gen_ai.input.messages", "llm.input_messages.")
	}
	if out, ok := jsonText(o.Output); ok {
		langfuseMessages(s.attrs, out, "gen_ai.output.messages", "llm.output_messages.")
	}
	r.digest(s)
	r.spans = append(r.spans, s)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func first(m map[string]float64, keys ...string) float64 {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return 0
}

// isoNanos reads an ISO 8601 time as Unix nanoseconds (0 when it is not
// one).
func isoNanos(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return 0
	}
	return t.UnixNano()
}

// jsonText is a field's value as text: a JSON string's content, any
// other value's JSON; ok is false for null or absent.
func jsonText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	if raw[0] == '"' {
		s, ok := unquote(raw)
		return s, ok && strings.TrimSpace(s) != ""
	}
	return string(raw), true
}

// metadataAttrs reads metadata.attributes (metadata and attributes each
// an object, or JSON text of one) as span attributes: text stays text, other values their JSON.
func metadataAttrs(raw json.RawMessage) map[string]any {
	out := map[string]any{}
	var md struct {
		Attributes json.RawMessage `json:"attributes"`
	}
	if text, ok := jsonText(raw); !ok || json.Unmarshal([]byte(text), &md) != nil || len(md.Attributes) == 0 {
		return out // (metadata is an object, or in Langfuse's API JSON text of one)
	}
	text, ok := jsonText(md.Attributes)
	if !ok {
		return out
	}
	var attrs map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &attrs) != nil {
		return out
	}
	for k, v := range attrs {
		if t, ok := jsonText(v); ok {
			out[k] = t
		}
	}
	return out
}

// langfuseMessages sets the messages text holds on attrs, unless the
// attributes hold them already: OpenInference's nesting ([{message:
// {…}}]) flattened back under prefix, anything else as the GenAI
// attribute key (parseGenAIMessages reads the conventions' messages and
// OpenAI's; plain text is one message).
func langfuseMessages(attrs map[string]any, text, key, prefix string) {
	if _, ok := attrs[key]; ok {
		return
	}
	for k := range attrs {
		if strings.HasPrefix(k, prefix) {
			return
		}
	}
	var list []map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &list) == nil && len(list) > 0 && list[0]["message"] != nil {
		for i, item := range list {
			var v any
			if json.Unmarshal(item["message"], &v) == nil {
				flatten(attrs, prefix+strconv.Itoa(i)+".message", v)
			}
		}
		return
	}
	attrs[key] = text
}

// flatten sets the leaves of the JSON value v on attrs under dotted keys
// (array elements by index).
func flatten(attrs map[string]any, key string, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			flatten(attrs, key+"."+k, x[k])
		}
	case []any:
		for i, e := range x {
			flatten(attrs, key+"."+strconv.Itoa(i), e)
		}
	case string:
		attrs[key] = x
	case nil:
	default:
		b, _ := json.Marshal(x)
		attrs[key] = string(b)
	}
}

// dataElem reads one element of a "data" page: a span (Phoenix), or an
// observation (Langfuse's API: an id and a type, no span id).
func (r *otlpReader) dataElem(dec *json.Decoder, line func() int) error {
	at := line()
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	var probe struct {
		SpanID  *string `json:"spanId"`
		SpanID2 *string `json:"span_id"`
		Type    *string `json:"type"`
		ID      *string `json:"id"`
	}
	if json.Unmarshal(raw, &probe) == nil && probe.SpanID == nil && probe.SpanID2 == nil && probe.Type != nil && probe.ID != nil {
		r.observationRaw(raw, at)
		return nil
	}
	var rs rawSpan
	if err := json.Unmarshal(raw, &rs); err != nil {
		return r.badSpan(at, err)
	}
	r.addSpan(&rs, at)
	return nil
}
