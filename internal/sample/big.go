package sample

import (
	"strconv"
	"strings"
	"time"
)

// Generated databases (Options.Chats > 0): many chats of template-driven
// coding-agent work, for benchmarks. A compression point (a
// compressedHistory briefing, chained to the previous one and kept under
// 24,000 characters by shortening its oldest sections) sits about every 40
// messages, never in a chat's last 12. Tool outputs range from a line to
// 14 KB. Every fourth chat keeps a frozen copy of its messages in the
// legacy history column. With the default 200 messages per chat a chat
// takes about 1.1 MB (5.5 KB per message): 450 chats make about 500 MB,
// 1800 chats about 2 GB; the generator writes 60-75 MB/s in under 100 MB
// of memory.

// bigGen holds the template material, built once from the seed.
type bigGen struct {
	r      *rng
	paths  []string // workspace-relative file paths
	lines  []string // pool of source lines for file contents
	outLns []string // pool of command output lines
}

var (
	genDirs  = []string{"src/components", "src/hooks", "src/pages", "src/lib", "src/api", "src/styles", "server/routes", "server/lib", "server/db", "e2e", "scripts"}
	genNames = []string{"Button", "Header", "Footer", "RecipeCard", "Modal", "TagFilter", "SearchBox", "Settings", "Favorites", "Cart",
		"Checkout", "Profile", "Login", "Signup", "Sidebar", "Toast", "Pagination", "ImageGallery", "Rating", "Comments",
		"useTheme", "useCart", "useAuth", "useDebounce", "useRecipes", "formatDuration", "formatPrice", "slugify", "cursor", "session",
		"recipes", "users", "orders", "auth", "upload", "search", "migrate", "seed", "ingredients", "shoppingList"}
	genExts     = []string{".tsx", ".ts", ".css", ".test.ts", ".ts", ".tsx"}
	genIdents   = []string{"recipe", "items", "user", "cart", "total", "price", "tag", "page", "cursor", "query", "result", "error", "theme", "config", "session", "order", "image", "rating", "count", "limit"}
	genFuncs    = []string{"fetchRecipes", "formatPrice", "useDebounce", "parseQuery", "encodeCursor", "toggleFavorite", "applyDiscount", "validateEmail", "loadImage", "scaleIngredients", "sortByRating", "groupByTag"}
	genFeatures = []string{"dark mode", "infinite scroll", "a shopping list", "recipe ratings", "image uploads", "email login", "a print view", "keyboard shortcuts", "an offline mode", "tag suggestions", "unit conversion", "a share button"}
	genProblems = []string{"flickers on load", "is misaligned on mobile", "shows the wrong total", "throws on empty input", "is slow with 2k items", "loses state on reload", "breaks in Safari", "has a memory leak", "renders twice", "ignores the locale"}
	genDeps     = []string{"vite", "react-router", "vitest", "eslint", "typescript", "@tanstack/react-query", "playwright", "zod", "express", "drizzle-orm"}
	genAsks     = []string{"Can you look into this?", "Please fix it.", "Keep the public API unchanged.", "Don't touch the tests unless needed.", "Run the tests when you're done.", "Use the existing helpers.", "No new dependencies please.", "Be careful with the migration."}
	genVerbs    = []string{"changed", "refactored", "fixed", "rewrote", "split", "simplified", "extended", "cleaned up"}
	genOutcomes = []string{"the tests passed afterwards", "lint came back clean", "the type-check failed once and passed after a second fix", "the build succeeded", "the user confirmed it works in the browser", "one snapshot had to be updated"}
	genDecides  = []string{"The user wants no new dependencies.", "The user asked you to keep the public API stable.", "The user rejected the first approach as too invasive.", "The user prefers small commits and will commit manually.", "The user decided to postpone the e2e tests.", "The user wants British spelling in UI strings."}
	genNexts    = []string{"run the full test suite", "lint the touched files", "wait for the user's review", "update the docs", "address the remaining type error", "check the page in the browser"}
)

func newBigGen(r *rng) *bigGen {
	g := &bigGen{r: r}
	for _, d := range genDirs {
		for i := 0; i < 12; i++ {
			g.paths = append(g.paths, d+"/"+pick(r, genNames)+pick(r, genExts))
		}
	}
	for i := 0; i < 4000; i++ {
		g.lines = append(g.lines, g.codeLine())
	}
	for i := 0; i < 1000; i++ {
		g.outLns = append(g.outLns, g.outLine())
	}
	return g
}

func (g *bigGen) codeLine() string {
	r := g.r
	ind := strings.Repeat("  ", r.intn(4))
	a, b := pick(r, genIdents), pick(r, genIdents)
	switch r.intn(10) {
	case 0:
		return "import { " + pick(r, genFuncs) + " } from '../lib/" + pick(r, genNames) + "';"
	case 1:
		return "export function " + pick(r, genFuncs) + "(" + a + ": " + strings.ToUpper(b[:1]) + b[1:] + ") {"
	case 2:
		return ind + "const " + a + " = " + pick(r, genFuncs) + "(" + b + ", " + strconv.Itoa(r.intn(100)) + ");"
	case 3:
		return ind + "if (!" + a + ") return " + b + ";"
	case 4:
		return ind + "return " + a + ".map((x) => x." + b + ");"
	case 5:
		return ind + "}"
	case 6:
		return ind + "// " + pick(r, genVerbs) + " " + a + " before " + b + " is read"
	case 7:
		return ind + "." + a + "-" + b + " { margin: " + strconv.Itoa(r.intn(24)) + "px; color: var(--color-" + b + "); }"
	case 8:
		return ind + "await expect(" + a + ").toEqual(" + b + ");"
	default:
		return ind + a + "." + b + " = " + pick(r, genFuncs) + "(" + a + ");"
	}
}

func (g *bigGen) outLine() string {
	r := g.r
	switch r.intn(6) {
	case 0:
		return " ✓ " + pick(r, g.paths) + " (" + strconv.Itoa(r.between(1, 12)) + " tests) " + strconv.Itoa(r.between(5, 300)) + "ms"
	case 1:
		return pick(r, g.paths) + ":" + strconv.Itoa(r.between(1, 300)) + ":" + strconv.Itoa(r.between(1, 60)) + " - error TS2322: Type 'string' is not assignable to type '" + pick(r, genIdents) + "'."
	case 2:
		return "dist/assets/" + pick(r, genNames) + "-" + r.id(8, alnum) + ".js   " + strconv.Itoa(r.between(1, 300)) + "." + strconv.Itoa(r.intn(100)) + " kB"
	case 3:
		return "   × " + pick(r, genNames) + " > " + pick(r, genProblems) + " " + strconv.Itoa(r.between(2, 90)) + "ms"
	case 4:
		return "Progress: resolved " + strconv.Itoa(r.between(100, 900)) + ", reused " + strconv.Itoa(r.between(100, 900)) + ", downloaded 0, added 0"
	default:
		return "[vite] " + pick(r, []string{"hmr update", "page reload", "connected."}) + " /" + pick(r, g.paths)
	}
}

// content returns about n bytes of source text.
func (g *bigGen) content(n int) string {
	var b strings.Builder
	b.Grow(n + 80)
	i := g.r.intn(len(g.lines))
	for b.Len() < n {
		b.WriteString(g.lines[i%len(g.lines)])
		b.WriteByte('\n')
		i++
	}
	return b.String()
}

func (g *bigGen) output(n int) string {
	var b strings.Builder
	b.Grow(n + 80)
	i := g.r.intn(len(g.outLns))
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(g.outLns[i%len(g.outLns)])
		i++
	}
	return b.String()
}

// size picks a tool output size: mostly small, sometimes several KB.
func (g *bigGen) size() int {
	switch x := g.r.intn(100); {
	case x < 55:
		return g.r.between(80, 600)
	case x < 85:
		return g.r.between(600, 2500)
	case x < 97:
		return g.r.between(2500, 6000)
	default:
		return g.r.between(6000, 14000)
	}
}

func (g *bigGen) title() string {
	r := g.r
	switch r.intn(8) {
	case 0:
		return "Fix " + pick(r, genNames) + " " + pick(r, genProblems)
	case 1:
		return "Add " + pick(r, genFeatures)
	case 2:
		return "Refactor " + pick(r, genNames) + " (v" + strconv.Itoa(r.between(2, 4)) + ")!"
	case 3:
		return "Upgrade " + pick(r, genDeps) + " to v" + strconv.Itoa(r.between(2, 9))
	case 4:
		return "Why does " + pick(r, genNames) + " " + strings.TrimSuffix(pick(r, genProblems), "s") + "?"
	case 5:
		return "Investigate: " + pick(r, genNames) + " " + pick(r, genProblems)
	case 6:
		return "Tests for " + pick(r, genFuncs)
	default:
		return strings.ToUpper(pick(r, genFeatures)[:1]) + pick(r, genFeatures)[1:] + " + " + pick(r, genNames) + " cleanup"
	}
}

func (g *bigGen) userText(c *convo, first bool) string {
	r := g.r
	var s string
	switch r.intn(7) {
	case 0:
		s = "The " + pick(r, genNames) + " " + pick(r, genProblems) + ". " + pick(r, genAsks)
	case 1:
		s = "Add " + pick(r, genFeatures) + " to " + c.p(pick(r, g.paths)) + ". " + pick(r, genAsks)
	case 2:
		s = "[/implement](slash:command:implement) the plan above. " + pick(r, genAsks)
	case 3:
		s = "Run the tests and the type-check."
	case 4:
		s = "That didn't work: " + pick(r, g.outLns)
	case 5:
		s = "Looks good. Now " + pick(r, genVerbs) + " " + pick(r, genFuncs) + " too."
	default:
		s = "Why is " + pick(r, genFuncs) + " called twice? " + pick(r, genAsks)
	}
	if first {
		s = "Context: this is the recipe-box app (Vite + React). " + s
	}
	return s
}

// toolPart returns one random tool part.
func (g *bigGen) toolPart(c *convo) Obj {
	r := g.r
	p := pick(r, g.paths)
	switch x := r.intn(100); {
	case x < 28:
		return c.read(p, g.content(g.size()))
	case x < 45:
		n := r.between(1, 4)
		es := make([]edit, n)
		for i := range es {
			es[i] = edit{g.content(r.between(40, 300)), g.content(r.between(40, 400))}
		}
		return c.multiEdit(p, es...)
	case x < 52:
		return c.write(p, g.content(g.size()), r.chance(50))
	case x < 70:
		exit := 0
		switch y := r.intn(20); {
		case y < 3:
			exit = 1
		case y == 3:
			exit = 2
		case y == 4:
			exit = 127
		case y == 5:
			exit = -1 // timed out
		}
		cmd := pick(r, []string{"pnpm test", "pnpm tsc --noEmit", "pnpm build", "pnpm lint", "pnpm vitest run " + p, "git status --short", "pnpm exec playwright test"})
		return c.sh(pick(r, []string{"Run the tests", "Type-check", "Production build", "Lint", "Check the working tree", "Run e2e"}), cmd, g.output(g.size()), exit)
	case x < 78:
		var ds map[string][]diag
		if r.chance(40) {
			ds = map[string][]diag{p: {{r.between(1, 200), r.between(1, 40), pick(r, []string{"error", "warning"}), "@typescript-eslint/no-unused-vars", "'" + pick(r, genIdents) + "' is defined but never used."}}}
		}
		return c.lint([]string{p, pick(r, g.paths)}, ds)
	case x < 86:
		var ms []match
		for i := r.intn(8); i > 0; i-- {
			ms = append(ms, match{pick(r, g.paths), r.between(1, 300), pick(r, g.lines)})
		}
		return c.grep(pick(r, genFuncs), pick(r, []string{"", "*.ts", "*.tsx", "*.css"}), ms...)
	case x < 91:
		var ps []string
		for i := r.intn(12); i > 0; i-- {
			ps = append(ps, pick(r, g.paths))
		}
		return c.glob(pick(r, []string{"src/**/*.tsx", "**/*.test.ts", "server/**/*.ts", "src/styles/*.css"}), ps...)
	case x < 93:
		return c.copyFile(p, pick(r, g.paths), r.chance(50))
	case x < 94:
		return c.del(p)
	case x < 96:
		return c.listDocs(pick(r, genDeps), [2]string{"/" + pick(r, genDeps) + "/docs", pick(r, genDeps)})
	case x < 97:
		return c.searchDocs("/"+pick(r, genDeps)+"/docs", pick(r, genFuncs), g.content(g.size()))
	case x < 98:
		return c.ask("Pick an approach", [][]field{{{"approach", "Approach", "select", []string{"minimal", "thorough"}}, {"tests", "Add tests?", "boolean", nil}}},
			Obj{{"approach", pick(r, []string{"minimal", "thorough"})}, {"tests", r.chance(70)}}, r.chance(85), "Later")
	case x < 99:
		return c.toolErr("read", Obj{{"path", c.p(p)}}, "ENOENT: no such file or directory, open '"+p+"'")
	default:
		return c.shDenied("Remove build output", "rm -rf dist node_modules/.vite", "")
	}
}

func (g *bigGen) assistantTurn(c *convo, first bool) {
	r := g.r
	var steps []step
	if first {
		steps = append(steps, step{text("Let me start a shell session."), c.newSession("")})
	}
	for s := r.between(1, 3); s > 0; s-- {
		var st step
		if r.chance(30) {
			st = append(st, reasoning("The user wants "+pick(r, genFeatures)+"; check "+pick(r, g.paths)+" first, then "+pick(r, genNexts)+"."))
		}
		st = append(st, text("I'll "+pick(r, genNexts)+" and look at "+c.p(pick(r, g.paths))+"."))
		for t := r.between(1, 3); t > 0; t-- {
			st = append(st, g.toolPart(c))
		}
		steps = append(steps, st)
	}
	steps[len(steps)-1] = append(steps[len(steps)-1], text("Done: I "+pick(r, genVerbs)+" "+c.p(pick(r, g.paths))+" and "+pick(r, genOutcomes)+"."))
	c.assistant(steps...)
}

// briefingSection writes one "##" section in the second-person briefing style.
func (g *bigGen) briefingSection(c *convo, n int) string {
	r := g.r
	var b strings.Builder
	b.WriteString("## Phase " + strconv.Itoa(n) + ": " + pick(r, genFeatures) + "\n\n")
	for s := r.between(3, 7); s > 0; s-- {
		b.WriteString("You " + pick(r, genVerbs) + " [](path:" + c.p(pick(r, g.paths)) + ") and [](path:" + c.p(pick(r, g.paths)) + ") because the user asked for " + pick(r, genFeatures) + ", and " + pick(r, genOutcomes) + ". ")
		if r.chance(40) {
			b.WriteString(pick(r, genDecides) + " ")
		}
	}
	return strings.TrimSpace(b.String())
}

func (g *bigGen) briefing(c *convo, sections []string) string {
	r := g.r
	cur := "## Current working state\n\nYou last " + pick(r, genVerbs) + " [](path:" + c.p(pick(r, g.paths)) + ") and " + pick(r, genOutcomes) + ". Next, " + pick(r, genNexts) + "."
	return strings.Join(sections, "\n\n") + "\n\n" + cur
}

const maxBriefingChars = 24000

func writeGenerated(w *dbWriter, opts Options) error {
	r := newRNG(opts.Seed)
	g := newBigGen(r)
	models := []string{"claude-sonnet-4.6", "claude-opus-4.6", "gpt-5.4", "gemini-3.1-pro"}
	base := time.Date(2026, time.January, 5, 8, 0, 0, 0, time.UTC)
	prevID := ""
	for i := 0; i < opts.Chats; i++ {
		start := base.Add(time.Duration(i)*37*time.Minute + time.Duration(r.intn(600))*time.Second)
		model := pick(r, models)
		id := r.uuid()
		c := newConvo(r, start, sampleMount, sampleWS, model)
		var sections []string
		nextPoint := r.between(36, 44)
		for m := 0; m < opts.MessagesPerChat; m++ {
			if m%2 == 0 {
				c.user(g.userText(c, m == 0))
			} else {
				g.assistantTurn(c, m == 1)
			}
			// A compression point on message m, as if compressed when the
			// chat was 12 messages longer.
			if m == nextPoint && m+12 <= opts.MessagesPerChat {
				sections = append(sections, g.briefingSection(c, len(sections)+1))
				for len(strings.Join(sections, "\n\n")) > maxBriefingChars && len(sections) > 1 {
					// shorten the oldest section in place: keep its heading and first sentence
					old := sections[0]
					if k := strings.Index(old, ". "); k > 0 && k+1 < len(old)-1 {
						sections[0] = old[:k+1]
					} else {
						sections = sections[1:]
					}
				}
				c.compress(m, g.briefing(c, sections))
				nextPoint += r.between(36, 44)
			}
		}
		row := baseChat(id, g.title(), model, start)
		row.UsedTokens = r.between(20000, 190000)
		row.TitleLocked = pick(r, []any{nil, 0, 1})
		if i > 0 && r.chance(8) {
			row.ParentID = prevID // a child agent of the previous chat
		}
		if r.chance(1) {
			row.Type = "project-md"
		}
		if w.version >= 14 && r.chance(5) {
			row.ArchivedAt = unix(start.Add(72 * time.Hour))
		}
		if len(c.msgs) > 0 {
			finish(row, c, i%4 == 0) // every 4th chat keeps a frozen history copy
		} else {
			row.LastMessageAt = row.CreatedAt
		}
		if err := w.add(row); err != nil {
			return err
		}
		prevID = id
	}
	return nil
}
