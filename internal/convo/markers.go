package convo

import (
	"encoding/json"
	"strings"

	"github.com/compactlab/compact/internal/strategy"
)

// The tool markers of a rendered history (Render with Verbs): one line
// "[verb: subject]" per call, or per file for a patch, with the verbs
// internal/eval mines as artifacts and failures:
//
//	[read: src/a.ts]            a file read
//	[edited: src/a.ts]          changed (edit, multi-edit, patch update)
//	[wrote: src/a.ts]           written whole
//	[created: src/a.ts]         created (a write that created it, a patch's Add File)
//	[deleted: src/a.ts]         deleted
//	[moved: src/a.ts → src/b.ts] moved (a patch's Move to)
//	[shell: npm test → exit 1]  a command and its outcome (→ ✓, → exit N, → timed out, ✗ error)
//	[grep: pattern]             any other tool: its name, lower-cased with
//	                            dashes, and its main argument
//
// A failed call ends with " ✗ " and the first line of its error, or the
// exit status; the outcome comes from RenderOptions.Outcomes, else from
// the result's text (ToolFailure).

// markerVerbs maps tool names, lower-cased with '-', ' ' and '.' read as
// '_', to the marker verbs eval reads as a file read, change, creation or
// deletion, or a shell command. Other tools keep their name (MarkerVerb).
var markerVerbs = map[string]string{}

func init() {
	for verb, names := range map[string]string{
		"read":    "read read_file readfile view view_file cat open_file read_text_file get_file_contents fs_read open",
		"edited":  "edit edit_file editfile multiedit multi_edit str_replace str_replace_editor str_replace_based_edit_tool replace replace_in_file apply_patch apply_diff patch search_replace insert notebookedit notebook_edit",
		"wrote":   "write write_file writefile write_to_file save_file fs_write",
		"created": "create create_file createfile new_file",
		"deleted": "delete delete_file deletefile remove remove_file rm",
		"shell":   "bash shell exec_command shell_command local_shell container_exec run_shell_command",
	} {
		for _, n := range strings.Fields(names) {
			markerVerbs[n] = verb
		}
	}
}

// MarkerVerb is the marker verb of a tool call: a verb of markerVerbs,
// else the name lower-cased with every run of other characters than a to
// z as one '-' ("run_command" gives "run-command"), so that eval reads the
// marker (its failures, and a later success of the same call as their
// fix) whatever the name.
func MarkerVerb(name string) string {
	key := strings.Map(func(r rune) rune {
		switch {
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case r == '-' || r == ' ' || r == '.':
			return '_'
		}
		return r
	}, name)
	if v, ok := markerVerbs[key]; ok {
		return v
	}
	var b strings.Builder
	dash := false
	for _, r := range key {
		if r >= 'a' && r <= 'z' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "tool"
	}
	return b.String()
}

// editorVerbs are the verbs of an editor tool's subcommands
// (str_replace_editor: {"command": "view", "path": …}).
var editorVerbs = map[string]string{"view": "read", "create": "created", "str_replace": "edited", "insert": "edited", "undo_edit": "edited", "write": "wrote"}

// callMarkers are the markers of one call, without brackets or outcome:
// "verb: subject", one per file for a patch. result is the call's result
// ("" when none), cwd the working directory paths are made relative to.
func callMarkers(c strategy.ToolCall, result, cwd string) []string {
	if ops := patchOps(c.Name, c.Arguments); len(ops) > 0 {
		out := make([]string, len(ops))
		for i, op := range ops {
			out[i] = op.verb + ": " + relTo(op.path, cwd)
			if op.to != "" {
				out[i] += " → " + relTo(op.to, cwd)
			}
		}
		return out
	}
	verb := MarkerVerb(c.Name)
	var obj map[string]any
	isObj := json.Unmarshal([]byte(c.Arguments), &obj) == nil && obj != nil
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := obj[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	if isObj {
		if sub, ok := obj["command"].(string); ok && editorVerbs[sub] != "" && str("path", "file_path") != "" {
			return []string{editorVerbs[sub] + ": " + relTo(str("path", "file_path"), cwd)}
		}
	}
	subject := ""
	switch verb {
	case "shell":
		if isObj {
			subject = commandText(obj["command"])
			if subject == "" {
				subject = commandText(obj["cmd"])
			}
		}
	case "read", "edited", "wrote", "created", "deleted":
		if isObj {
			subject = str("file_path", "path", "filePath", "filename", "notebook_path", "file")
		}
		if verb == "wrote" && strings.Contains(strings.ToLower(firstLine(result)), "created") {
			verb = "created"
		}
	case "grep", "glob", "search", "search-files", "find":
		// A search names what it looked for, and where.
		if p := str("pattern", "query", "regex"); p != "" {
			subject = p
			if where := str("path", "include", "glob"); where != "" {
				subject += " in " + relTo(where, cwd)
			}
		}
	}
	if subject == "" && isObj && len(obj) == 1 {
		// A command-line tool given its whole command ({"command":
		// "open src/a.py"}): the words after the tool's name.
		if cmd, ok := obj["command"].(string); ok {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(cmd), c.Name+" "); ok {
				subject = strings.Trim(strings.TrimSpace(rest), `"'`)
			}
		}
	}
	if subject == "" {
		subject = callSubject(c.Arguments)
	}
	subject = cut(firstLine(relTo(subject, cwd)), 80)
	return []string{verb + ": " + subject}
}

// relTo is p relative to cwd when it is under it.
func relTo(p, cwd string) string {
	cwd = strings.TrimRight(cwd, `/\`)
	if cwd == "" {
		return p
	}
	for _, sep := range []string{"/", `\`} {
		if rest, ok := strings.CutPrefix(p, cwd+sep); ok && rest != "" {
			return rest
		}
	}
	return p
}

// commandText is a shell command given as a string or as an argv array,
// without a "bash -lc" (or sh -c) wrapper.
func commandText(v any) string {
	switch c := v.(type) {
	case string:
		return strings.TrimSpace(c)
	case []any:
		var words []string
		for _, w := range c {
			s, ok := w.(string)
			if !ok {
				return ""
			}
			words = append(words, s)
		}
		if len(words) == 3 && (words[1] == "-lc" || words[1] == "-c") && strings.HasSuffix(words[0], "sh") {
			return strings.TrimSpace(words[2])
		}
		return strings.Join(words, " ")
	}
	return ""
}

// patchOp is one file of a patch.
type patchOp struct {
	verb, path, to string
}

// patchOps reads the files of an apply_patch call: its free-form input,
// its arguments' input or patch member, or a shell command that runs
// apply_patch with the patch as its argument. nil when the call holds no
// patch.
func patchOps(name, args string) []patchOp {
	text := ""
	if strings.Contains(args, "*** Begin Patch") {
		var obj map[string]any
		if json.Unmarshal([]byte(args), &obj) == nil {
			for _, k := range []string{"input", "patch"} {
				if s, ok := obj[k].(string); ok && strings.Contains(s, "*** Begin Patch") {
					text = s
				}
			}
			if text == "" {
				if s := commandText(obj["command"]); strings.Contains(s, "*** Begin Patch") {
					text = s
				} else if arr, ok := obj["command"].([]any); ok {
					for _, w := range arr {
						if s, ok := w.(string); ok && strings.Contains(s, "*** Begin Patch") {
							text = s
						}
					}
				}
			}
		} else if strings.EqualFold(MarkerVerb(name), "edited") || strings.Contains(strings.ToLower(name), "patch") {
			text = args
		}
	}
	if text == "" {
		return nil
	}
	var ops []patchOp
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			ops = append(ops, patchOp{verb: "created", path: strings.TrimSpace(line[len("*** Add File: "):])})
		case strings.HasPrefix(line, "*** Update File: "):
			ops = append(ops, patchOp{verb: "edited", path: strings.TrimSpace(line[len("*** Update File: "):])})
		case strings.HasPrefix(line, "*** Delete File: "):
			ops = append(ops, patchOp{verb: "deleted", path: strings.TrimSpace(line[len("*** Delete File: "):])})
		case strings.HasPrefix(line, "*** Move to: ") && len(ops) > 0 && ops[len(ops)-1].verb == "edited":
			last := &ops[len(ops)-1]
			last.verb, last.to = "moved", strings.TrimSpace(line[len("*** Move to: "):])
		}
	}
	return ops
}
