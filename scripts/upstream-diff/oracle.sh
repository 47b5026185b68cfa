#!/usr/bin/env bash
# The function-level oracle (oracle.ts): JSON lines in on stdin, the upstream's
# answers out on stdout. Runs setup.sh first if needed (UPSTREAM_GIT or
# UPSTREAM_TREE). Example:
#   UPSTREAM_GIT=/path/to/stagewise.git scripts/upstream-diff/oracle.sh < testdata/conformance/vectors/compact-history.jsonl
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${UD_WORK:=${TMPDIR:-/tmp}/upstream-diff}"
export UD_WORK
"$here/setup.sh"
up=$UD_WORK/up
# Keep the oracle current with the committed copy.
cmp -s "$here/oracle.ts" "$up/scripts/experiments/ud-oracle.ts" || cp "$here/oracle.ts" "$up/scripts/experiments/ud-oracle.ts"
loc=${ORACLE_LANG:-en_US.UTF-8}
exec env TZ=UTC LANG="$loc" LC_ALL="$loc" "$up/node_modules/.bin/tsx" --tsconfig "$up/apps/browser/tsconfig.backend.json" "$up/scripts/experiments/ud-oracle.ts"
