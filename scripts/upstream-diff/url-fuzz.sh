#!/usr/bin/env bash
# Compares compact's URL parser (newURL in internal/history) with Node's
# new URL on random inputs: url-fuzz-gen.js writes them, url-vectors.sh
# asks Node, TestURLMatchesNode compares. By hand, not CI (needs Node 20).
#   scripts/upstream-diff/url-fuzz.sh [ROUNDS [N [SEED]]]
# Each round runs N inputs (default 20000) of each kind (mixed, host,
# path); the default is 10 rounds. On a difference it stops and keeps the
# vectors in ${TMPDIR:-/tmp}/url-fuzz-failed.jsonl: add the inputs that
# differ to url-inputs.jsonl once fixed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
rounds=${1:-10}
n=${2:-20000}
seed=${3:-1}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0
for ((r = 0; r < rounds; r++)); do
  for kind in mixed host path; do
    s=$((seed + r))
    node "$here/url-fuzz-gen.js" "$kind" "$s" "$n" >"$tmp/in.jsonl"
    "$here/url-vectors.sh" "$tmp/in.jsonl" "$tmp/vec.jsonl" 2>/dev/null
    if ! (cd "$repo" && COMPACT_URL_VECTORS="$tmp/vec.jsonl" go test -count=1 -run '^TestURLMatchesNode$' ./internal/history/ >"$tmp/out" 2>&1); then
      cat "$tmp/out"
      cp "$tmp/vec.jsonl" "${TMPDIR:-/tmp}/url-fuzz-failed.jsonl"
      echo "url-fuzz: differences in $kind seed $s (vectors kept in ${TMPDIR:-/tmp}/url-fuzz-failed.jsonl)" >&2
      exit 1
    fi
    total=$((total + n))
  done
done
echo "url-fuzz: $total random inputs, no difference from Node $(node --version)" >&2
