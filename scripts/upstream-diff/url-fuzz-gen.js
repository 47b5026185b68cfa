// Random URL inputs for scripts/upstream-diff/url-fuzz.sh, one JSON string a
// line:  node url-fuzz-gen.js KIND SEED N   (KIND: mixed, host or path)
//   mixed: schemes, separators, credentials, hosts, ports, paths, queries and
//          fragments put together, with C0 and space junk around, and a
//          random piece inserted or cut;
//   host:  hosts heavy in IDNA (bidi, joiners, marks, Punycode labels,
//          percent-encoded UTF-8, code points newer than Unicode 13) and IPv4;
//   path:  ASCII paths with dot segments, drive letters and backslashes.
const [kind, seedArg, nArg] = process.argv.slice(2);
let seed = Number(seedArg) >>> 0 || 1;
const N = Number(nArg) || 1000;
function rnd() { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed / 4294967296; }
const int = (n) => Math.floor(rnd() * n);
const pick = (a) => a[int(a.length)];
const chance = (p) => rnd() < p;
const rep = (n, f, sep = "") => { const out = []; for (let i = 0; i < n; i++) out.push(f()); return out.join(sep); };
const punycode = require("punycode");

const gens = {
mixed: (() => {
  const junk = ["", "", "", " ", "\t", "\u0000", "\u001f", "\n", "\r\n", "\u00a0", "\ufeff", "  \u0001", "\u0020\u0009"];
  const schemes = ["http", "https", "HTTP", "hTtPs", "ws", "wss", "WS", "ftp", "file", "FILE", "File", "foo", "sc", "mailto", "data", "javascript", "blob", "a+b", "x-y.z", "1a", "", "h ttp", "ht\ttp", "é", "web+foo", "about", "urn", "tel", "git+ssh", "h\nttps", "HtTp", "ftps", "ws+x"];
  const seps = [":", "://", "://", "://", ":/", ":\\\\", ":\\/", ":/\\", ":///", ":////", ":\\", ": //", ":\t//", "//", ":"];
  const users = ["user", "u:p", ":", "@", "a@b", "u:p:q", "ü:ö", "%41", "a b", "[", "user:", ":pass", "a\\b", "a/b", "a;b=c", "^|`{}", "\"<>", "%zz", "😀", "u\ud800", "a#b", "x?y", "é:é", ""];
  const asciiLabels = ["a", "EXAMPLE", "com", "Com", "xn--", "xn--ls8h", "xn--a", "xn--abc-", "XN--ls8h", "xN--bcher-kva", "xn--bcher-kva", "xn--zca", "xn--4ca0b", "-a", "a-", "a--b", "ab--c", "_", "", "0x", "0X", "0x7f", "077", "08", "1", "255", "256", "4294967295", "0xffffffff", "09", "a%2e", "%41", "%2e", "%00", "%zz", "%", "%ff", "%c3%bc", "%e2%80%8d", "%C3%9F", "%ef%bc%a1", "localhost", "LOCALHOST", "x", "www", "0", "00", "0x0", "1e1", "0b1", "a.b", "%2E", "%3A", "%5B", "%7c", "%20", "%25", "%e3%80%82", "xn--1ch", "xn--mgba3a4f16a", "xn--ddk", "xn---", "xn--a-", "xn--ab", "xn--9", "xn--zz", "xn--ss-", "xn--nxa", "xn--a-ecp"];
  const uniLabels = ["ü", "Ü", "ß", "ς", "Σ", "ﬀ", "Ａ", "ｘｎ－－", "。", "．", "｡", "a\u3002b", "\u200d", "\u200c", "a\u200cb", "क्\u200d", "क्\u200cष", "\u0301a", "a\u0301", "א", "אב1", "1א", "ا", "a\u0627", "\u0661", "\u0627\u0661", "\u05d0-\u05d1", "😀", "\u00ad", "a\u00adb", "\u2488", "⑴", "\ufffd", "\u0000", "\u180e", "\u2028", "ǅ", "İ", "\ufeff", "᛫", "日本", "例え", "ﾃｽﾄ", "Ⅷ", "㎏", "ℌ", "\u0340", "\u0640", "\u06dd", "\u0600", "\u2060", "\u200b", "\u034f", "\ue000", "\u{10ffff}", "\u{e0001}", "\u{1f1e6}", "ǰ", "ẞ", "ﬆ", "Ⓐ", "①", "¼", "™", "\u0130", "\u1e9e", "\u03c2", "\u0345", "\u1fbe", "\u3164", "\uffa0", "\u115f", "\u17b4", "\u2f00", "\u{1d400}", "\u{2f800}", "\u{31350}", "\u{323af}", "\u{2ebf0}", "\u{1b132}", "\u{11f00}", "\u0cf3", "\u{1e030}", "\u{10efd}", "\u{1f7d9}", "\u0d81", "\u{1e4d0}", "\u0f39", "\ud800", "\udc00", "Ω", "Å", "ﬁ", "\u0587", "\u0668\u0669", "\u06f0", "\u0300", "\u094d"];
  const forb = [" ", "#", "/", ":", "<", ">", "?", "@", "[", "\\", "]", "^", "|", "%", "\u007f", "\u0001", "*", "!", "$", "&", "'", "(", ")", "+", ",", ";", "=", "~", "`", "{", "}", "\"", "\t", "\u001f"];

  function ipv4part() {
    switch (int(6)) {
      case 0: return String(int(256));
      case 1: return "0x" + int(256).toString(16);
      case 2: return "0" + int(256).toString(8);
      case 3: return String(int(4294967297));
      case 4: return pick(["", "0x", "0", "00", "09", "0xg", "1a", "99999999999999999999", "0x100000000", "4294967296", "0xFF", "0X1", "08", "007"]);
      default: return String(int(10));
    }
  }
  function ipv4() { let s = rep(1 + int(5), ipv4part, "."); if (chance(0.15)) s += "."; return s; }
  function hex16() { return pick(["0", "1", "ffff", "FFFF", "abcd", "0000", "00001", "12345", "g", "", "db8", "2001", "0", "0", "0"]); }
  function ipv6() {
    let parts = [];
    const n = int(10);
    for (let i = 0; i < n; i++) parts.push(hex16());
    let s = parts.join(":");
    if (chance(0.5)) { const k = int(s.length + 1); s = s.slice(0, k) + "::" + s.slice(k); }
    if (chance(0.2)) s += ":" + rep(int(5) + 1, () => String(int(300)), ".");
    if (chance(0.1)) s = pick(["::", ":::", "::1", "1::", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "::1.2.3.4", "1::2::3", ":1", "1:", "::1:2:3:4:5:6:7", "0:0:0:0:0:0:0:0", "1:0:0:2:0:0:0:3", "::01.2.3.4", "::1.2.3", "v1.x", "%31::"]);
    if (chance(0.05)) s = s.replace(/:/, "%3a");
    if (chance(0.05)) s += pick(forb.concat(uniLabels));
    return "[" + s + (chance(0.95) ? "]" : "");
  }
  function label() {
    switch (int(10)) {
      case 0: case 1: case 2: case 3: return pick(asciiLabels);
      case 4: case 5: return pick(uniLabels);
      case 6: return pick(asciiLabels) + pick(uniLabels) + (chance(0.5) ? pick(asciiLabels) : "");
      case 7: return chance(0.5) ? "xn--" + pick(["", "a", "ls8h", "bcher-kva", "-", "zca", "nxa", "90a3ac", "ida", "1ch144i"]) : pick(uniLabels) + pick(uniLabels);
      case 8: return pick(asciiLabels) + pick(forb) + pick(asciiLabels);
      default: return rep(1 + int(6), () => pick("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789-_".split("")));
    }
  }
  function host() {
    switch (int(10)) {
      case 0: case 1: return ipv4();
      case 2: return ipv6();
      case 3: return "";
      case 4: return rep(1 + int(3), label, ".") + (chance(0.3) ? "." + ipv4part() : "");
      default: { let s = rep(1 + int(4), label, pick([".", ".", ".", "。", "．", "%2e"])); if (chance(0.1)) s += "."; return s; }
    }
  }
  const ports = ["", "80", "443", "21", "0", "65535", "65536", "0080", "a", "8080", "99999999999999999999", " 1", "00000000000000000000443", "1:2", "-1", "+1", "８０", "%38%30"];
  const segs = [".", "..", "%2e", "%2E.", ".%2e", "%2e%2e", "%2E%2E", "a", "A", "C:", "c|", "C|", "z:", "ü", " ", "%20", "^", "{", "}", "`", "\"", "<", ">", "'", "|", "\\", "%", "%zz", "\ud800", "😀", "a b", "..\\", ".\\", "", "", "x", "%2f", "é", "\u0000", "\u007f", "\u0080", "[", "]", ";", "=", "@", ":", "~", "&", "$", "!", "%2e.", "..%2f", "\u200b", "\ufeff", "a\nb", "a\tb"];
  const qchars = ["a", "=", "&", " ", "'", "\"", "<", ">", "`", "#", "?", "^", "{", "}", "|", "\\", "%", "%2", "%41", "ü", "😀", "\ud800", "\u0000", "\u007f", "/", ".", "..", "+", "~", "\t", "[", "]", "\u00a0"];
  function path() {
    let s = "";
    const n = int(6);
    for (let i = 0; i < n; i++) s += pick(["/", "/", "/", "\\"]) + pick(segs) + (chance(0.2) ? pick(segs) : "");
    if (chance(0.1)) s = pick(segs) + s;
    return s;
  }
  const randomPool = ["a", "Z", "0", "9", ":", "/", "\\", "?", "#", "@", "[", "]", ".", "%", "%2e", "%41", "%zz", " ", "\t", "\n", "ü", "😀", "\ud800", "xn--", "-", "_", "|", "^", "'", "\"", "<", ">", "`", "{", "}", ";", "=", "&", "+", "~", "\u0000", "\u001f", "\u007f", "\u00a0", "。", "ß", "\u200d", "א", "0x", "1", "255", "localhost", "file", "http", "C:", "c|", "..", "//"];
  function oneURL() {
    let s = "";
    if (chance(0.08)) { // pure random
      s = pick(schemes) + pick(seps) + rep(int(20), () => pick(randomPool));
      return s;
    }
    s += pick(junk) + pick(schemes) + pick(seps);
    if (chance(0.25)) s += pick(users) + (chance(0.3) ? ":" + pick(users) : "") + "@";
    s += host();
    if (chance(0.25)) s += ":" + pick(ports);
    s += path();
    if (chance(0.3)) s += "?" + rep(int(6), () => pick(qchars));
    if (chance(0.3)) s += "#" + rep(int(6), () => pick(qchars));
    s += pick(junk);
    if (chance(0.1)) { // mutate: insert a random piece
      const k = int(s.length + 1);
      s = s.slice(0, k) + pick(randomPool) + s.slice(k);
    }
    if (chance(0.05)) { // mutate: delete a piece
      const k = int(s.length + 1);
      s = s.slice(0, k) + s.slice(k + 1 + int(3));
    }
    return s;
  }
  return oneURL;
})(),
host: (() => {
  const ranges = [
    [0x41, 0x5a], [0x61, 0x7a], [0x30, 0x39], [0x2d, 0x2e], [0x5f, 0x5f],
    [0x0600, 0x06ff], [0x0750, 0x077f], [0x08a0, 0x08ff], [0x05d0, 0x05ea], [0x0590, 0x05ff], [0x0700, 0x074f], [0x07c0, 0x07ff],
    [0x0840, 0x085f], [0x0900, 0x097f], [0x0980, 0x09ff], [0x0b80, 0x0bff], [0x0d00, 0x0d7f], [0x0e00, 0x0e7f], [0x0f00, 0x0fff],
    [0x0300, 0x036f], [0x1ab0, 0x1aff], [0x1dc0, 0x1dff], [0x20d0, 0x20ff], [0x200b, 0x200f], [0x200c, 0x200d], [0x200c, 0x200d],
    [0x1800, 0x18af], [0xa840, 0xa87f], [0x4e00, 0x4e20], [0x3040, 0x30ff], [0xac00, 0xac10], [0xff00, 0xffef],
    [0x2460, 0x24ff], [0x3300, 0x33ff], [0x2150, 0x218f], [0x00a0, 0x00ff], [0x0100, 0x024f], [0x0370, 0x03ff], [0x0400, 0x04ff],
    [0x1e00, 0x1eff], [0x1f00, 0x1fff], [0x2000, 0x206f], [0xfb00, 0xfb4f], [0xfe00, 0xfe6f], [0x1ac1, 0x1ace], [0x11f00, 0x11f59],
    [0x10efd, 0x10eff], [0x0cf0, 0x0cf3], [0x1e4d0, 0x1e4f9], [0x31350, 0x31360], [0x1e900, 0x1e95f], [0x10d00, 0x10d3f],
    [0x1d400, 0x1d7ff], [0x1f100, 0x1f1ff], [0x1f300, 0x1f6ff], [0xe0000, 0xe007f], [0xe0100, 0xe01ef], [0xfff0, 0xffff],
    [0x0660, 0x0669], [0x06f0, 0x06f9], [0x0966, 0x096f], [0x3000, 0x303f], [0xd7b0, 0xd7ff], [0x10000, 0x10fff], [0x16f00, 0x16fff],
    [0x0080, 0x009f], [0x0870, 0x089f], [0x1715, 0x1715], [0x11070, 0x11075], [0x0d81, 0x0d81], [0x2c00, 0x2c7f],
  ];
  function cp() { const [a, b] = pick(ranges); return String.fromCodePoint(a + int(b - a + 1)); }
  function ulabel() { return rep(1 + int(6), cp); }
  const arab = "بتثجحخسشصضطظعغفقكلمنهيئ".split(""), arabR = "اأإآدذرزوةى".split(""), arabT = "\u064b\u064c\u064d\u0650\u0651\u0670".split(""), hebr = "אבגדהוזחטיכלמנסעפצקרשת".split(""), vir = ["\u094d", "\u09cd", "\u0a4d", "\u0bcd", "\u0d4d", "\u1039", "\u17d2", "\ua8c4"];
  const digs = "0123456789".split("").concat("٠١٢٣".split(""), "۰۱۲".split(""), ["٫", "-", ".", "%", "$", "+", ",", "/", ":"]);
  function bidiLabel() {
    return rep(1 + int(6), () => pick([pick(arab), pick(arabR), pick(arabT), pick(hebr), pick(digs), pick("abcXYZ".split("")), "\u200c", "\u200d", pick(vir), "\u0915", "\u0301", "ß", "\u00e9", "\u1ac1", "\u{10efd}", "\u{11f00}", "\u07ca", "\u{1e900}", "\u0710", "\u0715", "\u180a", "\u1820", "\u0640", "\u06dd"]));
  }
  function xnLabel() {
    switch (int(5)) {
      case 0: return "xn--" + punycode.encode(ulabel());
      case 1: return "xn--" + punycode.encode(bidiLabel());
      case 2: return "xn--" + punycode.encode(rep(1 + int(4), () => pick("abcABCß.é\u0301\u212b\u00c5-_0".split(""))));
      case 3: return "xn--" + rep(int(8), () => pick("abcdefghijklmnopqrstuvwxyz0123456789-".split("")));
      default: { const s = punycode.encode(ulabel()); return pick(["xn--", "XN--", "Xn--", "xN--"]) + (chance(0.5) ? s.toUpperCase() : s); }
    }
  }
  function pctEncode(s) { return Array.from(Buffer.from(s, "utf8")).map((b) => "%" + (chance(0.5) ? b.toString(16) : b.toString(16).toUpperCase()).padStart(2, "0")).join(""); }
  function label() {
    switch (int(9)) {
      case 0: case 1: return ulabel();
      case 2: case 3: return bidiLabel();
      case 4: return xnLabel();
      case 5: return pctEncode(ulabel());
      case 6: return pick(["a", "b", "com", "EXAMPLE", "0x1f", "08", "1", "255", "0", "localhost", "xn--", "-", "_", "a-b", "ab--cd"]);
      case 7: return pick(["ü", "ß", "ς", "Σ", "İ", "ﬀ", "①", "⒈", "。", "．", "\u00ad", "\u200b", "\u2060", "\ufeff", "ℌ", "Ⅷ", "㎏", "ǅ"]) + pick(["", "a", "1"]);
      default: return rep(1 + int(5), () => pick("abcdefghijklmnopqrstuvwxyzABC0123456789-_".split("")));
    }
  }
  function host() {
    if (chance(0.1)) { // ipv4-ish
      return rep(1 + int(5), () => pick([String(int(256)), "0x" + int(65536).toString(16), "0X" + int(256).toString(16).toUpperCase(), "0" + int(512).toString(8), String(int(2 ** 32 + 5)), "", "0x", "09", "1e3", "0xz", "４", "%31", "0x" + "f".repeat(int(12))]), ".") + (chance(0.2) ? "." : "");
    }
    return rep(1 + int(4), label, pick([".", ".", "。", "．", "｡", "%2e", "%E3%80%82"])) + (chance(0.1) ? "." : "");
  }
  const schemes = ["http", "https", "ws", "wss", "ftp", "file", "foo", "sc", "HTTP", "FILE"];
  function structural() {
    const sch = pick(schemes);
    let s = sch + pick(["://", ":", ":/", ":\\\\", "://///", ":\\/"]);
    if (chance(0.2)) s += pick(["u", "u:p", ":", "u:", "@", "%40", "ü"]) + "@";
    s += chance(0.15) ? pick(["C:", "c|", "C|x", "a:b", "localhost", "LOCALHOST", "", "[::1]", "[1::", "host:1"]) : host();
    if (chance(0.2)) s += ":" + pick(["", "0", "1", "80", "443", "21", "65535", "65536", "00080", "4294967296", "x"]);
    let p = "";
    for (let i = int(6); i > 0; i--) p += pick(["/", "\\", "/", "//"]) + pick([".", "..", "%2e", "%2E%2e", ".%2E", "a", "C:", "c|", "C|x", "a:b", "z:", "|", "..a", "...", "%2e%2", "", "ü", " "]);
    s += p;
    if (chance(0.2)) s += "?" + pick(["", "a", "'", "#", " ", "%"]);
    if (chance(0.2)) s += "#" + pick(["", "a", "`", "#", " ", "%"]);
    return s;
  }
  return () => chance(0.3) ? structural() : pick(["http", "https", "ws", "ftp", "file", "foo", "http", "http"]) + "://" + host() + pick(["", "/", "/x", ":80/", "?q", "#f"]);
})(),
path: (() => {
  const segs = [".", "..", ".a", "a.", "a", "b.c", "%2e", "%2E.", "", "x", "C:", "c|", "C|x", "a:b", "..a", "...", ".%2e", "a b", "^", "é", "@", ":", ";", "=", "~", "!", "'", "*", "(", ")"];
  const schemes = ["http", "https", "ws", "wss", "ftp", "file", "foo", "sc", "a+b"];
  return () => {
    let s = pick(schemes) + pick([":", ":/", "://", ":///", ":\\\\", "://\\", ":////"]);
    if (chance(0.15)) s += pick(["u", "u:p", "u:", ":p", "u@v", "u:p:q", ""]) + "@";
    if (chance(0.8)) s += pick(["h", "H", "h.com", "a.b.", "1.2.3.4", "0x7f.1", "[::1]", "", "localhost", "C:", "c|", "h:8080", "h:80", "h:", "h:0", "xn--a", "[1::2]:21"]);
    const n = int(7);
    for (let j = 0; j < n; j++) s += pick(["/", "/", "/", "\\", "//"]) + pick(segs) + (chance(0.2) ? pick(segs) : "");
    if (chance(0.2)) s += "?" + pick(["", "a", "a/./b", "'", "#x", "?"]);
    if (chance(0.2)) s += "#" + pick(["", "a", "/./", "`", "#"]);
    return s;
  };
})(),
};
const gen = gens[kind];
if (!gen) throw new Error("kind: mixed, host or path");
const out = [];
for (let i = 0; i < N; i++) out.push(JSON.stringify(gen()));
process.stdout.write(out.join("\n") + "\n");
