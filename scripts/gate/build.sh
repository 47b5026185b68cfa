#!/usr/bin/env bash
# build.sh: build compact from the action's own source (the ref the
# workflow's `uses:` names) when the binary was not restored from the
# cache. A first build compiles SQLite translated to Go: about two minutes
# and 3 GB of memory; the binary is then cached for the runs after.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

cd "$GITHUB_ACTION_PATH"
command -v go >/dev/null 2>&1 || die 1 "no go on PATH (the setup-go step did not run)"
mkdir -p "$(dirname "$COMPACT")"
start=$SECONDS
go build -o "$COMPACT" .
echo "compact gate: built $("$COMPACT" --version) in $((SECONDS - start)) s"
