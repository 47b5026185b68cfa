// Package agentbundle writes bundles from the compactions coding agents
// recorded in their own session files (Claude Code, Codex; read by
// internal/agents), in the layout `compact extract` writes for a
// stagewise database, so that replay, diff and eval work on them
// unchanged:
//
//	OUT/NNN-<slug>/compression-NNN/
//	  system-prompt.md     the pack's system prompt
//	  user-message.md      the compact history in the pack's template
//	  compact-history.xml  the history the compaction replaced, rendered
//	  actual-output.md     the summary the agent recorded, byte for byte
//	  metadata.json        agent, session, model, trigger, tokens, …
//
// One chat directory per session that recorded a compaction (a
// subagent's session is a chat of its own, after its parent's), one
// bundle per compaction. The compact history of compaction k is the
// session's messages from compaction k-1 (or the start) up to it, less
// those the agent kept verbatim across it, after the summary of
// compaction k-1 inside <previous-chat-history>; it is rendered by
// convo.Render with the agent's tool calls as the markers internal/eval
// mines, paths made relative to the session's working directory. A
// compaction whose summary cannot be read (a remote compaction whose
// output is encrypted) gets a bundle without actual-output.md whose
// metadata says "auditable": false and why; diff and eval skip it with a
// note, and replay can still answer it.
package agentbundle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/strategy"
)

// Agents lists the agents whose compactions this package bundles.
var Agents = []string{agents.ClaudeCode, agents.Codex}

// Options of Run.
type Options struct {
	Agent string // agents.ClaudeCode or agents.Codex
	// Paths are session files or directories searched for them; empty:
	// the agent's own directory (DefaultDir).
	Paths    []string
	OutDir   string
	Force    bool
	Pack     *prompt.Pack
	PackName string
	Locale   string
	// Getenv reads the environment (DefaultDir), nil: os.Getenv.
	Getenv func(string) string
}

// Hooks report what happens during a run (each may be nil).
type Hooks struct {
	// Warn reports one session or compaction that could not be bundled,
	// or a line of a session left out.
	Warn func(string)
	// Leftovers and Removing are extract.Hooks' (leftovers of killed
	// runs removed; an interrupt during a removal).
	Leftovers func(n int, err error)
	Removing  func()
	// Progress reports the sessions read so far.
	Progress func(done, total, bundles int)
}

// Summary is the outcome of Run.
type Summary struct {
	Agent  string   `json:"agent"`
	Paths  []string `json:"paths"`
	OutDir string   `json:"outDir"`
	// Sessions counts the session files read (subagents included),
	// Extracted those that gave a bundle.
	Sessions    int             `json:"sessions"`
	Extracted   int             `json:"extracted"`
	Bundles     int             `json:"bundles"`
	Unauditable int             `json:"unauditable"`
	PerSession  []SessionResult `json:"perSession"`
	Warnings    []string        `json:"warnings"`
}

// SessionResult is one session's part of a run.
type SessionResult struct {
	File        string `json:"file"`
	Session     string `json:"session"`
	Directory   string `json:"directory,omitempty"`
	Messages    int    `json:"messages"`
	Compactions int    `json:"compactions"`
	Bundles     int    `json:"bundles"`
	Unauditable int    `json:"unauditable"`
	// Missed are the recorded compactions that gave no bundle, each with
	// its line and why (Compactions = Bundles + len(Missed)).
	Missed []Miss `json:"missed,omitempty"`
	// Partial says why the file does not hold the session from its
	// start ("" when it does): the first bundle's history is what the
	// file has.
	Partial string `json:"partial,omitempty"`
	// Subagent names the parent session's file for a subagent.
	Subagent string `json:"subagent,omitempty"`
}

// Miss is a recorded compaction that gave no bundle.
type Miss struct {
	Compaction int    `json:"compaction"` // 1-based, in the session
	Line       int    `json:"line"`
	Reason     string `json:"reason"`
}

// NoSessionsError says that the paths hold no session of the agent.
type NoSessionsError struct {
	Agent string
	Paths []string
}

func (e *NoSessionsError) Error() string {
	return fmt.Sprintf("no %s session under %s", e.Agent, strings.Join(e.Paths, ", "))
}

// DefaultDir is where the agent keeps its sessions: Claude Code's
// projects directory ($CLAUDE_CONFIG_DIR/projects, else
// ~/.claude/projects), Codex's sessions directory ($CODEX_HOME/sessions,
// else ~/.codex/sessions).
func DefaultDir(agent string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	home := getenv("HOME")
	if home == "" {
		home = getenv("USERPROFILE")
	}
	switch agent {
	case agents.ClaudeCode:
		if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return filepath.Join(d, "projects"), nil
		}
		if home == "" {
			return "", errors.New("no HOME: pass the session files or directories")
		}
		return filepath.Join(home, ".claude", "projects"), nil
	case agents.Codex:
		if d := getenv("CODEX_HOME"); d != "" {
			return filepath.Join(d, "sessions"), nil
		}
		if home == "" {
			return "", errors.New("no HOME: pass the session files or directories")
		}
		return filepath.Join(home, ".codex", "sessions"), nil
	}
	return "", fmt.Errorf("unknown agent %q (want %s)", agent, strings.Join(Agents, " or "))
}

// FindSessions lists the session files under paths, each once, in order:
// a file is itself; a directory gives its *.jsonl files (Claude Code:
// not those under a subagents directory, which are read with their
// session; Codex: rollout-*.jsonl), sorted.
func FindSessions(agent string, paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, root := range paths {
		st, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			add(root)
			continue
		}
		var found []string
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root {
					return err
				}
				return nil // an unreadable directory inside: skipped
			}
			if d.IsDir() {
				if p != root && (d.Name() == "subagents" || strings.HasPrefix(d.Name(), ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			name := d.Name()
			if !strings.HasSuffix(name, ".jsonl") {
				return nil
			}
			if agent == agents.Codex && !strings.HasPrefix(name, "rollout-") {
				return nil
			}
			found = append(found, p)
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		for _, p := range found {
			add(p)
		}
	}
	return out, nil
}

// Run reads the sessions and writes their bundles into opts.OutDir,
// atomically (see extract.Output).
func Run(ctx context.Context, opts Options, hooks Hooks) (*Summary, error) {
	if opts.Pack == nil {
		return nil, errors.New("agentbundle: no prompt pack")
	}
	switch opts.Agent {
	case agents.ClaudeCode, agents.Codex:
	default:
		return nil, fmt.Errorf("unknown agent %q (want %s)", opts.Agent, strings.Join(Agents, " or "))
	}
	paths := opts.Paths
	if len(paths) == 0 {
		d, err := DefaultDir(opts.Agent, opts.Getenv)
		if err != nil {
			return nil, err
		}
		paths = []string{d}
	}
	files, err := FindSessions(opts.Agent, paths)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Agent: opts.Agent, Paths: paths, OutDir: opts.OutDir, PerSession: []SessionResult{}, Warnings: []string{}}
	warn := func(format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		sum.Warnings = append(sum.Warnings, msg)
		if hooks.Warn != nil {
			hooks.Warn(msg)
		}
	}
	// Read every session first: nothing is written for a run that finds
	// nothing to write.
	type chat struct {
		s      *agents.Session
		parent string
	}
	var chats []chat
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		format, err := agents.SniffFile(f)
		if err != nil {
			warn("%v; skipped", err)
			continue
		}
		if format != opts.Agent {
			warn("%s: a %s file, not a %s session; skipped", f, format, opts.Agent)
			continue
		}
		s, err := agents.ReadFile(f, format)
		if err != nil {
			warn("%v; skipped", err)
			continue
		}
		for _, p := range s.Problems {
			warn("%s: %s", f, p)
		}
		chats = append(chats, chat{s: s})
		for _, sub := range s.Subagents {
			for _, p := range sub.Problems {
				warn("%s: %s", sub.Path, p)
			}
			chats = append(chats, chat{s: sub, parent: f})
		}
		if hooks.Progress != nil {
			hooks.Progress(i+1, len(files), 0)
		}
	}
	sum.Sessions = len(chats)
	if len(chats) == 0 {
		return sum, &NoSessionsError{Agent: opts.Agent, Paths: paths}
	}
	out, err := extract.OpenOutput(ctx, opts.OutDir, opts.Force, hooks.Leftovers, hooks.Removing)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	system := []byte(opts.Pack.System())
	k := 0
	for _, c := range chats {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := c.s
		h := convo.FromSession(s)
		res := SessionResult{File: s.Path, Session: s.ID, Messages: len(h.Branch), Compactions: len(h.Recorded), Subagent: c.parent, Partial: s.Partial}
		if len(h.Recorded) == 0 {
			sum.PerSession = append(sum.PerSession, res)
			continue
		}
		k++
		title := sessionTitle(s, c.parent != "")
		res.Directory = extract.ChatDirName(k, title)
		prevIdx, prevSummary, prevUnaudit := -1, "", false
		start := 0
		written := 0
		for n, rc := range h.Recorded {
			b := buildBundle(s, h, n, start, prevIdx, prevSummary, prevUnaudit, opts, title)
			if b.messages == 0 && prevSummary == "" {
				// Nothing to compact: never an empty bundle.
				why := "no message of the session stands before it in the file"
				if n > 0 {
					why = fmt.Sprintf("no message between it and the compaction before it (line %d)", h.Recorded[n-1].Line)
				}
				res.Missed = append(res.Missed, Miss{Compaction: n + 1, Line: rc.Line, Reason: why})
				prevIdx, start = rc.Index, rc.Index
				prevSummary, prevUnaudit = rc.Summary, rc.Unauditable != ""
				if prevUnaudit {
					prevSummary = ""
				}
				continue
			}
			written++
			dir := filepath.Join(res.Directory, extract.CompressionDirName(written))
			files := map[string][]byte{
				extract.FileSystemPrompt: system,
				extract.FileUserMessage:  []byte(b.user),
				extract.FileCompact:      []byte(b.compact),
				extract.FileMetadata:     b.meta,
			}
			if rc.Unauditable == "" {
				files[extract.FileActualOutput] = []byte(rc.Summary)
			} else {
				res.Unauditable++
				sum.Unauditable++
				warn("%s: compaction %d (line %d) is unauditable: %s; its bundle has no %s", s.Path, n+1, rc.Line, rc.Unauditable, extract.FileActualOutput)
			}
			names := make([]string, 0, len(files))
			for name := range files {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if err := out.WriteFile(filepath.Join(dir, name), files[name]); err != nil {
					return nil, err
				}
			}
			res.Bundles++
			sum.Bundles++
			prevIdx, start = rc.Index, rc.Index
			prevSummary, prevUnaudit = rc.Summary, rc.Unauditable != ""
			if prevUnaudit {
				prevSummary = ""
			}
		}
		if len(res.Missed) > 0 {
			var b strings.Builder
			fmt.Fprintf(&b, "%s: %d of %d compactions extracted", s.Path, res.Bundles, len(h.Recorded))
			for _, m := range res.Missed {
				fmt.Fprintf(&b, "; compaction %d (line %d): %s", m.Compaction, m.Line, m.Reason)
			}
			warn("%s", b.String())
		}
		if res.Bundles > 0 {
			sum.Extracted++
		} else {
			k--
			res.Directory = ""
		}
		sum.PerSession = append(sum.PerSession, res)
	}
	if err := out.Commit(); err != nil {
		return nil, err
	}
	return sum, nil
}

type bundle struct {
	compact, user string
	meta          []byte
	messages      int // the messages of the history it renders
}

// buildBundle renders compaction n of h: the messages from start to its
// Index (less those the agent preserved), after the previous summary.
func buildBundle(s *agents.Session, h *convo.History, n, start, prevIdx int, prevSummary string, prevUnaudit bool, opts Options, title string) bundle {
	rc := h.Recorded[n]
	preserved := map[string]bool{}
	if n < len(s.Compactions) {
		for _, id := range s.Compactions[n].Preserved {
			preserved[id] = true
		}
	}
	var msgs []strategy.Message
	for _, m := range h.Branch[start:rc.Index] {
		if !preserved[m.ID] {
			msgs = append(msgs, m)
		}
	}
	compact := convo.Render(msgs, convo.RenderOptions{Previous: prevSummary, Verbs: true, Cwd: h.Cwd, Outcomes: h.Outcomes})
	compact = history.ToWellFormed(compact)
	prevChars := history.Len16(prevSummary)
	user := opts.Pack.UserMessage(compact, prevChars, opts.Locale)
	var live int64
	for i := rc.Index - 1; i >= 0 && i < len(h.Usage); i-- {
		if h.Usage[i] > 0 {
			live = h.Usage[i]
			break
		}
	}
	serialized := 0
	var est float64
	for i := range msgs {
		m := &msgs[i]
		if m.Role == strategy.RoleUser || m.Role == strategy.RoleAssistant {
			serialized++
		}
		est += estimate(m)
	}
	md := metadata{
		Agent: s.Agent, ChatID: s.ID, ChatTitle: title, Session: s.ID, SessionFile: s.Path,
		Model: s.Model, Cwd: s.Cwd,
		CompressionNumber: n + 1, TotalCompressions: len(h.Recorded), TotalChatMessages: len(h.Branch),
		BoundaryMessageIndex: rc.Index, BoundaryLine: rc.Line, Trigger: rc.Trigger,
		RecordedPreTokens: rc.PreTokens, LiveTokensBefore: live, EstimatedTokens: int64(math.Ceil(est)),
		TotalMessagesInSlice: rc.Index - start, SerializedMessageCount: serialized, PreservedMessages: len(preserved),
		CompactHistoryChars: history.Len16(compact), UserMessageChars: history.Len16(user),
		Auditable: rc.Unauditable == "", Unauditable: rc.Unauditable, PreviousUnauditable: prevUnaudit, Pack: opts.PackName,
	}
	if n < len(s.Compactions) {
		c := &s.Compactions[n]
		md.RecordedPostTokens, md.RecordedDurationMs, md.RecordedCompactionUsage = c.PostTokens, c.DurationMs, c.Usage
	}
	if n == 0 && s.Partial != "" {
		md.PartialHistory = s.Partial
	}
	if rc.Unauditable == "" {
		md.ActualOutputChars = history.Len16(rc.Summary)
	}
	if prevIdx >= 0 {
		md.PreviousCompressionIndex = &prevIdx
		if prevChars > 0 {
			md.PreviousCompressionSize = &prevChars
		}
	}
	return bundle{compact: compact, user: user, meta: md.json(), messages: len(msgs)}
}

// estimate is the stagewise estimator's count for a generic message:
// ceil(UTF-16 length of its text and tool calls' arguments / 4) + 4.
func estimate(m *strategy.Message) float64 {
	n := history.Len16(m.Content)
	for _, c := range m.ToolCalls {
		n += history.Len16(c.Name) + history.Len16(c.Arguments)
	}
	return math.Ceil(float64(n)/4) + strategy.GenericOverhead
}

// sessionTitle names a session's chat directory: the first line of its
// first user message (a subagent's: "subagent", then that).
func sessionTitle(s *agents.Session, subagent bool) string {
	title := s.ID
	for _, m := range s.Messages {
		if m.Role == agents.RoleUser && strings.TrimSpace(m.Text) != "" && !strings.HasPrefix(strings.TrimSpace(m.Text), "<") {
			title = strings.TrimSpace(m.Text)
			if i := strings.IndexByte(title, '\n'); i >= 0 {
				title = title[:i]
			}
			break
		}
	}
	if r := []rune(title); len(r) > 60 {
		title = string(r[:60])
	}
	if subagent {
		title = "subagent " + title
	}
	return title
}
