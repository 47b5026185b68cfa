#!/usr/bin/env bash
# Prepares the scratch directory the differential test runs in:
#   $UD_WORK/up/            a sparse export of the upstream tree at $UPSTREAM_REV,
#                           with node_modules (superjson, gray-matter, xml, tsx
#                           pinned to the versions of upstream's pnpm-lock.yaml)
#                           and the prompt module replaced by the conformance
#                           corpus's placeholder
#   $UD_WORK/up/scripts/experiments/extract-compression-test-data.messages.ts
#                           the same script reading agentMessages (the corpus's
#                           "messages" mode), made by messages-mode.mjs
# Nothing here is committed; UD_WORK defaults to ${TMPDIR:-/tmp}/upstream-diff.
#
# Needs: UPSTREAM_GIT (a git dir holding stagewise-io/stagewise, e.g. a bare
# clone) or UPSTREAM_TREE (an extracted tree of that commit); node 20, npm.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
: "${UPSTREAM_REV:=e3e125281a271643edcd6e40fa74f15646a22873}"
: "${UD_WORK:=${TMPDIR:-/tmp}/upstream-diff}"
up=$UD_WORK/up
stamp=$up/.ud-setup-$UPSTREAM_REV
if [[ -f $stamp && -z ${UD_FORCE_SETUP:-} ]]; then exit 0; fi

# The upstream files the script imports at run time (type-only imports are
# erased by tsx and need no file), plus the tsconfig that maps "@/".
P=apps/browser/src/backend/agents/shared
paths=(
  scripts/experiments/extract-compression-test-data.ts
  apps/browser/tsconfig.backend.json
  $P/base-agent/history-compression/serialization.ts
  $P/base-agent/history-compression/prompt.ts
  $P/prompts/utils/get-skills.ts
  $P/prompts/utils/metadata-converter/slash-items.ts
  $P/prompts/utils/special-tokens.ts
  LICENSE
)
rm -rf "$up"
mkdir -p "$up"
if [[ -n ${UPSTREAM_TREE:-} ]]; then
  for p in "${paths[@]}"; do
    mkdir -p "$up/$(dirname "$p")"
    cp "$UPSTREAM_TREE/$p" "$up/$p"
  done
elif [[ -n ${UPSTREAM_GIT:-} ]]; then
  git --git-dir="$UPSTREAM_GIT" archive "$UPSTREAM_REV" "${paths[@]}" pnpm-lock.yaml | tar -x -C "$up"
  grep -q '^  tsx@4.21.0:' "$up/pnpm-lock.yaml" || { echo "setup: upstream lock file does not pin tsx 4.21.0; update setup.sh" >&2; exit 1; }
else
  echo "setup: set UPSTREAM_GIT (git dir of stagewise-io/stagewise) or UPSTREAM_TREE (its tree at $UPSTREAM_REV)" >&2
  exit 2
fi

# The placeholder prompt, exactly as the conformance corpus was made.
cp "$repo/testdata/conformance/prompt-fixture/prompt.ts" "$up/$P/base-agent/history-compression/prompt.ts"

# Versions from upstream's pnpm-lock.yaml at e3e125281 (dependencies too).
cat > "$up/package.json" <<'JSON'
{
  "name": "upstream-diff-scratch",
  "private": true,
  "dependencies": {
    "superjson": "2.2.6",
    "gray-matter": "4.0.3",
    "xml": "1.0.1",
    "tsx": "4.21.0"
  },
  "overrides": {
    "copy-anything": "4.0.5",
    "js-yaml": "3.14.2",
    "kind-of": "6.0.3",
    "section-matter": "1.0.0",
    "strip-bom-string": "1.0.0",
    "esbuild": "0.27.2",
    "get-tsconfig": "4.13.0"
  }
}
JSON
(cd "$up" && npm install --no-audit --no-fund --loglevel=error >/dev/null)

node "$here/messages-mode.mjs" \
  "$up/scripts/experiments/extract-compression-test-data.ts" \
  "$up/scripts/experiments/extract-compression-test-data.messages.ts"
cp "$here/oracle.ts" "$up/scripts/experiments/ud-oracle.ts"
touch "$stamp"
echo "setup: upstream $UPSTREAM_REV ready in $up" >&2
