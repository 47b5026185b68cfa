package sample

import (
	"strings"
	"time"
)

// The shipped sample: six chats of work on a small web project, as the
// desktop app would have stored them at schema v9.
//
//	Fix Button color (v2)!                    16 messages, 1 compression point
//	Rename useFavs → useFavorites              4 messages (short)
//	Add dark mode with a header toggle        62 messages, 4 chained compression points
//	Find theme reads in localStorage           8 messages, child agent of the dark-mode chat
//	Set up Playwright e2e tests               16 messages, no compression
//	Paginate the recipe list (server-side)    36 messages, 2 compression points, stale history column
//
// Every chat but the last keeps a full copy of its messages in the
// deprecated agentInstances.history column (the copy agrees with the
// agentMessages rows); the last one is a post-v7 chat with the stale
// {"json":[]}, so only the messages source finds it.

const (
	sampleMount = "w1a2"
	sampleWS    = "/home/dev/projects/recipe-box"
)

// md turns ´ into a backtick, so prose with inline code reads naturally
// in Go raw strings.
func md(s string) string { return strings.ReplaceAll(s, "´", "`") }

// briefing joins sections into a compressedHistory text.
func briefing(sections ...string) string { return strings.Join(sections, "\n\n") }

// section renders one "## heading" section.
func section(heading, body string) string { return "## " + heading + "\n\n" + md(body) }

func sampleMounts() string {
	return Superjson(Arr{Obj{{"path", sampleWS}, {"permissions", Arr{"read", "list", "create", "edit", "delete"}}}})
}

func baseChat(id, title, model string, created time.Time) *chatRow {
	return &chatRow{
		ID: id, Type: "chat", CreatedAt: unix(created), ModelID: model, Title: title,
		QueuedMessages: staleHistory, InputState: `{"json":""}`,
		MountedWorkspaces: sampleMounts(), ToolApprovalMode: "alwaysAsk",
	}
}

// finish fills the columns that depend on the messages.
func finish(row *chatRow, c *convo, keepHistory bool) *chatRow {
	row.Messages = c.msgs
	last := c.msgs[len(c.msgs)-1]
	row.LastMessageAt = unix(time.Time(last.Meta[0].V.(Date)))
	if keepHistory {
		row.History = historyOf(c.msgs)
	}
	return row
}

func writeShipped(w *dbWriter, opts Options) error {
	r := newRNG(opts.Seed)
	utc := func(d, h, m, s int) time.Time { return time.Date(2026, time.May, d, h, m, s, 0, time.UTC) }

	a := chatButton(r, utc(18, 9, 2, 11))
	e := chatRename(r, utc(18, 14, 21, 40))
	b, bc := chatDarkMode(r, utc(19, 8, 31, 5))
	// The child agent was started while the dark-mode chat cleaned up the
	// jQuery leftovers (message 32).
	childStart := time.Time(bc.msgs[32].Meta[0].V.(Date)).Add(20 * time.Second)
	ch := chatThemeExplore(r, childStart, b.ID)
	d := chatPlaywright(r, utc(20, 9, 15, 2))
	f := chatPagination(r, utc(21, 10, 4, 37))

	if w.version >= 10 {
		for _, c := range []*chatRow{a, e, b, ch, d, f} {
			c.ProviderInstanceID = "stagewise"
		}
	}
	for _, c := range []*chatRow{a, e, b, ch, d, f} { // creation order = rowid order
		if err := w.add(c); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------------------

func chatButton(r *rng, start time.Time) *chatRow {
	id := r.uuid()
	c := newConvo(r, start, sampleMount, sampleWS, "claude-sonnet-4.6")
	c.userAfter(0, "The primary Button is red again after the last merge. It should be the brand teal (#0f766e) like in the design, see the screenshot.",
		withAttachment("att/shot_a8kt2m.png", "Button red.png"), withFileMention(c, "src/components/Button.tsx"))
	c.assistant(
		step{reasoning("The user says the primary button regressed to red. Check the component and its stylesheet for a hard-coded colour or a bad fallback."),
			text("Let me look at the Button component and its styles."),
			c.read("src/components/Button.tsx", srcButtonTSX),
			c.read("src/components/Button.css", srcButtonCSS)},
		step{text(md("The primary variant falls back to ´#dc2626´ (red) when ´--color-primary´ is missing, and the hover mixes 60% black. I'll make the fallback teal.")),
			c.multiEdit("src/components/Button.css",
				edit{"background: var(--color-primary, #dc2626);", "background: var(--color-primary, #0f766e);"},
				edit{"color: #fff;\n}", "color: #ffffff;\n}"})},
		step{c.lint([]string{"src/components/Button.tsx", "src/components/Button.css"}, nil),
			text(md("Changed the fallback in [](path:w1a2/src/components/Button.css) to ´#0f766e´; lint is clean. Reload the page and check the button."))},
	)
	c.user("Still red in the browser. Did you check tokens.css?")
	c.assistant(
		step{c.read("src/styles/tokens.css", srcTokensCSS),
			c.grep("--color-primary", "*.css",
				match{"src/styles/tokens.css", 6, "  --color-primary: #dc2626;"},
				match{"src/components/Button.css", 18, "  background: var(--color-primary, #0f766e);"},
				match{"src/components/Button.css", 23, "  background: color-mix(in srgb, var(--color-primary) 60%, black);"},
				match{"src/components/Button.css", 28, "  color: var(--color-primary);"})},
		step{text(md("Found it: the merge brought back ´--color-primary: #dc2626´ in the tokens, so the fallback never applied.")),
			c.multiEdit("src/styles/tokens.css", edit{"--color-primary: #dc2626;", "--color-primary: #0f766e;"}),
			text(md("[](path:w1a2/src/styles/tokens.css) now defines ´--color-primary: #0f766e´. The button should be teal after a reload."))},
	)
	c.user("Now it's teal, but the hover state is way too dark.") // boundary 4
	c.assistant(step{
		c.multiEdit("src/components/Button.css", edit{"color-mix(in srgb, var(--color-primary) 60%, black)", "color-mix(in srgb, var(--color-primary) 85%, black)"}),
		text("Hover now mixes in 15% black instead of 40%, which keeps it clearly teal."),
	})
	c.user("Better. Can you run the unit tests for the components?")
	c.assistant(
		step{c.newSession(""),
			c.sh("Run component unit tests", "pnpm vitest run src/components",
				" RUN  v3.1.4 /home/dev/projects/recipe-box\n\n ❯ src/components/Button.test.tsx (3 tests | 1 failed) 41ms\n   × Button > renders the primary variant 12ms\n     → Snapshot `Button > renders the primary variant 1` mismatched\n ✓ src/components/Header.test.tsx (2 tests) 28ms\n ✓ src/components/RecipeCard.test.tsx (4 tests) 35ms\n\n Test Files  1 failed | 2 passed (3)\n      Tests  1 failed | 8 passed (9)\n   Duration  1.24s", 1)},
		step{text("One snapshot fails: the stored snapshot still has the old inline style. That is expected after the colour change; I can update it if you agree.")},
	)
	c.user("Update the snapshot, that's expected.")
	c.assistant(step{
		c.sh("Update the Button snapshot", "pnpm vitest run -u src/components/Button.test.tsx",
			" RUN  v3.1.4 /home/dev/projects/recipe-box\n\n ✓ src/components/Button.test.tsx (3 tests) 39ms\n\n Snapshots  1 updated\n Test Files  1 passed (1)\n      Tests  3 passed (3)", 0),
		text("Snapshot updated, all three Button tests pass."),
	})
	c.user("Also, the disabled variant still uses the old grey #9ca3af; use --color-muted.")
	c.assistant(step{
		c.multiEdit("src/components/Button.css", edit{"background: #9ca3af;", "background: var(--color-muted);"}),
		c.lint([]string{"src/components/Button.css"}, map[string][]diag{"src/components/Button.css": {
			{38, 3, "warning", "css/no-duplicate-properties", "Unexpected duplicate property \"background\"."}}}),
		text("Disabled buttons use `--color-muted` now. Lint reports one warning about a duplicate `background` declaration further down; it predates this change."),
	})
	c.user("Fine, ignore that warning. Don't commit, I'll do it myself. Just list the changed files.")
	c.assistant(step{text(md("Changed files:\n\n- [](path:w1a2/src/styles/tokens.css): ´--color-primary´ back to ´#0f766e´\n- [](path:w1a2/src/components/Button.css): teal fallback, lighter hover (85% mix), disabled uses ´--color-muted´\n- ´src/components/__snapshots__/Button.test.tsx.snap´: updated snapshot"))})
	c.user("Thanks! One more: the focus ring should be 2px, not 3px.")
	c.assistant(step{
		c.multiEdit("src/components/Button.css", edit{"outline: 3px solid var(--color-focus);", "outline: 2px solid var(--color-focus);"}),
		c.sh("Re-run the Button tests", "pnpm vitest run src/components/Button.test.tsx",
			" RUN  v3.1.4 /home/dev/projects/recipe-box\n\n ✓ src/components/Button.test.tsx (3 tests) 37ms\n\n Test Files  1 passed (1)\n      Tests  3 passed (3)", 0),
		text("The focus ring is 2px now and the Button tests still pass."),
	})

	c.compress(4, briefing(
		section("Button colour fix", `The user reported that the primary [](path:w1a2/src/components/Button.tsx) was red again after the last merge and attached a screenshot (Button red.png); the design calls for the brand teal ´#0f766e´. You read the component and [](path:w1a2/src/components/Button.css), changed the ´--color-primary´ fallback there from ´#dc2626´ to ´#0f766e´, and lint was clean. The user then said the button was still red and pointed you at the tokens: you found that [](path:w1a2/src/styles/tokens.css) had ´--color-primary: #dc2626´ again after the merge and set it back to ´#0f766e´.`),
		section("Current working state", `You last edited [](path:w1a2/src/styles/tokens.css) to restore ´--color-primary: #0f766e´. Next, wait for the user to confirm in the browser that the primary Button is teal.`),
	))

	row := baseChat(id, "Fix Button color (v2)!", "claude-sonnet-4.6", start)
	row.TitleLocked = 0
	row.UsedTokens = 41230
	return finish(row, c, true)
}

// ---------------------------------------------------------------------------

func chatRename(r *rng, start time.Time) *chatRow {
	id := r.uuid()
	c := newConvo(r, start, sampleMount, sampleWS, "claude-sonnet-4.6")
	c.userAfter(0, "Rename the hook useFavs to useFavorites everywhere, file name included.", withFileMention(c, "src/hooks/useFavs.ts"))
	c.assistant(
		step{c.grep("useFavs", "",
			match{"src/hooks/useFavs.ts", 4, "export function useFavs() {"},
			match{"src/components/RecipeCard.tsx", 3, "import { useFavs } from '../hooks/useFavs';"},
			match{"src/components/RecipeCard.tsx", 9, "  const { isFavorite, toggle } = useFavs();"},
			match{"src/pages/Favorites.tsx", 2, "import { useFavs } from '../hooks/useFavs';"},
			match{"src/pages/Favorites.tsx", 6, "  const { favorites } = useFavs();"})},
		step{c.copyFile("src/hooks/useFavs.ts", "src/hooks/useFavorites.ts", true),
			c.multiEdit("src/hooks/useFavorites.ts", edit{"export function useFavs() {", "export function useFavorites() {"}),
			c.multiEdit("src/components/RecipeCard.tsx",
				edit{"import { useFavs } from '../hooks/useFavs';", "import { useFavorites } from '../hooks/useFavorites';"},
				edit{"= useFavs();", "= useFavorites();"}),
			c.multiEdit("src/pages/Favorites.tsx",
				edit{"import { useFavs } from '../hooks/useFavs';", "import { useFavorites } from '../hooks/useFavorites';"},
				edit{"= useFavs();", "= useFavorites();"})},
		step{c.newSession(""),
			c.sh("Type-check", "pnpm tsc --noEmit", "", 0),
			text(md("Renamed: the file moved to [](path:w1a2/src/hooks/useFavorites.ts) and the two call sites in ´RecipeCard.tsx´ and ´Favorites.tsx´ import the new name. The type-check passes."))},
	)
	c.user("Thanks")
	c.assistant(step{text("You're welcome!")})
	row := baseChat(id, "Rename useFavs → useFavorites", "claude-sonnet-4.6", start)
	row.UsedTokens = 9875
	return finish(row, c, true)
}

// ---------------------------------------------------------------------------

func chatDarkMode(r *rng, start time.Time) (*chatRow, *convo) {
	id := r.uuid()
	c := newConvo(r, start, sampleMount, sampleWS, "claude-opus-4.6")
	c.userAfter(0, "[/implement](slash:command:implement) dark mode for the recipe box. Requirements: a toggle in the header, respect prefers-color-scheme on the first visit, remember the choice in localStorage. The design tokens are in tokens.css.",
		withFileMention(c, "src/styles/tokens.css"), withWorkspaceMention(c, "recipe-box"))
	// 1
	c.assistant(
		step{reasoning("Dark mode needs: a theme source of truth (hook), a data attribute on <html>, dark token values, a toggle in the header. Ask the open questions first: default theme and toggle style."),
			text("I'll start by looking at the existing styles and the header."),
			c.glob("src/**/*.css", "src/styles/tokens.css", "src/components/Button.css", "src/components/Header.css", "src/components/RecipeCard.css", "src/components/Modal.css"),
			c.read("src/styles/tokens.css", srcTokensCSS),
			c.read("src/components/Header.tsx", srcHeaderTSX)},
		step{c.ask("Dark mode details",
			[][]field{
				{{"theme-default", "Default theme on the first visit", "select", []string{"system", "light", "dark"}},
					{"toggle-style", "Toggle style", "select", []string{"icon button", "switch"}}},
				{{"persist", "Remember the choice across sessions?", "boolean", nil}},
			},
			Obj{{"theme-default", "system"}, {"toggle-style", "icon button"}, {"persist", true}}, true, ""),
			text(md("Plan:\n\n1. ´useTheme´ hook: reads ´rb-theme´ from localStorage, falls back to ´prefers-color-scheme´, sets ´data-theme´ on ´<html>´.\n2. ´ThemeToggle´ icon button in the header.\n3. Dark values for the tokens.\n\nShall I go ahead?"))},
	)
	c.user("Go ahead.")
	// 3
	c.assistant(
		step{c.write("src/hooks/useTheme.ts", srcUseThemeTS, true),
			c.write("src/components/ThemeToggle.tsx", srcThemeToggleTSX, true)},
		step{c.multiEdit("src/components/Header.tsx",
			edit{"import { SearchBox } from './SearchBox';", "import { SearchBox } from './SearchBox';\nimport { ThemeToggle } from './ThemeToggle';"},
			edit{"      <SearchBox />", "      <SearchBox />\n      <ThemeToggle />"}),
			text(md("Created [](path:w1a2/src/hooks/useTheme.ts) and [](path:w1a2/src/components/ThemeToggle.tsx), and added the toggle to the header."))},
	)
	c.user("Where do the dark colours come from? I don't see any.")
	// 5
	c.assistant(step{
		text("Right, the tokens have no dark values yet. Adding a `[data-theme=\"dark\"]` block."),
		c.multiEdit("src/styles/tokens.css", edit{"  --font-sans: 'Inter', system-ui, sans-serif;\n}", "  --font-sans: 'Inter', system-ui, sans-serif;\n}\n\n[data-theme='dark'] {\n  --color-bg: #0b1220;\n  --color-surface: #111827;\n  --color-text: #e5e7eb;\n  --color-muted: #94a3b8;\n  --color-primary: #2dd4bf;\n  --color-focus: #60a5fa;\n}"}),
		text("Dark palette: background `#0b1220`, surface `#111827`, text `#e5e7eb`, primary `#2dd4bf`."),
	})
	c.user("There's a flash of the light theme on reload. Fix that.")
	// 7
	c.assistant(
		step{c.read("index.html", srcIndexHTML)},
		step{c.multiEdit("index.html", edit{"    <title>Recipe Box</title>", "    <title>Recipe Box</title>\n    <script>\n      (function () {\n        var t = localStorage.getItem('rb-theme');\n        if (t !== 'light' && t !== 'dark') t = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';\n        document.documentElement.dataset.theme = t;\n      })();\n    </script>"}),
			text("An inline script in `index.html` now sets `data-theme` before the bundle loads, so there is no flash.")},
	)
	c.user("Run lint and the type-check.")
	// 9
	c.assistant(
		step{c.newSession(""),
			c.sh("Type-check", "pnpm tsc --noEmit", "src/components/ThemeToggle.tsx:7:9 - error TS2322: Type 'string' is not assignable to type 'Theme'.\n\n7   const next: Theme = theme === 'dark' ? 'light' : 'dark' as string;\n          ~~~~\n\nFound 1 error in src/components/ThemeToggle.tsx:7", 2),
			c.lint([]string{"src/hooks/useTheme.ts", "src/components/ThemeToggle.tsx", "src/components/Header.tsx"}, map[string][]diag{
				"src/hooks/useTheme.ts":          {{21, 42, "error", "react-hooks/exhaustive-deps", "React Hook useCallback has a missing dependency: 'setTheme'."}},
				"src/components/ThemeToggle.tsx": {{2, 8, "warning", "import/order", "`../sun.svg` import should occur before import of `../hooks/useTheme`"}},
			})},
		step{text("The type-check fails with TS2322 in `ThemeToggle.tsx`, and lint has one error and one warning. Want me to fix them?")},
	)
	c.user("Fix them.")
	// 11
	c.assistant(
		step{c.multiEdit("src/components/ThemeToggle.tsx",
			edit{"import { useTheme } from '../hooks/useTheme';\nimport sun from '../sun.svg';\nimport moon from '../moon.svg';", "import sun from '../sun.svg';\nimport moon from '../moon.svg';\nimport { useTheme, type Theme } from '../hooks/useTheme';"},
			edit{"const next: string =", "const next: Theme ="}),
			c.multiEdit("src/hooks/useTheme.ts", edit{"(t === 'dark' ? 'light' : 'dark')), []);", "(t === 'dark' ? 'light' : 'dark')), [setTheme]);"})},
		step{c.sh("Type-check", "pnpm tsc --noEmit", "", 0),
			c.lint([]string{"src/hooks/useTheme.ts", "src/components/ThemeToggle.tsx", "src/components/Header.tsx"}, nil),
			text("Type-check passes and lint is clean.")},
	)
	c.user("The toggle icon is tiny on my phone, screenshot attached.", withAttachment("att/IMG_2214_k2x9qq.png", "IMG_2214.png"))
	// 13
	c.assistant(step{
		c.write("src/components/ThemeToggle.css", srcThemeToggleCSS, true),
		c.multiEdit("src/components/ThemeToggle.tsx", edit{"import { useTheme, type Theme } from '../hooks/useTheme';", "import { useTheme, type Theme } from '../hooks/useTheme';\nimport './ThemeToggle.css';"}),
		text("The toggle now has a 44×44px touch target and a 20px icon ([](path:w1a2/src/components/ThemeToggle.css))."),
	})
	c.user("ok. Also the recipe cards still have hard-coded white backgrounds.") // 14: boundary 1
	// 15
	c.assistant(
		step{c.grep("#fff|white", "*.css",
			match{"src/components/RecipeCard.css", 4, "  background: #fff;"},
			match{"src/components/RecipeCard.css", 17, "  border-top: 1px solid white;"},
			match{"src/components/Modal.css", 9, "  background: white;"},
			match{"src/components/Button.css", 19, "  color: #ffffff;"})},
		step{c.multiEdit("src/components/RecipeCard.css",
			edit{"  background: #fff;", "  background: var(--color-surface);"},
			edit{"  border-top: 1px solid white;", "  border-top: 1px solid color-mix(in srgb, var(--color-text) 10%, transparent);"}),
			c.multiEdit("src/components/Modal.css", edit{"  background: white;", "  background: var(--color-surface);"}),
			text("Cards and the modal use `--color-surface` now. The white text on the primary button is intentional, so I left it.")},
	)
	c.user("The modal backdrop is now invisible in dark mode.")
	// 17
	c.assistant(step{
		c.multiEdit("src/components/Modal.css", edit{"  background: rgb(15 23 42 / 0.4);", "  background: rgb(0 0 0 / 0.6);"}),
		text("The backdrop is `rgb(0 0 0 / 0.6)` in both themes now, which stays visible on the dark background."),
	})
	c.user("Let's write tests for useTheme.")
	// 19
	c.assistant(
		step{c.listDocs("testing-library react", [2]string{"/testing-library/react-testing-library", "React Testing Library"}, [2]string{"/testing-library/dom-testing-library", "DOM Testing Library"}),
			c.searchDocs("/testing-library/react-testing-library", "renderHook act", "## renderHook\n\n```ts\nfunction renderHook<Result, Props>(render: (props: Props) => Result, options?: RenderHookOptions<Props>): RenderHookResult<Result, Props>\n```\n\nRenders a test component that calls the provided callback, including any hooks it calls, every time it renders. Wrap state updates in `act()`.")},
		step{c.write("src/hooks/useTheme.test.ts", "import { act, renderHook } from '@testing-library/react';\nimport { describe, expect, it } from 'vitest';\nimport { useTheme } from './useTheme';\n\ndescribe('useTheme', () => {\n  it('defaults to the system preference', () => {\n    const { result } = renderHook(() => useTheme());\n    expect(result.current.theme).toBe('light');\n  });\n\n  it('toggles and persists', () => {\n    const { result } = renderHook(() => useTheme());\n    act(() => result.current.toggle());\n    expect(result.current.theme).toBe('dark');\n    expect(localStorage.getItem('rb-theme')).toBe('dark');\n    expect(document.documentElement.dataset.theme).toBe('dark');\n  });\n});\n", true),
			c.sh("Run the hook tests", "pnpm vitest run src/hooks",
				" RUN  v3.1.4 /home/dev/projects/recipe-box\n\n ❯ src/hooks/useTheme.test.ts (2 tests | 2 failed) 18ms\n   × useTheme > defaults to the system preference 9ms\n     → window.matchMedia is not a function\n   × useTheme > toggles and persists 3ms\n     → window.matchMedia is not a function\n ✓ src/hooks/useFavorites.test.ts (3 tests) 22ms\n\n Test Files  1 failed | 1 passed (2)\n      Tests  2 failed | 3 passed (5)", 1),
			text("Both new tests fail: jsdom has no `window.matchMedia`.")},
	)
	c.user("jsdom has no matchMedia, mock it in the setup file.")
	// 21
	c.assistant(step{
		c.read("src/test/setup.ts", srcTestSetupTS),
		c.multiEdit("src/test/setup.ts", edit{"import { cleanup } from '@testing-library/react';", "import { cleanup } from '@testing-library/react';\n\nObject.defineProperty(window, 'matchMedia', {\n  writable: true,\n  value: (query: string) => ({\n    matches: false,\n    media: query,\n    onchange: null,\n    addEventListener: () => {},\n    removeEventListener: () => {},\n    dispatchEvent: () => false,\n  }),\n});"}),
		c.sh("Run the hook tests", "pnpm vitest run src/hooks", " RUN  v3.1.4 /home/dev/projects/recipe-box\n\n ✓ src/hooks/useTheme.test.ts (2 tests) 14ms\n ✓ src/hooks/useFavorites.test.ts (3 tests) 21ms\n\n Test Files  2 passed (2)\n      Tests  5 passed (5)", 0),
		text("`matchMedia` is mocked in [](path:w1a2/src/test/setup.ts); all hook tests pass."),
	})
	c.user("Nice. Can you also make the toggle keyboard accessible? Tab focus doesn't show anything.")
	// 23
	c.assistant(step{
		c.multiEdit("src/components/ThemeToggle.css", edit{".theme-toggle:hover {", ".theme-toggle:focus-visible {\n  outline: 2px solid var(--color-focus);\n  outline-offset: 2px;\n}\n\n.theme-toggle:hover {"}),
		c.multiEdit("src/components/ThemeToggle.tsx",
			edit{`onClick={toggle} title="Toggle theme">`, "onClick={toggle} title=\"Toggle theme\" aria-pressed={theme === 'dark'} aria-label={`Switch to ${next} mode`}>"},
			edit{"      <span className=\"visually-hidden\">Switch to {next} mode</span>\n", ""}),
		text("Added a `:focus-visible` outline, `aria-pressed` and an `aria-label` on the toggle."),
	})
	c.user("Check the dev server in the browser tab.", withTabMention("t1", "http://localhost:5173/", "Recipe Box"))
	// 25
	c.assistant(
		step{c.sh("Start the dev server", "pnpm dev", "\n  VITE v6.3.5  ready in 412 ms\n\n  ➜  Local:   http://localhost:5173/\n  ➜  Network: use --host to expose\n", -1)},
		step{c.tool("readConsoleLogs", Obj{{"tabId", "t1"}, {"limit", 50}}, Obj{{"logs", Arr{
			Obj{{"level", "info"}, {"message", "[vite] connected."}},
			Obj{{"level", "warning"}, {"message", "The page has no <meta name=\"color-scheme\">; form controls and scrollbars keep the light scheme in dark mode."}},
		}}}),
			text("The dev server is up on http://localhost:5173/ (the command keeps running, so the tool timed out as expected). The console shows one warning: no `color-scheme` meta tag, so native controls and scrollbars stay light in dark mode.")},
	)
	c.user("Fix that color-scheme warning.") // 26: boundary 2
	// 27
	c.assistant(step{
		c.multiEdit("index.html", edit{`    <meta name="viewport" content="width=device-width, initial-scale=1.0" />`, "    <meta name=\"viewport\" content=\"width=device-width, initial-scale=1.0\" />\n    <meta name=\"color-scheme\" content=\"light dark\" />"}),
		text("Added `<meta name=\"color-scheme\" content=\"light dark\">`; the warning is gone after a reload."),
	})
	c.user("The images look too bright in dark mode now. Dim them slightly.")
	// 29
	c.assistant(step{
		c.multiEdit("src/components/RecipeCard.css", edit{".recipe-card img {\n  width: 100%;", "[data-theme='dark'] .recipe-card img {\n  filter: brightness(0.9);\n}\n\n.recipe-card img {\n  width: 100%;"}),
		text("Images get `filter: brightness(0.9)` in dark mode."),
	})
	c.user("Undo that, the designer says no filters. Use a subtle overlay instead.")
	// 31
	c.assistant(step{
		c.multiEdit("src/components/RecipeCard.css",
			edit{"[data-theme='dark'] .recipe-card img {\n  filter: brightness(0.9);\n}\n\n", ""},
			edit{".recipe-card__media {", ".recipe-card__media {\n  position: relative;"},
			edit{"/* end media */", "[data-theme='dark'] .recipe-card__media::after {\n  content: '';\n  position: absolute;\n  inset: 0;\n  background: rgb(0 0 0 / 0.12);\n  pointer-events: none;\n}\n/* end media */"}),
		text("Removed the filter; dark mode now lays a `rgb(0 0 0 / 0.12)` overlay over the card image instead."),
	})
	c.user("Delete the old theme.js left over from the jQuery days, and move the svg icons to src/assets/icons.")
	// 33
	c.assistant(
		step{c.glob("**/theme.js", "public/js/theme.js"),
			c.del("public/js/theme.js"),
			c.copyFile("src/sun.svg", "src/assets/icons/sun.svg", true),
			c.copyFile("src/moon.svg", "src/assets/icons/moon.svg", true)},
		step{c.multiEdit("src/components/ThemeToggle.tsx",
			edit{"import sun from '../sun.svg';", "import sun from '../assets/icons/sun.svg';"},
			edit{"import moon from '../moon.svg';", "import moon from '../assets/icons/moon.svg';"}),
			text("Deleted `public/js/theme.js`, moved both icons to `src/assets/icons/` and updated the imports in the toggle.")},
	)
	c.user("Run the full test suite and the build.")
	// 35
	c.assistant(
		step{c.sh("Run all tests", "pnpm test", " RUN  v3.1.4 /home/dev/projects/recipe-box\n\n ✓ src/hooks/useTheme.test.ts (2 tests) 15ms\n ✓ src/hooks/useFavorites.test.ts (3 tests) 20ms\n ✓ src/components/Button.test.tsx (3 tests) 38ms\n ✓ src/components/Header.test.tsx (2 tests) 30ms\n ✓ src/components/RecipeCard.test.tsx (4 tests) 36ms\n\n Test Files  5 passed (5)\n      Tests  14 passed (14)\n   Duration  1.87s", 0),
			c.sh("Production build", "pnpm build", "> recipe-box@1.3.2 build /home/dev/projects/recipe-box\n> tsc -b && vite build\n\nvite v6.3.5 building for production...\n✓ 38 modules transformed.\nx Build failed in 612ms\nerror during build:\n[vite]: Rollup failed to resolve import \"../sun.svg\" from \"/home/dev/projects/recipe-box/src/components/Footer.tsx\".", 1)},
		step{text("The footer also imported the old icon path."),
			c.multiEdit("src/components/Footer.tsx", edit{"import sun from '../sun.svg';", "import sun from '../assets/icons/sun.svg';"}),
			c.sh("Production build", "pnpm build", "> recipe-box@1.3.2 build /home/dev/projects/recipe-box\n> tsc -b && vite build\n\nvite v6.3.5 building for production...\n✓ 39 modules transformed.\ndist/index.html                   0.98 kB │ gzip:  0.52 kB\ndist/assets/index-C9xq2mLd.css    9.84 kB │ gzip:  2.61 kB\ndist/assets/index-B1v7r0Qe.js   214.37 kB │ gzip: 68.90 kB\n✓ built in 1.41s", 0),
			text("Tests pass (14/14) and the build succeeds after fixing the footer import.")},
	)
	c.user("Run the e2e smoke test too.")
	// 37
	c.assistant(step{
		c.sh("Run the Playwright smoke test", "pnpm exec playwright test e2e/smoke.spec.ts", "\nRunning 1 test using 1 worker\n[WebServer] \n[WebServer]   VITE v6.3.5  ready in 388 ms\n", -1),
		text("The smoke test timed out after 120 s; the web server started but the test never reported. Possibly the `webServer.url` in the Playwright config points at the wrong port."),
	})
	c.user("Skip e2e, it's flaky on this machine. Let's do the settings page: a Theme select with System / Light / Dark.") // 38: boundary 3
	// 39
	c.assistant(
		step{c.read("src/pages/Settings.tsx", srcSettingsTSX)},
		step{c.multiEdit("src/pages/Settings.tsx",
			edit{"import { useUnits } from '../hooks/useUnits';", "import { useUnits } from '../hooks/useUnits';\nimport { useTheme, type ThemePreference } from '../hooks/useTheme';"},
			edit{"  const { units, setUnits } = useUnits();", "  const { units, setUnits } = useUnits();\n  const { preference, setPreference } = useTheme();"},
			edit{"      <Button onClick", "      <label className=\"field\">\n        <span>Theme</span>\n        <select value={preference} onChange={(e) => setPreference(e.target.value as ThemePreference)}>\n          <option value=\"system\">System</option>\n          <option value=\"light\">Light</option>\n          <option value=\"dark\">Dark</option>\n        </select>\n      </label>\n      <Button onClick"}),
			c.multiEdit("src/hooks/useTheme.ts",
				edit{"export type Theme = 'light' | 'dark';", "export type Theme = 'light' | 'dark';\nexport type ThemePreference = Theme | 'system';"},
				edit{"  return { theme, setTheme, toggle };", "  const preference: ThemePreference = localStorage.getItem(STORAGE_KEY) === null ? 'system' : theme;\n  const setPreference = (p: ThemePreference) => {\n    if (p === 'system') {\n      localStorage.removeItem(STORAGE_KEY);\n      setTheme(initialTheme());\n    } else setTheme(p);\n  };\n  return { theme, setTheme, toggle, preference, setPreference };"}),
			text(md("The settings page has a Theme select (System, Light, Dark); ´useTheme´ exposes ´preference´ and ´setPreference´, where System clears the stored choice."))},
	)
	c.user("When I pick System and then switch the OS theme, the app doesn't follow.")
	// 41
	c.assistant(
		step{reasoning("System mode must subscribe to the media query change event while no explicit choice is stored."),
			c.multiEdit("src/hooks/useTheme.ts", edit{"  const toggle = useCallback(", "  useEffect(() => {\n    const mq = window.matchMedia('(prefers-color-scheme: dark)');\n    const onChange = () => {\n      if (localStorage.getItem(STORAGE_KEY) === null) setTheme(mq.matches ? 'dark' : 'light');\n    };\n    mq.addEventListener('change', onChange);\n    return () => mq.removeEventListener('change', onChange);\n  }, []);\n\n  const toggle = useCallback("}),
			c.sh("Run the hook tests", "pnpm vitest run src/hooks", " RUN  v3.1.4 /home/dev/projects/recipe-box\n\n ✓ src/hooks/useTheme.test.ts (2 tests) 16ms\n ✓ src/hooks/useFavorites.test.ts (3 tests) 19ms\n\n Test Files  2 passed (2)\n      Tests  5 passed (5)", 0),
			text("System mode now listens to `prefers-color-scheme` changes; tests still pass.")},
	)
	c.user("The build feels slow. Try clearing node_modules and reinstalling?")
	// 43
	c.assistant(step{
		c.shDenied("Remove node_modules and reinstall", "rm -rf node_modules && pnpm install", "Not now"),
		text("You declined the reinstall. I won't touch `node_modules`; tell me if you want to try it later."),
	})
	c.user("Yes, leave it. Lint everything we touched today.")
	// 45
	touched := []string{"src/hooks/useTheme.ts", "src/components/ThemeToggle.tsx", "src/components/ThemeToggle.css", "src/components/Header.tsx",
		"src/components/RecipeCard.css", "src/components/Modal.css", "src/components/Footer.tsx", "src/pages/Settings.tsx", "src/test/setup.ts", "index.html"}
	c.assistant(step{
		c.lint(touched, map[string][]diag{
			"src/pages/Settings.tsx": {{1, 10, "warning", "@typescript-eslint/no-unused-vars", "'useState' is defined but never used."}},
			"src/hooks/useTheme.ts":  {{33, 9, "warning", "prefer-const", "'preference' is never reassigned. Use 'const' instead."}},
		}),
		text("No errors, two warnings: an unused `useState` import in `Settings.tsx` and a `prefer-const` in `useTheme.ts`."),
	})
	c.user("Fix the warnings.")
	// 47
	c.assistant(step{
		c.multiEdit("src/pages/Settings.tsx", edit{"import { useState } from 'react';\n", ""}),
		c.multiEdit("src/hooks/useTheme.ts", edit{"  let preference", "  const preference"}),
		c.lint(touched, nil),
		text("Both warnings fixed; lint is clean on all touched files."),
	})
	c.user("Write a short entry in CHANGELOG.md.") // 48: boundary 4
	// 49
	c.assistant(step{
		c.read("CHANGELOG.md", srcChangelogMD),
		c.multiEdit("CHANGELOG.md", edit{"# Changelog\n", "# Changelog\n\n## Unreleased\n\n- Dark mode: header toggle, System/Light/Dark setting, follows the OS theme in System mode.\n- Recipe cards and the modal use theme surface colours.\n"}),
		text("Added an Unreleased section to [](path:w1a2/CHANGELOG.md)."),
	})
	c.user("Good. Ask me if anything is still open before we wrap up.")
	// 51
	c.assistant(step{
		c.ask("Before wrapping up",
			[][]field{{{"ship-now", "Ship dark mode behind a feature flag?", "boolean", nil}, {"flag-name", "Flag name", "text", nil}}},
			Obj{{"ship-now", false}}, false, "Need to check with design first"),
		text("You cancelled the form (\"Need to check with design first\"). I'll wait for the decision on the feature flag."),
	})
	c.user("Designer confirmed: no flag, ship it. Bump the version to 1.4.0.")
	// 53
	c.assistant(step{
		c.multiEdit("package.json", edit{`"version": "1.3.2",`, `"version": "1.4.0",`}),
		c.multiEdit("CHANGELOG.md", edit{"## Unreleased", "## 1.4.0 - 2026-05-19"}),
		c.sh("Refresh the lockfile", "pnpm install --lockfile-only", "Lockfile is up to date, resolution step is skipped\nDone in 612ms", 0),
		text("Version bumped to 1.4.0 in `package.json` and the changelog."),
	})
	c.user("Run everything one last time.")
	// 55
	c.assistant(step{
		c.sh("Run all tests", "pnpm test", " Test Files  5 passed (5)\n      Tests  14 passed (14)\n   Duration  1.79s", 0),
		c.sh("Production build", "pnpm build", "vite v6.3.5 building for production...\n✓ 39 modules transformed.\n✓ built in 1.38s", 0),
		c.lint(touched, nil),
		text("All green: 14 tests pass, the build succeeds and lint is clean."),
	})
	c.user("Thanks, great work!")
	// 57
	c.assistant(step{text("Thank you! Dark mode is in place: header toggle, settings select, OS-following System mode, tests and changelog.")})
	c.user("Oh wait, one thing: the tooltip says 'Toggle theme'. Make it say 'Switch to dark mode' / 'Switch to light mode'.")
	// 59
	c.assistant(step{
		c.multiEdit("src/components/ThemeToggle.tsx", edit{`title="Toggle theme"`, "title={`Switch to ${next} mode`}"}),
		text("The tooltip now reads \"Switch to dark mode\" or \"Switch to light mode\"."),
	})
	c.user("Perfect.")
	// 61
	c.assistant(step{text("Great, nothing else open on my side.")})

	// Chained briefings, each appending to the previous one (rule 7).
	s1 := []string{
		section("Dark mode: plan and first implementation", `The user invoked /implement and asked for dark mode in the recipe box: a toggle in the header, the ´prefers-color-scheme´ preference on the first visit, and the choice remembered in localStorage; the design tokens live in [](path:w1a2/src/styles/tokens.css). The /implement directive still binds: finish each step with tests and lint before calling it done. In a form the user chose the system theme as default, an icon button as the toggle, and persistence across sessions. You created [](path:w1a2/src/hooks/useTheme.ts), which reads ´rb-theme´ from localStorage, falls back to ´prefers-color-scheme´ and sets ´data-theme´ on ´<html>´, and [](path:w1a2/src/components/ThemeToggle.tsx), and you added the toggle to [](path:w1a2/src/components/Header.tsx).`),
		section("Dark palette and the flash on reload", `The user noticed that no dark colours existed, so you added a ´[data-theme='dark']´ block to tokens.css with ´--color-bg: #0b1220´, ´--color-surface: #111827´, ´--color-text: #e5e7eb´, ´--color-muted: #94a3b8´, ´--color-primary: #2dd4bf´ and ´--color-focus: #60a5fa´. To stop the flash of the light theme on reload you added an inline script to [](path:w1a2/index.html) that sets ´data-theme´ before the bundle loads.`),
		section("Type errors and lint", `´pnpm tsc --noEmit´ failed with TS2322 in ThemeToggle.tsx (a ´string´ where ´Theme´ was expected), and lint reported a react-hooks/exhaustive-deps error in useTheme.ts and an import/order warning in ThemeToggle.tsx. You fixed all three; the type-check passed and lint came back clean.`),
		section("Mobile toggle size", `The user attached a phone screenshot (IMG_2214.png) showing a tiny toggle. You created [](path:w1a2/src/components/ThemeToggle.css) with a 44×44px touch target and a 20px icon and imported it in the toggle.`),
	}
	c.compress(14, briefing(append(s1,
		section("Current working state", `You last created [](path:w1a2/src/components/ThemeToggle.css) to enlarge the toggle's touch target on mobile. Next, wait for the user to check the toggle on a phone-sized viewport.`))...))

	s2 := append(append([]string{}, s1...),
		section("Hard-coded whites and the modal", `The user pointed out hard-coded white backgrounds on the recipe cards. A grep for ´#fff|white´ in CSS found them in [](path:w1a2/src/components/RecipeCard.css) and [](path:w1a2/src/components/Modal.css), and you replaced them with ´var(--color-surface)´; the white text on the primary button stays on purpose. The modal backdrop then became invisible in dark mode, so you set it to ´rgb(0 0 0 / 0.6)´ in both themes.`),
		section("Tests for useTheme", `You looked up ´renderHook´ in the React Testing Library docs and created [](path:w1a2/src/hooks/useTheme.test.ts). The first run failed because jsdom has no ´window.matchMedia´; as the user asked, you mocked it in [](path:w1a2/src/test/setup.ts), and ´pnpm vitest run src/hooks´ then passed with 5 tests.`),
		section("Keyboard access and the dev server", `For visible keyboard focus you added a ´:focus-visible´ outline to ThemeToggle.css and ´aria-pressed´ plus an ´aria-label´ to ThemeToggle.tsx. You started ´pnpm dev´, which kept running until the tool timed out, as a server does; Vite served on http://localhost:5173/. The console of the Recipe Box tab warned that no ´color-scheme´ meta tag is set, so native controls stay light in dark mode.`),
	)
	c.compress(26, briefing(append(s2,
		section("Current working state", `You last read the console of the Recipe Box tab and reported the missing ´color-scheme´ meta tag. Next, wait for the user to decide whether to fix that warning.`))...))

	s3 := append(append([]string{}, s2...),
		section("color-scheme, images and the overlay", `You added ´<meta name="color-scheme" content="light dark">´ to index.html. The user found the images too bright in dark mode; you first dimmed them with ´filter: brightness(0.9)´ in RecipeCard.css, but the user reverted that because the designer rejects filters, so you replaced it with a dark-mode ´::after´ overlay of ´rgb(0 0 0 / 0.12)´ on ´.recipe-card__media´. Do not reintroduce CSS filters.`),
		section("Cleanup of the jQuery leftovers", `You deleted [](path:w1a2/public/js/theme.js) and moved ´sun.svg´ and ´moon.svg´ to [](path:w1a2/src/assets/icons/sun.svg) and [](path:w1a2/src/assets/icons/moon.svg), updating the imports in ThemeToggle.tsx. ´pnpm test´ passed 14 of 14, but ´pnpm build´ failed with exit 1 because [](path:w1a2/src/components/Footer.tsx) still imported ´../sun.svg´; after you fixed that import the build passed.`),
		section("E2E smoke test", `´pnpm exec playwright test e2e/smoke.spec.ts´ timed out after 120 s: the web server started but the test never reported, possibly because ´webServer.url´ points at the wrong port. Nothing was changed for it.`),
	)
	c.compress(38, briefing(append(s3,
		section("Current working state", `You last ran the Playwright smoke test, which timed out. Next, ask the user whether to debug the Playwright web server configuration or to move on.`))...))

	s4 := append(append([]string{}, s3...),
		section("Theme select on the settings page", `The user decided to skip e2e because it is flaky on this machine. You added a Theme select with System, Light and Dark to [](path:w1a2/src/pages/Settings.tsx) and gave useTheme.ts a ´ThemePreference´ type with ´preference´ and ´setPreference´, where System removes ´rb-theme´ from localStorage. When System did not follow OS changes, you subscribed to the ´change´ event of the ´prefers-color-scheme´ media query, and the hook tests passed.`),
		section("Declined reinstall and lint warnings", `The user denied ´rm -rf node_modules && pnpm install´ and wants node_modules left alone. Lint over the ten files touched today found no errors and two warnings, an unused ´useState´ import in Settings.tsx and a ´prefer-const´ in useTheme.ts; you fixed both and lint came back clean.`),
	)
	c.compress(48, briefing(append(s4,
		section("Current working state", `You last fixed the two lint warnings, and lint over all touched files came back clean. Next, act on the user's request for a CHANGELOG entry describing the dark mode work.`))...))

	row := baseChat(id, "Add dark mode with a header toggle", "claude-opus-4.6", start)
	row.TitleLocked = 1
	row.UsedTokens = 112408
	return finish(row, c, true), c
}

// ---------------------------------------------------------------------------

func chatThemeExplore(r *rng, start time.Time, parent string) *chatRow {
	id := r.uuid()
	c := newConvo(r, start, sampleMount, sampleWS, "claude-haiku-4.5")
	c.userAfter(0, "Find every place in the codebase that reads or writes the theme preference (the localStorage key 'rb-theme' or the data-theme attribute). Report file paths and line numbers; do not edit anything.")
	c.assistant(
		step{c.grep("rb-theme", "",
			match{"src/hooks/useTheme.ts", 4, "const STORAGE_KEY = 'rb-theme';"},
			match{"index.html", 10, "        var t = localStorage.getItem('rb-theme');"},
			match{"public/js/theme.js", 3, "  var saved = window.localStorage.getItem('rb-theme') || 'light';"}),
			c.grep("data-theme|dataset.theme", "*.{ts,tsx,html,css,js}",
				match{"src/hooks/useTheme.ts", 16, "    document.documentElement.dataset.theme = theme;"},
				match{"index.html", 12, "        document.documentElement.dataset.theme = t;"},
				match{"src/styles/tokens.css", 18, "[data-theme='dark'] {"},
				match{"public/js/theme.js", 5, "  $('html').attr('data-theme', saved);"})},
		step{text("Found 7 hits in 4 files: `useTheme.ts`, `index.html`, `tokens.css` and a legacy `public/js/theme.js`.")},
	)
	c.user("Also check the service worker and the rest of public/.")
	c.assistant(step{
		c.glob("public/**/*.js", "public/js/theme.js", "public/js/jquery-3.4.1.min.js", "public/sw.js"),
		c.read("public/sw.js", srcServiceWorkerJS),
		text("The service worker (`public/sw.js`) only has a no-op `theme` message handler; it neither reads nor writes `rb-theme`. Nothing else in `public/` besides `theme.js` and the jQuery bundle it depends on."),
	})
	c.user("Any tests that depend on it?")
	c.assistant(step{
		c.grep("rb-theme|data-theme", "*.test.ts*"),
		text("No test references `rb-theme` or `data-theme` yet."),
	})
	c.user("Summarise in a list I can paste into the parent chat.")
	c.assistant(step{text(md("- ´src/hooks/useTheme.ts:4´ defines ´STORAGE_KEY = 'rb-theme'´; line 16 sets ´dataset.theme´\n- ´index.html:10-12´ inline script reads ´rb-theme´ and sets ´dataset.theme´\n- ´src/styles/tokens.css:18´ ´[data-theme='dark']´ selector\n- ´public/js/theme.js:3-5´ legacy jQuery script reads ´rb-theme´ and sets the attribute (safe to delete, only loaded by the old ´legacy.html´)\n- ´public/sw.js´ has a no-op ´theme´ message handler\n- no tests depend on either"))})
	row := baseChat(id, "Find theme reads in localStorage", "claude-haiku-4.5", start)
	row.ParentID = parent
	row.UsedTokens = 18342
	return finish(row, c, true)
}

// ---------------------------------------------------------------------------

func chatPlaywright(r *rng, start time.Time) *chatRow {
	id := r.uuid()
	c := newConvo(r, start, sampleMount, sampleWS, "gpt-5.4")
	c.userAfter(0, "Set up Playwright for e2e tests. Just Chromium for now.")
	c.assistant(
		step{c.read("package.json", srcPackageJSON),
			c.newSession(""),
			c.sh("Install Playwright", "pnpm add -D @playwright/test", "Packages: +3\n+++\nProgress: resolved 412, reused 409, downloaded 3, added 3, done\n\ndevDependencies:\n+ @playwright/test 1.52.0\n\nDone in 3.1s", 0),
			c.sh("Install the Chromium browser", "pnpm exec playwright install chromium", "Downloading Chromium 136.0.7103.25 (playwright build v1169) from https://cdn.playwright.dev/dbazure/download/playwright/builds/chromium/1169/chromium-linux.zip\n|■■■■■■■■■■■■                                                                    |  15% of 171.6 MiB", -1)},
		step{text("Playwright is installed, but the Chromium download timed out at 15%. The network seems slow; should I retry?")},
	)
	c.user("Retry, without --with-deps. The network is just slow today.")
	c.assistant(
		step{c.sh("Install the Chromium browser", "pnpm exec playwright install chromium", "Downloading Chromium 136.0.7103.25 (playwright build v1169)\n|■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■| 100% of 171.6 MiB\nChromium 136.0.7103.25 (playwright build v1169) downloaded to /home/dev/.cache/ms-playwright/chromium-1169", 0)},
		step{c.write("playwright.config.ts", "import { defineConfig, devices } from '@playwright/test';\n\nexport default defineConfig({\n  testDir: './e2e',\n  fullyParallel: true,\n  retries: process.env.CI ? 2 : 0,\n  use: { baseURL: 'http://localhost:3000', trace: 'on-first-retry' },\n  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'] } }],\n  webServer: { command: 'pnpm dev', url: 'http://localhost:3000', reuseExistingServer: !process.env.CI },\n});\n", true),
			c.write("e2e/home.spec.ts", "import { expect, test } from '@playwright/test';\n\ntest('home page shows the recipe grid', async ({ page }) => {\n  await page.goto('/');\n  await expect(page.getByRole('link', { name: 'Recipe Box' })).toBeVisible();\n});\n\ntest('recipes page lists cards', async ({ page }) => {\n  await page.goto('/recipes');\n  await expect(page.locator('.recipe-card').first()).toBeVisible();\n});\n", true),
			text(md("Chromium is installed. I created [](path:w1a2/playwright.config.ts) and a first spec, [](path:w1a2/e2e/home.spec.ts)."))},
	)
	c.user("Run it.")
	c.assistant(step{
		c.sh("Run the e2e tests", "pnpm exec playwright test", "Error: Timed out waiting 60000ms from config.webServer.\n\n  1 error was not a part of any test, see above for details", 1),
		text("Playwright gave up waiting for the web server on http://localhost:3000 after 60 s."),
	})
	c.user("The dev server runs on 5173, not 3000.")
	c.assistant(step{
		c.multiEdit("playwright.config.ts",
			edit{"baseURL: 'http://localhost:3000'", "baseURL: 'http://localhost:5173'"},
			edit{"url: 'http://localhost:3000'", "url: 'http://localhost:5173'"}),
		c.sh("Run the e2e tests", "pnpm exec playwright test", "\nRunning 2 tests using 2 workers\n  2 passed (4.2s)\n\nTo open last HTML report run:\n\n  pnpm exec playwright show-report", 0),
		text("With port 5173 both tests pass."),
	})
	c.user("Add a test for the theme toggle.")
	c.assistant(
		step{c.write("e2e/theme.spec.ts", "import { expect, test } from '@playwright/test';\n\ntest('theme toggle switches to dark and persists', async ({ page }) => {\n  await page.goto('/');\n  await page.getByRole('button', { name: /mode/i }).click();\n  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');\n  await page.reload();\n  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');\n});\n", true),
			c.sh("Run the theme e2e test", "pnpm exec playwright test e2e/theme.spec.ts", "\nRunning 1 test using 1 worker\n  1) [chromium] › e2e/theme.spec.ts:3:5 › theme toggle switches to dark and persists\n\n    Error: locator.click: Error: strict mode violation: getByRole('button', { name: /mode/i }) resolved to 2 elements:\n        1) <button aria-pressed=\"false\" aria-label=\"Switch to dark mode\" class=\"theme-toggle\">…</button>\n        2) <button class=\"btn btn--ghost btn--sm\">Reader mode</button>\n\n  1 failed\n    [chromium] › e2e/theme.spec.ts:3:5 › theme toggle switches to dark and persists", 1)},
		step{c.multiEdit("e2e/theme.spec.ts", edit{"{ name: /mode/i }", "{ name: /switch to (dark|light) mode/i }"}),
			c.sh("Run all e2e tests", "pnpm exec playwright test", "\nRunning 3 tests using 3 workers\n  3 passed (5.0s)", 0),
			text("The first locator also matched the \"Reader mode\" button; with a precise name all three e2e tests pass.")},
	)
	c.user("Add an e2e script to package.json and ignore Playwright's output folders.")
	c.assistant(step{
		c.multiEdit("package.json", edit{`"test": "vitest run",`, "\"test\": \"vitest run\",\n    \"e2e\": \"playwright test\","}),
		c.read(".gitignore", srcGitignore),
		c.write(".gitignore", srcGitignore+"test-results\nplaywright-report\nblob-report\n", false),
		text("Added `pnpm e2e` and ignored `test-results/`, `playwright-report/` and `blob-report/`."),
	})
	c.user("Lint the new files.")
	c.assistant(step{
		c.lint([]string{"playwright.config.ts", "e2e/home.spec.ts", "e2e/theme.spec.ts"}, map[string][]diag{
			"e2e/home.spec.ts": {{10, 3, "warning", "playwright/prefer-web-first-assertions", "Prefer web-first assertions."}},
		}),
		c.multiEdit("e2e/home.spec.ts", edit{"await expect(page.locator('.recipe-card').first()).toBeVisible();", "await expect(page.getByRole('article').first()).toBeVisible();"}),
		c.lint([]string{"e2e/home.spec.ts"}, nil),
		text("One warning in `home.spec.ts`, fixed; lint is clean now."),
	})
	c.user("👍 thanks")
	c.assistant(step{text("You're welcome. `pnpm e2e` runs the three Chromium tests.")})
	row := baseChat(id, "Set up Playwright e2e tests", "gpt-5.4", start)
	row.TitleLocked = 0
	row.UsedTokens = 30511
	return finish(row, c, true)
}

// ---------------------------------------------------------------------------

func chatPagination(r *rng, start time.Time) *chatRow {
	id := r.uuid()
	c := newConvo(r, start, sampleMount, sampleWS, "claude-sonnet-4.6")
	c.tabs = append(c.tabs, Obj{{"id", "t2"}, {"url", "http://localhost:5173/recipes"}, {"title", "Recipes · Recipe Box"}})
	c.userAfter(0, "The /recipes page loads all 2,400 recipes at once and takes 4 s. Add server-side pagination: 24 per page.",
		withFileMention(c, "server/routes/recipes.ts"), withFileMention(c, "src/api/recipes.ts"))
	// 1
	c.assistant(
		step{c.read("server/routes/recipes.ts", srcRecipesRouteTS),
			c.read("src/api/recipes.ts", srcRecipesAPITS),
			c.read("src/pages/Recipes.tsx", srcRecipesPageTSX)},
		step{text(md("The list endpoint returns every row and the page renders them all. Plan: ´GET /api/recipes?limit=24&offset=…´ on the server, a paged fetch on the client. OK?"))},
	)
	c.user("Use a cursor on (created_at, id), not offsets.")
	// 3
	c.assistant(step{
		c.write("server/lib/cursor.ts", "export interface Cursor {\n  createdAt: string;\n  id: string;\n}\n\nexport function encodeCursor(c: Cursor): string {\n  return Buffer.from(JSON.stringify(c)).toString('base64');\n}\n\nexport function decodeCursor(s: string): Cursor {\n  return JSON.parse(Buffer.from(s, 'base64').toString('utf8'));\n}\n", true),
		c.multiEdit("server/routes/recipes.ts",
			edit{"import { db } from '../db';", "import { db } from '../db';\nimport { decodeCursor, encodeCursor } from '../lib/cursor';"},
			edit{"  const tag = typeof req.query.tag === 'string' ? req.query.tag : undefined;", "  const tag = typeof req.query.tag === 'string' ? req.query.tag : undefined;\n  const limit = Math.min(Number(req.query.limit) || 24, 100);\n  const after = typeof req.query.cursor === 'string' ? decodeCursor(req.query.cursor) : undefined;"},
			edit{"  res.json({ items: rows });", "  const last = rows.at(-1);\n  res.json({ items: rows, nextCursor: rows.length === limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null });"}),
		text(md("Added [](path:w1a2/server/lib/cursor.ts) and made the route read ´cursor´ and ´limit´ and return ´nextCursor´. The WHERE clause for the cursor comes next.")),
	})
	c.user("Add tests for the cursor encoding.")
	// 5
	c.assistant(
		step{c.write("server/lib/cursor.test.ts", "import { describe, expect, it } from 'vitest';\nimport { decodeCursor, encodeCursor } from './cursor';\n\ndescribe('cursor', () => {\n  it('round-trips', () => {\n    const c = { createdAt: '2026-05-01T10:00:00.000Z', id: 'r_01' };\n    expect(decodeCursor(encodeCursor(c))).toEqual(c);\n  });\n\n  it('is URL safe', () => {\n    const s = encodeCursor({ createdAt: '2026-05-01T10:00:00.000Z', id: '???>>>' });\n    expect(s).toMatch(/^[A-Za-z0-9_-]+$/);\n  });\n});\n", true),
			c.sh("Run the cursor tests", "pnpm vitest run server/lib", " RUN  v3.1.4 /home/dev/projects/recipe-box\n\n ❯ server/lib/cursor.test.ts (2 tests | 1 failed) 9ms\n   × cursor > is URL safe 4ms\n     → expected 'eyJjcmVhdGVkQXQiOiIyMDI2LTA1LTAxVDEwOjAwOjAwLjAwMFoiLCJpZCI6Ij8/Pz4+PiJ9' to match /^[A-Za-z0-9_-]+$/\n\n Test Files  1 failed (1)\n      Tests  1 failed | 1 passed (2)", 1)},
		step{c.multiEdit("server/lib/cursor.ts", edit{"toString('base64');", "toString('base64url');"}, edit{"Buffer.from(s, 'base64')", "Buffer.from(s, 'base64url')"}),
			c.sh("Run the cursor tests", "pnpm vitest run server/lib", " ✓ server/lib/cursor.test.ts (2 tests) 7ms\n\n Test Files  1 passed (1)\n      Tests  2 passed (2)", 0),
			text("Standard base64 produced `/` and `+`; switched to `base64url`, both tests pass.")},
	)
	c.user("Now the client.")
	// 7
	c.assistant(step{
		c.multiEdit("src/api/recipes.ts",
			edit{"export async function fetchRecipes(tag?: string): Promise<Recipe[]> {", "export interface RecipePage {\n  items: Recipe[];\n  nextCursor: string | null;\n}\n\nexport async function fetchRecipes(tag?: string, cursor?: string): Promise<RecipePage> {"},
			edit{"  return body.items;", "  return body;"}),
		c.write("src/hooks/useRecipePages.ts", "import { useEffect, useState } from 'react';\nimport { fetchRecipes, type Recipe } from '../api/recipes';\n\nexport function useRecipePages(tag?: string) {\n  const [items, setItems] = useState<Recipe[]>([]);\n  const [cursor, setCursor] = useState<string | null>(null);\n  useEffect(() => {\n    fetchRecipes(tag).then((p) => {\n      setItems(p.items);\n      setCursor(p.nextCursor);\n    });\n  }, [tag]);\n  const loadMore = async () => {\n    if (!cursor) return;\n    const p = await fetchRecipes(tag, cursor);\n    setItems((xs) => [...xs, ...p.items]);\n    setCursor(p.nextCursor);\n  };\n  return { items, hasMore: cursor !== null, loadMore };\n}\n", true),
		text(md("The API client returns a ´RecipePage´; [](path:w1a2/src/hooks/useRecipePages.ts) accumulates pages.")),
	})
	c.user("We already have @tanstack/react-query, use its infinite query instead of a hand-rolled hook.")
	// 9
	c.assistant(
		step{c.listDocs("tanstack query", [2]string{"/tanstack/query", "TanStack Query"}),
			c.searchDocs("/tanstack/query", "useInfiniteQuery getNextPageParam", "## useInfiniteQuery\n\n```tsx\nconst { data, fetchNextPage, hasNextPage, isFetchingNextPage } = useInfiniteQuery({\n  queryKey: ['projects'],\n  queryFn: ({ pageParam }) => fetchProjects(pageParam),\n  initialPageParam: 0,\n  getNextPageParam: (lastPage, pages) => lastPage.nextCursor,\n})\n```\n\nReturn `undefined` or `null` from `getNextPageParam` to indicate there is no next page.")},
		step{c.write("src/hooks/useRecipePages.ts", "import { useInfiniteQuery } from '@tanstack/react-query';\nimport { fetchRecipes } from '../api/recipes';\n\nexport function useRecipePages(tag?: string) {\n  return useInfiniteQuery({\n    queryKey: ['recipes', tag],\n    queryFn: ({ pageParam }) => fetchRecipes(tag, pageParam),\n    initialPageParam: undefined as string | undefined,\n    getNextPageParam: (last) => last.nextCursor ?? undefined,\n  });\n}\n", false),
			text("Rewrote the hook on top of `useInfiniteQuery`.")},
	)
	c.user("Type errors?")
	// 11
	c.assistant(
		step{c.newSession(""),
			c.sh("Type-check", "pnpm tsc --noEmit", "src/pages/Recipes.tsx:11:24 - error TS2345: Argument of type 'Dispatch<SetStateAction<Recipe[]>>' is not assignable to parameter of type '(value: RecipePage) => void'.\nsrc/pages/Recipes.tsx:17:10 - error TS2339: Property 'map' does not exist on type 'RecipePage'.\n\nFound 2 errors in the same file, starting at: src/pages/Recipes.tsx:11", 2)},
		step{c.multiEdit("src/pages/Recipes.tsx",
			edit{"import { useEffect, useState } from 'react';\nimport { fetchRecipes, type Recipe } from '../api/recipes';", "import { useState } from 'react';\nimport { useRecipePages } from '../hooks/useRecipePages';"},
			edit{"  const [recipes, setRecipes] = useState<Recipe[]>([]);\n\n  useEffect(() => {\n    fetchRecipes(tag).then(setRecipes);\n  }, [tag]);", "  const { data } = useRecipePages(tag);\n  const recipes = data?.pages.flatMap((p) => p.items) ?? [];"}),
			c.sh("Type-check", "pnpm tsc --noEmit", "", 0),
			text("The page still used the old array API; it now flattens the infinite query's pages. The type-check passes.")},
	)
	c.user("Add a 'Load more' button, no infinite scroll for now.") // 12: boundary 1
	// 13
	c.assistant(step{
		c.multiEdit("src/pages/Recipes.tsx",
			edit{"import { TagFilter } from '../components/TagFilter';", "import { TagFilter } from '../components/TagFilter';\nimport { Button } from '../components/Button';"},
			edit{"  const { data } = useRecipePages(tag);", "  const { data, fetchNextPage, isFetchingNextPage } = useRecipePages(tag);"},
			edit{"      </ul>", "      </ul>\n      <Button variant=\"secondary\" onClick={() => fetchNextPage()} disabled={isFetchingNextPage}>\n        {isFetchingNextPage ? 'Loading…' : 'Load more'}\n      </Button>"}),
		text("Added a secondary \"Load more\" button under the grid."),
	})
	c.user("The button shows even on the last page.")
	// 15
	c.assistant(step{
		c.multiEdit("src/pages/Recipes.tsx",
			edit{"  const { data, fetchNextPage, isFetchingNextPage } = useRecipePages(tag);", "  const { data, fetchNextPage, hasNextPage, isFetchingNextPage } = useRecipePages(tag);"},
			edit{"      <Button variant=\"secondary\"", "      {hasNextPage && (\n      <Button variant=\"secondary\""},
			edit{"      </Button>", "      </Button>\n      )}"}),
		text("The button renders only while `hasNextPage` is true."),
	})
	c.user("The DB query is slow now, check the index.")
	// 17
	c.assistant(
		step{c.read("server/db/schema.sql", srcSchemaSQL),
			c.sh("Show the query plan", "sqlite3 data/dev.db \"EXPLAIN QUERY PLAN SELECT * FROM recipes WHERE (created_at, id) < ('2026-05-01T10:00:00.000Z', 'r_0100') ORDER BY created_at DESC, id DESC LIMIT 24\"", "QUERY PLAN\n|--SCAN recipes\n`--USE TEMP B-TREE FOR ORDER BY", 0)},
		step{c.write("server/db/migrations/0007_recipes_created_at_id.sql", "CREATE INDEX IF NOT EXISTS recipes_created_at_id ON recipes(created_at DESC, id DESC);\n", true),
			c.sh("Apply migrations", "pnpm db:migrate", "Applying 0007_recipes_created_at_id.sql ... ok\n1 migration applied", 0),
			c.sh("Show the query plan", "sqlite3 data/dev.db \"EXPLAIN QUERY PLAN SELECT * FROM recipes WHERE (created_at, id) < ('2026-05-01T10:00:00.000Z', 'r_0100') ORDER BY created_at DESC, id DESC LIMIT 24\"", "QUERY PLAN\n`--SEARCH recipes USING INDEX recipes_created_at_id ((created_at,id)<(?,?))", 0),
			text("The query scanned the table and sorted in a temp B-tree. With the new index on `(created_at DESC, id DESC)` it is an index search.")},
	)
	c.user("Great. Does the tag filter still work with the cursor?")
	// 19
	c.assistant(
		step{c.readRange("server/routes/recipes.ts", "recipes.get('/', async (req, res) => {\n  const tag = typeof req.query.tag === 'string' ? req.query.tag : undefined;\n  const limit = Math.min(Number(req.query.limit) || 24, 100);\n  const after = typeof req.query.cursor === 'string' ? decodeCursor(req.query.cursor) : undefined;\n  const rows = tag\n    ? await db.all('SELECT * FROM recipes WHERE id IN (SELECT recipe_id FROM recipe_tags WHERE tag = ?) ORDER BY created_at DESC', tag)\n    : await db.all(pageQuery(after), ...pageArgs(after, limit));", 6, 12),
			c.grep("tag=", "*.ts", match{"src/api/recipes.ts", 17, "  const url = tag ? `/api/recipes?tag=${encodeURIComponent(tag)}` : '/api/recipes';"})},
		step{text("No: with a tag the route still runs the old unpaged query and ignores both `cursor` and `limit`, so tagged lists return everything.")},
	)
	c.user("Fix it.")
	// 21
	c.assistant(step{
		c.multiEdit("server/routes/recipes.ts",
			edit{"  const rows = tag\n    ? await db.all('SELECT * FROM recipes WHERE id IN (SELECT recipe_id FROM recipe_tags WHERE tag = ?) ORDER BY created_at DESC', tag)\n    : await db.all(pageQuery(after), ...pageArgs(after, limit));", "  const rows = await db.all(pageQuery(after, tag), ...pageArgs(after, limit, tag));"},
			edit{"function pageQuery(after?: Cursor) {", "function pageQuery(after?: Cursor, tag?: string) {"}),
		c.multiEdit("server/routes/recipes.test.ts", edit{"describe('GET /api/recipes', () => {", "describe('GET /api/recipes', () => {\n  it('pages within a tag', async () => {\n    const first = await get('/api/recipes?tag=vegan&limit=2');\n    const second = await get(`/api/recipes?tag=vegan&limit=2&cursor=${first.nextCursor}`);\n    expect(second.items[0].id).not.toBe(first.items[1].id);\n  });\n"}),
		c.sh("Run the server tests", "pnpm vitest run server", " ✓ server/lib/cursor.test.ts (2 tests) 7ms\n ✓ server/routes/recipes.test.ts (6 tests) 88ms\n\n Test Files  2 passed (2)\n      Tests  8 passed (8)", 0),
		text("The tag and cursor conditions are combined in one query now, with a test that pages within a tag; the server tests pass."),
	})
	c.user("[/review](slash:command:review) the server changes, then lint the server folder.")
	// 23: boundary 2 (an assistant message)
	c.assistant(
		step{c.lint([]string{"server/routes/recipes.ts", "server/lib/cursor.ts", "server/lib/cursor.test.ts", "server/routes/recipes.test.ts"}, map[string][]diag{
			"server/routes/recipes.ts": {
				{2, 10, "error", "no-undef", "'Cursor' is not defined."},
				{14, 5, "error", "@typescript-eslint/no-floating-promises", "Promises must be awaited, end with a call to .catch, or end with a call to .then with a rejection handler."},
			}})},
		step{c.multiEdit("server/routes/recipes.ts", edit{"    db.run('UPDATE stats SET hits = hits + 1');", "    await db.run('UPDATE stats SET hits = hits + 1');"}, edit{"import { decodeCursor, encodeCursor } from '../lib/cursor';", "import { decodeCursor, encodeCursor, type Cursor } from '../lib/cursor';"}),
			c.lint([]string{"server/routes/recipes.ts"}, nil),
			text(md("Two errors in the route: ´Cursor´ was used without an import, and the stats update was not awaited. Both fixed; lint is clean."))},
	)
	c.user("Let me check it in the browser.", withTabMention("t2", "http://localhost:5173/recipes", "Recipes · Recipe Box"))
	// 25
	c.assistant(step{
		c.tool("readConsoleLogs", Obj{{"tabId", "t2"}, {"limit", 50}}, Obj{{"logs", Arr{Obj{{"level", "info"}, {"message", "[vite] hot updated: /src/pages/Recipes.tsx"}}}}}),
		text("No errors in the console of the recipes tab; the first page of 24 loads and \"Load more\" fetches the next one."),
	})
	c.user("Remove the old /api/recipes/all endpoint, nothing uses it anymore.")
	// 27
	c.assistant(step{
		c.grep("recipes/all", "", match{"server/routes/recipes.ts", 31, "recipes.get('/all', async (_req, res) => {"}, match{"server/routes/recipes-all.test.ts", 5, "    const res = await get('/api/recipes/all');"}),
		c.multiEdit("server/routes/recipes.ts", edit{"recipes.get('/all', async (_req, res) => {\n  res.json(await db.all('SELECT * FROM recipes'));\n});\n\n", ""}),
		c.del("server/routes/recipes-all.test.ts"),
		c.sh("Run the server tests", "pnpm vitest run server", " Test Files  2 passed (2)\n      Tests  8 passed (8)", 0),
		text("Removed the endpoint and its test file; the server tests still pass."),
	})
	c.user("Update the API docs in docs/api.md.")
	// 29
	c.assistant(step{
		c.read("docs/api.md", srcAPIDocsMD),
		c.multiEdit("docs/api.md",
			edit{"Returns every recipe, newest first. Optional query parameter `tag`.\n\nResponse: `{ \"items\": Recipe[] }`", "Returns one page of recipes, newest first. Query parameters: `tag` (optional), `limit` (default 24, at most 100), `cursor` (the `nextCursor` of the previous page).\n\nResponse: `{ \"items\": Recipe[], \"nextCursor\": string | null }`"},
			edit{"## GET /api/recipes/all\n\nLegacy: returns a bare array of every recipe.\n\n", ""}),
		text("[](path:w1a2/docs/api.md) documents the paged endpoint and no longer lists `/all`."),
	})
	c.user("Run the whole suite.")
	// 31
	c.assistant(step{
		c.sh("Run all tests", "pnpm test", " Test Files  7 passed (7)\n      Tests  22 passed (22)\n   Duration  2.31s", 0),
		c.sh("Production build", "pnpm build", "vite v6.3.5 building for production...\n✓ 41 modules transformed.\n✓ built in 1.52s", 0),
		text("All 22 tests pass and the build succeeds."),
	})
	c.user("I'll push the branch myself. What's left?")
	// 33
	c.assistant(step{text(md("Open points:\n\n1. The page size is hard-coded to 24 on the server.\n2. No e2e test covers \"Load more\" yet.\n3. The client does not show an error state when a page request fails."))})
	c.user("Make the page size an env var, default 24.")
	// 35
	c.assistant(step{
		c.multiEdit("server/config.ts", edit{"export const config = {", "export const config = {\n  recipesPageSize: Number(process.env.RECIPES_PAGE_SIZE ?? 24),"}),
		c.multiEdit("server/routes/recipes.ts", edit{"Number(req.query.limit) || 24", "Number(req.query.limit) || config.recipesPageSize"}),
		c.sh("Run the server tests", "pnpm vitest run server", " Test Files  2 passed (2)\n      Tests  8 passed (8)", 0),
		text("`RECIPES_PAGE_SIZE` sets the default page size (24 when unset)."),
	})

	p1 := []string{
		section("Cursor pagination on the server", `The user reported that the recipes page loads all 2,400 recipes at once and takes 4 s, and asked for server-side pagination with 24 recipes per page in [](path:w1a2/server/routes/recipes.ts) and [](path:w1a2/src/api/recipes.ts). You proposed offsets, but the user required a cursor on ´(created_at, id)´ instead. You created [](path:w1a2/server/lib/cursor.ts), which encodes the cursor as JSON in base64, and made the route read ´cursor´ and ´limit´ and return ´nextCursor´. The tests in [](path:w1a2/server/lib/cursor.test.ts) failed on the URL-safety check, so you switched to ´base64url´ and both tests passed.`),
		section("Client with React Query", `You first wrote a hand-rolled [](path:w1a2/src/hooks/useRecipePages.ts); the user pointed out that ´@tanstack/react-query´ is already a dependency, so after reading the ´useInfiniteQuery´ docs you rewrote the hook with ´getNextPageParam: (last) => last.nextCursor ?? undefined´. ´pnpm tsc --noEmit´ then failed with TS2345 and TS2339 in [](path:w1a2/src/pages/Recipes.tsx), which still expected an array; after you flattened ´data.pages´ the type-check passed.`),
	}
	c.compress(12, briefing(append(p1,
		section("Current working state", `You last fixed the two type errors in [](path:w1a2/src/pages/Recipes.tsx), and the type-check passed. Next, wait for the user's next request on the recipes page UI.`))...))
	p2 := append(append([]string{}, p1...),
		section("Load more button", `The user wants a "Load more" button and no infinite scroll for now; you added a secondary Button under the grid in Recipes.tsx and, after the user noticed it on the last page, render it only while ´hasNextPage´ is true.`),
		section("Index for the cursor query", `´EXPLAIN QUERY PLAN´ showed a full scan with ´USE TEMP B-TREE FOR ORDER BY´. You created [](path:w1a2/server/db/migrations/0007_recipes_created_at_id.sql) with an index on ´(created_at DESC, id DESC)´, applied it with ´pnpm db:migrate´, and the plan became an index search.`),
		section("Tag filter with the cursor", `The tag filter still ran the old unpaged query and ignored the cursor and the limit. You combined both conditions in one query in [](path:w1a2/server/routes/recipes.ts) and added a "pages within a tag" case to [](path:w1a2/server/routes/recipes.test.ts); the server tests passed with 8 tests.`),
	)
	c.compress(23, briefing(append(p2,
		section("Current working state", `You last ran the server tests after combining the tag filter with the cursor, and all 8 passed. Next, review the server changes as the /review command asks and lint the server folder, as the user just requested.`))...))

	row := baseChat(id, "Paginate the recipe list (server-side)", "claude-sonnet-4.6", start)
	row.UsedTokens = 74120
	return finish(row, c, false) // post-v7 chat: stale history column
}
