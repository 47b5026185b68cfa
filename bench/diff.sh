#!/usr/bin/env bash
# Times `compact diff` over 1,000 synthetic bundles of about 30,000
# characters each (100 chains of 10 compressions, each bundle with one
# replay whose output is the actual briefing with sentences reworded,
# sections dropped or added, paths lost and a leaked tag now and then).
# Prints, per output format, the wall time, the CPU time (user+sys, which
# stays meaningful on a busy machine), compact's peak RSS and the output
# size.
#
#   bench/diff.sh                    # 1000 bundles of 30000 characters
#   BUNDLES=200 CHARS=10000 bench/diff.sh
#
# The bundles are written once by `go run ./internal/diff/benchgen` to
# bench/out/diff-<BUNDLES>-<CHARS>/ (override the root with OUT=DIR) and
# kept for the next run. Goal: the text run under 10 s on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=diff
. bench/bundles.sh

echo "compact diff over $BUNDLES bundles of about $CHARS characters ($(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg))"
printf '%-18s %8s %8s %8s %10s %5s\n' run wall_s cpu_s rss_MB output_MB exit
timeit "text" "$bin" diff "$data"
timeit "text --stat" "$bin" diff --stat "$data"
timeit "json" "$bin" diff --json "$data"
timeit "markdown --stat" "$bin" diff --format markdown --stat "$data"
echo "goal: text under 10 s wall on 2 idle cores; cpu_s is user+sys, so on a loaded machine cpu_s/2 is the idle wall time"
