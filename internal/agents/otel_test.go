package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// otlpLine is one ExportTraceServiceRequest of spans, as the collector's
// file exporter writes it: one line.
func otlpLine(t testing.TB, spans ...map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{
		"resource":   map[string]any{"attributes": []any{}},
		"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": "test"}, "spans": spans}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// otlpSpanOf is a span with attributes (strings, ints, bools; a value
// already an AnyValue map is kept) and events.
func otlpSpanOf(trace, id, parent string, start int, attrs map[string]any, events ...map[string]any) map[string]any {
	var list []any
	for k, v := range attrs {
		list = append(list, map[string]any{"key": k, "value": anyOf(v)})
	}
	sp := map[string]any{"traceId": trace, "spanId": id, "parentSpanId": parent, "name": "chat",
		"startTimeUnixNano": fmt.Sprintf("%d000000000", 1700000000+start),
		"endTimeUnixNano":   fmt.Sprintf("%d000000000", 1700000001+start), "attributes": list}
	if len(events) > 0 {
		sp["events"] = events
	}
	return sp
}

func anyOf(v any) any {
	switch x := v.(type) {
	case string:
		return map[string]any{"stringValue": x}
	case int:
		return map[string]any{"intValue": fmt.Sprint(x)}
	case bool:
		return map[string]any{"boolValue": x}
	case map[string]any:
		return x
	}
	panic("anyOf")
}

func otlpEventOf(name string, attrs map[string]any) map[string]any {
	var list []any
	for k, v := range attrs {
		list = append(list, map[string]any{"key": k, "value": anyOf(v)})
	}
	return map[string]any{"name": name, "attributes": list}
}

func readOTelString(t *testing.T, data string) *OTelFile {
	t.Helper()
	f, err := ReadOTelAll(strings.NewReader(data), "test.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// genAICompaction is the GenAI-spelled trace with two compactions.
const genAICompaction = "otel/genai-compaction.jsonl"

// compactionParts decodes, with encoding/json alone, the contents of the
// compaction parts of the input messages of every span of a JSONL trace
// file, in file order: the summaries the reader must give byte for byte.
func compactionParts(t *testing.T, rel string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, rel))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct {
						Attributes []struct {
							Key   string
							Value struct{ StringValue *string }
						}
					}
				}
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatal(err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					for _, a := range sp.Attributes {
						if a.Value.StringValue == nil || (a.Key != "gen_ai.input.messages" && a.Key != "gen_ai.output.messages") {
							continue
						}
						var msgs []struct {
							Parts []struct {
								Type, Content string
							}
						}
						if json.Unmarshal([]byte(*a.Value.StringValue), &msgs) != nil {
							continue
						}
						for _, m := range msgs {
							for _, p := range m.Parts {
								if p.Type == "compaction" && (len(out) == 0 || out[len(out)-1] != p.Content) {
									out = append(out, p.Content)
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// TestReadOTelGenAICompaction: the collector-shaped trace file gives one
// session per conversation; the first has both compactions, each at the
// first call of its compacted view, its summary the compaction part's
// content byte for byte, the messages the view kept as preserved, the
// usage of each call with the cache counts apart; the structured
// (kvlist) span reads as the JSON-string ones do.
func TestReadOTelGenAICompaction(t *testing.T) {
	f, err := ReadOTelFile(filepath.Join(testdata, genAICompaction))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Problems) != 0 || f.Calls != 13 || len(f.Sessions) != 2 {
		t.Fatalf("calls %d, sessions %d, problems %v", f.Calls, len(f.Sessions), f.Problems)
	}
	s := f.Sessions[0]
	if s.ID != "conv_shop_7f3a" || s.Agent != OTel || s.Model != "gpt-5.4-mini-2026-03-01" || s.NoContent != "" || len(s.Problems) != 0 {
		t.Fatalf("session %+v", s)
	}
	if len(s.Messages) != 22 || len(s.Compactions) != 2 {
		t.Fatalf("%d messages, %d compactions", len(s.Messages), len(s.Compactions))
	}
	want := compactionParts(t, genAICompaction)
	if len(want) != 2 {
		t.Fatalf("the file's compaction parts: %d", len(want))
	}
	c1, c2 := s.Compactions[0], s.Compactions[1]
	if c1.Index != 12 || !c1.HasSummary || c1.Summary != want[0] || len(c1.Preserved) != 2 || c1.PreTokens != 2400 || c1.PostTokens != 900 || c1.Line != 3 {
		t.Errorf("compaction 1: %+v", c1)
	}
	// The second: the compaction call's output, sent back as text; the
	// text is not a message of the conversation.
	if c2.Index != 20 || !c2.HasSummary || c2.Summary != want[1] || c2.SummaryLine != 7 || c2.Usage == nil || len(c2.Preserved) != 2 {
		t.Errorf("compaction 2: %+v", c2)
	}
	for _, m := range s.Messages {
		if strings.Contains(m.Text, "## Task") || strings.Contains(m.Text, "Summarize the conversation") {
			t.Errorf("a summary or the compaction prompt as a message: %+v", m)
		}
	}
	first := s.Messages[0]
	if first.Role != RoleUser || !strings.HasPrefix(first.Text, "The checkout test fails") {
		t.Errorf("first message %+v", first)
	}
	call := s.Messages[5] // the structured span's reply
	if call.Role != RoleAssistant || len(call.ToolCalls) != 1 || call.ToolCalls[0].Name != "edit_file" || !strings.Contains(call.ToolCalls[0].Input, `"path":"src/tax.ts"`) {
		t.Errorf("structured reply %+v", call)
	}
	if u := call.Usage; u == nil || u.Input != 1700-1280 || u.CacheRead != 1280 || u.Output != 60 || u.Context() != 1700 {
		t.Errorf("usage %+v", call.Usage)
	}
	res := s.Messages[4]
	if res.Role != RoleTool || res.ToolCallID != "call_2" || res.ExitCode == nil || *res.ExitCode != 1 {
		t.Errorf("tool result %+v", res)
	}
	if d := f.Sessions[1]; d.ID != "conv_docs_2b1c" || len(d.Messages) != 2 || len(d.Compactions) != 0 {
		t.Errorf("second conversation %+v", d)
	}
	// ReadOTel (simulate's) reads the first, and names the other.
	one, err := ReadOTel(bytes.NewReader(mustRead(t, genAICompaction)), "x")
	if err != nil || one.ID != "conv_shop_7f3a" || len(one.Problems) != 1 || !strings.Contains(one.Problems[0].Message, "1 conversation more (conv_docs_2b1c)") {
		t.Errorf("ReadOTel: %v %+v", err, one.Problems)
	}
}

func mustRead(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestReadOTelOpenInference: OpenInference's flattened spelling, in the
// snake_case field names of Phoenix's download, one pretty-printed
// document: session.id threads the session, tool calls and results are
// read, the usage; the call marked compacted (with the GenAI attribute)
// has no compaction part, so its summary is the first message of the view
// the conversation lacked, and the file says so on the span's line.
func TestReadOTelOpenInference(t *testing.T) {
	f, err := ReadOTelFile(filepath.Join(testdata, "otel", "openinference-phoenix.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sessions) != 1 || f.Calls != 5 {
		t.Fatalf("%d sessions, %d calls, %v", len(f.Sessions), f.Calls, f.Problems)
	}
	s := f.Sessions[0]
	if s.ID != "sess-notes-42" || s.Model != "claude-sonnet-4-6" || len(s.Messages) != 10 || len(s.Compactions) != 1 {
		t.Fatalf("session %s %s: %d messages, %d compactions", s.ID, s.Model, len(s.Messages), len(s.Compactions))
	}
	c := s.Compactions[0]
	if c.Index != 8 || !c.HasSummary || !strings.HasPrefix(c.Summary, "<summary>\nThe user asked to move") || len(c.Preserved) != 2 {
		t.Errorf("compaction %+v", c)
	}
	if len(s.Problems) != 1 || s.Problems[0].Line != c.Line || !strings.Contains(s.Problems[0].Message, "has no compaction part") {
		t.Errorf("problems %v (compaction line %d)", s.Problems, c.Line)
	}
	m := s.Messages[1]
	if m.Role != RoleAssistant || m.Text != "Moving the file first." || len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != "toolu_1" || m.ToolCalls[0].Name != "bash" {
		t.Errorf("message 1 %+v", m)
	}
	if u := m.Usage; u == nil || u.Context() != 900 || u.CacheRead != 450 || u.Output != 40 {
		t.Errorf("usage %+v", m.Usage)
	}
	if r := s.Messages[2]; r.Role != RoleTool || r.ToolCallID != "toolu_1" {
		t.Errorf("result %+v", r)
	}
	for _, m := range s.Messages {
		if m.Role == RoleSystem || strings.Contains(m.Text, "notes assistant") {
			t.Errorf("the system message as history: %+v", m)
		}
	}
}

// TestReadOTelNoContent: spans with usage only (the instrumentations'
// default) give a session that says it holds no content, one step per
// call with its usage, and the compaction unauditable.
func TestReadOTelNoContent(t *testing.T) {
	f, err := ReadOTelFile(filepath.Join(testdata, "otel", "no-content.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sessions) != 1 {
		t.Fatalf("%d sessions", len(f.Sessions))
	}
	s := f.Sessions[0]
	if s.NoContent == "" || !strings.Contains(s.NoContent, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT") || len(s.Messages) != 5 || len(s.Compactions) != 1 {
		t.Fatalf("%+v", s)
	}
	for _, m := range s.Messages {
		if m.Role != RoleAssistant || m.Text != "" || m.Usage == nil {
			t.Errorf("%+v", m)
		}
	}
	if c := s.Compactions[0]; c.Index != 3 || c.HasSummary || c.Unauditable == "" || c.PreTokens != 14100 {
		t.Errorf("%+v", c)
	}
}

// TestReadOTelRealProtoExample: opentelemetry-proto's own example trace
// (Apache-2.0; testdata/agents/README.md) is OTLP JSON, sniffed as such,
// read, and holds no model call.
func TestReadOTelRealProtoExample(t *testing.T) {
	p := filepath.Join(testdata, "otel", "opentelemetry-proto-trace.json")
	if f, err := SniffFile(p); err != nil || f != OTel {
		t.Fatalf("sniff: %q %v", f, err)
	}
	f, err := ReadOTelFile(p)
	if err != nil || f.Spans != 1 || f.Calls != 0 || len(f.Sessions) != 0 || len(f.Problems) != 0 {
		t.Fatalf("%v %+v", err, f)
	}
	if s := f.First(); len(s.Messages) != 0 || len(s.Problems) != 1 || !strings.Contains(s.Problems[0].Message, "no model call among its 1 spans") {
		t.Errorf("%+v", s.Problems)
	}
}

// TestSniffOTel: a request per line, a pretty-printed document, the
// snake_case names, a Phoenix page of spans and a line cut at the end of
// the head are OTLP; the other formats are not taken for it.
func TestSniffOTel(t *testing.T) {
	for _, c := range []struct{ name, head, want string }{
		{"line", `{"resourceSpans":[]}` + "\n" + `{"resourceSpans":[]}`, OTel},
		{"pretty", "{\n  \"resourceSpans\": [\n    {\n", OTel},
		{"snake", "{\n \"resource_spans\": [", OTel},
		{"phoenix page", `{"data":[{"name":"chat","span_id":"a1","trace_id":"t"}],"next_cursor":null}`, OTel},
		{"cut line", `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"x`, OTel},
		{"data without spans", `{"data":[{"role":"user"}]}`, ""},
		{"generic", `{"role":"user","content":"hi"}`, Generic},
		{"codex", `{"type":"session_meta","payload":{}}`, Codex},
	} {
		got, err := Sniff([]byte(c.head), "x.json")
		if got != c.want || (c.want != "" && err != nil) {
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.want)
		}
	}
}

// TestReadOTelOlderSpellings: the names of earlier semantic conventions
// and OpenLLMetry's indexed spelling give the same messages: gen_ai.prompt
// and gen_ai.completion JSON (span attributes, or the v1.27.0 events),
// the per-message events of v1.28.0 to v1.36.0, gen_ai.prompt.N.*,
// gen_ai.usage.prompt_tokens and completion_tokens, a tool response's
// "result" (the registry's example) and OpenAI's {role, content}.
func TestReadOTelOlderSpellings(t *testing.T) {
	prompt := `[{"role":"system","content":"Be brief."},{"role":"user","content":"List the files."},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"shell","arguments":"{\"command\":\"ls\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"a.go\nb.go"}]`
	completion := `[{"role":"assistant","content":"a.go and b.go."}]`
	usage := map[string]any{"gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o", "gen_ai.usage.prompt_tokens": 40, "gen_ai.usage.completion_tokens": 7, "gen_ai.conversation.id": "k"}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range usage {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	cases := map[string]string{
		"attributes": otlpLine(t, otlpSpanOf("t1", "s1", "", 0, with(map[string]any{"gen_ai.prompt": prompt, "gen_ai.completion": completion}))),
		"v1.27 events": otlpLine(t, otlpSpanOf("t1", "s1", "", 0, with(nil),
			otlpEventOf("gen_ai.content.prompt", map[string]any{"gen_ai.prompt": prompt}),
			otlpEventOf("gen_ai.content.completion", map[string]any{"gen_ai.completion": completion}))),
		"message events": otlpLine(t, otlpSpanOf("t1", "s1", "", 0, with(map[string]any{"gen_ai.operation.name": "chat"}),
			otlpEventOf("gen_ai.system.message", map[string]any{"content": "Be brief."}),
			otlpEventOf("gen_ai.user.message", map[string]any{"content": "List the files."}),
			otlpEventOf("gen_ai.assistant.message", map[string]any{"tool_calls": `[{"id":"c1","type":"function","function":{"name":"shell","arguments":"{\"command\":\"ls\"}"}}]`}),
			otlpEventOf("gen_ai.tool.message", map[string]any{"id": "c1", "content": "a.go\nb.go"}),
			otlpEventOf("gen_ai.choice", map[string]any{"index": 0, "finish_reason": "stop", "message": `{"content":"a.go and b.go."}`}))),
		"openllmetry": otlpLine(t, otlpSpanOf("t1", "s1", "", 0, with(map[string]any{
			"gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": "Be brief.",
			"gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": "List the files.",
			"gen_ai.prompt.2.role": "assistant", "gen_ai.prompt.2.tool_calls.0.id": "c1", "gen_ai.prompt.2.tool_calls.0.name": "shell", "gen_ai.prompt.2.tool_calls.0.arguments": `{"command":"ls"}`,
			"gen_ai.prompt.3.role": "tool", "gen_ai.prompt.3.tool_call_id": "c1", "gen_ai.prompt.3.content": "a.go\nb.go",
			"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "a.go and b.go.",
		}))),
		"current, result and content": otlpLine(t, otlpSpanOf("t1", "s1", "", 0, with(map[string]any{
			"gen_ai.operation.name": "chat",
			"gen_ai.input.messages": `[{"role":"system","parts":[{"type":"text","content":"Be brief."}]},{"role":"user","content":"List the files."},` +
				`{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"shell","arguments":{"command":"ls"}}]},{"role":"tool","parts":[{"type":"tool_call_response","id":" c1","result":"a.go\nb.go"}]}]`,
			"gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"text","content":"a.go and b.go."}],"finish_reason":"stop"}]`,
		}))),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			f := readOTelString(t, data)
			if len(f.Sessions) != 1 || len(f.Problems) != 0 {
				t.Fatalf("%d sessions, %v", len(f.Sessions), f.Problems)
			}
			s := f.Sessions[0]
			var got []string
			for _, m := range s.Messages {
				line := m.Role + ": " + m.Text
				for _, c := range m.ToolCalls {
					line += " [" + c.ID + " " + c.Name + " " + compactJSON(c.Input) + "]"
				}
				if m.ToolCallID != "" {
					line += " <" + m.ToolCallID + ">"
				}
				got = append(got, line)
			}
			want := []string{"user: List the files.", `assistant:  [c1 shell {"command":"ls"}]`, "tool: a.go\nb.go <c1>", "assistant: a.go and b.go."}
			if strings.Join(got, "|") != strings.Join(want, "|") || len(s.Problems) != 0 {
				t.Errorf("messages\n%q\nwant\n%q\nproblems %v", got, want, s.Problems)
			}
			if u := s.Messages[len(s.Messages)-1].Usage; u == nil || u.Input != 40 || u.Output != 7 || s.Model != "gpt-4o" {
				t.Errorf("usage %+v, model %q", u, s.Model)
			}
		})
	}
}

// TestReadOTelCallsAndThreads: of a framework's chat span around the
// SDK's, the inner one is read; a call without a conversation id takes
// its ancestor's; calls without either are a session per trace, in
// start-time order whatever the order in the file; an OpenInference LLM
// span and a GenAI execute_tool span are told apart.
func TestReadOTelCallsAndThreads(t *testing.T) {
	in := func(text string) string {
		return `[{"role":"user","parts":[{"type":"text","content":"` + text + `"}]}]`
	}
	out := func(text string) string {
		return `[{"role":"assistant","parts":[{"type":"text","content":"` + text + `"}]}]`
	}
	data := otlpLine(t,
		otlpSpanOf("t1", "agent", "", 0, map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "c-1"}),
		otlpSpanOf("t1", "outer", "agent", 1, map[string]any{"gen_ai.operation.name": "chat", "gen_ai.input.messages": in("outer"), "gen_ai.output.messages": out("outer reply")}),
		otlpSpanOf("t1", "inner", "outer", 1, map[string]any{"gen_ai.operation.name": "chat", "gen_ai.input.messages": in("hello"), "gen_ai.output.messages": out("hi"), "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 2}),
		otlpSpanOf("t1", "tool", "agent", 2, map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "x"}),
	) + "\n" + otlpLine(t,
		otlpSpanOf("t2", "late", "", 9, map[string]any{"openinference.span.kind": "LLM", "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "second"}),
		otlpSpanOf("t2", "early", "", 5, map[string]any{"openinference.span.kind": "LLM", "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "first",
			"llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": "ok"}),
		otlpSpanOf("t2", "chain", "", 5, map[string]any{"openinference.span.kind": "CHAIN", "input.value": "x"}),
	)
	f := readOTelString(t, data)
	if f.Calls != 3 || len(f.Sessions) != 2 {
		t.Fatalf("%d calls, %d sessions", f.Calls, len(f.Sessions))
	}
	a, b := f.Sessions[0], f.Sessions[1]
	if a.ID != "c-1" || len(a.Messages) != 2 || a.Messages[0].Text != "hello" {
		t.Errorf("conversation c-1: %+v", a.Messages)
	}
	if b.ID != "t2" || len(b.Messages) != 3 || b.Messages[0].Text != "first" || b.Messages[2].Text != "second" {
		t.Errorf("trace t2: %+v", b.Messages)
	}
}

// TestReadOTelBadLines: a line that is not JSON is one problem naming its
// line, and the others are read; in a pretty-printed document, a syntax
// error is one problem on its line and ends the file.
func TestReadOTelBadLines(t *testing.T) {
	good := otlpLine(t, otlpSpanOf("t1", "s1", "", 0, map[string]any{"gen_ai.operation.name": "chat", "gen_ai.input.messages": `[{"role":"user","parts":[{"type":"text","content":"hi"}]}]`}))
	f := readOTelString(t, good+"\n{\"resourceSpans\": [\n"+good+"\n[1]\n")
	if len(f.Problems) != 2 || f.Problems[0].Line != 2 || !strings.Contains(f.Problems[0].Message, "not JSON") || f.Problems[1].Line != 4 || f.Calls != 2 {
		t.Errorf("problems %v, %d calls", f.Problems, f.Calls)
	}
	f = readOTelString(t, "{\n  \"resourceSpans\": [\n    {\"scopeSpans\": [{\"spans\": [\n      {\"traceId\": \"t\", oops}\n]}]}]}\n")
	if len(f.Problems) != 1 || f.Problems[0].Line != 4 || !strings.Contains(f.Problems[0].Message, "the rest of the file is left out") {
		t.Errorf("problems %v", f.Problems)
	}
}

// TestReadOTelPhoenixPage: a page of Phoenix's REST API (GET
// /v1/projects/{id}/spans/otlpv1: {"data": [span, …], "next_cursor"}),
// its spans in the proto's snake_case names, is read as a request is.
func TestReadOTelPhoenixPage(t *testing.T) {
	page := `{"data":[{"trace_id":"t9","span_id":"p1","start_time_unix_nano":1700000000000000000,"attributes":[` +
		`{"key":"openinference.span.kind","value":{"string_value":"LLM"}},{"key":"session.id","value":{"string_value":"s-9"}},` +
		`{"key":"llm.input_messages.0.message.role","value":{"string_value":"user"}},{"key":"llm.input_messages.0.message.content","value":{"string_value":"ping"}},` +
		`{"key":"llm.output_messages.0.message.role","value":{"string_value":"assistant"}},{"key":"llm.output_messages.0.message.content","value":{"string_value":"pong"}},` +
		`{"key":"llm.token_count.prompt","value":{"int_value":"12"}},{"key":"gen_ai.conversation.compacted","value":{"string_value":"false"}}]}],"next_cursor":null}`
	if f, err := Sniff([]byte(page), "page.json"); err != nil || f != OTel {
		t.Fatalf("sniff %q %v", f, err)
	}
	f := readOTelString(t, page)
	if len(f.Sessions) != 1 || len(f.Problems) != 0 {
		t.Fatalf("%+v", f)
	}
	s := f.Sessions[0]
	if s.ID != "s-9" || len(s.Messages) != 2 || s.Messages[1].Text != "pong" || s.Messages[1].Usage.Input != 12 || len(s.Compactions) != 0 {
		t.Errorf("%+v", s.Messages)
	}
}
