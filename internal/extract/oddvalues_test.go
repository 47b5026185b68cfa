package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/testdb"
)

// historyOf is a history column holding msgs (JSON texts of messages).
func historyOf(msgs ...string) string { return `{"json":[` + strings.Join(msgs, ",") + `]}` }

// hUser and hAsst are messages of a history column.
func hUser(text string) string {
	return `{"id":"u","role":"user","parts":[{"type":"text","text":` + jsq(text) + `}],"metadata":{}}`
}
func hAsst(text, meta string) string {
	if meta == "" {
		meta = "{}"
	}
	return `{"id":"a","role":"assistant","parts":[{"type":"text","text":` + jsq(text) + `}],"metadata":` + meta + `}`
}

func historyOptions(t *testing.T, db string) Options {
	opts := testOptions(t, db)
	opts.Source = SourceHistory
	opts.MinMessages = 0
	return opts
}

// TestTypedArraySummaries: a typed array as compressedHistory is written
// as the upstream's fs.writeFileSync writes it, its buffer's bytes, and
// its element count is its length in the metadata (actualOutputChars, the
// next bundle's previousCompressionSize; 0 elements is null).
func TestTypedArraySummaries(t *testing.T) {
	typed := func(ctor, vals string) string {
		return `{"json":{"compressedHistory":` + vals + `},"meta":{"values":{"compressedHistory":[["typed-array","` + ctor + `"]]},"v":1}}`
	}
	rows := convo(10)
	rows[1] = rows[1].withMeta(typed("Uint8Array", `[60,97,62]`))
	rows[3] = rows[3].withMeta(typed("Int16Array", `[-1,300]`))
	rows[5] = rows[5].withMeta(typed("Float64Array", `["NaN",-0]`)) // superjson's number strings
	rows[7] = rows[7].withMeta(typed("Float32Array", `[]`))
	rows[9] = rows[9].withMeta(typed("Uint8ClampedArray", `[300,1.5,-2]`))
	db := writeDB(t, tChat{id: "typed", title: "Typed", lastAt: 1, rows: rows})
	r := mustRun(t, testOptions(t, db))
	if len(r.warnings) != 0 {
		t.Errorf("warnings %v", r.warnings)
	}
	dir := filepath.Join(r.out, "001-typed")
	want := []struct {
		bytes    []byte
		chars    float64
		prevSize any
	}{
		{[]byte("<a>"), 3, nil},
		{[]byte{0xff, 0xff, 0x2c, 0x01}, 2, 3.0},
		{[]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0x80}, 2, 2.0},
		{[]byte{}, 0, 2.0},
		{[]byte{255, 2, 0}, 3, nil}, // the previous one has 0 elements
	}
	got := bundles(t, dir)
	if len(got) != len(want) {
		t.Fatalf("bundles %v", got)
	}
	for i, w := range want {
		b := filepath.Join(dir, got[i])
		data, err := os.ReadFile(filepath.Join(b, bundle.FileActual))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, w.bytes) {
			t.Errorf("%s: actual output % x, want % x", got[i], data, w.bytes)
		}
		md := readMetadata(t, b)
		if md["actualOutputChars"] != w.chars || md["previousCompressionSize"] != w.prevSize || md["actualOutputIncludesPreviousTag"] != false {
			t.Errorf("%s: metadata %v", got[i], md)
		}
	}
}

// TestFalsyUserTextsInSlashScan: the upstream scan passes over a user text
// that is falsy (`!part.text`), whatever its type: no warning, every
// bundle written, the later slash link found.
func TestFalsyUserTextsInSlashScan(t *testing.T) {
	rows := convo(8, 5)
	rows[0] = tRow{"user", `{"json":[{"type":"text","text":0},{"type":"text","text":null},{"type":"text","text":false},{"type":"text","text":"NaN"},{"type":"text","text":""},{"type":"text","text":"[b](slash:command:build)"}]}`, `{"json":{}}`}
	rows[0].parts = strings.Replace(rows[0].parts, `]}`, `],"meta":{"values":{"3.text":["number"]},"v":1}}`, 1)
	db := writeDB(t, tChat{id: "falsy", title: "Falsy", lastAt: 1, rows: rows})
	r := mustRun(t, testOptions(t, db))
	if len(r.warnings) != 0 {
		t.Errorf("warnings %v", r.warnings)
	}
	dir := filepath.Join(r.out, "001-falsy")
	if got := bundles(t, dir); !slices.Equal(got, []string{"compression-001"}) {
		t.Fatalf("bundles %v", got)
	}
	md := readMetadata(t, filepath.Join(dir, "compression-001"))
	ids, _ := md["slashIdsResolved"].([]any)
	if len(ids) != 1 || ids[0].(map[string]any)["id"] != "command:build" {
		t.Errorf("slashIdsResolved %v", md["slashIdsResolved"])
	}
}

// TestSlashScanCrashesWarn: where the upstream scan throws (a null part, a
// truthy text that is not a string), the bundles whose slice holds that
// message are skipped, each with a warning naming chat, message and part
// and saying what the upstream does.
func TestSlashScanCrashesWarn(t *testing.T) {
	for _, tt := range []struct{ name, parts, what string }{
		{"null part", `{"json":[{"type":"text","text":"ok"},null]}`, "part is null"},
		{"undefined part", `{"json":[{"type":"text","text":"ok"},null],"meta":{"values":{"1":["undefined"]},"v":1}}`, "part is undefined"},
		{"array text", `{"json":[{"type":"text","text":"ok"},{"type":"text","text":["[b](slash:x)"]}]}`, "text is array, not a string"},
		{"true text", `{"json":[{"type":"text","text":"ok"},{"type":"text","text":true}]}`, "text is boolean, not a string"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows := convo(10, 3, 7)
			rows[4] = tRow{"user", tt.parts, `{"json":{}}`}
			db := writeDB(t, tChat{id: "bad", title: "Bad", lastAt: 1, rows: rows})
			r := mustRun(t, testOptions(t, db))
			if got := bundles(t, filepath.Join(r.out, "001-bad")); !slices.Equal(got, []string{"compression-001"}) {
				t.Errorf("bundles %v, want compression-001 only", got)
			}
			if len(r.warnings) != 1 {
				t.Fatalf("warnings %v, want one", r.warnings)
			}
			w := r.warnings[0]
			if w.ChatID != "bad" || w.Message != 4 || !strings.Contains(w.Text, "user part 1: "+tt.what) ||
				!strings.Contains(w.Text, "upstream") || !strings.Contains(w.Text, "TypeError") || !strings.Contains(w.Text, "skipped compression-002") {
				t.Errorf("warning %q", w)
			}
		})
	}
}

// TestNullMessageWarns: a null message in the history column ends the
// upstream run (it reads every message's metadata); compact serializes the
// others, with a warning naming chat and message.
func TestNullMessageWarns(t *testing.T) {
	h := historyOf(hUser("one"), "null", hUser("two"), hAsst("three", `{"compressedHistory":"brief"}`))
	db := writeDB(t, tChat{id: "nullmsg", title: "Null message", lastAt: 1, history: h})
	r := mustRun(t, historyOptions(t, db))
	if got := bundles(t, filepath.Join(r.out, "001-null-message")); len(got) != 1 {
		t.Errorf("bundles %v", got)
	}
	if len(r.warnings) != 1 || r.warnings[0].ChatID != "nullmsg" || r.warnings[0].Message != 1 ||
		!strings.Contains(r.warnings[0].Text, "message is null") || !strings.Contains(r.warnings[0].Text, "upstream script crashes") {
		t.Errorf("warnings %v", r.warnings)
	}
}

// TestSummaryNeitherStringNorTypedArrayWarns: the warning says why the
// bundle is missing.
func TestSummaryNeitherStringNorTypedArrayWarns(t *testing.T) {
	h := historyOf(hUser("one"), hAsst("two", `{"compressedHistory":5}`))
	db := writeDB(t, tChat{id: "num", title: "Number", lastAt: 1, history: h})
	r := mustRun(t, historyOptions(t, db))
	if len(r.warnings) != 1 || r.warnings[0].Message != 1 || !strings.Contains(r.warnings[0].Text, "number 5") ||
		!strings.Contains(r.warnings[0].Text, "ERR_INVALID_ARG_TYPE") || !strings.Contains(r.warnings[0].Text, "skipped compression-001") {
		t.Errorf("warnings %v", r.warnings)
	}
}

// TestUnwritableMessageIDWarns: a bigint message id makes the upstream's
// JSON.stringify of the metadata throw; compact writes null and says so.
func TestUnwritableMessageIDWarns(t *testing.T) {
	h := `{"json":[` + hUser("one") + `,{"id":"7","role":"assistant","parts":[],"metadata":{"compressedHistory":"brief"}}],"meta":{"values":{"1.id":["bigint"]},"v":1}}`
	db := writeDB(t, tChat{id: "big", title: "Big", lastAt: 1, history: h})
	r := mustRun(t, historyOptions(t, db))
	if len(r.warnings) != 1 || r.warnings[0].Message != 1 || !strings.Contains(r.warnings[0].Text, "bigint") || !strings.Contains(r.warnings[0].Text, "boundaryMessageId null") {
		t.Errorf("warnings %v", r.warnings)
	}
	md := readMetadata(t, filepath.Join(r.out, "001-big", "compression-001"))
	if v, ok := md["boundaryMessageId"]; !ok || v != nil {
		t.Errorf("boundaryMessageId %v", md["boundaryMessageId"])
	}
}

// TestArrayLikeHistoryWarns: an object history with a numeric length is
// read as an array by the upstream, which then crashes; any other
// non-array is passed over silently, as upstream does.
func TestArrayLikeHistoryWarns(t *testing.T) {
	db := writeDB(t,
		tChat{id: "like", title: "Like", lastAt: 3, history: `{"json":{"length":2,"0":{"id":"u"},"1":{"id":"a","metadata":{"compressedHistory":"s"}}}}`},
		tChat{id: "holey", title: "Holey", lastAt: 2, history: `{"json":{"length":2,"0":{"id":"u"}}}`},
		tChat{id: "plain", title: "Plain", lastAt: 1, history: `{"json":{"a":1}}`},
	)
	r := mustRun(t, historyOptions(t, db))
	if len(r.warnings) != 2 || r.warnings[0].ChatID != "like" || !strings.Contains(r.warnings[0].Text, "messages.slice") ||
		r.warnings[1].ChatID != "holey" || !strings.Contains(r.warnings[1].Text, "reading 'metadata'") {
		t.Errorf("warnings %v", r.warnings)
	}
	if r.sum.Skipped != 3 {
		t.Errorf("%d skipped", r.sum.Skipped)
	}
}

// TestBlobColumnsWarn: a BLOB id, title or history makes the upstream's
// query fail before anything is written. compact reads a BLOB title or
// history as text, and skips a chat whose id is a BLOB, each with a
// warning.
func TestBlobColumnsWarn(t *testing.T) {
	h := historyOf(hUser("one"), hAsst("two", `{"compressedHistory":"brief"}`))
	for _, source := range []string{SourceMessages, SourceHistory} {
		t.Run(source, func(t *testing.T) {
			db := testdb.Write(t, schemaV9, func(db testdb.Execer) {
				insertChats(t, db,
					tChat{id: "blob-title", title: "x", lastAt: 4, history: h, rows: convo(8, 5)},
					tChat{id: "blob-id", title: "Blob id", lastAt: 3, history: h, rows: convo(8, 5)},
					tChat{id: "blob-hist", title: "Blob history", lastAt: 2, history: h, rows: convo(8, 5)},
					tChat{id: "fine", title: "Fine", lastAt: 1, history: h, rows: convo(8, 5)},
				)
				for _, q := range []string{
					`UPDATE agentInstances SET title = CAST('Blob title' AS BLOB) WHERE id = 'blob-title'`,
					`UPDATE agentInstances SET history = CAST(history AS BLOB) WHERE id = 'blob-hist'`,
					`UPDATE agentInstances SET id = CAST(id AS BLOB) WHERE id = 'blob-id'`,
				} {
					if _, err := db.Exec(q); err != nil {
						t.Fatal(err)
					}
				}
			})
			opts := historyOptions(t, db)
			opts.Source = source
			r := mustRun(t, opts)
			if got := tree(t, r.out); !slices.Contains(got, "001-blob-title/compression-001/") || !slices.Contains(got, "002-blob-history/compression-001/") ||
				!slices.Contains(got, "003-fine/compression-001/") || len(got) != 3*(2+bundle.FileCount) {
				t.Errorf("tree %v", got)
			}
			want := map[string]string{"blob-title": "column title is", "blob-id": "skipped the chat", "blob-hist": "column history is"}
			if len(r.warnings) != len(want) {
				t.Fatalf("warnings %v", r.warnings)
			}
			for _, w := range r.warnings {
				if !strings.Contains(w.Text, want[w.ChatID]) || !strings.Contains(w.Text, "BLOB") || !strings.Contains(w.Text, "json_object") {
					t.Errorf("warning %v", w)
				}
			}
		})
	}
}

// TestNullTitleWarns: the upstream slugs the title with title.replace,
// which throws on null.
func TestNullTitleWarns(t *testing.T) {
	schema := strings.Replace(schemaV9, "title TEXT NOT NULL", "title TEXT", 1)
	if schema == schemaV9 {
		t.Fatal("schema has no title column to relax")
	}
	db := testdb.Write(t, schema, func(db testdb.Execer) {
		insertChats(t, db, tChat{id: "untitled", title: "x", lastAt: 1, rows: convo(8, 5)})
		if _, err := db.Exec(`UPDATE agentInstances SET title = NULL`); err != nil {
			t.Fatal(err)
		}
	})
	r := mustRun(t, testOptions(t, db))
	if len(r.warnings) != 1 || r.warnings[0].ChatID != "untitled" || !strings.Contains(r.warnings[0].Text, "title is NULL") {
		t.Errorf("warnings %v", r.warnings)
	}
	md := readMetadata(t, filepath.Join(r.out, "001-", "compression-001"))
	if v, ok := md["chatTitle"]; !ok || v != nil {
		t.Errorf("chatTitle %v", md["chatTitle"])
	}
}

// TestLeftOutMessagesWarn: every message a bundle's compact history does
// not hold is a warning naming the chat and the message index, once per
// chat however many bundles leave it out: a message whose role is
// neither user nor assistant (the upstream leaves it out silently), one
// without a role, and a null one (named by the crash warning).
func TestLeftOutMessagesWarn(t *testing.T) {
	sys := `{"id":"s","role":"system","parts":[{"type":"text","text":"be brief"}],"metadata":{}}`
	noRole := `{"id":"n","parts":"not an array","metadata":{}}`
	h := historyOf(hUser("one"), sys, hAsst("two", `{"compressedHistory":"first"}`), noRole, hUser("three"), hAsst("four", `{"compressedHistory":"second"}`), hUser("five"), hAsst("six", `{"compressedHistory":"third"}`))
	db := writeDB(t, tChat{id: "mixed", title: "Mixed", lastAt: 1, history: h})
	r := mustRun(t, historyOptions(t, db))
	type got struct {
		chat string
		msg  int
	}
	var ws []got
	for _, w := range r.warnings {
		if !strings.Contains(w.Text, "left out") {
			t.Errorf("unexpected warning %v", w)
			continue
		}
		ws = append(ws, got{w.ChatID, w.Message})
	}
	if want := []got{{"mixed", 1}, {"mixed", 3}}; !slices.Equal(ws, want) {
		t.Errorf("warnings at %v, want %v (%v)", ws, want, r.warnings)
	}
	if len(r.warnings) == 2 && (!strings.Contains(r.warnings[0].Text, `"system"`) || !strings.Contains(r.warnings[1].Text, "undefined")) {
		t.Errorf("warnings do not say why: %v", r.warnings)
	}
	// The bundles are what the upstream writes: neither message is in them.
	data, err := os.ReadFile(filepath.Join(r.out, "001-mixed", "compression-001", bundle.FileCompact))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "be brief") || strings.Count(string(data), "<user>") != 1 {
		t.Errorf("compact history %q", data)
	}
}
