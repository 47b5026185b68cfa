package boundary

import "github.com/compactlab/compact/internal/history"

// EntriesOf reads what WalkEntries needs of each message: whether the
// history entry is falsy, and whether its id is.
func EntriesOf(msgs []history.Value) Entries {
	e := Entries{Absent: make([]bool, len(msgs)), NoID: make([]bool, len(msgs))}
	for i, m := range msgs {
		e.Absent[i] = !m.Truthy()
		e.NoID[i] = e.Absent[i] || !m.Get("id").Truthy()
	}
	return e
}
