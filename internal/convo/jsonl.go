package convo

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/strategy"
)

// JSONLOptions tune ReadJSONL.
type JSONLOptions struct {
	// Leaf chooses the branch: the path from the root to the message with
	// this id (usually a leaf; any usable message works, and the branch
	// ends there). Empty: the newest leaf, the one whose line comes last.
	Leaf string
}

// ErrLeaf is wrapped by the errors about JSONLOptions.Leaf.
var ErrLeaf = errors.New("bad leaf")

// ReadJSONLFile reads the JSONL history in the file at path.
func ReadJSONLFile(path string, opts JSONLOptions) (*History, error) {
	f, err := fsutil.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadJSONL(f, path, opts)
}

// rec is one line that holds a JSON object.
type rec struct {
	line int
	msg  strategy.Message
	cwd  string // the line's cwd member ("" none)
	// bad is the line's own problem ("" none): the line is left out, and
	// spliced out when its id is known.
	bad string
	// indexed: the record owns its id (the first line with that id).
	indexed bool

	parent   *rec   // declared parent (tree), nil for a root
	children []*rec // declared children, in line order
	reach    int    // tree: reachUnknown, reachRoot, reachDangling, reachCycle
	usable   bool
}

const (
	reachUnknown = iota
	reachVisiting
	reachRoot
	reachNot // dangling or cycle, reported
)

// MaxLineBytes bounds one line of a JSONL history. A message with a large
// tool output is a few MB; an input with a longer line (a binary file, an
// endless stream without a newline) is refused rather than read whole.
const MaxLineBytes = 256 << 20

// maxLineBytes is the limit ReadJSONL applies: MaxLineBytes (tests lower
// it, to reach it without reading 256 MiB).
var maxLineBytes = MaxLineBytes

var errLineTooLong = errors.New("line too long")

// lineTooLongError is ReadJSONL's error about line of name being longer
// than max bytes.
func lineTooLongError(name string, line, max int) error {
	return fmt.Errorf("%s: line %d is longer than %d MiB: not a JSONL history (each line one message); check it is the file you meant", name, line, max>>20)
}

// readLine is bufio.Reader.ReadBytes('\n') that stops with
// errLineTooLong once a line passes max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > max {
			return nil, errLineTooLong
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// ReadJSONL reads a JSONL history (see the package comment for the format
// and for what happens to bad lines). name names the input in the
// History. The error is an I/O error or a bad opts.Leaf; bad lines are
// Problems, and a History with an empty Branch means no line was usable.
func ReadJSONL(r io.Reader, name string, opts JSONLOptions) (*History, error) {
	h := &History{Source: SourceJSONL, Name: name, Problems: []Problem{}}
	br := bufio.NewReaderSize(r, 1<<16)
	var recs []*rec
	var unreadable []int
	for line := 1; ; line++ {
		text, err := readLine(br, maxLineBytes)
		if errors.Is(err, errLineTooLong) {
			return nil, lineTooLongError(name, line, maxLineBytes)
		}
		if len(text) > 0 {
			text = bytes.TrimRight(text, "\r\n")
			if line == 1 {
				text = bytes.TrimPrefix(text, []byte("\ufeff"))
			}
			if len(bytes.TrimSpace(text)) > 0 {
				rc, problem := parseLine(text)
				if rc == nil {
					unreadable = append(unreadable, line)
					h.Problems = append(h.Problems, Problem{Line: line, Message: problem})
				} else {
					rc.line = line
					rc.bad = problem
					recs = append(recs, rc)
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", name, line, err)
		}
	}

	// Ids: the first line with an id owns it; later ones are left out.
	byID := map[string]*rec{}
	var problems []Problem
	report := func(rc *rec, msg string) {
		problems = append(problems, Problem{Line: rc.line, ID: rc.msg.ID, Message: msg})
	}
	for _, rc := range recs {
		if rc.msg.ID == "" {
			continue
		}
		if first, dup := byID[rc.msg.ID]; dup {
			msg := fmt.Sprintf("duplicate id %q (first on line %d); left out", rc.msg.ID, first.line)
			if rc.bad != "" {
				msg = rc.bad + "; " + msg
			}
			rc.bad = msg
			continue
		}
		byID[rc.msg.ID] = rc
		rc.indexed = true
	}
	for _, rc := range recs {
		if rc.msg.ParentID != "" {
			h.Tree = true
			break
		}
	}

	var usable []*rec
	if !h.Tree {
		usable = linkList(recs, report)
	} else {
		usable = linkTree(recs, byID, unreadable, report)
	}
	h.Problems = append(h.Problems, problems...)
	sort.SliceStable(h.Problems, func(i, j int) bool { return h.Problems[i].Line < h.Problems[j].Line })

	h.Messages = make([]strategy.Message, len(usable))
	for i, rc := range usable {
		h.Messages[i] = rc.msg
	}
	if len(usable) == 0 {
		if opts.Leaf != "" {
			return nil, fmt.Errorf("%w: --leaf %q: %s has no usable message", ErrLeaf, opts.Leaf, name)
		}
		return h, nil
	}
	leaf, err := chooseLeaf(h.Tree, usable, byID, opts.Leaf)
	if err != nil {
		return nil, err
	}
	h.Leaf = leaf.msg.ID
	var path []*rec
	if h.Tree {
		for rc := leaf; rc != nil; rc = byID[rc.msg.ParentID] {
			path = append(path, rc)
		}
		for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
			path[i], path[j] = path[j], path[i]
		}
	} else {
		for _, rc := range usable {
			path = append(path, rc)
			if rc == leaf {
				break
			}
		}
	}
	h.Branch = make([]strategy.Message, len(path))
	h.Origin = make([]int, len(path))
	for i, rc := range path {
		h.Branch[i] = rc.msg
		h.Origin[i] = rc.line
		if h.Cwd == "" {
			h.Cwd = rc.cwd
		}
	}
	return h, nil
}

// linkList checks a list: each line follows the previous usable one.
func linkList(recs []*rec, report func(*rec, string)) []*rec {
	var usable []*rec
	calls := map[string]bool{}
	for _, rc := range recs {
		if rc.bad != "" {
			report(rc, rc.bad)
			continue
		}
		if msg := checkToolResult(rc, func(id string) bool { return calls[id] }); msg != "" {
			report(rc, msg)
			continue
		}
		for _, c := range rc.msg.ToolCalls {
			calls[c.ID] = true
		}
		rc.usable = true
		usable = append(usable, rc)
	}
	return usable
}

// checkToolResult reports a tool message whose call is not made before it.
func checkToolResult(rc *rec, made func(id string) bool) string {
	if rc.msg.Role != strategy.RoleTool || made(rc.msg.ToolCallID) {
		return ""
	}
	return fmt.Sprintf("tool message without its call: tool_call_id %q is not among the tool_calls of the assistant messages before it; left out", rc.msg.ToolCallID)
}

// linkTree resolves parents, reports dangling parents and cycles (with
// everything below them), splices out the other bad lines and checks tool
// results along each branch. It returns the usable records in line order
// with ParentID rewritten to the nearest usable ancestor.
func linkTree(recs []*rec, byID map[string]*rec, unreadable []int, report func(*rec, string)) []*rec {
	// Records without an id, or whose id another line owns, cannot be
	// anyone's parent; they still hang from their own parent.
	var roots []*rec
	dangling := map[*rec]string{}
	for _, rc := range recs {
		if rc.msg.ParentID == "" {
			roots = append(roots, rc)
			continue
		}
		p, ok := byID[rc.msg.ParentID]
		if !ok {
			msg := fmt.Sprintf("parent_id %q points nowhere: no line has that id", rc.msg.ParentID)
			if len(unreadable) > 0 {
				msg += fmt.Sprintf(" (unreadable: %s)", lineList(unreadable))
			}
			dangling[rc] = msg + "; left out with everything below it"
			continue
		}
		rc.parent = p
		p.children = append(p.children, rc)
	}

	// Reachability: walk up from each record until a root, a dangling
	// record, a resolved record or a record already on the walk (a cycle).
	why := map[*rec]string{} // records that cannot reach a root
	for _, start := range recs {
		if start.reach != reachUnknown {
			continue
		}
		var walk []*rec
		rc := start
		result := reachRoot
		cause := ""
		for {
			if rc.reach == reachRoot {
				break
			}
			if rc.reach == reachNot {
				result, cause = reachNot, why[rc]
				break
			}
			if rc.reach == reachVisiting {
				// rc is on this walk: the records from rc on form a cycle.
				i := 0
				for walk[i] != rc {
					i++
				}
				// One problem for the whole cycle, on its first line, and
				// one short cause for everything below it: a cycle of n
				// messages costs O(n), not n reports of n ids each.
				cycle := rotateToFirstLine(walk[i:])
				for _, c := range cycle {
					c.reach = reachNot
				}
				report(cycle[0], fmt.Sprintf("parent cycle of %s: %s: no root above it; the cycle and everything below it are left out",
					plural(len(cycle), "message"), cycleDesc(cycle)))
				walk = walk[:i]
				result, cause = reachNot, fmt.Sprintf("below the parent cycle reported on line %d", cycle[0].line)
				for _, c := range cycle {
					why[c] = cause
				}
				break
			}
			walk = append(walk, rc)
			rc.reach = reachVisiting
			if msg, ok := dangling[rc]; ok {
				rc.reach = reachNot
				why[rc] = fmt.Sprintf("below line %d, whose parent_id %q points nowhere", rc.line, rc.msg.ParentID)
				report(rc, msg)
				walk = walk[:len(walk)-1]
				result, cause = reachNot, why[rc]
				break
			}
			if rc.parent == nil {
				break
			}
			rc = rc.parent
		}
		for k := len(walk) - 1; k >= 0; k-- {
			w := walk[k]
			w.reach = result
			if result == reachNot {
				why[w] = cause
				report(w, cause+"; left out")
			}
		}
	}

	// Splice and check tool results root to leaf, children in line order.
	calls := map[string]int{}
	var visit func(rc *rec, parent *rec)
	visit = func(rc *rec, parent *rec) {
		here := parent
		switch {
		case rc.bad != "":
			report(rc, rc.bad)
		default:
			if msg := checkToolResult(rc, func(id string) bool { return calls[id] > 0 }); msg != "" {
				report(rc, msg)
				break
			}
			rc.usable = true
			rc.msg.ParentID = ""
			if parent != nil {
				rc.msg.ParentID = parent.msg.ID
			}
			here = rc
		}
		if rc.usable {
			for _, c := range rc.msg.ToolCalls {
				calls[c.ID]++
			}
		}
		for _, c := range rc.children {
			visit(c, here)
		}
		if rc.usable {
			for _, c := range rc.msg.ToolCalls {
				calls[c.ID]--
			}
		}
	}
	for _, rc := range roots {
		visit(rc, nil)
	}
	var usable []*rec
	for _, rc := range recs {
		if rc.usable {
			usable = append(usable, rc)
		}
	}
	return usable
}

// cycleShown is how many members of a cycle its problem names: all of
// a short cycle; the first cycleShown-1 and the last of a longer one.
const cycleShown = 5

// rotateToFirstLine returns cycle (in parent order) starting at the member
// whose line comes first, so a cycle reads the same whichever line the
// walk entered it by.
func rotateToFirstLine(cycle []*rec) []*rec {
	first := 0
	for i, c := range cycle {
		if c.line < cycle[first].line {
			first = i
		}
	}
	return append(append([]*rec(nil), cycle[first:]...), cycle[:first]...)
}

// cycleDesc names the members of cycle in parent order, at most
// cycleShown of them, back to the first: "a" (line 1) → "b" (line 2) → "a".
func cycleDesc(cycle []*rec) string {
	var b strings.Builder
	member := func(c *rec) { fmt.Fprintf(&b, "%q (line %d)", c.msg.ID, c.line) }
	for i, c := range cycle {
		if len(cycle) > cycleShown && i == cycleShown-1 {
			fmt.Fprintf(&b, " → … %d more … → ", len(cycle)-cycleShown)
			member(cycle[len(cycle)-1])
			break
		}
		if i > 0 {
			b.WriteString(" → ")
		}
		member(c)
	}
	fmt.Fprintf(&b, " → %q", cycle[0].msg.ID)
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func lineList(lines []int) string {
	var parts []string
	for i, l := range lines {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(lines)-5))
			break
		}
		parts = append(parts, strconv.Itoa(l))
	}
	if len(lines) == 1 {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}

// chooseLeaf returns the record the branch ends at.
func chooseLeaf(tree bool, usable []*rec, byID map[string]*rec, want string) (*rec, error) {
	if want == "" {
		if !tree {
			return usable[len(usable)-1], nil
		}
		hasChild := map[string]bool{}
		for _, rc := range usable {
			if rc.msg.ParentID != "" {
				hasChild[rc.msg.ParentID] = true
			}
		}
		for i := len(usable) - 1; i >= 0; i-- {
			if !hasChild[usable[i].msg.ID] {
				return usable[i], nil
			}
		}
		return usable[len(usable)-1], nil // unreachable: a finite tree has a leaf
	}
	rc, ok := byID[want]
	if !ok {
		return nil, fmt.Errorf("%w: --leaf %q: no message has that id", ErrLeaf, want)
	}
	if !rc.usable {
		return nil, fmt.Errorf("%w: --leaf %q: line %d was left out, and with it the branch (see the problems reported)", ErrLeaf, want, rc.line)
	}
	return rc, nil
}

// parseLine decodes one non-blank line. It returns nil and the problem
// when the line is not a JSON object; otherwise the record and the line's
// own problem ("" none).
func parseLine(text []byte) (*rec, string) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(text, &obj); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return nil, fmt.Sprintf("not a JSON object but %s; left out", jsonKind(bytes.TrimSpace(text)))
		}
		return nil, fmt.Sprintf("not JSON: %v; left out", err)
	}
	if obj == nil {
		return nil, "not a JSON object but null; left out"
	}
	rc := &rec{}
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	m := &rc.msg
	var err error
	if m.ID, err = str(obj, "id"); err != nil {
		bad("%v", err)
	} else if m.ID == "" {
		bad("no id")
	}
	if m.ParentID, err = str(obj, "parent_id"); err != nil {
		bad("%v", err)
	}
	if m.Role, err = str(obj, "role"); err != nil {
		bad("%v", err)
	} else {
		switch m.Role {
		case strategy.RoleSystem, strategy.RoleUser, strategy.RoleAssistant, strategy.RoleTool:
		case "":
			bad("no role (want system, user, assistant or tool)")
		default:
			bad("unknown role %q (want system, user, assistant or tool)", m.Role)
		}
	}
	if m.Content, err = content(obj["content"]); err != nil {
		bad("%v", err)
	}
	if m.ToolCalls, err = toolCalls(obj["tool_calls"]); err != nil {
		bad("%v", err)
	}
	if m.ToolCallID, err = str(obj, "tool_call_id"); err != nil {
		bad("%v", err)
	}
	if m.Role == strategy.RoleTool && m.ToolCallID == "" && err == nil {
		bad("tool message without tool_call_id")
	}
	if len(m.ToolCalls) > 0 && m.Role != strategy.RoleAssistant && m.Role != "" {
		bad("tool_calls on a %s message (only assistant messages make calls)", m.Role)
	}
	// cwd is informative: a value that is not a string is ignored.
	rc.cwd, _ = str(obj, "cwd")
	if ts, err := str(obj, "created_at"); err != nil {
		bad("%v", err)
	} else if ts != "" {
		t, perr := time.Parse(time.RFC3339Nano, ts)
		if perr != nil {
			bad("created_at %q is not an RFC 3339 time", ts)
		}
		m.CreatedAt = t
	}
	if len(probs) > 0 {
		return rc, strings.Join(probs, "; ") + "; left out"
	}
	return rc, ""
}

// str reads an optional string member (null and absent give "").
func str(obj map[string]json.RawMessage, key string) (string, error) {
	raw, ok := obj[key]
	if !ok || isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s is %s, want a string", key, jsonKind(raw))
	}
	return s, nil
}

// content reads content: a string, null, or an array of parts (strings or
// objects with a "text" member, other parts skipped) joined with "\n".
func content(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is %s, want a string or an array of parts", jsonKind(raw))
	}
	var texts []string
	for i, p := range parts {
		if json.Unmarshal(p, &s) == nil {
			texts = append(texts, s)
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(p, &obj) != nil {
			return "", fmt.Errorf("content[%d] is %s, want a string or a part object", i, jsonKind(p))
		}
		if t, ok := obj["text"]; ok {
			if json.Unmarshal(t, &s) != nil {
				return "", fmt.Errorf("content[%d].text is %s, want a string", i, jsonKind(t))
			}
			texts = append(texts, s)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// toolCalls reads tool_calls in the OpenAI shape.
func toolCalls(raw json.RawMessage) ([]strategy.ToolCall, error) {
	if len(raw) == 0 || isNull(raw) {
		return nil, nil
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("tool_calls is %s, want an array of {id, type, function: {name, arguments}}", jsonKind(raw))
	}
	var out []strategy.ToolCall
	for i, it := range items {
		where := fmt.Sprintf("tool_calls[%d]", i)
		if it == nil {
			return nil, fmt.Errorf("%s is null, want an object", where)
		}
		id, err := str(it, "id")
		if err != nil {
			return nil, fmt.Errorf("%s.%v", where, err)
		}
		if id == "" {
			return nil, fmt.Errorf("%s has no id", where)
		}
		typ, err := str(it, "type")
		if err != nil {
			return nil, fmt.Errorf("%s.%v", where, err)
		}
		if typ != "" && typ != "function" {
			return nil, fmt.Errorf("%s has type %q, want \"function\"", where, typ)
		}
		var fn map[string]json.RawMessage
		if f, ok := it["function"]; !ok || json.Unmarshal(f, &fn) != nil || fn == nil {
			return nil, fmt.Errorf("%s has no function object", where)
		}
		name, err := str(fn, "name")
		if err != nil {
			return nil, fmt.Errorf("%s.function.%v", where, err)
		}
		if name == "" {
			return nil, fmt.Errorf("%s.function has no name", where)
		}
		args := ""
		if a, ok := fn["arguments"]; ok && !isNull(a) {
			if json.Unmarshal(a, &args) != nil {
				// An object or array: keep its compact JSON text.
				var buf bytes.Buffer
				if err := json.Compact(&buf, a); err != nil {
					return nil, fmt.Errorf("%s.function.arguments: %v", where, err)
				}
				args = buf.String()
			}
		}
		out = append(out, strategy.ToolCall{ID: id, Name: name, Arguments: args})
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// jsonKind names the kind of a JSON value for messages.
func jsonKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
