#!/usr/bin/env bash
# compact at scale: SCALE_N generated bundles (default 100,000) scored by
# `compact eval` offline in SCALE_SHARDS shards (default 8, --shard K/N),
# SCALE_PARALLEL of them at a time (default: the CPUs), as N jobs of a CI
# matrix or Kubernetes indexed jobs would run them. Prints the wall time
# and the peak RSS of each shard, the wall time of all of them, and
# reads the shards' --table files with DuckDB as one table, and checks on a
# smaller set (SCALE_CHECK_N bundles, default 2,000) that the
# union of the shards' per-bundle scores is an unsharded run's, byte for
# byte, and that every chat is in exactly one shard; then a sample
# (--sample) and its shards.
#
#   bench/scale.sh                               # 100,000 bundles, 8 shards
#   SCALE_N=20000 SCALE_SHARDS=4 bench/scale.sh
#   SCALE_WHOLE=1 bench/scale.sh                 # also one unsharded run, to compare
#
# The bundles (internal/diff/benchgen -mixed: chains of 1 to 10 bundles,
# varied message counts and agents, about SCALE_CHARS characters per
# briefing, default 2,000, each with a replay run "bench") are written
# once to $OUT/scale-<N>-<CHARS>/ (OUT default bench/out) and kept for
# the next run: 100,000 take about 1.3 GB in 700,000 files.
# Needs GNU time (/usr/bin/time) for the peak RSS, and python3 for the
# union check. The figures of a run on 2 CPUs are in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}
N=${SCALE_N:-100000}
SHARDS=${SCALE_SHARDS:-8}
PAR=${SCALE_PARALLEL:-$(nproc)}
CHARS=${SCALE_CHARS:-2000}
CHECK_N=${SCALE_CHECK_N:-2000}
mkdir -p "$OUT"
work="$OUT/scale-work"
rm -rf "$work"
mkdir -p "$work"

go build -o "$OUT/compact" .
bin="$OUT/compact"
gen() { # dir, bundles
  if [ ! -d "$1" ]; then
    local t0=$(date +%s.%N)
    go run ./internal/diff/benchgen -mixed -out "$1.partial" -bundles "$2" -chars "$CHARS" -per-chat 10
    mv "$1.partial" "$1"
    echo "generated $2 bundles in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", b-a}') s: $1 ($(du -sh "$1" | cut -f1))"
  fi
}
data="$OUT/scale-$N-$CHARS/prerelease"
check="$OUT/scale-$CHECK_N-$CHARS/prerelease"
gen "$data" "$N"
gen "$check" "$CHECK_N"
sync

if [ ! -x /usr/bin/time ]; then
  echo "bench/scale.sh: GNU time (/usr/bin/time) is needed for the peak RSS: apt-get install time" >&2
  exit 2
fi

# shard K: eval (the text report) of shard K/SHARDS of $1 into
# $work/$2-K.out, its stderr (the selection line) in .err, GNU time's
# wall seconds and peak RSS in .time.
shard() {
  local dir=$1 name=$2 k=$3
  /usr/bin/time -f "%e %M" -o "$work/$name-$k.time" \
    "$bin" eval --worst 0 --shard "$k/$SHARDS" --table "$work/table-$name" "$dir" > "$work/$name-$k.out" 2> "$work/$name-$k.err"
}

echo "compact eval, offline, of $N bundles in $SHARDS shards, $PAR at a time ($(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg))"
t0=$(date +%s.%N)
for ((k = 0; k < SHARDS; k++)); do
  shard "$data" big "$k" &
  while [ "$(jobs -rp | wc -l)" -ge "$PAR" ]; do wait -n; done
done
wait
t1=$(date +%s.%N)
printf '%-8s %8s %8s %10s %8s\n' shard wall_s rss_MB bundles chats
total=0
for ((k = 0; k < SHARDS; k++)); do
  read -r wall rss < "$work/big-$k.time"
  bundles=$(head -n 1 "$work/big-$k.out" | awk '{ print $1 }')
  chats=$(sed -n 's/.*shard [0-9]*\/[0-9]*: \([0-9,]*\) of .*/\1/p' "$work/big-$k.err" | tr -d ,)
  total=$((total + bundles))
  printf "%-8s %8.1f %8d %10d %8d\n" "$k/$SHARDS" "$wall" "$(((rss + 512) / 1024))" "$bundles" "$chats"
done
if [ "$total" -ne "$N" ]; then
  echo "FAIL: the shards evaluated $total bundles, not $N" >&2
  exit 1
fi
awk -v a="$t0" -v b="$t1" -v n="$N" -v s="$SHARDS" 'BEGIN { printf "all %d shards: %.1f s wall for %d bundles (%.0f bundles/s), every bundle once\n", s, b - a, n, n / (b - a) }'
sort -n -k2 "$work"/big-*.time | tail -n 1 | awk '{ printf "largest peak RSS of a shard: %.0f MB\n", $2 / 1024 }'

if [ "${SCALE_WHOLE:-0}" = 1 ]; then
  /usr/bin/time -f "%e %M" -o "$work/whole.time" "$bin" eval --worst 0 "$data" > /dev/null 2> "$work/whole.err"
  read -r wall rss < "$work/whole.time"
  echo "one unsharded run: $wall s wall, peak RSS $((rss / 1024)) MB"
fi

# The merged table: every shard wrote its own files into one --table
# folder (part-shard-K-of-N-<hash>.parquet: nothing shared); DuckDB
# (npm's @duckdb/node-api, installed by .ci/run into COMPACT_DUCKDB_DIR)
# reads each folder as one table.
duckdb_dir=${COMPACT_DUCKDB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/compact-duckdb}
if command -v node >/dev/null && [ -d "$duckdb_dir/node_modules/@duckdb/node-api" ]; then
  echo
  echo "the merged table ($work/table-big: $(ls "$work"/table-big/probes/*.parquet | wc -l) probe files, $(du -sh "$work/table-big" | cut -f1)), read by DuckDB as one table:"
  t0=$(date +%s.%N)
  q=$(printf '{"briefings": "SELECT count(DISTINCT bundle) AS bundles, count(DISTINCT shard) AS shards, count(*) AS briefing_rows FROM read_parquet(\x27%s/table-big/briefings/*.parquet\x27)", "probes": "SELECT count(*) AS probe_rows, round(avg(CASE WHEN kept THEN 1 ELSE 0 END), 3) AS kept_share FROM read_parquet(\x27%s/table-big/probes/*.parquet\x27)"}' "$(realpath "$work")" "$(realpath "$work")")
  res=$(printf '%s' "$q" | DUCKDB_DIR="$duckdb_dir" node testdata/duckdb/query.cjs)
  t1=$(date +%s.%N)
  echo "  $res"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "  both queries: %.1f s wall\n", b - a }'
  got=$(printf '%s' "$res" | python3 -c 'import json,sys; print(json.load(sys.stdin)["briefings"][0]["bundles"])')
  if [ "$got" != "$N" ]; then
    echo "FAIL: DuckDB reads $got distinct bundles in the merged table, not $N" >&2
    exit 1
  fi
  echo "  ok: every bundle of the $SHARDS shards in one table"
else
  echo "no node or no @duckdb/node-api in $duckdb_dir (.ci/run installs it): the merged table is not read" >&2
fi

echo
echo "union check on $CHECK_N bundles: the $SHARDS shards' per-bundle scores against one unsharded run"
"$bin" eval --json "$check" > "$work/check-whole.json"
for ((k = 0; k < SHARDS; k++)); do
  "$bin" eval --json --shard "$k/$SHARDS" "$check" > "$work/check-$k.json" 2>/dev/null
done
"$bin" eval --json --sample 100 "$check" > "$work/check-sample.json" 2>/dev/null
for ((k = 0; k < SHARDS; k++)); do
  "$bin" eval --json --sample 100 --shard "$k/$SHARDS" "$check" > "$work/check-sample-$k.json" 2>/dev/null
done
python3 - "$work" "$SHARDS" <<'EOF'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])

def results(path):
    d = json.load(open(path))
    return {r["bundle"]: json.dumps(r, sort_keys=True) for r in d.get("results", [])}, d.get("selection")

def union(prefix):
    out, chats = {}, 0
    for k in range(n):
        part, sel = results("%s/%s-%d.json" % (work, prefix, k))
        for b, r in part.items():
            if b in out:
                sys.exit("FAIL: %s in two shards" % b)
            out[b] = r
        chats += sel["selected"] if sel else 0
    return out, chats

whole, _ = results(work + "/check-whole.json")
got, chats = union("check")
if got != whole:
    sys.exit("FAIL: the shards give %d results, the unsharded run %d; equal: %s" % (len(got), len(whole), got == whole))
print("ok: %d bundles of %d chats, each in exactly one shard, scores byte for byte the unsharded run's" % (len(got), chats))
sample, sel = results(work + "/check-sample.json")
got, chats = union("check-sample")
if got != sample or chats != sel["selected"]:
    sys.exit("FAIL: the sample's shards give %d results, the sample %d" % (len(got), len(sample)))
if any(whole[b] != r for b, r in sample.items()):
    sys.exit("FAIL: a sampled bundle scores otherwise than in the whole run")
s = sel["sample"]
print("ok: sample of %d of %d chats in %d strata (seed %d): %d bundles, its shards cover it exactly once" % (s["picked"], s["of"], len(s["counts"]), s["seed"], len(sample)))
EOF
