package eval

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestWriteOTelEvents: one event per briefing and measure, labelled by
// the comparison with the baseline on the bundle; the judged score only
// for a judged briefing; a measure without a score has no value; the
// span link only where the metadata's ids are OTLP's.
func TestWriteOTelEvents(t *testing.T) {
	dir := t.TempDir()
	meta := func(name, md string) string {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if md != "" {
			if err := os.WriteFile(filepath.Join(d, "metadata.json"), []byte(md), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	linked := meta("linked", `{"agent":"otel","chatId":"t","compressionNumber":2,"conversationId":"conv_1","traceId":"4BF92F3577B34DA6A3CE929D0E0E4736","spanId":"00f067aa0ba902b7"}`)
	zero := meta("zero", `{"agent":"otel","chatId":"5b8efff798038103d269b633813fc60c","compressionNumber":1,"traceId":"00000000000000000000000000000000","spanId":"00f067aa0ba902b7"}`)
	stagewise := meta("stagewise", `{"chatId":"chat-9","compressionNumber":1}`)
	none := meta("none", "")
	grounded := func(score float64) *GroundedResult {
		return &GroundedResult{Probes: 4, Kept: int(score * 4), Score: score, SizeCharge: 1, Lost: []int{0}}
	}
	probes := []Probe{{Kind: KindFileUsed, Expected: []string{"src/" + strings.Repeat("a", 100) + ".ts"}}}
	brief := func(name string, g *GroundedResult, kept, total int, judged *JudgedBriefing) BriefingScore {
		return BriefingScore{Name: name, Chars: 1200, Grounded: g, Overall: Tally{Kept: kept, Total: total}, Kinds: map[Kind]Tally{KindArtifact: {Kept: kept, Total: total}}, Judged: judged}
	}
	rep := &Report{Baseline: Actual, Target: 30000, Results: []*BundleResult{
		{Bundle: linked, Grounded: probes, Briefings: []BriefingScore{
			brief(Actual, grounded(0.5), 2, 4, &JudgedBriefing{Score: 3, Dimensions: map[string]float64{"accuracy": 3}}),
			brief("better", grounded(0.75), 2, 4, &JudgedBriefing{Score: 2.5}),
			brief("worse", grounded(0.25), 1, 4, nil),
		}},
		{Bundle: zero, NotMeasurable: NotMeasurableNoContinuation, Briefings: []BriefingScore{brief("only", nil, 0, 0, nil)}},
		{Bundle: stagewise, Briefings: []BriefingScore{brief(Actual, grounded(1), 1, 1, nil)}},
		{Bundle: none, Briefings: []BriefingScore{brief(Actual, grounded(1), 1, 1, nil)}},
		{Bundle: filepath.Join(dir, "empty")},
	}}
	var b bytes.Buffer
	sum, err := rep.WriteOTel(&b, OTelOptions{Service: "compact", Version: "v9", Scope: "s", Now: time.Unix(1700000000, 5)})
	if err != nil {
		t.Fatal(err)
	}
	if sum != (OTelSummary{Events: 14, Linked: 8, Conversations: 2, Lines: 4}) {
		t.Errorf("summary %+v", sum)
	}
	type row struct{ Bundle, Briefing, Name, Label, Value, Trace, Span, Conv string }
	var got []row
	for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		var req otlpLogsRequest
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		rl := req.ResourceLogs[0]
		if len(req.ResourceLogs) != 1 || len(rl.ScopeLogs) != 1 || rl.ScopeLogs[0].SchemaURL != SemconvSchema || *rl.Resource.Attributes[1].Value.String != "v9" {
			t.Errorf("line %d: %s", i+1, line)
		}
		for _, lr := range rl.ScopeLogs[0].LogRecords {
			if lr.EventName != OTelEvent || lr.TimeUnixNano != "1700000000000000005" {
				t.Errorf("record %+v", lr)
			}
			r := row{Trace: lr.TraceID, Span: lr.SpanID}
			for _, kv := range lr.Attributes {
				v := kv.Value
				s := ""
				switch {
				case v.String != nil:
					s = *v.String
				case v.Double != nil:
					s = strconv.FormatFloat(*v.Double, 'g', -1, 64)
				}
				switch kv.Key {
				case "compact.bundle":
					r.Bundle = filepath.Base(s)
				case "compact.briefing":
					r.Briefing = s
				case "gen_ai.evaluation.name":
					r.Name = s
				case "gen_ai.evaluation.score.label":
					r.Label = s
				case "gen_ai.evaluation.score.value":
					r.Value = s
				case "gen_ai.conversation.id":
					r.Conv = s
				case "gen_ai.evaluation.explanation":
					if s == "" {
						t.Errorf("no explanation: %+v", lr)
					}
					if strings.Contains(s, "lost: ") && !strings.Contains(s, "file-used src/aaaa") && !strings.Contains(s, "…") {
						t.Errorf("explanation %q", s)
					}
				}
			}
			got = append(got, r)
		}
	}
	const tr, sp = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	want := []row{
		{"linked", "actual", OTelGrounded, "baseline", "0.5", tr, sp, "conv_1"},
		{"linked", "actual", OTelCoverage, "baseline", "0.5", tr, sp, "conv_1"},
		{"linked", "actual", OTelJudged, "baseline", "3", tr, sp, "conv_1"},
		{"linked", "better", OTelGrounded, "better", "0.75", tr, sp, "conv_1"},
		{"linked", "better", OTelCoverage, "same", "0.5", tr, sp, "conv_1"},
		{"linked", "better", OTelJudged, "worse", "2.5", tr, sp, "conv_1"},
		{"linked", "worse", OTelGrounded, "worse", "0.25", tr, sp, "conv_1"},
		{"linked", "worse", OTelCoverage, "worse", "0.25", tr, sp, "conv_1"},
		// An all-zero trace id is no link; a trace without a conversation
		// id has none (its chat id is the trace's).
		{"zero", "only", OTelGrounded, "not_measurable", "", "", "", ""},
		{"zero", "only", OTelCoverage, "not_measurable", "", "", "", ""},
		{"stagewise", "actual", OTelGrounded, "baseline", "1", "", "", "chat-9"},
		{"stagewise", "actual", OTelCoverage, "baseline", "1", "", "", "chat-9"},
		{"none", "actual", OTelGrounded, "baseline", "1", "", "", ""},
		{"none", "actual", OTelCoverage, "baseline", "1", "", "", ""},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}
