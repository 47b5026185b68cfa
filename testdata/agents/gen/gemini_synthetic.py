#!/usr/bin/env python3
"""Writes testdata/agents/gemini-cli/: Gemini CLI chats built from its
ChatRecordingService (google-gemini/gemini-cli v0.56.0, commit b6e23a7dc29e:
packages/core/src/services/chatRecordingService.ts and chatRecordingTypes.ts,
the compression of context/chatCompressionService.ts, the environment
context of utils/environmentContext.ts), since no licensed real chat file
was found (the project's tests build theirs in code):

  session-2026-05-20T09-00-7c1e2a44.jsonl   v0.44+ JSONL: metadata line, the
      environment context as a checkpoint, messages written and written
      again (tool calls and tokens recorded after the text), function
      responses as user messages, $set lines, a $rewindTo, an info message,
      a compression (a checkpoint holding the <state_snapshot> summary, the
      model's "Got it." and copies of the kept messages) and the turns
      after it
  7c1e2a44-5d6f-4a8b-9c0d-1e2f3a4b5c6d/sub-1.jsonl   a subagent's chat
  session-2025-11-02T14-30-3f9a0b12.json     the v0.38-and-earlier JSON
      record: no compression recorded, tool results in toolCalls[].result

Run from the repository root."""
import json
import os

OUT = "testdata/agents/gemini-cli"
SID = "7c1e2a44-5d6f-4a8b-9c0d-1e2f3a4b5c6d"
PHASH = "9d2f1c6e0b7a4b3c8e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9"
CWD = "/home/dev/api"
sec = [0]


def ts():
    sec[0] += 2
    m, s = divmod(sec[0], 60)
    return "2026-05-20T09:%02d:%02d.000Z" % (m, s)


lines = []


def w(obj):
    lines.append(json.dumps(obj, separators=(",", ":")))


ENV = ("<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
       "Today's date is Wednesday, May 20, 2026 (formatted according to the user's locale).\n"
       "My operating system is: linux\n"
       "The project's temporary directory is: /home/dev/.gemini/tmp/api\n"
       "- **Workspace Directories:**\n  - " + CWD + "\n- **Directory Structure:**\n\n" + CWD + "/\n├───go.mod\n└───handlers/\n\n\n</session_context>")


def msg(mid, typ, content, **kw):
    m = {"id": mid, "timestamp": ts(), "type": typ, "content": content}
    m.update(kw)
    return m


def tokens(inp, out, cached=0, thoughts=0):
    return {"input": inp, "output": out, "cached": cached, "thoughts": thoughts, "tool": 0, "total": inp + out + thoughts}


def fr(cid, name, output=None, error=None):
    resp = {"output": output} if error is None else {"error": error}
    return {"functionResponse": {"id": cid, "name": name, "response": resp}}


def call(cid, name, args, result, status="success", display=None):
    return {"id": cid, "name": name, "args": args, "result": result, "status": status, "timestamp": ts(),
            "displayName": name, "description": "", "resultDisplay": display, "renderOutputAsMarkdown": False}


w({"sessionId": SID, "projectHash": PHASH, "startTime": "2026-05-20T09:00:00.000Z", "lastUpdated": "2026-05-20T09:00:00.000Z", "kind": "main"})
env = msg("b8e3c1d0-env", "user", [{"text": ENV}])
w({"$set": {"messages": [env], "lastUpdated": ts()}})
u1 = msg("u1", "user", [{"text": "The /health handler returns 500 when the database is down. Make it return 503 with a JSON body, and keep the handler under 30 lines."}],
         displayContent=[{"text": "The /health handler returns 500 when the database is down. Make it return 503 with a JSON body, and keep the handler under 30 lines."}])
w(u1)
w({"$set": {"lastUpdated": ts()}})
# The model's text first, then its tool calls (the same id written again),
# then its tokens.
g1 = msg("g1", "gemini", "I'll look at the handler.", thoughts=[{"subject": "Locating the handler", "description": "The health route is probably in handlers/health.go.", "timestamp": ts()}], tokens=None, model="gemini-3-pro-preview")
w(g1)
c1 = call("read_file-1", "read_file", {"file_path": CWD + "/handlers/health.go"},
          [fr("read_file-1", "read_file", output="package handlers\n\nfunc Health(w http.ResponseWriter, r *http.Request) {\n\tif err := db.Ping(); err != nil {\n\t\thttp.Error(w, err.Error(), 500)\n\t}\n}\n")])
c2 = call("run_shell_command-2", "run_shell_command", {"command": "go test ./handlers/...", "description": "Run the handler tests"},
          [fr("run_shell_command-2", "run_shell_command", output="Output: --- FAIL: TestHealthDown (0.00s)\n    health_test.go:21: got 500, want 503\nFAIL\nExit Code: 1")])
g1 = dict(g1, toolCalls=[c1, c2])
w(g1)
g1 = dict(g1, tokens=tokens(8200, 96, cached=4096, thoughts=210))
w(g1)
w(msg("r1", "user", [c1["result"][0], c2["result"][0]]))
g2 = msg("g2", "gemini", "", model="gemini-3-pro-preview", thoughts=[], tokens=tokens(8800, 180, cached=8000))
c3 = call("replace-3", "replace", {"file_path": CWD + "/handlers/health.go", "old_string": "http.Error(w, err.Error(), 500)", "new_string": "w.WriteHeader(503)\n\t\tjson.NewEncoder(w).Encode(map[string]string{\"status\": \"down\"})"},
          [fr("replace-3", "replace", output="Successfully modified file: " + CWD + "/handlers/health.go (1 replacements).")])
g2 = dict(g2, toolCalls=[c3])
w(g2)
w(msg("r2", "user", [c3["result"][0]]))
# A turn the user rewound: the message and the answer dropped.
w(msg("u-bad", "user", [{"text": "Also delete the tests."}]))
w(msg("g-bad", "gemini", "Deleting handlers/health_test.go.", model="gemini-3-pro-preview", tokens=tokens(9000, 20, cached=8700)))
w({"$rewindTo": "u-bad"})
w(msg("i1", "info", "Request cancelled."))
u2 = msg("u2", "user", [{"text": "Run the tests again."}])
w(u2)
c4 = call("run_shell_command-4", "run_shell_command", {"command": "go test ./handlers/..."},
          [fr("run_shell_command-4", "run_shell_command", output="Output: ok  \texample.com/api/handlers\t0.012s")])
g3 = msg("g3", "gemini", "", model="gemini-3-pro-preview", tokens=tokens(9400, 60, cached=9000), toolCalls=[c4])
w(g3)
w(msg("r3", "user", [c4["result"][0]]))
g4 = msg("g4", "gemini", "The handler now answers 503 with {\"status\": \"down\"}; the tests pass.", model="gemini-3-pro-preview", tokens=tokens(9600, 40, cached=9400))
w(g4)
u3 = msg("u3", "user", [{"text": "Add a Retry-After header of 30 seconds."}])
w(u3)
# The compression (/compress or the 50% threshold): the chat restarts with
# the environment context, the summary, the model's acknowledgement and
# copies of the newest 30% (here u3), each with a new id.
SNAP = ("<scratchpad>The user wants /health to return 503 when the DB is down.</scratchpad>\n"
        "<state_snapshot>\n    <overall_goal>\n        Make GET /health return 503 with a JSON body when the database is down.\n    </overall_goal>\n"
        "    <active_constraints>\n        - Keep the handler under 30 lines.\n    </active_constraints>\n"
        "    <key_knowledge>\n        - Tests: `go test ./handlers/...`\n    </key_knowledge>\n"
        "    <artifact_trail>\n        - `handlers/health.go`: 500 replaced by 503 and {\"status\": \"down\"}.\n    </artifact_trail>\n"
        "    <file_system_state>\n        - CWD: `" + CWD + "`\n        - MODIFIED: `handlers/health.go`\n    </file_system_state>\n"
        "    <recent_actions>\n        - `go test ./handlers/...` failed (got 500, want 503), then passed after the edit.\n    </recent_actions>\n"
        "    <task_state>\n        1. [DONE] Return 503 with a JSON body.\n        2. [TODO] Add a Retry-After header of 30 seconds. <-- CURRENT FOCUS\n    </task_state>\n</state_snapshot>")
w({"$set": {"messages": [
    env,
    msg("s1", "user", [{"text": SNAP}]),
    msg("s1-ack", "gemini", [{"text": "Got it. Thanks for the additional context!"}]),
    msg("u3-copy", "user", [{"text": "Add a Retry-After header of 30 seconds."}]),
], "lastUpdated": ts()}})
g5 = msg("g5", "gemini", "", model="gemini-3-pro-preview", tokens=tokens(2100, 70, cached=0))
c5 = call("replace-5", "replace", {"file_path": CWD + "/handlers/health.go", "old_string": "w.WriteHeader(503)", "new_string": "w.Header().Set(\"Retry-After\", \"30\")\n\t\tw.WriteHeader(503)"},
          None, status="error", display="Failed to edit: the file changed on disk")
g5 = dict(g5, toolCalls=[c5])
w(g5)
w(msg("r5", "user", [fr("replace-5", "replace", error="Failed to edit, 0 occurrences found for old_string in " + CWD + "/handlers/health.go.")]))
g6 = msg("g6", "gemini", "The edit failed; I'll read the file again before retrying.", model="gemini-3-pro-preview", tokens=tokens(2400, 30, cached=2000))
w(g6)
w(msg("e1", "error", "[API Error: quota exceeded]"))

os.makedirs(OUT + "/" + SID, exist_ok=True)
with open(OUT + "/session-2026-05-20T09-00-7c1e2a44.jsonl", "w") as f:
    f.write("\n".join(lines) + "\n")

# The subagent's chat, under the parent's session id.
sub = [
    {"sessionId": "sub-1", "projectHash": PHASH, "startTime": "2026-05-20T09:01:00.000Z", "lastUpdated": "2026-05-20T09:01:10.000Z", "kind": "subagent", "directories": [CWD]},
    msg("su1", "user", [{"text": "Find every caller of db.Ping."}]),
    msg("sg1", "gemini", "Only handlers/health.go calls db.Ping.", model="gemini-3-flash-preview", tokens=tokens(3000, 20)),
]
with open(OUT + "/" + SID + "/sub-1.jsonl", "w") as f:
    f.write("\n".join(json.dumps(x, separators=(",", ":")) for x in sub) + "\n")

# A chat of v0.38 and earlier: one JSON record, rewritten whole.
sec[0] = 0
legacy = {
    "sessionId": "3f9a0b12-7788-4c1d-9e2f-0a1b2c3d4e5f",
    "projectHash": PHASH,
    "startTime": "2025-11-02T14:30:00.000Z",
    "lastUpdated": "2025-11-02T14:35:00.000Z",
    "messages": [
        msg("l-u1", "user", [{"text": "List the TODOs in the repo."}]),
        msg("l-g1", "gemini", "", model="gemini-2.5-pro", tokens=tokens(5000, 40, cached=0, thoughts=12),
            thoughts=[{"subject": "Searching", "description": "A grep for TODO will do.", "timestamp": ts()}],
            toolCalls=[call("grep_search-1", "grep_search", {"pattern": "TODO", "dir_path": CWD},
                            [fr("grep_search-1", "grep_search", output="Found 2 matches:\nhandlers/health.go:3: // TODO: 503\nmain.go:9: // TODO: graceful shutdown")]),
                       call("run_shell_command-2", "run_shell_command", {"command": "wc -l main.go"}, None, status="cancelled", display="Command was cancelled by user.")]),
        msg("l-g2", "gemini", "Two TODOs: handlers/health.go:3 and main.go:9.", model="gemini-2.5-pro", tokens=tokens(5300, 25, cached=4900)),
        msg("l-i1", "info", "Compressing chat history…"),
    ],
}
with open(OUT + "/session-2025-11-02T14-30-3f9a0b12.json", "w") as f:
    json.dump(legacy, f, indent=2)
    f.write("\n")
