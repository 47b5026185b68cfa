// Generates internal/history/testdata/superjson-golden.jsonl with the real
// superjson package: for each input text, what superjson.parse accepts and
// what JSON.stringify and String() give for the value. Developer tool, not
// run by the tests or CI:
//   (cd /tmp/sj && npm install superjson@2.2.6)
//   TZ=UTC NODE_PATH=/tmp/sj/node_modules node scripts/superjson-golden/gen.mjs > internal/history/testdata/superjson-golden.jsonl
import { createRequire } from 'node:module';
const require = createRequire(process.env.NODE_PATH + '/');
const SuperJSON = require('superjson');

const texts = [];
const add = (t) => texts.push(t);
const ser = (v) => add(JSON.stringify(SuperJSON.serialize(v)));

// Hand-written texts.
[
  '{"json":[]}', '{"json":{}}', '{"json":null}', 'null', '5', '"str"', '[]', '{}',
  '{"json":{"b":1,"a":2,"1":3,"0":4,"10":5,"01":6,"-1":7,"4294967294":8,"4294967295":9}}',
  '{"json":{"a":1,"a":2,"b":3}}',
  '{"json":[1.50,1e400,-1e400,-0,0.1,1e21,1e-7,123456789012345680000,5e-324,1.7976931348623157e308]}',
  '{"json":"\\ud800x\\udc00\\ud83d\\ude00"}',
  '{"json":"<>&\\u2028\\u2029\\u0000\\u001f\\u007f"}',
  '{"json":{"x":null},"meta":{"values":{"x":["undefined"]},"v":1}}',
  '{"json":[null,1],"meta":{"values":{"0":["undefined"]},"v":1}}',
  '{"json":{"a.b":"2020-01-01T00:00:00.000Z"},"meta":{"values":{"a\\\\.b":["Date"]},"v":1}}',
  '{"json":{"a.b":"2020-01-01T00:00:00.000Z"},"meta":{"values":{"a\\\\.b":["Date"]}}}',
  '{"json":{"d":"not a date"},"meta":{"values":{"d":["Date"]},"v":1}}',
  '{"json":{"d":"2020-01-01"},"meta":{"values":{"d":["Date"]},"v":1}}',
  '{"json":{"d":0},"meta":{"values":{"d":["Date"]},"v":1}}',
  '{"json":{"d":null},"meta":{"values":{"d":["Date"]},"v":1}}',
  '{"json":{"n":"NaN","i":"Infinity","m":"-Infinity","z":"-0"},"meta":{"values":{"n":["number"],"i":["number"],"m":["number"],"z":["number"]},"v":1}}',
  '{"json":{"b":"123"},"meta":{"values":{"b":["bigint"]},"v":1}}',
  '{"json":{"b":"1.5"},"meta":{"values":{"b":["bigint"]},"v":1}}',
  '{"json":{"x":1},"meta":{"values":{"x":["class","Foo"]},"v":1}}',
  '{"json":{"x":1},"meta":{"values":{"x":["custom","Foo"]},"v":1}}',
  '{"json":{"x":1},"meta":{"values":{"x":["symbol","Foo"]},"v":1}}',
  '{"json":{"x":1},"meta":{"values":{"x":["nope"]},"v":1}}',
  '{"json":{"x":[1,2,2]},"meta":{"values":{"x":["set"]},"v":1}}',
  '{"json":{"x":[[1,2],[1,3],["a",{"b":1}]]},"meta":{"values":{"x":["map"]},"v":1}}',
  '{"json":{"x":[1,2]},"meta":{"values":{"x":["map"]},"v":1}}',
  '{"json":{"r":"/a/gi"},"meta":{"values":{"r":["regexp"]},"v":1}}',
  '{"json":{"r":"/a/zz"},"meta":{"values":{"r":["regexp"]},"v":1}}',
  '{"json":{"e":{"name":"TypeError","message":"bad"}},"meta":{"values":{"e":["Error"]},"v":1}}',
  '{"json":{"e":{"message":"only"}},"meta":{"values":{"e":["Error"]},"v":1}}',
  '{"json":{"e":{"name":"","message":"m"}},"meta":{"values":{"e":["Error"]},"v":1}}',
  '{"json":{"u":"https://example.com/a?b=c#d"},"meta":{"values":{"u":["URL"]},"v":1}}',
  '{"json":{"u":"not a url"},"meta":{"values":{"u":["URL"]},"v":1}}',
  '{"json":{"t":[1,300,-1]},"meta":{"values":{"t":[["typed-array","Uint8Array"]]},"v":1}}',
  '{"json":{"t":[1.5,2]},"meta":{"values":{"t":[["typed-array","Float32Array"]]},"v":1}}',
  '{"json":{"a":{"x":1},"b":null},"meta":{"referentialEqualities":{"a":["b"]},"v":1}}',
  '{"json":{"a":{"x":1},"b":null},"meta":{"referentialEqualities":[["a.self"]],"v":1}}',
  '{"json":{"a":{"x":1},"b":null},"meta":{"referentialEqualities":[["b"],{"a":["c"]}],"v":1}}',
  '{"json":{"a":[1]},"meta":{"values":{"a.5":["undefined"]},"v":1}}',
  '{"json":{"a":1},"meta":{"values":{"__proto__":["undefined"]},"v":1}}',
  '{"json":{"a":1},"meta":{"values":{"x.y.z":["undefined"]},"v":1}}',
  '{"json":{"a":1},"meta":{"values":["undefined"],"v":1}}',
  '{"json":{"a":1},"meta":null}',
  '{"meta":{"values":{"a":["undefined"]}}}',
  '{"json":[1,"2",true,null,[3,[4]],{"a":1}],"meta":{"values":{"1":["number"]},"v":1}}',
  '{"json":{"a":"b"},"meta":{"values":"ab","v":1}}',
  '{"json":{"a\\\\b":1},"meta":{"values":{"a\\\\b":["undefined"]},"v":1}}',
  '{"json":{"a\\\\b":1},"meta":{"values":{"a\\\\b":["undefined"]}}}',
].forEach(add);

// Values serialized by superjson itself.
const e1 = new Error('boom'); e1.name = 'RangeError';
ser({ createdAt: new Date(Date.UTC(2026, 4, 20, 9, 0, 0, 512)), parts: [{ t: undefined }, undefined] });
ser({ m: new Map([[1, 'a'], ['k', new Date(0)]]), s: new Set([1, 'x', new Date(1)]), b: 12345678901234567890n });
ser({ e: e1, r: /x\/y[/]/gimsuy, u: new URL('https://a.example/p?q=1') });
ser({ n: [NaN, Infinity, -Infinity, -0, 0, 1.5], big: [1e21, 1e-7, 2 ** 53] });
const shared = { k: 1 }; ser({ a: shared, b: shared, c: [shared] });
const cyc = { name: 'c' }; cyc.self = cyc; ser(cyc);
ser(new Map([[new Date(5), new Set([undefined, null])]]));
ser({ typed: new Int16Array([1, -2, 40000]), f: new Float64Array([0.1]) });
ser([new Date(NaN).getTime(), new Date(-62198755200000)]);
ser({ 'a.b': { 'c\\d': new Date(3) } });

// Random values.
let seed = 42;
const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
const pick = (a) => a[Math.floor(rnd() * a.length)];
function gen(depth) {
  const r = rnd();
  if (depth > 3 || r < 0.35) {
    return pick([
      () => undefined, () => null, () => true, () => false, () => 0, () => -0, () => NaN, () => Infinity,
      () => Math.floor(rnd() * 1e6) / 100, () => rnd() * 1e25, () => rnd() * 1e-9,
      () => 'str' + Math.floor(rnd() * 100), () => 'é<&>"\'\n\t😀', () => '',
      () => BigInt(Math.floor(rnd() * 1e9)), () => new Date(Math.floor(rnd() * 2e12)),
      () => /ab+c/g, () => new URL('https://example.com/x' + Math.floor(rnd() * 9)),
    ])();
  }
  if (r < 0.55) return Array.from({ length: Math.floor(rnd() * 4) }, () => gen(depth + 1));
  if (r < 0.65) return new Set(Array.from({ length: Math.floor(rnd() * 3) }, () => gen(depth + 1)));
  if (r < 0.72) return new Map(Array.from({ length: Math.floor(rnd() * 3) }, (_, i) => [pick([i, 'k' + i, String(i)]), gen(depth + 1)]));
  if (r < 0.75) { const e = new Error('m' + depth); return e; }
  const o = {};
  const n = Math.floor(rnd() * 5);
  for (let i = 0; i < n; i++) o[pick(['a', 'b', 'c.d', '7', '12', '0', 'x\\y', 'z'])] = gen(depth + 1);
  return o;
}
for (let i = 0; i < 300; i++) ser(gen(0));

for (const text of texts) {
  const out = { text };
  let v;
  try { v = SuperJSON.parse(text); out.ok = true; } catch (e) { out.ok = false; out.error = String(e.message); console.log(JSON.stringify(out)); continue; }
  try { const s = JSON.stringify(v); out.stringify = s === undefined ? null : s; } catch (e) { out.stringifyThrows = true; }
  try { out.string = String(v); } catch (e) { out.stringThrows = true; }
  if (v !== null && typeof v === 'object' && (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype)) {
    out.members = Object.values(v).map((m) => { try { return String(m); } catch (e) { return null; } });
    out.lengths = Object.values(v).map((m) => (typeof m === 'string' ? m.length : null));
  }
  console.log(JSON.stringify(out));
}
