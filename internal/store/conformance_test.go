package store

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const conformanceDir = "../../testdata/conformance"

// extracted is one "  ✓ <title> — N msgs, ..." line of an expected stdout.
type extracted struct {
	title string
	msgs  int
}

func readExpectedStdout(t *testing.T, path string) (found int, chats []extracted, ok bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, false
	}
	defer f.Close()
	found = -1
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "Found "); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(rest, " chats total"))
			if err != nil {
				t.Fatalf("%s: %q", path, line)
			}
			found = n
		}
		if rest, ok := strings.CutPrefix(line, "  ✓ "); ok {
			i := strings.LastIndex(rest, " — ")
			j := strings.Index(rest[i:], " msgs")
			n, err := strconv.Atoi(rest[i+len(" — ") : i+j])
			if err != nil {
				t.Fatalf("%s: %q", path, line)
			}
			chats = append(chats, extracted{rest[:i], n})
		}
	}
	return found, chats, true
}

// TestConformanceDatabases opens every corpus database (copied to a temp
// dir, the corpus stays untouched) and checks the chat order and message
// counts against the upstream console output of both modes: the extracted
// chats must appear, in order, as a subsequence of Chats, with the same
// number of messages.
func TestConformanceDatabases(t *testing.T) {
	dbs, _ := filepath.Glob(filepath.Join(conformanceDir, "*", "input", "instances.sqlite"))
	if len(dbs) == 0 {
		t.Skip("no conformance databases found under " + conformanceDir)
	}
	for _, src := range dbs {
		caseDir := filepath.Dir(filepath.Dir(src))
		name := filepath.Base(caseDir)
		t.Run(name, func(t *testing.T) {
			srcHash := fileHash(t, src)
			path := filepath.Join(t.TempDir(), "instances.sqlite")
			copyFile(t, src, path)
			d := openT(t, path)
			wantVersion := 9
			if strings.HasPrefix(name, "v14") {
				wantVersion = 14
			}
			if d.Version() != wantVersion || !d.HasMessagesTable() || !d.HasHistoryColumn() {
				t.Fatalf("version %d messages %v history %v", d.Version(), d.HasMessagesTable(), d.HasHistoryColumn())
			}
			s := snapT(t, d)
			chats, err := s.ChatsWithHistory(ctx)
			if err != nil {
				t.Fatal(err)
			}
			msgCount := map[string]int{}
			histCount := map[string]int{}
			for _, c := range chats {
				ms, err := s.Messages(ctx, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				for i, m := range ms {
					if m.Seq != int64(i) {
						t.Fatalf("%s: seq %d at %d", c.ID, m.Seq, i)
					}
				}
				msgCount[c.ID] = len(ms)
				var h struct {
					JSON json.RawMessage `json:"json"`
				}
				var arr []json.RawMessage
				if json.Unmarshal([]byte(c.History), &h) == nil && json.Unmarshal(h.JSON, &arr) == nil {
					histCount[c.ID] = len(arr)
				} else {
					histCount[c.ID] = -1
				}
			}
			for _, mode := range []string{"history", "messages"} {
				found, want, ok := readExpectedStdout(t, filepath.Join(caseDir, "expected", mode, "stdout.txt"))
				if !ok {
					continue
				}
				if found >= 0 && found != len(chats) {
					t.Errorf("%s: Found %d chats, we have %d", mode, found, len(chats))
				}
				k := 0
				for _, c := range chats {
					if k < len(want) && c.Title == want[k].title {
						n := msgCount[c.ID]
						if mode == "history" {
							n = histCount[c.ID]
						}
						if n != want[k].msgs {
							t.Errorf("%s: %q has %d messages, upstream %d", mode, c.Title, n, want[k].msgs)
						}
						k++
					}
				}
				t.Logf("%s: %d upstream chats matched", mode, k)
				if k != len(want) {
					t.Errorf("%s: upstream chat %d (%q) not found in order; ours: %v", mode, k, want[k].title, chatTitles(chats))
				}
			}
			s.Close()
			d.Close()
			if fileHash(t, src) != srcHash {
				t.Fatal("corpus file changed")
			}
		})
	}
}

func chatTitles(cs []Chat) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Title)
	}
	return out
}
