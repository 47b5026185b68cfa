#!/usr/bin/env bash
# Writes the vectors of a differential run against one upstream release into
# OUTDIR (e.g. testdata/upstream/v1.29.0), for the seeds given: what the
# upstream itself wrote or returned for compact's own generated inputs
# (gen/), so that tests check compact against that release with no Node.
#
#   UPSTREAM_GIT=/path/to/stagewise.git UPSTREAM_REF=18ac8a27b \
#     scripts/upstream-diff/make-release-vectors.sh testdata/upstream/v1.29.0 SEED...
#
# For each seed, OUTDIR/extract/seed-N/ in the layout of testdata/conformance:
# input/instances.sqlite, skills/, args.json (with the hosts and the compact
# profile of each), expected/<mode>.<host>/ (the tree the upstream script
# left, manifest.txt, exit_code.txt), for every mode and host of the layout.
# Then OUTDIR/compact-history.jsonl ({name, raw, host, expected,
# expectedLen16} or {…, error}: the serializer of each host on the seed's
# function-level inputs) and OUTDIR/estimate-message-tokens.jsonl ({name,
# raw, expected: [estimate of each message]} or {…, error}).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:?usage: make-release-vectors.sh OUTDIR SEED...}
shift
(($# > 0)) || { echo "make-release-vectors: give at least one seed" >&2; exit 2; }
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
: "${MODES:=history messages}"
. "$here/lib.sh"
ud_resolve
"$here/setup.sh"
ud_resolve
mkdir -p "$UD_WORK/bin" "$out/extract"
bin=$UD_WORK/bin
(cd "$repo" && go build -o "$bin/gen" ./scripts/upstream-diff/gen && go build -o "$bin/treecmp" ./scripts/upstream-diff/treecmp)
read -r -a oracle <<<"$(ud_oracle)"
cp "$here/$UD_ORACLE" "$UD_UP/scripts/experiments/ud-oracle.ts"
tmp=$(mktemp -d "$UD_WORK/vectors.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
: >"$out/compact-history.jsonl"
: >"$out/estimate-message-tokens.jsonl"
for seed in "$@"; do
  c=$out/extract/seed-$seed
  rm -rf "$c"
  mkdir -p "$c/input"
  "$bin/gen" -seed "$seed" -out "$tmp/in-$seed"
  cp "$tmp/in-$seed/instances.sqlite" "$c/input/"
  cp -r "$tmp/in-$seed/skills" "$c/skills"
  read -r channel minmsg <"$tmp/in-$seed/args"
  profiles=""
  for host in $UD_HOSTS; do profiles+="${profiles:+, }\"$host\": \"$(ud_profile "$host")\""; done
  cat >"$c/args.json" <<JSON
{
  "name": "seed-$seed",
  "argv": ["--channel", "$channel", "--min-messages", "$minmsg", "--skills-dir", "\$SKILLS"],
  "channel": "$channel",
  "dbChannel": "$channel",
  "modes": [$(printf '"%s", ' $MODES | sed 's/, $//')],
  "hosts": [$(printf '"%s", ' $UD_HOSTS | sed 's/, $//')],
  "profiles": {$profiles},
  "env": {"LANG": "en_US.UTF-8", "LC_ALL": "en_US.UTF-8", "TZ": "UTC"},
  "upstream": "$UD_REV",
  "notes": "scripts/upstream-diff/gen -seed $seed"
}
JSON
  for host in $UD_HOSTS; do
    for mode in $MODES; do
      r=$tmp/run-$seed-$mode-$host
      mkdir -p "$r/home" "$r/cwd"
      place_db "$c/input/instances.sqlite" "$r/home" "$channel"
      run_upstream "$mode" "$host" "$r/cwd" "$r/home" en_US.UTF-8 "$r/run" --channel "$channel" --min-messages "$minmsg" --skills-dir "$c/skills"
      e=$c/expected/$mode.$host
      mkdir -p "$e"
      [[ -d $r/cwd/experiments-data ]] && cp -r "$r/cwd/experiments-data" "$e/"
      "$bin/treecmp" manifest "$r/cwd/experiments-data" >"$e/manifest.txt" || true
      cp "$r/run.code" "$e/exit_code.txt"
    done
    env TZ=UTC LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8 UD_HOST="$host" "${oracle[@]}" <"$tmp/in-$seed/fn.jsonl" >"$tmp/fn-$seed-$host.oracle"
  done
  # Merge: each input without "op" and "resolvedSlash", with the answer.
  node -e '
    const fs = require("fs");
    const [inF, seed, outHist, outEst, ...pairs] = process.argv.slice(1);
    const ins = fs.readFileSync(inF, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    for (let p = 0; p < pairs.length; p += 2) {
      const host = pairs[p];
      const outs = fs.readFileSync(pairs[p + 1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
      if (ins.length !== outs.length) throw new Error("count mismatch");
      ins.forEach((v, i) => {
        const { op, resolvedSlash, name, ...rest } = v;
        const { name: _n, host: _h, ...ans } = outs[i];
        const line = JSON.stringify({ name: `seed-${seed}/${name}`, ...rest, ...(op === "serialize" ? { host } : {}), ...ans }) + "\n";
        if (op === "serialize") fs.appendFileSync(outHist, line);
        else if (p === 0) fs.appendFileSync(outEst, line);
      });
    }
  ' "$tmp/in-$seed/fn.jsonl" "$seed" "$out/compact-history.jsonl" "$out/estimate-message-tokens.jsonl" \
    $(for host in $UD_HOSTS; do printf '%s %s ' "$host" "$tmp/fn-$seed-$host.oracle"; done)
  echo "make-release-vectors: seed $seed done" >&2
done
# Our own minimal inputs for the classes the run found or the release
# changed (vectors-in-<OUTDIR name>/compact-history.jsonl), through the
# oracle with each host.
vin=$here/vectors-in-$(basename "$out")/compact-history.jsonl
if [[ -f $vin ]]; then
  for host in $UD_HOSTS; do
    env TZ=UTC LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8 UD_HOST="$host" "${oracle[@]}" <"$vin" >"$tmp/vin-$host.oracle"
  done
  node -e '
    const fs = require("fs");
    const [inF, outHist, ...pairs] = process.argv.slice(1);
    const ins = fs.readFileSync(inF, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    for (let p = 0; p < pairs.length; p += 2) {
      const outs = fs.readFileSync(pairs[p + 1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
      ins.forEach((v, i) => {
        const { op, name, ...rest } = v;
        const { name: _n, ...ans } = outs[i];
        fs.appendFileSync(outHist, JSON.stringify({ name: `in/${name}`, ...rest, ...ans }) + "\n");
      });
    }
  ' "$vin" "$out/compact-history.jsonl" $(for host in $UD_HOSTS; do printf '%s %s ' "$host" "$tmp/vin-$host.oracle"; done)
fi
echo "wrote $out: $(ls "$out/extract" | wc -l) database cases, $(wc -l <"$out/compact-history.jsonl") serializer and $(wc -l <"$out/estimate-message-tokens.jsonl") estimate vectors" >&2
