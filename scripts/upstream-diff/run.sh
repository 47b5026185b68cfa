#!/usr/bin/env bash
# Differential test against the upstream extraction script (by hand, not CI).
#
#   UPSTREAM_GIT=/path/to/stagewise.git [UPSTREAM_REF=18ac8a27b] scripts/upstream-diff/run.sh [N [FIRST_SEED]]
#
# For N seeds (default 50, from FIRST_SEED, default 1): generate a database,
# a skills tree and function-level inputs (gen/), run the upstream script at
# UPSTREAM_REF (default e3e125281a27) and compact extract on them in every
# mode (the unchanged "history" script and the "messages" variant) and every
# serializer host of the layout (app for browser-app; none, the script as
# shipped, and browser, the app's host through the shim, for agent-core),
# compare the trees byte for byte (treecmp), and compare compact
# serialize/tokens with the function-level oracle. compact runs with the
# profile of each host (lib.sh, ud_profile: e3e, head-nohost, head; set
# PROFILE_APP, PROFILE_NONE, PROFILE_BROWSER for another release). Each
# differing case is kept under $RESULTS/<seed>/ (database, skills, both
# trees, console output, diff.txt). Prints a summary grouped by difference
# class.
#
# Env: UPSTREAM_GIT or UPSTREAM_TREE, UPSTREAM_REF (see setup.sh), UD_WORK
# (scratch, default ${TMPDIR:-/tmp}/upstream-diff), RESULTS (default
# $UD_WORK/results/<time>), MODES (default "history messages"), HOSTS
# (default: the layout's), FN=0 to skip the function-level comparison (the
# slow part: one compact process per input), TREES=0 to skip the
# extraction runs, KEEP=1 to keep every seed (not only the differing ones).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
N=${1:-50}
first=${2:-1}
: "${MODES:=history messages}"
: "${FN:=1}"
: "${KEEP:=0}"
: "${TREES:=1}"
. "$here/lib.sh"
ud_resolve
"$here/setup.sh"
ud_resolve
: "${HOSTS:=$UD_HOSTS}"
: "${RESULTS:=$UD_WORK/results/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$RESULTS" "$UD_WORK/bin"
bin=$UD_WORK/bin
(cd "$repo" && go build -o "$bin/compact" . && go build -o "$bin/gen" ./scripts/upstream-diff/gen && go build -o "$bin/treecmp" ./scripts/upstream-diff/treecmp)
"$bin/compact" prompt import "$repo/testdata/conformance/prompt-fixture/prompt.ts" --out "$UD_WORK/pack" >/dev/null 2>&1
read -r -a oracle <<<"$(ud_oracle)"
cp "$here/$UD_ORACLE" "$UD_UP/scripts/experiments/ud-oracle.ts"

dbs=0 bundles=0 diffbundles=0 crashes=0 partial=0 fncount=0 fndiff=0
classes=$RESULTS/classes.tsv
: >"$classes"
for ((seed = first; seed < first + N; seed++)); do
  w=$RESULTS/work
  rm -rf "$w"
  mkdir -p "$w"
  "$bin/gen" -seed "$seed" -out "$w/in"
  read -r channel minmsg <"$w/in/args"
  args=(--channel "$channel" --min-messages "$minmsg" --skills-dir "$w/in/skills")
  keep=$KEEP
  : >"$w/diff.txt"
  for host in $HOSTS; do
    profile=$(ud_profile "$host")
    for mode in $MODES; do
      [[ $TREES == 1 ]] || break
      r=$mode.$host
      for side in up co; do
        mkdir -p "$w/$r-$side/home" "$w/$r-$side/cwd"
        place_db "$w/in/instances.sqlite" "$w/$r-$side/home" "$channel"
      done
      run_upstream "$mode" "$host" "$w/$r-up/cwd" "$w/$r-up/home" en_US.UTF-8 "$w/$r-up/run" "${args[@]}"
      run_compact "$bin/compact" "$mode" "$w/$r-co/cwd" "$w/$r-co/home" en_US.UTF-8 "$channel" "$UD_WORK/pack" "$w/$r-co/run" "${args[@]}" --profile "$profile"
      upcode=$(cat "$w/$r-up/run.code")
      cocode=$(cat "$w/$r-co/run.code")
      dbs=$((dbs + 1))
      nb=$(find "$w/$r-up/cwd/experiments-data" -type d -name 'compression-*' 2>/dev/null | wc -l || true)
      bundles=$((bundles + nb))
      "$bin/treecmp" diff "$w/$r-up/cwd/experiments-data" "$w/$r-co/cwd/experiments-data" >"$w/$r.diff" || true
      if [[ $upcode != 0 ]]; then
        crashes=$((crashes + 1))
        # The first error line (a warning's quoted title may span lines).
        why=$( (grep -m1 -E '^([A-Za-z]*Error|Error)[: \[]' "$w/$r-up/run.stderr" || grep -v -m1 '^  ⚠' "$w/$r-up/run.stderr") | sed -E 's/chat-[0-9]+-[0-9a-f]+/CHAT/g; s|/[^ "]*/instances.sqlite|DB|g' | cut -c1-120 || true)
        printf '%s\t%s\t%s\n' "crash($r): $why" "$seed" "upstream exit $upcode, compact exit $cocode" >>"$classes"
        keep=1 # to check compact's warning against the documented departure
        # After an upstream crash compact goes on: ignore what only compact
        # wrote, and count the bundle the upstream left half-written when
        # it crashed (no metadata.json: writeFileSync threw on an earlier
        # file) as part of the crash.
        : >"$w/$r.diff2"
        while IFS= read -r line; do
          case $line in
            dir:only-compact* | file:only-compact* | tree:only-compact*) ;;
            dir:only-upstream*)
              d=${line#*$'\t'}
              if [[ ! -f $w/$r-up/cwd/experiments-data/$d/metadata.json ]]; then
                partial=$((partial + 1))
                printf '%s\t%s\t%s\n' "crash($r): the bundle it was writing, half-written" "$seed" "$d" >>"$classes"
              else
                printf '%s\n' "$line" >>"$w/$r.diff2"
              fi
              ;;
            *) printf '%s\n' "$line" >>"$w/$r.diff2" ;;
          esac
        done <"$w/$r.diff"
        mv "$w/$r.diff2" "$w/$r.diff"
      elif [[ $cocode != 0 ]]; then
        printf '%s\t%s\t%s\n' "exit($r): compact $cocode" "$seed" "$(head -1 "$w/$r-co/run.stderr")" >>"$classes"
        keep=1
      fi
      if [[ -s $w/$r.diff ]]; then
        keep=1
        diffbundles=$((diffbundles + $(wc -l <"$w/$r.diff")))
        awk -F'\t' -v m="$r" -v s="$seed" '{d=$2; for(i=3;i<=NF;i++) d=d"\t"$i; print m": "$1"\t"s"\t"d}' "$w/$r.diff" >>"$classes"
        sed "s/^/$r: /" "$w/$r.diff" >>"$w/diff.txt"
      fi
    done
    if [[ $FN == 1 ]]; then
      env TZ=UTC LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8 UD_HOST="$host" "${oracle[@]}" <"$w/in/fn.jsonl" >"$w/fn.$host.oracle"
      fnout=$(UD_PROFILE="$profile" "$bin/treecmp" fn "$bin/compact" "$w/in/fn.jsonl" "$w/fn.$host.oracle" 2>"$w/fn.$host.count" || true)
      read -r _ c _ d _ <"$w/fn.$host.count" || true
      fncount=$((fncount + ${c:-0}))
      fndiff=$((fndiff + ${d:-0}))
      if [[ -n $fnout ]]; then
        keep=1
        printf '%s\n' "$fnout" | awk -F'\t' -v s="$seed" -v h="$host" '{d=$2; for(i=3;i<=NF;i++) d=d"\t"$i; print h": "$1"\t"s"\t"d}' >>"$classes"
        printf '%s\n' "$fnout" | sed "s/^/$host: /" >>"$w/diff.txt"
      fi
    fi
  done
  if ((keep)); then
    rm -rf "${RESULTS:?}/$seed"
    mv "$w" "$RESULTS/$seed"
  fi
  if (((seed - first + 1) % 10 == 0)); then
    echo "… $((seed - first + 1))/$N seeds: $dbs runs, $bundles bundles, $diffbundles differing" >&2
  fi
done
rm -rf "$RESULTS/work"

{
  echo "upstream-diff: upstream $UD_REV ($UD_LAYOUT), $N seeds ($first..$((first + N - 1))), modes: $([[ $TREES == 1 ]] && echo "$MODES" || echo "none (TREES=0)"), hosts: $HOSTS"
  for host in $HOSTS; do echo "  host $host: compact --profile $(ud_profile "$host")"; done
  echo "  databases compared (runs): $dbs (upstream crashed in $crashes, leaving $partial bundles half-written)"
  echo "  bundles compared: $bundles"
  echo "  differing bundles (or files/dirs outside bundles): $diffbundles"
  [[ $FN == 1 ]] && echo "  function-level inputs compared: $fncount, differing: $fndiff"
  if [[ ! -s $classes ]]; then
    echo "  by class: none (no difference, no upstream crash)"
  else
    echo "  by class (count, first seeds, example):"
  fi
  sort -t$'\t' -k1,1 -s "$classes" | awk -F'\t' '
    { c[$1]++; if (!($1 in ex)) { ex[$1]=$3 "  " $4; order[++n]=$1 }; if (c[$1] <= 5) seeds[$1]=seeds[$1] (c[$1]>1?",":"") $2 }
    END { for (i=1;i<=n;i++) { k=order[i]; printf "  %5d  %s  [seeds %s]\n         %s\n", c[k], k, seeds[k], substr(ex[k],1,300) } }'
  echo "details: $RESULTS (per-seed diff.txt; classes.tsv)"
} | tee "$RESULTS/summary.txt"
