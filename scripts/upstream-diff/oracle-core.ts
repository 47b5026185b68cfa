// Function-level oracle of the agent-core layout (1.5 on; see oracle.ts for
// the browser-app one). setup.sh copies it into the upstream tree
// (scripts/experiments/ud-oracle.ts); run it through oracle.sh.
//
// Input: JSON lines on stdin. Output: one JSON line per input line, in order,
// carrying the input's "name" (if any) and either the result or
// {"error": "<thrown message>"}. The serializer's host is the environment's
// UD_HOST: "none" (default: no host, as the extraction script passes) or
// "browser" (the app's host, through the shim of host-shim.mjs); a line's
// own "host" field wins. Operations ("op", default "serialize"):
//
//   serialize    {raw}  convertAgentMessagesToCompactMessageHistoryString
//                (raw: superjson text of the message array; a resolvedSlash
//                field is ignored: this layout has no slash commands)
//                -> {expected, expectedLen16, host}
//   estimate     {raw}  estimateMessageTokens(superjson.parse(raw))
//   estimateEach {raw}  estimateMessageTokens of each element of an array
//   userMessage  {compactHistory, previousBriefingChars}  buildCompressionUserMessage
//   parse        {raw}  superjson.parse(raw), printed with JSON.stringify
import readline from 'node:readline';
import superjson from 'superjson';
import {
  convertAgentMessagesToCompactMessageHistoryString,
  estimateMessageTokens,
} from '../../packages/agent-core/src/agents/shared/history-compression/serialization';
import { buildCompressionUserMessage } from '../../packages/agent-core/src/agents/shared/history-compression/prompt';
import { udHost } from './ud-host';

function num(n: number): number | string {
  return Number.isFinite(n) && !Object.is(n, -0) ? n : String(n);
}

async function run(v: any): Promise<any> {
  switch (v.op ?? 'serialize') {
    case 'serialize': {
      const host = v.host ?? process.env.UD_HOST ?? 'none';
      if (host !== 'none' && host !== 'browser') throw new Error(`unknown host ${host}`);
      const msgs = superjson.parse<any>(v.raw);
      const out = convertAgentMessagesToCompactMessageHistoryString(msgs, host === 'browser' ? udHost : undefined);
      return { expected: out, expectedLen16: out.length, host };
    }
    case 'estimate':
      return { expected: num(estimateMessageTokens(superjson.parse<any>(v.raw))) };
    case 'estimateEach': {
      const msgs = superjson.parse<any>(v.raw);
      if (!Array.isArray(msgs)) throw new Error('not an array');
      return { expected: msgs.map((m) => num(estimateMessageTokens(m))) };
    }
    case 'userMessage': {
      const out = buildCompressionUserMessage(v.compactHistory, v.previousBriefingChars);
      return { expected: out, expectedLen16: out.length };
    }
    case 'parse':
      return { expected: JSON.stringify(superjson.parse(v.raw)) ?? 'undefined' };
    default:
      throw new Error(`unknown op ${v.op} (the agent-core layout has serialize, estimate, estimateEach, userMessage, parse)`);
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
