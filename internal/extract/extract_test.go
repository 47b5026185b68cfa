package extract

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/testdb"
)

// ---------------------------------------------------------------------------
// Test databases, written with raw SQL at schema v9.

const schemaV9 = testdb.SchemaV9

// tChat is one agentInstances row with its agentMessages rows.
type tChat struct {
	id, title string
	lastAt    int64
	history   string // raw column text; "" writes the stale {"json":[]}
	rows      []tRow
}

// tRow is one agentMessages row; meta "" is SQL NULL.
type tRow struct {
	role, parts, meta string
}

func jsq(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func textParts(text string) string { return `{"json":[{"type":"text","text":` + jsq(text) + `}]}` }

func userRow(text string) tRow { return tRow{"user", textParts(text), `{"json":{}}`} }
func asstRow(text string) tRow { return tRow{"assistant", textParts(text), `{"json":{}}`} }

// withMeta replaces a row's metadata column text.
func (r tRow) withMeta(meta string) tRow { r.meta = meta; return r }

// summaryMeta is metadata holding a stored briefing.
func summaryMeta(s string) string { return `{"json":{"compressedHistory":` + jsq(s) + `}}` }

// convo returns n alternating user/assistant rows with a briefing on each
// index of points.
func convo(n int, points ...int) []tRow {
	rows := make([]tRow, n)
	for i := range rows {
		if i%2 == 0 {
			rows[i] = userRow(fmt.Sprintf("user turn %d", i))
		} else {
			rows[i] = asstRow(fmt.Sprintf("assistant turn %d", i))
		}
	}
	for _, p := range points {
		rows[p] = rows[p].withMeta(summaryMeta(fmt.Sprintf("## Briefing at %d\n\nsummary text", p)))
	}
	return rows
}

func openRW(t *testing.T, path string) *sql.DB { return testdb.OpenRW(t, path) }

type execer = testdb.Execer

func insertChats(t *testing.T, db execer, chats ...tChat) {
	t.Helper()
	for _, c := range chats {
		rows := make([]testdb.Row, len(c.rows))
		for i, r := range c.rows {
			rows[i] = testdb.Row{ID: fmt.Sprintf("%s-m%d", c.id, i), Role: r.role, Parts: r.parts, Meta: r.meta}
		}
		testdb.InsertChat(t, db, c.id, c.title, c.lastAt, c.history, rows)
	}
}

// writeDB writes a v9 database with chats into dir and returns its path.
func writeDB(t *testing.T, chats ...tChat) string {
	t.Helper()
	return testdb.Write(t, schemaV9, func(db testdb.Execer) { insertChats(t, db, chats...) })
}

// ---------------------------------------------------------------------------
// Running an extraction.

type runResult struct {
	sum      *Summary
	err      error
	warnings []Warning // as the Warn hook saw them
	out      string
}

func testOptions(t *testing.T, db string) Options {
	t.Helper()
	pack, err := prompt.Resolve("default")
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		DBPath: db, Channel: "prerelease", Source: SourceMessages, MinMessages: 6,
		Pack: pack, Locale: "en-US", Profile: serialize.Profiles["e3e"],
		OutDir: filepath.Join(t.TempDir(), "history-compression", "prerelease"), Workers: 4,
	}
}

func run(t *testing.T, opts Options) runResult {
	t.Helper()
	var r runResult
	r.out = opts.OutDir
	r.sum, r.err = Run(context.Background(), opts, Hooks{Warn: func(w Warning) { r.warnings = append(r.warnings, w) }})
	return r
}

func mustRun(t *testing.T, opts Options) runResult {
	t.Helper()
	r := run(t, opts)
	if r.err != nil {
		t.Fatalf("Run: %v", r.err)
	}
	return r
}

// tree lists every directory (with a trailing slash) and file under root,
// relative and sorted: the upstream's tree, so without compact's own
// continuation.xml (TestContinuation tests it).
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." || d.Name() == bundle.FileContinuation {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// bundles lists the compression directories of one chat directory.
func bundles(t *testing.T, chatDir string) []string {
	t.Helper()
	entries, err := os.ReadDir(chatDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			t.Errorf("%s: unexpected file %s", chatDir, e.Name())
			continue
		}
		out = append(out, e.Name())
		files, err := os.ReadDir(filepath.Join(chatDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range files {
			if f.Name() != bundle.FileContinuation {
				n++
			}
		}
		if n != bundle.FileCount {
			t.Errorf("%s/%s holds %d of the upstream's files, want %d", chatDir, e.Name(), n, bundle.FileCount)
		}
	}
	return out
}

// noStaging fails when the output's parent holds a staging directory.
func noStaging(t *testing.T, out string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".partial-") {
			t.Errorf("stray staging directory %s left in %s", e.Name(), filepath.Dir(out))
		}
	}
}

func readMetadata(t *testing.T, dir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, bundle.FileMetadata))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return m
}

// ---------------------------------------------------------------------------
// Where the upstream script crashes, compact warns and goes on.

// TestNullCompressedHistoryWarnsAndKeepsNumbering: a JSON null briefing is
// a compression point (upstream crashes writing it); compact writes no
// bundle for it, warns once naming the chat and message, keeps the
// upstream numbering of the other points and goes on with the next chats.
func TestNullCompressedHistoryWarnsAndKeepsNumbering(t *testing.T) {
	rows := convo(12, 3, 7)
	rows[5] = rows[5].withMeta(`{"json":{"compressedHistory":null}}`)
	db := writeDB(t,
		tChat{id: "chat-null", title: "Has a null briefing", lastAt: 200, rows: rows},
		tChat{id: "chat-ok", title: "Fine", lastAt: 100, rows: convo(8, 4)},
	)
	r := mustRun(t, testOptions(t, db))

	if got := bundles(t, filepath.Join(r.out, "001-has-a-null-briefing")); !slices.Equal(got, []string{"compression-001", "compression-003"}) {
		t.Errorf("bundles %v, want compression-001 and compression-003 (002 is the null one)", got)
	}
	if got := bundles(t, filepath.Join(r.out, "002-fine")); !slices.Equal(got, []string{"compression-001"}) {
		t.Errorf("the next chat: bundles %v", got)
	}
	if len(r.warnings) != 1 {
		t.Fatalf("warnings %v, want exactly one", r.warnings)
	}
	w := r.warnings[0]
	if w.ChatID != "chat-null" || w.Message != 5 || !strings.Contains(w.Text, "null") {
		t.Errorf("warning %+v, want chat-null, message 5, naming the null", w)
	}
	if s := w.String(); !strings.Contains(s, "chat-null") || !strings.Contains(s, "message 5") {
		t.Errorf("warning text %q does not name the chat and message", s)
	}
	if r.sum.Extracted != 2 || r.sum.Bundles != 3 || r.sum.Skipped != 0 {
		t.Errorf("summary %d extracted, %d bundles, %d skipped", r.sum.Extracted, r.sum.Bundles, r.sum.Skipped)
	}
	// The later bundle counts the null point as its previous point, as
	// upstream's metadata would.
	md := readMetadata(t, filepath.Join(r.out, "001-has-a-null-briefing", "compression-003"))
	if md["compressionNumber"] != 3.0 || md["totalCompressions"] != 3.0 || md["previousCompressionIndex"] != 5.0 ||
		md["previousCompressionSize"] != nil || md["boundaryMessageIndex"] != 7.0 {
		t.Errorf("compression-003 metadata %v", md)
	}
}

// TestCompressionPointKinds: which compressedHistory values make a point
// and which of those get a bundle.
func TestCompressionPointKinds(t *testing.T) {
	tests := []struct {
		name     string
		meta     string
		points   int
		bundles  []string
		warnings int
	}{
		{"string briefing", summaryMeta("brief"), 1, []string{"compression-001"}, 0},
		{"empty string briefing is a point", `{"json":{"compressedHistory":""}}`, 1, []string{"compression-001"}, 0},
		{"undefined marker is no point", `{"json":{"compressedHistory":null},"meta":{"values":{"compressedHistory":["undefined"]},"v":1}}`, 0, nil, 0},
		{"plain null is a point without bundle", `{"json":{"compressedHistory":null}}`, 1, []string{}, 1},
		{"number is a point without bundle", `{"json":{"compressedHistory":42}}`, 1, []string{}, 1},
		{"object is a point without bundle", `{"json":{"compressedHistory":{"a":1}}}`, 1, []string{}, 1},
		{"null metadata is no point", `{"json":null}`, 0, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := convo(8)
			rows[4] = rows[4].withMeta(tt.meta)
			db := writeDB(t, tChat{id: "c1", title: "Chat", lastAt: 1, rows: rows})
			r := mustRun(t, testOptions(t, db))
			if len(r.sum.PerChat) != 1 || r.sum.PerChat[0].Points != tt.points {
				t.Fatalf("per chat %+v, want %d points", r.sum.PerChat, tt.points)
			}
			if len(r.warnings) != tt.warnings {
				t.Errorf("warnings %v, want %d", r.warnings, tt.warnings)
			}
			if tt.bundles == nil {
				if r.sum.Extracted != 0 || r.sum.Skipped != 1 {
					t.Errorf("%d extracted, %d skipped; want the chat skipped", r.sum.Extracted, r.sum.Skipped)
				}
				return
			}
			if got := bundles(t, filepath.Join(r.out, "001-chat")); !slices.Equal(got, tt.bundles) && len(got)+len(tt.bundles) > 0 {
				t.Errorf("bundles %v, want %v", got, tt.bundles)
			}
		})
	}
}

// TestCompactHistoryIsSerializeOfPrefix: every bundle's compact history is
// serialize.Serialize of the messages before its point, whatever the
// earlier summaries were (truthy, empty, null, a number): extract reads
// each message's summary once and tells the serializer where to start,
// and that start must be the one Serialize finds by itself.
func TestCompactHistoryIsSerializeOfPrefix(t *testing.T) {
	rows := convo(18, 2, 8, 14, 16)
	rows[4] = rows[4].withMeta(`{"json":{"compressedHistory":""}}`)
	rows[6] = rows[6].withMeta(`{"json":{"compressedHistory":null}}`)
	rows[10] = rows[10].withMeta(`{"json":{"compressedHistory":42}}`)
	rows[12] = rows[12].withMeta(`{"json":{"compressedHistory":"","other":1}}`)
	db := writeDB(t, tChat{id: "c1", title: "Chain", lastAt: 1, rows: rows})
	r := mustRun(t, testOptions(t, db))
	msgs := decodeRows(t, rows)
	dir := filepath.Join(r.out, "001-chain")
	got := bundles(t, dir)
	if len(got) != 6 { // points 2 4 6 8 10 12 14 16: 6 and 10 have no bundle
		t.Fatalf("bundles %v, want 6", got)
	}
	for _, name := range got {
		md := readMetadata(t, filepath.Join(dir, name))
		b := int(md["boundaryMessageIndex"].(float64))
		data, err := os.ReadFile(filepath.Join(dir, name, bundle.FileCompact))
		if err != nil {
			t.Fatal(err)
		}
		want := serialize.Serialize(msgs[:b], serialize.Options{Profile: serialize.Profiles["e3e"]})
		if string(data) != want {
			t.Errorf("%s (boundary %d): compact history\n%s\nwant\n%s", name, b, data, want)
		}
	}
}

// TestHistoryColumnNull: --source history where the column holds
// {"json":null} (upstream: TypeError, exit 1) skips that chat with a
// warning and extracts the others.
func TestHistoryColumnNull(t *testing.T) {
	good := `{"json":[` + strings.Repeat(`{"id":"a","role":"user","parts":[{"type":"text","text":"hi"}],"metadata":{}},`, 3) +
		`{"id":"b","role":"assistant","parts":[],"metadata":{"compressedHistory":"brief"}},` +
		`{"id":"c","role":"user","parts":[],"metadata":null},{"id":"d","role":"assistant","parts":[],"metadata":null}]}`
	db := writeDB(t,
		tChat{id: "good-1", title: "Good one", lastAt: 300, history: good},
		tChat{id: "null-hist", title: "Null history", lastAt: 200, history: `{"json":null}`},
		tChat{id: "object-hist", title: "Object history", lastAt: 150, history: `{"json":{"a":1}}`},
		tChat{id: "good-2", title: "Good two", lastAt: 100, history: good},
	)
	opts := testOptions(t, db)
	opts.Source = SourceHistory
	r := mustRun(t, opts)

	if got := tree(t, r.out); !slices.Contains(got, "001-good-one/compression-001/") || !slices.Contains(got, "002-good-two/compression-001/") || len(got) != 2*(2+bundle.FileCount) {
		t.Errorf("tree %v", got)
	}
	if len(r.warnings) != 1 || r.warnings[0].ChatID != "null-hist" || !strings.Contains(r.warnings[0].Text, "null") {
		t.Fatalf("warnings %v, want one naming null-hist", r.warnings)
	}
	if r.sum.Extracted != 2 || r.sum.Skipped != 2 {
		t.Errorf("%d extracted, %d skipped", r.sum.Extracted, r.sum.Skipped)
	}
	// A non-array that is not null is skipped silently, as upstream does.
	for _, c := range r.sum.PerChat {
		if c.ID == "object-hist" && (c.Skipped == "" || len(c.Warnings) != 0) {
			t.Errorf("object history: %+v", c)
		}
	}
}

// TestNonStringUserText: a user text part whose text is a number crashes
// the upstream slash-id scan (e3e). Compression points whose slice holds
// that message get no bundle and a warning naming chat and message; the
// earlier ones are written. The head profile has no slash scan.
func TestNonStringUserText(t *testing.T) {
	rows := convo(14, 3, 8, 12)
	rows[6] = tRow{"user", `{"json":[{"type":"text","text":"ok"},{"type":"text","text":12345}]}`, `{"json":{}}`}
	tests := []struct {
		profile  string
		bundles  []string
		warnings int
	}{
		{"e3e", []string{"compression-001"}, 2},
		{"head", []string{"compression-001", "compression-002", "compression-003"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			db := writeDB(t, tChat{id: "num-text", title: "Number text", lastAt: 1, rows: rows},
				tChat{id: "after", title: "After", lastAt: 0, rows: convo(6, 2)})
			opts := testOptions(t, db)
			opts.Profile = serialize.Profiles[tt.profile]
			r := mustRun(t, opts)
			if got := bundles(t, filepath.Join(r.out, "001-number-text")); !slices.Equal(got, tt.bundles) {
				t.Errorf("bundles %v, want %v", got, tt.bundles)
			}
			if got := bundles(t, filepath.Join(r.out, "002-after")); len(got) != 1 {
				t.Errorf("the next chat: bundles %v", got)
			}
			if len(r.warnings) != tt.warnings {
				t.Fatalf("warnings %v, want %d", r.warnings, tt.warnings)
			}
			for _, w := range r.warnings {
				if w.ChatID != "num-text" || w.Message != 6 || !strings.Contains(w.Text, "number") {
					t.Errorf("warning %+v, want chat num-text, message 6, naming the number", w)
				}
			}
		})
	}
}

// TestUndecodableChatSkipped: a chat whose rows cannot be decoded is
// skipped with a warning naming the chat and the row; the run goes on.
func TestUndecodableChatSkipped(t *testing.T) {
	tests := []struct {
		name string
		row  tRow
		want string
	}{
		{"invalid JSON in parts", tRow{"user", `{"json":[{"type":"text",`, `{"json":{}}`}, "parts"},
		{"invalid JSON in metadata", tRow{"user", textParts("x"), `not json`}, "metadata"},
		{"unknown superjson annotation", tRow{"user", textParts("x"), `{"json":{"a":1},"meta":{"values":{"a":["frobnicate"]},"v":1}}`}, "metadata"},
		{"null superjson payload", tRow{"user", `null`, `{"json":{}}`}, "parts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := convo(8, 5)
			bad[3] = tt.row
			db := writeDB(t,
				tChat{id: "first", title: "First", lastAt: 300, rows: convo(8, 5)},
				tChat{id: "broken", title: "Broken", lastAt: 200, rows: bad},
				tChat{id: "last", title: "Last", lastAt: 100, rows: convo(8, 5)},
			)
			r := mustRun(t, testOptions(t, db))
			if got := tree(t, r.out); len(got) != 2*(2+bundle.FileCount) || got[0] != "001-first/" || !slices.Contains(got, "002-last/") {
				t.Errorf("tree %v, want 001-first and 002-last", got)
			}
			if len(r.warnings) != 1 {
				t.Fatalf("warnings %v, want one", r.warnings)
			}
			w := r.warnings[0]
			if w.ChatID != "broken" || !strings.Contains(w.Text, "row seq 3") || !strings.Contains(w.Text, tt.want) {
				t.Errorf("warning %q, want chat broken, row seq 3 and %q", w, tt.want)
			}
			if r.sum.Skipped != 1 || r.sum.Extracted != 2 {
				t.Errorf("%d skipped, %d extracted", r.sum.Skipped, r.sum.Extracted)
			}
		})
	}
}

// TestUndecodableRowOrder: the warning names the first broken row, and of
// one row its parts before its metadata, wherever the rows lie: extract
// reads every row's metadata first (to find the last compression point)
// and only checks the parts after that point, which must change neither.
func TestUndecodableRowOrder(t *testing.T) {
	badParts := `{"json":[{"type":"text",`
	badMeta := `not json`
	tests := []struct {
		name  string
		parts map[int]string // row -> broken parts
		metas map[int]string // row -> broken metadata
		want  string
	}{
		{"parts after the last point", map[int]string{6: badParts}, nil, "row seq 6: parts"},
		{"metadata after the last point", nil, map[int]string{7: badMeta}, "row seq 7: metadata"},
		{"earlier metadata before later parts", map[int]string{6: badParts}, map[int]string{3: badMeta}, "row seq 3: metadata"},
		{"earlier parts before later metadata", map[int]string{1: badParts}, map[int]string{2: badMeta}, "row seq 1: parts"},
		{"a row's parts before its metadata", map[int]string{4: badParts}, map[int]string{4: badMeta}, "row seq 4: parts"},
		{"the last point's own parts", map[int]string{5: badParts}, nil, "row seq 5: parts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := convo(8, 5)
			for i, p := range tt.parts {
				rows[i].parts = p
			}
			for i, m := range tt.metas {
				rows[i].meta = m
			}
			db := writeDB(t, tChat{id: "broken", title: "Broken", lastAt: 200, rows: rows})
			r := mustRun(t, testOptions(t, db))
			if len(r.warnings) != 1 || !strings.Contains(r.warnings[0].Text, tt.want) {
				t.Fatalf("warnings %v, want one naming %q", r.warnings, tt.want)
			}
			if r.sum.Skipped != 1 || r.sum.Extracted != 0 {
				t.Errorf("%d skipped, %d extracted", r.sum.Skipped, r.sum.Extracted)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Output handling.

func writeOld(t *testing.T, out string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(out, "009-old-chat", "compression-001"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "009-old-chat", "compression-001", "stale.md"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOutputDirectory(t *testing.T) {
	db := writeDB(t, tChat{id: "c1", title: "New chat", lastAt: 1, rows: convo(8, 4)})
	t.Run("non-empty refused without force", func(t *testing.T) {
		opts := testOptions(t, db)
		writeOld(t, opts.OutDir)
		r := run(t, opts)
		if !errors.Is(r.err, ErrOutputNotEmpty) || !strings.Contains(r.err.Error(), opts.OutDir) || !strings.Contains(r.err.Error(), "--force") {
			t.Fatalf("err %v, want ErrOutputNotEmpty naming the directory and --force", r.err)
		}
		if got := tree(t, opts.OutDir); !slices.Equal(got, []string{"009-old-chat/", "009-old-chat/compression-001/", "009-old-chat/compression-001/stale.md"}) {
			t.Errorf("old output touched: %v", got)
		}
		noStaging(t, opts.OutDir)
	})
	t.Run("force replaces as a whole", func(t *testing.T) {
		opts := testOptions(t, db)
		writeOld(t, opts.OutDir)
		opts.Force = true
		mustRun(t, opts)
		got := tree(t, opts.OutDir)
		if slices.Contains(got, "009-old-chat/") || !slices.Contains(got, "001-new-chat/compression-001/metadata.json") {
			t.Errorf("tree after --force %v", got)
		}
		noStaging(t, opts.OutDir)
	})
	t.Run("empty existing directory is used", func(t *testing.T) {
		opts := testOptions(t, db)
		if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
			t.Fatal(err)
		}
		mustRun(t, opts)
		if got := tree(t, opts.OutDir); !slices.Contains(got, "001-new-chat/") {
			t.Errorf("tree %v", got)
		}
	})
	t.Run("no chats still makes the directory", func(t *testing.T) {
		opts := testOptions(t, writeDB(t))
		mustRun(t, opts)
		if st, err := os.Stat(opts.OutDir); err != nil || !st.IsDir() {
			t.Fatalf("no output directory: %v", err)
		}
	})
	t.Run("output under a regular file fails cleanly", func(t *testing.T) {
		opts := testOptions(t, db)
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		opts.OutDir = filepath.Join(file, "x", "prerelease")
		r := run(t, opts)
		if r.err == nil || strings.Contains(r.err.Error(), "\n") {
			t.Fatalf("err %v, want a one-line error", r.err)
		}
		if data, _ := os.ReadFile(file); string(data) != "x" {
			t.Errorf("file changed")
		}
	})
}

// TestCancelledRunLeavesNothing: a run that fails half-way leaves neither a
// partial tree nor its staging directory, and keeps an old output intact.
//
// With one worker and more chats than the read-ahead, the reader is
// usually in the middle of a read when the cancel lands; the run must still
// report the cancellation, not the failed read of the rolled-back snapshot.
func TestCancelledRunLeavesNothing(t *testing.T) {
	var chats []tChat
	for i := 0; i < 40; i++ {
		chats = append(chats, tChat{id: fmt.Sprintf("c%02d", i), title: fmt.Sprintf("Chat %d", i), lastAt: int64(100 - i), rows: convo(60, 4, 8)})
	}
	db := writeDB(t, chats...)
	for i := 0; i < 6; i++ {
		force := i%2 == 1
		t.Run(fmt.Sprintf("force=%v/try%d", force, i/2), func(t *testing.T) {
			opts := testOptions(t, db)
			opts.Workers = 1
			opts.Force = force
			if force {
				writeOld(t, opts.OutDir)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sum, err := Run(ctx, opts, Hooks{Progress: func(done, total, bundles int) {
				if done == 3 {
					cancel()
				}
			}})
			if err == nil {
				t.Fatalf("Run finished after cancel: %+v", sum)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err %v, want context.Canceled", err)
			}
			noStaging(t, opts.OutDir)
			if force {
				if got := tree(t, opts.OutDir); len(got) != 3 || got[0] != "009-old-chat/" {
					t.Errorf("old output not intact: %v", got)
				}
			} else if _, err := os.Stat(opts.OutDir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("output directory exists after a failed run: %v", err)
			}
		})
	}
}

// TestChatIDs: ChatIDs limits the run to those chats, numbered among
// themselves; an id not in the database fails the run before anything is
// written, naming every missing id.
func TestChatIDs(t *testing.T) {
	db := writeDB(t,
		tChat{id: "a", title: "A", lastAt: 3, rows: convo(8, 4)},
		tChat{id: "b", title: "B", lastAt: 2, rows: convo(8, 4)},
		tChat{id: "c", title: "C", lastAt: 1, rows: convo(8, 4)},
	)
	opts := testOptions(t, db)
	opts.ChatIDs = []string{"c", "a", "c"}
	r := mustRun(t, opts)
	if got := tree(t, r.out); len(got) != 2*(2+bundle.FileCount) || got[0] != "001-a/" || !slices.Contains(got, "002-c/") {
		t.Errorf("tree %v, want 001-a and 002-c", got)
	}
	if len(r.warnings) != 0 {
		t.Errorf("warnings %v, want none", r.warnings)
	}
	if r.sum.Chats != 2 {
		t.Errorf("%d chats considered, want 2", r.sum.Chats)
	}

	opts = testOptions(t, db)
	opts.ChatIDs = []string{"c", "nope", "a", "nope", "gone"}
	sum, err := Run(context.Background(), opts, Hooks{})
	var me *MissingChatsError
	if !errors.As(err, &me) || !slices.Equal(me.IDs, []string{"nope", "gone"}) {
		t.Fatalf("Run: %+v, %v; want a MissingChatsError for nope and gone", sum, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "no such chats in "+db+": nope, gone") {
		t.Errorf("error %q", msg)
	}
	if _, err := os.Stat(opts.OutDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a run with a missing chat created %s", opts.OutDir)
	}
	noStaging(t, opts.OutDir)
}

// TestDeterministicAcrossWorkers: the tree and the summary do not depend on
// the number of workers.
func TestDeterministicAcrossWorkers(t *testing.T) {
	var chats []tChat
	for i := 0; i < 30; i++ {
		rows := convo(12, 3, 9)
		if i%5 == 0 {
			rows[9] = rows[9].withMeta(`{"json":{"compressedHistory":null}}`) // a warning
		}
		if i%7 == 0 {
			rows[2] = tRow{"user", `{"json":[{"type":"text","text":` + "7" + `}]}`, `{"json":{}}`} // another
		}
		chats = append(chats, tChat{id: fmt.Sprintf("id-%02d", i), title: fmt.Sprintf("Chat %d", i%4), lastAt: int64(i % 9), rows: rows})
	}
	db := writeDB(t, chats...)
	var first []string
	var firstSum []byte
	for _, workers := range []int{1, 2, 8} {
		opts := testOptions(t, db)
		opts.Workers = workers
		r := mustRun(t, opts)
		got := manifest(t, r.out)
		r.sum.OutDir = ""
		sum, _ := json.Marshal(r.sum)
		warn, _ := json.Marshal(r.warnings)
		if first == nil {
			first, firstSum = got, sum
			if !json.Valid(warn) || len(r.warnings) == 0 {
				t.Fatal("expected warnings")
			}
			continue
		}
		if !slices.Equal(got, first) {
			t.Errorf("workers=%d: tree differs from workers=1", workers)
		}
		if string(sum) != string(firstSum) {
			t.Errorf("workers=%d: summary differs:\n%s\n%s", workers, sum, firstSum)
		}
	}
}

// TestRecycledTextsNotInUse: the memory of a chat's row texts is handed
// to a later chat once the chat is processed, and scrambled under go
// test. Briefings without escapes are read straight from that memory, so
// a bundle still pointing into it would hold 0xff bytes or another chat's
// text by the time it is written.
func TestRecycledTextsNotInUse(t *testing.T) {
	var chats []tChat
	for i := 0; i < 40; i++ {
		rows := convo(12, 3, 9)
		for _, p := range []int{3, 9} {
			rows[p] = rows[p].withMeta(summaryMeta(fmt.Sprintf("plain briefing of chat %02d at %d", i, p)))
		}
		chats = append(chats, tChat{id: fmt.Sprintf("id-%02d", i), title: fmt.Sprintf("Chat %02d", i), lastAt: int64(100 - i), rows: rows})
	}
	db := writeDB(t, chats...)
	for _, workers := range []int{1, 2} {
		opts := testOptions(t, db)
		opts.Workers = workers
		r := mustRun(t, opts)
		if r.sum.Bundles != 80 {
			t.Fatalf("workers=%d: %d bundles, want 80", workers, r.sum.Bundles)
		}
		for i, c := range r.sum.PerChat {
			if c.ID != fmt.Sprintf("id-%02d", i) || c.Title != fmt.Sprintf("Chat %02d", i) {
				t.Errorf("workers=%d: chat %d is %q %q", workers, i, c.ID, c.Title)
			}
			for k, p := range []int{3, 9} {
				got, err := os.ReadFile(filepath.Join(r.out, c.Dir, bundle.CompressionDirName(k+1), "actual-output.md"))
				if want := fmt.Sprintf("plain briefing of chat %02d at %d", i, p); err != nil || string(got) != want {
					t.Errorf("workers=%d: %s bundle %d holds %q (%v), want %q", workers, c.Dir, k+1, got, err, want)
				}
			}
		}
	}
}

// manifest lists a tree with each file's contents.
func manifest(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, p := range tree(t, root) {
		if strings.HasSuffix(p, "/") {
			out = append(out, p)
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p+"\x00"+string(data))
	}
	return out
}

// TestHooksNotConcurrent: the Warn and Progress hooks are never called
// concurrently, so a caller can write to one stream from them without a
// lock (run with -race).
func TestHooksNotConcurrent(t *testing.T) {
	var chats []tChat
	for i := 0; i < 40; i++ {
		rows := convo(8, 2, 6)
		rows[2] = rows[2].withMeta(`{"json":{"compressedHistory":null}}`)
		chats = append(chats, tChat{id: fmt.Sprintf("w%02d", i), title: "T", lastAt: int64(i), rows: rows})
	}
	db := writeDB(t, chats...)
	opts := testOptions(t, db)
	opts.Workers = 8
	var log []string // deliberately unsynchronised
	_, err := Run(context.Background(), opts, Hooks{
		Warn:     func(w Warning) { log = append(log, "warn "+w.ChatID) },
		Progress: func(done, total, bundles int) { log = append(log, fmt.Sprint("progress ", done)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	warns := 0
	for _, l := range log {
		if strings.HasPrefix(l, "warn ") {
			warns++
		}
	}
	if warns != 40 {
		t.Errorf("%d warnings seen by the hook, want 40", warns)
	}
}

// TestFailureReportedByItsCause: when one stage fails half-way (here the
// ordered rename of a chat directory), the run reports that failure, not
// the cancellation it causes in the other stages, and leaves nothing.
func TestFailureReportedByItsCause(t *testing.T) {
	var chats []tChat
	for i := 0; i < 40; i++ {
		chats = append(chats, tChat{id: fmt.Sprintf("c%02d", i), title: "Chat", lastAt: int64(100 - i), rows: convo(120, 4)})
	}
	db := writeDB(t, chats...)
	for i := 0; i < 4; i++ {
		opts := testOptions(t, db)
		opts.Workers = 1 + i%2
		sum, err := Run(context.Background(), opts, Hooks{Progress: func(done, total, bundles int) {
			if done != 2 {
				return
			}
			// Block the name the fourth chat will be renamed to.
			st, _ := filepath.Glob(filepath.Join(filepath.Dir(opts.OutDir), ".*.partial-*"))
			if len(st) != 1 {
				t.Errorf("staging directories %v", st)
				return
			}
			if err := os.MkdirAll(filepath.Join(st[0], "004-chat", "in-the-way"), 0o755); err != nil {
				t.Error(err)
			}
		}})
		if err == nil {
			t.Fatalf("Run succeeded: %+v", sum)
		}
		if errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "004-chat") {
			t.Errorf("err %q, want the failed rename of 004-chat", err)
		}
		noStaging(t, opts.OutDir)
		if _, err := os.Stat(opts.OutDir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("output directory exists after a failed run")
		}
	}
}

// TestOutputDirectoryMode: the published channel directory has the mode
// of any new directory (0777 less the umask), not the 0700 of a temporary
// one.
func TestOutputDirectoryMode(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "prerelease")
	st, err := makeStaging(dir)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(parent, "probe")
	if err := os.Mkdir(probe, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := publish(context.Background(), st, dir, false, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := os.Stat(dir)
	want, _ := os.Stat(probe)
	if got.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("output directory mode %v, want %v (a new directory's)", got.Mode().Perm(), want.Mode().Perm())
	}
	if got.Mode().Perm()&0o055 == 0 && want.Mode().Perm()&0o055 != 0 {
		t.Errorf("output directory is private")
	}
}

// decodeRows decodes rows as extract decodes the messages column.
func decodeRows(t *testing.T, rows []tRow) []history.Value {
	t.Helper()
	msgs := make([]history.Value, len(rows))
	for i, row := range rows {
		m, err := history.MessageFromRow(fmt.Sprint(i), row.role, row.parts, row.meta, false)
		if err != nil {
			t.Fatal(err)
		}
		msgs[i] = m
	}
	return msgs
}
