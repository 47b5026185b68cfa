package store

import (
	"context"
	"strings"
)

// BlobColumns returns the agentInstances rows whose id, title or (where
// the column exists) history is stored as a BLOB rather than TEXT, keyed
// by the id's bytes, each with the names of those columns. Such a row ends
// the upstream extraction script before it writes anything: its query
// runs through sqlite3's json_object, which fails on a BLOB ("JSON cannot
// hold BLOB values"). compact reads the bytes as text (see textOf) and
// warns. It reads only the rows' record headers (typeof loads no
// overflow page), one pass over the table.
func (s *Snap) BlobColumns(ctx context.Context) (map[string][]string, error) {
	cols := []string{"id", "title"}
	if s.HasHistoryColumn() {
		cols = append(cols, "history")
	}
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = "typeof(" + c + ")='blob'"
	}
	q := "SELECT id, " + strings.Join(sel, ", ") + " FROM " + TableInstances + " WHERE " + strings.Join(sel, " OR ")
	out := map[string][]string{}
	err := s.unmapped(ctx, func() error {
		return s.query(ctx, q, nil, func(st *stmt) error {
			id, _ := textOf(st, 0, nil)
			for i, c := range cols {
				if st.integer(i+1) != 0 {
					out[id] = append(out[id], c)
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
