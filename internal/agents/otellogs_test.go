package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// logsDetails decodes, with encoding/json alone, the content of the
// compaction parts of the gen_ai.client.inference.operation.details
// records of a JSONL logs file: the summaries the reader must give.
func logsCompactionParts(t *testing.T, rel string) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(mustRead(t, rel)))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var req struct {
			ResourceLogs []struct {
				ScopeLogs []struct {
					LogRecords []struct {
						EventName  string
						Attributes []struct {
							Key   string
							Value struct{ StringValue string }
						}
					}
				}
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatal(err)
		}
		for _, rl := range req.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, lr := range sl.LogRecords {
					for _, a := range lr.Attributes {
						if lr.EventName != "gen_ai.client.inference.operation.details" || a.Key != "gen_ai.input.messages" {
							continue
						}
						var msgs []struct {
							Parts []struct{ Type, Content string }
						}
						if err := json.Unmarshal([]byte(a.Value.StringValue), &msgs); err != nil {
							t.Fatal(err)
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

// TestReadOTelLogsAcrossFiles: spans with usage only in one file, the
// calls' content as gen_ai.client.inference.operation.details log records
// in another; a run joins them by trace and span id: the traces file
// gives the conversation with its content, its compaction's summary (the
// compaction part of a record) and its span, with the spans' usage; the
// logs file gives only the record whose span no file holds, a call of its
// own. Each file read alone joins what it holds.
func TestReadOTelLogsAcrossFiles(t *testing.T) {
	traces, logs := filepath.Join(testdata, "otel", "genai-logs-traces.jsonl"), filepath.Join(testdata, "otel", "genai-logs.jsonl")
	want := logsCompactionParts(t, "otel/genai-logs.jsonl")
	if len(want) != 1 {
		t.Fatalf("the file's compaction parts: %d", len(want))
	}
	run := NewOTelRun([]string{traces, logs})
	f, err := run.Read(traces)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Problems) != 0 || f.Calls != 5 || f.Spans != 5 || len(f.Sessions) != 1 {
		t.Fatalf("spans %d, calls %d, sessions %d, problems %v", f.Spans, f.Calls, len(f.Sessions), f.Problems)
	}
	s := f.Sessions[0]
	if s.ID != "conv_logs_9d1e" || s.Conversation != "conv_logs_9d1e" || s.NoContent != "" || len(s.Compactions) != 1 {
		t.Fatalf("session %+v", s)
	}
	c := s.Compactions[0]
	if !c.HasSummary || c.Summary != want[0] || c.PreTokens != 1900 || c.PostTokens != 800 ||
		c.TraceID != "3c2d1e0f9a8b7c6d5e4f30201a0b0c0d" || c.SpanID != "600000000000004a" || len(c.Preserved) != 2 {
		t.Errorf("compaction %+v", c)
	}
	if m := s.Messages[0]; m.Role != RoleUser || !strings.HasPrefix(m.Text, "The checkout test fails") {
		t.Errorf("first message %+v", m)
	}
	if m := s.Messages[1]; m.Role != RoleAssistant || m.Usage == nil || m.Usage.Context() != 1200 || len(m.ToolCalls) != 1 || m.ToolCalls[0].Name != "read_file" {
		t.Errorf("first reply %+v", m)
	}
	g, err := run.Read(logs)
	if err != nil {
		t.Fatal(err)
	}
	if g.Logs != 6 || g.Calls != 1 || len(g.Sessions) != 1 || g.Sessions[0].ID != "conv_logs_only" || len(g.Sessions[0].Messages) != 2 {
		t.Fatalf("logs file: %d logs, %d calls, sessions %+v", g.Logs, g.Calls, g.Sessions)
	}
	// Alone, the traces hold no content; the logs hold every call, with
	// no usage.
	alone, err := ReadOTelFile(traces)
	if err != nil || alone.Sessions[0].NoContent == "" {
		t.Errorf("traces alone: %v %+v", err, alone.Sessions)
	}
	alone, err = ReadOTelFile(logs)
	if err != nil || len(alone.Sessions) != 2 || alone.Sessions[0].ID != "conv_logs_9d1e" || len(alone.Sessions[0].Compactions) != 1 ||
		alone.Sessions[0].Compactions[0].Summary != want[0] || alone.Sessions[0].Compactions[0].PreTokens != 0 {
		t.Errorf("logs alone: %v %+v", err, alone.Sessions)
	}
}

// TestReadOTelEventLogs: the per-message events of semantic conventions
// v1.28.0 to v1.36.0 recorded as log records (the name in the event.name
// attribute, the fields in the body) beside their spans in one file:
// the same messages the span events would give, the system message left
// out, the tool calls and their results, the spans' usage.
func TestReadOTelEventLogs(t *testing.T) {
	f, err := ReadOTelFile(filepath.Join(testdata, "otel", "genai-events-logs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Problems) != 0 || f.Spans != 4 || f.Calls != 4 || len(f.Sessions) != 1 {
		t.Fatalf("spans %d, calls %d, sessions %d, problems %v", f.Spans, f.Calls, len(f.Sessions), f.Problems)
	}
	s := f.Sessions[0]
	var roles []string
	for _, m := range s.Messages {
		roles = append(roles, m.Role)
	}
	if s.Model != "gpt-4.1" || strings.Join(roles, " ") != "user assistant tool assistant tool assistant tool assistant" || len(s.Problems) != 0 {
		t.Fatalf("model %q, roles %v, problems %v", s.Model, roles, s.Problems)
	}
	if m := s.Messages[1]; len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != "call_a" || m.ToolCalls[0].Name != "grep" || m.Usage == nil || m.Usage.Input != 600 {
		t.Errorf("first reply %+v", m)
	}
	if m := s.Messages[6]; m.ToolCallID != "call_c" || m.ExitCode == nil || *m.ExitCode != 0 {
		t.Errorf("last result %+v", m)
	}
	if m := s.Messages[7]; !strings.HasPrefix(m.Text, "Renamed totals() to sumTotals()") {
		t.Errorf("last reply %+v", m)
	}
}

// TestReadOTelLogRecords: what a log record is read as, line by line.
func TestReadOTelLogRecords(t *testing.T) {
	rec := func(name, trace, span string, attrs map[string]any, body any) string {
		r := map[string]any{"timeUnixNano": "1700000000000000000", "traceId": trace, "spanId": span}
		if name != "" {
			r["eventName"] = name
		}
		var list []any
		for k, v := range attrs {
			list = append(list, map[string]any{"key": k, "value": anyOf(v)})
		}
		r["attributes"] = list
		if body != nil {
			r["body"] = body
		}
		b, _ := json.Marshal(map[string]any{"resource_logs": []any{map[string]any{"scope_logs": []any{map[string]any{"log_records": []any{r}}}}}})
		return string(b)
	}
	const tr = "0123456789abcdef0123456789abcdef"
	userBody := map[string]any{"kvlistValue": map[string]any{"values": []any{map[string]any{"key": "content", "value": map[string]any{"stringValue": "hello there"}}}}}
	for _, tc := range []struct {
		name   string
		lines  []string
		calls  int
		msgs   int
		errSub string
	}{
		{"message events with their span", []string{
			otlpLine(t, otlpSpanOf(tr, "00000000000000a1", "", 0, map[string]any{"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 10})),
			rec("gen_ai.user.message", tr, "00000000000000a1", nil, userBody),
			rec("", tr, "00000000000000a1", map[string]any{"event.name": "gen_ai.choice"}, map[string]any{"kvlistValue": map[string]any{"values": []any{
				map[string]any{"key": "index", "value": map[string]any{"intValue": "0"}},
				map[string]any{"key": "message", "value": map[string]any{"kvlistValue": map[string]any{"values": []any{map[string]any{"key": "content", "value": map[string]any{"stringValue": "hi"}}}}}}}}}),
		}, 1, 2, ""},
		{"a body that is the content", []string{
			rec("gen_ai.user.message", tr, "00000000000000a2", nil, map[string]any{"stringValue": "plain text body"}),
		}, 1, 1, ""},
		{"message events without a span id", []string{
			rec("gen_ai.user.message", tr, "", nil, userBody),
		}, 0, 0, "1 GenAI message event recorded as a log record name no span; left out"},
		{"other log records", []string{
			rec("", tr, "00000000000000a3", map[string]any{"http.method": "GET"}, map[string]any{"stringValue": "GET /"}),
			rec("gen_ai.evaluation.result", tr, "00000000000000a3", nil, nil),
		}, 0, 0, ""},
	} {
		f := readOTelString(t, strings.Join(tc.lines, "\n")+"\n")
		msgs := 0
		for _, s := range f.Sessions {
			msgs += len(s.Messages)
		}
		problems := ""
		for _, p := range f.Problems {
			problems += p.Message + "\n"
		}
		if f.Calls != tc.calls || msgs != tc.msgs || (tc.errSub == "") != (problems == "") || !strings.Contains(problems, tc.errSub) {
			t.Errorf("%s: %d calls, %d messages, problems %q", tc.name, f.Calls, msgs, problems)
		}
	}
}

// TestReadLangfuseTrace: Langfuse's trace download, one document of
// observations: each conversation by its session (or its
// gen_ai.conversation.id in the span's attributes); the messages in each
// spelling Langfuse keeps (the conventions' JSON with the system message
// prepended, OpenInference's nested back, OpenAI's), the compactions the
// attribute (text "true") marks, the usage with the cached input apart.
func TestReadLangfuseTrace(t *testing.T) {
	rel := filepath.Join("otel", "langfuse-trace.json")
	if got, err := SniffFile(filepath.Join(testdata, rel)); got != OTel || err != nil {
		t.Fatalf("sniffed %q %v", got, err)
	}
	f, err := ReadOTelFile(filepath.Join(testdata, rel))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Problems) != 0 || f.Spans != 11 || f.Calls != 10 || len(f.Sessions) != 3 {
		t.Fatalf("spans %d, calls %d, sessions %d, problems %v", f.Spans, f.Calls, len(f.Sessions), f.Problems)
	}
	a, oi, sdk := f.Sessions[0], f.Sessions[1], f.Sessions[2]
	if a.ID != "conv_lf_4c2a" || a.Model != "gpt-5.4-mini-2026-03-01" || len(a.Compactions) != 1 || len(a.Problems) != 0 {
		t.Fatalf("first %+v", a)
	}
	c := a.Compactions[0]
	if !c.HasSummary || !strings.HasPrefix(c.Summary, "## Task\nFix the checkout tax bug") || c.SpanID != "c700000000000004" || c.TraceID != "8e7d6c5b4a39281706f5e4d3c2b1a090" || c.PreTokens != 1980 {
		t.Errorf("compaction %+v", c)
	}
	if m := a.Messages[3]; m.Role != RoleAssistant || m.Usage == nil || *m.Usage != (Usage{Input: 400, CacheRead: 1024, Output: 20}) {
		t.Errorf("second reply %+v", m)
	}
	for _, m := range a.Messages {
		if m.Role == RoleSystem || strings.HasPrefix(m.Text, "You are a coding agent") {
			t.Errorf("the system message as a message: %+v", m)
		}
	}
	if oi.ID != "sess-lf-oi" || len(oi.Compactions) != 1 || !strings.HasPrefix(oi.Compactions[0].Summary, "<summary>") || len(oi.Problems) != 1 {
		t.Errorf("OpenInference nested: %+v", oi)
	}
	if m := oi.Messages[1]; len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != "toolu_1" || m.ToolCalls[0].Name != "bash" {
		t.Errorf("OpenInference tool call %+v", m)
	}
	if sdk.ID != "lf-sdk-1" || len(sdk.Messages) != 2 || sdk.Messages[0].Text != "Say hi." || sdk.Messages[1].Text != "Hi!" {
		t.Errorf("SDK call %+v", sdk.Messages)
	}
}

func TestSniffOTelLogsAndLangfuse(t *testing.T) {
	for _, c := range []struct{ name, head, want string }{
		{"logs line", `{"resourceLogs":[]}` + "\n" + `{"resourceLogs":[]}`, OTel},
		{"logs snake", "{\n \"resource_logs\": [", OTel},
		{"logs cut", `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"x`, OTel},
		{"langfuse download", "{\n  \"observations\": [\n    {\n      \"id\": \"o1\",\n      \"traceId\": \"t\",\n      \"type\": \"GENERATION\"", OTel},
		{"langfuse page", `{"data":[{"id":"o1","traceId":"t","type":"SPAN"}],"meta":{}}`, OTel},
		{"observations of something else", `{"observations":[{"id":"o1","value":3}]}`, ""},
	} {
		got, err := Sniff([]byte(c.head), "x.json")
		if got != c.want || (c.want != "" && err != nil) {
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.want)
		}
	}
}

// TestReadLangfuseRealTraces: two real traces Langfuse keeps for its own
// tests (langfuse/langfuse worker/src/__tests__/chatml/framework-traces,
// MIT), in the shape of its trace view's data ({"trace", "observations"},
// metadata as JSON text): Microsoft Agent Framework's GenAI messages, the
// first call without the conversation id its second call names (one
// conversation), and the OpenAI Agents SDK's Responses API items. Each is
// one conversation: the question, the tool call, its result, the answer,
// the usage of each call.
func TestReadLangfuseRealTraces(t *testing.T) {
	for _, tc := range []struct {
		file, id, call, tool, result, answer string
		usage                                [2]Usage
	}{
		{"microsoft-agent-2025-12-17.trace.json", "resp_0e32bda5b6259ecd00694279e271348194a818447145cd1763",
			"call_CwaJHuXTm9dmHFQPlVbqyzJ0", "get_weather", `"result": "The weather in Tokyo, Japan is stormy`, "Current conditions in Tokyo, Japan: stormy, high around 23°C.",
			[2]Usage{{Input: 77, Output: 86}, {Input: 216, Output: 20}}},
		{"openai-agents-2025-09-30.trace.json", "fee618f96dc31e0ca38b2f7b26eb8b29",
			"call_Kud0j0DxWSmLzv9W5m6qVqXn", "get_weather", "The weather in Tokyo is sunny.", "The weather in Tokyo is currently sunny.",
			[2]Usage{{Input: 55, Output: 15}, {Input: 85, Output: 29}}},
	} {
		path := filepath.Join(testdata, "otel", "langfuse", tc.file)
		if got, err := SniffFile(path); got != OTel || err != nil {
			t.Errorf("%s: sniffed %q %v", tc.file, got, err)
			continue
		}
		f, err := ReadOTelFile(path)
		if err != nil || len(f.Problems) != 0 || f.Calls != 2 || len(f.Sessions) != 1 {
			t.Errorf("%s: %v, %d calls, %d sessions, problems %v", tc.file, err, f.Calls, len(f.Sessions), f.Problems)
			continue
		}
		s := f.Sessions[0]
		var roles []string
		for _, m := range s.Messages {
			roles = append(roles, m.Role)
		}
		if s.ID != tc.id || strings.Join(roles, " ") != "user assistant tool assistant" || len(s.Problems) != 0 {
			t.Errorf("%s: session %s, roles %v, problems %v", tc.file, s.ID, roles, s.Problems)
			continue
		}
		m := s.Messages
		if m[0].Text != "What's the weather in Tokyo?" || len(m[1].ToolCalls) != 1 || m[1].ToolCalls[0].ID != tc.call || m[1].ToolCalls[0].Name != tc.tool ||
			m[2].ToolCallID != tc.call || !strings.Contains(m[2].Text, tc.result) || !strings.HasPrefix(m[3].Text, tc.answer) {
			t.Errorf("%s: messages %+v", tc.file, m)
		}
		if m[1].Usage == nil || *m[1].Usage != tc.usage[0] || m[3].Usage == nil || *m[3].Usage != tc.usage[1] {
			t.Errorf("%s: usage %+v, %+v", tc.file, m[1].Usage, m[3].Usage)
		}
	}
}

// TestReadOTelStream: JSON Lines read a line at a time give what the
// whole file read at once gives: lines longer than the reader's buffer,
// CRLF endings, blank lines, a byte-order mark, no newline at the end, a
// bad line among them; a document over many lines is read whole.
func TestReadOTelStream(t *testing.T) {
	const tr = "0123456789abcdef0123456789abcdef"
	big := strings.Repeat("a long tool output line\n", 40000) // ~1 MB
	msgs := func(texts ...string) string {
		var list []any
		for k, s := range texts {
			role := "user"
			if k%2 == 1 {
				role = "assistant"
			}
			list = append(list, map[string]any{"role": role, "parts": []any{map[string]any{"type": "text", "content": s}}})
		}
		b, _ := json.Marshal(list)
		return string(b)
	}
	call := func(id string, n int, in, out string) string {
		return otlpLine(t, otlpSpanOf(tr, id, "", n, map[string]any{"gen_ai.operation.name": "chat", "gen_ai.conversation.id": "c1",
			"gen_ai.input.messages": in, "gen_ai.output.messages": out, "gen_ai.usage.input_tokens": 100 + n}))
	}
	lines := []string{
		call("00000000000000b1", 0, msgs("first: "+big), msgs("", "ok one")),
		"",
		"{not json",
		call("00000000000000b2", 1, msgs("first: "+big, "ok one", "second"), msgs("", "ok two")),
	}
	data := "\ufeff" + strings.Join(lines, "\r\n")
	streamed, err := ReadOTelAll(strings.NewReader(data), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	whole := readOTelData(readOTLP([]byte(data)), "x.jsonl", nil)
	if len(streamed.Sessions) != 1 || len(streamed.Sessions[0].Messages) != 4 || streamed.Sessions[0].Messages[0].Text != "first: "+big {
		t.Fatalf("streamed: %+v", streamed.Sessions)
	}
	if d := cmp.Diff(whole.Sessions[0].Messages, streamed.Sessions[0].Messages); d != "" {
		t.Errorf("streamed and whole differ:\n%s", d)
	}
	if len(streamed.Problems) != 1 || streamed.Problems[0].Line != 3 || fmt.Sprint(streamed.Problems) != fmt.Sprint(whole.Problems) {
		t.Errorf("problems %v, whole %v", streamed.Problems, whole.Problems)
	}
	// A pretty-printed document is read whole.
	pretty := mustRead(t, "otel/openinference-phoenix.json")
	doc, err := ReadOTelAll(bytes.NewReader(pretty), "p.json")
	if err != nil || len(doc.Sessions) != 1 || len(doc.Sessions[0].Compactions) != 1 {
		t.Errorf("document: %v %+v", err, doc)
	}
}
