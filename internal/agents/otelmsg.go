package agents

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// The messages of a model call, in each spelling compact reads (see the
// comment at the top of otel.go): the GenAI conventions' JSON messages
// ({role, parts}) and their older forms, and OpenInference's flattened
// attributes.

// oMsg is one message of a call's input or output, converted.
type oMsg struct {
	role      string // RoleSystem, RoleUser, RoleAssistant or RoleTool
	text      string
	reasoning string
	calls     []ToolCall
	callID    string // a tool result: the call it answers
	// compaction: the message carries a compaction part (the GenAI
	// schema's CompactionPart), summary its content where it has one.
	compaction bool
	summary    []string
	// unknownRole is a role compact does not know ("" when known).
	unknownRole string
}

// key identifies a message across calls: the same message sent again has
// the same key (its reasoning, which providers may drop when the message
// is sent back, is not part of it).
func (m *oMsg) key() string {
	var b strings.Builder
	b.WriteString(m.role)
	b.WriteByte(0)
	b.WriteString(strings.TrimSpace(m.text))
	b.WriteByte(0)
	b.WriteString(m.callID)
	for _, c := range m.calls {
		b.WriteByte(0)
		b.WriteString(c.ID)
		b.WriteByte(1)
		b.WriteString(c.Name)
		b.WriteByte(1)
		b.WriteString(compactJSON(c.Input))
	}
	return b.String()
}

func (m *oMsg) empty() bool {
	return m.text == "" && m.reasoning == "" && len(m.calls) == 0 && m.callID == "" && !m.compaction
}

// compactJSON is s without insignificant white space when it is JSON, s
// otherwise.
func compactJSON(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) == nil {
		return b.String()
	}
	return s
}

// newOMsg is a message of role, the role mapped to the model's (an
// unknown one kept in unknownRole).
func newOMsg(role string) oMsg {
	m := oMsg{role: otelRole(role)}
	if m.role == "" {
		m.unknownRole = role
	}
	return m
}

// otelRole maps a message's role to the model's; "" for one compact does
// not know.
func otelRole(r string) string {
	switch strings.ToLower(r) {
	case "system", "developer", "instruction":
		return RoleSystem
	case "user", "human", "customer":
		return RoleUser
	case "assistant", "model", "ai", "bot":
		return RoleAssistant
	case "tool", "function", "ipython":
		return RoleTool
	}
	return ""
}

// valueText is a value as text: a string as it is, anything else as its
// JSON (a tool call's arguments: JSON text, or a string holding it; ""
// when not captured).
func valueText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		s, _ := unquote(raw)
		return s
	}
	return compactJSON(string(raw))
}

// parseGenAIMessages reads a gen_ai.input.messages or
// gen_ai.output.messages value (JSON text): an array of {role, parts}
// (a message with content instead of parts, OpenAI's shape that some
// instrumentations write, is read as such, and so are the items of
// OpenAI's Responses API: function_call, function_call_output, and a
// response object's output; a {"messages": [...]} wrapper is its list).
// ok is false when raw is not a JSON array or object.
func parseGenAIMessages(raw []byte) (msgs []oMsg, ok bool) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		// A single message rather than a list.
		var one map[string]json.RawMessage
		if json.Unmarshal(raw, &one) != nil || one == nil {
			return nil, false
		}
		var obj string
		_ = json.Unmarshal(one["object"], &obj)
		switch {
		case obj == "response" && json.Unmarshal(one["output"], &list) == nil:
		case one["role"] == nil && json.Unmarshal(one["messages"], &list) == nil && list != nil:
		default:
			list = []json.RawMessage{raw}
		}
	}
	for _, item := range list {
		var m struct {
			Role       string            `json:"role"`
			Parts      []json.RawMessage `json:"parts"`
			Content    json.RawMessage   `json:"content"`
			ToolCalls  json.RawMessage   `json:"tool_calls"`
			ToolCallID string            `json:"tool_call_id"`
			// The Responses API's items.
			Type      string          `json:"type"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Input     json.RawMessage `json:"input"`
			Output    json.RawMessage `json:"output"`
		}
		if json.Unmarshal(item, &m) != nil {
			continue
		}
		switch m.Type {
		case "function_call", "custom_tool_call":
			args := m.Arguments
			if args == nil {
				args = m.Input
			}
			msgs = append(msgs, oMsg{role: RoleAssistant, calls: []ToolCall{{ID: m.CallID, Name: m.Name, Input: valueText(args)}}})
			continue
		case "function_call_output", "custom_tool_call_output":
			msgs = append(msgs, oMsg{role: RoleTool, callID: m.CallID, text: valueText(m.Output)})
			continue
		case "reasoning":
			continue
		}
		if m.Parts == nil && (m.Content != nil || m.ToolCalls != nil) {
			msgs = append(msgs, openAIMessage(m.Role, m.Content, m.ToolCalls, m.ToolCallID)...)
			continue
		}
		msgs = append(msgs, partsMessage(m.Role, m.Parts)...)
	}
	return msgs, true
}

// partsMessage converts one {role, parts} message: the message itself,
// and one tool message per tool_call_response part (before it for a
// user's message, after it for an assistant's).
func partsMessage(role string, parts []json.RawMessage) []oMsg {
	main := newOMsg(role)
	var results []oMsg
	var texts, reasoning []string
	for _, raw := range parts {
		var p struct {
			Type      string          `json:"type"`
			Content   json.RawMessage `json:"content"`
			Text      json.RawMessage `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Response  json.RawMessage `json:"response"`
			Result    json.RawMessage `json:"result"`
			Server    json.RawMessage `json:"server_tool_call"`
			ServerRes json.RawMessage `json:"server_tool_call_response"`
			Modality  string          `json:"modality"`
			MimeType  string          `json:"mime_type"`
		}
		if json.Unmarshal(raw, &p) != nil {
			continue
		}
		switch p.Type {
		case "text":
			t := p.Content
			if t == nil {
				t = p.Text
			}
			texts = append(texts, valueText(t))
		case "reasoning", "thinking":
			reasoning = append(reasoning, valueText(p.Content))
		case "tool_call":
			main.calls = append(main.calls, ToolCall{ID: p.ID, Name: p.Name, Input: valueText(p.Arguments)})
		case "server_tool_call":
			main.calls = append(main.calls, ToolCall{ID: p.ID, Name: p.Name, Input: valueText(p.Server)})
		case "tool_call_response", "server_tool_call_response":
			res := p.Response
			switch {
			case p.Type == "server_tool_call_response":
				res = p.ServerRes
			case res == nil:
				res = p.Result // the name of the registry's example before the schema's
			}
			results = append(results, oMsg{role: RoleTool, callID: strings.TrimSpace(p.ID), text: valueText(res)})
		case "compaction":
			main.compaction = true
			if s := valueText(p.Content); s != "" {
				main.summary = append(main.summary, s)
			}
		case "blob", "file", "uri", "image":
			texts = append(texts, mediaPlaceholder(p.Type, p.Modality, p.MimeType))
		}
	}
	main.text = strings.Join(texts, "\n")
	main.reasoning = strings.Join(reasoning, "\n")
	if main.role == RoleTool && len(results) > 0 && main.text == "" {
		return results
	}
	if main.role == RoleTool {
		// A tool message whose result is text, not a response part.
		return []oMsg{main}
	}
	switch {
	case main.empty():
		return results
	case main.role == RoleAssistant:
		return append([]oMsg{main}, results...)
	}
	return append(results, main)
}

// mediaPlaceholder stands for an attached image or file.
func mediaPlaceholder(typ, modality, mime string) string {
	if modality == "image" || typ == "image" || strings.HasPrefix(mime, "image/") {
		return ImagePlaceholder
	}
	if modality != "" {
		return "[" + modality + "]"
	}
	return "[file]"
}

// openAIMessage converts a message in OpenAI's chat shape: content (text
// or a list of parts), tool_calls [{id, function: {name, arguments}}],
// tool_call_id.
func openAIMessage(role string, content, toolCalls json.RawMessage, toolCallID string) []oMsg {
	m := newOMsg(role)
	m.text, _ = textOrParts(content)
	if m.text == "" && len(bytes.TrimSpace(content)) > 0 && bytes.TrimSpace(content)[0] == '{' {
		m.text = valueText(content)
	}
	if m.role == RoleTool || toolCallID != "" {
		m.role, m.callID = RoleTool, toolCallID
	}
	var calls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	tc := bytes.TrimSpace(toolCalls)
	if len(tc) > 0 && tc[0] == '"' {
		s, _ := unquote(tc)
		tc = []byte(s)
	}
	if json.Unmarshal(tc, &calls) == nil {
		for _, c := range calls {
			name, args := c.Function.Name, c.Function.Arguments
			if name == "" {
				name, args = c.Name, c.Arguments
			}
			m.calls = append(m.calls, ToolCall{ID: c.ID, Name: name, Input: valueText(args)})
		}
	}
	if m.empty() {
		return nil
	}
	return []oMsg{m}
}

// parseOpenAIMessages reads the older gen_ai.prompt / gen_ai.completion
// attribute (semantic conventions up to v1.27.0): a JSON list of
// messages in OpenAI's shape, or one message.
func parseOpenAIMessages(text string) ([]oMsg, bool) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, false
	}
	if t[0] != '[' && t[0] != '{' {
		// Plain text: a completion's text, or a prompt.
		return nil, false
	}
	return parseGenAIMessages([]byte(t))
}

// flatIndexed gathers the attributes prefix.N.rest of attrs into one map
// per index N (keyed by rest), in the order of the indices.
func flatIndexed(attrs map[string]any, prefix string) []map[string]any {
	byIndex := map[int]map[string]any{}
	for k, v := range attrs {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		num, rest, ok := strings.Cut(rest, ".")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			continue
		}
		if byIndex[n] == nil {
			byIndex[n] = map[string]any{}
		}
		byIndex[n][rest] = v
	}
	idx := make([]int, 0, len(byIndex))
	for n := range byIndex {
		idx = append(idx, n)
	}
	sort.Ints(idx)
	out := make([]map[string]any, 0, len(idx))
	for _, n := range idx {
		out = append(out, byIndex[n])
	}
	return out
}

// attrText is v as text: a string as it is, a number or a boolean written out,
// a structured value as JSON.
func attrText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any, kvList:
		return string(toJSON(x))
	}
	return string(toJSON(v))
}

// openInferenceMessages reads OpenInference's flattened messages under
// prefix ("llm.input_messages." or "llm.output_messages."):
// message.role, message.content, message.contents.K.message_content.*,
// message.tool_calls.K.tool_call.{id,function.name,function.arguments},
// message.tool_call_id, and the older message.function_call_name and
// message.function_call_arguments_json.
func openInferenceMessages(attrs map[string]any, prefix string) []oMsg {
	var out []oMsg
	for i, m := range flatIndexed(attrs, prefix) {
		om := newOMsg(attrText(m["message.role"]))
		var texts, reasoning []string
		if c := attrText(m["message.content"]); c != "" {
			texts = append(texts, c)
		}
		seen := map[string]bool{}
		for _, c := range flatIndexed(m, "message.contents.") {
			switch attrText(c["message_content.type"]) {
			case "text", "":
				if t := attrText(c["message_content.text"]); t != "" {
					texts = append(texts, t)
				}
			case "reasoning":
				reasoning = append(reasoning, attrText(c["message_content.text"]))
			case "image":
				texts = append(texts, ImagePlaceholder)
			case "audio":
				texts = append(texts, "[audio]")
			case "tool_use":
				id := attrText(c["tool_call.id"])
				om.calls = append(om.calls, ToolCall{ID: id, Name: attrText(c["tool_call.function.name"]), Input: attrText(c["tool_call.function.arguments"])})
				seen[id] = id != ""
			}
		}
		for _, c := range flatIndexed(m, "message.tool_calls.") {
			id := attrText(c["tool_call.id"])
			if seen[id] {
				continue
			}
			om.calls = append(om.calls, ToolCall{ID: id, Name: attrText(c["tool_call.function.name"]), Input: attrText(c["tool_call.function.arguments"])})
		}
		if name := attrText(m["message.function_call_name"]); name != "" {
			om.calls = append(om.calls, ToolCall{Name: name, Input: attrText(m["message.function_call_arguments_json"])})
		}
		if id := attrText(m["message.tool_call_id"]); id != "" || om.role == RoleTool {
			om.role, om.callID = RoleTool, id
		}
		om.text = strings.Join(texts, "\n")
		om.reasoning = strings.Join(reasoning, "\n")
		for k := range om.calls {
			if om.calls[k].ID == "" {
				om.calls[k].ID = prefix + strconv.Itoa(i) + "/" + strconv.Itoa(k)
			}
		}
		if !om.empty() || om.role != "" {
			out = append(out, om)
		}
	}
	return out
}

// openLLMetryMessages reads the indexed spelling of the older
// gen_ai.prompt and gen_ai.completion attributes (OpenLLMetry's:
// gen_ai.prompt.N.role, .content, .tool_call_id,
// .tool_calls.K.{id,name,arguments}).
func openLLMetryMessages(attrs map[string]any, prefix string) []oMsg {
	var out []oMsg
	for i, m := range flatIndexed(attrs, prefix) {
		om := newOMsg(attrText(m["role"]))
		content := attrText(m["content"])
		if t := strings.TrimSpace(content); strings.HasPrefix(t, "[") && json.Valid([]byte(t)) {
			if s, ok := textOrParts([]byte(t)); ok {
				content = s
			}
		}
		om.text = content
		for k, c := range flatIndexed(m, "tool_calls.") {
			id := attrText(c["id"])
			if id == "" {
				id = prefix + strconv.Itoa(i) + "/" + strconv.Itoa(k)
			}
			om.calls = append(om.calls, ToolCall{ID: id, Name: attrText(c["name"]), Input: attrText(c["arguments"])})
		}
		if id := attrText(m["tool_call_id"]); id != "" || om.role == RoleTool {
			om.role, om.callID = RoleTool, id
		}
		if !om.empty() {
			out = append(out, om)
		}
	}
	return out
}

// eventMessages reads the per-message span events of semantic
// conventions v1.28.0 to v1.36.0 (gen_ai.system.message,
// gen_ai.user.message, gen_ai.assistant.message, gen_ai.tool.message,
// gen_ai.choice), their body's fields as the event's attributes: content,
// role, tool_calls, id (a tool message's call), and a choice's message
// {content, tool_calls} and index. The input, then the first choice.
func eventMessages(events []otlpEvent) (in, out []oMsg, found bool) {
	choice := int64(-1)
	for _, e := range events {
		a := e.attrs
		raw := func(k string) json.RawMessage {
			v, ok := a[k]
			if !ok {
				return nil
			}
			if s, ok := v.(string); ok {
				if k == "content" {
					q, _ := json.Marshal(s)
					return q
				}
				return json.RawMessage(s)
			}
			return toJSON(v)
		}
		switch e.name {
		case "gen_ai.system.message", "gen_ai.user.message", "gen_ai.assistant.message", "gen_ai.tool.message":
			found = true
			role := strings.TrimSuffix(strings.TrimPrefix(e.name, "gen_ai."), ".message")
			if r := attrText(a["role"]); r != "" {
				role = r
			}
			id := ""
			if role == "tool" || e.name == "gen_ai.tool.message" {
				id = attrText(a["id"])
			}
			in = append(in, openAIMessage(role, raw("content"), raw("tool_calls"), id)...)
		case "gen_ai.choice":
			found = true
			idx := int64(0)
			if n, ok := intOf(a["index"]); ok {
				idx = n
			}
			if choice >= 0 && idx != choice {
				continue
			}
			choice = idx
			var msg struct {
				Role      string          `json:"role"`
				Content   json.RawMessage `json:"content"`
				ToolCalls json.RawMessage `json:"tool_calls"`
			}
			if m := raw("message"); m != nil {
				_ = json.Unmarshal(m, &msg)
			}
			if msg.Role == "" {
				msg.Role = "assistant"
			}
			out = append(out, openAIMessage(msg.Role, msg.Content, msg.ToolCalls, "")...)
		}
	}
	return in, out, found
}

// intOf reads an integer attribute written as a number or a string.
func intOf(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), true
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n, err == nil
	}
	return 0, false
}
