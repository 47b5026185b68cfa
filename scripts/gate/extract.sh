#!/usr/bin/env bash
# extract.sh: the bundles the gate replays: the bundles input as it is, or
# what `compact extract` writes from extract-from and extract-path (into
# the gate's scratch directory).
#
# Outputs: dir.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

if [[ -z $GATE_EXTRACT_FROM ]]; then
	set_output dir "$GATE_BUNDLES"
	exit 0
fi
need_compact
out=$GATE_WORK/bundles
case $GATE_EXTRACT_FROM in
stagewise) args=(--db "$GATE_EXTRACT_PATH") ;;
*) args=(--from "$GATE_EXTRACT_FROM" "$GATE_EXTRACT_PATH") ;;
esac
# The directory is the gate's own: --force replaces what an earlier run of
# the gate left there.
"$COMPACT" extract "${args[@]}" --out "$out" --force
set_output dir "$out"
