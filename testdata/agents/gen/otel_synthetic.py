#!/usr/bin/env python3
"""Writes the OpenTelemetry trace files of testdata/agents/otel/ built from
the conventions' own specifications (no licensed public trace records a
compaction; see testdata/agents/README.md). Run from the repository root.

- genai-compaction.jsonl: the collector's file exporter's shape (one
  ExportTraceServiceRequest per line), the GenAI semantic conventions'
  current spelling: gen_ai.input.messages / gen_ai.output.messages as
  JSON strings and as structured values, gen_ai.conversation.id on an
  invoke_agent span and its chat spans, execute_tool spans, usage with
  cache counts, two compactions (the first's summary a compaction part
  of the compacted call's input; the second's the output of a compaction
  call, sent back as text) and a second conversation without one.
- openinference-phoenix.json: one pretty-printed document in the
  snake_case field names of Phoenix's OTLP download, OpenInference's
  flattened attributes (session.id, llm.input_messages.N.message.*,
  tool calls, token counts) and one call marked compacted with the GenAI
  attribute (OpenInference has no marker of its own), its summary the
  first message of the compacted view.
- no-content.jsonl: GenAI chat spans with usage only, as the default
  instrumentation records them, one marked compacted.
"""
import json

OUT = "testdata/agents/otel/"
T0 = 1780000000 * 10**9


def ns(sec):
    return str(T0 + int(sec * 10**9))


def s(v):
    return {"stringValue": v}


def i(v):
    return {"intValue": str(v)}


def b(v):
    return {"boolValue": v}


def kv(obj):
    """A JSON value as an OTLP AnyValue (structured form)."""
    if isinstance(obj, bool):
        return b(obj)
    if isinstance(obj, int):
        return i(obj)
    if isinstance(obj, str):
        return s(obj)
    if isinstance(obj, list):
        return {"arrayValue": {"values": [kv(x) for x in obj]}}
    if isinstance(obj, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": kv(v)} for k, v in obj.items()]}}
    return {}


def attrs(d):
    return [{"key": k, "value": v} for k, v in d.items()]


def span(trace, sid, parent, name, start, end, a, events=None):
    sp = {"traceId": trace, "spanId": sid, "parentSpanId": parent, "name": name, "kind": 3,
          "startTimeUnixNano": ns(start), "endTimeUnixNano": ns(end), "attributes": attrs(a),
          "status": {"code": 1}}
    if events:
        sp["events"] = events
    return sp


def request(spans, service="shop-agent"):
    return {"resourceSpans": [{"resource": {"attributes": attrs({"service.name": s(service)})},
                               "scopeSpans": [{"scope": {"name": "opentelemetry.instrumentation.openai_v2", "version": "2.3b0"},
                                               "spans": spans}]}]}


def text(role, t):
    return {"role": role, "parts": [{"type": "text", "content": t}]}


def call(cid, name, args, t=None):
    parts = [{"type": "text", "content": t}] if t else []
    parts.append({"type": "tool_call", "id": cid, "name": name, "arguments": args})
    return {"role": "assistant", "parts": parts}


def result(cid, r):
    return {"role": "tool", "parts": [{"type": "tool_call_response", "id": cid, "response": r}]}


# --- genai-compaction.jsonl ------------------------------------------------

TR = "4bf92f3577b34da6a3ce929d0e0e4736"
CONV = "conv_shop_7f3a"
SYSTEM = [{"type": "text", "content": "You are a coding agent working in the user's repository."}]


def chat(sid, start, inp, out, usage, structured=False, extra=None, parent="a000000000000001"):
    a = {
        "gen_ai.operation.name": s("chat"),
        "gen_ai.provider.name": s("openai"),
        "gen_ai.request.model": s("gpt-5.4-mini"),
        "gen_ai.response.model": s("gpt-5.4-mini-2026-03-01"),
        "gen_ai.conversation.id": s(CONV),
        "gen_ai.system_instructions": s(json.dumps(SYSTEM)),
        "gen_ai.usage.input_tokens": i(usage[0]),
        "gen_ai.usage.cache_read.input_tokens": i(usage[1]),
        "gen_ai.usage.output_tokens": i(usage[2]),
    }
    if structured:
        a["gen_ai.input.messages"] = kv(inp)
        a["gen_ai.output.messages"] = kv(out)
    else:
        a["gen_ai.input.messages"] = s(json.dumps(inp))
        a["gen_ai.output.messages"] = s(json.dumps(out))
    if extra:
        a.update(extra)
    return span(TR, sid, parent, "chat gpt-5.4-mini", start, start + 2, a)


def tool(sid, start, name, cid, parent="a000000000000001"):
    return span(TR, sid, parent, "execute_tool " + name, start, start + 1, {
        "gen_ai.operation.name": s("execute_tool"), "gen_ai.tool.name": s(name), "gen_ai.tool.call.id": s(cid)})


u1 = text("user", "The checkout test fails: tax on discounted carts is wrong. Fix src/tax.ts so that npm test passes; keep rounding to cents.")
a1 = call("call_1", "read_file", {"path": "src/tax.ts"}, "I'll look at the tax code first.")
r1 = result("call_1", "export function tax(total: number, rate: number) {\n  return total * rate;\n}\n")
a2 = call("call_2", "shell", {"command": "npm test"})
r2 = result("call_2", "Exit code 1\nFAIL src/tax.test.ts\n  expected 1.08 to equal 1.07\n")
a3 = call("call_3", "edit_file", {"path": "src/tax.ts", "old": "return total * rate;", "new": "return Math.round(total * rate * 100) / 100;"})
r3 = result("call_3", "Edited src/tax.ts")
a4 = call("call_4", "shell", {"command": "npm test"})
r4 = result("call_4", "Exit code 0\nPASS src/tax.test.ts\nTests: 12 passed\n")
a5 = text("assistant", "Fixed: tax() now rounds to cents; npm test passes (12 tests).")
u2 = text("user", "Now add a formatMoney helper in src/money.ts and use it in src/cart.ts.")
a6 = call("call_5", "write_file", {"path": "src/money.ts", "content": "export const formatMoney = (n: number) => n.toFixed(2);\n"})
r6 = result("call_5", "Created src/money.ts")
SUMMARY1 = ("## Task\nFix the checkout tax bug in src/tax.ts so npm test passes, rounding to cents; then add formatMoney in src/money.ts and use it in src/cart.ts.\n\n"
            "## Done\n- src/tax.ts: tax() rounds with Math.round(total * rate * 100) / 100.\n- npm test passes (12 tests).\n\n"
            "## Next\n- Use formatMoney from src/money.ts in src/cart.ts; run npm test.")
a7 = call("call_6", "edit_file", {"path": "src/cart.ts", "old": "total.toFixed(2)", "new": "formatMoney(total)"})
r7 = result("call_6", "Edited src/cart.ts")
a8 = call("call_7", "shell", {"command": "npm test"})
r8 = result("call_7", "Exit code 0\nTests: 13 passed\n")
a9 = text("assistant", "src/cart.ts now uses formatMoney; npm test passes (13 tests).")
u3 = text("user", "Good. Last: document formatMoney in docs/money.md.")
a10 = call("call_8", "write_file", {"path": "docs/money.md", "content": "# Money\nformatMoney(n) gives n with two decimals.\n"})
r10 = result("call_8", "Created docs/money.md")
SUMMARY2 = ("## Task\nCheckout fixes: tax rounding (done), formatMoney in src/money.ts used by src/cart.ts (done), docs/money.md (written).\n\n"
            "## State\nnpm test passes (13 tests). docs/money.md documents formatMoney.\n\n## Next\nConfirm with the user that the docs are enough.")
a11 = text("assistant", "docs/money.md documents formatMoney. Anything else?")

lines = []
hist = [u1]
# The agent's turn span, with the conversation id its chat spans repeat.
root = span(TR, "a000000000000001", "", "invoke_agent shop", 0, 200, {
    "gen_ai.operation.name": s("invoke_agent"), "gen_ai.agent.name": s("shop"), "gen_ai.conversation.id": s(CONV)})
steps = [(a1, r1, (1200, 0, 40)), (a2, r2, (1400, 1024, 20)), (a3, r3, (1700, 1280, 60)),
         (a4, r4, (1900, 1536, 20)), (a5, None, (2100, 1792, 30))]
batch = [root]
t = 1
for n, (out, res, use) in enumerate(steps):
    batch.append(chat("c%015d" % (n + 1), t, list(hist), [dict(out, finish_reason="stop")], use, structured=(n == 2)))
    hist.append(out)
    t += 3
    if res:
        batch.append(tool("e%015d" % (n + 1), t - 1, out["parts"][-1]["name"], out["parts"][-1]["id"]))
        hist.append(res)
lines.append(request(batch))
# The next user turn; then the compaction: the next call's input is the
# summary (a compaction part) and the turn it kept.
hist.append(u2)
lines.append(request([chat("c000000000000006", t, list(hist), [a6], (2400, 2048, 50))]))
t += 3
view = [{"role": "user", "parts": [{"type": "compaction", "id": "cmp_1", "content": SUMMARY1}]}, u2, a6, r6]
lines.append(request([
    chat("c000000000000007", t, list(view), [a7], (900, 0, 45), extra={"gen_ai.conversation.compacted": b(True)}),
]))
t += 3
view += [a7, r7]
lines.append(request([chat("c000000000000008", t, list(view), [a8], (1000, 896, 20), extra={"gen_ai.conversation.compacted": b(True)})]))
t += 3
view += [a8, r8]
lines.append(request([chat("c000000000000009", t, list(view), [a9], (1100, 960, 30), extra={"gen_ai.conversation.compacted": b(True)})]))
t += 3
view += [a9, u3]
lines.append(request([chat("c000000000000010", t, list(view), [a10], (1200, 1024, 40), extra={"gen_ai.conversation.compacted": b(True)})]))
t += 3
view += [a10, r10]
# The compaction call: its output is the compaction part.
lines.append(request([chat("c000000000000011", t, list(view) + [text("user", "Summarize the conversation so far for a handoff.")],
                           [{"role": "assistant", "parts": [{"type": "compaction", "id": "cmp_2", "content": SUMMARY2}], "finish_reason": "compaction"}],
                           (1300, 1100, 200), extra={"gen_ai.conversation.compacted": b(True)})]))
t += 3
view2 = [text("user", SUMMARY2), u3, a10, r10]
lines.append(request([chat("c000000000000012", t, view2, [a11], (700, 0, 25), extra={"gen_ai.conversation.compacted": b(True)})]))
t += 3
# A second conversation, in another trace, without a compaction.
TR2 = "0af7651916cd43dd8448eb211c80319c"
d1 = text("user", "What does formatMoney return for 3?")
d2 = text("assistant", "\"3.00\": two decimals, as a string.")
lines.append(request([span(TR2, "d000000000000001", "", "chat gpt-5.4-mini", t, t + 1, {
    "gen_ai.operation.name": s("chat"), "gen_ai.request.model": s("gpt-5.4-mini"),
    "gen_ai.conversation.id": s("conv_docs_2b1c"),
    "gen_ai.input.messages": s(json.dumps([d1])), "gen_ai.output.messages": s(json.dumps([d2])),
    "gen_ai.usage.input_tokens": i(300), "gen_ai.usage.output_tokens": i(12)})], service="docs-bot"))
with open(OUT + "genai-compaction.jsonl", "w") as f:
    for l in lines:
        f.write(json.dumps(l, ensure_ascii=False, separators=(",", ":")) + "\n")

# --- openinference-phoenix.json --------------------------------------------

TR3 = "7d3e2f1a9b8c4d5e6f708192a3b4c5d6"


def ss(v):
    return {"string_value": v}


def ii(v):
    return {"int_value": v}


def oi_msgs(prefix, msgs):
    out = []
    for n, m in enumerate(msgs):
        p = "%s.%d.message." % (prefix, n)
        out.append({"key": p + "role", "value": ss(m["role"])})
        if m.get("content") is not None:
            out.append({"key": p + "content", "value": ss(m["content"])})
        if m.get("tool_call_id"):
            out.append({"key": p + "tool_call_id", "value": ss(m["tool_call_id"])})
        for k, c in enumerate(m.get("tool_calls", [])):
            q = "%stool_calls.%d.tool_call." % (p, k)
            out += [{"key": q + "id", "value": ss(c[0])}, {"key": q + "function.name", "value": ss(c[1])},
                    {"key": q + "function.arguments", "value": ss(json.dumps(c[2]))}]
    return out


def oi_span(sid, start, inp, out, prompt, completion, compacted=False):
    a = [{"key": "openinference.span.kind", "value": ss("LLM")},
         {"key": "llm.model_name", "value": ss("claude-sonnet-4-6")},
         {"key": "llm.provider", "value": ss("anthropic")},
         {"key": "session.id", "value": ss("sess-notes-42")}]
    a += oi_msgs("llm.input_messages", [{"role": "system", "content": "You are a notes assistant with shell access."}] + inp)
    a += oi_msgs("llm.output_messages", out)
    a += [{"key": "llm.token_count.prompt", "value": ii(prompt)}, {"key": "llm.token_count.completion", "value": ii(completion)},
          {"key": "llm.token_count.prompt_details.cache_read", "value": ii(prompt // 2)}]
    if compacted:
        a.append({"key": "gen_ai.conversation.compacted", "value": {"bool_value": True}})
    return {"trace_id": TR3, "span_id": sid, "parent_span_id": "b000000000000000", "name": "ChatAnthropic",
            "kind": 1, "start_time_unix_nano": T0 + start * 10**9, "end_time_unix_nano": T0 + (start + 2) * 10**9,
            "attributes": a, "status": {"code": 1}}


o1 = {"role": "user", "content": "Move the meeting notes from notes/2026-05-01.md into notes/meetings/ and fix the links in README.md."}
o2 = {"role": "assistant", "content": "Moving the file first.", "tool_calls": [("toolu_1", "bash", {"command": "git mv notes/2026-05-01.md notes/meetings/2026-05-01.md"})]}
o3 = {"role": "tool", "tool_call_id": "toolu_1", "content": "Exit code 0"}
o4 = {"role": "assistant", "tool_calls": [("toolu_2", "str_replace_editor", {"command": "str_replace", "path": "README.md", "old_str": "notes/2026-05-01.md", "new_str": "notes/meetings/2026-05-01.md"})]}
o5 = {"role": "tool", "tool_call_id": "toolu_2", "content": "The file README.md has been edited."}
o6 = {"role": "assistant", "content": "Moved notes/2026-05-01.md to notes/meetings/ and updated the link in README.md."}
o7 = {"role": "user", "content": "Also check that no other file links to the old path."}
OSUM = ("<summary>\nThe user asked to move notes/2026-05-01.md into notes/meetings/ and fix README.md's links. Done: git mv to "
        "notes/meetings/2026-05-01.md; README.md link updated. Next: check that no other file links to the old path.\n</summary>")
o8 = {"role": "assistant", "tool_calls": [("toolu_3", "bash", {"command": "grep -rn 'notes/2026-05-01.md' ."})]}
o9 = {"role": "tool", "tool_call_id": "toolu_3", "content": "Exit code 1"}
o10 = {"role": "assistant", "content": "No other file links to the old path."}
spans = [
    oi_span("b000000000000001", 1, [o1], [o2], 900, 40),
    oi_span("b000000000000002", 4, [o1, o2, o3], [o4], 1100, 60),
    oi_span("b000000000000003", 7, [o1, o2, o3, o4, o5], [o6], 1300, 30),
    oi_span("b000000000000004", 10, [o1, o2, o3, o4, o5, o6, o7], [o8], 1500, 30),
    oi_span("b000000000000005", 13, [{"role": "user", "content": OSUM}, o7, o8, o9], [o10], 600, 20, compacted=True),
]
doc = {"resource_spans": [{"resource": {"attributes": [{"key": "service.name", "value": ss("notes-agent")}]},
                           "scope_spans": [{"scope": {"name": "openinference.instrumentation.langchain"}, "spans": spans}]}]}
with open(OUT + "openinference-phoenix.json", "w") as f:
    json.dump(doc, f, indent=2, ensure_ascii=False)
    f.write("\n")

# --- no-content.jsonl -------------------------------------------------------

TR4 = "5b8efff798038103d269b633813fc60c"
lines = []
for n, (inp, cached, outp, comp) in enumerate([(5200, 0, 300, False), (9800, 5100, 420, False), (14100, 9700, 380, False),
                                               (3100, 0, 150, True), (4400, 3000, 210, True)]):
    a = {"gen_ai.operation.name": s("chat"), "gen_ai.provider.name": s("anthropic"),
         "gen_ai.request.model": s("claude-sonnet-4-6"), "gen_ai.conversation.id": s("conv_nc_1"),
         "gen_ai.usage.input_tokens": i(inp), "gen_ai.usage.cache_read.input_tokens": i(cached),
         "gen_ai.usage.output_tokens": i(outp)}
    if comp:
        a["gen_ai.conversation.compacted"] = b(True)
    lines.append(request([span(TR4, "f%015d" % (n + 1), "", "chat claude-sonnet-4-6", n * 5, n * 5 + 3, a)], service="quiet-agent"))
with open(OUT + "no-content.jsonl", "w") as f:
    for l in lines:
        f.write(json.dumps(l, separators=(",", ":")) + "\n")

# --- genai-logs-traces.jsonl and genai-logs.jsonl ---------------------------
# The content recorded apart from the traces: chat spans with usage only in
# a traces file, and a logs file (one ExportLogsServiceRequest per line, as
# the collector's file exporter of a logs pipeline writes it) holding one
# gen_ai.client.inference.operation.details event per call (semantic
# conventions v1.37.0 on: the span's attributes, severity DEBUG), joined by
# trace and span id. The fourth call is a compacted view whose summary is a
# compaction part. A last event names a span no file holds: a call of its
# own, in a conversation of its own.

TR5 = "3c2d1e0f9a8b7c6d5e4f30201a0b0c0d"
CONV5 = "conv_logs_9d1e"


def log_request(records, service="shop-agent"):
    return {"resourceLogs": [{"resource": {"attributes": attrs({"service.name": s(service)})},
                              "scopeLogs": [{"scope": {"name": "opentelemetry.instrumentation.openai_v2", "version": "2.3b0"},
                                             "logRecords": records}]}]}


def details(trace, sid, at, inp, out, conv=CONV5):
    return {"timeUnixNano": ns(at), "observedTimeUnixNano": ns(at), "severityNumber": 5, "severityText": "DEBUG",
            "eventName": "gen_ai.client.inference.operation.details", "traceId": trace, "spanId": sid,
            "attributes": attrs({"gen_ai.operation.name": s("chat"), "gen_ai.request.model": s("gpt-5.4-mini"),
                                 "gen_ai.conversation.id": s(conv),
                                 "gen_ai.system_instructions": s(json.dumps(SYSTEM)),
                                 "gen_ai.input.messages": s(json.dumps(inp)), "gen_ai.output.messages": s(json.dumps(out))})}


calls5 = [
    ("600000000000001a", [u1], [a1], (1200, 0, 40), False),
    ("600000000000002a", [u1, a1, r1], [a2], (1400, 1024, 20), False),
    ("600000000000003a", [u1, a1, r1, a2, r2, u2], [a6], (1900, 1280, 50), False),
    ("600000000000004a", [{"role": "user", "parts": [{"type": "compaction", "id": "cmp_l", "content": SUMMARY1}]}, u2, a6, r6], [a7], (800, 0, 45), True),
    ("600000000000005a", [{"role": "user", "parts": [{"type": "compaction", "id": "cmp_l", "content": SUMMARY1}]}, u2, a6, r6, a7, r7], [a8], (900, 760, 20), True),
]
span_lines, log_lines = [], []
for n, (sid, inp, out, use, comp) in enumerate(calls5):
    a = {"gen_ai.operation.name": s("chat"), "gen_ai.provider.name": s("openai"), "gen_ai.request.model": s("gpt-5.4-mini"),
         "gen_ai.conversation.id": s(CONV5), "gen_ai.usage.input_tokens": i(use[0]),
         "gen_ai.usage.cache_read.input_tokens": i(use[1]), "gen_ai.usage.output_tokens": i(use[2])}
    if comp:
        a["gen_ai.conversation.compacted"] = b(True)
    span_lines.append(request([span(TR5, sid, "", "chat gpt-5.4-mini", n * 3, n * 3 + 2, a)]))
    log_lines.append(log_request([details(TR5, sid, n * 3 + 2, inp, out)]))
log_lines.append(log_request([details("0d0c0b0a090807060504030201000f0e", "9000000000000001", 30, [d1], [d2], conv="conv_logs_only")],
                             service="docs-bot"))
with open(OUT + "genai-logs-traces.jsonl", "w") as f:
    for l in span_lines:
        f.write(json.dumps(l, separators=(",", ":")) + "\n")
with open(OUT + "genai-logs.jsonl", "w") as f:
    for l in log_lines:
        f.write(json.dumps(l, ensure_ascii=False, separators=(",", ":")) + "\n")

# --- genai-events-logs.jsonl -------------------------------------------------
# One file holding both pipelines (a span's line, then its records'), the
# older spelling: chat spans with
# gen_ai.system and usage (semantic conventions v1.28.0 to v1.36.0) and
# their per-message events as log records named by the event.name
# attribute (SDKs before LogRecord.event_name), the fields in the body:
# gen_ai.system.message, gen_ai.user.message, gen_ai.assistant.message
# (tool_calls), gen_ai.tool.message (id), gen_ai.choice (index,
# finish_reason, message).

TR6 = "6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d"


def ev(sid, at, name, body):
    return {"timeUnixNano": ns(at), "observedTimeUnixNano": ns(at), "severityNumber": 9, "traceId": TR6, "spanId": sid,
            "body": kv(body), "attributes": attrs({"event.name": s(name), "gen_ai.system": s("openai")})}


def tc(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


USER6 = "Rename the function totals() to sumTotals() in src/report.py and run the tests."
msgs6 = [
    ("gen_ai.system.message", {"content": "You are a coding assistant."}),
    ("gen_ai.user.message", {"content": USER6}),
]
turns6 = [
    ({"content": "", "tool_calls": [tc("call_a", "grep", {"pattern": "totals(", "path": "src"})]}, "src/report.py:12: def totals(rows):"),
    ({"content": "", "tool_calls": [tc("call_b", "edit_file", {"path": "src/report.py", "old": "def totals(", "new": "def sumTotals("})]}, "Edited src/report.py"),
    ({"content": "", "tool_calls": [tc("call_c", "shell", {"command": "pytest -q"})]}, "Exit code 0\n4 passed"),
    ({"content": "Renamed totals() to sumTotals() in src/report.py; pytest passes (4 tests)."}, None),
]
lines6 = []
t6 = 0
hist6 = list(msgs6)
for n, (reply, res) in enumerate(turns6):
    sid = "d6%014d" % (n + 1)
    sp = span(TR6, sid, "", "chat gpt-4.1", t6, t6 + 2, {
        "gen_ai.system": s("openai"), "gen_ai.operation.name": s("chat"), "gen_ai.request.model": s("gpt-4.1"),
        "gen_ai.usage.input_tokens": i(600 + 200 * n), "gen_ai.usage.output_tokens": i(30)})
    recs = [ev(sid, t6, name, body) for name, body in hist6]
    recs.append(ev(sid, t6 + 2, "gen_ai.choice", {"index": 0, "finish_reason": "tool_calls" if res else "stop", "message": reply}))
    lines6.append(request([sp]))
    lines6.append(log_request(recs))
    hist6.append(("gen_ai.assistant.message", reply))
    if res:
        hist6.append(("gen_ai.tool.message", {"content": res, "id": reply["tool_calls"][0]["id"]}))
    t6 += 3
with open(OUT + "genai-events-logs.jsonl", "w") as f:
    for l in lines6:
        f.write(json.dumps(l, separators=(",", ":")) + "\n")

# --- langfuse-trace.json -------------------------------------------------------
# Langfuse's trace download (web/src/features/traces/server/buildTraceExport.ts:
# {"observations": [...], "scores": [...]}, two-space indent): observations as
# Langfuse stores spans it received over OTLP (type GENERATION; input and
# output the messages as JSON text, the system instructions prepended as a
# {role: system, content} message; metadata.attributes the span's other
# attributes as text; usageDetails with the cached input apart), one
# conversation compacted (a compaction part, the marker "true" as text);
# a second conversation in OpenInference's spelling nested back
# ([{message: {...}}]), compacted, its summary the first new message; and a
# Langfuse SDK call in OpenAI's shape (input a list, output one message).

TR7 = "8e7d6c5b4a39281706f5e4d3c2b1a090"
LF_T0 = "2026-05-20T09:00:%02d.%03dZ"


def lf_time(sec):
    return LF_T0 % (sec, 0)


def lf_obs(oid, start, typ, name, parent=None, session=None, model=None, inp=None, out=None, attrs_=None, usage=None):
    o = {"id": oid, "traceId": TR7, "userId": None, "sessionId": session, "projectId": "proj-demo",
         "startTime": lf_time(start), "endTime": lf_time(start + 1), "parentObservationId": parent,
         "type": typ, "environment": "default", "name": name, "level": "DEFAULT", "traceName": "shop agent",
         "statusMessage": None, "release": None, "version": None, "createdAt": lf_time(start + 2), "updatedAt": lf_time(start + 2),
         "model": model, "modelParameters": {}, "internalModelId": None, "completionStartTime": None,
         "promptId": None, "promptName": None, "promptVersion": None, "providedUsageDetails": usage or {},
         "latency": 1.0, "timeToFirstToken": None, "usageDetails": usage or {}, "costDetails": {}, "providedCostDetails": {},
         "usagePricingTierId": None, "usagePricingTierName": None, "toolCallNames": [], "tags": [], "bookmarked": False, "public": False,
         "toolDefinitions": {}, "toolCalls": []}
    if inp is not None:
        o["input"] = inp
    if out is not None:
        o["output"] = out
    o["metadata"] = {"attributes": attrs_ or {}, "resourceAttributes": {"service.name": "shop-agent"},
                     "scope": {"name": "opentelemetry.instrumentation.openai_v2", "version": "2.3b0"}}
    return o


def lf_sys(msgs):
    return [{"role": "system", "content": SYSTEM[0]["content"]}] + msgs


CONV7 = "conv_lf_4c2a"
obs = [lf_obs("a100000000000001", 0, "AGENT", "invoke_agent shop", session=CONV7,
              attrs_={"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": CONV7})]
view7 = [{"role": "user", "parts": [{"type": "compaction", "id": "cmp_f", "content": SUMMARY1}]}, u2, a6, r6]
for n, (inp, out, use, comp) in enumerate([
    ([u1], [a1], (1200, 0, 40), False),
    ([u1, a1, r1], [a2], (400, 1024, 20), False),
    ([u1, a1, r1, a2, r2, u2], [a6], (700, 1280, 50), False),
    (view7, [a7], (800, 0, 45), True),
    (view7 + [a7, r7], [a8], (100, 800, 20), True),
]):
    at = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.conversation.id": CONV7,
          "gen_ai.response.model": "gpt-5.4-mini-2026-03-01"}
    if comp:
        at["gen_ai.conversation.compacted"] = "true"
    obs.append(lf_obs("c70000000000000%d" % (n + 1), 2 + 3 * n, "GENERATION", "chat gpt-5.4-mini", parent="a100000000000001",
                      session=CONV7, model="gpt-5.4-mini", inp=json.dumps(lf_sys(inp)), out=json.dumps(out), attrs_=at,
                      usage={"input": use[0], "output": use[2], "total": sum(use), "input_cached_tokens": use[1]}))


def oi_nested(msgs):
    out = []
    for m in msgs:
        msg = {"role": m["role"]}
        if m.get("content") is not None:
            msg["content"] = m["content"]
        if m.get("tool_call_id"):
            msg["tool_call_id"] = m["tool_call_id"]
        if m.get("tool_calls"):
            msg["tool_calls"] = [{"tool_call": {"id": c[0], "function": {"name": c[1], "arguments": json.dumps(c[2])}}} for c in m["tool_calls"]]
        out.append({"message": msg})
    return out


for n, (inp, out, comp) in enumerate([
    ([o1], [o2], False),
    ([o1, o2, o3], [o4], False),
    ([o1, o2, o3, o4, o5, o6, o7], [o8], False),
    ([{"role": "user", "content": OSUM}, o7, o8, o9], [o10], True),
]):
    at = {"openinference.span.kind": "LLM", "session.id": "sess-lf-oi"}
    if comp:
        at["gen_ai.conversation.compacted"] = "true"
    obs.append(lf_obs("b70000000000000%d" % (n + 1), 30 + 3 * n, "GENERATION", "ChatAnthropic", session="sess-lf-oi",
                      model="claude-sonnet-4-6", inp=json.dumps(oi_nested(inp)), out=json.dumps(oi_nested(out)), attrs_=at,
                      usage={"input": 900 + 100 * n, "output": 30, "total": 930 + 100 * n}))
obs.append(lf_obs("e700000000000001", 50, "GENERATION", "OpenAI-generation", session="lf-sdk-1", model="gpt-4o-mini",
                  inp=json.dumps([{"role": "user", "content": "Say hi."}]), out=json.dumps({"role": "assistant", "content": "Hi!"}),
                  usage={"input": 9, "output": 2, "total": 11}))
with open(OUT + "langfuse-trace.json", "w") as f:
    json.dump({"observations": obs, "scores": []}, f, indent=2, ensure_ascii=False)
    f.write("\n")
