package table

import (
	"github.com/compactlab/compact/internal/replay"
)

// ReplayWriter writes the replays table of one replay run.
type ReplayWriter struct {
	o    Options
	part string
	rows *part[ReplayRow]
}

// NewReplay opens the replays files of the writer o names.
func NewReplay(o Options) (*ReplayWriter, error) {
	p, err := newPart[ReplayRow](o, Replays)
	if err != nil {
		return nil, err
	}
	return &ReplayWriter{o: o, part: o.Part(), rows: p}, nil
}

// Close completes the file and renames it into place.
func (w *ReplayWriter) Close() ([]File, error) { return commitAll(w.rows) }

// Abort removes what was written.
func (w *ReplayWriter) Abort() { w.rows.abort() }

// Add writes the row of one item of replay.Run, whose run is run (the
// item's own for a repeat). Its figures are the record's,
// replays/<run>/replay.json: for a bundle skipped because it had an
// answer, what that answer cost when it was made. A bundle that could not
// be read or sent (status error) has no record: only the item's status
// and error.
func (w *ReplayWriter) Add(it replay.Item, run string) error {
	if it.Run != "" {
		run = it.Run
	}
	info := readBundleInfo(it.Bundle)
	row := ReplayRow{SchemaVersion: SchemaVersion, Part: w.part, Shard: w.o.Shard,
		Bundle: info.bundle, Chat: info.chat, ChatID: info.chatID, Compaction: info.compaction, Agent: info.agent,
		Run: run, Status: it.Status, Error: nonEmpty(it.Error),
		Model: nonEmpty(it.Model), InputTokens: it.Usage.InputTokens, OutputTokens: it.Usage.OutputTokens,
		CostUSD: it.CostUSD, LatencyMs: it.Latency, OutputChars: int64(it.Chars), OutputTruncated: it.Truncated,
	}
	row.RepeatOf, row.RepeatIndex = repeatOf(run)
	if it.Status != replay.StatusError {
		if rec, err := replay.ReadRecord(it.Bundle, run); err == nil {
			row.Models = joinModels(rec.Models)
			if rec.Model != nil {
				row.Model = ptr(*rec.Model)
			}
			row.Provider = nonEmpty(rec.Provider)
			row.Attempts = int32(len(rec.Attempts))
			row.InputTokens, row.OutputTokens = rec.Usage.InputTokens, rec.Usage.OutputTokens
			row.CachedInputTokens = rec.CachedInputTokens
			row.CostUSD, row.LatencyMs = rec.CostUSD, rec.LatencyMs
			row.CacheHit = cacheHit(rec.Attempts)
			row.OutputChars, row.OutputTruncated = int64(rec.OutputChars), rec.OutputTruncated
			row.Pack, row.PackSystemSHA256, row.UserSHA256 = nonEmpty(rec.Pack), nonEmpty(rec.SystemSha256), nonEmpty(rec.UserSha256)
			row.Temperature = rec.Temperature
			if row.Error == nil {
				row.Error = nonEmpty(rec.Error)
			}
			row.StartedAt, row.FinishedAt = nonEmpty(rec.StartedAt), nonEmpty(rec.FinishedAt)
			row.ToolVersion = nonEmpty(rec.ToolVersion)
		}
	}
	return w.rows.add(row)
}
