// Command benchgen writes synthetic playground bundles for the `compact
// diff` benchmark (bench/diff.sh): chats of chained compressions, each
// bundle with the five upstream files and one replay, replays/bench/, whose
// output is the actual briefing with realistic damage (sentences reworded,
// a section dropped, one added, paths lost, a leaked tag now and then).
// The output is deterministic for the same flags.
//
//	go run ./internal/diff/benchgen -out DIR [-bundles 1000] [-chars 30000] [-per-chat 10] [-mixed]
//
// With -mixed (bench/scale.sh) the chats differ as a sample's strata
// see them: chains of 1 to -per-chat bundles, 20 to 419 messages, and an
// agent (stagewise, claude-code or codex) in each bundle's metadata.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"github.com/compactlab/compact/internal/bundle"
)

func main() {
	out := flag.String("out", "", "directory to write the channel into (required)")
	bundles := flag.Int("bundles", 1000, "number of bundles")
	chars := flag.Int("chars", 30000, "size of each actual briefing in characters")
	perChat := flag.Int("per-chat", 10, "bundles per chat (chain length)")
	seed := flag.Int64("seed", 1, "random seed")
	mixed := flag.Bool("mixed", false, "chats of varied chain lengths, message counts and agents")
	flag.Parse()
	if *out == "" || *bundles < 1 || *chars < 200 || *perChat < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := generate(*out, *bundles, *chars, *perChat, *seed, *mixed); err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
}

var (
	verbs    = strings.Fields("read changed rewrote moved renamed split merged tested linted reverted fixed extended simplified documented inspected")
	subjects = strings.Fields("the reducer the router the cache layer the form state the theme toggle the pagination hook the API client the migration the modal the toolbar the importer the scheduler")
	reasons  = []string{
		"because the user wanted fewer re-renders", "so that the tests stop flaking", "after the type-check failed with TS2345",
		"since the old code duplicated the query", "to keep the public API stable", "because the designer asked for more contrast",
		"after lint reported two warnings", "so the mobile layout no longer overflows", "because the cursor broke on the last page",
		"while the user reviewed the screenshots", "to drop the jQuery leftovers", "as the user asked in the last turn",
	}
	colours   = strings.Fields("#0f766e #dc2626 #9ca3af #111827 #e5e7eb #2dd4bf #60a5fa #fff")
	dirs      = strings.Fields("src/components src/hooks src/pages server/routes server/lib src/styles src/api test/e2e")
	names     = strings.Fields("Button Header RecipeCard useTheme cursor recipes Modal Toolbar Footer tokens Settings Favorites")
	exts      = strings.Fields(".ts .tsx .css .test.ts")
	decisions = []string{
		"Use a cursor on (created_at, id), not offsets.", "Don't commit, I'll do it myself.",
		"Keep the old API for now.", "We use pnpm, not npm.", "Never touch the generated files.",
		"The focus ring should be 2px, not 3px.", "Avoid inline styles in the components.",
	}
)

type gen struct{ r *rand.Rand }

func (g gen) pick(xs []string) string { return xs[g.r.Intn(len(xs))] }

func (g gen) path() string {
	return "w1a2/" + g.pick(dirs) + "/" + g.pick(names) + g.pick(exts)
}

func (g gen) sentence() string {
	switch g.r.Intn(5) {
	case 0:
		return fmt.Sprintf("You %s [](path:%s) %s.", g.pick(verbs), g.path(), g.pick(reasons))
	case 1:
		return fmt.Sprintf("The user asked you to change %s to %s, and you %s [](path:%s).", g.pick(subjects), g.pick(colours), g.pick(verbs), g.path())
	case 2:
		return fmt.Sprintf("You %s %s %s, then ran the tests, which passed.", g.pick(verbs), g.pick(subjects), g.pick(reasons))
	case 3:
		return fmt.Sprintf("The user said: %q", g.pick(decisions))
	default:
		return fmt.Sprintf("You %s %s and %s in [](path:%s) %s.", g.pick(verbs), g.pick(subjects), g.pick(subjects), g.path(), g.pick(reasons))
	}
}

// briefing writes sections until the text reaches size characters, ending
// with a working-state section.
func (g gen) briefing(size int, topic string) string {
	var b strings.Builder
	n := 0
	for b.Len() < size-300 {
		n++
		fmt.Fprintf(&b, "## %s, part %d\n\n", topic, n)
		k := 4 + g.r.Intn(6)
		for i := 0; i < k && b.Len() < size-300; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(g.sentence())
		}
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "## Current working state\n\nYou last edited [](path:%s). Next, run the full test suite.", g.path())
	return b.String()
}

// damage is what a replay might make of the briefing.
func (g gen) damage(a string) string {
	paras := strings.Split(a, "\n\n")
	var out []string
	for i, p := range paras {
		switch {
		case strings.HasPrefix(p, "## ") && g.r.Intn(25) == 0 && i+1 < len(paras)-2:
			// drop the section: its heading and its paragraph
			paras[i+1] = ""
			continue
		case p == "":
			continue
		case !strings.HasPrefix(p, "## ") && g.r.Intn(3) == 0:
			// reword one sentence
			ss := strings.SplitAfter(p, ". ")
			j := g.r.Intn(len(ss))
			ss[j] = g.sentence() + " "
			p = strings.TrimSpace(strings.Join(ss, ""))
		}
		out = append(out, p)
	}
	if g.r.Intn(4) == 0 {
		out = append(out[:len(out)-2], "## Follow-up from the replay", g.sentence()+" "+g.sentence(), out[len(out)-2], out[len(out)-1])
	}
	if g.r.Intn(20) == 0 {
		out = append(out, "<previous-chat-history>leaked</previous-chat-history>")
	}
	return strings.Join(out, "\n\n")
}

func len16(s string) int { return len(utf16.Encode([]rune(s))) }

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

func (g gen) turns(k int) string {
	var b strings.Builder
	for i := 0; i < k; i++ {
		fmt.Fprintf(&b, "\n<user>%s %s</user>\n<assistant>", esc(g.pick(decisions)), esc("Please look at "+g.path()+"."))
		p := g.path()
		fmt.Fprintf(&b, "[read: %s]\n[edited: %s (2 edits)]\n", p, p)
		switch g.r.Intn(4) {
		case 0:
			b.WriteString("[shell: Run the unit tests → exit 1]\n")
		case 1:
			fmt.Fprintf(&b, "[wrote: %s ✗ EACCES: permission denied]\n", g.path())
		}
		b.WriteString(esc("Done with "+g.pick(subjects)+".") + "</assistant>")
	}
	return b.String()
}

// chatShape is what -mixed varies per chat.
type chatShape struct {
	chain, messages int
	agent           string
}

func (g gen) shape(perChat int, mixed bool) chatShape {
	if !mixed {
		return chatShape{chain: perChat, messages: 100}
	}
	return chatShape{chain: 1 + g.r.Intn(perChat), messages: 20 + g.r.Intn(400), agent: []string{"", "", "claude-code", "codex"}[g.r.Intn(4)]}
}

func generate(out string, bundles, chars, perChat int, seed int64, mixed bool) error {
	g := gen{rand.New(rand.NewSource(seed))}
	chat, num := 1, 0
	sh := g.shape(perChat, mixed)
	for i := 0; i < bundles; i++ {
		if num++; num > sh.chain {
			chat, num = chat+1, 1
			sh = g.shape(perChat, mixed)
		}
		dir := filepath.Join(out, fmt.Sprintf("%03d-bench-chat-%d", chat, chat), bundle.CompressionDirName(num))
		topic := fmt.Sprintf("Chat %d task", chat)
		a := g.briefing(chars, topic)
		prevSize := 0
		history := strings.TrimPrefix(g.turns(6), "\n")
		if num > 1 {
			prev := g.briefing(chars*9/10, topic)
			prevSize = len16(prev)
			history = "<previous-chat-history>" + prev + "</previous-chat-history>\n" + history
		}
		user := "<chat-history>" + history + "</chat-history>\n\nAim for a briefing of roughly 30,000 characters.\n\nNow write the briefing."
		md := map[string]any{
			"chatId": fmt.Sprintf("bench-%d", chat), "chatTitle": fmt.Sprintf("Bench chat %d", chat), "channel": "prerelease",
			"compressionNumber": num, "totalCompressions": sh.chain, "totalChatMessages": sh.messages,
			"boundaryMessageIndex": 10 * num, "boundaryMessageId": fmt.Sprintf("m%d", 10*num), "totalMessagesInSlice": 10 * num,
			"serializedMessageCount": 10, "previousCompressionIndex": nil, "previousCompressionSize": nil,
			"compactHistoryChars": len16(history), "userMessageChars": len16(user), "actualOutputChars": len16(a),
			"actualOutputIncludesPreviousTag": false, "slashIdsResolved": []any{},
		}
		if sh.agent != "" {
			md["agent"] = sh.agent
		}
		if num > 1 {
			md["previousCompressionIndex"] = 10 * (num - 1)
			md["previousCompressionSize"] = prevSize
		}
		mdJSON, err := json.MarshalIndent(md, "", "  ")
		if err != nil {
			return err
		}
		replay := map[string]any{
			"model": "bench", "startedAt": "2026-07-01T10:00:00Z", "attempts": []any{}, "usage": map[string]int{"inputTokens": 0, "outputTokens": 0},
			"costUsd": 0, "pack": "default", "systemSha256": "", "userSha256": "", "toolVersion": "bench",
		}
		rJSON, err := json.MarshalIndent(replay, "", "  ")
		if err != nil {
			return err
		}
		files := map[string]string{
			bundle.FileSystemPrompt:        "You are about to write a briefing for yourself.",
			bundle.FileUserMessage:         user,
			bundle.FileCompact:             history,
			bundle.FileActual:              a,
			bundle.FileMetadata:            string(mdJSON),
			bundle.OutputPath("", "bench"): g.damage(a),
			bundle.RecordPath("", "bench"): string(rJSON),
		}
		for name, text := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
