package estimate

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

type vector struct {
	Name     string          `json:"name"`
	Raw      string          `json:"raw"`
	Expected json.RawMessage `json:"expected"`
}

func readVectors(t testing.TB, path string) []vector {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var v vector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func TestEstimateMatchesUpstreamVectors(t *testing.T) {
	// The conformance vectors, and the ones the differential harness
	// found (testdata/upstream: expected values from the upstream run).
	for _, file := range []string{
		"../../testdata/conformance/vectors/estimate-message-tokens.jsonl",
		"../../testdata/upstream/estimate-message-tokens.jsonl",
	} {
		vs := readVectors(t, file)
		if len(vs) == 0 {
			t.Fatalf("%s: no vectors", file)
		}
		for _, v := range vs {
			t.Run(v.Name, func(t *testing.T) {
				msg, err := history.DecodeSuperJSON(v.Raw)
				if err != nil {
					t.Fatal(err)
				}
				got, err := MessageTokens(msg)
				if err != nil {
					t.Fatal(err)
				}
				var want float64
				if string(v.Expected) == `"NaN"` {
					want = math.NaN()
				} else if err := json.Unmarshal(v.Expected, &want); err != nil {
					t.Fatal(err)
				}
				if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("estimate = %v, want %v", got, want)
				}
			})
		}
	}
}

// TestEstimateJavaScriptEdges: JavaScript's type confusion in the
// estimate. The expected values are the upstream's, each checked with
// scripts/upstream-diff/oracle.sh ({"op":"estimate"}).
func TestEstimateJavaScriptEdges(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want float64 // NaN allowed
	}{
		{"text that is a number is NaN", `{"json":{"parts":[{"type":"text","text":5}]}}`, math.NaN()},
		{"text that is an array counts its length", `{"json":{"parts":[{"type":"text","text":[1,2,3]}]}}`, 101},
		{"summary that is a number is NaN", `{"json":{"parts":[],"metadata":{"compressedHistory":7}}}`, math.NaN()},
		{"bigint in mentions counts 0 (safeStringifyLength catches)", `{"json":{"parts":[],"metadata":{"mentions":"1"}},"meta":{"values":{"metadata.mentions":["bigint"]},"v":1}}`, 100},
		{"bigint summary length throws: 2000", `{"json":{"parts":[],"metadata":{"compressedHistory":{"length":"1"}}},"meta":{"values":{"metadata.compressedHistory.length":["bigint"]},"v":1}}`, 600},
		{"bigint attachments length throws: 2000", `{"json":{"parts":[],"metadata":{"attachments":{"length":"1"}}},"meta":{"values":{"metadata.attachments.length":["bigint"]},"v":1}}`, 600},
		{"falsy environment snapshot is not counted", `{"json":{"parts":[],"metadata":{"environmentSnapshot":false}}}`, 100},
		{"bigint in a part counts 0", `{"json":{"parts":[{"type":"x","n":"1"}]},"meta":{"values":{"parts.0.n":["bigint"]},"v":1}}`, 100},
		{"attachments string counts its length", `{"json":{"parts":[],"metadata":{"attachments":"ab"}}}`, 150},
		{"null part is skipped", `{"json":{"parts":[null]}}`, 100},
		{"string part is skipped ('in' throws)", `{"json":{"parts":["x"]}}`, 100},
		{"bigint text length skips the part", `{"json":{"parts":[{"type":"text","text":{"length":"1"}},{"type":"text","text":"abcd"}]},"meta":{"values":{"parts.0.text.length":["bigint"]},"v":1}}`, 101},
		// A "length" that is a string turns the total into a string:
		// 0 + "3" is "03", then "03" + 4 + 400 is "034400".
		{"string length concatenates", `{"json":{"parts":[{"type":"text","text":{"length":"3"}},{"type":"text","text":"abcd"}]}}`, 8600},
		{"object length concatenates its String()", `{"json":{"parts":[{"type":"text","text":{"length":{}}}]}}`, math.NaN()},
		{"array length concatenates its join", `{"json":{"parts":[{"type":"text","text":{"length":[1]}}],"metadata":null}}`, 350},
		// "01" + 0 (a nullish toolName) + 1 (JSON "1") + 400.
		{"nullish toolName after a string total appends 0", `{"json":{"parts":[{"type":"text","text":{"length":"1"}},{"type":"dynamic-tool","toolName":null,"input":1}]}}`, 25350},
		{"date attachments length counts its time value", `{"json":{"parts":[],"metadata":{"attachments":{"length":"1970-01-01T00:00:00.002Z"}}},"meta":{"values":{"metadata.attachments.length":["Date"]},"v":1}}`, 150},
		{"string summary length makes the metadata a string", `{"json":{"parts":[{"type":"text","text":{"length":"1"}}],"metadata":{"compressedHistory":{"length":"x"},"attachments":[1]}}}`, math.NaN()},
		{"error summary has no length", `{"json":{"parts":[],"metadata":{"compressedHistory":{"length":"1"}}},"meta":{"values":{"metadata.compressedHistory":["Error"]},"v":1}}`, math.NaN()},
		// "05" + 400 + 2000 (the bigint throws in the metadata).
		{"metadata throw after a string total", `{"json":{"parts":[{"type":"text","text":{"length":"5"}}],"metadata":{"compressedHistory":{"length":"1"}}},"meta":{"values":{"metadata.compressedHistory.length":["bigint"]},"v":1}}`, 13100},
		{"hex string length is not read as a number", `{"json":{"parts":[{"type":"text","text":{"length":"0x10"}}]}}`, math.NaN()},
		{"message that is a string", `{"json":"abc"}`, 0},
		{"step-start is 21 chars", `{"json":{"parts":[{"type":"step-start"}]}}`, math.Ceil(421.0 / 4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := history.DecodeSuperJSON(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			got, err := MessageTokens(msg)
			if err != nil {
				t.Fatalf("err = %v; the estimate never fails", err)
			}
			if !(got == tt.want || math.IsNaN(got) && math.IsNaN(tt.want)) {
				t.Errorf("estimate = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHeadProfileCountsEnvState(t *testing.T) {
	msg, err := history.DecodeSuperJSON(`{"json":{"parts":[],"metadata":{"envState":{"ws":{"renderedState":"abcd","renderedStateChange":"efgh"}},"environmentSnapshot":{"a":1}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := Profiles["head"].MessageTokens(msg)
	e3e, _ := Profiles["e3e"].MessageTokens(msg)
	if head != math.Ceil(408.0/4) || e3e != math.Ceil(407.0/4) {
		t.Errorf("head %v e3e %v", head, e3e)
	}
}

func BenchmarkEstimate(b *testing.B) {
	vs := readVectors(b, "../../testdata/conformance/vectors/estimate-message-tokens.jsonl")
	var msgs []history.Value
	size := 0
	for _, v := range vs {
		m, err := history.DecodeSuperJSON(v.Raw)
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, m)
		size += len(v.Raw)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, m := range msgs {
			if _, err := MessageTokens(m); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestHeadEnvStateEntries: HEAD reads entry?.renderedState, so a null or
// primitive entry counts nothing (it does not throw).
func TestHeadEnvStateEntries(t *testing.T) {
	msg, err := history.DecodeSuperJSON(`{"json":{"parts":[],"metadata":{"envState":{"a":null,"b":5,"c":{"renderedState":"abcdef"}}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := Profiles["head"].MessageTokens(msg); got != math.Ceil(406.0/4) {
		t.Errorf("head estimate %v, want %v", got, math.Ceil(406.0/4))
	}
}
