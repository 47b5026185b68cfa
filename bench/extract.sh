#!/usr/bin/env bash
# Measures `compact extract` against the floor on large databases: sqlite3
# reading the same columns to /dev/null plus `cp -r` of compact's own output
# tree (the cost of creating the same files). Prints, per size: DB size,
# messages, bundles, wall seconds of each (median of REPS runs), the ratio,
# throughput and compact's peak RSS (the largest of the runs).
#
# It also times bench/readrows, which reads the same rows the way extract
# does (compact's store package, pure-Go SQLite through its C API, texts
# copied into memory used again) and does nothing else: go_read_s, and
# ratio_go = compact / (go_read + cp -r), show how much of the gap is the
# reading alone.
#
#   bench/extract.sh               # about 500 MB and 2 GB, 3 runs each
#   SIZES="450" REPS=5 bench/extract.sh
#                                  # SIZES: chats per database (200 messages
#                                  # each, about 1.1 MB per chat)
#
# Work files go to bench/out/ (override with OUT=DIR); the databases are kept
# for the next run, the output trees are removed at the end.
#
# Fairness on a shared machine, where both the disk and the page cache are
# noisy:
#   - every timed command starts after `sync`, with the database and the
#     programs (compact, sqlite3 and its libraries, cp) read into the page
#     cache just before (these machines drop cached pages within tens of
#     seconds, and a cold read would be charged to whoever runs first);
#   - each run writes into a fresh directory, and nothing is deleted until
#     every run is over (deleting a large tree right before a run makes that
#     run several times slower here);
#   - the commands take turns, REPS times, and the medians are compared;
#     every run is printed too;
#   - it waits until SETTLE seconds (default 300) have passed since its
#     last run deleted its trees: ext4 without a journal avoids reusing an
#     inode deleted in the last five minutes, and scans past every such
#     inode for each file it creates, which made file creation (compact's
#     and cp's alike) up to 10x slower right after a cleanup. Other large
#     deletions on the same filesystem (go test's temporary trees) have the
#     same effect.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}
SIZES=${SIZES:-"450 1800"}
REPS=${REPS:-3}
SETTLE=${SETTLE:-300}
mkdir -p "$OUT"

command -v sqlite3 >/dev/null || { echo "bench/extract.sh needs the sqlite3 CLI (apt-get install sqlite3)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/extract.sh needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

# One run at a time: a run deletes its trees after printing its figures,
# and a run started meanwhile would measure the deletion's slowdown.
exec 9>"$OUT/lock"
if ! flock -n 9; then
  echo "waiting for another bench/extract.sh (its trees are being deleted)" >&2
  flock 9
fi

go build -o "$OUT/compact" .
go build -o "$OUT/readrows" ./bench/readrows
echo "compact binary: $(stat -c %s "$OUT/compact") bytes ($(go env GOVERSION), $(go env GOOS)/$(go env GOARCH))"
bin="$OUT/compact"

if [ -f "$OUT/cleaned-at" ]; then
  left=$(( $(cat "$OUT/cleaned-at") + SETTLE - $(date +%s) ))
  if [ "$left" -gt 0 ]; then
    echo "waiting ${left} s: the last run deleted its trees less than ${SETTLE} s ago (SETTLE=0 skips)" >&2
    sleep "$left"
  fi
fi
run=$(date +%s)

now() { date +%s.%N; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The programs' own files are read too: these machines drop them from the
# page cache as fast as the database, and compact's binary (its size is
# printed above; most of it SQLite translated to Go) would then be paged
# in from disk at the start of each run, about 50 ms on the 500 MB
# database; sqlite3 and cp are small, but get the same treatment.
progs=("$OUT/compact" "$OUT/readrows" "$(command -v sqlite3)" "$(command -v cp)")
while read -r lib; do progs+=("$lib"); done < <(ldd "$(command -v sqlite3)" | awk '$3 ~ /^\// { print $3 }')
warm() { cat "$1" "${progs[@]}" > /dev/null; [ -f "$1-wal" ] && cat "$1-wal" > /dev/null; sync; }

report=()
for chats in $SIZES; do
  db="$OUT/bench-$chats.sqlite"
  if [ ! -f "$db" ]; then
    "$bin" sample-db --quiet --out "$db" --chats "$chats" --messages-per-chat 200 >/dev/null
  fi
  bytes=$(stat -L -c %s "$db")
  messages=$(sqlite3 "$db" "SELECT count(*) FROM agentMessages")
  cs="" ss="" ps="" gs="" rss=0 bundles=0
  for rep in $(seq "$REPS"); do
    dest="$OUT/run-$run-$chats-$rep"
    warm "$db"
    t0=$(now)
    /usr/bin/time -f "%M" -o "$OUT/rss-$run" "$bin" extract --quiet --json --db "$db" --out "$dest/prerelease" > "$OUT/summary-$run.json"
    t1=$(now)
    bundles=$(awk -F'[:,]' '/"bundles"/ { gsub(/ /, "", $2); print $2; exit }' "$OUT/summary-$run.json")
    r=$(cat "$OUT/rss-$run"); [ "$r" -gt "$rss" ] && rss=$r
    warm "$db"
    t2=$(now)
    sqlite3 "$db" "SELECT parts, metadata FROM agentMessages" > /dev/null
    t3=$(now)
    sync
    t4=$(now)
    cp -r "$dest" "$dest-cp"
    t5=$(now)
    warm "$db"
    t6=$(now)
    "$OUT/readrows" "$db" > /dev/null
    t7=$(now)
    cs="$cs $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
    ss="$ss $(awk -v a="$t2" -v b="$t3" 'BEGIN { printf "%.2f", b - a }')"
    ps="$ps $(awk -v a="$t4" -v b="$t5" 'BEGIN { printf "%.2f", b - a }')"
    gs="$gs $(awk -v a="$t6" -v b="$t7" 'BEGIN { printf "%.2f", b - a }')"
  done
  c=$(echo "$cs" | median) s=$(echo "$ss" | median) p=$(echo "$ps" | median) g=$(echo "$gs" | median)
  report+=("$(awk -v c="$c" -v s="$s" -v p="$p" -v g="$g" -v b="$bytes" -v m="$messages" -v n="$bundles" -v r="$rss" -v label="$((bytes / 1000000))MB" \
      'BEGIN { printf "%-8s %9.0f %9d %8d %9.2f %9.2f %9.2f %7.2f %9.0f %8.0f %9.2f %8.2f", label, b/1e6, m, n, c, s, p, c/(s+p), b/1e6/c, r/1024, g, c/(g+p) }')")
  report+=("$(printf '  runs (s): compact%s | sqlite3%s | cp -r%s | go read%s' "$cs" "$ss" "$ps" "$gs")")
done
printf '%-8s %9s %9s %8s %9s %9s %9s %7s %9s %8s %9s %8s\n' size db_MB messages bundles compact_s sqlite_s cp_s ratio MB_per_s rss_MB go_read_s ratio_go
printf '%s\n' "${report[@]}"
echo "medians of $REPS runs; ratio = compact / (sqlite3 + cp -r); goal: at most 1.2 at both sizes, peak RSS under 256 MB"
echo "go_read = the same rows read the way extract reads them (pure-Go SQLite), nothing else; ratio_go = compact / (go_read + cp -r)"
rm -rf "$OUT"/run-"$run"-* "$OUT"/rss-"$run" "$OUT"/summary-"$run".json
sync
date +%s > "$OUT/cleaned-at"
