// Command gen writes adversarial stagewise agent databases for the
// differential test against the upstream (scripts/upstream-diff; not run by
// CI). For a seed it writes, under -out:
//
//	instances.sqlite  a v9 database: chats whose legacy history column and
//	                  agentMessages rows hold random JavaScript values through
//	                  superjson (Date, undefined, bigint, Map, Set, NaN, -0,
//	                  regexps, errors, typed arrays, shared and circular
//	                  references), wrong types at the fields the serializer,
//	                  the estimator and the slash scan read, odd unicode (lone
//	                  surrogates as JSON escapes, astral characters, NUL,
//	                  invalid UTF-8 in titles)
//	skills/           a skills tree (skills/*, plugins/*) with odd SKILL.md
//	                  files: BOM, CRLF, colliding names, empty descriptions,
//	                  no frontmatter, other frontmatter languages
//	args              the extraction's arguments: channel and --min-messages
//	fn.jsonl          function-level inputs for the oracle (serialize and
//	                  estimateEach), made without the script's crash guards
//	crash             present when the database holds one value that makes
//	                  the upstream script crash; it names which
//
// Usage: go run ./scripts/upstream-diff/gen -seed N -out DIR
package main

import (
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/testdb"

	_ "modernc.org/sqlite"
)

func main() {
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("out", "", "output directory (created)")
	fnLines := flag.Int("fn", 40, "function-level inputs to write")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -out is required")
		os.Exit(2)
	}
	if err := run(*seed, *out, *fnLines); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

var crashKinds = []string{"null-history", "null-message", "summary-not-string", "user-null-part", "user-text-not-string", "bigint-boundary-id"}

type chat struct {
	id, title string
	titleRaw  []byte // when set, stored as is (may be invalid UTF-8)
	titleBlob bool
	lastAt    any
	history   string
	rows      []msgRow
}

type msgRow struct {
	id, role, parts string
	meta            *string
}

func run(seed uint64, out string, fnLines int) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	g := &gen{Rand: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), safe: true}
	g.slash = g.skillsTree(filepath.Join(out, "skills"))
	g.labels = []string{"/build", "build", "", "x]y", "é", "[", "a b", "😀"}

	crash := ""
	if g.chance(20) {
		crash = pick(g, crashKinds)
	}
	nChats := 2 + g.IntN(6)
	crashChat := g.IntN(nChats)
	var chats []chat
	for c := 0; c < nChats; c++ {
		ch := chat{id: fmt.Sprintf("chat-%d-%x", c, g.IntN(1<<20)), title: g.title()}
		if g.chance(8) {
			ch.titleRaw = pick(g, [][]byte{{'b', 'a', 'd', 0xff, ' ', 'x'}, {0xed, 0xa0, 0x80, 'y'}, {'n', 'u', 'l', 0, 'z'}, {0xc3}, {'A', 0xf0, 0x9f, 0x98}})
		}
		if g.chance(2) {
			ch.titleBlob = true
		}
		ch.lastAt = int64(g.IntN(4))
		if g.chance(5) {
			ch.lastAt = pick(g, []any{"2", 1.5, "x"})
		}
		n := g.IntN(15)
		var points []bool
		for i := 0; i < n; i++ {
			points = append(points, g.chance(25))
		}
		cc := ""
		if c == crashChat {
			cc = crash
		}
		msgs := jArr{}
		crashAt := -1
		if n > 0 {
			crashAt = g.IntN(n)
		}
		for i := 0; i < n; i++ {
			crashPoint := cc == "summary-not-string" && i == crashAt
			if crashPoint {
				points[i] = true
			}
			m := g.message(i, points[i], crashPoint)
			if i == crashAt {
				switch cc {
				case "null-message":
					m = pick(g, []jv{jNull{}, jUndef{}})
				case "user-null-part":
					m = jObj{{"id", s("u")}, {"role", s("user")}, {"parts", jArr{s("text"), jNull{}}}}
					points[i] = false
				case "user-text-not-string":
					m = jObj{{"id", s("u")}, {"role", s("user")}, {"parts", jArr{jObj{{"type", s("text")}, {"text", pick(g, []jv{jNum("5"), jArr{s("[a](slash:command:build)")}, jObj{}, jBool(true), jBig("7")})}}}}}
					points[i] = false
				case "bigint-boundary-id":
					m = jObj{{"id", jBig("12")}, {"role", s("assistant")}, {"parts", jArr{}}, {"metadata", jObj{{"compressedHistory", s("summary")}}}}
					points[i] = true
				}
			}
			msgs = append(msgs, m)
		}
		// make crashes reachable: a point after the crashing message
		if cc == "user-null-part" || cc == "user-text-not-string" {
			msgs = append(msgs, jObj{{"id", s("after")}, {"role", s("assistant")}, {"parts", jArr{}}, {"metadata", jObj{{"compressedHistory", s("after the crash")}}}})
		}
		if cc != "" && len(msgs) == 0 {
			msgs = append(msgs, jObj{{"id", jBig("1")}, {"role", s("assistant")}, {"parts", jArr{}}, {"metadata", jObj{{"compressedHistory", s("s")}}}})
			if cc != "bigint-boundary-id" {
				msgs[0] = jNull{}
				cc = "null-message"
			}
		}
		var hist jv = msgs
		if cc == "null-history" {
			hist = jNull{}
		} else if g.chance(4) {
			hist = pick(g, []jv{jObj{}, s("abcdefg"), jNum("7"), jSet{jObj{}}})
		}
		ch.history = superjson(hist, g.chance(15), g.chance(30), pick(g, []string{"1", "1", "1", "", "0"}))
		if g.chance(4) {
			ch.history = pick(g, []string{`{"json":[`, `not json`, `{"json":[],"meta":{"values":{"__proto__":["undefined"]}}}`, `{"json":[{"a":1}],"meta":{"values":{"0.a":["nope"]},"v":1}}`, "[\"raw\ncontrol\"]"})
		}
		for i, m := range msgs {
			ch.rows = append(ch.rows, g.row(i, m))
		}
		chats = append(chats, ch)
	}
	if err := writeDB(filepath.Join(out, "instances.sqlite"), chats); err != nil {
		return err
	}
	channel := pick(g, []string{"prerelease", "prerelease", "release", "dev"})
	minMsgs := strconv.Itoa(pick(g, []int{0, 1, 2, 3, 6, 6, -1}))
	if err := os.WriteFile(filepath.Join(out, "args"), []byte(channel+" "+minMsgs+"\n"), 0o644); err != nil {
		return err
	}
	if crash != "" {
		if err := os.WriteFile(filepath.Join(out, "crash"), []byte(crash+"\n"), 0o644); err != nil {
			return err
		}
	}
	return writeFn(g, filepath.Join(out, "fn.jsonl"), fnLines)
}

// row turns one message into an agentMessages row.
func (g *gen) row(i int, m jv) msgRow {
	r := msgRow{id: "m" + strconv.Itoa(i), role: "assistant", parts: `{"json":[]}`}
	o, ok := m.(jObj)
	if !ok {
		r.parts = superjson(m, false, false, "1")
		return r
	}
	if v, ok := o.get("id"); ok {
		if st, ok := v.(jStr); ok && len(st) == 1 && st[0].raw == "" {
			r.id = st[0].text
		}
	}
	if v, ok := o.get("role"); ok {
		if st, ok := v.(jStr); ok && len(st) == 1 && st[0].raw == "" {
			r.role = st[0].text
		}
	}
	if v, ok := o.get("parts"); ok {
		r.parts = superjson(v, g.chance(15), false, "1")
	}
	if v, ok := o.get("metadata"); ok {
		if _, undef := v.(jUndef); !undef {
			t := superjson(v, g.chance(15), false, "1")
			r.meta = &t
		}
	}
	return r
}

func (g *gen) title() string {
	parts := []string{}
	for i := g.IntN(5); i >= 0; i-- {
		parts = append(parts, pick(g, []string{"Fix", "button", "color", "(v2)!", "  ", "\t", "é", "中文", "😀", "../../etc/passwd", "a_b-c", "", "x", strings.Repeat("long", 25), "\u2028", "\r\n", "Ω"}))
	}
	return strings.Join(parts, pick(g, []string{" ", "", "-"}))
}

func writeDB(path string, chats []chat) error {
	_ = os.Remove(path)
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(testdb.SchemaV9); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	for _, c := range chats {
		if _, err := tx.Exec(`INSERT INTO agentInstances(id, type, created_at, last_message_at, active_model_id, title, history, queued_messages, input_state, used_tokens)
			VALUES(?, 'chat', 1, ?, 'claude-sonnet-4.6', ?, ?, '{"json":[]}', '{"json":""}', 0)`, c.id, c.lastAt, c.title, c.history); err != nil {
			return err
		}
		switch {
		case c.titleBlob:
			_, err = tx.Exec(`UPDATE agentInstances SET title = ? WHERE id = ?`, []byte(c.title+"\x00blob"), c.id)
		case c.titleRaw != nil:
			_, err = tx.Exec(`UPDATE agentInstances SET title = CAST(? AS TEXT) WHERE id = ?`, c.titleRaw, c.id)
		}
		if err != nil {
			return err
		}
		for i, r := range c.rows {
			var meta any
			if r.meta != nil {
				meta = *r.meta
			}
			if _, err := tx.Exec(`INSERT INTO agentMessages(agent_instance_id, seq, message_id, role, parts, metadata) VALUES(?, ?, ?, ?, ?, ?)`,
				c.id, i, r.id, r.role, r.parts, meta); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// writeFn writes function-level inputs: message arrays made without the
// script's crash guards, for the serializer (with and without resolved
// slash commands) and the estimator.
func writeFn(g *gen, path string, n int) error {
	g.safe = false
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	slashSets := [][]map[string]string{
		nil, {},
		{{"id": "command:build", "displayName": "Build", "content": "Run the build & <check>."}},
		{{"id": "command:build", "displayName": "B\"d'", "content": "a ]]> b"}, {"id": "plugin:kit:nope", "displayName": "x", "content": "y"}},
	}
	for i := 0; i < n; i++ {
		msgs := jArr{}
		for j, k := 0, g.IntN(6); j < k; j++ {
			if g.chance(4) {
				msgs = append(msgs, g.scalar())
				continue
			}
			msgs = append(msgs, g.message(j, g.chance(15), g.chance(5)))
		}
		raw := superjson(msgs, g.chance(15), g.chance(30), "1")
		sl := pick(g, slashSets)
		var slash any
		if sl != nil {
			slash = sl
		}
		if err := enc.Encode(map[string]any{"op": "serialize", "name": fmt.Sprintf("fn-%d", i), "raw": raw, "resolvedSlash": slash}); err != nil {
			return err
		}
		if err := enc.Encode(map[string]any{"op": "estimateEach", "name": fmt.Sprintf("fn-%d", i), "raw": raw}); err != nil {
			return err
		}
	}
	g.safe = true
	return nil
}
