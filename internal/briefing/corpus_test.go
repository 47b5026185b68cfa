package briefing_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/briefing"
	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/sample"
	"github.com/compactlab/compact/internal/testfiles"
)

// generatedBundle is one compression bundle of a generated database: the
// bundle directory (relative to the extraction) and its compact history.
type generatedBundle struct {
	name    string
	history string
}

// sampleBundles writes a sample database (chats generated chats, or the
// shipped sample when chats is 0), extracts it as `compact extract` does
// and returns every bundle's compact history and the pack's size target.
func sampleBundles(t *testing.T, chats int) ([]generatedBundle, int) {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "instances.sqlite")
	st, err := sample.WriteStats(db, sample.Options{Chats: chats})
	if err != nil {
		t.Fatal(err)
	}
	pack, err := prompt.Builtin(prompt.DefaultPackName)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	sum, err := extract.Run(context.Background(), extract.Options{
		DBPath: db, Channel: "prerelease", Pack: pack, Locale: "en-US", OutDir: out,
	}, extract.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Bundles != st.CompressionPoints || sum.Bundles == 0 {
		t.Fatalf("extracted %d bundles of %d compression points", sum.Bundles, st.CompressionPoints)
	}
	var bs []generatedBundle
	err = filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != bundle.FileCompact {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, filepath.Dir(path))
		bs = append(bs, generatedBundle{name: filepath.ToSlash(rel), history: string(b)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != sum.Bundles {
		t.Fatalf("found %d compact histories for %d bundles", len(bs), sum.Bundles)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].name < bs[j].name })
	return bs, pack.TargetChars
}

// corpusChats is the size of the generated database: 250 chats give about
// 1,000 bundles; under the race detector 20 chats give about 80. The race
// detector looks at checkBriefings' concurrent writers, which any number
// of bundles exercises; the rules over the whole corpus are the run
// without it (each bundle is ten times slower under it, and 40 chats took
// 19 s).
func corpusChats() int {
	if testfiles.Race {
		return 20
	}
	return 250
}

// TestGeneratedDatabaseBriefings writes the builtin briefing of every
// bundle of a generated database, as `compact replay --model builtin` does
// (cmd/wire.go), and checks each against the rules of `compact diff` and
// for readable headings and sentences.
func TestGeneratedDatabaseBriefings(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a generated database of about 300 MB")
	}
	chats := corpusChats()
	bundles, target := sampleBundles(t, chats)
	if min := chats * 3; len(bundles) < min {
		t.Fatalf("%d bundles from %d chats, want at least %d", len(bundles), chats, min)
	}
	if !testfiles.Race && len(bundles) < 1000 {
		t.Fatalf("%d bundles, want at least 1,000", len(bundles))
	}
	checkBriefings(t, bundles, target)
}

// TestShippedSampleBriefings does the same for the shipped sample database,
// whose chats are written by hand.
func TestShippedSampleBriefings(t *testing.T) {
	bundles, target := sampleBundles(t, 0)
	checkBriefings(t, bundles, target)
}

// checkBriefings writes the builtin briefing of each bundle at the e3e
// profile (and of every fourth at the head profile too) and reports the
// broken rules and the readability problems. With BRIEFING_CORPUS_DUMP set
// to a directory it also writes the e3e briefings there, for reading.
func checkBriefings(t *testing.T, bundles []generatedBundle, target int) {
	t.Helper()
	dump := os.Getenv("BRIEFING_CORPUS_DUMP")
	outs := make([]string, len(bundles))
	var wg sync.WaitGroup
	work := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				outs[i] = briefing.Write(bundles[i].history, briefing.Options{TargetChars: target, Profile: mdtext.ProfileE3E})
			}
		}()
	}
	for i := range bundles {
		work <- i
	}
	close(work)
	wg.Wait()

	failed := 0
	for i, b := range bundles {
		out := outs[i]
		if dump != "" {
			p := filepath.Join(dump, strings.ReplaceAll(b.name, "/", "__")+".md")
			if err := os.WriteFile(p, []byte(out+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var problems []string
		for _, v := range mdtext.CheckRules(out, mdtext.ProfileE3E) {
			problems = append(problems, "rule "+v.Rule+": "+v.Example)
		}
		problems = append(problems, readability(out)...)
		if i%4 == 0 {
			// The head profile ends differently; its rules hold too.
			head := briefing.Write(b.history, briefing.Options{TargetChars: target, Profile: mdtext.ProfileHead})
			for _, v := range mdtext.CheckRules(head, mdtext.ProfileHead) {
				problems = append(problems, "head rule "+v.Rule+": "+v.Example)
			}
			problems = append(problems, readability(head)...)
		}
		if len(problems) > 0 {
			failed++
			if failed <= 10 {
				t.Errorf("%s:\n  %s", b.name, strings.Join(problems, "\n  "))
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d briefings have problems", failed, len(bundles))
	}
}

// chatterWords make up acknowledgements and small talk: a heading of
// nothing but these names no topic.
var chatterWords = wordSet(`ok okay k kk yes yep yeah sure great good fine cool nice perfect
	awesome excellent thanks thank you thx ty lgtm looks look sounds right alright correct
	agreed approved done cheers hi hello hey please wow amazing got it that this works so now
	well and continue go on ahead proceed next`)

// functionWords cannot end a heading, unless it is a question ("Where
// does this come from?").
var functionWords = wordSet(`the a an to and or but of with for in on at by from into onto as than
	that which who whose whom this these those my your our their its is are was were be been
	being if so because while when where about over under after before via per not no`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var (
	// A past-tense verb of a sentence about you or the user followed by
	// a capitalised imperative: "You ran Run the tests".
	verbVerbRe = regexp.MustCompile(`\b(?:ran|run|did|do|asked|said|tried to|tried to run|read|wrote|edited|used)\s+(?:Run|Do|Fix|Add|Make|Check|Build|Lint|Test|Type-check|Remove|Delete|Install|Update|Upgrade|Create|Start|Stop|Open|Show|List|Find|Search|Execute|Verify|Clean|Generate|Format|Compile|Deploy|Set|Get|Move|Copy|Rename|Write|Read|Edit|Use|Try|Restart|Kill|Print|Count)\b`)
	// "You ran" and "You tried to run" take a noun phrase: an article, a
	// command set as code (Q after ownProse) or a link (L).
	ranRe      = regexp.MustCompile(`\b(?:ran|tried to run) (\S+)`)
	ranObjects = map[string]bool{"a": true, "an": true, "the": true, "Q": true, "L": true}
	// A plain mount-prefixed path, as the diff rules see it.
	plainPathRe = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_./:@-])w[0-9][\p{Ll}\p{N}]{0,7}/`)
	wordRe      = regexp.MustCompile(`[\p{L}\p{N}'’-]+`)
	sectionRe   = regexp.MustCompile(` \(\d+\)$`)
)

// readability lists what makes a briefing read badly: headings that are
// chatter or cut mid-sentence, doubled verbs, doubled words and broken
// punctuation in our own prose (the user's and your quoted words aside).
func readability(out string) []string {
	var bad []string
	for _, ln := range strings.Split(out, "\n") {
		if h, ok := strings.CutPrefix(ln, "## "); ok {
			if why := headingProblem(h); why != "" {
				bad = append(bad, "heading "+strconvQuote(h)+": "+why)
			}
			continue
		}
		if strings.TrimSpace(ln) == "" {
			continue
		}
		own := ownProse(ln)
		if m := verbVerbRe.FindString(own); m != "" {
			bad = append(bad, "doubled verb "+strconvQuote(m)+" in "+strconvQuote(clip(ln, 160)))
		}
		for _, m := range ranRe.FindAllStringSubmatch(own, -1) {
			if !ranObjects[strings.TrimRight(m[1], ",.")] {
				bad = append(bad, "\"ran\" takes "+strconvQuote(m[1])+" in "+strconvQuote(clip(ln, 160)))
			}
		}
		if w := doubledWord(own); w != "" {
			bad = append(bad, "doubled word "+strconvQuote(w)+" in "+strconvQuote(clip(ln, 160)))
		}
		for _, p := range []string{",.", ";.", ":.", " .", " ,", ",,", "..", "( ", " )", "()"} {
			if strings.Contains(strings.ReplaceAll(own, "...", ""), p) {
				bad = append(bad, "punctuation "+strconvQuote(p)+" in "+strconvQuote(clip(ln, 160)))
			}
		}
		if r, _ := utf8.DecodeRuneInString(ln); unicode.IsLower(r) {
			bad = append(bad, "paragraph starts in lower case: "+strconvQuote(clip(ln, 80)))
		}
	}
	return bad
}

// headingProblem says what is wrong with a heading, or "".
func headingProblem(h string) string {
	h = sectionRe.ReplaceAllString(strings.TrimSpace(h), "")
	words := wordRe.FindAllString(strings.ToLower(h), -1)
	if len(words) == 0 {
		return "no words"
	}
	chatter := true
	for _, w := range words {
		if !chatterWords[strings.Trim(w, "'’-")] {
			chatter = false
			break
		}
	}
	switch last := words[len(words)-1]; {
	case chatter:
		return "chatter, not a topic"
	case strings.HasSuffix(h, "…") || strings.HasSuffix(h, "..."):
		return "cut with an ellipsis"
	case strings.ContainsAny(h[len(h)-1:], ":,;-–—(/&"):
		return "ends in punctuation that continues"
	case functionWords[last] && !strings.HasSuffix(h, "?"):
		return "ends with the function word " + strconvQuote(last)
	case strings.Count(h, "(") != strings.Count(h, ")"):
		return "unbalanced brackets"
	case strings.Count(h, "“") != strings.Count(h, "”"), strings.Count(h, `"`)%2 == 1, strings.Count(h, "`")%2 == 1:
		return "unbalanced quotes"
	case plainPathRe.MatchString(h):
		return "a plain path"
	case utf8.RuneCountInString(h) > 80:
		return "longer than 80 characters"
	}
	if r, _ := utf8.DecodeRuneInString(h); unicode.IsLower(r) && !codeWord(strings.Fields(h)[0]) {
		return "starts in lower case"
	}
	return ""
}

// codeWord reports whether a word is written as code or a file name
// (useTheme, recipes.tsx, npm_config, color-scheme), which keeps its case.
func codeWord(w string) bool {
	_, n := utf8.DecodeRuneInString(w)
	return strings.ContainsAny(w[n:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-")
}

// ownProse is a paragraph without the quoted words (“…”), links and code
// spans: what remains is the briefing's own wording.
func ownProse(ln string) string {
	var b strings.Builder
	depth := 0
	code := false
	for i := 0; i < len(ln); {
		r, n := utf8.DecodeRuneInString(ln[i:])
		switch {
		case r == '`':
			if code = !code; !code {
				b.WriteString("Q")
			}
		case code:
		case r == '“':
			depth++
		case r == '”' && depth > 0:
			depth--
			b.WriteString("Q")
		case depth > 0:
		case r == '[':
			if j := strings.Index(ln[i:], "]("); j > 0 {
				if k := strings.IndexByte(ln[i+j:], ')'); k > 0 {
					b.WriteString("L")
					i += j + k + 1
					continue
				}
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}

// placeholders are what ownProse leaves for quotes, code and links.
var placeholders = map[string]bool{"Q": true, "L": true, "QQ": true, "LL": true}

// doubledWord is the first word written twice in a row, or "".
func doubledWord(s string) string {
	ws := wordRe.FindAllString(s, -1)
	for i := 1; i < len(ws); i++ {
		if strings.EqualFold(ws[i], ws[i-1]) && utf8.RuneCountInString(ws[i]) > 1 && !strings.ContainsAny(ws[i], "0123456789") && !placeholders[ws[i]] {
			return ws[i]
		}
	}
	return ""
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func strconvQuote(s string) string { return `"` + s + `"` }

// FuzzWriteKeepsDiffRules: whatever the history, the builtin briefing
// passes the rule checks of `compact diff` at either profile.
func FuzzWriteKeepsDiffRules(f *testing.F) {
	f.Add("<user>Looks good. Now add tests to w1/src/a.ts too.</user>\n<assistant>[shell: Run the tests → exit 1]\n[glob: w1/src/*.tsx]</assistant>", 0, "e3e")
	f.Add("<previous-chat-history>## A\n\n1. w1/a/b (x)\n#\n</previous-chat-history><user>That didn't work: w1/x.ts:3:1</user>", 300, "head")
	f.Add("<previous-chat-history>## A\n\n#\v\n\v1. w1/a\n```sh\n# install\n```\n</previous-chat-history>", 0, "e3e")
	f.Add("<user>[attached: w1/a b.png]\nok</user>\n<assistant>[read: w1/My Docs/a.md]\n[asked user: Pick → Where: w1/src/]</assistant>", 0, "e3e")
	f.Add("<user>Use `e.g.` Then stop.</user>\n<assistant>[read: w1/a.ts ✗ see `a.` Then retry]</assistant>", 0, "e3e")
	// A previous briefing that leaves no room: its oldest sections are
	// merged into an "Earlier topics" digest (one of its own included).
	f.Add("<previous-chat-history>## Earlier topics\n\nBefore the sections below, your earlier briefings held 7 more sections, from “a” to “b”. They named [](path:w1/x y.ts) and others.\n\n## Fix w1/src/a.ts “now\n\nYou changed w1/b.ts. The user decided to keep it. More text here.\n\n## Current working state\n\nYou ran the tests. Your next step is to fix them.</previous-chat-history>\n<user>Go on with w1/src/f.ts.</user>\n<assistant>[shell: go test → exit 1]</assistant>", 200, "e3e")
	// A previous briefing with a digest that keeps notes and a files
	// section, which the next briefing writes anew.
	f.Add("<previous-chat-history>## Earlier topics\n\nBefore the sections below, your earlier briefings held 3 more sections, from “a” to “b”. Kept from them: Do not use w1/x.ts. The user said: “Keep it.” They named [](path:w1/x y.ts) and others.\n\n## Other files\n\nYou edited [](path:w1/a.ts) and [](path:w1/b.ts). The work also named [](path:w1/c.ts).\n\n## Current working state\n\nYou ran the tests. Your next step is to fix them.</previous-chat-history>\n<user>Keep 24 per page, not 20. Fix w1/src/f.ts.</user>\n<assistant>[read: w1/src/f.ts]\n[shell: go test → exit 1]\nTS2345 again.\n[shell: go test → ✓]\n[asked user: Size → Rows: 24]</assistant>", 300, "head")
	f.Add("<user>Never touch w1/gen/. Use `pnpm`, not npm.</user>\n<assistant>[created: w1/a.ts]\n[edited: w1/b.ts (2 edits)]\n[moved: w1/c.ts → w1/d.ts]\n[deleted: w1/e.ts]\n[shell: Build → exit 2]</assistant>\n<user>ok</user>\n<assistant>Done?</assistant>", 150, "e3e")
	f.Fuzz(func(t *testing.T, compact string, target int, profile string) {
		if profile != mdtext.ProfileHead {
			profile = mdtext.ProfileE3E
		}
		out := briefing.Write(compact, briefing.Options{TargetChars: target % 100000, Profile: profile})
		for _, v := range mdtext.CheckRules(out, profile) {
			t.Fatalf("rule %s: %s\n--- input ---\n%q\n--- briefing ---\n%s", v.Rule, v.Example, compact, out)
		}
	})
}

// TestPathAfterANumberSignKeepsTheRules: the writer and the measures read
// a path after a number sign that is not a decimal digit ('²', 'Ⅻ') the
// same way (they once disagreed, and the path was left plain).
func TestPathAfterANumberSignKeepsTheRules(t *testing.T) {
	for _, in := range []string{
		"<user>Fix the bug in ²w1/src/x.ts please.</user>",
		"<user>See Ⅻw2/lib/a.go and 3w1/not/a/path.</user>",
	} {
		for _, profile := range []string{"e3e", "head"} {
			out := briefing.Write(in, briefing.Options{TargetChars: 30000, Profile: profile})
			if v := mdtext.CheckRules(out, profile); len(v) != 0 {
				t.Errorf("%s, %s: %v\n%s", in, profile, v, out)
			}
		}
	}
}
