#!/usr/bin/env python3
"""Writes testdata/agents/codex/rollout-2026-03-04T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl:
a Codex CLI rollout written for compact's tests (no licensed real rollout
with a compacted record was found), with every field the reader handles:
a local compaction (its summary in payload.message) and a remote one whose
output is encrypted. Run from the repository root."""
import json

SID = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
CWD = "/home/dev/relay"
out = []
sec = [0]
def ts():
    sec[0] += 3
    m, s = divmod(sec[0], 60)
    return "2026-03-04T10:%02d:%02d.000Z" % (m, s)
def rec(typ, payload):
    out.append({"timestamp": ts(), "type": typ, "payload": payload})
def item(**p): rec("response_item", p)
def user(text): item(type="message", role="user", content=[{"type": "input_text", "text": text}])
def say(text): item(type="message", role="assistant", content=[{"type": "output_text", "text": text}])
def call(cid, name, args): item(type="function_call", name=name, arguments=json.dumps(args), call_id=cid)
def output(cid, text): item(type="function_call_output", call_id=cid, output=text)
def tokens(inp, cached, outp, window=272000):
    rec("event_msg", {"type": "token_count", "info": {
        "total_token_usage": {"input_tokens": inp * 3, "cached_input_tokens": cached * 2, "output_tokens": outp * 3, "reasoning_output_tokens": 0, "total_tokens": inp * 3 + outp * 3},
        "last_token_usage": {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": outp, "reasoning_output_tokens": 0, "total_tokens": inp + outp},
        "model_context_window": window}, "rate_limits": None})

rec("session_meta", {"id": SID, "timestamp": "2026-03-04T10:00:00.000Z", "cwd": CWD, "originator": "codex_cli_rs", "cli_version": "0.46.0", "instructions": None, "source": "cli", "model_provider": "openai"})
item(type="message", role="user", content=[{"type": "input_text", "text": "<environment_context>\n  <cwd>" + CWD + "</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>"}])
rec("turn_context", {"cwd": CWD, "approval_policy": "on-request", "sandbox_policy": {"type": "workspace-write"}, "model": "gpt-5-codex", "effort": "medium", "summary": "auto"})
rec("event_msg", {"type": "user_message", "message": "The mail relay drops messages over 10 MB. Raise the limit to 25 MB in config/relay.toml and keep retries at 3.", "images": []})
user("The mail relay drops messages over 10 MB. Raise the limit to 25 MB in config/relay.toml and keep retries at 3.")
item(type="reasoning", summary=[{"type": "summary_text", "text": "**Finding the size limit**"}], content=None, encrypted_content="gAAAAABsynthetic")
call("call_a1", "shell", {"command": ["bash", "-lc", "rg -n max_size config"], "workdir": CWD, "timeout_ms": 120000})
tokens(9100, 2048, 180)
output("call_a1", json.dumps({"output": "config/relay.toml:4:max_size = \"10MB\"\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}))
item(type="reasoning", summary=[], content=None, encrypted_content="gAAAAABsynthetic2")
item(type="custom_tool_call", status="completed", call_id="call_a2", name="apply_patch",
     input="*** Begin Patch\n*** Update File: config/relay.toml\n@@\n-max_size = \"10MB\"\n+max_size = \"25MB\"\n*** Add File: docs/limits.md\n+# Limits\n+Messages up to 25 MB.\n*** End Patch\n")
tokens(9600, 9000, 240)
item(type="custom_tool_call_output", call_id="call_a2", output=json.dumps({"output": "Success. Updated the following files:\nM config/relay.toml\nA docs/limits.md\n", "metadata": {"exit_code": 0, "duration_seconds": 0.0}}))
call("call_a3", "shell", {"command": ["bash", "-lc", "cargo test -p relay"], "workdir": CWD})
tokens(9900, 9500, 60)
output("call_a3", json.dumps({"output": "error[E0308]: mismatched types\n --> src/limits.rs:12:5\n", "metadata": {"exit_code": 101, "duration_seconds": 3.2}}))
say("The size limit is raised, but `cargo test -p relay` fails with E0308 in src/limits.rs.")
tokens(10400, 9800, 40)
rec("event_msg", {"type": "agent_message", "message": "The size limit is raised, but `cargo test -p relay` fails with E0308 in src/limits.rs."})
user("Fix the type error; parse the size as bytes (u64).")
call("call_a4", "exec_command", {"cmd": "sed -n 1,30p src/limits.rs"})
tokens(11000, 10300, 50)
output("call_a4", "Chunk ID: 7f1c\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 40\nOutput:\nfn parse_size(s: &str) -> u32 {\n")
item(type="custom_tool_call", status="completed", call_id="call_a5", name="apply_patch",
     input="*** Begin Patch\n*** Update File: src/limits.rs\n*** Move to: src/size.rs\n@@\n-fn parse_size(s: &str) -> u32 {\n+fn parse_size(s: &str) -> u64 {\n*** Delete File: src/old_limits.rs\n*** End Patch\n")
tokens(11600, 10900, 120)
item(type="custom_tool_call_output", call_id="call_a5", output="Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM src/size.rs\nD src/old_limits.rs\n")
call("call_a6", "shell", {"command": ["bash", "-lc", "cargo test -p relay"], "workdir": CWD})
tokens(12000, 11500, 40)
output("call_a6", "Exit code: 0\nWall time: 4.1 seconds\nOutput:\ntest result: ok. 12 passed\n")
say("Fixed: `parse_size` returns u64 (src/size.rs) and `cargo test -p relay` passes.")
tokens(12400, 11900, 30)
# A local compaction: the summary is the message.
summary = ("Summary of the work so far:\n- The relay dropped messages over 10 MB; config/relay.toml now sets max_size = \"25MB\" (docs/limits.md added).\n"
           "- Retries stay at 3, as the user asked.\n- `cargo test -p relay` failed with E0308 in src/limits.rs; parse_size now returns u64 in src/size.rs (moved from src/limits.rs; src/old_limits.rs deleted) and the tests pass.\n")
rec("compacted", {"message": summary, "replacement_history": [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "The mail relay drops messages over 10 MB. Raise the limit to 25 MB in config/relay.toml and keep retries at 3."}]},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Another language model started to solve this problem and produced a summary of its thinking process.\n" + summary}]}]})
rec("event_msg", {"type": "context_compacted"})
user("Now add a test for a 24 MB message.")
call("call_b1", "shell", {"command": ["bash", "-lc", "cargo test -p relay big_message"], "workdir": CWD})
tokens(3100, 0, 80)
output("call_b1", "Exit code: 0\nOutput:\ntest result: ok. 1 passed\n")
say("Added and passing.")
tokens(3400, 3000, 20)
# A remote compaction: the model's output is encrypted.
rec("compacted", {"message": "", "replacement_history": [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Now add a test for a 24 MB message."}]},
    {"type": "compaction", "encrypted_content": "gAAAAABremote-synthetic"}]})
user("Thanks.")
say("You're welcome.")
tokens(900, 0, 5)

with open("testdata/agents/codex/rollout-2026-03-04T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl", "w") as f:
    for r in out:
        f.write(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n")
