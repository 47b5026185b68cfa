package eval

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/bundle"
)

// The scores as OpenTelemetry events (compact eval --otel FILE), so that
// a trace viewer (Phoenix, Langfuse, Datadog, any OTLP backend) shows
// them beside the traces the bundles came from.
//
// Each score is one gen_ai.evaluation.result event, as the GenAI
// semantic conventions define it (open-telemetry/semantic-conventions
// v1.41.0, model/gen-ai/events.yaml, the last release that held the GenAI
// conventions; unchanged in open-telemetry/semantic-conventions-genai's
// model/gen-ai/events.yaml; status Development): gen_ai.evaluation.name
// (required), gen_ai.evaluation.score.value (a double) and
// gen_ai.evaluation.score.label (each "if applicable"),
// gen_ai.evaluation.explanation (recommended). The event "SHOULD be
// parented to the GenAI operation span being evaluated": a bundle read
// from traces names that span in its metadata (the model call that wrote
// the summary), and its events carry its trace and span id; other bundles'
// events carry gen_ai.conversation.id where it is known (the chat or
// session id) and no span.
//
// The file is OTLP JSON logs as opentelemetry-proto defines them (v1.8.0,
// docs/specification.md "JSON Protobuf Encoding"; LogRecord.event_name
// names the event): one ExportLogsServiceRequest per line, one line per
// bundle, which the collector's otlpjsonfile receiver reads. Trace and
// span ids are hex, as OTLP/JSON wants (not protobuf JSON's base64).

// OTelEvent is the name of the event each score is.
const OTelEvent = "gen_ai.evaluation.result"

// The evaluation names of compact's measures.
const (
	OTelGrounded = "compact.grounded"
	OTelCoverage = "compact.coverage"
	OTelJudged   = "compact.judged"
)

// The labels of a score (gen_ai.evaluation.score.label): the baseline's
// own, or how a briefing's score compares with the baseline's on the same
// bundle; a measure the bundle gives no score for is not_measurable.
const (
	LabelBaseline      = "baseline"
	LabelBetter        = "better"
	LabelWorse         = "worse"
	LabelSame          = "same"
	LabelNotMeasurable = "not_measurable"
)

// SemconvSchema is the schema URL of the semantic conventions the events
// follow.
const SemconvSchema = "https://opentelemetry.io/schemas/1.41.0"

// OTelOptions steer WriteOTel.
type OTelOptions struct {
	// Service and Version name the resource (service.name,
	// service.version): compact and its version.
	Service, Version string
	// Scope names the instrumentation scope (its version: Version).
	Scope string
	// Now is the events' time (zero: time.Now()).
	Now time.Time
}

// OTelSummary counts what WriteOTel wrote.
type OTelSummary struct {
	Events int `json:"events"`
	// Linked counts the events carrying a trace span, Conversations
	// those carrying only a conversation id.
	Linked        int `json:"linked"`
	Conversations int `json:"conversations"`
	// Lines counts the requests written (one per bundle with events).
	Lines int `json:"lines"`
}

// otlp* are the OTLP/JSON messages written, as the proto names them.
type otlpLogsRequest struct {
	ResourceLogs []otlpResourceLogs `json:"resourceLogs"`
}

type otlpResourceLogs struct {
	Resource  otlpResource    `json:"resource"`
	ScopeLogs []otlpScopeLogs `json:"scopeLogs"`
}

type otlpResource struct {
	Attributes []otlpKV `json:"attributes"`
}

type otlpScopeLogs struct {
	Scope      otlpScope       `json:"scope"`
	LogRecords []otlpLogRecord `json:"logRecords"`
	SchemaURL  string          `json:"schemaUrl,omitempty"`
}

type otlpScope struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type otlpLogRecord struct {
	TimeUnixNano         string   `json:"timeUnixNano"`
	ObservedTimeUnixNano string   `json:"observedTimeUnixNano"`
	SeverityNumber       int      `json:"severityNumber"`
	SeverityText         string   `json:"severityText"`
	EventName            string   `json:"eventName"`
	Attributes           []otlpKV `json:"attributes"`
	TraceID              string   `json:"traceId,omitempty"`
	SpanID               string   `json:"spanId,omitempty"`
}

type otlpKV struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

type otlpValue struct {
	String *string  `json:"stringValue,omitempty"`
	Double *float64 `json:"doubleValue,omitempty"`
	Int    string   `json:"intValue,omitempty"`
}

func strKV(k, v string) otlpKV     { return otlpKV{Key: k, Value: otlpValue{String: &v}} }
func intKV(k string, n int) otlpKV { return otlpKV{Key: k, Value: otlpValue{Int: strconv.Itoa(n)}} }
func dblKV(k string, x float64) otlpKV {
	return otlpKV{Key: k, Value: otlpValue{Double: &x}}
}

// severityInfo is SEVERITY_NUMBER_INFO.
const severityInfo = 9

// otelLink is what a bundle's metadata says of the trace it came from.
type otelLink struct {
	conversation string
	trace, span  string // hex, checked
	number       int    // compressionNumber
}

// linkOf reads the trace link and conversation id of the bundle in dir:
// a bundle read from traces gives its span (when its ids are OTLP's: 16
// and 8 bytes in hex, not all zero) and conversation id; another
// bundle its chat or session id as the conversation.
func linkOf(dir string) otelLink {
	md, err := bundle.ReadMetadata(dir)
	if err != nil {
		return otelLink{} // eval read the bundle; its events go without a link
	}
	l := otelLink{number: md.CompressionNumber}
	switch {
	case md.Agent == "otel":
		l.conversation = md.ConversationID
		if validID(md.TraceID, 16) && validID(md.SpanID, 8) {
			l.trace, l.span = strings.ToLower(md.TraceID), strings.ToLower(md.SpanID)
		}
	case md.ConversationID != "":
		l.conversation = md.ConversationID
	default:
		l.conversation = md.ChatID
	}
	return l
}

// validID reports whether s is n bytes in hex, not all zero (OTLP's
// invalid id).
func validID(s string, n int) bool {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != n {
		return false
	}
	for _, c := range b {
		if c != 0 {
			return true
		}
	}
	return false
}

// WriteOTel writes the report's scores as OTLP JSON log records, one
// request per bundle (see the comment at the top of this file): per
// bundle, briefing and measure one gen_ai.evaluation.result event (the
// grounded headline, coverage, and the judged score where the judge
// graded the briefing).
func (r *Report) WriteOTel(w io.Writer, opt OTelOptions) (OTelSummary, error) {
	var sum OTelSummary
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	ts := strconv.FormatInt(now.UnixNano(), 10)
	res := otlpResource{Attributes: []otlpKV{strKV("service.name", opt.Service)}}
	if opt.Version != "" {
		res.Attributes = append(res.Attributes, strKV("service.version", opt.Version))
	}
	for _, br := range r.Results {
		if br == nil || len(br.Briefings) == 0 {
			continue
		}
		link := linkOf(br.Bundle)
		base := br.Briefing(r.Baseline)
		var recs []otlpLogRecord
		for i := range br.Briefings {
			b := &br.Briefings[i]
			for _, ev := range scoreEvents(br, b, base, r.Target) {
				attrs := []otlpKV{strKV("gen_ai.evaluation.name", ev.name)}
				if ev.value != nil {
					attrs = append(attrs, dblKV("gen_ai.evaluation.score.value", *ev.value))
				}
				if ev.label != "" {
					attrs = append(attrs, strKV("gen_ai.evaluation.score.label", ev.label))
				}
				attrs = append(attrs, strKV("gen_ai.evaluation.explanation", ev.explanation))
				if link.conversation != "" {
					attrs = append(attrs, strKV("gen_ai.conversation.id", link.conversation))
				}
				attrs = append(attrs, strKV("compact.bundle", br.Bundle), strKV("compact.briefing", b.Name))
				if b.Replay != nil && b.Replay.Model != nil && *b.Replay.Model != "" {
					attrs = append(attrs, strKV("compact.briefing.model", *b.Replay.Model))
				}
				if link.number > 0 {
					attrs = append(attrs, intKV("compact.compression_number", link.number))
				}
				rec := otlpLogRecord{TimeUnixNano: ts, ObservedTimeUnixNano: ts, SeverityNumber: severityInfo, SeverityText: "INFO",
					EventName: OTelEvent, Attributes: attrs, TraceID: link.trace, SpanID: link.span}
				recs = append(recs, rec)
				sum.Events++
				switch {
				case link.span != "":
					sum.Linked++
				case link.conversation != "":
					sum.Conversations++
				}
			}
		}
		if len(recs) == 0 {
			continue
		}
		req := otlpLogsRequest{ResourceLogs: []otlpResourceLogs{{Resource: res, ScopeLogs: []otlpScopeLogs{{
			Scope: otlpScope{Name: opt.Scope, Version: opt.Version}, LogRecords: recs, SchemaURL: SemconvSchema,
		}}}}}
		line, err := json.Marshal(req)
		if err != nil {
			return sum, err
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return sum, err
		}
		sum.Lines++
	}
	return sum, nil
}

// scoreEvent is one score of one briefing.
type scoreEvent struct {
	name        string
	value       *float64
	label       string
	explanation string
}

// scoreEvents are the events of briefing b of bundle br, compared with
// the baseline's briefing base (nil when the bundle has none).
func scoreEvents(br *BundleResult, b, base *BriefingScore, target int) []scoreEvent {
	var out []scoreEvent
	label := func(v float64, baseV func(*BriefingScore) (float64, bool)) string {
		if base == nil {
			return ""
		}
		if base == b {
			return LabelBaseline
		}
		bv, ok := baseV(base)
		if !ok {
			return ""
		}
		switch d := v - bv; {
		case d > 1e-9:
			return LabelBetter
		case d < -1e-9:
			return LabelWorse
		}
		return LabelSame
	}
	// The grounded headline.
	g := scoreEvent{name: OTelGrounded}
	if v, ok := b.Headline(); ok {
		g.value = &v
		g.label = label(v, (*BriefingScore).Headline)
		gr := b.Grounded
		g.explanation = fmt.Sprintf("kept %d of %d grounded probes (what the session used next from the compacted part) within the %s-character target; %s characters", gr.Kept, gr.Probes, fmtThousands(target), fmtThousands(b.Chars))
		if gr.SizeCharge < 1 {
			g.explanation += fmt.Sprintf(", %.0f%% past the target (score × %.2f)", 100*gr.OverTarget, gr.SizeCharge)
		}
		g.explanation += lostText(br.Grounded, gr.Lost)
	} else {
		g.label = LabelNotMeasurable
		g.explanation = "not measurable: " + br.NotMeasurable
	}
	out = append(out, g)
	// Coverage.
	c := scoreEvent{name: OTelCoverage}
	if v, ok := b.Coverage(); ok {
		c.value = &v
		c.label = label(v, (*BriefingScore).Coverage)
		c.explanation = fmt.Sprintf("answered %d of %d coverage probes mined from the compacted history (%s)", b.Overall.Kept, b.Overall.Total, kindsText(b.Kinds)) + lostText(br.Probes, b.Lost)
	} else {
		c.label = LabelNotMeasurable
		c.explanation = "not measurable: the compacted history gave no coverage probe"
	}
	out = append(out, c)
	// The judge's grade.
	if j := b.Judged; j != nil {
		v := j.Score
		e := scoreEvent{name: OTelJudged, value: &v}
		e.label = label(v, func(s *BriefingScore) (float64, bool) {
			if s.Judged == nil {
				return 0, false
			}
			return s.Judged.Score, true
		})
		judge := "the judge"
		if br.Judge != nil && br.Judge.Judge != "" {
			judge = br.Judge.Judge
		}
		e.explanation = fmt.Sprintf("mean grade %.2f of 5 by %s over %d answers (%s)", v, judge, len(j.Answers), dimsText(j.Dimensions))
		out = append(out, e)
	}
	return out
}

// lostText names the first probes of probes lost (indexes), each cut to a
// short length: "; lost: file-used src/a.ts, name-used parseQuery, … 3 more".
func lostText(probes []Probe, lost []int) string {
	if len(lost) == 0 {
		return ""
	}
	const shown, maxRunes = 3, 80
	var parts []string
	for k, i := range lost {
		if k == shown {
			parts = append(parts, fmt.Sprintf("… %d more", len(lost)-shown))
			break
		}
		if i < 0 || i >= len(probes) {
			continue
		}
		p := &probes[i]
		s := strings.Join(strings.Fields(p.shown()), " ")
		if utf8.RuneCountInString(s) > maxRunes {
			s = string([]rune(s)[:maxRunes-1]) + "…"
		}
		parts = append(parts, string(p.Kind)+" "+s)
	}
	if len(parts) == 0 {
		return ""
	}
	return "; lost: " + strings.Join(parts, ", ")
}

// kindsText is "artifact 5/6, recall 7/9" in the kinds' order.
func kindsText(kinds map[Kind]Tally) string {
	var parts []string
	for _, k := range []Kind{KindArtifact, KindRecall, KindDecision, KindContinuation} {
		if t, ok := kinds[k]; ok && t.Total > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d", k, t.Kept, t.Total))
		}
	}
	return strings.Join(parts, ", ")
}

// dimsText is "accuracy 4.0, completeness 3.5" by name.
func dimsText(d map[string]float64) string {
	names := make([]string, 0, len(d))
	for n := range d {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		if v := d[n]; !math.IsNaN(v) {
			parts = append(parts, fmt.Sprintf("%s %.1f", n, v))
		}
	}
	return strings.Join(parts, ", ")
}

// fmtThousands writes n with comma thousands separators.
func fmtThousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + fmtThousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
