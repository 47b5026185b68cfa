#!/usr/bin/env bash
# replay.sh: replay the bundles twice, the baseline (baseline-model,
# baseline-pack, run baseline-run) and the candidate (model, pack, run),
# through the response cache: a request asked before (the baseline, most
# often) is answered from it and costs nothing.
#
# batch: true sends each run through the providers' batch APIs (half the
# price; `compact replay --batch`), then collects it with `compact batch
# collect --wait`, both runs within batch-timeout; past it, the batches are
# cancelled, what was answered is kept (in the response cache, for the next
# run) and the step fails. batch: auto does so where the model has a batch
# API and replays one request at a time where it has none (builtin, a local
# server); batch: false never batches.
#
# Outputs: incomplete (some bundles got no answer), cache-grew (the
# response cache holds more answers than before: worth saving).
# Writes $GATE_WORK/runs.md, one line per run for the report.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
need_compact

bundles=$GATE_BUNDLES_DIR
runs_md=$GATE_WORK/runs.md
: >"$runs_md"
incomplete=false
before=$(cache_entries)

finish() {
	local after
	after=$(cache_entries)
	set_output incomplete "$incomplete"
	if ((after > before)); then
		set_output cache-grew true
	else
		set_output cache-grew false
	fi
	echo "compact gate: response cache: $before answers before, $after after"
}
trap finish EXIT

# describe ROLE RUN HOW: a line of runs.md.
describe() {
	local model pack
	if [[ $1 == baseline ]]; then
		model=${GATE_BASELINE_MODEL:-$GATE_MODEL} pack=$GATE_BASELINE_PACK
	else
		model=$GATE_MODEL pack=$GATE_PACK
	fi
	# shellcheck disable=SC2016 # the backticks are markdown
	printf -- '- %s `%s`: model %s, prompts %s; %s\n' "$1" "$2" "${model:-of the cascade}" \
		"${pack:-of the bundles}" "$3" >>"$runs_md"
}

# choose ROLE: sets args to the model and pack flags of that run.
choose() {
	args=()
	if [[ $1 == baseline ]]; then
		[[ -z ${GATE_BASELINE_MODEL:-$GATE_MODEL} ]] || args+=(--model "${GATE_BASELINE_MODEL:-$GATE_MODEL}")
		[[ -z $GATE_BASELINE_PACK ]] || args+=(--pack "$GATE_BASELINE_PACK")
	else
		[[ -z $GATE_MODEL ]] || args+=(--model "$GATE_MODEL")
		[[ -z $GATE_PACK ]] || args+=(--pack "$GATE_PACK")
	fi
}

# start ROLE RUN: submit the run as a batch (batched=true), or replay it
# now.
start() {
	local role=$1 run=$2 rc=0 log
	choose "$role"
	if [[ $GATE_BATCH != false ]]; then
		log=$GATE_WORK/submit-$run.err
		"$COMPACT" replay --batch --run "$run" ${args[@]+"${args[@]}"} "$bundles" 2>"$log" || rc=$?
		cat "$log" >&2
		if ((rc == 0)); then
			batched=true
			return 0
		fi
		if ((rc == 2)) && [[ $GATE_BATCH == auto ]] && grep -q 'no batch API' "$log"; then
			echo "compact gate: $role run $run: the model has no batch API; replaying it one request at a time"
		else
			die "$rc" "$role run $run: compact replay --batch failed (exit $rc; the line above says why)"
		fi
	fi
	local jobs=()
	[[ -z $GATE_JOBS ]] || jobs=(-j "$GATE_JOBS")
	log=$GATE_WORK/replay-$run.out
	rc=0
	"$COMPACT" replay --run "$run" ${jobs[@]+"${jobs[@]}"} ${args[@]+"${args[@]}"} "$bundles" >"$log" || rc=$?
	cat "$log"
	case $rc in
	0) ;;
	1)
		incomplete=true
		gate_warning "$role run $run: some bundles got no answer (named above); diff leaves them out and the gate fails"
		;;
	*) die "$rc" "$role run $run: compact replay failed (exit $rc; the line above says why)" ;;
	esac
	describe "$role" "$run" "replayed one request at a time: $(tail -n 1 "$log")"
}

# collect RUN: compact batch collect --wait until the deadline; 124 when
# it passed first.
collect() {
	local run=$1 rc=0 pid poll=()
	((SECONDS < deadline)) || return 124
	[[ -z $GATE_POLL_INTERVAL ]] || poll=(--poll-interval "$GATE_POLL_INTERVAL")
	"$COMPACT" batch collect --run "$run" --wait ${poll[@]+"${poll[@]}"} "$bundles" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if ((SECONDS >= deadline)); then
			# SIGTERM is compact's Ctrl-C: what was collected stays recorded.
			kill -TERM "$pid" 2>/dev/null || true
			wait "$pid" || true
			return 124
		fi
		sleep 0.2
	done
	wait "$pid" || rc=$?
	return "$rc"
}

# One run after the other, the baseline first: a candidate that asks what
# the baseline asked (the same prompts and model, as on the default branch)
# is then answered from the response cache instead of paying twice.
# shellcheck disable=SC2004 # the $ shows gate_test.go what the step reads
deadline=$((SECONDS + $GATE_TIMEOUT))
for role in baseline candidate; do
	run=$GATE_RUN
	[[ $role == candidate ]] || run=$GATE_BASELINE_RUN
	batched=false
	start "$role" "$run"
	[[ $batched == true ]] || continue
	rc=0
	collect "$run" || rc=$?
	case $rc in
	0) ;;
	1)
		incomplete=true
		gate_warning "$role run $run: some bundles got no answer from the batches (named above); diff leaves them out and the gate fails"
		;;
	124)
		echo "compact gate: run $run: the batches did not end within $GATE_BATCH_TIMEOUT; cancelling them"
		"$COMPACT" batch cancel --run "$run" "$bundles" || true
		# What was answered before the cancel goes into the response cache,
		# so the next run of the job does not pay for it again.
		"$COMPACT" batch collect --run "$run" "$bundles" || true
		incomplete=true
		die 1 "the batches of run $run did not end within batch-timeout ($GATE_BATCH_TIMEOUT) and were cancelled; the answers that came are in the response cache: run the job again to send the rest, or raise batch-timeout"
		;;
	*) die "$rc" "$role run $run: compact batch collect failed (exit $rc; the line above says why)" ;;
	esac
	status=$("$COMPACT" batch status --run "$run" "$bundles" 2>/dev/null) || status=""
	cost=$(printf '%s\n' "$status" | sed -n 's/^cost: //p')
	describe "$role" "$run" "through the batch API: ${cost:-cost unknown}"
done
