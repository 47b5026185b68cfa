// Command readrows reads every message row of a stagewise database the way
// `compact extract` does (one read transaction, the chats in order, one
// query per chat, through the same store package and pure-Go SQLite, the
// texts copied into memory used again chat after chat) and does nothing
// else with them. bench/extract.sh times it beside native sqlite3, to show
// how much of extract's time is the reading alone.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compactlab/compact/internal/store"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: readrows DB")
		os.Exit(2)
	}
	rows, bytes, err := read(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "readrows:", err)
		os.Exit(1)
	}
	fmt.Printf("%d rows, %d bytes of parts and metadata\n", rows, bytes)
}

func read(path string) (rows, bytes int64, err error) {
	ctx := context.Background()
	d, err := store.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer d.Close()
	s, err := d.Snapshot(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	chats, err := s.Chats(ctx)
	if err != nil {
		return 0, 0, err
	}
	var text store.Text
	for _, c := range chats {
		ms, err := s.MessagesIn(ctx, c.ID, &text)
		if err != nil {
			return 0, 0, err
		}
		for _, m := range ms {
			rows++
			bytes += int64(len(m.Parts) + len(m.Metadata))
		}
	}
	return rows, bytes, nil
}
