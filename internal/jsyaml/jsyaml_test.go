package jsyaml

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

type vector struct {
	Input    string          `json:"input"`
	Expected json.RawMessage `json:"expected"`
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestVectors: testdata/vectors.jsonl holds inputs with what js-yaml
// 3.14.2 gave for them (written by testdata/js-yaml.mjs through
// TestAgainstJSYAML's -update-vectors mode, never by hand).
func TestVectors(t *testing.T) {
	f, err := os.Open("testdata/vectors.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var v vector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		n++
		if got := result(v.Input); !sameJSON(got, string(v.Expected)) {
			t.Errorf("%q:\n got %s\nwant %s", v.Input, got, v.Expected)
		}
	}
	if n == 0 {
		t.Fatal("no vectors")
	}
}

// fragments of frontmatter YAML, put together at random.
var (
	keys   = []string{"name", "description", "x", "name ", "'name'", `"name"`, "? name", "<<", "1", "1.0", "0x1", "true", "null", "~", "[a, b]", "{a: 1}", "&k name", "*k", "!!str name", "- name", "name\t", "\tname", "a b", "a#b", "%a", "@a", "`a", "-a", "? [name]"}
	values = []string{"Alpha", "d", "", " ", "\"\"", "''", "42", "4_2", "012", "0o17", "0x1F", "0b101", "1:20", "190:20:30", "1e3", "1.5e+3", ".5", "+1", "-0", ".inf", "-.Inf", ".NaN", "null", "Null", "nUll", "~", "true", "True", "tRue", "yes", "2020-01-01", "2020-1-1 10:00:00", "2020-01-01T10:00:00.123456Z", "2020-01-01 10:00:00 +02:00",
		"'it''s'", `"a\tb\u00e9\U0001F600"`, `"\x41\N\_\L\P"`, `"bad\q"`, "|\n  block\n  text\n", ">\n  folded\n  text\n\n  more\n", "|-\n  strip\n", "|+\n  keep\n\n", "|2\n   indented\n", ">\n\tx\n", "[a, b]", "[a,\n\tb]", "{a: 1, b: [2]}", "{a: 1, a: 2}", "&a x", "*a", "*nope", "!!str 5", "!!int 5", "!!int x", "!!float 1", "!!bool yes", "!!null ''", "!!binary aGVsbG8=", "!!binary a", "!!timestamp 2020-01-01", "!!set {a, b}", "!!omap [a: 1, b: 2]", "!!pairs [a: 1, a: 2]", "!!seq [1]", "!!map {}", "!foo x", "!<tag:yaml.org,2002:str> 5", "! 5", "!!merge <<", "a # comment", "a#b", "a: b", "- x", "\"multi\n  line\"", "'multi\n\n  line'", "plain\n  continued", "plain\n\tcontinued", "x\r", "<<", "=", "@x", "`x", "%x", "\u00e9t\u00e9", "\u0085x", "a\x01b"}
	seps = []string{": ", ":\t", ":", " : ", ":  "}
	lead = []string{"", "", "", "  ", "\t", " \t", "\t ", "    "}
	ends = []string{"\n", "\n", "\r\n", "\n\n", "\n# c\n", "\n  \n"}
)

func genYAML(r *rand.Rand) string {
	if r.Intn(2) == 0 {
		return genSane(r)
	}
	var b strings.Builder
	if r.Intn(10) == 0 {
		b.WriteString([]string{"%YAML 1.2\n---\n", "---\n", "%TAG !e! tag:example.com,2000:\n---\n", "# c\n", "\ufeff", " "}[r.Intn(6)])
	}
	n := 1 + r.Intn(4)
	for i := 0; i < n; i++ {
		b.WriteString(lead[r.Intn(len(lead))])
		b.WriteString(keys[r.Intn(len(keys))])
		b.WriteString(seps[r.Intn(len(seps))])
		b.WriteString(values[r.Intn(len(values))])
		if r.Intn(4) == 0 {
			b.WriteString(ends[r.Intn(len(ends))])
			b.WriteString(lead[r.Intn(len(lead))])
			b.WriteString("  " + keys[r.Intn(len(keys))] + seps[r.Intn(len(seps))] + values[r.Intn(len(values))])
		}
		b.WriteString(ends[r.Intn(len(ends))])
	}
	if r.Intn(8) == 0 {
		b.WriteString([]string{"...\n", "---\nx: 1\n", "- a\n", "&a {b: 1}\n"}[r.Intn(4)])
	}
	s := b.String()
	if r.Intn(6) == 0 && len(s) > 0 {
		s = s[:r.Intn(len(s))]
	}
	return s
}

// TestAgainstJSYAML compares SafeLoad with the real js-yaml on generated
// inputs. It runs only with JSYAML set to a js-yaml 3.14.2 directory
// (e.g. the one scripts/upstream-diff/setup.sh installs, under
// $UD_WORK/up/node_modules/js-yaml) and node on the PATH; JSYAML_N inputs
// (default 20000, from seed JSYAML_SEED, default 1). With JSYAML_UPDATE=1 it rewrites testdata/vectors.jsonl
// from every vector input plus one input per distinct outcome found.
func TestAgainstJSYAML(t *testing.T) {
	mod := os.Getenv("JSYAML")
	if mod == "" {
		t.Skip("JSYAML not set")
	}
	n := 20000
	if s := os.Getenv("JSYAML_N"); s != "" {
		if _, err := fmtSscan(s, &n); err != nil {
			t.Fatal(err)
		}
	}
	seed := 1
	if s := os.Getenv("JSYAML_SEED"); s != "" {
		if _, err := fmtSscan(s, &seed); err != nil {
			t.Fatal(err)
		}
	}
	r := rand.New(rand.NewSource(int64(seed)))
	var inputs []string
	if data, err := os.ReadFile("testdata/vectors.jsonl"); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var v vector
			if json.Unmarshal([]byte(line), &v) == nil {
				inputs = append(inputs, v.Input)
			}
		}
	}
	fixed := len(inputs)
	for i := 0; i < n; i++ {
		inputs = append(inputs, genYAML(r))
	}
	var in bytes.Buffer
	for _, s := range inputs {
		b, _ := json.Marshal(map[string]string{"input": s})
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command("node", "testdata/js-yaml.mjs")
	cmd.Env = append(os.Environ(), "JSYAML="+mod, "TZ=UTC")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(inputs) {
		t.Fatalf("%d answers for %d inputs", len(lines), len(inputs))
	}
	bad := 0
	var keep []vector
	seen := map[string]bool{}
	for i, s := range inputs {
		got := result(s)
		if !sameJSON(got, lines[i]) {
			bad++
			if bad <= 30 {
				t.Errorf("%q:\n got %s\nwant %s", s, got, lines[i])
			}
			continue
		}
		// Keep the fixed inputs, and a few of each outcome shape.
		shape := shapeOf(lines[i])
		if i < fixed || !seen[shape] {
			seen[shape] = true
			keep = append(keep, vector{Input: s, Expected: json.RawMessage(lines[i])})
		}
	}
	errs := 0
	for _, l := range lines {
		if strings.HasPrefix(l, `{"error"`) {
			errs++
		}
	}
	t.Logf("%d inputs (%d rejected by js-yaml), %d outcome shapes, %d differ", len(inputs), errs, len(seen), bad)
	if os.Getenv("JSYAML_UPDATE") == "1" && bad == 0 {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		for _, v := range keep {
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile("testdata/vectors.jsonl", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// shapeOf is a coarse key for an outcome: error, or the kinds of the
// name and description members.
func shapeOf(answer string) string {
	var a struct {
		Error bool `json:"error"`
		Value any  `json:"value"`
	}
	_ = json.Unmarshal([]byte(answer), &a)
	if a.Error {
		return "error"
	}
	m, ok := a.Value.(map[string]any)
	if !ok {
		return fmt.Sprintf("%T", a.Value)
	}
	pairs, _ := m["o"].([]any)
	var b strings.Builder
	for _, p := range pairs {
		kv := p.([]any)
		b.WriteString(kv[0].(string))
		b.WriteString("=")
		fmt.Fprintf(&b, "%T", kv[1])
		b.WriteString(";")
	}
	return b.String()
}

// genSane writes mostly well-formed frontmatter: name and description
// with odd scalars, some nesting, an odd line now and then.
func genSane(r *rand.Rand) string {
	var b strings.Builder
	sane := []string{"name", "description", "x", "user-invocable", "tags"}
	n := 1 + r.Intn(4)
	for i := 0; i < n; i++ {
		if r.Intn(8) == 0 {
			b.WriteString(lead[r.Intn(len(lead))])
		}
		b.WriteString(sane[r.Intn(len(sane))])
		b.WriteString(": ")
		switch r.Intn(6) {
		case 0:
			b.WriteString("\n  - " + values[r.Intn(len(values))] + "\n  - b")
		case 1:
			b.WriteString("\n  k: " + values[r.Intn(len(values))])
		default:
			b.WriteString(values[r.Intn(len(values))])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// FuzzSafeLoad: any input loads or fails, without a panic or a hang.
func FuzzSafeLoad(f *testing.F) {
	r := rand.New(rand.NewSource(5))
	for i := 0; i < 50; i++ {
		f.Add(genYAML(r))
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = SafeLoad(s)
	})
}
