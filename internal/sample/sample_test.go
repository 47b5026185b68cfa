package sample

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/store"
)

var ctx = context.Background()

// sj is a decoded superjson column.
type sj struct {
	JSON json.RawMessage `json:"json"`
	Meta *struct {
		Values map[string][]string `json:"values"`
		V      int                 `json:"v"`
	} `json:"meta"`
}

// parseSJ checks that text is valid JSON with the superjson envelope the
// app writes, and that every meta path points at an ISO date string.
func parseSJ(t *testing.T, what, text string) sj {
	t.Helper()
	var s sj
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("%s: invalid superjson %v: %.200s", what, err, text)
	}
	if s.JSON == nil {
		t.Fatalf("%s: no json key", what)
	}
	if s.Meta != nil {
		if s.Meta.V != 1 || len(s.Meta.Values) == 0 {
			t.Fatalf("%s: bad meta %+v", what, s.Meta)
		}
		var root any
		if err := json.Unmarshal(s.JSON, &root); err != nil {
			t.Fatal(err)
		}
		for path, ann := range s.Meta.Values {
			if !slices.Equal(ann, []string{"Date"}) {
				t.Fatalf("%s: annotation %v", what, ann)
			}
			v := root
			for _, seg := range strings.Split(path, ".") {
				switch x := v.(type) {
				case map[string]any:
					v = x[seg]
				case []any:
					i, err := strconv.Atoi(seg)
					if err != nil || i >= len(x) {
						t.Fatalf("%s: bad path %s", what, path)
					}
					v = x[i]
				default:
					t.Fatalf("%s: bad path %s", what, path)
				}
			}
			str, ok := v.(string)
			if !ok {
				t.Fatalf("%s: %s is not a string", what, path)
			}
			if _, err := time.Parse("2006-01-02T15:04:05.000Z", str); err != nil {
				t.Fatalf("%s: %s = %q: %v", what, path, str, err)
			}
		}
	}
	return s
}

func writeSample(t *testing.T, opts Options) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "instances.sqlite")
	if err := Write(p, opts); err != nil {
		t.Fatal(err)
	}
	return p
}

type chatInfo struct {
	store.Chat
	rows    []store.MessageRow
	points  []int
	summary map[int]string
}

// readAll reads every chat and validates every JSON column.
func readAll(t *testing.T, path string) (*store.DB, []chatInfo) {
	t.Helper()
	d, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	s, err := d.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	chats, err := s.ChatsWithHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []chatInfo
	for _, c := range chats {
		ci := chatInfo{Chat: c, summary: map[int]string{}}
		ci.rows, err = s.Messages(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		parseSJ(t, c.ID+" history", c.History)
		for i, m := range ci.rows {
			if m.Seq != int64(i) || m.MetadataNull || m.PartsNull {
				t.Fatalf("%s row %d: %+v", c.ID, i, m)
			}
			want := "user"
			if i%2 == 1 {
				want = "assistant"
			}
			if m.Role != want {
				t.Fatalf("%s row %d: role %s", c.ID, i, m.Role)
			}
			p := parseSJ(t, c.ID+" parts", m.Parts)
			if p.Meta != nil {
				t.Fatalf("%s row %d: parts carry a meta", c.ID, i)
			}
			md := parseSJ(t, c.ID+" metadata", m.Metadata)
			var meta map[string]any
			if err := json.Unmarshal(md.JSON, &meta); err != nil {
				t.Fatal(err)
			}
			if _, ok := meta["createdAt"]; !ok || md.Meta == nil || md.Meta.Values["createdAt"] == nil {
				t.Fatalf("%s row %d: no createdAt Date", c.ID, i)
			}
			if ch, ok := meta["compressedHistory"]; ok {
				ci.points = append(ci.points, i)
				ci.summary[i] = ch.(string)
			}
		}
		out = append(out, ci)
	}
	return d, out
}

var currentState = regexp.MustCompile(`\n\n## Current working state\n\nYou last [^\n]+\. Next, [^\n]+\.$`)

func checkBriefing(t *testing.T, what, b string) {
	t.Helper()
	if !strings.HasPrefix(b, "## ") || !strings.Contains(b, "[](path:w1a2/") || !currentState.MatchString(b) ||
		strings.Count(b, "## Current working state") != 1 {
		t.Errorf("%s: not a briefing:\n%s", what, b)
	}
	if strings.Contains(b, "<") && strings.Contains(b, "<previous-chat-history>") {
		t.Errorf("%s: tag leak", what)
	}
	if strings.Contains(b, "´") {
		t.Errorf("%s: unconverted backtick marker", what)
	}
}

func TestShippedSample(t *testing.T) {
	path := writeSample(t, Options{})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() >= 2<<20 {
		t.Fatalf("sample is %d bytes, want < 2 MB", fi.Size())
	}
	d, chats := readAll(t, path)
	if d.Version() != 9 || !d.HasMessagesTable() || !d.HasHistoryColumn() {
		t.Fatalf("version %d", d.Version())
	}
	cols := d.Columns("agentInstances")
	wantCols := []string{"id", "parent_agent_instance_id", "type", "instance_config", "created_at", "last_message_at",
		"active_model_id", "title", "title_locked_by_user", "history", "queued_messages", "input_state", "used_tokens",
		"mounted_workspaces", "tool_approval_mode"}
	if !slices.Equal(cols, wantCols) {
		t.Fatalf("columns %v", cols)
	}

	type want struct {
		title   string
		msgs    int
		points  []int
		history bool
	}
	wants := []want{
		{"Paginate the recipe list (server-side)", 36, []int{12, 23}, false},
		{"Set up Playwright e2e tests", 16, nil, true},
		{"Add dark mode with a header toggle", 62, []int{14, 26, 38, 48}, true},
		{"Find theme reads in localStorage", 8, nil, true},
		{"Rename useFavs → useFavorites", 4, nil, true},
		{"Fix Button color (v2)!", 16, []int{4}, true},
	}
	if len(chats) != len(wants) {
		t.Fatalf("%d chats", len(chats))
	}
	byTitle := map[string]chatInfo{}
	for i, w := range wants {
		c := chats[i]
		byTitle[c.Title] = c
		if c.Title != w.title || len(c.rows) != w.msgs || !slices.Equal(c.points, w.points) || c.Type != "chat" {
			t.Errorf("chat %d: %q %d msgs points %v, want %+v", i, c.Title, len(c.rows), c.points, w)
		}
		if i > 0 && c.LastMessageAt > chats[i-1].LastMessageAt {
			t.Errorf("order")
		}
		if !w.history {
			if c.History != `{"json":[]}` {
				t.Errorf("%s: history should be stale", c.Title)
			}
			continue
		}
		checkHistoryAgrees(t, c)
	}
	child := byTitle["Find theme reads in localStorage"]
	if child.ParentID != byTitle["Add dark mode with a header toggle"].ID {
		t.Errorf("child agent parent %q", child.ParentID)
	}
	for _, c := range chats {
		if c.Title != child.Title && c.ParentID != "" {
			t.Errorf("%s has a parent", c.Title)
		}
		// every compression point in a chain extends the previous briefing
		prev := ""
		for _, b := range c.points {
			s := c.summary[b]
			checkBriefing(t, c.Title+" #"+strconv.Itoa(b), s)
			if prev != "" {
				head := prev[:strings.LastIndex(prev, "\n\n## Current working state")]
				if !strings.HasPrefix(s, head) || len(s) <= len(prev) {
					t.Errorf("%s: briefing at %d does not extend the previous one", c.Title, b)
				}
			}
			prev = s
		}
	}
	// Content the serializer must meet: every tool kind of spec section 9
	// that the sample promises, slash links, attachments, mentions.
	all := &strings.Builder{}
	for _, c := range chats {
		for _, m := range c.rows {
			all.WriteString(m.Parts)
			all.WriteString(m.Metadata)
		}
	}
	for _, s := range []string{`"tool-read"`, `"tool-multiEdit"`, `"tool-write"`, `"File created successfully"`, `"File written successfully"`,
		`"tool-copy"`, `"move":true`, `"tool-delete"`, `"tool-createShellSession"`, `"tool-executeShellCommand"`, `"exit_code":1`,
		`"exit_code":2`, `"timed_out":true`, `"output-denied"`, `"tool-getLintingDiagnostics"`, `"totalIssues":0`, `"tool-grepSearch"`,
		`"include_file_pattern"`, `"tool-glob"`, `"tool-askUserQuestions"`, `"cancelReason"`, `"tool-listLibraryDocs"`,
		`"tool-searchInLibraryDocs"`, `"tool-readConsoleLogs"`, `"step-start"`, `"reasoning"`, `"attachments"`, `"originalFileName"`,
		`"providerType":"file"`, `"providerType":"tab"`, `"providerType":"workspace"`, `](slash:command:implement)`} {
		if !strings.Contains(all.String(), s) {
			t.Errorf("sample lacks %s", s)
		}
	}
}

// checkHistoryAgrees compares the deprecated history copy with the rows.
func checkHistoryAgrees(t *testing.T, c chatInfo) {
	t.Helper()
	h := parseSJ(t, c.Title, c.History)
	var arr []struct {
		ID       string          `json:"id"`
		Role     string          `json:"role"`
		Parts    json.RawMessage `json:"parts"`
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(h.JSON, &arr); err != nil {
		t.Fatal(err)
	}
	if len(arr) != len(c.rows) {
		t.Fatalf("%s: history has %d messages, rows %d", c.Title, len(arr), len(c.rows))
	}
	histPaths := map[string]bool{}
	if h.Meta != nil {
		for p := range h.Meta.Values {
			histPaths[p] = true
		}
	}
	n := 0
	for i, m := range c.rows {
		parts := parseSJ(t, "parts", m.Parts)
		meta := parseSJ(t, "metadata", m.Metadata)
		if arr[i].ID != m.ID || arr[i].Role != m.Role || !bytes.Equal(arr[i].Parts, parts.JSON) || !bytes.Equal(arr[i].Metadata, meta.JSON) {
			t.Fatalf("%s: message %d differs between history and rows", c.Title, i)
		}
		if meta.Meta != nil {
			for p := range meta.Meta.Values {
				if !histPaths[strconv.Itoa(i)+".metadata."+p] {
					t.Fatalf("%s: history meta lacks %d.metadata.%s", c.Title, i, p)
				}
				n++
			}
		}
	}
	if n != len(histPaths) {
		t.Fatalf("%s: history meta has %d paths, rows %d", c.Title, len(histPaths), n)
	}
}

func TestDeterministic(t *testing.T) {
	for _, opts := range []Options{{}, {Chats: 3, MessagesPerChat: 60, Seed: 42}, {SchemaVersion: 14}} {
		a := writeSample(t, opts)
		b := writeSample(t, opts)
		ba, _ := os.ReadFile(a)
		bb, _ := os.ReadFile(b)
		if !bytes.Equal(ba, bb) {
			t.Errorf("%+v: two writes differ", opts)
		}
	}
	// A different seed gives different ids.
	a, _ := os.ReadFile(writeSample(t, Options{Seed: 1}))
	b, _ := os.ReadFile(writeSample(t, Options{Seed: 2}))
	if bytes.Equal(a, b) {
		t.Error("seed has no effect")
	}
}

func TestGenerated(t *testing.T) {
	path := writeSample(t, Options{Chats: 6, MessagesPerChat: 130, Seed: 7})
	_, chats := readAll(t, path)
	if len(chats) != 6 {
		t.Fatalf("%d chats", len(chats))
	}
	big := 0
	for i, c := range chats {
		if len(c.rows) != 130 {
			t.Errorf("%s: %d messages", c.ID, len(c.rows))
		}
		if len(c.points) < 2 {
			t.Errorf("%s: %d compression points", c.ID, len(c.points))
		}
		for _, b := range c.points {
			checkBriefing(t, c.Title, c.summary[b])
			if b+12 > len(c.rows) {
				t.Errorf("%s: point %d too close to the end", c.ID, b)
			}
		}
		for _, m := range c.rows {
			if len(m.Parts) > 4000 {
				big++
			}
		}
		if c.History != `{"json":[]}` {
			checkHistoryAgrees(t, c)
		}
		if i > 0 && c.LastMessageAt > chats[i-1].LastMessageAt {
			t.Error("order")
		}
	}
	if big == 0 {
		t.Error("no message with several KB of tool output")
	}
}

func TestSchemaVersions(t *testing.T) {
	for v := MinSchemaVersion; v <= MaxSchemaVersion; v++ {
		path := writeSample(t, Options{SchemaVersion: v, Chats: 2, MessagesPerChat: 10})
		d, chats := readAll(t, path)
		if d.Version() != v || len(chats) != 2 {
			t.Errorf("v%d: version %d, %d chats", v, d.Version(), len(chats))
		}
		cols := d.Columns("agentInstances")
		has := func(c string) bool { return slices.Contains(cols, c) }
		if has("tool_approval_mode") != (v >= 9) || has("archived_at") != (v >= 14) || has("marked_unread") != (v == 12) ||
			has("unread") != (v >= 13) || has("side_chat_parent_id") != (v >= 11) || has("title_locked_by_user") != (v >= 8) {
			t.Errorf("v%d: columns %v", v, cols)
		}
	}
	for _, v := range []int{6, 15, -1} {
		if err := Write(filepath.Join(t.TempDir(), "x.sqlite"), Options{SchemaVersion: v}); err == nil {
			t.Errorf("version %d accepted", v)
		}
	}
}

func TestWriteReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "instances.sqlite")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, Options{}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("stray files: %v", entries)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	// A failing write leaves the old file alone and no temp file behind.
	if err := Write(path, Options{SchemaVersion: 99}); err == nil {
		t.Fatal("no error")
	}
	if err := Write(filepath.Join(dir, "missing", "x.sqlite"), Options{}); err == nil {
		t.Fatal("no error for a missing directory")
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("stray files: %v", entries)
	}
}

func TestJSONWriter(t *testing.T) {
	d := Date(time.Date(2026, 5, 20, 9, 14, 3, 512_000_000, time.UTC))
	v := Obj{{"b", "x<y>&\u2028é\"\\\n\t\x01"}, {"a", Arr{1, int64(-2), 1.5, 0.0, 1e21, true, nil, d}}, {"o", Obj{{"d", d}}}}
	want := `{"b":"x<y>&` + "\u2028" + `é\"\\\n\t\u0001","a":[1,-2,1.5,0,1e+21,true,null,"2026-05-20T09:14:03.512Z"],"o":{"d":"2026-05-20T09:14:03.512Z"}}`
	if got := JSON(v); got != want {
		t.Fatalf("JSON\n got %s\nwant %s", got, want)
	}
	wantSJ := `{"json":` + want + `,"meta":{"values":{"a.7":["Date"],"o.d":["Date"]},"v":1}}`
	if got := Superjson(v); got != wantSJ {
		t.Fatalf("Superjson\n got %s\nwant %s", got, wantSJ)
	}
	if got := Superjson(Arr{}); got != `{"json":[]}` {
		t.Fatal(got)
	}
}

// TestShippedExampleUpToDate regenerates the shipped sample and compares it
// with examples/stagewise/instances.sqlite.
func TestShippedExampleUpToDate(t *testing.T) {
	const example = "../../examples/stagewise/instances.sqlite"
	want, err := os.ReadFile(example)
	if os.IsNotExist(err) {
		t.Skip(example + " is absent; generate it with `compact sample-db`")
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(writeSample(t, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale (or the SQLite version changed): regenerate it with `go run . sample-db`", example)
	}
}
