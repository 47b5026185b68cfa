package cmd

import (
	"bufio"
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/bundle"

	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	logsv1 "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// otelEvent is one log record of eval --otel's file, decoded.
type otelEvent struct {
	name            string
	traceID, spanID string // hex, as written
	attrs           map[string]string
	value           *float64
}

// readEvalOTel decodes the file eval --otel wrote with the generated
// types of opentelemetry-proto (go.opentelemetry.io/proto/otlp) through
// protojson, unknown fields refused: each line must be one LogsData (the
// shape of ExportLogsServiceRequest). OTLP/JSON writes trace and span ids
// in hex where protobuf JSON has base64: protojson reads the hex as
// base64, so the id is the base64 of the bytes it decoded, and the test
// checks that it is 32 (or 16) hex digits.
func readEvalOTel(t *testing.T, path string) (lines int, resource map[string]string, events []otelEvent) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines++
		var ld logsv1.LogsData
		if err := (protojson.UnmarshalOptions{}).Unmarshal(sc.Bytes(), &ld); err != nil {
			t.Fatalf("line %d is not OTLP JSON logs: %v\n%s", lines, err, sc.Text())
		}
		for _, rl := range ld.ResourceLogs {
			resource = map[string]string{}
			for _, kv := range rl.GetResource().GetAttributes() {
				resource[kv.Key] = kv.Value.GetStringValue()
			}
			for _, sl := range rl.ScopeLogs {
				for _, lr := range sl.LogRecords {
					e := otelEvent{name: lr.EventName, attrs: map[string]string{}}
					if len(lr.TraceId) > 0 {
						e.traceID, e.spanID = base64.StdEncoding.EncodeToString(lr.TraceId), base64.StdEncoding.EncodeToString(lr.SpanId)
						if !isHex(e.traceID, 32) || !isHex(e.spanID, 16) {
							t.Errorf("line %d: ids %q, %q are not OTLP's hex", lines, e.traceID, e.spanID)
						}
					}
					if lr.TimeUnixNano == 0 || lr.SeverityNumber != logsv1.SeverityNumber_SEVERITY_NUMBER_INFO {
						t.Errorf("line %d: time %d, severity %v", lines, lr.TimeUnixNano, lr.SeverityNumber)
					}
					for _, kv := range lr.Attributes {
						switch v := kv.Value.Value.(type) {
						case *commonv1.AnyValue_StringValue:
							e.attrs[kv.Key] = v.StringValue
						case *commonv1.AnyValue_IntValue:
							e.attrs[kv.Key] = strconv.FormatInt(v.IntValue, 10)
						case *commonv1.AnyValue_DoubleValue:
							x := v.DoubleValue
							if kv.Key == "gen_ai.evaluation.score.value" {
								e.value = &x
							}
						default:
							t.Errorf("line %d: attribute %s of type %T", lines, kv.Key, v)
						}
					}
					events = append(events, e)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, resource, events
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// TestEvalOTelLinksTheCompactionSpan is the path end to end: extract
// --from otel, replay with the built-in model, eval --otel; every event is
// a gen_ai.evaluation.result whose trace and span are those of the model
// call that wrote the bundle's summary (the first compaction: the first
// call of the compacted view, which carries the compaction part; the
// second: the compaction call before the compacted view), with the
// conversation id, one per bundle, briefing and measure.
func TestEvalOTelLinksTheCompactionSpan(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b")
	genai := filepath.Join(agentsTestdata, "otel", "genai-compaction.jsonl")
	if code, _, errOut := runIn(t, nil, "extract", "--from", "otel", genai, "--out", out); code != 0 {
		t.Fatalf("extract: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", out); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	events := filepath.Join(dir, "events.jsonl")
	code, stdout, errOut := runIn(t, nil, "eval", out, "--otel", events)
	if code != 0 || !strings.Contains(stdout, "2 bundles") || !strings.HasSuffix(errOut, "compact eval: wrote 8 evaluation events (8 linked to their trace span) to "+events+"\n") {
		t.Fatalf("eval: exit %d\n%s%s", code, stdout, errOut)
	}
	lines, res, evs := readEvalOTel(t, events)
	if lines != 2 || res["service.name"] != "compact" || res["service.version"] == "" {
		t.Errorf("%d lines, resource %v", lines, res)
	}
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	span := map[string]string{"1": "c000000000000007", "2": "c000000000000011"}
	seen := map[string]bool{}
	for _, e := range evs {
		n := e.attrs["compact.compression_number"]
		key := n + "/" + e.attrs["compact.briefing"] + "/" + e.attrs["gen_ai.evaluation.name"]
		seen[key] = true
		if e.name != "gen_ai.evaluation.result" || e.traceID != trace || e.spanID != span[n] ||
			e.attrs["gen_ai.conversation.id"] != "conv_shop_7f3a" || e.attrs["gen_ai.evaluation.explanation"] == "" {
			t.Errorf("%s: event %s, trace %s span %s, attributes %v", key, e.name, e.traceID, e.spanID, e.attrs)
		}
		label := e.attrs["gen_ai.evaluation.score.label"]
		switch e.attrs["compact.briefing"] {
		case "actual":
			if label != "baseline" {
				t.Errorf("%s: label %q, want baseline", key, label)
			}
		case "builtin":
			if label != "better" && label != "worse" && label != "same" {
				t.Errorf("%s: label %q", key, label)
			}
		}
		if e.value == nil || *e.value < 0 || *e.value > 1 {
			t.Errorf("%s: score %v", key, e.value)
		}
	}
	if len(evs) != 8 || len(seen) != 8 {
		t.Errorf("%d events, %d distinct: %v", len(evs), len(seen), seen)
	}
	// Nothing left beside it but the file.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "b" && e.Name() != "events.jsonl" {
			t.Errorf("left beside the file: %s", e.Name())
		}
	}
}

// TestEvalOTelWithoutATrace: bundles of a stagewise database get events
// with no span, their chat id as the conversation; a bundle that is not
// measurable by the headline says so in the label, without a value.
func TestEvalOTelWithoutATrace(t *testing.T) {
	root := evalSample(t)
	events := filepath.Join(t.TempDir(), "ev.jsonl")
	if err := os.WriteFile(events, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := diffRun(t, nil, "eval", root, "--otel", events)
	if code != 0 || !strings.Contains(errOut, "(0 linked to their trace span, 28 to their conversation)") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines, _, evs := readEvalOTel(t, events)
	if lines != 7 || len(evs) != 28 {
		t.Errorf("%d lines, %d events", lines, len(evs))
	}
	for _, e := range evs {
		md, err := bundle.ReadMetadata(e.attrs["compact.bundle"])
		if err != nil || e.traceID != "" || e.attrs["gen_ai.conversation.id"] != md.ChatID || md.ChatID == "" {
			t.Errorf("event %v, trace %q", e.attrs, e.traceID)
		}
		if e.attrs["gen_ai.evaluation.score.label"] == "not_measurable" && (e.value != nil || !strings.HasPrefix(e.attrs["gen_ai.evaluation.explanation"], "not measurable: ")) {
			t.Errorf("not measurable with a value: %v", e.attrs)
		}
	}
}

// TestEvalOTelUsage: --otel names a file in a directory that exists; not
// stdout, not a directory, not with --validate.
func TestEvalOTelUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--otel", "-"}, "eval: --otel writes a file the collector's otlpjsonfile receiver reads: name one (stdout holds the report)"},
		{[]string{"--otel", dir}, "eval: --otel " + dir + " is a directory; name a file, e.g. " + filepath.Join(dir, "eval-events.jsonl")},
		{[]string{"--otel", filepath.Join(dir, "no", "ev.jsonl")}, "no directory " + filepath.Join(dir, "no")},
		{[]string{"--otel", filepath.Join(dir, "ev.jsonl"), "--validate"}, "if any flags in the group [otel validate] are set none of the others can be"},
	} {
		code, stdout, errOut := runIn(t, nil, append([]string{"eval", dir}, tc.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d\n%s%s", tc.args, code, stdout, errOut)
		}
	}
}
