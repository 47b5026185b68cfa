package store

import (
	"context"
	"strconv"
)

// ChatStat is what a sample of chats reads of one chat without decoding
// it: its messages, and the compression points among them as the rows
// show them (a message whose metadata names compressedHistory).
type ChatStat struct {
	Messages    int
	Compactions int
}

// compressedKey is the metadata key of a stored briefing.
const compressedKey = "compressedHistory"

// ChatStats counts, in one pass over the snapshot, the messages and the
// compression points of every chat that has any: from the agentMessages
// rows, or with legacy from the history column (its message array's
// length, and how often the key occurs in it). It is an estimate for
// the strata of a sample, not extract's count: nothing is decoded, so a
// chat extract would skip is counted as it stands.
func (s *Snap) ChatStats(ctx context.Context, legacy bool) (map[string]ChatStat, error) {
	var q string
	if legacy {
		if !s.HasHistoryColumn() {
			return nil, &NoHistoryColumnError{Path: s.d.path, Version: s.schema.Version}
		}
		q = `SELECT id, CASE WHEN json_valid(history) THEN json_array_length(history, '$.json') ELSE 0 END, ` +
			`(length(history) - length(replace(history, '"` + compressedKey + `"', ''))) / ` + strconv.Itoa(len(compressedKey)+2) + ` FROM ` + TableInstances
	} else {
		if !s.HasMessagesTable() {
			return nil, &NoMessagesTableError{Path: s.d.path, Version: s.schema.Version}
		}
		points := "0"
		if hasColumn(s.schema, TableMessages, "metadata") {
			points = `sum(instr(metadata, '` + compressedKey + `') > 0)`
		}
		q = `SELECT agent_instance_id, count(*), ` + points + ` FROM ` + TableMessages + ` GROUP BY agent_instance_id`
	}
	out := map[string]ChatStat{}
	err := s.unmapped(ctx, func() error {
		return s.query(ctx, q, nil, func(st *stmt) error {
			id, _ := textOf(st, 0, nil)
			out[id] = ChatStat{Messages: int(integerOf(st, 1)), Compactions: int(integerOf(st, 2))}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
