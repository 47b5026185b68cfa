#!/usr/bin/env bash
# chaos.sh: kill compact with SIGKILL in the middle of its work, run the
# same command again, and check that nothing is left behind and that the
# outputs are the ones a clean run writes (issue 14, item 4).
#
# It builds the binary (or takes COMPACT_BIN), generates a ~50 MB database
# (sample-db --chats 45), makes a clean reference (extract, then replay
# --model builtin), and then CHAOS_RUNS times (default 5):
#   extract --force   killed after a random delay, then run to completion;
#   replay --force -j 4 (builtin) killed likewise, then `replay -j 4` to
#                     finish the rest;
# and after each round checks that
#   - the extract output is the reference's (diff -r, replays aside), and
#     the replayed output.md files are the reference's (diff -r without
#     replay.json, whose timings differ);
#   - no .<out>.partial-*, *.old or .<run>.tmp-* is left anywhere under the
#     output's parent.
# It exits non-zero on any failure and ends with a one-line summary.
#
# Environment:
#   CHAOS_RUNS       rounds (default 5)
#   CHAOS_MAX_DELAY  longest delay before the kill, in seconds (default 1.5;
#                    capped at 1.1 times the command's duration on a warm
#                    cache, so that most kills land while it works)
#   CHAOS_COMMANDS   which commands to kill: "extract replay" (default)
#   CHAOS_CHATS      chats of the generated database (default 45, ~50 MB)
#   CHAOS_KEEP       1 keeps the work directory
#   COMPACT_BIN      a built binary to use instead of building one
set -u -o pipefail

runs=${CHAOS_RUNS:-5}
max_delay=${CHAOS_MAX_DELAY:-1.5}
commands=${CHAOS_COMMANDS:-extract replay}
chats=${CHAOS_CHATS:-45}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/compact-chaos.XXXXXX")
failures=0
notes=()

cleanup() {
	if [ "${CHAOS_KEEP:-0}" = 1 ]; then
		echo "chaos: work directory kept: $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

fail() {
	echo "chaos: FAIL: $*" >&2
	failures=$((failures + 1))
}

die() {
	echo "chaos: $*" >&2
	echo "chaos: FAILED before the rounds: $*"
	exit 1
}

now_ms() { date +%s%3N; }

bin=${COMPACT_BIN:-}
if [ -z "$bin" ]; then
	bin=$work/compact
	(cd "$root" && go build -o "$bin" .) || die "go build failed"
fi

db=$work/chaos.sqlite
"$bin" sample-db --chats "$chats" --out "$db" -q >/dev/null || die "sample-db failed"

# The clean reference: ref/X extracted (copied aside as ref-extract/X
# before replay writes into it), then replayed.
ref=$work/ref
mkdir -p "$ref" "$work/ref-extract"
t0=$(now_ms)
"$bin" extract --db "$db" --out "$ref/X" -q >/dev/null || die "clean extract failed"
t1=$(now_ms)
cp -a "$ref/X" "$work/ref-extract/X"
"$bin" replay --model builtin -j 4 "$ref/X" >/dev/null || die "clean replay failed"
t2=$(now_ms)
replay_ms=$((t2 - t1))

# cap_ms prints the longest delay for a command that takes $1 ms.
cap_ms() {
	local max_ms cap
	max_ms=$(awk -v s="$max_delay" 'BEGIN { printf "%d", s * 1000 }')
	cap=$(($1 * 11 / 10 + 10))
	if [ "$cap" -lt "$max_ms" ]; then echo "$cap"; else echo "$max_ms"; fi
}
out=$work/out
mkdir -p "$out"
"$bin" extract --db "$db" --out "$out/X" -q >/dev/null || die "first extract failed"
# A --force run on a warm cache: what the rounds do.
t0=$(now_ms)
"$bin" extract --db "$db" --out "$out/X" --force -q >/dev/null || die "second extract failed"
t1=$(now_ms)
extract_ms=$((t1 - t0))
extract_cap=$(cap_ms "$extract_ms")
replay_cap=$(cap_ms "$replay_ms")
echo "chaos: $(du -h "$db" | cut -f1) database; extract --force ${extract_ms} ms, replay ${replay_ms} ms; kills within ${extract_cap} and ${replay_cap} ms" >&2

# leftovers lists what an interrupted run may leave under the output's
# parent.
leftovers() {
	find "$out" \( -name '.*.partial-*' -o -name '*.old' -o -name '.*.tmp-*' \) -prune -print
}

hits=0   # kills that found the command still at work
kills=0
removed_total=0

# kill_then_rerun NAME ARGS...: start compact ARGS, SIGKILL it after a
# random delay, then run the rerun command (set in $rerun) to completion.
kill_then_rerun() {
	local name=$1 cap=$2
	shift 2
	local delay_ms=$((RANDOM % (cap + 1)))
	"$bin" "$@" -q >/dev/null 2>"$work/killed.err" &
	local pid=$!
	sleep "$(awk -v m="$delay_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	local rc=$?
	kills=$((kills + 1))
	local left
	left=$(leftovers | wc -l)
	if [ "$rc" -eq 137 ]; then
		hits=$((hits + 1))
		echo "chaos: round $round: $name killed after ${delay_ms} ms, $left leftover(s)" >&2
	elif [ "$rc" -eq 0 ]; then
		echo "chaos: round $round: $name had finished before the kill (${delay_ms} ms)" >&2
	else
		fail "round $round: $name exited $rc before the kill: $(head -c 300 "$work/killed.err")"
	fi
	"$bin" "${rerun[@]}" >/dev/null 2>"$work/rerun.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "round $round: the $name rerun exited $rc: $(head -c 300 "$work/rerun.err")"
	fi
	local n
	n=$(sed -n 's/.*removed \([0-9][0-9]*\) leftovers\{0,1\} .*/\1/p' "$work/rerun.err" | head -1)
	if [ "$left" -gt 0 ] && [ -z "$n" ]; then
		fail "round $round: the $name rerun did not say it removed $left leftover(s)"
	fi
	removed_total=$((removed_total + ${n:-0}))
}

for round in $(seq 1 "$runs"); do
	case " $commands " in
	*" extract "*)
		rerun=(extract --db "$db" --out "$out/X" --force)
		kill_then_rerun extract "$extract_cap" extract --db "$db" --out "$out/X" --force
		if ! diff -r "$work/ref-extract/X" "$out/X" >"$work/diff.txt" 2>&1; then
			fail "round $round: the extract output differs from a clean run's: $(head -5 "$work/diff.txt")"
		fi
		;;
	esac
	case " $commands " in
	*" replay "*)
		rerun=(replay --model builtin -j 4 "$out/X")
		kill_then_rerun replay "$replay_cap" replay --model builtin -j 4 --force "$out/X"
		if ! diff -r -x replay.json "$ref/X" "$out/X" >"$work/diff.txt" 2>&1; then
			fail "round $round: the replayed output differs from a clean run's: $(head -5 "$work/diff.txt")"
		fi
		;;
	esac
	left=$(leftovers)
	if [ -n "$left" ]; then
		fail "round $round: leftovers after the reruns: $(echo "$left" | head -5 | tr '\n' ' ')"
	fi
done

summary="$runs round(s) of ${commands// /+}: $hits of $kills kills mid-run, $removed_total leftover(s) removed by reruns"
if [ "$failures" -gt 0 ]; then
	echo "chaos: FAILED, $failures failure(s); $summary"
	exit 1
fi
echo "chaos: OK; $summary; outputs equal a clean run's, nothing left behind"
