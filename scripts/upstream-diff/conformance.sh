#!/usr/bin/env bash
# Sanity check of the harness: runs the upstream script, as setup.sh prepares
# it, on every case of testdata/conformance in every recorded mode and checks
# that it reproduces the recorded tree (manifest: every directory and file by
# size and sha256), stdout (paths replaced by tokens), the first stderr line
# and the exit code. With COMPACT=1 it checks compact the same way.
#   UPSTREAM_GIT=/path/to/stagewise.git scripts/upstream-diff/conformance.sh
# The corpus was made at e3e125281a27 (browser-app layout): other commits
# are checked with run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
ud_resolve
"$here/setup.sh"
ud_resolve
if [[ $UD_LAYOUT != browser-app ]]; then
  echo "conformance: the corpus was made at e3e125281a27; $UD_REV is of the $UD_LAYOUT layout (use run.sh)" >&2
  exit 2
fi
corpus=$repo/testdata/conformance
skills=$corpus/skills
tc=$UD_WORK/bin/treecmp
mkdir -p "$UD_WORK/bin"
(cd "$repo" && go build -o "$tc" ./scripts/upstream-diff/treecmp)
if [[ -n ${COMPACT:-} ]]; then
  (cd "$repo" && go build -o "$UD_WORK/bin/compact" .)
  "$UD_WORK/bin/compact" prompt import "$corpus/prompt-fixture/prompt.ts" --out "$UD_WORK/pack" >/dev/null
fi
ok=0 bad=0
n=$(jq length "$corpus/index.json")
for ((i = 0; i < n; i++)); do
  c=$(jq -c ".[$i]" "$corpus/index.json")
  name=$(jq -r .name <<<"$c")
  dbch=$(jq -r .dbChannel <<<"$c")
  ch=$(jq -r .channel <<<"$c")
  loc=$(jq -r .env.LC_ALL <<<"$c")
  mapfile -t argv < <(jq -r '.argv[]' <<<"$c" | sed "s|\\\$SKILLS|$skills|g")
  for mode in $(jq -r '.modes[]' <<<"$c"); do
    t=$(mktemp -d "$UD_WORK/conf.XXXXXX")
    mkdir -p "$t/home" "$t/cwd"
    place_db "$corpus/$name/input/instances.sqlite" "$t/home" "$dbch"
    if [[ -n ${COMPACT:-} ]]; then
      run_compact "$UD_WORK/bin/compact" "$mode" "$t/cwd" "$t/home" "$loc" "$ch" "$UD_WORK/pack" "$t/run" "${argv[@]}"
    else
      run_upstream "$mode" app "$t/cwd" "$t/home" "$loc" "$t/run" "${argv[@]}"
    fi
    exp=$corpus/$name/expected/$mode
    why=()
    "$tc" manifest "$t/cwd/experiments-data" >"$t/manifest" || true
    cmp -s "$t/manifest" <(grep -v '^$' "$exp/manifest.txt") || why+=(tree)
    want=$(tr -d '[:space:]' <"$exp/exit_code.txt")
    # compact's one deviation in exit status (TestExtractConformance): a
    # database that is not there, or a bad channel, is a usage error (2).
    if [[ -n ${COMPACT:-} && $want == 1 && ($name == cli-db-not-found || $name == cli-invalid-channel) ]]; then want=2; fi
    [[ $(cat "$t/run.code") == "$want" ]] || why+=("exit $(cat "$t/run.code")")
    if [[ -z ${COMPACT:-} ]]; then
      cmp -s <(tokenize "$t/run.stdout" "$t/home" "$t/cwd" "$skills") "$exp/stdout.txt" || why+=(stdout)
      cmp -s <(tokenize "$t/run.stderr" "$t/home" "$t/cwd" "$skills" | head -1) <(head -1 "$exp/stderr.txt") || why+=(stderr)
    fi
    if ((${#why[@]})); then
      bad=$((bad + 1))
      echo "DIFF $name/$mode: ${why[*]} (kept in $t)"
      [[ " ${why[*]} " == *" tree "* ]] && diff <(grep -v '^$' "$exp/manifest.txt") "$t/manifest" | head -10
    else
      ok=$((ok + 1))
      rm -rf "$t"
    fi
  done
done
echo "conformance: $ok runs reproduce the corpus, $bad differ"
((bad == 0))
