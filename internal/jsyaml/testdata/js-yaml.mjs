// Reads JSON lines {"input": "..."} on stdin and prints, for each, what
// js-yaml's safeLoad gives, in the canonical shape of canon_test.go.
// Usage: JSYAML=/path/to/node_modules/js-yaml node js-yaml.mjs < in.jsonl
import { createRequire } from 'node:module';
import readline from 'node:readline';
const require = createRequire(import.meta.url);
const yaml = require(process.env.JSYAML);

function canon(v, depth) {
  if (depth > 20) return '…';
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' && /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/.test(v)) {
    return { lone: [...Array(v.length).keys()].map((i) => v.charCodeAt(i)) };
  }
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return { n: String(v) };
  if (v instanceof Date) return { date: isNaN(v.getTime()) ? 'NaN' : v.getTime() };
  if (Buffer.isBuffer(v)) return { bin: [...v] };
  if (Array.isArray(v)) return v.map((e) => canon(e, depth + 1));
  const keys = Object.keys(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { o: keys.map((k) => [k, canon(v[k], depth + 1)]) };
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line) continue;
  const { input } = JSON.parse(line);
  let out;
  try {
    out = { value: canon(yaml.safeLoad(input), 0) };
  } catch (e) {
    out = { error: true };
  }
  // Go's sort is by bytes, JavaScript's by UTF-16 units: the same for the
  // keys the tests use.
  process.stdout.write(JSON.stringify(out) + '\n');
}
