#!/usr/bin/env bash
# cache-dir.sh: where compact keeps its response cache, so that
# actions/cache restores and saves that very directory. The cache-dir input
# when given; else what compact itself uses (cache.dir of the config file,
# COMPACT_CACHE_DIR, else the user's cache directory), as `compact cache
# stats` prints it; else a directory of the gate's own.
#
# Outputs: dir (absolute).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
need_compact

if [[ -n $GATE_CACHE_DIR ]]; then
	mkdir -p "$GATE_CACHE_DIR"
	dir=$(cd "$GATE_CACHE_DIR" && pwd)
else
	# The first line is "DIR: N answers, SIZE".
	# (Read whole: a pipe into head would cut compact off mid-write.)
	line=$("$COMPACT" cache stats 2>/dev/null) || line=""
	line=${line%%$'\n'*}
	dir=${line%: *}
	if [[ -z $line || $dir == "$line" || ! -d $dir ]]; then
		dir=$GATE_WORK/responses
		gate_warning "compact cache stats names no cache directory here; the response cache goes to $dir"
		mkdir -p "$dir"
	fi
	dir=$(cd "$dir" && pwd)
fi
echo "compact gate: response cache in $dir"
set_output dir "$dir"
