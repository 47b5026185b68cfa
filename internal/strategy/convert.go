package strategy

import (
	"strings"
	"time"

	"github.com/compactlab/compact/internal/history"
)

// messageValue builds the stagewise message (a UIMessage as the app stores
// it) that a generic message stands for, so that the serializer and the
// estimator can work on it:
//
//	{id, role, parts, metadata: null}
//
// parts: a text part {type:"text", text: content} when content is not
// empty; for each tool call of an assistant message a part
// {type:"tool-<name>", toolCallId, state, input, output}, where input is
// the arguments parsed as JSON (the raw string when they are not JSON),
// and output the content of the tool message answering that call (parsed
// as JSON when it is JSON) with state "output-available", or no output and
// state "input-available" when no answer is known. Tool and system
// messages keep only their text part (the serializer shows neither).
func messageValue(m *Message, toolOut map[string]string) history.Value {
	v := history.NewObject()
	v.Set("id", history.StringValue(m.ID))
	v.Set("role", history.StringValue(m.Role))
	var parts []history.Value
	if m.Content != "" {
		p := history.NewObject()
		p.Set("type", history.StringValue("text"))
		p.Set("text", history.StringValue(m.Content))
		parts = append(parts, p)
	}
	if m.Role == RoleAssistant {
		for _, tc := range m.ToolCalls {
			p := history.NewObject()
			p.Set("type", history.StringValue("tool-"+tc.Name))
			p.Set("toolCallId", history.StringValue(tc.ID))
			out, ok := toolOut[tc.ID]
			if ok {
				p.Set("state", history.StringValue("output-available"))
			} else {
				p.Set("state", history.StringValue("input-available"))
			}
			p.Set("input", jsonOrString(tc.Arguments))
			if ok {
				p.Set("output", jsonOrString(out))
			}
			parts = append(parts, p)
		}
	}
	if parts == nil {
		parts = []history.Value{}
	}
	v.Set("parts", history.NewArray(parts))
	v.Set("metadata", history.NullValue())
	return v
}

// jsonOrString is s parsed as JSON when it is an object or an array, the
// string s otherwise.
func jsonOrString(s string) history.Value {
	t := strings.TrimSpace(s)
	if t != "" && (t[0] == '{' || t[0] == '[') {
		if v, err := history.ParseJSON(t); err == nil {
			return v
		}
	}
	return history.StringValue(s)
}

// withBriefing returns a copy of msg whose metadata.compressedHistory is
// briefing ("" removes it), other members shared. A missing metadata
// becomes {createdAt, partsMetadata: []}, as compressHistoryInternal does
// (`metadata ??= …`).
func withBriefing(msg history.Value, briefing string, createdAt time.Time) history.Value {
	if msg.Kind() != history.Object {
		return msg
	}
	out := history.NewObject()
	for _, k := range msg.Keys() {
		out.Set(k, msg.Get(k)) // metadata keeps its place when replaced below
	}
	meta := msg.Get("metadata")
	nm := history.NewObject()
	if meta.Kind() == history.Object {
		for _, k := range meta.Keys() {
			if k != "compressedHistory" {
				nm.Set(k, meta.Get(k))
			}
		}
	} else if briefing != "" {
		nm.Set("createdAt", history.DateValue(float64(createdAt.UnixMilli())))
		nm.Set("partsMetadata", history.NewArray([]history.Value{}))
	} else {
		// Nothing to remove, nothing to add.
		return msg
	}
	if briefing != "" {
		nm.Set("compressedHistory", history.StringValue(briefing))
	}
	out.Set("metadata", nm)
	return out
}

// stripBriefing is msg without the briefing the app stored on it (the
// simulation places its own), or msg itself when it has none.
func stripBriefing(msg history.Value) history.Value {
	if history.CompressedHistory(msg).IsUndefined() {
		return msg
	}
	return withBriefing(msg, "", time.Time{})
}

// FromStagewise turns stagewise messages (as extract decodes them) into
// generic messages, one per stagewise message and in order: Raw points at
// the message, StoredSummary holds its metadata.compressedHistory (when a
// non-empty string), Content the text parts joined with "\n", ToolCalls
// the tool parts that have an input (id toolCallId, name from the part
// type, arguments the JSON of the input), CreatedAt metadata.createdAt.
//
// With toolResults, every tool part that has an output or an error is also
// given as a Synthetic tool message right after its assistant message (id
// "<message id>#<toolCallId>", content the output, a string as it is and
// anything else as JSON, or "Error: <errorText>"), so that the strategies
// that work on tool messages (onyx's placeholder, selective-prune, the
// tool-result cap) see the outputs; the stagewise strategy skips them.
func FromStagewise(vals []history.Value, toolResults bool) []Message {
	out := make([]Message, 0, len(vals))
	for k := range vals {
		v := &vals[k]
		m := Message{
			ID:   history.ToString(v.Get("id")),
			Role: history.Role(*v),
			Raw:  v,
		}
		if ch := history.CompressedHistory(*v); ch.Kind() == history.String && ch.Str() != "" {
			s := ch.Str()
			m.StoredSummary = &s
		}
		if d := history.Metadata(*v); d.Kind() == history.Object {
			if c := d.Get("createdAt"); c.Kind() == history.Date && c.Num() == c.Num() {
				m.CreatedAt = time.UnixMilli(int64(c.Num())).UTC()
			}
		}
		var texts []string
		var results []Message
		for _, p := range v.Get("parts").Elems() {
			typ := p.Get("type")
			if typ.Kind() != history.String {
				continue
			}
			t := typ.Str()
			switch {
			case t == "text":
				if tx := p.Get("text"); tx.Kind() == history.String {
					texts = append(texts, tx.Str())
				}
				continue
			case strings.HasPrefix(t, "tool-"):
				t = strings.TrimPrefix(t, "tool-")
			case t == "dynamic-tool":
				t = history.ToString(p.Get("toolName"))
			default:
				continue
			}
			if !p.Get("input").Truthy() {
				continue
			}
			id := history.ToString(p.Get("toolCallId"))
			args, _, _ := history.JSONStringify(p.Get("input"))
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: t, Arguments: args})
			if !toolResults {
				continue
			}
			content, has := "", false
			if out := p.Get("output"); !out.IsUndefined() {
				has = true
				if out.Kind() == history.String {
					content = out.Str()
				} else {
					content, _, _ = history.JSONStringify(out)
				}
			} else if e := p.Get("errorText"); e.Kind() == history.String {
				has, content = true, "Error: "+e.Str()
			}
			if has {
				results = append(results, Message{
					ID: m.ID + "#" + id, Role: RoleTool, Content: content, ToolCallID: id,
					CreatedAt: m.CreatedAt, Synthetic: true,
				})
			}
		}
		m.Content = strings.Join(texts, "\n")
		out = append(out, m)
		out = append(out, results...)
	}
	return out
}
