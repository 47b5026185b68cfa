// Function-level oracle: calls the upstream functions the extraction uses and
// prints what they return. setup.sh copies this file into the upstream tree
// (scripts/experiments/ud-oracle.ts) so that its imports resolve there; run it
// through oracle.sh.
//
// Input: JSON lines on stdin. Output: one JSON line per input line, in order,
// carrying the input's "name" (if any) and either the result or
// {"error": "<thrown message>"}. Operations ("op", default "serialize"):
//
//   serialize  {raw, resolvedSlash}  convertAgentMessagesToCompactMessageHistoryString
//              raw: superjson text of the message array; resolvedSlash: null
//              (option not passed), [] (empty Map) or [{id, displayName, content}]
//              -> {expected, expectedLen16}
//   estimate   {raw}  estimateMessageTokens(superjson.parse(raw))
//              -> {expected: integer | "NaN" | "Infinity" | ...}
//   estimateEach {raw}  estimateMessageTokens of each element of a message
//              array -> {expected: [estimates]}
//   slashIds   {raw}  the extraction script's slash-id scan of a message array:
//              for each user message with an array of parts,
//              extractSlashIdsFromText(parts); unique ids in first-seen order
//              -> {expected: [ids]}
//   skills     {dir | files, ids}  (files: {relative path: text}, written to a
//              temporary directory)  the extraction's skill loading on <dir>/skills and
//              <dir>/plugins with discoverSkills (ids command:<name lower-cased>
//              and plugin:<dir basename>:<name>), then resolveSlashSkill for each
//              id -> {expected: {skills: [{id, displayName, description, contentPath}],
//              resolved: [{id, displayName, content} | null]}} (contentPath
//              relative to dir)
//   userMessage {compactHistory, previousBriefingChars}  buildCompressionUserMessage
//              of the prompt module in the tree (the conformance placeholder)
//   parse      {raw}  superjson.parse(raw), printed with JSON.stringify (for debugging)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import superjson from 'superjson';
import {
  convertAgentMessagesToCompactMessageHistoryString,
  estimateMessageTokens,
} from '../../apps/browser/src/backend/agents/shared/base-agent/history-compression/serialization';
import { buildCompressionUserMessage } from '../../apps/browser/src/backend/agents/shared/base-agent/history-compression/prompt';
import { discoverSkills } from '../../apps/browser/src/backend/agents/shared/prompts/utils/get-skills';
import {
  extractSlashIdsFromText,
  resolveSlashSkill,
} from '../../apps/browser/src/backend/agents/shared/prompts/utils/metadata-converter/slash-items';

function num(n: number): number | string {
  return Number.isFinite(n) && !Object.is(n, -0) ? n : String(n);
}

async function loadSkills(root: string) {
  if (!fs.existsSync(root)) return [];
  const [b, p] = await Promise.all([
    discoverSkills(path.join(root, 'skills')),
    discoverSkills(path.join(root, 'plugins')),
  ]);
  return [
    ...b.map((s) => ({
      id: `command:${s.name.toLowerCase()}`,
      displayName: s.name,
      description: s.description,
      contentPath: `${s.path}/SKILL.md`,
    })),
    ...p.map((s) => ({
      id: `plugin:${path.basename(s.path)}:${s.name}`,
      displayName: s.name,
      description: s.description,
      contentPath: `${s.path}/SKILL.md`,
    })),
  ];
}

async function run(v: any): Promise<any> {
  switch (v.op ?? 'serialize') {
    case 'serialize': {
      const msgs = superjson.parse<any>(v.raw);
      const out =
        v.resolvedSlash == null
          ? convertAgentMessagesToCompactMessageHistoryString(msgs)
          : convertAgentMessagesToCompactMessageHistoryString(msgs, {
              resolvedSlash: new Map(
                (v.resolvedSlash as any[]).map((c) => [c.id, c]),
              ),
            });
      return { expected: out, expectedLen16: out.length };
    }
    case 'estimate':
      return { expected: num(estimateMessageTokens(superjson.parse<any>(v.raw))) };
    case 'estimateEach': {
      const msgs = superjson.parse<any>(v.raw);
      if (!Array.isArray(msgs)) throw new Error('not an array');
      return { expected: msgs.map((m) => num(estimateMessageTokens(m))) };
    }
    case 'slashIds': {
      const msgs = superjson.parse<any>(v.raw);
      const ids = new Set<string>();
      for (const m of msgs) {
        if (m.role !== 'user' || !Array.isArray(m.parts)) continue;
        for (const id of extractSlashIdsFromText(m.parts)) ids.add(id);
      }
      return { expected: [...ids] };
    }
    case 'skills': {
      let dir = v.dir;
      if (v.files) {
        // materialize {relative path: text} in a fresh directory
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ud-skills-'));
        for (const [rel, text] of Object.entries(v.files as Record<string, string>)) {
          fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
          fs.writeFileSync(path.join(dir, rel), text);
        }
      }
      const root = path.resolve(dir);
      const skills = await loadSkills(root);
      const resolved = [];
      for (const id of v.ids ?? []) {
        resolved.push(await resolveSlashSkill(id, skills as any));
      }
      return {
        expected: {
          skills: skills.map((s) => ({
            ...s,
            contentPath: path.relative(root, s.contentPath),
          })),
          resolved,
        },
      };
    }
    case 'userMessage': {
      const out = buildCompressionUserMessage(v.compactHistory, v.previousBriefingChars);
      return { expected: out, expectedLen16: out.length };
    }
    case 'parse':
      return { expected: JSON.stringify(superjson.parse(v.raw)) ?? 'undefined' };
    default:
      throw new Error(`unknown op ${v.op}`);
  }
}

async function main() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    let v: any;
    let res: any;
    try {
      v = JSON.parse(line);
      res = await run(v);
    } catch (e: any) {
      res = { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
    }
    process.stdout.write(JSON.stringify({ name: v?.name, ...res }) + '\n');
  }
}

main();
