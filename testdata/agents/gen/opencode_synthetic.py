#!/usr/bin/env python3
"""Writes testdata/agents/opencode/: one OpenCode session in the three forms
compact reads, built from OpenCode's own record shapes (the types of
@opencode-ai/sdk 1.19.3, the JSON storage layout, the database schema of
session.sql.ts and what `opencode export` prints), since no licensed real
OpenCode session with a compaction was found:

  storage/          the JSON storage (project/, session/<project>/<id>.json,
                    message/<session>/<id>.json, part/<message>/<id>.json)
  opencode.db       the same sessions in the SQLite database
  export.json       `opencode export ses_synthetic_main`

The main session has: a user message with an image, assistant messages of
two steps (reasoning, text, tool calls with their state, step-finish parts
with the tokens), a bash call failing with exit 1 and its fix, a read whose
output the prune cleared (state.time.compacted), a task call whose
subagent session is a child session, an automatic compaction (a user
message with a compaction part and tail_start_id, the compaction agent's
summary message, the synthetic "continue" message), a failed compaction
(its summary message holds an error), and a manual compaction without a
tail. Run from the repository root."""
import json
import os
import shutil
import sqlite3

OUT = "testdata/agents/opencode"
PROJECT = "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"
CWD = "/home/dev/shop"
MAIN = "ses_synthetic_main"
CHILD = "ses_synthetic_child"
T0 = 1767225600000  # 2026-01-01T00:00:00Z
clock = [T0]


def now(step=1000):
    clock[0] += step
    return clock[0]


counter = [0]


def mid():
    counter[0] += 1
    return "msg_%012x%04d" % (clock[0], counter[0])


def pid():
    counter[0] += 1
    return "prt_%012x%04d" % (clock[0], counter[0])


sessions = {MAIN: [], CHILD: []}  # session -> [(info, parts)]


def tokens(inp, out, read=0, write=0, reasoning=0):
    return {"input": inp, "output": out, "reasoning": reasoning, "cache": {"read": read, "write": write}}


def user(sid, texts, files=(), compaction=None, synthetic=False):
    m = {"id": mid(), "sessionID": sid, "role": "user", "time": {"created": now()},
         "agent": "build", "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}}
    parts = []
    for t in texts:
        p = {"id": pid(), "sessionID": sid, "messageID": m["id"], "type": "text", "text": t}
        if synthetic:
            p["synthetic"] = True
        parts.append(p)
    for f in files:
        parts.append(dict({"id": pid(), "sessionID": sid, "messageID": m["id"], "type": "file"}, **f))
    if compaction is not None:
        parts.append(dict({"id": pid(), "sessionID": sid, "messageID": m["id"], "type": "compaction"}, **compaction))
    sessions[sid].append((m, parts))
    return m["id"]


def assistant(sid, parent, steps, summary=False, error=None, finish="stop"):
    """steps: a list of (parts, tokens); parts are dicts without ids."""
    m = {"id": mid(), "sessionID": sid, "role": "assistant", "time": {"created": now()},
         "parentID": parent, "modelID": "claude-sonnet-4-5", "providerID": "anthropic",
         "mode": "compaction" if summary else "build", "agent": "compaction" if summary else "build",
         "path": {"cwd": CWD, "root": CWD}, "cost": 0.01,
         "tokens": tokens(0, 0)}
    if summary:
        m["summary"] = True
    parts = []
    for body, tok in steps:
        parts.append({"id": pid(), "sessionID": sid, "messageID": m["id"], "type": "step-start", "snapshot": "4f1c2d"})
        for b in body:
            p = dict({"id": pid(), "sessionID": sid, "messageID": m["id"]}, **b)
            if p["type"] in ("text", "reasoning"):
                p["time"] = {"start": now(10), "end": now(10)}
            parts.append(p)
        if tok is not None:
            parts.append({"id": pid(), "sessionID": sid, "messageID": m["id"], "type": "step-finish",
                          "reason": "tool-calls" if any(b["type"] == "tool" for b in body) else "stop",
                          "snapshot": "4f1c2e", "cost": 0.004, "tokens": tok})
            m["tokens"] = tok
    if error is not None:
        m["error"] = error
    else:
        m["finish"] = finish
        m["time"]["completed"] = now(500)
    sessions[sid].append((m, parts))
    return m["id"]


def tool(name, call, inp, output=None, err=None, metadata=None, compacted=None, status=None, attachments=None):
    start = now(10)
    if err is not None:
        state = {"status": "error", "input": inp, "error": err, "time": {"start": start, "end": now(10)}}
        if metadata:
            state["metadata"] = metadata
    elif status:
        state = {"status": status, "input": inp, "time": {"start": start}}
    else:
        state = {"status": "completed", "input": inp, "output": output, "title": name,
                 "metadata": metadata or {}, "time": {"start": start, "end": now(10)}}
        if compacted:
            state["time"]["compacted"] = compacted
        if attachments:
            state["attachments"] = attachments
    return {"type": "tool", "callID": call, "tool": name, "state": state}


def text(t):
    return {"type": "text", "text": t}


def reasoning(t):
    return {"type": "reasoning", "text": t}


# --- the main session -----------------------------------------------------
u1 = user(MAIN, ["The checkout page shows prices without VAT. Add 19% VAT in src/cart.ts and keep the totals rounded to cents."],
          files=[{"mime": "image/png", "filename": "checkout.png", "url": "data:image/png;base64,iVBORw0KGgo="}])
read_call = "toolu_read_cart"
a1 = assistant(MAIN, u1, [
    ([reasoning("I should look at how the cart computes totals."),
      tool("read", read_call, {"filePath": CWD + "/src/cart.ts"},
           output="<file>\n00001| export function total(items: Item[]) {\n00002|   return items.reduce((s, i) => s + i.price, 0)\n00003| }\n</file>",
           compacted=None)],
     tokens(1200, 90, read=11000, write=2400)),
    ([text("The total is a plain sum. I'll add VAT and round."),
      tool("edit", "toolu_edit_cart", {"filePath": CWD + "/src/cart.ts", "oldString": "return items.reduce((s, i) => s + i.price, 0)", "newString": "return Math.round(items.reduce((s, i) => s + i.price, 0) * 1.19 * 100) / 100"},
           output="Edit applied successfully.")],
     tokens(300, 120, read=13400, write=0)),
])
u2 = user(MAIN, ["Run the tests."])
a2 = assistant(MAIN, u2, [
    ([tool("bash", "toolu_bash_1", {"command": "npm test", "description": "Run tests"},
           output="FAIL src/cart.test.ts\n  expected 11.9, received 11.899999\n", metadata={"exit": 1, "description": "Run tests"})],
     tokens(400, 60, read=13800)),
    ([text("A test fails on rounding; fixing with toFixed."),
      tool("edit", "toolu_edit_2", {"filePath": CWD + "/src/cart.ts", "oldString": "* 100) / 100", "newString": "* 100) / 100 + 0"},
           err="oldString not found in content"),
      tool("bash", "toolu_bash_2", {"command": "npm test", "description": "Run tests"},
           output="PASS src/cart.test.ts\n", metadata={"exit": 0})],
     tokens(500, 140, read=14300)),
])
u3 = user(MAIN, ["Ask a subagent to review the diff."])
a3 = assistant(MAIN, u3, [
    ([tool("task", "toolu_task", {"description": "Review the VAT change", "prompt": "Review src/cart.ts", "subagent_type": "general"},
           output="The change looks right; add a test for an empty cart.", metadata={"sessionId": CHILD})],
     tokens(600, 80, read=14900)),
    ([text("The reviewer suggests a test for an empty cart.")], tokens(200, 40, read=15600)),
])
# The prune (before the compaction) cleared the first read's output.
sessions[MAIN][1][1][2]["state"]["time"]["compacted"] = clock[0] + 500
# Automatic compaction keeping the last turn (u3, a3) verbatim.
c1 = user(MAIN, [], compaction={"auto": True, "overflow": False, "tail_start_id": u3})
assistant(MAIN, c1, [([text("## Goal\n\nAdd 19% VAT to the checkout total in src/cart.ts, rounded to cents.\n\n## Accomplished\n\n- src/cart.ts: total() multiplies by 1.19 and rounds.\n- `npm test` passes.\n\n## Relevant files / directories\n\n- src/cart.ts\n- src/cart.test.ts")],
                       tokens(16000, 210, read=0))], summary=True)
user(MAIN, ["Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed."], synthetic=True)
a4 = assistant(MAIN, sessions[MAIN][-1][0]["id"], [
    ([tool("write", "toolu_write", {"filePath": CWD + "/src/cart.empty.test.ts", "content": "test('empty', () => expect(total([])).toBe(0))"},
           output="Wrote file successfully.")], tokens(900, 70, read=2100, write=600)),
    ([text("Added the empty-cart test.")], tokens(100, 20, read=3000)),
])
# A compaction that failed.
c2 = user(MAIN, [], compaction={"auto": True})
assistant(MAIN, c2, [([], None)], summary=True,
          error={"name": "ContextOverflowError", "data": {"message": "prompt is too long"}})
u5 = user(MAIN, ["Now show the VAT line separately on the receipt."])
a5 = assistant(MAIN, u5, [
    ([tool("grep", "toolu_grep", {"pattern": "receipt", "path": CWD + "/src"}, output="src/receipt.ts:3: export function receipt"),
      tool("read", "toolu_read_receipt", {"filePath": CWD + "/src/receipt.ts"}, status="running")],
     tokens(1500, 90, read=3100)),
])
# A manual compaction (/compact), without a tail.
c3 = user(MAIN, [], compaction={"auto": False})
assistant(MAIN, c3, [([text("## Goal\n\nShow VAT separately on the receipt (src/receipt.ts); VAT is 19% and totals are rounded to cents (src/cart.ts).\n\n## Accomplished\n\n- VAT in total(), tests pass, empty-cart test added.\n- Started reading src/receipt.ts (interrupted).")],
                       tokens(5200, 160))], summary=True)
u6 = user(MAIN, ["Go on with the receipt."])
assistant(MAIN, u6, [([text("I'll reopen src/receipt.ts.")], tokens(800, 30, read=0, write=900))])

# --- the subagent's session --------------------------------------------------
cu = user(CHILD, ["Review src/cart.ts"])
assistant(CHILD, cu, [([tool("read", "toolu_child_read", {"filePath": CWD + "/src/cart.ts"}, output="<file>...</file>"),
                        text("The change looks right; add a test for an empty cart.")], tokens(3000, 50))])

infos = {
    MAIN: {"id": MAIN, "slug": "brave-otter", "version": "1.14.2", "projectID": PROJECT, "directory": CWD,
           "title": "Add VAT to the checkout", "time": {"created": T0, "updated": clock[0]}},
    CHILD: {"id": CHILD, "slug": "calm-heron", "version": "1.14.2", "projectID": PROJECT, "directory": CWD,
            "parentID": MAIN, "title": "Review the VAT change (@general subagent)", "time": {"created": T0 + 20000, "updated": T0 + 30000}},
}


def dump(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


shutil.rmtree(OUT + "/storage", ignore_errors=True)
for f in ("opencode.db", "export.json"):
    if os.path.exists(OUT + "/" + f):
        os.remove(OUT + "/" + f)
dump(OUT + "/storage/project/%s.json" % PROJECT, {"id": PROJECT, "worktree": CWD, "vcs": "git", "time": {"created": T0}})
for sid, msgs in sessions.items():
    dump(OUT + "/storage/session/%s/%s.json" % (PROJECT, sid), infos[sid])
    for m, parts in msgs:
        dump(OUT + "/storage/message/%s/%s.json" % (sid, m["id"]), m)
        for p in parts:
            dump(OUT + "/storage/part/%s/%s.json" % (m["id"], p["id"]), p)

dump(OUT + "/export.json", {"info": infos[MAIN],
                            "messages": [{"info": m, "parts": parts} for m, parts in sessions[MAIN]],
                            "todos": []})

# The database, as OpenCode's migrations create it (the columns compact
# reads, and the others of session.sql.ts).
db = sqlite3.connect(OUT + "/opencode.db")
db.executescript("""
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `sandboxes` text NOT NULL);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text,
  `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL, `version` text NOT NULL,
  `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer,
  `summary_diffs` text, `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL,
  `tokens_output` integer DEFAULT 0 NOT NULL, `tokens_reasoning` integer DEFAULT 0 NOT NULL,
  `tokens_cache_read` integer DEFAULT 0 NOT NULL, `tokens_cache_write` integer DEFAULT 0 NOT NULL,
  `revert` text, `permission` text, `agent` text, `model` text,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer,
  CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL,
  CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL,
  CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE);
CREATE TABLE `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL, `priority` text NOT NULL,
  `position` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
  PRIMARY KEY(`session_id`, `position`));
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
""")
db.execute("INSERT INTO project VALUES (?, ?, 'git', NULL, ?, ?, '[]')", (PROJECT, CWD, T0, T0))
for sid in (CHILD, MAIN):  # the subagent's session updated first
    i = infos[sid]
    db.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?)",
               (sid, PROJECT, i.get("parentID"), i["slug"], CWD, i["title"], i["version"], i["time"]["created"], i["time"]["updated"]))
    for m, parts in sessions[sid]:
        data = {k: v for k, v in m.items() if k not in ("id", "sessionID")}
        db.execute("INSERT INTO message VALUES (?,?,?,?,?)", (m["id"], sid, m["time"]["created"], m["time"]["created"], json.dumps(data)))
        for p in parts:
            pdata = {k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")}
            db.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (p["id"], m["id"], sid, m["time"]["created"], m["time"]["created"], json.dumps(pdata)))
db.commit()
db.execute("VACUUM")
db.close()
