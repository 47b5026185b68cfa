package extract

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/testdb"
)

// textColumnCases are byte strings (hex) and what Node's UTF-8 decoder
// makes of them (hex of the UTF-8 of the JS string), as printed by
// `new TextDecoder().decode(Buffer.from(hex, "hex"))` in Node 20; the
// upstream pipeline (sqlite3 CLI json_object, execSync(...).toString(),
// JSON.parse, JSON.stringify) gives the same for a title.
var textColumnCases = []struct{ in, want string }{
	{"", ""},
	{"41", "41"},
	{"ff", "efbfbd"},
	{"80", "efbfbd"},
	{"bf80", "efbfbdefbfbd"}, // lone continuation bytes: one each
	{"c0", "efbfbd"},         // never a lead byte
	{"c1bf", "efbfbdefbfbd"}, // overlong 2-byte
	{"c0af", "efbfbdefbfbd"}, // overlong "/"
	{"c2", "efbfbd"},         // truncated at the end
	{"c27f", "efbfbd7f"},     // an ASCII byte is never swallowed
	{"c280", "c280"},         // U+0080
	{"dfbf", "dfbf"},         // U+07FF
	{"e0", "efbfbd"},         //
	{"e080", "efbfbdefbfbd"}, // E0 needs A0..BF next
	{"e09f80", "efbfbdefbfbdefbfbd"},
	{"e0a080", "e0a080"}, // U+0800
	{"e0a0", "efbfbd"},   // truncated: one for the maximal subpart
	{"e2", "efbfbd"},
	{"e282", "efbfbd"},
	{"e282ac", "e282ac"}, // €
	{"e28241", "efbfbd41"},
	{"e2ff", "efbfbdefbfbd"},
	{"e2c280", "efbfbdc280"},         // the bad tail starts a valid sequence
	{"ed9fbf", "ed9fbf"},             // U+D7FF
	{"eda080", "efbfbdefbfbdefbfbd"}, // U+D800 encoded: ED then one per byte
	{"edbfbf", "efbfbdefbfbdefbfbd"}, // U+DFFF encoded
	{"eda0bdedb880", "efbfbdefbfbdefbfbdefbfbdefbfbdefbfbd"}, // CESU-8 pair
	{"ee8080", "ee8080"}, // U+E000
	{"efbfbf", "efbfbf"}, // U+FFFF
	{"f0", "efbfbd"},
	{"f080", "efbfbdefbfbd"},
	{"f08f8080", "efbfbdefbfbdefbfbdefbfbd"}, // overlong 4-byte
	{"f0908080", "f0908080"},                 // U+10000
	{"f09080", "efbfbd"},
	{"f090", "efbfbd"},
	{"f48fbfbf", "f48fbfbf"}, // U+10FFFF
	{"f48fbf", "efbfbd"},
	{"f4908080", "efbfbdefbfbdefbfbdefbfbd"}, // past U+10FFFF
	{"f5808080", "efbfbdefbfbdefbfbdefbfbd"},
	{"f8888080", "efbfbdefbfbdefbfbdefbfbd"}, // old 5-byte form
	{"fe", "efbfbd"},
	{"fffe", "efbfbdefbfbd"},
	{"41e282e282ac42", "41efbfbde282ac42"},
	{"f0f0908080", "efbfbdf0908080"},
	{"e282e282", "efbfbdefbfbd"},
}

func TestTextColumn(t *testing.T) {
	for _, c := range textColumnCases {
		in, _ := hex.DecodeString(c.in)
		want, _ := hex.DecodeString(c.want)
		got := TextColumn(string(in))
		if got != string(want) {
			t.Errorf("TextColumn(%s) = %x, want %s", c.in, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("TextColumn(%s) = %x is not valid UTF-8", c.in, got)
		}
	}
}

// TestTextColumnMatchesNode compares TextColumn with Node's decoder on
// random byte strings biased towards UTF-8 edge bytes, when node is
// installed.
func TestTextColumnMatchesNode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	rng := rand.New(rand.NewPCG(14, 6))
	edge := []byte{0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf,
		0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf7, 0xf8, 0xfe, 0xff}
	var ins []string
	for range 3000 {
		b := make([]byte, 1+rng.IntN(8))
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = byte(rng.IntN(256))
			} else {
				b[i] = edge[rng.IntN(len(edge))]
			}
		}
		ins = append(ins, hex.EncodeToString(b))
	}
	cmd := exec.Command(node, "-e", `const d = new TextDecoder();
let s = ""; process.stdin.on("data", c => s += c).on("end", () => {
  process.stdout.write(s.trim().split("\n").map(h =>
    Buffer.from(Buffer.from(h, "hex").toString()).toString("hex") + " " +
    Buffer.from(d.decode(Buffer.from(h, "hex"))).toString("hex")).join("\n"));
});`)
	cmd.Stdin = strings.NewReader(strings.Join(ins, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("node: %v", err)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) != len(ins) {
		t.Fatalf("node gave %d lines for %d inputs", len(lines), len(ins))
	}
	for i, line := range lines {
		buf, dec, _ := strings.Cut(line, " ")
		if buf != dec {
			t.Errorf("%s: Buffer.toString %s, TextDecoder %s", ins[i], buf, dec)
		}
		in, _ := hex.DecodeString(ins[i])
		if got := hex.EncodeToString([]byte(TextColumn(string(in)))); got != buf {
			t.Errorf("TextColumn(%s) = %s, node %s", ins[i], got, buf)
		}
	}
}

func TestTextColumnValidUnchanged(t *testing.T) {
	s := "Fix Button color (v2)! — ünïcödé 🎉"
	if got := TextColumn(s); got != s {
		t.Fatalf("TextColumn(%q) = %q", s, got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = TextColumn(s) }); n != 0 {
		t.Errorf("TextColumn allocates %v times on valid text", n)
	}
}

// TestInvalidUTF8TitleEndToEnd: a chat whose title and id hold invalid
// UTF-8 gets a metadata.json that is valid JSON holding U+FFFD exactly where
// the upstream puts them; the slug keeps only the ASCII.
func TestInvalidUTF8TitleEndToEnd(t *testing.T) {
	title := []byte("Fix \xed\xa0\x80 bug\xe2\x82 now\xff")
	id := []byte("chat-\xc0\xaf")
	db := testdb.Write(t, schemaV9, func(db testdb.Execer) {
		insertChats(t, db, tChat{id: "x", title: "placeholder", lastAt: 1, rows: convo(8, 4)})
		testdb.SetChatText(t, db, "x", "title", title)
		testdb.SetChatText(t, db, "x", "id", id)
	})
	r := mustRun(t, testOptions(t, db))
	if len(r.warnings) != 0 {
		t.Errorf("warnings %v", r.warnings)
	}
	dir := filepath.Join(r.out, "001-fix-bug-now", bundle.CompressionDirName(1))
	data, err := os.ReadFile(filepath.Join(dir, bundle.FileMetadata))
	if err != nil {
		t.Fatalf("%v (tree %v)", err, tree(t, r.out))
	}
	if !json.Valid(data) || !utf8.Valid(data) {
		t.Fatalf("metadata.json is not valid JSON:\n%q", data)
	}
	want := "{\n  \"chatId\": \"chat-\uFFFD\uFFFD\",\n  \"chatTitle\": \"Fix \uFFFD\uFFFD\uFFFD bug\uFFFD now\uFFFD\",\n  \"channel\": \"prerelease\",\n"
	if !bytes.HasPrefix(data, []byte(want)) {
		t.Errorf("metadata.json starts\n%q\nwant\n%q", data[:min(len(data), len(want)+20)], want)
	}
}
