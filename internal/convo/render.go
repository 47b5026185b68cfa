package convo

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/strategy"
)

// CompactHistory renders messages in the layout of the compact history the
// compression model reads (spec §6): previous, when not empty, inside
// <previous-chat-history>, then one <user> or <assistant> turn per message,
// joined with "\n": what the must-keep measures of internal/mdtext read
// (mdtext.ParseHistory), and what the builtin briefing writer reads.
//
// A message with Raw (stagewise) is serialized as the app serializes it,
// with the given profile (nil: e3e), its stored briefing ignored; the tool
// messages made from its tool parts are left out, since its tool markers
// already stand for them. Any other user or assistant message is written
// from Content, escaped; an assistant's tool calls become one marker line
// each, "[name: subject]", where subject is the call's path, command, query
// or pattern argument (else its arguments, cut to 80 characters), and the
// answering tool message decides the suffix the way the stagewise markers
// do: " ✗ first line of the error", " → exit N" or " → timed out" (see
// ToolFailure). System messages and other tool messages write nothing.
//
// CompactHistory is Render with only Previous and Profile set.
func CompactHistory(msgs []strategy.Message, previous string, profile *serialize.Profile) string {
	return Render(msgs, RenderOptions{Previous: previous, Profile: profile})
}

// RenderOptions tune Render.
type RenderOptions struct {
	// Previous is the summary the messages extend ("" none), written
	// inside <previous-chat-history>.
	Previous string
	// Profile serializes stagewise messages (nil: e3e).
	Profile *serialize.Profile
	// Verbs names tool calls by the marker verbs internal/eval mines
	// (MarkerVerb) and gives each the subject its verb calls for: the
	// file of a read, edit, write, create or delete (one marker per file
	// of an apply_patch), the command of a shell call. Without it a
	// marker is named by the tool.
	Verbs bool
	// Cwd, when set, makes paths under it relative: the working
	// directory's prefix is taken out of the whole rendering.
	Cwd string
	// Outcomes gives the suffix of a call's marker by call id, where the
	// history knows it better than its result's text does (an agent's
	// recorded error flag and exit status): " → exit N", " → ✓",
	// " ✗ first line". A call without an entry is judged by ToolFailure.
	Outcomes map[string]string
}

// Render renders msgs as a compact history (see CompactHistory and
// RenderOptions).
func Render(msgs []strategy.Message, opts RenderOptions) string {
	var b strings.Builder
	if opts.Previous != "" {
		b.WriteString(serialize.PrevOpen)
		b.WriteString(opts.Previous)
		b.WriteString(serialize.PrevClose)
	}
	compactTurns(msgs, &opts, func(s string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	})
	return stripCwd(b.String(), opts.Cwd)
}

// stripCwd takes the working directory's prefix out of a rendering.
func stripCwd(out, cwd string) string {
	if cwd = strings.TrimRight(cwd, `/\`); cwd != "" {
		esc := serialize.Esc(cwd)
		out = strings.ReplaceAll(out, esc+"/", "")
		out = strings.ReplaceAll(out, esc+`\`, "")
	}
	return out
}

// compactTurns calls turn with each turn of the compact history of msgs
// (see Render; never ""), in order. Each turn is whole: a parser
// reading the turns joined with "\n" reads the turns of each one alone.
func compactTurns(msgs []strategy.Message, opts *RenderOptions, turn func(string)) {
	results := map[string]string{}
	rawCalls := map[string]bool{}
	for _, m := range msgs {
		if m.Role == strategy.RoleTool && m.Raw == nil && !m.Synthetic {
			results[m.ToolCallID] = m.Content
		}
		if m.Raw != nil {
			for _, c := range m.ToolCalls {
				rawCalls[c.ID] = true
			}
		}
	}
	for _, m := range msgs {
		if m.Synthetic {
			continue
		}
		if m.Raw != nil {
			if s := serialize.Serialize([]history.Value{withoutSummary(*m.Raw)}, serialize.Options{Profile: opts.Profile}); s != "" {
				turn(s)
			}
			continue
		}
		switch m.Role {
		case strategy.RoleUser:
			turn("<user>" + serialize.Esc(m.Content) + "</user>")
		case strategy.RoleAssistant:
			var lines []string
			if m.Content != "" {
				lines = append(lines, serialize.Esc(m.Content))
			}
			for _, c := range m.ToolCalls {
				if rawCalls[c.ID] {
					continue
				}
				out, answered := results[c.ID]
				suffix := ""
				if s, ok := opts.Outcomes[c.ID]; ok {
					suffix = s
				} else if answered {
					suffix = ToolFailure(out)
				}
				if !opts.Verbs {
					lines = append(lines, serialize.Esc("["+c.Name+": "+callSubject(c.Arguments)+suffix+"]"))
					continue
				}
				for _, mk := range callMarkers(c, out, opts.Cwd) {
					lines = append(lines, serialize.Esc("["+mk+suffix+"]"))
				}
			}
			if len(lines) > 0 {
				turn("<assistant>" + strings.Join(lines, "\n") + "</assistant>")
			}
		}
	}
}

// withoutSummary returns msg without metadata.compressedHistory (a
// shallow copy when it has one).
func withoutSummary(msg history.Value) history.Value {
	if history.CompressedHistory(msg).IsUndefined() {
		return msg
	}
	out := history.NewObject()
	for _, k := range msg.Keys() {
		v := msg.Get(k)
		if k == "metadata" {
			meta := history.NewObject()
			for _, mk := range v.Keys() {
				if mk != "compressedHistory" {
					meta.Set(mk, v.Get(mk))
				}
			}
			v = meta
		}
		out.Set(k, v)
	}
	return out
}

// subjectKeys are the argument members a marker names, in order of
// preference.
var subjectKeys = []string{"path", "file_path", "filePath", "filename", "command", "cmd", "query", "pattern", "url"}

// callSubject is what a generic tool marker names: the first subject
// argument, else the arguments themselves, at most 80 characters.
func callSubject(args string) string {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) == nil {
		for _, k := range subjectKeys {
			if s, ok := obj[k].(string); ok && s != "" {
				return cut(firstLine(s), 80)
			}
		}
	}
	return cut(firstLine(args), 80)
}

var (
	exitTextRe  = regexp.MustCompile(`(?i)\bexit(?:ed)?(?:\s+with)?(?:\s+(?:code|status))?\s*[:=]?\s*(-?\d+)\b`)
	errorTextRe = regexp.MustCompile(`(?i)^\s*(?:error|fatal|exception|traceback)\b`)
	timeoutRe   = regexp.MustCompile(`(?i)\btimed?[ _-]?out\b`)
)

// ToolFailure reads a tool result and returns the suffix of its marker,
// "" when it does not report a failure:
//
//   - a JSON object with a non-zero exit_code (or exitCode, exit_status,
//     returncode) gives " → exit N"; timed_out (or timedOut) true gives
//     " → timed out"; a non-empty error (or stderr with a non-zero code
//     already counted) gives " ✗ " and its first line;
//   - other text gives " → exit N" for "exit N", "exited with code N",
//     "exit status N" (N not 0), " → timed out" for "timed out" in the
//     first line, and " ✗ " and the first line when the text starts with
//     error, fatal, exception or traceback, or holds "✗".
func ToolFailure(content string) string {
	t := strings.TrimSpace(content)
	var obj map[string]any
	if strings.HasPrefix(t, "{") && json.Unmarshal([]byte(t), &obj) == nil {
		for _, k := range []string{"exit_code", "exitCode", "exit_status", "returncode"} {
			if n, ok := obj[k].(float64); ok && n != 0 {
				return " → exit " + strconv.FormatFloat(n, 'f', -1, 64)
			}
		}
		for _, k := range []string{"timed_out", "timedOut"} {
			if v, ok := obj[k].(bool); ok && v {
				return " → timed out"
			}
		}
		if e, ok := obj["error"].(string); ok && strings.TrimSpace(e) != "" {
			return " ✗ " + cut(firstLine(e), 80)
		}
		return ""
	}
	if m := exitTextRe.FindStringSubmatch(t); m != nil && strings.TrimLeft(m[1], "-0") != "" {
		return " → exit " + m[1]
	}
	first := firstLine(t)
	if timeoutRe.MatchString(first) {
		return " → timed out"
	}
	if errorTextRe.MatchString(t) || strings.Contains(first, "✗") {
		return " ✗ " + cut(first, 80)
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// cut keeps the first n UTF-16 units of s.
func cut(s string, n int) string {
	if history.Len16(s) <= n {
		return s
	}
	return history.ToWellFormed(history.Slice16(s, n))
}
