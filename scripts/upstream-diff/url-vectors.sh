#!/usr/bin/env bash
# Writes internal/history/testdata/url-node20.jsonl: new URL(input).href of
# every input of url-inputs.jsonl (one JSON string a line) as Node answers
# it, null where new URL throws (TypeError: Invalid URL). The first line
# records the Node, Ada and ICU versions; every other line is
# [input, href or null]. TestURLMatchesNode (internal/history) reads it.
#   scripts/upstream-diff/url-vectors.sh [inputs.jsonl [out.jsonl]]
# Node 20 (Ada 2.9) is required: its URL parser is the reference.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
in=${1:-$here/url-inputs.jsonl}
out=${2:-$repo/internal/history/testdata/url-node20.jsonl}

case $(node --version) in
v20.*) ;;
*) echo "url-vectors: need Node 20, have $(node --version)" >&2; exit 1 ;;
esac

node -e '
  const fs = require("fs");
  const [inFile, outFile] = process.argv.slice(1);
  const ins = fs.readFileSync(inFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const href = (s) => { try { return new URL(s).href; } catch (e) { if (e.code !== "ERR_INVALID_URL") throw e; return null; } };
  // Invisible characters (controls, spaces, separators, BOM) escaped.
  const esc = (v) => JSON.stringify(v).replace(/[\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  const v = process.versions;
  const lines = [JSON.stringify({ node: process.version, ada: v.ada, icu: v.icu, unicode: v.unicode })];
  for (const s of ins) lines.push(esc([s, href(s)]));
  fs.writeFileSync(outFile, lines.join("\n") + "\n");
' "$in" "$out"
echo "wrote $out ($(($(wc -l <"$out") - 1)) inputs)" >&2
