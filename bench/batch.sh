#!/usr/bin/env bash
# Replays bundles end to end through a loopback fake of OpenAI's Batch API
# (bench/batchfake, speaking /v1/files and /v1/batches): compact replay
# --batch uploads and submits, compact batch collect (a new process) polls,
# streams the results file and writes every answer; then a rerun under
# another --run is answered from the response cache. For each size it
# prints the wall time and compact's peak RSS of each step, and the
# requests the fake got. Peak RSS must not grow with the number of
# bundles: the bundles are found as they are submitted, the per-request
# state lives in the run's logs (.batches/<run>/items/, a line at a time),
# the upload is written to disk and streamed, the results file is read
# line by line, each result finds its request in the batch's record by
# its custom id, and no answer is held once written.
#
#   bench/batch.sh                      # SIZES="1000 10000"
#   SIZES="1000 10000 30000" bench/batch.sh
#
# The bundles are written once by batchfake -gen to
# bench/out/batch-<N>/ (override the root with OUT=DIR) and kept; each run
# removes the replays and batch runs of the last one first.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-1000 10000}
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
[ -x /usr/bin/time ] || { echo "bench/batch.sh needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

go build -o "$OUT/compact" .
go build -o "$OUT/batchfake" ./bench/batchfake
work=$(mktemp -d "$OUT/batch-work-XXXXXX")
fake_pid=
trap '[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null; rm -rf "$work"' EXIT

step() { # label, then the command; prints wall seconds and peak RSS
  local label=$1; shift
  local code=0
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || code=$?
  if [ "$code" -ne 0 ]; then
    echo "$label: exit $code" >&2; tail -5 "$work/err" >&2; exit 1
  fi
  read -r wall rss < <(tail -n 1 "$work/time")
  printf '  %-34s %8.2f s %8.0f MB\n' "$label" "$wall" "$((rss / 1024))"
}

echo "compact replay --batch through a fake batch service ($(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg))"
for n in $SIZES; do
  data="$OUT/batch-$n"
  if [ ! -d "$data" ]; then
    "$OUT/batchfake" -gen "$data" -bundles "$n"
  fi
  rm -rf "$data/.batches"
  find "$data" -maxdepth 3 -type d -name replays -prune -exec rm -rf {} +
  "$OUT/batchfake" > "$work/fake.addr" &
  fake_pid=$!
  for _ in $(seq 600); do [ -s "$work/fake.addr" ] && break; sleep 0.05; done
  base=$(head -1 "$work/fake.addr")
  [ -n "$base" ] || { echo "batchfake did not start" >&2; exit 1; }
  export COMPACT_OPENAI_BASE_URL="$base" OPENAI_API_KEY=bench-not-a-secret COMPACT_CACHE_DIR="$work/cache-$n"
  echo "$n bundles:"
  step "submit (replay --batch)" "$OUT/compact" replay --batch --quiet --model gpt-5.4-nano --run bench "$data"
  step "collect (batch collect --wait)" "$OUT/compact" batch collect --quiet --wait --poll-interval 100ms --run bench "$data"
  ok=$(find "$data" -path '*/replays/bench/output.md' | wc -l)
  before=$(curl -s "$base/_stats" | sed 's/.*"calls":\([0-9]*\).*/\1/')
  step "rerun from the cache (--run again)" "$OUT/compact" replay --batch --quiet --model gpt-5.4-nano --run again "$data"
  stats=$(curl -s "$base/_stats")
  after=$(echo "$stats" | sed 's/.*"calls":\([0-9]*\).*/\1/')
  echo "  answers written: $ok of $n; fake: $stats; requests during the rerun: $((after - before))"
  kill "$fake_pid" 2>/dev/null || true
  wait "$fake_pid" 2>/dev/null || true
  fake_pid=
done
