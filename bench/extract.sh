#!/usr/bin/env bash
# Measures `compact extract` against the floor on large databases: sqlite3
# reading the same columns to /dev/null plus `cp -r` of compact's own output
# tree (the cost of creating the same files). Prints, per size: DB size,
# messages, bundles, wall seconds of each, the ratio, throughput and
# compact's peak RSS.
#
#   bench/extract.sh            # about 500 MB and 2 GB
#   SIZES="450" bench/extract.sh   # chats per database (200 messages each,
#                                  # about 1.1 MB per chat)
#
# Work files go to bench/out/ (override with OUT=DIR); the databases are kept
# for the next run, the output trees are removed at the end. Each timed run
# writes into a fresh directory after `sync`: deleting a large tree right
# before a run makes that run several times slower on these machines.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}
SIZES=${SIZES:-"450 1800"}
mkdir -p "$OUT"

command -v sqlite3 >/dev/null || { echo "bench/extract.sh needs the sqlite3 CLI (apt-get install sqlite3)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/extract.sh needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

go build -o "$OUT/compact" .
bin="$OUT/compact"
run=$(date +%s)

now() { date +%s.%N; }
printf '%-8s %9s %9s %8s %9s %9s %9s %7s %9s %8s\n' size db_MB messages bundles compact_s sqlite_s cp_s ratio MB_per_s rss_MB
for chats in $SIZES; do
  db="$OUT/bench-$chats.sqlite"
  if [ ! -f "$db" ]; then
    "$bin" sample-db --quiet --out "$db" --chats "$chats" --messages-per-chat 200 >/dev/null
  fi
  bytes=$(stat -L -c %s "$db")
  messages=$(sqlite3 "$db" "SELECT count(*) FROM agentMessages")
  dest="$OUT/run-$run-$chats"
  sync
  t0=$(now)
  /usr/bin/time -f "%M" -o "$OUT/rss-$run-$chats" "$bin" extract --quiet --json --db "$db" --out "$dest/prerelease" > "$OUT/summary-$run-$chats.json"
  t1=$(now)
  bundles=$(awk -F'[:,]' '/"bundles"/ { gsub(/ /, "", $2); print $2; exit }' "$OUT/summary-$run-$chats.json")
  sync
  t2=$(now)
  sqlite3 "$db" "SELECT parts, metadata FROM agentMessages" > /dev/null
  t3=$(now)
  sync
  t4=$(now)
  cp -r "$dest" "$dest-cp"
  t5=$(now)
  awk -v c0="$t0" -v c1="$t1" -v s0="$t2" -v s1="$t3" -v p0="$t4" -v p1="$t5" \
      -v b="$bytes" -v m="$messages" -v n="$bundles" -v r="$(cat "$OUT/rss-$run-$chats")" -v label="$((bytes / 1000000))MB" \
      'BEGIN { c = c1 - c0; s = s1 - s0; p = p1 - p0; printf "%-8s %9.0f %9d %8d %9.2f %9.2f %9.2f %7.2f %9.0f %8.0f\n", label, b/1e6, m, n, c, s, p, c/(s+p), b/1e6/c, r/1024 }'
done
echo "ratio = compact / (sqlite3 + cp -r); goal: at most 1.2 at both sizes, peak RSS under 256 MB"
rm -rf "$OUT"/run-"$run"-* "$OUT"/rss-"$run"-* "$OUT"/summary-"$run"-*
