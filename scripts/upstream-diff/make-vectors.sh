#!/usr/bin/env bash
# Writes testdata/upstream/*.jsonl: the inputs in vectors-in/ (our own
# synthetic minimal reproducers of every difference class the differential
# test found) with the upstream's answers from the oracle (oracle.sh). The
# expected values come from the upstream code, never by hand.
#   UPSTREAM_GIT=/path/to/stagewise.git scripts/upstream-diff/make-vectors.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$repo/testdata/upstream
mkdir -p "$out"
for f in "$here"/vectors-in/*.jsonl; do
  name=$(basename "$f")
  "$here/oracle.sh" <"$f" >"$out/$name.oracle"
  # merge: the input without "op" (and "dir"), plus the oracle's answer
  node -e '
    const fs = require("fs");
    const ins = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const outs = fs.readFileSync(process.argv[2], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    if (ins.length !== outs.length) throw new Error("count mismatch");
    const lines = ins.map((v, i) => {
      const { op, dir, ...rest } = v;
      const { name, ...ans } = outs[i];
      return JSON.stringify({ ...rest, ...ans });
    });
    fs.writeFileSync(process.argv[3], lines.join("\n") + "\n");
  ' "$f" "$out/$name.oracle" "$out/$name"
  rm "$out/$name.oracle"
  echo "wrote $out/$name ($(wc -l <"$out/$name") vectors)" >&2
done
