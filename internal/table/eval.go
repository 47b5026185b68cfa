package table

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/replay"
)

// Briefing kinds: the app's own briefing, or a replay run's.
const (
	KindActual = "actual"
	KindReplay = "replay"
)

// Measures of a probe row.
const (
	MeasureGrounded = "grounded"
	MeasureCoverage = "coverage"
)

// Verdicts of a briefing against the baseline's grounded score in the
// same bundle.
const (
	VerdictBetter = "better"
	VerdictWorse  = "worse"
	VerdictTie    = "tie"
)

// EvalOptions are what eval scored with.
type EvalOptions struct {
	// Baseline is the briefing the others are compared with (the
	// report's: actual unless --baseline).
	Baseline string
	// Target is the size target of the grounded score, in UTF-16 units
	// (prompt.DefaultTargetChars when 0).
	Target int
}

// EvalWriter writes the probes and briefings tables of one eval, a bundle
// at a time.
type EvalWriter struct {
	o         Options
	eo        EvalOptions
	part      string
	probes    *part[ProbeRow]
	briefings *part[BriefingRow]
}

// NewEval opens the probes and briefings files of the writer o names.
func NewEval(o Options, eo EvalOptions) (*EvalWriter, error) {
	if eo.Target <= 0 {
		eo.Target = prompt.DefaultTargetChars
	}
	pr, err := newPart[ProbeRow](o, Probes)
	if err != nil {
		return nil, err
	}
	br, err := newPart[BriefingRow](o, Briefings)
	if err != nil {
		pr.abort()
		return nil, err
	}
	return &EvalWriter{o: o, eo: eo, part: o.Part(), probes: pr, briefings: br}, nil
}

// Close completes the files and renames them into place.
func (w *EvalWriter) Close() ([]File, error) { return commitAll(w.probes, w.briefings) }

// Abort removes what was written.
func (w *EvalWriter) Abort() {
	w.probes.abort()
	w.briefings.abort()
}

// bundleInfo is what every row of a bundle says about it.
type bundleInfo struct {
	bundle, chat, chatID, agent string
	compaction                  int32
	model                       string // an agent's bundle: the session's model
}

// readBundleInfo reads the bundle's metadata.json for its chat, number
// and agent; what it cannot read is left empty (the directory names
// still give the chat and the number).
func readBundleInfo(dir string) bundleInfo {
	b := bundleInfo{bundle: dir, chat: filepath.Base(filepath.Dir(dir)), agent: "stagewise",
		compaction: int32(bundle.CompressionOf(filepath.Base(dir)))}
	data, err := fsutil.ReadFileLimit(filepath.Join(dir, bundle.FileMetadata), bundle.MaxRecordBytes)
	if err != nil {
		return b
	}
	var md struct {
		ChatID            string `json:"chatId"`
		CompressionNumber int    `json:"compressionNumber"`
		Agent             string `json:"agent"`
		Model             string `json:"model"`
	}
	if json.Unmarshal(data, &md) != nil {
		return b
	}
	b.chatID, b.model = md.ChatID, md.Model
	if md.CompressionNumber > 0 {
		b.compaction = int32(md.CompressionNumber)
	}
	if md.Agent != "" {
		b.agent = md.Agent
	}
	return b
}

// Add writes the rows of one bundle: a briefings row per briefing, a
// probes row per briefing and probe (grounded and coverage).
func (w *EvalWriter) Add(r *eval.BundleResult) error {
	info := readBundleInfo(r.Bundle)
	base := r.Briefing(w.eo.Baseline)
	for i := range r.Briefings {
		b := &r.Briefings[i]
		row := w.briefingRow(info, r, b, base)
		if err := w.briefings.add(row); err != nil {
			return err
		}
		pr := ProbeRow{SchemaVersion: SchemaVersion, Part: w.part, Shard: w.o.Shard,
			Bundle: info.bundle, Chat: info.chat, ChatID: info.chatID, Compaction: info.compaction, Agent: info.agent,
			Run: row.Run, BriefingKind: row.BriefingKind, RepeatOf: row.RepeatOf, RepeatIndex: row.RepeatIndex}
		if b.Grounded != nil {
			pr.Measure, pr.How = MeasureGrounded, ""
			for k := range r.Grounded {
				p := &r.Grounded[k]
				fillProbe(&pr, k, p)
				pr.Kept = b.Grounded.Answered(k)
				if err := w.probes.add(pr); err != nil {
					return err
				}
			}
		}
		pr.Measure = MeasureCoverage
		for k := range r.Probes {
			p := &r.Probes[k]
			fillProbe(&pr, k, p)
			pr.Kept, pr.How = false, ""
			if k < len(b.Answers) {
				pr.Kept, pr.How = b.Answers[k].Present, b.Answers[k].How
			}
			if err := w.probes.add(pr); err != nil {
				return err
			}
		}
	}
	return nil
}

func fillProbe(pr *ProbeRow, k int, p *eval.Probe) {
	pr.ProbeIndex, pr.ProbeID, pr.ProbeKind, pr.ProbeMatch = int32(k), p.ID, string(p.Kind), p.Match
	pr.ProbeSource, pr.ProbeMessage, pr.ProbeQuestion = p.Source.From, int32(p.Source.Message), p.Question
	pr.ProbeAnswer = ""
	if len(p.Expected) > 0 {
		pr.ProbeAnswer = p.Expected[0]
	}
}

func (w *EvalWriter) briefingRow(info bundleInfo, r *eval.BundleResult, b, base *eval.BriefingScore) BriefingRow {
	row := BriefingRow{SchemaVersion: SchemaVersion, Part: w.part, Shard: w.o.Shard,
		Bundle: info.bundle, Chat: info.chat, ChatID: info.chatID, Compaction: info.compaction, Agent: info.agent,
		Run: b.Name, BriefingKind: KindReplay, RepeatOf: b.Name, RepeatIndex: 1,
		Chars: int64(b.Chars), TokensEstimate: int64(math.Ceil(float64(b.Chars) / 4)), Target: int64(w.eo.Target), OverTarget: b.OverTarget,
		CoverageProbes: int32(b.Overall.Total), CoverageKept: int32(b.Overall.Kept),
		ReReads: int32(len(r.ReReads)), ReReadNamed: int32(b.ReReadNamed), Baseline: w.eo.Baseline,
	}
	if b.Name == eval.Actual {
		row.BriefingKind = KindActual
		if info.model != "" {
			row.Model = ptr(info.model)
		}
	} else {
		row.RepeatOf, row.RepeatIndex = repeatOf(b.Name)
	}
	if g := b.Grounded; g != nil {
		row.Grounded, row.GroundedRecall, row.SizeCharge = ptr(g.Score), ptr(g.Recall), ptr(g.SizeCharge)
		row.GroundedProbes, row.GroundedKept = int32(g.Probes), int32(g.Kept)
	}
	if v, ok := b.Coverage(); ok {
		row.Coverage = ptr(v)
	}
	if b.Judged != nil {
		row.Judged = ptr(b.Judged.Score)
	}
	if base != nil && b != base {
		h, ok := b.Headline()
		bh, bok := base.Headline()
		if ok && bok {
			switch {
			case h > bh+1e-12:
				row.Verdict = ptr(VerdictBetter)
			case h < bh-1e-12:
				row.Verdict = ptr(VerdictWorse)
			default:
				row.Verdict = ptr(VerdictTie)
			}
		}
	}
	if b.Replay != nil && b.Replay.Model != nil {
		row.Model = ptr(*b.Replay.Model)
	}
	if row.BriefingKind == KindReplay {
		if rec, err := replay.ReadRecord(r.Bundle, b.Name); err == nil {
			fillFromRecord(&row, rec)
		}
	}
	return row
}

// fillFromRecord fills what a replay record says of the briefing it
// wrote.
func fillFromRecord(row *BriefingRow, rec *replay.Record) {
	if rec.Model != nil {
		row.Model = ptr(*rec.Model)
	}
	row.Provider = nonEmpty(rec.Provider)
	row.Pack = nonEmpty(rec.Pack)
	row.PackSystemSHA256 = nonEmpty(rec.SystemSha256)
	row.InputTokens, row.OutputTokens = ptr(rec.Usage.InputTokens), ptr(rec.Usage.OutputTokens)
	row.CachedInputTokens = ptr(rec.CachedInputTokens)
	row.CostUSD, row.LatencyMs = ptr(rec.CostUSD), ptr(rec.LatencyMs)
	row.CacheHit = ptr(cacheHit(rec.Attempts))
	row.ReplayedAt = nonEmpty(rec.StartedAt)
	row.ToolVersion = nonEmpty(rec.ToolVersion)
}

// cacheHit reports whether the attempt that answered came from the
// response cache.
func cacheHit(attempts []cascade.Attempt) bool {
	for _, a := range attempts {
		if a.Outcome == cascade.OutcomeOK {
			return a.Cached
		}
	}
	return false
}

// repeatOf splits a run name RUN@I into RUN and I (1 for a plain run).
func repeatOf(run string) (string, int32) {
	base, i := replay.RepeatOf(run)
	return base, int32(i)
}

func ptr[T any](v T) *T { return &v }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// charsOf is a text's size in UTF-16 units, as eval counts it.
func charsOf(s string) int64 { return int64(history.Len16(s)) }

// joinModels is a record's list of models tried, comma-separated.
func joinModels(models []string) string { return strings.Join(models, ",") }
