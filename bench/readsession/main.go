// Command readsession generates agents' session files of a given size
// (-gen) and reads them the way `compact extract --from` and `compact
// simulate` do: sniffed, read by internal/agents, turned into the generic
// history by convo.FromSession, every compaction's history rendered.
// bench/readers.sh times it.
//
//	readsession -gen claude-code -mb 100 > big.jsonl
//	readsession big.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/convo"
)

func main() {
	gen := flag.String("gen", "", "write a session of this agent (claude-code, codex, or otel: a GenAI trace) to stdout")
	plain := flag.Bool("plain", false, "read FILE as a plain JSON line reader does (each line decoded by encoding/json into a generic value, then dropped): the baseline")
	mb := flag.Int("mb", 100, "with -gen: the size in MB")
	flag.Parse()
	if *gen != "" {
		w := bufio.NewWriterSize(os.Stdout, 1<<20)
		defer w.Flush()
		switch *gen {
		case agents.ClaudeCode:
			genClaude(w, int64(*mb)<<20)
		case agents.Codex:
			genCodex(w, int64(*mb)<<20)
		case agents.OTel:
			genOTel(w, int64(*mb)<<20)
		default:
			fmt.Fprintln(os.Stderr, "readsession: -gen claude-code, codex or otel")
			os.Exit(2)
		}
		return
	}
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: readsession FILE | readsession -gen AGENT -mb N")
		os.Exit(2)
	}
	if p := os.Getenv("READSESSION_CPUPROFILE"); p != "" {
		f, _ := os.Create(p)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if *plain {
		plainRead(flag.Arg(0))
		return
	}
	s, err := agents.ReadFile(flag.Arg(0), "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "readsession:", err)
		os.Exit(1)
	}
	h := convo.FromSession(s)
	chars, start := 0, 0
	for _, rc := range h.Recorded {
		chars += len(convo.Render(h.Branch[start:rc.Index], convo.RenderOptions{Verbs: true, Cwd: h.Cwd, Outcomes: h.Outcomes}))
		start = rc.Index
	}
	fmt.Printf("%s: %d messages, %d steps, %d compactions, %d problems; %d bytes of compact history rendered\n",
		s.Agent, len(s.Messages), s.Steps(), len(s.Compactions), len(s.Problems), chars)
}

// plainRead decodes every line of path with encoding/json and keeps
// nothing: what reading the file costs at the least with the standard
// library.
func plainRead(path string) {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "readsession:", err)
		os.Exit(1)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 256<<20)
	lines := 0
	for sc.Scan() {
		var v any
		if json.Unmarshal(sc.Bytes(), &v) == nil {
			lines++
		}
	}
	fmt.Printf("plain JSON lines: %d decoded\n", lines)
}

// text is a tool output of about n bytes: source-like lines.
func text(n int, seed int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%6d\tfunc handler%d(w http.ResponseWriter, r *http.Request) { // line %d of file %d\n", i+1, i, i, seed)
	}
	return b.String()
}

func jsonLine(w *bufio.Writer, v any) int64 {
	data, _ := json.Marshal(v)
	w.Write(data)
	w.WriteByte('\n')
	return int64(len(data) + 1)
}

// genClaude writes a Claude Code session: turns of a user request, a
// response split over records (text, two parallel reads), their results
// hanging from their own calls, an edit and a failing then passing test
// run; a compaction every 8 MB.
func genClaude(w *bufio.Writer, size int64) {
	const cwd = "/home/dev/big"
	var n int64
	parent := ""
	id := 0
	next := func() string { id++; return fmt.Sprintf("r%07d", id) }
	rec := func(typ, p string, extra map[string]any) string {
		u := next()
		m := map[string]any{"type": typ, "uuid": u, "parentUuid": nil, "sessionId": "big", "cwd": cwd, "timestamp": "2026-01-01T00:00:00.000Z", "isSidechain": false, "version": "2.1.39", "userType": "external", "gitBranch": "main", "slug": "big-session"}
		if p != "" {
			m["parentUuid"] = p
		}
		for k, v := range extra {
			m[k] = v
		}
		n += jsonLine(w, m)
		return u
	}
	asst := func(p, mid string, content []any, tokens int64) string {
		return rec("assistant", p, map[string]any{"message": map[string]any{"id": mid, "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": content,
			"usage": map[string]any{"input_tokens": 3, "cache_read_input_tokens": tokens, "cache_creation_input_tokens": 200, "output_tokens": 150}}})
	}
	// As in real 2.1.x files (see docs/benchmarks.md): the result is
	// written twice (toolUseResult holds it whole beside the message's
	// tool_result), and progress records are links of the chain: a hook's
	// before each result, bash output while a command runs.
	progress := func(p, kind, call string, payload int) string {
		return rec("progress", p, map[string]any{"data": map[string]any{"type": kind, "hookEvent": "PostToolUse", "output": text(payload, 7)}, "toolUseID": call, "parentToolUseID": call})
	}
	result := func(p, call, out string, isErr bool) string {
		p = progress(p, "hook_progress", call, 200)
		return rec("user", p, map[string]any{"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": out, "is_error": isErr}}},
			"toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false, "file": map[string]any{"filePath": cwd + "/src/x.go", "content": out}}})
	}
	nextCompact := int64(8 << 20)
	for turn := 0; n < size; turn++ {
		tokens := int64(20000 + (turn%40)*3000)
		parent = rec("user", parent, map[string]any{"message": map[string]any{"role": "user", "content": fmt.Sprintf("Turn %d: fix the handler in src/h%d.go; keep the API stable.", turn, turn)}})
		mid := fmt.Sprintf("msg_%d", turn)
		parent = asst(parent, mid, []any{map[string]any{"type": "thinking", "thinking": "Read both files first.", "signature": "x"}}, tokens)
		parent = asst(parent, mid, []any{map[string]any{"type": "text", "text": "Reading the handler and its test."}}, tokens)
		c1, c2 := fmt.Sprintf("t%d_1", turn), fmt.Sprintf("t%d_2", turn)
		a1 := asst(parent, mid, []any{map[string]any{"type": "tool_use", "id": c1, "name": "Read", "input": map[string]any{"file_path": fmt.Sprintf("%s/src/h%d.go", cwd, turn)}}}, tokens)
		a2 := asst(a1, mid, []any{map[string]any{"type": "tool_use", "id": c2, "name": "Read", "input": map[string]any{"file_path": fmt.Sprintf("%s/src/h%d_test.go", cwd, turn)}}}, tokens)
		result(a1, c1, text(12000, turn), false)
		parent = result(a2, c2, text(6000, turn+1), false)
		c3 := fmt.Sprintf("t%d_3", turn)
		parent = asst(parent, mid+"b", []any{map[string]any{"type": "tool_use", "id": c3, "name": "Edit", "input": map[string]any{"file_path": fmt.Sprintf("%s/src/h%d.go", cwd, turn), "old_string": "a", "new_string": "b"}}}, tokens+9000)
		parent = result(parent, c3, "The file has been updated.", false)
		c4, c5 := fmt.Sprintf("t%d_4", turn), fmt.Sprintf("t%d_5", turn)
		parent = asst(parent, mid+"c", []any{map[string]any{"type": "tool_use", "id": c4, "name": "Bash", "input": map[string]any{"command": "go test ./...", "description": "Run the tests"}}}, tokens+9500)
		for k := 0; k < 4; k++ {
			parent = progress(parent, "bash_progress", c4, 1500)
		}
		parent = result(parent, c4, "Exit code 1\n"+text(3000, turn), true)
		parent = asst(parent, mid+"d", []any{map[string]any{"type": "tool_use", "id": c5, "name": "Bash", "input": map[string]any{"command": "go test ./...", "description": "Run the tests"}}}, tokens+9800)
		parent = result(parent, c5, "ok  \texample.com/big\t0.4s", false)
		parent = asst(parent, mid+"e", []any{map[string]any{"type": "text", "text": fmt.Sprintf("Fixed src/h%d.go; the tests pass.", turn)}}, tokens+10000)
		if n > nextCompact {
			nextCompact += 8 << 20
			b := rec("system", "", map[string]any{"subtype": "compact_boundary", "logicalParentUuid": parent, "content": "Conversation compacted", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": tokens + 10000}})
			parent = rec("user", b, map[string]any{"isCompactSummary": true, "message": map[string]any{"role": "user", "content": fmt.Sprintf("Summary up to turn %d: handlers fixed, tests pass.", turn)}})
		}
	}
}

// genCodex writes a Codex rollout of the same shape.
func genCodex(w *bufio.Writer, size int64) {
	var n int64
	item := func(typ string, p map[string]any) {
		n += jsonLine(w, map[string]any{"timestamp": "2026-01-01T00:00:00.000Z", "type": typ, "payload": p})
	}
	item("session_meta", map[string]any{"id": "big", "cwd": "/home/dev/big"})
	item("turn_context", map[string]any{"cwd": "/home/dev/big", "model": "gpt-5-codex"})
	nextCompact := int64(8 << 20)
	for turn := 0; n < size; turn++ {
		item("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": fmt.Sprintf("Turn %d: fix src/h%d.rs.", turn, turn)}}})
		item("response_item", map[string]any{"type": "reasoning", "summary": []any{map[string]any{"type": "summary_text", "text": "Look first."}}, "encrypted_content": "gAAAA"})
		c := fmt.Sprintf("c%d", turn)
		args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", fmt.Sprintf("cat src/h%d.rs", turn)}})
		item("response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": string(args), "call_id": c})
		item("event_msg", map[string]any{"type": "token_count", "info": map[string]any{"last_token_usage": map[string]any{"input_tokens": 30000 + turn%50*2000, "cached_input_tokens": 20000, "output_tokens": 200}, "model_context_window": 272000}})
		out, _ := json.Marshal(map[string]any{"output": text(16000, turn), "metadata": map[string]any{"exit_code": 0}})
		item("response_item", map[string]any{"type": "function_call_output", "call_id": c, "output": string(out)})
		item("response_item", map[string]any{"type": "custom_tool_call", "name": "apply_patch", "call_id": c + "p", "input": fmt.Sprintf("*** Begin Patch\n*** Update File: src/h%d.rs\n@@\n-a\n+b\n*** End Patch\n", turn)})
		item("response_item", map[string]any{"type": "custom_tool_call_output", "call_id": c + "p", "output": "Exit code: 0\nOutput:\nSuccess."})
		item("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "Done."}}})
		if n > nextCompact {
			nextCompact += 8 << 20
			item("compacted", map[string]any{"message": fmt.Sprintf("Summary up to turn %d.", turn), "replacement_history": []any{}})
		}
	}
}

// genOTel writes OpenTelemetry traces of one conversation, as the
// collector's file exporter writes them (a request a line, a chat span
// each): every call's gen_ai.input.messages holds the conversation so far
// (a user request, a tool call, its result of a few kilobytes), as the
// GenAI instrumentations record it, so the file grows with the square of
// the context; the context is compacted when its tool results pass 256 KB (the next
// call's input a compaction part and the last turn, marked
// gen_ai.conversation.compacted).
func genOTel(w *bufio.Writer, size int64) {
	var n int64
	type part = map[string]any
	msg := func(role string, parts ...part) part { return part{"role": role, "parts": parts} }
	var hist []part
	histBytes, compacted := 0, false
	for call := 0; n < size; call++ {
		turn := call
		hist = append(hist, msg("user", part{"type": "text", "content": fmt.Sprintf("Turn %d: fix the handler in src/h%d.go; keep the API stable.", turn, turn)}))
		if call > 0 {
			res := text(4000, turn)
			hist = append(hist, msg("tool", part{"type": "tool_call_response", "id": fmt.Sprintf("call_%d", call-1), "response": res}))
			histBytes += len(res)
		}
		in, _ := json.Marshal(hist)
		out := msg("assistant", part{"type": "text", "content": "Reading the handler."}, part{"type": "tool_call", "id": fmt.Sprintf("call_%d", call), "name": "read_file", "arguments": part{"path": fmt.Sprintf("src/h%d.go", turn)}})
		outJSON, _ := json.Marshal([]part{out})
		attrs := []any{
			kv("gen_ai.operation.name", "chat"), kv("gen_ai.provider.name", "openai"), kv("gen_ai.request.model", "gpt-5.4-mini"),
			kv("gen_ai.conversation.id", "conv_big"), kv("gen_ai.input.messages", string(in)), kv("gen_ai.output.messages", string(outJSON)),
			part{"key": "gen_ai.usage.input_tokens", "value": part{"intValue": fmt.Sprint(len(in) / 4)}},
			part{"key": "gen_ai.usage.output_tokens", "value": part{"intValue": "40"}},
		}
		if compacted {
			attrs = append(attrs, part{"key": "gen_ai.conversation.compacted", "value": part{"boolValue": true}})
		}
		start := int64(1780000000+call*3) * 1e9
		n += jsonLine(w, part{"resourceSpans": []any{part{"resource": part{"attributes": []any{kv("service.name", "big-agent")}},
			"scopeSpans": []any{part{"scope": part{"name": "opentelemetry.instrumentation.openai_v2"}, "spans": []any{part{
				"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": fmt.Sprintf("%016x", call+1), "name": "chat gpt-5.4-mini", "kind": 3,
				"startTimeUnixNano": fmt.Sprint(start), "endTimeUnixNano": fmt.Sprint(start + 2e9), "attributes": attrs}}}}}}})
		hist = append(hist, out)
		if histBytes > 256<<10 {
			// The next call sends the compacted view.
			last := hist[len(hist)-2:]
			hist = []part{msg("user", part{"type": "compaction", "content": fmt.Sprintf("Summary up to turn %d: handlers fixed, tests pass.", turn)})}
			hist = append(hist, last...)
			histBytes, compacted = 0, true
		}
	}
}

func kv(k, v string) map[string]any {
	return map[string]any{"key": k, "value": map[string]any{"stringValue": v}}
}
