package agents

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadOTel: any input reads without a panic as a trace file and
// through Sniff; every problem names a line of the input (or none), and
// there are not more of them than the cap; in every conversation, a tool
// result answers a call made before it, every role is one of the model's,
// the compactions are in order, within the messages, and each has a
// summary or says why not; a conversation without content has no text.
func FuzzReadOTel(f *testing.F) {
	for _, rel := range []string{"otel/genai-compaction.jsonl", "otel/no-content.jsonl", "otel/openinference-phoenix.json", "otel/opentelemetry-proto-trace.json"} {
		data, err := os.ReadFile(filepath.Join(testdata, rel))
		if err != nil {
			f.Fatal(err)
		}
		// Seeds stay small: the first lines, or the first 6 KB of a
		// document.
		lines := bytes.SplitAfter(data, []byte("\n"))
		if len(lines) > 3 && strings.HasSuffix(rel, ".jsonl") {
			lines = lines[:3]
		}
		seed := bytes.Join(lines, nil)
		if len(seed) > 6<<10 {
			seed = seed[:6<<10]
		}
		f.Add(seed)
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"a","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.conversation.compacted","value":{"boolValue":true}},{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"compaction\"},{\"type\":\"tool_call_response\",\"id\":\"x\",\"response\":1}]}]"}}]}]}]}]}`))
	f.Add([]byte(`{"data":[{"span_id":"s","trace_id":"t","attributes":[{"key":"openinference.span.kind","value":{"string_value":"LLM"}},{"key":"llm.output_messages.0.message.tool_calls.0.tool_call.id","value":{"string_value":"c"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nlines := bytes.Count(data, []byte("\n")) + 1
		_, _ = Sniff(data, "fuzz.json")
		file, err := ReadOTelAll(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		if len(file.Problems) > maxProblemLines+1 {
			t.Fatalf("%d file problems", len(file.Problems))
		}
		for _, p := range file.Problems {
			if p.Line < 0 || p.Line > nlines {
				t.Fatalf("file problem on line %d of %d: %v", p.Line, nlines, p)
			}
		}
		for _, s := range file.Sessions {
			checkFuzzSession(t, s, nlines)
		}
		checkFuzzSession(t, file.First(), nlines)
	})
}
