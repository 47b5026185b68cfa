#!/usr/bin/env bash
# Replays 200 bundles against a loopback fake OpenAI-compatible server that
# answers in 100 ms, at -j 16, and compares the wall time with the ideal
# (200 / 16 x 0.1 s). Goal: at least 0.9 of ideal. Also prints peak RSS.
#
#   bench/replay.sh                 # BUNDLES=200 JOBS=16 DELAY=100ms
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLES=${BUNDLES:-200}
JOBS=${JOBS:-16}
DELAY=${DELAY:-100ms}
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
[ -x /usr/bin/time ] || { echo "bench/replay.sh needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

go build -o "$OUT/compact" .
go build -o "$OUT/fakellm" ./bench/fakellm
work=$(mktemp -d "$OUT/replay-XXXXXX")
trap 'kill "$fake_pid" 2>/dev/null || true; rm -rf "$work"' EXIT

# Bundles: the sample database's, copied until there are enough.
"$OUT/compact" extract --quiet --db examples/stagewise/instances.sqlite --out "$work/src" >/dev/null
mapfile -t src < <(find "$work/src" -name metadata.json -printf '%h\n' | sort)
mkdir -p "$work/bundles"
for ((i = 0; i < BUNDLES; i++)); do
  cp -r "${src[$((i % ${#src[@]}))]}" "$work/bundles/b$(printf %04d "$i")"
done

"$OUT/fakellm" -delay "$DELAY" -lifetime 10m > "$work/fake.addr" &
fake_pid=$!
for _ in $(seq 50); do [ -s "$work/fake.addr" ] && break; sleep 0.1; done
base=$(head -1 "$work/fake.addr")

start=$(date +%s.%N)
COMPACT_OPENAI_BASE_URL="$base" OPENAI_API_KEY=bench-not-a-secret /usr/bin/time -f "%M" -o "$work/rss" \
  "$OUT/compact" replay --quiet --json --model gpt-5.4-nano -j "$JOBS" "$work/bundles" > "$work/result.json"
end=$(date +%s.%N)
ok=$(grep -c '"status": "ok"' "$work/result.json" || true)
awk -v s="$start" -v e="$end" -v n="$BUNDLES" -v j="$JOBS" -v d="$DELAY" -v ok="$ok" -v rss="$(cat "$work/rss")" 'BEGIN {
  sub(/ms$/, "", d); delay = d / 1000; wall = e - s; ideal = n / j * delay
  printf "bundles %d (ok %d), -j %d, server delay %.3f s\n", n, ok, j, delay
  printf "wall %.2f s, ideal %.2f s, ideal/wall %.2f (goal >= 0.9), peak RSS %.0f MB\n", wall, ideal, ideal / wall, rss / 1024
}'
