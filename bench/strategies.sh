#!/usr/bin/env bash
# Every strategy of `compact simulate` on coding-agent histories of
# MESSAGES/4 and MESSAGES messages (400,000 by default): the generated
# history of internal/strategy's tests, a user request, a tool call, its
# 2 KB result and an answer, over and over, with the default window and
# the builtin summarizer. For each strategy it prints the CPU time and the
# bytes allocated at both sizes, and their exponent e (cost ~ n^e; 1 is
# linear, 2 quadratic). Goal: e <= 1.1 for both (the test fails
# otherwise). The CPU time is the least of five runs of each size,
# alternated, and still moves with the machine's load; the allocations
# do not.
#
#   bench/strategies.sh                        # MESSAGES=400000, every strategy
#   MESSAGES=100000 ONLY=onyx,stagewise bench/strategies.sh
#
# Then, end to end, `compact simulate --compare` of every strategy on a
# generated JSONL chain of MESSAGES lines (bench/genjsonl: no tool calls,
# so the strategies that rewrite tool results have nothing to do),
# with its wall time and peak RSS (needs /usr/bin/time; E2E=0 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
MESSAGES=${MESSAGES:-400000}
ONLY=${ONLY:-}
E2E=${E2E:-1}
OUT=${OUT:-bench/out}
mkdir -p "$OUT"

echo "strategies on $((MESSAGES / 4)) and $MESSAGES messages ($(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg))"
status=0
COMPACT_BENCH_STRATEGIES=$MESSAGES COMPACT_BENCH_STRATEGIES_ONLY=$ONLY \
  go test -count=1 -run '^TestStrategiesScaleLinearly$' -v -timeout 60m ./internal/strategy |
  sed -n 's/^ *scale_test.go:[0-9]*: //p; /^\(ok\|FAIL\|---\)/p' || status=$?
echo "load average now $(cut -d' ' -f1 /proc/loadavg)"

[ "$E2E" = 0 ] && exit "$status"
[ -x /usr/bin/time ] || { echo "the end-to-end run needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
go build -o "$OUT/compact" .
chain="$OUT/chain-$MESSAGES.jsonl"
[ -s "$chain" ] || go run ./bench/genjsonl -shape chain -n "$MESSAGES" > "$chain"
names=${ONLY:-$(go run . simulate --help | sed -n '/^Strategies:/,/^$/s/^  \([a-z-]*\):.*/\1/p' | paste -sd, -)}
start=$(date +%s.%N)
/usr/bin/time -f "%M" -o "$OUT/strategies.rss" "$OUT/compact" simulate --quiet --jsonl "$chain" --compare "$names" > "$OUT/strategies.txt"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v n="$MESSAGES" -v rss="$(cat "$OUT/strategies.rss")" -v names="$names" 'BEGIN {
  printf "compact simulate --compare %s on a chain of %d lines: %.1f s, peak RSS %.0f MB\n", names, n, e - s, rss / 1024
}'
sed -n '1,/^$/p' "$OUT/strategies.txt"
exit "$status"
