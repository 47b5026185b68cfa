#!/usr/bin/env python3
"""Writes testdata/agents/claude-code/synthetic-shop.jsonl (and its
subagent file): a Claude Code session written for compact's tests, with
every field the reader handles. Run from the repository root:
python3 testdata/agents/gen/claude_synthetic.py"""
import json, os

SID = "7c1e2f40-0000-4000-8000-00000000c0de"
CWD = "/home/dev/shop"
out = []
t = [0]

def ts():
    t[0] += 7
    m, s = divmod(t[0], 60)
    h, m = divmod(m, 60)
    return "2026-03-02T%02d:%02d:%02d.000Z" % (9 + h, m, s)

def rec(kind, uuid, parent, **kw):
    r = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": CWD,
         "sessionId": SID, "version": "2.0.61", "gitBranch": "main", "type": kind,
         "uuid": uuid, "timestamp": ts()}
    r.update(kw)
    out.append(r)
    return uuid

def user(uuid, parent, content, **kw):
    return rec("user", uuid, parent, message={"role": "user", "content": content}, **kw)

def asst(uuid, parent, mid, blocks, inp=8, read=0, create=0, outp=50, **kw):
    return rec("assistant", uuid, parent, requestId="req_" + mid, message={
        "id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
        "content": blocks, "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": inp, "cache_creation_input_tokens": create,
                  "cache_read_input_tokens": read, "output_tokens": outp,
                  "service_tier": "standard"}}, **kw)

def result(uuid, parent, call, content, err=False, tur=None):
    b = {"tool_use_id": call, "type": "tool_result", "content": content}
    if err:
        b["is_error"] = True
    kw = {}
    if tur is not None:
        kw["toolUseResult"] = tur
    return user(uuid, parent, [b], **kw)

def tool(id, name, inp):
    return {"type": "tool_use", "id": id, "name": name, "input": inp}

out.append({"type": "file-history-snapshot", "messageId": "u01", "snapshot": {"messageId": "u01", "trackedFileBackups": {}, "timestamp": "2026-03-02T09:00:00.000Z"}, "isSnapshotUpdate": False})
p = user("u00", None, "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>", isMeta=True)
p = user("u01", p, "The cart total is wrong for carts over 2,400 items. Fix `cartTotal` in src/cart.ts. Use integer cents, never floats.")
p = asst("a01", p, "msg_01", [{"type": "thinking", "thinking": "I should read the cart module first.", "signature": "c2lnbmF0dXJl"}], inp=3, create=14500, outp=12)
p = asst("a02", p, "msg_01", [{"type": "text", "text": "I'll read the cart module and its test."}], inp=3, create=14500, outp=40)
pa = asst("a03", p, "msg_01", [tool("toolu_read1", "Read", {"file_path": CWD + "/src/cart.ts"})], inp=3, create=14500, outp=80)
pb = asst("a04", pa, "msg_01", [tool("toolu_read2", "Read", {"file_path": CWD + "/src/money.ts"})], inp=3, create=14500, outp=95)
# Parallel results: each hangs from the record of its own call.
result("r01", pa, "toolu_read1", "     1\texport function cartTotal(items) {\n     2\t  return items.reduce((s, i) => s + i.price * i.qty, 0)\n     3\t}\n", tur={"type": "text", "file": {"filePath": CWD + "/src/cart.ts", "content": "…", "numLines": 3}})
p = result("r02", pb, "toolu_read2", "     1\texport const toCents = (x) => Math.round(x * 100)\n")
p = asst("a05", p, "msg_02", [{"type": "text", "text": "The total multiplies float prices. I'll switch it to cents."},
                               tool("toolu_edit1", "Edit", {"file_path": CWD + "/src/cart.ts", "old_string": "i.price * i.qty", "new_string": "toCents(i.price) * i.qty"})], inp=5, read=14500, create=900, outp=120)
p = result("r03", p, "toolu_edit1", "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", err=True)
p = asst("a06", p, "msg_03", [tool("toolu_edit2", "Edit", {"file_path": CWD + "/src/cart.ts", "old_string": "i.price * i.qty", "new_string": "toCents(i.price) * i.qty"})], inp=5, read=15400, create=300, outp=90)
p = result("r04", p, "toolu_edit2", "The file " + CWD + "/src/cart.ts has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     2\t  return items.reduce((s, i) => s + toCents(i.price) * i.qty, 0)")
p = asst("a07", p, "msg_04", [tool("toolu_write1", "Write", {"file_path": CWD + "/src/cart.test.ts", "content": "import { cartTotal } from './cart'\ntest('2400 items', () => expect(cartTotal(big)).toBe(240000))\n"})], inp=5, read=15700, create=400, outp=150)
p = result("r05", p, "toolu_write1", "File created successfully at: " + CWD + "/src/cart.test.ts", tur={"type": "create", "filePath": CWD + "/src/cart.test.ts", "content": "…"})
p = asst("a08", p, "msg_05", [tool("toolu_bash1", "Bash", {"command": "npm test -- cart", "description": "Run the cart tests"})], inp=5, read=16100, create=200, outp=60)
p = result("r06", p, "toolu_bash1", "Exit code 1\nFAIL src/cart.test.ts\n  ReferenceError: big is not defined", err=True)
# A rewind: the user edits the next message; the first version is abandoned.
old = user("u02", p, "hm, try again")
asst("a09", old, "msg_06", [{"type": "text", "text": "Retrying."}], inp=5, read=16300, outp=10)
p = user("u03", p, [{"type": "text", "text": "Define `big` in the test: 2,400 items at $1.00. Here is the failing screen:"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}])
p = asst("a10", p, "msg_07", [tool("toolu_edit3", "Edit", {"file_path": CWD + "/src/cart.test.ts", "old_string": "test(", "new_string": "const big = Array(2400).fill({ price: 1, qty: 1 })\ntest("})], inp=5, read=16500, create=1500, outp=110)
p = result("r07", p, "toolu_edit3", "The file " + CWD + "/src/cart.test.ts has been updated.")
p = asst("a11", p, "msg_08", [tool("toolu_bash2", "Bash", {"command": "npm test -- cart", "description": "Run the cart tests"})], inp=5, read=18000, create=200, outp=60)
p = result("r08", p, "toolu_bash2", "PASS src/cart.test.ts\nTests: 1 passed")
last = asst("a12", p, "msg_09", [{"type": "text", "text": "The test passes: `cartTotal` now sums integer cents (src/cart.ts), and src/cart.test.ts covers 2,400 items."}], inp=5, read=18200, create=100, outp=45)
# The first compaction: automatic.
cb = rec("system", "cb1", None, logicalParentUuid=last, subtype="compact_boundary", content="Conversation compacted",
         isMeta=False, level="info", compactMetadata={"trigger": "auto", "preTokens": 18305})
summary1 = ("This session is being continued from a previous conversation that ran out of context. "
            "The conversation is summarized below:\n"
            "Analysis:\nThe user reported a wrong cart total for large carts and asked for integer cents.\n\n"
            "Summary:\n1. Primary request: fix `cartTotal` in src/cart.ts for carts over 2,400 items, using integer cents, never floats.\n"
            "2. Files: src/cart.ts (edited to sum toCents(price) * qty), src/cart.test.ts (created; defines `big`).\n"
            "3. Errors: the first edit failed (file not read yet); `npm test -- cart` failed with exit 1 (ReferenceError: big is not defined), then passed.\n"
            "4. Current work: the cart test passes.\n")
p = user("cs1", cb, summary1, isCompactSummary=True, isVisibleInTranscriptOnly=True)
p = user("u04", p, "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.", isMeta=True)
p = user("u05", p, "Now round the tax to the nearest cent in src/tax.ts; the rate is 8.25%.")
p = asst("a13", p, "msg_10", [tool("toolu_bash3", "Bash", {"command": "ls src", "description": "List source files"})], inp=4, create=9000, outp=30)
p = result("r09", p, "toolu_bash3", "cart.ts\ncart.test.ts\nmoney.ts\ntax.ts")
p = asst("a14", p, "msg_11", [tool("toolu_grep1", "Grep", {"pattern": "rate", "path": CWD + "/src"})], inp=4, read=9000, create=80, outp=30)
p = result("r10", p, "toolu_grep1", "Found 1 file\n" + CWD + "/src/tax.ts")
p = asst("a15", p, "msg_12", [tool("toolu_edit4", "MultiEdit", {"file_path": CWD + "/src/tax.ts", "edits": [{"old_string": "rate * x", "new_string": "Math.round(rate * x)"}]})], inp=4, read=9100, create=90, outp=70)
p = result("r11", p, "toolu_edit4", "Applied 1 edit to " + CWD + "/src/tax.ts")
p = user("u06", p, [{"type": "text", "text": "[Request interrupted by user]"}])
p = user("u07", p, "Also keep the old float path behind a flag? No: remove it.")
last = asst("a16", p, "msg_13", [{"type": "text", "text": "Removed the float path; tax is rounded to the cent in src/tax.ts."}], inp=4, read=9300, create=60, outp=30)
cb = rec("system", "cb2", None, logicalParentUuid=last, subtype="compact_boundary", content="Conversation compacted",
         isMeta=False, level="info", compactMetadata={"trigger": "manual", "preTokens": 9420})
summary2 = ("This session is being continued from a previous conversation that ran out of context. "
            "The conversation is summarized below:\n"
            "Summary:\n1. Earlier: cart totals in integer cents (src/cart.ts, src/cart.test.ts).\n"
            "2. Tax: src/tax.ts rounds rate * x to the nearest cent; the rate is 8.25%.\n"
            "3. The user asked to remove the float path; done.\n")
p = user("cs2", cb, [{"type": "text", "text": summary2}], isCompactSummary=True)
p = user("u08", p, "Thanks. Run the whole suite once.")
p = asst("a17", p, "msg_14", [tool("toolu_bash4", "Bash", {"command": "npm test", "description": "Run all tests"})], inp=4, create=6000, outp=20)
p = result("r12", p, "toolu_bash4", "Tests: 7 passed")
# A side chain inside the file (an older Task subagent): not the main thread.
out.append({"parentUuid": None, "isSidechain": True, "userType": "external", "cwd": CWD, "sessionId": SID, "version": "2.0.61", "type": "user", "uuid": "sc1", "timestamp": ts(), "message": {"role": "user", "content": "side chain prompt"}})
p = asst("a18", p, "msg_15", [{"type": "text", "text": "All 7 tests pass."}], inp=4, read=6000, create=40, outp=10)
out.append({"type": "summary", "summary": "Cart totals in cents", "leafUuid": "a18"})

d = "testdata/agents/claude-code"
with open(os.path.join(d, "synthetic-shop.jsonl"), "w") as f:
    for r in out:
        f.write(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n")

# A subagent session beside it, with a compaction of its own.
out = []
sub = os.path.join(d, "synthetic-shop", "subagents")
os.makedirs(sub, exist_ok=True)
def srec(kind, uuid, parent, **kw):
    r = {"parentUuid": parent, "isSidechain": True, "userType": "external", "cwd": CWD, "sessionId": SID,
         "agentId": "ab12cd34", "type": kind, "uuid": uuid, "timestamp": ts()}
    r.update(kw)
    out.append(r)
    return uuid
p = srec("user", "s01", None, message={"role": "user", "content": "Find every caller of toCents."})
p = srec("assistant", "s02", p, message={"id": "msg_s1", "role": "assistant", "model": "claude-haiku-4-5-20251001", "content": [tool("toolu_s1", "Grep", {"pattern": "toCents", "path": CWD})], "usage": {"input_tokens": 2, "cache_read_input_tokens": 3000, "cache_creation_input_tokens": 0, "output_tokens": 20}})
p = srec("user", "s03", p, message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_s1", "content": "src/cart.ts\nsrc/tax.ts"}]})
p = srec("assistant", "s04", p, message={"id": "msg_s2", "role": "assistant", "model": "claude-haiku-4-5-20251001", "content": [{"type": "text", "text": "Two callers: src/cart.ts and src/tax.ts."}], "usage": {"input_tokens": 2, "cache_read_input_tokens": 3100, "cache_creation_input_tokens": 0, "output_tokens": 12}})
cb = srec("system", "s05", None, logicalParentUuid=p, subtype="compact_boundary", content="Conversation compacted", compactMetadata={"trigger": "auto", "preTokens": 3120})
p = srec("user", "s06", cb, isCompactSummary=True, message={"role": "user", "content": "Summary: toCents is called from src/cart.ts and src/tax.ts."})
p = srec("assistant", "s07", p, message={"id": "msg_s3", "role": "assistant", "model": "claude-haiku-4-5-20251001", "content": [{"type": "text", "text": "Done."}], "usage": {"input_tokens": 2, "cache_read_input_tokens": 400, "cache_creation_input_tokens": 0, "output_tokens": 3}})
with open(os.path.join(sub, "agent-ab12cd34.jsonl"), "w") as f:
    for r in out:
        f.write(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n")
