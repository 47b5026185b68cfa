#!/usr/bin/env bash
# Refreshes testdata/conformance from the shared conformance corpus
# (../shared/conformance by default, or the directory given as $1), so the
# tests never read anything outside the repository.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-"$here/../shared/conformance"}
dst="$here/testdata/conformance"
if [ ! -f "$src/index.json" ]; then
  echo "sync-conformance: $src does not look like the conformance corpus (no index.json)" >&2
  exit 1
fi
tmp=$(mktemp -d "$here/testdata/.conformance.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -R "$src/." "$tmp/"
chmod -R u+w "$tmp"
rm -rf "$dst"
mv "$tmp" "$dst"
trap - EXIT
echo "synced $(find "$dst" -type f | wc -l) files from $src"
