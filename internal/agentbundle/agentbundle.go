// Package agentbundle writes bundles from the compactions coding agents
// recorded in their own session files (Claude Code, Codex), or that
// OpenTelemetry traces of an application's model calls record (read by
// internal/agents; traces.go), in the layout `compact extract` writes for a
// stagewise database (internal/bundle), so that replay, diff and eval
// work on them unchanged: OUT/NNN-<slug>/compression-NNN/ holding the
// pack's system prompt, the compact history in the pack's template (the
// user message), the history the compaction replaced, rendered (the
// compact history), the summary the agent recorded, byte for byte (the
// app's briefing), and the metadata (agent, session, model, trigger,
// tokens, …: bundle.AgentMetadata).
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
// output is encrypted) gets a bundle without the app's briefing whose
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
	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/extract"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/shard"
	"github.com/compactlab/compact/internal/strategy"
)

// Agents lists the agents whose compactions this package bundles (OTel:
// any application's OpenTelemetry traces of its model calls).
var Agents = []string{agents.ClaudeCode, agents.Codex, agents.OTel, agents.OpenCode, agents.GeminiCLI}

// AgentList names the agents --from takes (FromNames) for messages:
// "claude-code, codex, otel or openinference".
func AgentList() string {
	names := FromNames()
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// PackFor is the built-in prompt pack of an agent's bundles: the agent's
// own (claude-code, codex, opencode, gemini-cli); for traces, whose
// application compact does not know, the default pack.
func PackFor(agent string) string {
	if agent == agents.OTel {
		return prompt.DefaultPackName
	}
	return agent
}

// Options of Run.
type Options struct {
	Agent string // agents.ClaudeCode, agents.Codex or agents.OTel
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
	// NoContinuation leaves out continuation.xml (bundle.FileContinuation).
	NoContinuation bool
	// Sample and Shard narrow the session files, the sample first
	// (select.go); the chat directories are numbered within what is
	// written.
	Sample shard.Sampling
	Shard  shard.Spec
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
	// Selected reports, once, before anything is written, what a sample
	// or a shard took of the session files.
	Selected func(*shard.Selection)
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
	// Selection is the sample and the shard, when given.
	Selection *shard.Selection `json:"selection,omitempty"`
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

// NoSessionsError says that the paths hold no session of the agent, or
// (Why) none that can be bundled.
type NoSessionsError struct {
	Agent string
	Paths []string
	Why   string // "" : no file of the agent
}

func (e *NoSessionsError) Error() string {
	if e.Why != "" {
		return e.Why
	}
	return fmt.Sprintf("no %s under %s", strings.TrimPrefix(strings.TrimPrefix(sessionOf(e.Agent), "a "), "an "), strings.Join(e.Paths, ", "))
}

// sessionOf names what an agent's file is: "a claude-code session", "an
// OTLP JSON trace file".
func sessionOf(agent string) string {
	switch agent {
	case agents.OTel:
		return "an OTLP JSON trace file"
	case agents.OpenCode:
		return "an opencode session, storage or database"
	case agents.GeminiCLI:
		return "a gemini-cli chat"
	}
	return "a " + agent + " session"
}

// DefaultDir is where the agent keeps its sessions: Claude Code's
// projects directory ($CLAUDE_CONFIG_DIR/projects, else
// ~/.claude/projects), Codex's sessions directory ($CODEX_HOME/sessions,
// else ~/.codex/sessions), OpenCode's data directory
// ($XDG_DATA_HOME/opencode, else ~/.local/share/opencode, on every
// system: its database and its older JSON storage), Gemini CLI's
// temporary directory ($GEMINI_CLI_HOME/.gemini/tmp, else
// ~/.gemini/tmp: <project>/chats/). Traces (OTel) have no such place: an
// error says to name them.
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
	case agents.OpenCode:
		if d := getenv("XDG_DATA_HOME"); d != "" {
			return filepath.Join(d, "opencode"), nil
		}
		if home == "" {
			return "", errors.New("no HOME: pass the session files or directories")
		}
		return filepath.Join(home, ".local", "share", "opencode"), nil
	case agents.GeminiCLI:
		if d := getenv("GEMINI_CLI_HOME"); d != "" {
			home = d
		}
		if home == "" {
			return "", errors.New("no HOME: pass the session files or directories")
		}
		return filepath.Join(home, ".gemini", "tmp"), nil
	case agents.OTel:
		return "", errors.New("--from otel reads the trace files you name (OTLP JSON: the collector's file exporter, an SDK's or Phoenix's export), or directories of them: pass them")
	}
	return "", fmt.Errorf("unknown agent %q (want %s)", agent, AgentList())
}

// FindSessions lists the session files under paths, each once, in order:
// a file is itself; a directory gives its *.jsonl files (Claude Code:
// not those under a subagents directory, which are read with their
// session; Codex: rollout-*.jsonl; OTel: *.json and *.jsonl; Gemini CLI:
// session-*.jsonl and session-*.json, a .json left out beside the .jsonl
// Gemini CLI carried it over to), sorted; for OpenCode its databases and
// storage directories (agents.FindOpenCode).
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
		if agent == agents.OpenCode {
			units, err := agents.FindOpenCode(root)
			if err != nil {
				return nil, err
			}
			for _, u := range units {
				add(u)
			}
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
			if agent == agents.GeminiCLI {
				if !strings.HasPrefix(name, "session-") {
					return nil
				}
				if strings.HasSuffix(name, ".json") {
					if _, err := os.Stat(p + "l"); err == nil {
						return nil // carried over to the .jsonl beside it
					}
					found = append(found, p)
					return nil
				}
			}
			if !strings.HasSuffix(name, ".jsonl") && !(agent == agents.OTel && strings.HasSuffix(name, ".json")) {
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
	case agents.ClaudeCode, agents.Codex, agents.OTel, agents.OpenCode, agents.GeminiCLI:
	default:
		return nil, fmt.Errorf("unknown agent %q (want %s)", opts.Agent, AgentList())
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
	// Tell the files first: nothing is written for a run that finds no
	// session of the agent.
	var mine []string
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if st, err := os.Stat(f); err == nil && st.IsDir() && opts.Agent == agents.OpenCode {
			mine = append(mine, f) // a storage directory
			continue
		}
		format, err := agents.SniffFile(f)
		if err != nil {
			warn("%v; skipped", err)
			continue
		}
		if format != opts.Agent {
			warn("%s: a %s file, not %s; skipped", f, format, sessionOf(opts.Agent))
			continue
		}
		mine = append(mine, f)
	}
	if len(mine) == 0 {
		return sum, &NoSessionsError{Agent: opts.Agent, Paths: paths}
	}
	if opts.Shard.Active() || opts.Sample.Size > 0 {
		if mine, sum.Selection, err = selectSessions(ctx, opts.Agent, mine, opts.Sample, opts.Shard); err != nil {
			return nil, err
		}
		if hooks.Selected != nil {
			hooks.Selected(sum.Selection)
		}
	}
	out, err := extract.OpenOutput(ctx, opts.OutDir, opts.Force, hooks.Leftovers, hooks.Removing)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	chats := 0
	tr := &traceRun{}
	if opts.Agent == agents.OTel {
		tr.run = agents.NewOTelRun(mine) // log records join spans across the files
	}
	for i, f := range mine {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if opts.Agent == agents.OpenCode {
			if err := openCodeUnit(ctx, opts, f, out, &chats, sum, warn); err != nil {
				return nil, err
			}
			if hooks.Progress != nil {
				hooks.Progress(i+1, len(mine), sum.Bundles)
			}
			continue
		}
		if opts.Agent == agents.OTel {
			if err := tr.file(ctx, opts, f, out, &chats, sum, warn); err != nil {
				return nil, err
			}
			if hooks.Progress != nil {
				hooks.Progress(i+1, len(mine), sum.Bundles)
			}
			continue
		}
		// A session is read as it is written: each compaction's bundle
		// goes out once the reader has it, and its messages are dropped.
		w := &sessionWriter{opts: opts, warn: warn, out: out, chats: &chats, file: f}
		s, err := agents.StreamFile(f, opts.Agent, func(seg agents.Segment) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return w.segment(seg)
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			var werr *writeError
			if errors.As(err, &werr) {
				return nil, werr.err
			}
			if w.res.Bundles == 0 {
				warn("%v; skipped", err)
				continue
			}
			// Stopped part way (a line too long, a read error): the
			// compactions read before it keep their bundles.
			warn("%v; the %s before it kept", err, plural(w.res.Bundles, "bundle"))
			if err := w.finish(&agents.Session{Agent: opts.Agent, Path: f}, warn); err != nil {
				return nil, err
			}
			sum.add(w)
			continue
		}
		for _, p := range s.Problems {
			warn("%s: %s", f, p)
		}
		if opts.Agent == agents.GeminiCLI && len(s.Compactions) == 0 && strings.HasSuffix(f, ".json") {
			warn("%s: a Gemini CLI chat of v0.38 or earlier (one JSON record), when Gemini CLI recorded no compression; compact simulate %s reads it whole", f, f)
		}
		if err := w.finish(s, warn); err != nil {
			return nil, err
		}
		sum.add(w)
		for _, sub := range s.Subagents {
			for _, p := range sub.Problems {
				warn("%s: %s", sub.Path, p)
			}
			sw := &sessionWriter{opts: opts, warn: warn, out: out, chats: &chats, file: sub.Path, parent: f}
			for _, seg := range agents.Segments(sub) {
				if err := sw.segment(seg); err != nil {
					var werr *writeError
					if errors.As(err, &werr) {
						return nil, werr.err
					}
					return nil, err
				}
			}
			sub.Messages = nil
			if err := sw.finish(sub, warn); err != nil {
				return nil, err
			}
			sum.add(sw)
		}
		if hooks.Progress != nil {
			hooks.Progress(i+1, len(mine), sum.Bundles)
		}
	}
	if opts.Agent == agents.OTel && sum.Sessions == 0 && len(mine) > 0 {
		// Nothing written: say why, once.
		return sum, &NoSessionsError{Agent: opts.Agent, Paths: paths, Why: tr.why(paths)}
	}
	if err := out.Commit(); err != nil {
		return nil, err
	}
	return sum, nil
}

// add counts a session's part of the run.
func (sum *Summary) add(w *sessionWriter) {
	sum.Sessions++
	if w.res.Bundles > 0 {
		sum.Extracted++
	}
	sum.Bundles += w.res.Bundles
	sum.Unauditable += w.res.Unauditable
	sum.PerSession = append(sum.PerSession, w.res)
}

// writeError is a failure to write the output, which stops the run (a
// session that cannot be read only skips that session).
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// sessionWriter writes the bundles of one session as its segments come.
type sessionWriter struct {
	opts   Options
	warn   func(string, ...any)
	out    *extract.Output
	chats  *int // chat directories written so far in the run
	file   string
	parent string // the parent session's file, for a subagent
	res    SessionResult
	// title names the chat directory: the first line of the first user
	// message (found: titled).
	title  string
	titled bool
	// What the segments before this one left: the branch messages read,
	// the live usage of the latest step, the previous compaction's place,
	// summary and whether it was auditable, the compactions recorded.
	branch      int
	live        int64
	prevIdx     int
	prevSummary string
	prevUnaudit bool
	recorded    int
	// metas are the bundles' metadata, written once the whole session
	// is read (its totals are known then).
	metas []pendingMeta
	// contDir is the bundle whose continuation the next segment is.
	contDir string
}

type pendingMeta struct {
	dir string
	md  bundle.AgentMetadata
}

// segment writes the bundle of the compaction that ends seg, if any.
func (w *sessionWriter) segment(seg agents.Segment) error {
	s := seg.Session
	if !w.titled {
		w.title, w.titled = firstLine(seg.Messages)
	}
	part := &agents.Session{Agent: s.Agent, Path: s.Path, ID: s.ID, Cwd: s.Cwd, Model: s.Model, ContextWindow: s.ContextWindow, Messages: seg.Messages}
	if seg.Compaction != nil {
		c := *seg.Compaction
		c.Index = len(seg.Messages)
		part.Compactions = []agents.Compaction{c}
	}
	h := convo.FromSession(part)
	defer func() {
		w.branch += len(h.Branch)
		for i := len(h.Usage) - 1; i >= 0; i-- {
			if h.Usage[i] > 0 {
				w.live = h.Usage[i]
				break
			}
		}
	}()
	end := len(h.Branch)
	if len(h.Recorded) > 0 {
		end = h.Recorded[0].Index
	}
	if err := w.continuation(h, end); err != nil {
		return err
	}
	if seg.Compaction == nil || len(h.Recorded) == 0 {
		return nil
	}
	w.recorded++
	n := w.recorded
	rc := h.Recorded[0]
	c := seg.Compaction
	next := func() {
		w.prevIdx = w.branch + rc.Index
		w.prevSummary, w.prevUnaudit = rc.Summary, rc.Unauditable != ""
		if w.prevUnaudit {
			w.prevSummary = ""
		}
	}
	b := w.build(s, h, c, n)
	if b.messages == 0 && w.prevSummary == "" {
		// Nothing to compact: never an empty bundle.
		why := "no message of the session stands before it in the file"
		if n > 1 {
			why = "no message between it and the compaction before it"
		}
		w.res.Missed = append(w.res.Missed, Miss{Compaction: n, Line: rc.Line, Reason: why})
		next()
		return nil
	}
	if w.res.Bundles == 0 {
		*w.chats++
		title := w.title
		if !w.titled {
			title = s.ID
		}
		if r := []rune(title); len(r) > 60 {
			title = string(r[:60])
		}
		if w.parent != "" {
			title = "subagent " + title
		}
		w.title, w.titled = title, true
		w.res.Directory = extract.ChatDirName(*w.chats, title)
	}
	w.res.Bundles++
	dir := filepath.Join(w.res.Directory, bundle.CompressionDirName(w.res.Bundles))
	files := map[string][]byte{
		bundle.FileSystemPrompt: []byte(w.opts.Pack.System()),
		bundle.FileUserMessage:  []byte(b.user),
		bundle.FileCompact:      []byte(b.compact),
	}
	if rc.Unauditable == "" {
		files[bundle.FileActual] = []byte(rc.Summary)
	} else {
		w.res.Unauditable++
		w.warn("%s: compaction %d (line %d) is unauditable: %s; its bundle has no %s", s.Path, n, rc.Line, rc.Unauditable, bundle.FileActual)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := w.out.WriteFile(filepath.Join(dir, name), files[name]); err != nil {
			return &writeError{err}
		}
	}
	w.metas = append(w.metas, pendingMeta{dir: dir, md: b.md})
	w.contDir = dir
	next()
	return nil
}

// whole writes the bundles of a session read whole (OpenCode's, a
// trace's conversations), then finishes it; its messages are let go.
func (w *sessionWriter) whole(s *agents.Session) error {
	for _, seg := range agents.Segments(s) {
		if err := w.segment(seg); err != nil {
			var werr *writeError
			if errors.As(err, &werr) {
				return werr.err
			}
			return err
		}
	}
	s.Messages = nil
	return w.finish(s, w.warn)
}

// finish writes the metadata of the session's bundles, now that its
// totals are known, and says what it could not bundle.
func (w *sessionWriter) finish(s *agents.Session, warn func(string, ...any)) error {
	if s.Model == "" && len(w.metas) > 0 {
		s.Model = w.metas[0].md.Model
	}
	w.res.File, w.res.Session, w.res.Messages, w.res.Compactions = s.Path, s.ID, w.branch, w.recorded
	w.res.Subagent, w.res.Partial = w.parent, s.Partial
	for i := range w.metas {
		md := &w.metas[i].md
		md.ChatTitle = w.title
		if s.Model != "" {
			md.Model = s.Model
		}
		md.TotalCompressions, md.TotalChatMessages = w.recorded, w.branch
		if err := w.out.WriteFile(filepath.Join(w.metas[i].dir, bundle.FileMetadata), md.JSON()); err != nil {
			return err
		}
	}
	w.metas = nil
	if len(w.res.Missed) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d of %d compactions extracted", s.Path, w.res.Bundles, w.recorded)
		for _, m := range w.res.Missed {
			fmt.Fprintf(&b, "; compaction %d (line %d): %s", m.Compaction, m.Line, m.Reason)
		}
		warn("%s", b.String())
	}
	return nil
}

// built is the bundle of one compaction, before it is written.
type built struct {
	compact, user string
	md            bundle.AgentMetadata
	messages      int // the messages of the history it renders
}

// build renders the compaction n (1-based) that ends h, the history of
// one segment: its messages (less those the agent preserved), after the
// previous summary.
func (w *sessionWriter) build(s *agents.Session, h *convo.History, c *agents.Compaction, n int) built {
	rc := h.Recorded[0]
	preserved := map[string]bool{}
	for _, id := range c.Preserved {
		preserved[id] = true
	}
	var msgs []strategy.Message
	for _, m := range h.Branch[:rc.Index] {
		if !preserved[m.ID] {
			msgs = append(msgs, m)
		}
	}
	compact := convo.Render(msgs, convo.RenderOptions{Previous: w.prevSummary, Verbs: true, Cwd: h.Cwd, Outcomes: h.Outcomes})
	compact = history.ToWellFormed(compact)
	prevChars := history.Len16(w.prevSummary)
	user := w.opts.Pack.UserMessage(compact, prevChars, w.opts.Locale)
	live := w.live
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
	md := bundle.AgentMetadata{
		Agent: s.Agent, ChatID: s.ID, Session: s.ID, SessionFile: s.Path,
		Cwd: s.Cwd, ConversationID: s.Conversation, TraceID: c.TraceID, SpanID: c.SpanID,
		CompressionNumber:    n,
		BoundaryMessageIndex: w.branch + rc.Index, BoundaryLine: rc.Line, Trigger: rc.Trigger,
		RecordedPreTokens: rc.PreTokens, LiveTokensBefore: live, EstimatedTokens: int64(math.Ceil(est)),
		TotalMessagesInSlice: rc.Index, SerializedMessageCount: serialized, PreservedMessages: len(preserved),
		CompactHistoryChars: history.Len16(compact), UserMessageChars: history.Len16(user),
		Auditable: rc.Unauditable == "", Unauditable: rc.Unauditable, PreviousUnauditable: w.prevUnaudit, Pack: w.opts.PackName,
		RecordedPostTokens: c.PostTokens, RecordedDurationMs: c.DurationMs, RecordedCompactionUsage: (*bundle.TokenUsage)(c.Usage),
	}
	if n == 1 && s.Partial != "" {
		md.PartialHistory = s.Partial
	}
	if rc.Unauditable == "" {
		md.ActualOutputChars = history.Len16(rc.Summary)
	}
	if n > 1 {
		prevIdx := w.prevIdx
		md.PreviousCompressionIndex = &prevIdx
		if prevChars > 0 {
			md.PreviousCompressionSize = &prevChars
		}
	}
	return built{compact: compact, user: user, md: md, messages: len(msgs)}
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

// firstLine finds a session's title in msgs: the first line of its first
// user message that is not a wrapper (injected context, a command, a
// marker such as "[Request interrupted by user]").
func firstLine(msgs []agents.Message) (string, bool) {
	for _, m := range msgs {
		t := strings.TrimSpace(m.Text)
		if m.Role == agents.RoleUser && t != "" && !strings.HasPrefix(t, "<") && !strings.HasPrefix(t, "[") {
			if i := strings.IndexByte(t, '\n'); i >= 0 {
				t = t[:i]
			}
			return t, true
		}
	}
	return "", false
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
