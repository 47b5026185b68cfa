package testdb

import (
	"database/sql"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Damaging a database file as a disk or a copy gone wrong would: the
// tests of a damaged page find, by walking the b-tree of a table in the
// file's bytes, a leaf page that holds only one chat's rows, and flip a
// byte of it.

// DamagedCopy copies the database at src to a new file in a temporary
// directory (src is never written) and returns the copy's path.
func DamagedCopy(t testing.TB, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "damaged.sqlite")
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// ChatLeafPage returns the number of a leaf page of table (agentMessages,
// or agentInstances with column "id") in the database at path that holds
// rows of the chat id and of no other chat, and how many such pages there
// are; it fails the test when there is none. Of several, it is the middle
// one, so that the chat's first and last pages (which may be shared with
// the chats beside it) are left alone. column is the column that holds the
// chat id (agent_instance_id, or id).
func ChatLeafPage(t testing.TB, path, table, column, id string) (page, pages int) {
	t.Helper()
	mine, leaves := chatLeaves(t, path, table, column, id)
	var only []int
	for _, leaf := range leaves {
		all := len(leaf.rowids) > 0
		for _, r := range leaf.rowids {
			all = all && mine[r]
		}
		if all {
			only = append(only, leaf.page)
		}
	}
	if len(only) == 0 {
		t.Fatalf("no leaf page of %s holds only rows of chat %s (make its rows larger)", table, id)
	}
	return only[len(only)/2], len(only)
}

// LeafPageHolding returns the number of the leaf page of table that holds
// the chat's first row (in rowid order), with the rows of other chats
// around it or not.
func LeafPageHolding(t testing.TB, path, table, column, id string) int {
	t.Helper()
	mine, leaves := chatLeaves(t, path, table, column, id)
	for _, leaf := range leaves {
		for _, r := range leaf.rowids {
			if mine[r] {
				return leaf.page
			}
		}
	}
	t.Fatalf("no leaf page of %s holds a row of chat %s", table, id)
	return 0
}

// chatLeaves returns the rowids of the chat's rows in table, and the
// table's leaf pages.
func chatLeaves(t testing.TB, path, table, column, id string) (map[int64]bool, []leaf) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var root int
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE type='table' AND name=?`, table).Scan(&root); err != nil {
		t.Fatalf("root page of %s: %v", table, err)
	}
	mine := map[int64]bool{}
	rows, err := db.Query(`SELECT rowid FROM `+table+` WHERE `+column+`=?`, id)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			t.Fatal(err)
		}
		mine[r] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	db.Close()
	if len(mine) == 0 {
		t.Fatalf("%s holds no row of chat %s", table, id)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return mine, leafPages(t, data, root)
}

// FlipPageByte flips every bit of the byte at offset off of page page (from
// 1) of the database file at path: at offset 0 of a b-tree page (100 on
// page 1) that is the page's type, which SQLite then finds damaged
// (SQLITE_CORRUPT) as soon as it reads the page.
func FlipPageByte(t testing.TB, path string, page, off int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var hdr [100]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		t.Fatal(err)
	}
	at := int64(page-1)*int64(pageSize(hdr[:])) + int64(off)
	var b [1]byte
	if _, err := f.ReadAt(b[:], at); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b[:], at); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// BTreeHeader is the offset of the b-tree page header in page page: 100
// on page 1 (after the file header), else 0.
func BTreeHeader(page int) int {
	if page == 1 {
		return 100
	}
	return 0
}

func pageSize(hdr []byte) int {
	n := int(binary.BigEndian.Uint16(hdr[16:18]))
	if n == 1 {
		return 65536
	}
	return n
}

type leaf struct {
	page   int
	rowids []int64
}

// leafPages walks the table b-tree rooted at root in the file's bytes and
// returns its leaf pages, in key order, with the rowids of their cells.
func leafPages(t testing.TB, data []byte, root int) []leaf {
	t.Helper()
	ps := pageSize(data)
	var out []leaf
	seen := map[int]bool{}
	var walk func(pg int)
	walk = func(pg int) {
		if pg < 1 || (pg-1)*ps >= len(data) || seen[pg] {
			t.Fatalf("b-tree walk: bad page %d", pg)
		}
		seen[pg] = true
		base := (pg - 1) * ps
		h := base + BTreeHeader(pg)
		ncell := int(binary.BigEndian.Uint16(data[h+3:]))
		switch data[h] {
		case 0x05: // interior table page: a left child per cell, then the right-most
			for i := range ncell {
				cell := base + int(binary.BigEndian.Uint16(data[h+12+2*i:]))
				walk(int(binary.BigEndian.Uint32(data[cell:])))
			}
			walk(int(binary.BigEndian.Uint32(data[h+8:])))
		case 0x0d: // leaf table page: payload size, rowid, payload
			l := leaf{page: pg}
			for i := range ncell {
				cell := base + int(binary.BigEndian.Uint16(data[h+8+2*i:]))
				_, n := varint(data[cell:])
				r, _ := varint(data[cell+n:])
				l.rowids = append(l.rowids, int64(r))
			}
			out = append(out, l)
		default:
			t.Fatalf("b-tree walk: page %d has type %#x, not a table page", pg, data[h])
		}
	}
	walk(root)
	return slices.Clip(out)
}

// varint decodes SQLite's variable-length integer at the start of b.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8; i++ {
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return v<<8 | uint64(b[8]), 9
}

// LastPage returns the number of the last page of the database file at
// path: where the overflow pages of the last big value written sit, in a
// file written in one go.
func LastPage(t testing.TB, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return len(data) / pageSize(data)
}
