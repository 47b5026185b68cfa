package prompt

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/fixture-pack from the imported fixture")

const goldenPackDir = "testdata/fixture-pack"

func TestImportFixtureSystemPrompt(t *testing.T) {
	p := importFixture(t)
	src, err := os.ReadFile(fixturePromptTS)
	if err != nil {
		t.Fatal(err)
	}
	// An independent reading of the literal: the fixture's only escape is \`.
	s := string(src)
	const open = "COMPRESSION_SYSTEM_PROMPT = `"
	start := strings.Index(s, open) + len(open)
	end := strings.Index(s[start:], "`;\n")
	if start < len(open) || end < 0 {
		t.Fatal("fixture shape changed")
	}
	want := strings.ReplaceAll(s[start:start+end], "\\`", "`")
	if diff := cmp.Diff(want, p.System()); diff != "" {
		t.Errorf("system prompt (-want +got):\n%s", diff)
	}
	for _, frag := range []string{
		"PLACEHOLDER SYSTEM PROMPT (fixture text, not a real instruction set)\n\nLine 3:",
		"the tags `<user>`, `<assistant>` and `<previous-chat-history>`.",
		"`[shell: label \u2192 \u2713]`",
		"an ampersand & and \"double\" plus 'single' quotes",
		"\n\n## Placeholder heading\n\n",
	} {
		if !strings.Contains(p.System(), frag) {
			t.Errorf("system prompt lacks %q", frag)
		}
	}
	if strings.Contains(p.System(), "\\") {
		t.Error("system prompt still holds a backslash")
	}
	if !strings.HasSuffix(p.System(), "Last line of the placeholder system prompt.") {
		t.Errorf("system prompt ends with %q", p.System()[len(p.System())-20:])
	}
	if p.TargetChars != 30000 {
		t.Errorf("TargetChars = %d", p.TargetChars)
	}
	if len(p.Hints) != 4 {
		t.Errorf("%d buckets", len(p.Hints))
	}
}

// TestFixturePackGolden keeps a copy of the imported fixture pack in
// testdata/fixture-pack; run with -update to rewrite it.
func TestFixturePackGolden(t *testing.T) {
	p := importFixture(t)
	if *update {
		if err := p.Save(goldenPackDir); err != nil {
			t.Fatal(err)
		}
	}
	got, err := p.MarshalPackJSON()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(goldenPackDir, PackFile))
	if err != nil {
		t.Fatalf("%v (run go test -run TestFixturePackGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("pack.json differs from the golden copy (-golden +imported); run with -update if intended:\n%s", diff)
	}
	sys, err := os.ReadFile(filepath.Join(goldenPackDir, SystemPromptFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(sys) != p.SystemPrompt {
		t.Error("system-prompt.md differs from the golden copy")
	}
	loaded, err := LoadPack(goldenPackDir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, loaded); diff != "" {
		t.Errorf("golden pack (-imported +loaded):\n%s", diff)
	}
}

// tsModule builds a prompt.ts variant: sys is the initializer of
// COMPRESSION_SYSTEM_PROMPT, fn the whole builder.
func tsModule(target, sys, fn string) string {
	return "// test module\nexport const COMPRESSION_TARGET_CHARS = " + target + ";\n" +
		"export const COMPRESSION_SYSTEM_PROMPT = " + sys + ";\n\n" + fn + "\n"
}

const fixtureBuilder = `export function buildCompressionUserMessage(
  compactHistory: string,
  previousBriefingChars = 0,
): string {
  const targetChars = COMPRESSION_TARGET_CHARS;
  const ratio = previousBriefingChars / targetChars;

  let budgetHint: string;
  if (previousBriefingChars === 0) {
    budgetHint = ` + "`N ${targetChars.toLocaleString()}`" + `;
  } else if (ratio < 0.6) {
    budgetHint = ` + "`L ${targetChars.toLocaleString()} ${previousBriefingChars.toLocaleString()} ${Math.round(ratio * 100)}`" + `;
  } else if (ratio < 0.85) {
    budgetHint = ` + "`M ${previousBriefingChars.toLocaleString()}`" + `;
  } else {
    budgetHint = ` + "`H ${previousBriefingChars.toLocaleString()}`" + `;
  }

  return ` + "`<chat-history>${compactHistory}</chat-history>\n\n${budgetHint}\n\nCLOSE`" + `;
}`

func fixtureLikePack(sys string) *Pack {
	return &Pack{
		SystemPrompt: sys,
		TargetChars:  30000,
		Layout:       Layout{Prefix: "<chat-history>", Suffix: "</chat-history>", Separator: "\n\n", Closing: "CLOSE"},
		Hints: []Hint{
			{When: "prev == 0", Template: "N {target}"},
			{When: "ratio < 0.6", Template: "L {target} {prev} {percent}"},
			{When: "ratio < 0.85", Template: "M {prev}"},
			{When: "otherwise", Template: "H {prev}"},
		},
	}
}

func TestImportVariants(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want *Pack
	}{
		{
			name: "fixture shape",
			src:  tsModule("30_000", "`sys`", fixtureBuilder),
			want: fixtureLikePack("sys"),
		},
		{
			name: "escapes",
			src:  tsModule("30000", "`a\\`b\\${c}\\\\d\\n\\t\\r\\'\\\"\\0e\\x41\\u0042\\u{1F600}\\uD83D\\uDE00\\u{D800}|\\\nf\r\ng\rh\\q\\$`", fixtureBuilder),
			want: fixtureLikePack("a`b${c}\\d\n\t\r'\"\x00eAB\U0001F600\U0001F600\uFFFD|f\ng\nhq$"),
		},
		{
			name: "string literals joined and trimmed",
			src:  tsModule("3e4", "('  one\\n' + \"two's\" + `\\tthree`).trim()", fixtureBuilder),
			want: fixtureLikePack("one\ntwo's\tthree"),
		},
		{
			name: "CRLF source",
			src:  strings.ReplaceAll(tsModule("30000", "`x\ny`", fixtureBuilder), "\n", "\r\n"),
			want: fixtureLikePack("x\ny"),
		},
		{
			name: "other names, comments, quotes, concatenation, no braces",
			src: tsModule("0x7530", "`sys`", `
/** doc */
export function buildCompressionUserMessage(history: string, prevLen: number = 0): string {
  // the target
  const tc = COMPRESSION_TARGET_CHARS; /* inline */ const r = (prevLen / tc);
  let hint = '';
  if (!prevLen) hint = 'N ' + tc.toLocaleString();
  else if ((r) < 0.6) hint = "L " + tc.toLocaleString() + ' ' + prevLen.toLocaleString() + " " + Math.round(100 * r);
  else if (0.85 > r) { hint = `+"`M ${prevLen.toLocaleString()}`"+`; }
  else {
    hint = 'H ' + prevLen.toLocaleString()
  }
  return '<chat-history>' + history + '</chat-history>\n\n' + hint + '\n\n' + CLOSING
}
const CLOSING = 'CLOSE';`),
			want: fixtureLikePack("sys"),
		},
		{
			name: "arrow function and ternaries",
			src: tsModule("30000", "`sys`", `
export const buildCompressionUserMessage = (compact: string, prev = 0): string => {
  const ratio = prev / COMPRESSION_TARGET_CHARS;
  const t = COMPRESSION_TARGET_CHARS.toLocaleString();
  const hint = prev === 0 ? `+"`N ${t}`"+`
    : ratio < 0.6 ? `+"`L ${t} ${prev.toLocaleString()} ${Math.round(ratio * 100)}`"+`
    : ratio < 0.85 ? `+"`M ${prev.toLocaleString()}`"+`
    : `+"`H ${prev.toLocaleString()}`"+`;
  return `+"`<chat-history>${compact}</chat-history>\n\n${hint}\n\nCLOSE`"+`;
};`),
			want: fixtureLikePack("sys"),
		},
		{
			name: "no final else keeps the initial value; literal braces; odd layout",
			src: tsModule("100", "'s'", `
export function buildCompressionUserMessage(c: string, p = 0) {
  const ratio = p / 100;
  let h = `+"`{default} ${(100).toLocaleString()}`"+`;
  if (p === 0) h = 'zero';
  return `+"`[${c}]\n${h}\n\nEND`"+`;
}`),
			want: &Pack{SystemPrompt: "s", TargetChars: 100,
				Layout: Layout{Prefix: "[", Suffix: "]", Separator: "\n", Closing: "\nEND"},
				Hints:  []Hint{{When: "prev == 0", Template: "zero"}, {When: "otherwise", Template: "{{default}} {target}"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Import([]byte(tt.src))
			if err != nil {
				t.Fatalf("Import: %v\n%s", err, tt.src)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pack (-want +got):\n%s", diff)
			}
		})
	}
}

func TestImportErrors(t *testing.T) {
	fix := func(old, new string) string {
		return tsModule("30000", "`sys`", strings.Replace(fixtureBuilder, old, new, 1))
	}
	tests := []struct {
		name string
		src  string
		line int // 0: the error has no line
		msg  string
	}{
		{"empty", "", 0, "no `COMPRESSION_SYSTEM_PROMPT` declaration"},
		{"no builder", tsModule("30000", "`s`", ""), 0, "function `buildCompressionUserMessage` not found"},
		{"target not a number", tsModule("'x'", "`s`", fixtureBuilder), 2, "expected a numeric literal"},
		{"target not an integer", tsModule("1.5", "`s`", fixtureBuilder), 2, "positive integer"},
		{"target bigint", tsModule("30000n", "`s`", fixtureBuilder), 2, "BigInt"},
		{"target bad separator", tsModule("30__000", "`s`", fixtureBuilder), 2, "invalid numeric literal"},
		{"target legacy octal", tsModule("0755", "`s`", fixtureBuilder), 2, "strict"},
		{"substitution in system prompt", tsModule("30000", "`a ${b}`", fixtureBuilder), 3, "substitutions are not supported"},
		{"system prompt not text", tsModule("30000", "foo()", fixtureBuilder), 3, "expected a template or string literal"},
		{"unterminated template", tsModule("30000", "`abc", ""), 3, "unterminated template literal"},
		{"unterminated string", tsModule("30000", "'abc\n'", ""), 3, "unterminated string literal"},
		{"octal escape", tsModule("30000", "'\\01'", fixtureBuilder), 3, "octal escape"},
		{"bad hex escape", tsModule("30000", "`\\xZZ`", fixtureBuilder), 3, "\\x escape"},
		{"bad unicode escape", tsModule("30000", "`\\u{110000}`", fixtureBuilder), 3, "above 10FFFF"},
		{"digit escape in template", tsModule("30000", "`\\1`", fixtureBuilder), 3, "not allowed in a template"},
		{"unterminated comment", tsModule("30000", "`s` /* x", ""), 3, "unterminated /* comment"},
		{"unsupported condition", fix("ratio < 0.6", "ratio <= 0.6"), 15, "unsupported hint condition"},
		{"condition on prev", fix("ratio < 0.85", "previousBriefingChars < 25500"), 17, "unsupported hint condition"},
		{"toLocaleString with a locale", fix("${previousBriefingChars.toLocaleString()}`;\n  } else {", "${previousBriefingChars.toLocaleString('en-US')}`;\n  } else {"), 18, "toLocaleString() with arguments"},
		{"prev without toLocaleString", fix("`M ${previousBriefingChars.toLocaleString()}`", "`M ${previousBriefingChars}`"), 18, "without .toLocaleString()"},
		{"other rounding", fix("Math.round(ratio * 100)", "Math.floor(ratio * 100)"), 16, "unsupported call"},
		{"percent computed differently", fix("Math.round(ratio * 100)", "Math.round(previousBriefingChars * 100)"), 16, "unsupported multiplication"},
		{"branches assign different names", fix("budgetHint = `M", "other = `M"), 18, "this branch assigns `other`"},
		{"two statements in a branch", fix("budgetHint = `H ${previousBriefingChars.toLocaleString()}`;", "budgetHint = 'a'; budgetHint = 'b';"), 19, "found 2 statements"},
		{"no final else and no value", fix("} else {\n    budgetHint = `H ${previousBriefingChars.toLocaleString()}`;\n  }", "}"), 13, "no final else"},
		{"return without hint", fix("${budgetHint}", "x"), 23, "the compact history and then the hint"},
		{"hint before history", fix("<chat-history>${compactHistory}</chat-history>\n\n${budgetHint}", "${budgetHint}${compactHistory}"), 23, "the hint once, after the compact history"},
		{"number in the layout", fix("CLOSE", "${targetChars.toLocaleString()}"), 23, "number outside the hint"},
		{"unknown name", fix("const targetChars = COMPRESSION_TARGET_CHARS;", "const targetChars = TARGET;"), 9, "unknown name `TARGET`"},
		{"unexpected statement", fix("let budgetHint: string;", "console.log(ratio);"), 12, "unexpected `console`"},
		{"no return", fix("return `", "const zz = `"), 0, "no return statement"},
		{"two targets", fix("const targetChars = COMPRESSION_TARGET_CHARS;", "const targetChars = 20000;"), 9, "second target size 20000"},
		{"one parameter", fix("previousBriefingChars = 0,", ""), 5, "expected two"},
		{"unbalanced builder", strings.TrimSuffix(tsModule("30000", "`s`", fixtureBuilder), "}\n"), 28, "expected `}`"},
		{"empty substitution", fix("${budgetHint}", "${}"), 25, "expected an expression"},
		{"deep nesting", tsModule("30000", "`s`", strings.Replace(fixtureBuilder, "Math.round(ratio * 100)", strings.Repeat("(", 5000)+"1"+strings.Repeat(")", 5000), 1)), 16, "nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Import([]byte(tt.src))
			if err == nil {
				t.Fatalf("Import succeeded: %+v", p)
			}
			var ie *ImportError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T %v is not an *ImportError", err, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
			if ie.Line != tt.line {
				t.Errorf("error %q: line %d, want %d", err, ie.Line, tt.line)
			}
		})
	}
}

func TestLineCol(t *testing.T) {
	src := "ab\ncd\r\nef\rg\u2028h"
	tests := []struct{ off, line, col int }{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {7, 3, 1}, {10, 4, 1}, {14, 5, 1}, {100, 5, 2},
	}
	for _, tt := range tests {
		if l, c := lineCol(src, tt.off); l != tt.line || c != tt.col {
			t.Errorf("lineCol(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
}

func FuzzImport(f *testing.F) {
	src, err := os.ReadFile(fixturePromptTS)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(src)
	f.Add([]byte(tsModule("30_000", "`a\\`b\\${c}\\u{1F600}\\uD83D`", fixtureBuilder)))
	f.Add([]byte(tsModule("0x10", "('x' + `y`).trim()", strings.ReplaceAll(fixtureBuilder, "if (previousBriefingChars === 0)", "if (!previousBriefingChars)"))))
	f.Add([]byte("const x = /re`/g; export const COMPRESSION_SYSTEM_PROMPT = `${`${`"))
	f.Add([]byte("`${"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Import(data)
		if err != nil {
			var ie *ImportError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T is not an *ImportError: %v", err, err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("imported pack does not validate: %v", err)
		}
		for _, prev := range []int{0, 1, 17999, 18000, 25500, 1 << 40} {
			_ = p.UserMessage("<user>hi</user>", prev, "de-DE")
		}
		if _, err := p.MarshalPackJSON(); err != nil {
			t.Fatal(err)
		}
	})
}
