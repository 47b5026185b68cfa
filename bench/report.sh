#!/usr/bin/env bash
# Times `compact report` over 5,000 synthetic bundles and measures the page
# in headless Chromium: its size, how long it takes to load (navigation to
# the load event) and to unpack the worst bundle's section, at a desktop
# and a phone's width, and any console error. The bundles come from
# internal/diff/benchgen (500 chains of 10 compressions, one replay each),
# written once to bench/out/diff-<BUNDLES>-<CHARS>/ (override with OUT=DIR)
# and kept.
#
#   bench/report.sh                       # 5000 bundles of about 4,000 characters
#   BUNDLES=5000 CHARS=30000 bench/report.sh   # the worst case: --max-size applies
#
# Needs Chromium for the load times (Debian's chromium, or COMPACT_CHROMIUM);
# without it, only the report's own figures are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/out}
BUNDLES=${BUNDLES:-5000}
CHARS=${CHARS:-4000}
mkdir -p "$OUT"

go build -o "$OUT/compact" .
go build -o "$OUT/reportload" ./bench/reportload
data="$OUT/diff-$BUNDLES-$CHARS/prerelease"
if [ ! -d "$data" ]; then
  go run ./internal/diff/benchgen -out "$data" -bundles "$BUNDLES" -chars "$CHARS"
fi
page="$OUT/report-$BUNDLES-$CHARS.html"

echo "compact report over $BUNDLES bundles of about $CHARS characters ($(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg))"
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "report: %e s wall, %U s user, %S s sys, %M KB peak RSS" "$OUT/compact" report "$data" -o "$page"
else
  time "$OUT/compact" report "$data" -o "$page"
fi
echo "page: $(stat -c %s "$page") bytes"
if ! "$OUT/reportload" -html "$page" -width 1280 -open 1; then
  echo "load times not measured (reportload needs Chromium)"
  exit 0
fi
"$OUT/reportload" -html "$page" -width 390 -open 1
