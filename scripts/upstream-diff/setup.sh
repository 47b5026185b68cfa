#!/usr/bin/env bash
# Prepares the scratch tree the differential test runs in, for one upstream
# commit (UPSTREAM_REF, default e3e125281a27; see lib.sh):
#   $UD_UP/                 a sparse export of the upstream tree at that commit
#                           (the files the extraction script imports at run
#                           time, per layout), with node_modules (superjson,
#                           tsx and, for the browser-app layout, gray-matter
#                           and xml, pinned to upstream's pnpm-lock.yaml) and
#                           the prompt module replaced by the conformance
#                           corpus's placeholder
#   $UD_UP/scripts/experiments/extract-compression-test-data.MODE.HOST.ts
#                           the script variants: MODE history (unchanged) or
#                           messages (reading agentMessages, made by
#                           messages-mode.mjs); HOST app (browser-app: the
#                           serializer has no host), none (agent-core, the
#                           script as shipped) or browser (agent-core, the
#                           app's host through the shim: host-shim.mjs)
#   $UD_UP/scripts/experiments/ud-oracle.ts  the function-level oracle of the
#                           layout (oracle.ts or oracle-core.ts)
#   $UD_UP/.ud-env          UD_LAYOUT, UD_HOSTS, UD_TSCONFIG
# Nothing here is committed; UD_WORK defaults to ${TMPDIR:-/tmp}/upstream-diff.
#
# The layout is found from the script itself: the directory its
# convertAgentMessagesToCompactMessageHistoryString is imported from.
#   apps/browser/src/backend/agents/shared/base-agent/history-compression
#       -> browser-app (e3e125281a27 and the releases before 503e76b22)
#   packages/agent-core/src/agents/shared/history-compression
#       -> agent-core (1.5 on; 1.29.0 = 18ac8a27b18c)
#
# Needs: UPSTREAM_GIT (a git dir holding stagewise-io/stagewise, e.g. a bare
# clone) or UPSTREAM_TREE (an extracted tree of one commit); node 20, npm.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
ud_resolve
up=$UD_UP
stamp=$up/.ud-setup-$UD_REV
if [[ -f $stamp && -z ${UD_FORCE_SETUP:-} ]]; then exit 0; fi

script=scripts/experiments/extract-compression-test-data.ts
if [[ -n ${UPSTREAM_TREE:-} ]]; then
  src=$(cat "$UPSTREAM_TREE/$script")
else
  src=$(git --git-dir="$UPSTREAM_GIT" show "$UD_REV:$script")
fi
# The serializer's directory, from the script's import line.
serdir=$(grep -o "from '\.\./\.\./[^']*/serialization'" <<<"$src" | head -1 | sed -E "s|from '\.\./\.\./||; s|/serialization'||")
case $serdir in
  apps/browser/src/backend/agents/shared/base-agent/history-compression) layout=browser-app ;;
  packages/agent-core/src/agents/shared/history-compression) layout=agent-core ;;
  *)
    echo "setup: the script at $UD_REV imports its serializer from '${serdir:-?}': a layout setup.sh does not know; add it" >&2
    exit 1
    ;;
esac

# The files each layout's script, shim and oracle import at run time
# (type-only imports are erased by tsx and need no file).
case $layout in
  browser-app)
    P=apps/browser/src/backend/agents/shared
    paths=(
      "$script"
      apps/browser/tsconfig.backend.json
      "$serdir/serialization.ts"
      "$serdir/prompt.ts"
      $P/prompts/utils/get-skills.ts
      $P/prompts/utils/metadata-converter/slash-items.ts
      $P/prompts/utils/special-tokens.ts
      LICENSE
    )
    hosts=app
    tsconfig=apps/browser/tsconfig.backend.json
    oracle=oracle.ts
    deps='"superjson": "2.2.6", "gray-matter": "4.0.3", "xml": "1.0.1", "tsx": "4.21.0"'
    ;;
  agent-core)
    paths=(
      "$script"
      "$serdir/serialization.ts"
      "$serdir/prompt.ts"
      "$serdir/define-tool-part-serializers.ts"
      packages/agent-core/src/host/host.ts
      apps/browser/src/backend/agents/chat/tool-part-serializers.ts
      LICENSE
    )
    hosts="none browser"
    tsconfig=.ud-tsconfig.json
    oracle=oracle-core.ts
    deps='"superjson": "2.2.6", "tsx": "4.21.0"'
    ;;
esac

rm -rf "$up"
mkdir -p "$up"
if [[ -n ${UPSTREAM_TREE:-} ]]; then
  for p in "${paths[@]}" pnpm-lock.yaml; do
    mkdir -p "$up/$(dirname "$p")"
    cp "$UPSTREAM_TREE/$p" "$up/$p"
  done
else
  git --git-dir="$UPSTREAM_GIT" archive "$UD_REV" "${paths[@]}" pnpm-lock.yaml | tar -x -C "$up"
fi
for pin in '  tsx@4.21.0:' '  superjson@2.2.6:'; do
  grep -q "^$pin" "$up/pnpm-lock.yaml" || { echo "setup: upstream lock file at $UD_REV does not pin ${pin# } ; update setup.sh" >&2; exit 1; }
done
[[ $layout == agent-core ]] && echo '{"compilerOptions": {}}' >"$up/$tsconfig"

# The placeholder prompt, exactly as the conformance corpus was made.
cp "$repo/testdata/conformance/prompt-fixture/prompt.ts" "$up/$serdir/prompt.ts"

# Versions from upstream's pnpm-lock.yaml (the same at e3e125281a27 and
# 18ac8a27b18c; dependencies too).
cat >"$up/package.json" <<JSON
{
  "name": "upstream-diff-scratch",
  "private": true,
  "dependencies": { $deps },
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

x=$up/scripts/experiments
base=$x/extract-compression-test-data
node "$here/messages-mode.mjs" "$base.ts" "$base.messages.tmp.ts"
if [[ $layout == browser-app ]]; then
  cp "$base.ts" "$base.history.app.ts"
  mv "$base.messages.tmp.ts" "$base.messages.app.ts"
else
  # The shim: the app's host (the real AgentHost with the real browser
  # serializers registered) and the script variants that pass it.
  node "$here/host-shim.mjs" "$up" "$serdir"
  cp "$base.ts" "$base.history.none.ts"
  mv "$base.messages.tmp.ts" "$base.messages.none.ts"
  node "$here/host-shim.mjs" --script "$base.history.none.ts" "$base.history.browser.ts"
  node "$here/host-shim.mjs" --script "$base.messages.none.ts" "$base.messages.browser.ts"
fi
cp "$here/$oracle" "$x/ud-oracle.ts"
cat >"$up/.ud-env" <<ENV
UD_LAYOUT=$layout
UD_HOSTS="$hosts"
UD_TSCONFIG=$tsconfig
UD_ORACLE=$oracle
ENV
touch "$stamp"
echo "setup: upstream $UD_REV ($layout layout, hosts: $hosts) ready in $up" >&2
