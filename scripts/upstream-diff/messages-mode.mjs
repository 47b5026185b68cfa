// Makes the "messages" variant of the upstream extraction script, as the
// conformance corpus describes it (testdata/conformance/README.md, "The two
// modes"): the instance query selects only id and title, and each chat's
// messages are read from agentMessages ordered by seq, each row becoming
// {id: message_id, role, parts: superjson(parts), metadata: NULL ? null :
// superjson(metadata)}; a row that fails to parse skips the chat with the
// history mode's warning. Everything else is the upstream script unchanged.
//
//   node messages-mode.mjs <upstream script.ts> <output .ts>
//
// It edits by exact text replacement and fails if an anchor is missing.
import fs from 'node:fs';

const [src, dst] = process.argv.slice(2);
let text = fs.readFileSync(src, 'utf8');

function replaceOnce(from, to) {
  const i = text.indexOf(from);
  if (i < 0 || text.indexOf(from, i + 1) >= 0) {
    console.error(`messages-mode: anchor not found exactly once: ${JSON.stringify(from)}`);
    process.exit(1);
  }
  text = text.slice(0, i) + to + text.slice(i + from.length);
}

replaceOnce(
  "SELECT json_object('id', id, 'title', title, 'history', history) FROM agentInstances",
  "SELECT json_object('id', id, 'title', title) FROM agentInstances",
);
replaceOnce(
  'messages = superjson.parse<AgentMessage[]>(row.history);',
  'messages = readAgentMessages(dbPath, row.id);',
);
replaceOnce(
  "import superjson from 'superjson';",
  `import superjson from 'superjson';
import { execFileSync } from 'node:child_process';

// upstream-diff: the messages of one chat from agentMessages, in seq order.
function readAgentMessages(dbPath: string, id: string): AgentMessage[] {
  const q =
    "SELECT json_object('id', message_id, 'role', role, 'parts', parts, 'metadata', metadata) " +
    "FROM agentMessages WHERE agent_instance_id='" + String(id).replace(/'/g, "''") + "' ORDER BY seq;";
  const out = execFileSync('sqlite3', [dbPath, q], { maxBuffer: 500 * 1024 * 1024 }).toString();
  return out
    .split('\\n')
    .filter(Boolean)
    .map((line) => {
      const r = JSON.parse(line);
      return {
        id: r.id,
        role: r.role,
        parts: superjson.parse(r.parts),
        metadata: r.metadata === null ? null : superjson.parse(r.metadata),
      } as AgentMessage;
    });
}`,
);
fs.writeFileSync(dst, text);
