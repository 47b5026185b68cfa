#!/usr/bin/env bash
# Times the agents' session readers on a generated 100 MB session of each
# agent (Claude Code, Codex): sniffed, read, turned into the generic
# history and every compaction's history rendered, as `compact extract
# --from` and `compact simulate` read them (bench/readsession). Prints one
# line per file: size, wall seconds, CPU seconds (user and system: the
# figure that does not depend on what else the machine runs), peak RSS,
# and what was read. The goal (issue 17): a 100 MB session in under 2 s
# and 256 MB.
#
#   bench/readers.sh              # 100 MB each
#   MB=300 bench/readers.sh       # another size
#   OUT=/tmp/readers bench/readers.sh
#
# Sessions are generated into $OUT (default bench/out/readers) once per size.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out/readers}
MB=${MB:-100}
mkdir -p "$OUT"
go build -o "$OUT/readsession" ./bench/readsession
R=$OUT/readsession
printf '%-12s %10s %8s %8s %10s  %s\n' agent size wall cpu "peak RSS" "read"
for agent in claude-code codex; do
  f=$OUT/$agent-${MB}mb.jsonl
  [ -f "$f" ] || "$R" -gen "$agent" -mb "$MB" >"$f"
  size=$(stat -c %s "$f" 2>/dev/null || stat -f %z "$f")
  # Warm the page cache: the figure is the reader's, not the disk's.
  cat "$f" >/dev/null
  start=$(date +%s.%N)
  /usr/bin/time -f '%M %U %S' -o "$OUT/rss" "$R" "$f" >"$OUT/stdout"
  end=$(date +%s.%N)
  read -r rss user sys <"$OUT/rss"
  printf '%-12s %7.1f MB %7.2fs %7.2fs %7.0f MB  %s\n' "$agent" "$(echo "$size/1048576" | bc -l)" "$(echo "$end-$start" | bc -l)" "$(echo "$user+$sys" | bc -l)" "$(echo "$rss/1024" | bc -l)" "$(cat "$OUT/stdout")"
done
