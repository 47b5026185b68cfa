#!/usr/bin/env bash
# Times compact on the hostile inputs of issue 14: each was exponential,
# quadratic or unbounded before, and must now finish in bounded time and
# memory. Prints one line per case: wall seconds, peak RSS, exit status
# and the first line compact printed on stderr.
#
#   bench/hostile.sh             # all cases (about a minute on 2 cores)
#   OUT=/tmp/hostile bench/hostile.sh
#
# Inputs are generated into $OUT (default bench/out/hostile) once.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out/hostile}
mkdir -p "$OUT"
go build -o "$OUT/compact" .
C=$OUT/compact

[ -f "$OUT/cycle100k.jsonl" ] || go run ./bench/genjsonl -shape cycle -n 100000 >"$OUT/cycle100k.jsonl"
[ -f "$OUT/chain200k.jsonl" ] || go run ./bench/genjsonl -shape chain -n 200000 >"$OUT/chain200k.jsonl"
rm -f "$OUT/dag40.json"  # regenerated with its array form
[ -f "$OUT/chain24k.jsonl" ] || go run ./bench/genjsonl -shape chain -n 24000 >"$OUT/chain24k.jsonl"
python3 - "$OUT" <<'PY'
import json, os, random, sys
out = sys.argv[1]
# A tool input whose referentialEqualities share every level: its
# JSON.stringify doubles per level (40 levels: about 29 hours before).
p = os.path.join(out, "dag40.json")
if not os.path.exists(p):
    node = '"leaf-text"'
    for _ in range(40):
        node = '{"a":' + node + ',"b":null}'
    base = "parts.0.input"
    eq = ['"%s.a":["%s.b"]' % (base + ".a" * k, base + ".a" * k) for k in range(40)]
    msg = '{"id":"m","role":"assistant","parts":[{"type":"tool-run","toolCallId":"t","state":"output-available","input":' + node + '}]}'
    open(p, "w").write('{"json":' + msg + ',"meta":{"referentialEqualities":{' + ",".join(eq) + '},"v":1}}')
    eq = ['"0.%s.a":["0.%s.b"]' % (base + ".a" * k, base + ".a" * k) for k in range(40)]
    open(os.path.join(out, "dag40-array.json"), "w").write('{"json":[' + msg + '],"meta":{"referentialEqualities":{' + ",".join(eq) + '},"v":1}}')
# Two unrelated 4 MB briefings (a runaway answer against a long actual).
words = "the a build test fix route page server client cache token model run file path".split()
for name, seed in (("a4m.md", 1), ("b4m.md", 2)):
    p = os.path.join(out, name)
    if os.path.exists(p):
        continue
    r = random.Random(seed)
    lines, size = [], 0
    while size < 4 << 20:
        l = " ".join(r.choice(words) for _ in range(12)) + "."
        lines.append(l)
        size += len(l) + 1
    open(p, "w").write("\n".join(lines) + "\n")
PY
# a bundle holding the two briefings, with a replay whose answer is b4m.md
B=$OUT/bundles/chat/compression-001
if [ ! -d "$B" ]; then
  mkdir -p "$B/replays/big"
  cp "$OUT/a4m.md" "$B/actual-output.md"
  cp "$OUT/b4m.md" "$B/replays/big/output.md"
  printf '{"chatId":"c","chatTitle":"t","compressionNumber":1,"boundaryMessageIndex":1}\n' >"$B/metadata.json"
  printf '<user>x</user>' >"$B/compact-history.xml"
  printf 's' >"$B/system-prompt.md"; printf 'u' >"$B/user-message.md"
  printf '{"bundle":"%s","run":"big","model":"m","ok":true}\n' "$B" >"$B/replays/big/replay.json"
fi

run() { # name, then the command; stdin from $IN when set
  local name=$1; shift
  local t0 t1 st=0 rss
  t0=$(date +%s.%N)
  /usr/bin/time -f %M -o "$OUT/rss" "$@" <"${IN:-/dev/null}" >"$OUT/stdout" 2>"$OUT/stderr" || st=$?
  t1=$(date +%s.%N)
  rss=$(tail -1 "$OUT/rss")
  printf '%-44s %7.2f s %8.0f MB  exit %-3s %s\n' "$name" "$(echo "$t1 - $t0" | bc)" "$(echo "$rss / 1024" | bc)" "$st" \
    "$(grep -v '^Command exited' "$OUT/stderr" | head -1 | cut -c1-90)"
}

echo "case                                            wall       peak RSS  exit  first line on stderr"
run "tokens: shared-reference DAG, depth 40" "$C" tokens "$OUT/dag40.json"
run "serialize: shared-reference DAG, depth 40" "$C" serialize "$OUT/dag40-array.json"
run "simulate --jsonl: parent cycle, 100k" "$C" simulate --jsonl "$OUT/cycle100k.jsonl"
run "simulate --jsonl: linear chain, 200k" "$C" simulate --jsonl "$OUT/chain200k.jsonl" --context-window 4000
run "simulate builtin, small window, chain 24k" "$C" simulate --jsonl "$OUT/chain24k.jsonl" --context-window 2000 --summarizer builtin
run "diff: 4 MB against 4 MB" "$C" diff "$OUT/bundles" --run big
IN=/dev/zero run "tokens < /dev/zero" "$C" tokens
IN=/dev/zero run "simulate --jsonl - < /dev/zero" "$C" simulate --jsonl -
run "extract --db a named pipe" sh -c "rm -f '$OUT/fifo'; mkfifo '$OUT/fifo'; exec '$C' extract --db '$OUT/fifo' --out '$OUT/x'"
