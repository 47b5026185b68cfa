// Prints the entries of adaJoining (internal/history/url.go): the joining
// types (L, R, D) that Node 20's URL parser (Ada 2.9) knows for the
// ContextJ rule of U+200C ZERO WIDTH NON-JOINER, read off new URL:
//   "x" c "y" ZWNJ BEH  is a valid host only if c joins to the left (L or D),
//   BEH ZWNJ c          is a valid host only if c joins to the right (R or D),
// for each code point c that IDNA keeps as it is (BEH, U+0628, is D).
//   node scripts/upstream-diff/url-joining.js   (Node 20; about 15 s)
const punycode = require("punycode");
// a valid host that keeps the label as written (c not mapped away)
const ok = (label) => { try { return punycode.toUnicode(new URL("http://" + label + "/").hostname) === label; } catch { return false; } };
const ranges = [];
for (let cp = 0x80; cp <= 0x10ffff; cp++) {
  if ((cp >= 0xd800 && cp <= 0xdfff) || cp === 0x200c || cp === 0x200d) continue;
  const c = String.fromCodePoint(cp);
  const l = ok("x" + c + "y\u200c\u0628"), r = ok("\u0628\u200c" + c);
  if (!l && !r) continue;
  const t = l && r ? "D" : l ? "L" : "R";
  const last = ranges[ranges.length - 1];
  if (last && last[1] === cp - 1 && last[2] === t) last[1] = cp;
  else ranges.push([cp, cp, t]);
}
const hex = (n) => "0x" + n.toString(16).toUpperCase();
const ents = ranges.map(([lo, hi, t]) => `{${hex(lo)}, ${hex(hi)}, '${t}'},`);
for (let i = 0; i < ents.length; i += 3) console.log("\t" + ents.slice(i, i + 3).join(" "));
