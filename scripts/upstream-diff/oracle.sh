#!/usr/bin/env bash
# The function-level oracle (oracle.ts, or oracle-core.ts for the agent-core
# layout): JSON lines in on stdin, the upstream's answers out on stdout, for
# UPSTREAM_REF (see lib.sh; UD_HOST=none|browser picks the agent-core
# serializer's host). Runs setup.sh first if needed. Example:
#   UPSTREAM_GIT=/path/to/stagewise.git scripts/upstream-diff/oracle.sh < testdata/conformance/vectors/compact-history.jsonl
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
ud_resolve
"$here/setup.sh"
ud_resolve
# Keep the oracle current with the committed copy.
cmp -s "$here/$UD_ORACLE" "$UD_UP/scripts/experiments/ud-oracle.ts" || cp "$here/$UD_ORACLE" "$UD_UP/scripts/experiments/ud-oracle.ts"
loc=${ORACLE_LANG:-en_US.UTF-8}
# shellcheck disable=SC2046
exec env TZ=UTC LANG="$loc" LC_ALL="$loc" UD_HOST="${UD_HOST:-none}" $(ud_oracle)
