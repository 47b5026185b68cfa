package prompt

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

const (
	fixturePromptTS = "../../testdata/conformance/prompt-fixture/prompt.ts"
	userMessageJSON = "../../testdata/conformance/vectors/user-message.jsonl"
)

func len16(s string) int { return len(utf16.Encode([]rune(s))) }

func importFixture(t testing.TB) *Pack {
	t.Helper()
	src, err := os.ReadFile(fixturePromptTS)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Import(src)
	if err != nil {
		t.Fatalf("Import(fixture): %v", err)
	}
	return p
}

type userMessageVector struct {
	Name                  string `json:"name"`
	Locale                string `json:"locale"`
	CompactHistory        string `json:"compactHistory"`
	PreviousBriefingChars int    `json:"previousBriefingChars"`
	Expected              string `json:"expected"`
	ExpectedLen16         int    `json:"expectedLen16"`
}

func TestUserMessageVectors(t *testing.T) {
	p := importFixture(t)
	f, err := os.Open(userMessageJSON)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var v userMessageVector
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		t.Run(v.Name, func(t *testing.T) {
			got := p.UserMessage(v.CompactHistory, v.PreviousBriefingChars, v.Locale)
			if diff := cmp.Diff(v.Expected, got); diff != "" {
				t.Errorf("UserMessage mismatch (-want +got):\n%s", diff)
			}
			if l := len16(got); l != v.ExpectedLen16 {
				t.Errorf("len16 = %d, want %d", l, v.ExpectedLen16)
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 19 {
		t.Errorf("read %d vectors, want 19", n)
	}
}

func TestBucketSelection(t *testing.T) {
	p := &Pack{
		SystemPrompt: "s",
		TargetChars:  30000,
		Layout:       Layout{Prefix: "<", Suffix: ">", Separator: "|", Closing: "end"},
		Hints: []Hint{
			{When: CondPrevZero, Template: "A {target}"},
			{When: CondRatioBelow(0.6), Template: "B {prev} {percent}"},
			{When: CondRatioBelow(0.85), Template: "C {prev} {percent}"},
			{When: CondOtherwise, Template: "D {prev} {percent}"},
		},
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		prev int
		want string
	}{
		{0, "A 30,000"},
		{1, "B 1 0"},
		{149, "B 149 0"},
		{150, "B 150 1"}, // 0.5 rounds up
		{17999, "B 17,999 60"},
		{18000, "C 18,000 60"},
		{25499, "C 25,499 85"},
		{25500, "D 25,500 85"},
		{30000, "D 30,000 100"},
		{45000, "D 45,000 150"},
		{123456, "D 123,456 412"},
		{3000000, "D 3,000,000 10000"}, // the percent is never grouped
		{-1, "B -1 0"},                 // Math.round(-0.0033…) is -0, printed "0"
		{-150, "B -150 0"},             // Math.round(-0.5) is -0
		{-151, "B -151 -1"},
	}
	for _, tt := range tests {
		got := p.UserMessage("h", tt.prev, "en-US")
		want := "<h>|" + tt.want + "|end"
		if got != want {
			t.Errorf("prev %d: got %q, want %q", tt.prev, got, want)
		}
	}
}

func TestJSRound(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{0.49999999999999994, "0"},
		{0.5, "1"},
		{1.5, "2"},
		{2.5, "3"},
		{-2.5, "-2"},
		{-0.4, "0"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{4503599627370497, "4503599627370497"},
		{1e21, "1e+21"},
	}
	for _, tt := range tests {
		if got := jsNumberToString(jsRound(tt.x)); got != tt.want {
			t.Errorf("Math.round(%v) = %s, want %s", tt.x, got, tt.want)
		}
	}
	// For every realistic size floor(x+0.5) and Math.round agree.
	for prev := 0; prev <= 300000; prev++ {
		x := float64(prev) / 30000 * 100
		if a, b := math.Floor(x+0.5), jsRound(x); a != b {
			t.Fatalf("prev %d: floor(x+0.5)=%v, Math.round=%v", prev, a, b)
		}
	}
}

func TestJSNumberToString(t *testing.T) {
	tests := map[float64]string{
		0: "0", 1: "1", -7: "-7", 0.5: "0.5", 1e-7: "1e-7", 1.5e-7: "1.5e-7",
		123456789012345680000: "123456789012345680000", 1e21: "1e+21", 1.25e22: "1.25e+22",
	}
	for x, want := range tests {
		if got := jsNumberToString(x); got != want {
			t.Errorf("String(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestTemplates(t *testing.T) {
	tests := []struct {
		tmpl, want, err string
	}{
		{tmpl: "{target}/{prev}/{percent}", want: "T/P/N"},
		{tmpl: "{{target}} {{}} }}{{", want: "{target} {} }{"},
		{tmpl: "", want: ""},
		{tmpl: "a {foo} b", err: "unknown placeholder {foo}"},
		{tmpl: "a } b", err: "lone '}'"},
		{tmpl: "a { b }", err: "unknown placeholder"},
		{tmpl: "a { b", err: "unclosed"},
		{tmpl: "a {target", err: "unclosed '{'"},
	}
	for _, tt := range tests {
		_, err := parseTemplate(tt.tmpl)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseTemplate(%q) error = %v, want %q", tt.tmpl, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseTemplate(%q): %v", tt.tmpl, err)
			continue
		}
		if got := renderTemplate(tt.tmpl, "T", "P", "N"); got != tt.want {
			t.Errorf("render(%q) = %q, want %q", tt.tmpl, got, tt.want)
		}
		if back := templateOf([]part{{kind: pText, text: tt.want}}); renderTemplate(back, "", "", "") != tt.want {
			t.Errorf("escapeTemplateText(%q) does not round-trip", tt.want)
		}
	}
}

func TestConditions(t *testing.T) {
	good := map[string]cond{
		"prev == 0":        {kind: condPrevZero},
		"prev==0":          {kind: condPrevZero},
		" otherwise ":      {kind: condOtherwise},
		"ratio < 0.6":      {kind: condRatioBelow, x: 0.6},
		"ratio<.85":        {kind: condRatioBelow, x: 0.85},
		"ratio < 1e-1":     {kind: condRatioBelow, x: 0.1},
		"ratio   <   1.00": {kind: condRatioBelow, x: 1},
	}
	for s, want := range good {
		got, err := parseCond(s)
		if err != nil || got != want {
			t.Errorf("parseCond(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "prev == 1", "ratio <= 0.6", "ratio < -1", "ratio < 0x10", "ratio < inf", "ratio < NaN", "else", "ratio < 1e"} {
		if _, err := parseCond(s); err == nil {
			t.Errorf("parseCond(%q) accepted", s)
		}
	}
}

func TestValidate(t *testing.T) {
	base := func() *Pack {
		p, err := Builtin(DefaultPackName)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name   string
		modify func(*Pack)
		err    string
	}{
		{"zero target", func(p *Pack) { p.TargetChars = 0 }, "targetChars"},
		{"no hints", func(p *Pack) { p.Hints = nil }, "at least one bucket"},
		{"otherwise not last", func(p *Pack) { p.Hints[1].When = CondOtherwise }, "must be the last"},
		{"no otherwise", func(p *Pack) { p.Hints[3].When = "ratio < 2" }, "the last bucket must be"},
		{"bad condition", func(p *Pack) { p.Hints[0].When = "prev < 3" }, "hints[0].when"},
		{"bad template", func(p *Pack) { p.Hints[2].Template = "{pct}" }, "hints[2].template"},
	}
	for _, tt := range tests {
		p := base()
		tt.modify(p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.err)
		}
		if err := p.Save(t.TempDir()); err == nil {
			t.Errorf("%s: Save accepted an invalid pack", tt.name)
		}
	}
}

func TestBuiltinDefault(t *testing.T) {
	p, err := Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	if p.TargetChars != 30000 {
		t.Errorf("TargetChars = %d", p.TargetChars)
	}
	wantWhen := []string{"prev == 0", "ratio < 0.6", "ratio < 0.85", "otherwise"}
	var gotWhen []string
	for _, h := range p.Hints {
		gotWhen = append(gotWhen, h.When)
	}
	if diff := cmp.Diff(wantWhen, gotWhen); diff != "" {
		t.Errorf("buckets (-want +got):\n%s", diff)
	}
	first := p.Hints[0].Template
	if !strings.Contains(first, "{target}") || strings.Contains(first, "{prev}") || strings.Contains(first, "{percent}") {
		t.Errorf("bucket 0 template %q: want {target} only", first)
	}
	for i, h := range p.Hints[1:] {
		for _, ph := range []string{"{target}", "{prev}", "{percent}"} {
			if !strings.Contains(h.Template, ph) {
				t.Errorf("bucket %d template lacks %s", i+1, ph)
			}
		}
		if !strings.HasPrefix(h.Template, first) {
			t.Errorf("bucket %d does not start with the target sentence %q", i+1, first)
		}
	}
	if p.Layout != (Layout{Prefix: "<chat-history>", Suffix: "</chat-history>", Separator: "\n\n", Closing: p.Layout.Closing}) || p.Layout.Closing == "" {
		t.Errorf("layout = %#v", p.Layout)
	}
	sys := p.System()
	for _, s := range []string{"## Current working state", "[](path:", "wsfile:", "<user>", "<assistant>", "<previous-chat-history>", "<slash-command>", "[attached:", "[mentioned:", "binding", "historical", "[tests: … → passed]", "you"} {
		if !strings.Contains(sys, s) {
			t.Errorf("system prompt does not mention %q", s)
		}
	}
	if strings.HasSuffix(sys, "\n") {
		t.Error("system prompt ends with a newline")
	}
	msg := p.UserMessage("<user>hi</user>", 18000, "de-DE")
	if !strings.HasPrefix(msg, "<chat-history><user>hi</user></chat-history>\n\n") || !strings.Contains(msg, "30.000") || !strings.Contains(msg, "18.000") || !strings.Contains(msg, "(60%") {
		t.Errorf("UserMessage = %q", msg)
	}

	if _, err := Builtin("nope"); err == nil {
		t.Error("Builtin(nope) succeeded")
	}
	if diff := cmp.Diff([]string{"claude-code", "codex", "default", "gemini-cli", "opencode"}, BuiltinNames()); diff != "" {
		t.Error(diff)
	}
	// Builtin returns independent copies.
	p.Hints[0].Template = "changed"
	q, _ := Builtin("default")
	if q.Hints[0].Template == "changed" {
		t.Error("Builtin shares state between calls")
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	def, err := Builtin(DefaultPackName)
	if err != nil {
		t.Fatal(err)
	}
	odd := &Pack{
		SystemPrompt: "line 1\r\n<tag> & \"q\" \u2028 {x}\n\n",
		TargetChars:  1234,
		Layout:       Layout{Prefix: "", Suffix: "\t", Separator: "", Closing: "→ ✓"},
		Hints:        []Hint{{When: "ratio < 0.3333333333333333", Template: "{{literal}} {percent}%"}, {When: CondOtherwise, Template: ""}},
	}
	for name, p := range map[string]*Pack{"default": def, "fixture": importFixture(t), "odd": odd} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "a", "pack")
			if err := p.Save(dir); err != nil {
				t.Fatal(err)
			}
			// Saving again over an existing pack works too.
			if err := p.Save(dir); err != nil {
				t.Fatal(err)
			}
			got, err := LoadPack(dir)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(p, got); diff != "" {
				t.Errorf("round trip (-saved +loaded):\n%s", diff)
			}
			raw, err := os.ReadFile(filepath.Join(dir, SystemPromptFile))
			if err != nil || string(raw) != p.SystemPrompt {
				t.Errorf("system-prompt.md = %q, %v", raw, err)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 2 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("pack directory holds %v, want the two pack files only", names)
			}
			r, err := Resolve(dir)
			if err != nil || r.TargetChars != p.TargetChars {
				t.Errorf("Resolve(dir) = %v, %v", r, err)
			}
		})
	}
}

func TestLoadPackErrors(t *testing.T) {
	write := func(t *testing.T, sys *string, js string) string {
		dir := t.TempDir()
		if sys != nil {
			if err := os.WriteFile(filepath.Join(dir, SystemPromptFile), []byte(*sys), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, PackFile), []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	sys := "s"
	ok := `{"format":"compact-prompt-pack/1","targetChars":10,"userMessage":{"prefix":"","suffix":"","separator":"","closing":""},"hints":[{"when":"otherwise","template":"x"}]}`
	if _, err := LoadPack(write(t, &sys, ok)); err != nil {
		t.Fatalf("minimal pack: %v", err)
	}
	tests := []struct {
		name string
		sys  *string
		js   string
		err  string
	}{
		{"no system prompt", nil, ok, SystemPromptFile},
		{"bad json", &sys, `{`, "pack.json"},
		{"unknown field", &sys, strings.Replace(ok, `"targetChars"`, `"extra":1,"targetChars"`, 1), "unknown field"},
		{"wrong format", &sys, strings.Replace(ok, "compact-prompt-pack/1", "v2", 1), "format"},
		{"trailing data", &sys, ok + "{}", "after the JSON"},
		{"bad bucket", &sys, strings.Replace(ok, `"otherwise"`, `"sometimes"`, 1), "hints[0].when"},
	}
	for _, tt := range tests {
		_, err := LoadPack(write(t, tt.sys, tt.js))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: LoadPack error = %v, want %q", tt.name, err, tt.err)
		}
	}
	if _, err := Resolve(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Resolve(missing dir) succeeded")
	}
	if p, err := Resolve(""); err != nil || p.TargetChars != 30000 {
		t.Errorf("Resolve(\"\") = %v, %v", p, err)
	}
}
