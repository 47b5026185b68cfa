package extract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/store"
	"github.com/compactlab/compact/internal/testdb"
)

// TestDamagedChatSkipped: a chat whose rows lie on a damaged page is
// skipped with one warning naming it and its title, counted as skipped and
// unreadable; the chats after it are read from the same snapshot and
// their bundles are those of a clean run of the same chats, whatever the
// number of workers.
func TestDamagedChatSkipped(t *testing.T) {
	var chats []tChat
	var ids []string
	for i := 0; i < 8; i++ {
		rows := convo(12, 4, 9)
		for k := range rows {
			// About a page per row, so that the chat has pages of its own.
			rows[k].parts = textParts(fmt.Sprintf("chat %d row %d %s", i, k, strings.Repeat("lorem ipsum ", 300)))
		}
		id := fmt.Sprintf("id-%02d", i)
		chats = append(chats, tChat{id: id, title: fmt.Sprintf("Chat %d", i), lastAt: int64(100 - i), rows: rows})
		ids = append(ids, id)
	}
	clean := writeDB(t, chats...)
	damaged := testdb.DamagedCopy(t, clean)
	page, _ := testdb.ChatLeafPage(t, damaged, store.TableMessages, "agent_instance_id", "id-03")
	testdb.FlipPageByte(t, damaged, page, testdb.BTreeHeader(page))

	opts := testOptions(t, clean)
	opts.ChatIDs = slices.Delete(slices.Clone(ids), 3, 4)
	want := manifest(t, mustRun(t, opts).out)

	var firstSum []byte
	for _, workers := range []int{1, 2, 8} {
		opts := testOptions(t, damaged)
		opts.Workers = workers
		r := mustRun(t, opts)
		if got := manifest(t, r.out); !slices.Equal(got, want) {
			t.Errorf("workers=%d: the tree differs from a clean run of the other chats", workers)
		}
		wantWarn := []Warning{{ChatID: "id-03", ChatTitle: "Chat 3", Message: -1, Text: "its rows cannot be read: the database file is damaged (SQLITE_CORRUPT); skipped"}}
		if !slices.Equal(r.warnings, wantWarn) || !slices.Equal(r.sum.Warnings, wantWarn) {
			t.Errorf("workers=%d: warnings %+v, want %+v", workers, r.warnings, wantWarn)
		}
		if s := r.warnings[0].String(); s != `chat id-03 "Chat 3": its rows cannot be read: the database file is damaged (SQLITE_CORRUPT); skipped` {
			t.Errorf("warning %q", s)
		}
		if r.sum.Chats != 8 || r.sum.Extracted != 7 || r.sum.Skipped != 1 || r.sum.Unreadable != 1 || r.sum.Bundles != 14 {
			t.Errorf("workers=%d: summary %+v", workers, r.sum)
		}
		if c := r.sum.PerChat[3]; c.ID != "id-03" || c.Skipped != "its rows cannot be read: the database file is damaged (SQLITE_CORRUPT)" || c.Dir != "" {
			t.Errorf("workers=%d: per chat %+v", workers, c)
		}
		noStaging(t, opts.OutDir)
		r.sum.OutDir = ""
		sum, _ := json.Marshal(r.sum)
		if firstSum == nil {
			firstSum = sum
		} else if string(sum) != string(firstSum) {
			t.Errorf("workers=%d: summary differs:\n%s\n%s", workers, sum, firstSum)
		}
	}
}

// TestCleanRunHasNoUnreadable: the summary of a run without damage has
// no "unreadable" key, as before.
func TestCleanRunHasNoUnreadable(t *testing.T) {
	r := mustRun(t, testOptions(t, writeDB(t, tChat{id: "a", title: "A", lastAt: 1, rows: convo(8, 4)})))
	sum, _ := json.Marshal(r.sum)
	if strings.Contains(string(sum), "unreadable") || strings.Contains(string(sum), "chatTitle") {
		t.Errorf("summary %s", sum)
	}
}
