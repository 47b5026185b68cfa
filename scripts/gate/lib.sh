# lib.sh: what the gate's steps share (sourced by each step's script, never
# run on its own). The steps are the run: steps of ../../action.yml, one
# script each, so that gate_test.go can run them in order outside GitHub.
#
# Every input reaches a script as an environment variable (GATE_*, set by
# the step's env: in action.yml), never spliced into a script's text, so no
# input is ever read as shell. Keys come only from the caller's env: and are
# never printed; nothing here runs with `set -x`.

set -euo pipefail

# gate_error MESSAGE: an error annotation on the job (and its log line).
gate_error() {
	printf '::error title=compact gate::%s\n' "$*"
}

# gate_warning MESSAGE: a warning annotation.
gate_warning() {
	printf '::warning title=compact gate::%s\n' "$*"
}

# die STATUS MESSAGE: stop the step with STATUS after one error line.
die() {
	local status=$1
	shift
	gate_error "$*"
	exit "$status"
}

# set_output NAME VALUE: a step output (GITHUB_OUTPUT), one line or many.
set_output() {
	local name=$1 value=$2 delim
	if [[ $value == *$'\n'* ]]; then
		delim="GATE_EOF_${RANDOM}${RANDOM}${RANDOM}"
		printf '%s<<%s\n%s\n%s\n' "$name" "$delim" "$value" "$delim" >>"$GITHUB_OUTPUT"
	else
		printf '%s=%s\n' "$name" "$value" >>"$GITHUB_OUTPUT"
	fi
}

# need_compact: the compact binary the earlier steps built or were given.
need_compact() {
	if [[ -z ${COMPACT:-} || ! -x $COMPACT ]]; then
		die 1 "no compact binary at '${COMPACT:-}' (the build step did not run or failed)"
	fi
}

# cache_entries: how many answers the response cache holds (0 when there
# is none). COMPACT_CACHE_DIR is set by the step.
cache_entries() {
	local n
	n=$("$COMPACT" cache stats --json 2>/dev/null | sed -n 's/^ *"entries": *\([0-9][0-9]*\).*/\1/p')
	printf '%s\n' "${n:-0}"
}

# enter_bundles DIR: sets bundles to the name compact is given for DIR.
# Bundles the gate extracted sit under RUNNER_TEMP, an absolute path: the
# step moves to their parent, so that the report says "under bundles", not
# the runner's temporary directory (a relative config path is made
# absolute first).
enter_bundles() {
	bundles=$1
	if [[ $bundles == /* ]]; then
		if [[ -n ${COMPACT_CONFIG:-} && $COMPACT_CONFIG != /* ]]; then
			COMPACT_CONFIG=$PWD/$COMPACT_CONFIG
			export COMPACT_CONFIG
		fi
		cd "$(dirname "$bundles")"
		bundles=$(basename "$bundles")
	fi
}
