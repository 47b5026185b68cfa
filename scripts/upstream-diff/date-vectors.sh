#!/usr/bin/env bash
# Writes internal/history/testdata/date-legacy-node20.jsonl: Date.parse of
# every input of date-inputs.jsonl (one JSON string a line) as Node answers
# it, once per time zone, so that the vectors hold whatever TZ the test
# runs under. The first line records the Node version and the zones; every
# other line is [input, ms under zone 1, ms under zone 2, ...], null for
# NaN. TestDateParseMatchesNode (internal/history) reads it.
#   scripts/upstream-diff/date-vectors.sh [inputs.jsonl [out.jsonl]]
# Node 20 (V8 11.3) is required: its legacy date parser is the reference.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
in=${1:-$here/date-inputs.jsonl}
out=${2:-$repo/internal/history/testdata/date-legacy-node20.jsonl}
zones=(UTC America/New_York Europe/Berlin)

case $(node --version) in
v20.*) ;;
*) echo "date-vectors: need Node 20, have $(node --version)" >&2; exit 1 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in "${!zones[@]}"; do
  # One JSON array of answers per zone.
  TZ=${zones[$i]} node -e '
    const fs = require("fs");
    const ins = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone !== process.argv[3]) throw new Error("TZ=" + process.argv[3] + " gave " + zone);
    const outs = ins.map((s) => { const t = Date.parse(s); return Number.isNaN(t) ? null : t; });
    fs.writeFileSync(process.argv[2], JSON.stringify(outs));
  ' "$in" "$tmp/$i.json" "${zones[$i]}"
done
node -e '
  const fs = require("fs");
  const [inFile, outFile, dir, ...zones] = process.argv.slice(1);
  const ins = fs.readFileSync(inFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const cols = zones.map((_, i) => JSON.parse(fs.readFileSync(dir + "/" + i + ".json", "utf8")));
  // Invisible characters (controls, spaces, separators, BOM) escaped.
  const esc = (v) => JSON.stringify(v).replace(/[\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  const lines = [JSON.stringify({ node: process.version, v8: process.versions.v8, zones })];
  ins.forEach((s, j) => lines.push(esc([s, ...cols.map((c) => c[j])])));
  fs.writeFileSync(outFile, lines.join("\n") + "\n");
' "$in" "$out" "$tmp" "${zones[@]}"
echo "wrote $out ($(($(wc -l <"$out") - 1)) inputs, zones ${zones[*]})" >&2
