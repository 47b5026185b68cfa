#!/usr/bin/env bash
# prepare.sh: the gate's first step. Checks every input before anything is
# built or sent (a typo fails in a second, not after a build and a replay),
# masks the keys in the job's log, and decides where the compact binary
# comes from: the compact-binary input, or a build of the action's own
# source, cached under a hash of that source.
#
# Outputs: compact (the binary's path), build (true when it must be built
# or restored from the cache), bin-dir, src-hash, work (the gate's scratch
# directory), timeout (batch-timeout in seconds).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

bool() { # NAME VALUE
	case $2 in
	true | false) ;;
	*) die 2 "$1: want true or false, got '$2'" ;;
	esac
}

bool comment "$GATE_COMMENT"
bool cache "$GATE_CACHE"
bool eval "$GATE_EVAL"
case $GATE_BATCH in
auto | true | false) ;;
*) die 2 "batch: want auto, true or false, got '$GATE_BATCH'" ;;
esac

# The bundles: a directory, or a source to extract them from.
if [[ -n $GATE_BUNDLES && -n $GATE_EXTRACT_FROM ]]; then
	die 2 "bundles and extract-from: give one of them (bundles: a directory of bundles; extract-from: where to extract them from)"
fi
if [[ -n $GATE_EXTRACT_FROM ]]; then
	case $GATE_EXTRACT_FROM in
	stagewise | claude-code | codex | otel) ;;
	*) die 2 "extract-from: want stagewise, claude-code, codex or otel, got '$GATE_EXTRACT_FROM'" ;;
	esac
	[[ -n $GATE_EXTRACT_PATH ]] || die 2 "extract-path: required with extract-from (the database, or the session files or directory)"
	[[ -e $GATE_EXTRACT_PATH ]] || die 2 "extract-path: $GATE_EXTRACT_PATH does not exist (paths are relative to the workspace)"
elif [[ -n $GATE_BUNDLES ]]; then
	[[ -d $GATE_BUNDLES ]] || die 2 "bundles: $GATE_BUNDLES is not a directory (paths are relative to the workspace)"
	[[ -z $GATE_EXTRACT_PATH ]] || die 2 "extract-path: goes with extract-from, not with bundles"
else
	die 2 "bundles: required (a directory of bundles written by compact extract), or extract-from and extract-path"
fi

# Packs: a built-in name, or a directory.
for p in "pack=$GATE_PACK" "baseline-pack=$GATE_BASELINE_PACK"; do
	name=${p%%=*} value=${p#*=}
	if [[ -n $value && ($value == */* || -e $value) && ! -d $value ]]; then
		die 2 "$name: $value is not a directory (a prompt pack directory, or a built-in pack's name)"
	fi
done
[[ -z $GATE_CONFIG || -f $GATE_CONFIG ]] || die 2 "config: $GATE_CONFIG is not a file"

[[ -n $GATE_RUN && -n $GATE_BASELINE_RUN ]] || die 2 "run and baseline-run: both need a name"
[[ $GATE_RUN != "$GATE_BASELINE_RUN" ]] || die 2 "run and baseline-run: both are '$GATE_RUN'; give the candidate and the baseline different names"
for r in "$GATE_RUN" "$GATE_BASELINE_RUN"; do
	[[ $r =~ ^[A-Za-z0-9_+][A-Za-z0-9._+@-]*$ ]] || die 2 "run names: '$r' is not a plain directory name (letters, digits, . _ + - @)"
done
[[ $GATE_COMMENT_TAG =~ ^[A-Za-z0-9._-]+$ ]] || die 2 "comment-tag: want letters, digits, . _ -, got '$GATE_COMMENT_TAG'"
[[ -z $GATE_JOBS || $GATE_JOBS =~ ^[1-9][0-9]*$ ]] || die 2 "jobs: want a whole number above 0, got '$GATE_JOBS'"
[[ -z $GATE_POLL_INTERVAL || $GATE_POLL_INTERVAL =~ ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$ ]] ||
	die 2 "poll-interval: want a duration such as 30s or 2m, got '$GATE_POLL_INTERVAL'"

# batch-timeout: 90m, 2h, 45s, or a number of minutes.
if [[ $GATE_BATCH_TIMEOUT =~ ^([0-9]+)([smh]?)$ ]]; then
	n=$((10#${BASH_REMATCH[1]}))
	case ${BASH_REMATCH[2]} in
	s) timeout=$n ;;
	h) timeout=$((n * 3600)) ;;
	*) timeout=$((n * 60)) ;;
	esac
else
	die 2 "batch-timeout: want a time such as 90m, 2h or 45s, got '$GATE_BATCH_TIMEOUT'"
fi
((timeout > 0)) || die 2 "batch-timeout: want more than 0, got '$GATE_BATCH_TIMEOUT'"

# Keys: masked in the log (secrets are already; a key made in an earlier
# step is not), and named, never shown.
keys=()
for v in GOOGLE_API_KEY GEMINI_API_KEY OPENAI_API_KEY ANTHROPIC_API_KEY COMPACT_API_KEY; do
	if [[ -n ${!v:-} ]]; then
		printf '::add-mask::%s\n' "${!v}"
		keys+=("$v")
	fi
done
if ((${#keys[@]})); then
	echo "compact gate: keys set: ${keys[*]}"
else
	echo "compact gate: no API key set (fine for the builtin model or a local server; hosted models need theirs in the step's env:)"
fi

work=${RUNNER_TEMP:?RUNNER_TEMP is not set}/compact-gate
mkdir -p "$work"
set_output work "$work"
set_output timeout "$timeout"

if [[ -n $GATE_COMPACT_BINARY ]]; then
	[[ -f $GATE_COMPACT_BINARY && -x $GATE_COMPACT_BINARY ]] || die 2 "compact-binary: $GATE_COMPACT_BINARY is not an executable file"
	bin=$(cd "$(dirname "$GATE_COMPACT_BINARY")" && pwd)/$(basename "$GATE_COMPACT_BINARY")
	set_output compact "$bin"
	set_output build false
	exit 0
fi

# Build from the action's own source: the binary is cached under a hash of
# everything that goes into it (the Go files that are not tests, go.mod,
# go.sum and the embedded files), so an unchanged action is not rebuilt.
cd "$GITHUB_ACTION_PATH"
[[ -f go.mod && -f main.go ]] || die 1 "the action's source is not at $GITHUB_ACTION_PATH"
if command -v sha256sum >/dev/null 2>&1; then
	sum() { sha256sum; }
	sumfiles() { xargs -0 sha256sum; }
else
	sum() { shasum -a 256; }
	sumfiles() { xargs -0 shasum -a 256; }
fi
hash=$(find main.go go.mod go.sum cmd configs internal -type f ! -name '*_test.go' ! -path '*/testdata/*' -print0 |
	LC_ALL=C sort -z | sumfiles | sum | cut -c1-32)
exe=""
[[ ${RUNNER_OS:-} != Windows ]] || exe=.exe
set_output bin-dir "$work/bin"
set_output compact "$work/bin/compact$exe"
set_output build true
set_output src-hash "$hash"
