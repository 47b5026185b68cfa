#!/usr/bin/env bash
# Times `compact eval` (offline probe scores) over 1,000 synthetic bundles
# of about 30,000 characters each: the bundles of bench/diff.sh (100
# chains of 10 compressions, each with a previous briefing in its history
# and one replay, replays/bench/, whose output is the actual briefing with
# sentences reworded, sections dropped, paths lost).
# Prints, per output format, the wall time, the CPU time (user+sys), the
# peak RSS and the output size, then the first lines of the text report;
# then the text run again with --table (the results table: Parquet and
# JSON Lines of every bundle, briefing and probe), and the table's files,
# rows and sizes.
#
#   bench/eval.sh                    # 1000 bundles of 30000 characters
#   BUNDLES=200 CHARS=10000 bench/eval.sh
#
# The bundles are written once by `go run ./internal/diff/benchgen` to
# bench/out/diff-<BUNDLES>-<CHARS>/ (override the root with OUT=DIR), the
# same directory bench/diff.sh uses, and kept for the next run.
# Goal: the text run under 10 s on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=eval
. bench/bundles.sh

echo "compact eval over $BUNDLES bundles of about $CHARS characters ($(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg))"
printf '%-18s %8s %8s %8s %10s %5s\n' run wall_s cpu_s rss_MB output_MB exit
timeit "json" "$bin" eval --json "$data"
timeit "markdown" "$bin" eval --format markdown "$data"
timeit "text" "$bin" eval "$data"
rm -rf "$OUT/eval-table"
timeit "text --table" "$bin" eval "$data" --table "$OUT/eval-table"
echo "goal: text under 10 s wall on 2 idle cores; cpu_s is user+sys, so on a loaded machine cpu_s/2 is the idle wall time"
echo
head -n 12 "$OUT/eval-last.out"
echo
echo "the results table ($OUT/eval-table):"
for f in "$OUT"/eval-table/*/*; do
  case $f in
  *.jsonl.gz) printf '  %-60s %10d bytes %9d rows\n' "${f#"$OUT"/}" "$(stat -c %s "$f")" "$(zcat "$f" | wc -l)" ;;
  *) printf '  %-60s %10d bytes\n' "${f#"$OUT"/}" "$(stat -c %s "$f")" ;;
  esac
done
