# Sourced by bench/diff.sh and bench/eval.sh: builds compact into $OUT,
# writes the synthetic bundles of internal/diff/benchgen once
# ($OUT/diff-<BUNDLES>-<CHARS>/prerelease, kept for the next run) and
# defines timeit. The caller sets NAME (the prefix of its scratch files).
OUT=${OUT:-bench/out}
BUNDLES=${BUNDLES:-1000}
CHARS=${CHARS:-30000}
mkdir -p "$OUT"

go build -o "$OUT/compact" .
bin="$OUT/compact"
data="$OUT/diff-$BUNDLES-$CHARS/prerelease"
if [ ! -d "$data" ]; then
  go run ./internal/diff/benchgen -out "$data" -bundles "$BUNDLES" -chars "$CHARS"
fi
sync

now() { date +%s.%N; }
timeit() { # label, then the command; prints label, wall and CPU seconds, peak RSS, output size, exit
  local label=$1; shift
  local rss="$OUT/$NAME-rss.$$"
  local t0 t1 code=0
  t0=$(now)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%M %U %S" -o "$rss" "$@" > "$OUT/$NAME-out.$$" || code=$?
  else
    "$@" > "$OUT/$NAME-out.$$" || code=$?
    echo "0 0 0" > "$rss"
  fi
  t1=$(now)
  awk -v a="$t0" -v b="$t1" -v l="$label" -v c="$code" -v o="$(stat -c %s "$OUT/$NAME-out.$$")" \
    '{ printf "%-18s %8.2f %8.2f %8.0f %10.1f %5d\n", l, b - a, $2 + $3, $1 / 1024, o / 1e6, c }' <(tail -n 1 "$rss")
  mv "$OUT/$NAME-out.$$" "$OUT/$NAME-last.out" # the last command's output
  rm -f "$rss"
}
