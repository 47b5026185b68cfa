#!/usr/bin/env bash
# Times the agents' session readers on generated sessions of each agent
# (Claude Code, Codex). Prints one line per run: size, wall seconds, CPU
# seconds (user and system: the figure that does not depend on what else
# the machine runs), peak RSS, and what was read.
#
#   - read whole: sniffed, read by internal/agents, turned into the
#     generic history and every compaction's history rendered, as
#     `compact simulate` reads a session (bench/readsession), MB each
#     (default 100);
#   - extract: `compact extract --from claude-code` on a Claude Code
#     session of BIG_MB (default 1024, in the shape of 2.1.x files:
#     progress records in the chain, every tool result written twice),
#     which streams: memory bounded by the longest stretch between two
#     compactions (goal, issue 25: under 256 MB, at least 100 MB/s);
#   - plain: the same file read by a plain JSON line reader (each line
#     decoded by encoding/json into a generic value and dropped), the
#     baseline;
#   - otel: an OpenTelemetry GenAI trace of OTEL_MB (default 72: each
#     call's input holds the whole context, compacted every 256 KB of tool output), read whole
#     (simulate's read) and by `compact extract --from otel`, which read
#     JSON Lines a line at a time.
#
#   bench/readers.sh
#   MB=300 BIG_MB=2048 bench/readers.sh
#   BIG_MB=0 bench/readers.sh          # without the big file
#   OUT=/tmp/readers bench/readers.sh
#
# Sessions are generated into $OUT (default bench/out/readers) once per size.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out/readers}
MB=${MB:-100}
BIG_MB=${BIG_MB:-1024}
OTEL_MB=${OTEL_MB:-72}
mkdir -p "$OUT" "$OUT/in"
go build -o "$OUT/readsession" ./bench/readsession
go build -o "$OUT/compact" .
R=$OUT/readsession

# run LABEL FILE CMD...: time CMD, print one row.
run() {
  local label=$1 f=$2
  shift 2
  local size start end rss user sys
  size=$(stat -c %s "$f" 2>/dev/null || stat -f %z "$f")
  # Warm the page cache: the figure is the reader's, not the disk's.
  cat "$f" >/dev/null
  start=$(date +%s.%N)
  /usr/bin/time -f '%M %U %S' -o "$OUT/rss" "$@" >"$OUT/stdout" 2>"$OUT/stderr"
  end=$(date +%s.%N)
  read -r rss user sys <"$OUT/rss"
  printf '%-24s %8.1f MB %7.2fs %7.2fs %7.0f MB %7.0f MB/s CPU  %s\n' "$label" "$(echo "$size/1048576" | bc -l)" \
    "$(echo "$end-$start" | bc -l)" "$(echo "$user+$sys" | bc -l)" "$(echo "$rss/1024" | bc -l)" \
    "$(echo "$size/1048576/($user+$sys)" | bc -l)" "$(head -c 120 "$OUT/stdout" | tr '\n' ' ')"
}

printf '%-24s %11s %8s %8s %10s %16s  %s\n' run size wall cpu "peak RSS" "throughput" "read"
for agent in claude-code codex; do
  f=$OUT/in/$agent-${MB}mb.jsonl
  [ -f "$f" ] || "$R" -gen "$agent" -mb "$MB" >"$f"
  run "$agent read whole" "$f" "$R" "$f"
done
if [ "$BIG_MB" -gt 0 ]; then
  f=$OUT/in/claude-code-${BIG_MB}mb.jsonl
  [ -f "$f" ] || "$R" -gen claude-code -mb "$BIG_MB" >"$f"
  rm -rf "$OUT/bundles"
  run "claude-code extract" "$f" "$OUT/compact" extract --from claude-code "$f" --out "$OUT/bundles" --quiet
  run "plain JSON line reader" "$f" "$R" -plain "$f"
  rm -rf "$OUT/bundles"
fi
if [ "$OTEL_MB" -gt 0 ]; then
  f=$OUT/in/otel-${OTEL_MB}mb.jsonl
  [ -f "$f" ] || "$R" -gen otel -mb "$OTEL_MB" >"$f"
  run "otel read whole" "$f" "$R" "$f"
  rm -rf "$OUT/bundles"
  run "otel extract" "$f" "$OUT/compact" extract --from otel "$f" --out "$OUT/bundles" --quiet
  rm -rf "$OUT/bundles"
fi
