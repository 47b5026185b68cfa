package agents

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadOpenCode: any export document reads without a panic; what it
// gives keeps the readers' promises (checkFuzzSession; its problems name
// no line).
func FuzzReadOpenCode(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(testdata, "opencode", "export.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"info":{"id":"s"},"messages":[{"info":{"id":"a","role":"assistant","summary":true,"finish":"stop"},"parts":[{"type":"text","text":"x"}]},{"info":{"id":"u","role":"user"},"parts":[{"type":"compaction","tail_start_id":"u"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Sniff(data, "fuzz.json")
		s, err := ReadOpenCodeExport(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		checkFuzzSession(t, s, 0)
	})
}

// FuzzReadGeminiCLI: any chat, a .jsonl log or a .json record, reads
// without a panic and keeps the readers' promises.
func FuzzReadGeminiCLI(f *testing.F) {
	for _, rel := range []string{geminiJSONL, "gemini-cli/session-2025-11-02T14-30-3f9a0b12.json"} {
		data, err := os.ReadFile(filepath.Join(testdata, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"sessionId":"s","projectHash":"h"}` + "\n" + `{"$set":{"messages":[{"id":"a","type":"user","content":"<state_snapshot>"}]}}` + "\n" + `{"$rewindTo":"a"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nlines := bytes.Count(data, []byte("\n")) + 1
		_, _ = Sniff(data, "fuzz.jsonl")
		s, err := ReadGeminiCLI(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		checkFuzzSession(t, s, nlines)
	})
}
