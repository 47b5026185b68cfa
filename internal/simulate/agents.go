package simulate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/fsutil"
)

// Formats are the values of --format: auto (sniffed), the generic JSONL,
// and the agents' session files.
var Formats = append([]string{"auto"}, agents.Formats...)

// ClaudeCodeWindow is the context window a Claude Code session is
// simulated with when neither --context-window nor the configuration's
// context_windows names its model: the window of Claude Code's models.
const ClaudeCodeWindow = 200000

// ReadFile reads the history in the file at path ("-": stdin) in format
// ("" or "auto": sniffed; agents.Generic, agents.ClaudeCode, agents.Codex,
// agents.SWEAgent, agents.OTel, agents.OpenCode or agents.GeminiCLI; an
// OpenCode database gives its session updated last). A generic JSONL history is read as ReadJSONL reads
// it, along the branch to leaf; an agent's session through
// internal/agents and convo.FromSession, with its context window from the
// session (Codex records it), else from windows by its model, else
// ClaudeCodeWindow for a Claude Code session. The warnings name the lines
// left out. A file in no known format, or with no usable message, is an
// InputError.
func ReadFile(path, format string, stdin io.Reader, leaf string, windows map[string]int) (*Input, []string, error) {
	name := path
	var r io.Reader
	if path == "-" {
		name, r = "stdin", stdin
	} else {
		f, err := fsutil.OpenInput(path)
		if err != nil {
			return nil, nil, &InputError{Err: err}
		}
		defer f.Close()
		r = f
	}
	br := bufio.NewReaderSize(r, agents.SniffBytes)
	if format == "" || format == "auto" {
		head, err := br.Peek(agents.SniffBytes)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, nil, &InputError{Err: fmt.Errorf("%s: %w", name, err)}
		}
		if len(bytes.TrimSpace(head)) == 0 {
			format = agents.Generic // "holds no message"
		} else if format, err = agents.Sniff(head, name); err != nil {
			return nil, nil, &InputError{Err: err}
		}
	}
	if leaf != "" && format != agents.Generic {
		return nil, nil, inputErr("--leaf chooses a branch of a generic JSONL history; %s is a %s session", name, format)
	}
	var s *agents.Session
	var err error
	switch format {
	case agents.Generic:
		h, err := convo.ReadJSONL(br, name, convo.JSONLOptions{Leaf: leaf})
		if err != nil {
			return nil, nil, &InputError{Err: err}
		}
		return checkHistory(h)
	case agents.ClaudeCode:
		if path != "-" {
			s, err = agents.ReadClaudeCodeFile(path) // with its subagents' files
		} else {
			s, err = agents.ReadClaudeCode(br, name)
		}
	case agents.Codex:
		s, err = agents.ReadCodex(br, name)
	case agents.SWEAgent:
		s, err = agents.ReadSWEAgent(br, name)
	case agents.OTel:
		s, err = agents.ReadOTel(br, name)
	case agents.OpenCode:
		if path != "-" {
			s, err = agents.ReadOpenCodeFile(path) // a database or storage: by path
		} else {
			s, err = agents.ReadOpenCodeExport(br, name)
		}
	case agents.GeminiCLI:
		if path != "-" {
			s, err = agents.ReadGeminiCLIFile(path) // with its subagents' chats
		} else {
			s, err = agents.ReadGeminiCLI(br, name)
		}
	default:
		return nil, nil, inputErr("--format: unknown format %q (want %s)", format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return nil, nil, &InputError{Err: err}
	}
	h := convo.FromSession(s)
	in, warnings, err := checkHistory(h)
	if err != nil {
		return nil, warnings, err
	}
	switch n, ok := windows[strings.ToLower(s.Model)]; {
	case s.ContextWindow > 0:
		in.Window, in.WindowFrom = int(s.ContextWindow), "recorded"
	case ok && s.Model != "":
		in.Window, in.WindowFrom = n, s.Model
	case s.Agent == agents.ClaudeCode:
		in.Window, in.WindowFrom = ClaudeCodeWindow, "Claude Code's"
	}
	if s.NoContent != "" {
		in.Trace = tokenTrace(s)
	}
	for _, sub := range s.Subagents {
		if len(sub.Compactions) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: subagent %s, with %s, is not simulated here: pass its file", name, sub.Path, plural(len(sub.Compactions), "compaction")))
		}
	}
	return in, warnings, nil
}

// checkHistory is the Input of h, its problems as warnings, and an
// InputError when no message is usable.
func checkHistory(h *convo.History) (*Input, []string, error) {
	var warnings []string
	for _, p := range h.Problems {
		warnings = append(warnings, fmt.Sprintf("%s: %s", h.Name, p))
	}
	if len(h.Branch) == 0 {
		if len(h.Problems) == 0 {
			return nil, warnings, inputErr("%s holds no message (want one JSON object per line)", h.Name)
		}
		return nil, warnings, inputErr("%s: no usable line (%s reported above)", h.Name, plural(len(h.Problems), "problem"))
	}
	return &Input{History: h}, warnings, nil
}
