#!/usr/bin/env bash
# Differential test against the upstream extraction script (by hand, not CI).
#
#   UPSTREAM_GIT=/path/to/stagewise.git scripts/upstream-diff/run.sh [N [FIRST_SEED]]
#
# For N seeds (default 50, from FIRST_SEED, default 1): generate a database,
# a skills tree and function-level inputs (gen/), run the upstream script
# (both modes: the unchanged "history" script and the "messages" variant) and
# compact extract on them, compare the trees byte for byte (treecmp), and
# compare compact serialize/tokens with the function-level oracle. Each
# differing case is kept under $RESULTS/<seed>/ (database, skills, both trees,
# console output, diff.txt). Prints a summary grouped by difference class.
#
# Env: UPSTREAM_GIT or UPSTREAM_TREE (see setup.sh), UD_WORK (scratch,
# default ${TMPDIR:-/tmp}/upstream-diff), RESULTS (default
# $UD_WORK/results/<time>), MODES (default "history messages"), FN=0 to skip
# the function-level comparison.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
N=${1:-50}
first=${2:-1}
: "${UD_WORK:=${TMPDIR:-/tmp}/upstream-diff}"
: "${MODES:=history messages}"
: "${FN:=1}"
export UD_WORK
"$here/setup.sh"
. "$here/lib.sh"
: "${RESULTS:=$UD_WORK/results/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$RESULTS" "$UD_WORK/bin"
bin=$UD_WORK/bin
(cd "$repo" && go build -o "$bin/compact" . && go build -o "$bin/gen" ./scripts/upstream-diff/gen && go build -o "$bin/treecmp" ./scripts/upstream-diff/treecmp)
"$bin/compact" prompt import "$repo/testdata/conformance/prompt-fixture/prompt.ts" --out "$UD_WORK/pack" >/dev/null
oracle=("$UD_WORK/up/node_modules/.bin/tsx" --tsconfig "$UD_WORK/up/apps/browser/tsconfig.backend.json" "$UD_WORK/up/scripts/experiments/ud-oracle.ts")
cp "$here/oracle.ts" "$UD_WORK/up/scripts/experiments/ud-oracle.ts"

dbs=0 bundles=0 diffbundles=0 crashes=0 fncount=0 fndiff=0
classes=$RESULTS/classes.tsv
: >"$classes"
for ((seed = first; seed < first + N; seed++)); do
  w=$RESULTS/work
  rm -rf "$w"
  mkdir -p "$w"
  "$bin/gen" -seed "$seed" -out "$w/in"
  read -r channel minmsg <"$w/in/args"
  args=(--channel "$channel" --min-messages "$minmsg" --skills-dir "$w/in/skills")
  keep=0
  : >"$w/diff.txt"
  for mode in $MODES; do
    for side in up co; do
      mkdir -p "$w/$mode-$side/home" "$w/$mode-$side/cwd"
      place_db "$w/in/instances.sqlite" "$w/$mode-$side/home" "$channel"
    done
    run_upstream "$mode" "$w/$mode-up/cwd" "$w/$mode-up/home" en_US.UTF-8 "$w/$mode-up/run" "${args[@]}"
    run_compact "$bin/compact" "$mode" "$w/$mode-co/cwd" "$w/$mode-co/home" en_US.UTF-8 "$channel" "$UD_WORK/pack" "$w/$mode-co/run" "${args[@]}"
    upcode=$(cat "$w/$mode-up/run.code")
    cocode=$(cat "$w/$mode-co/run.code")
    dbs=$((dbs + 1))
    nb=$(find "$w/$mode-up/cwd/experiments-data" -type d -name 'compression-*' 2>/dev/null | wc -l || true)
    bundles=$((bundles + nb))
    "$bin/treecmp" diff "$w/$mode-up/cwd/experiments-data" "$w/$mode-co/cwd/experiments-data" >"$w/$mode.diff" || true
    if [[ $upcode != 0 ]]; then
      crashes=$((crashes + 1))
      # The first error line (a warning's quoted title may span lines).
      why=$( (grep -m1 -E '^([A-Za-z]*Error|Error)[: \[]' "$w/$mode-up/run.stderr" || grep -v -m1 '^  ⚠' "$w/$mode-up/run.stderr") | sed -E 's/chat-[0-9]+-[0-9a-f]+/CHAT/g; s|/[^ "]*/instances.sqlite|DB|g' | cut -c1-120 || true)
      printf '%s\t%s\t%s\n' "crash($mode): $why" "$seed" "upstream exit $upcode, compact exit $cocode" >>"$classes"
      keep=1 # to check compact's warning against the documented departure
      # After an upstream crash compact goes on: ignore what only compact wrote.
      grep -v -P '^(dir|file):only-compact' "$w/$mode.diff" >"$w/$mode.diff2" || true
      mv "$w/$mode.diff2" "$w/$mode.diff"
    elif [[ $cocode != 0 ]]; then
      printf '%s\t%s\t%s\n' "exit($mode): compact $cocode" "$seed" "$(head -1 "$w/$mode-co/run.stderr")" >>"$classes"
      keep=1
    fi
    if [[ -s $w/$mode.diff ]]; then
      keep=1
      diffbundles=$((diffbundles + $(wc -l <"$w/$mode.diff")))
      awk -F'\t' -v m="$mode" -v s="$seed" '{d=$2; for(i=3;i<=NF;i++) d=d"\t"$i; print m": "$1"\t"s"\t"d}' "$w/$mode.diff" >>"$classes"
      sed "s/^/$mode: /" "$w/$mode.diff" >>"$w/diff.txt"
    fi
  done
  if [[ $FN == 1 ]]; then
    env TZ=UTC LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8 "${oracle[@]}" <"$w/in/fn.jsonl" >"$w/fn.oracle"
    fnout=$("$bin/treecmp" fn "$bin/compact" "$w/in/fn.jsonl" "$w/fn.oracle" 2>"$w/fn.count" || true)
    read -r _ c _ d _ <"$w/fn.count" || true
    fncount=$((fncount + ${c:-0}))
    fndiff=$((fndiff + ${d:-0}))
    if [[ -n $fnout ]]; then
      keep=1
      printf '%s\n' "$fnout" | awk -F'\t' -v s="$seed" '{d=$2; for(i=3;i<=NF;i++) d=d"\t"$i; print $1"\t"s"\t"d}' >>"$classes"
      printf '%s\n' "$fnout" >>"$w/diff.txt"
    fi
  fi
  if ((keep)); then
    rm -rf "${RESULTS:?}/$seed"
    mv "$w" "$RESULTS/$seed"
  fi
  if (((seed - first + 1) % 10 == 0)); then
    echo "… $((seed - first + 1))/$N seeds: $dbs runs, $bundles bundles, $diffbundles differing" >&2
  fi
done
rm -rf "$RESULTS/work"

echo "upstream-diff: $N seeds ($first..$((first + N - 1))), modes: $MODES"
echo "  databases compared (runs): $dbs (upstream crashed in $crashes)"
echo "  bundles compared: $bundles"
echo "  differing bundles (or files/dirs outside bundles): $diffbundles"
[[ $FN == 1 ]] && echo "  function-level inputs compared: $fncount, differing: $fndiff"
echo "  by class (count, first seeds, example):"
sort -t$'\t' -k1,1 -s "$classes" | awk -F'\t' '
  { c[$1]++; if (!($1 in ex)) { ex[$1]=$3 "  " $4; order[++n]=$1 }; if (c[$1] <= 5) seeds[$1]=seeds[$1] (c[$1]>1?",":"") $2 }
  END { for (i=1;i<=n;i++) { k=order[i]; printf "  %5d  %s  [seeds %s]\n         %s\n", c[k], k, seeds[k], substr(ex[k],1,300) } }'
echo "details: $RESULTS (per-seed diff.txt; classes.tsv)"
