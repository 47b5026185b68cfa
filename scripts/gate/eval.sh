#!/usr/bin/env bash
# eval.sh: `compact eval` of the two runs, the baseline as the reference:
# the grounded score and coverage of each, and what the candidate lost, as
# markdown for the report ($GATE_WORK/eval.md). With eval-fail-on, its
# gates (e.g. regressed>0, overall<0.9) fail the gate too.
#
# Outputs: failed (true when an eval-fail-on gate held or eval could not
# score the runs while a gate was asked for), reason.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

md=$GATE_WORK/eval.md
rm -f "$md"
if [[ $GATE_EVAL != true ]]; then
	echo "compact gate: eval: off"
	set_output failed false
	exit 0
fi
need_compact
enter_bundles "$GATE_BUNDLES_DIR"
args=(eval --run "$GATE_BASELINE_RUN,$GATE_RUN" --baseline "$GATE_BASELINE_RUN" --format markdown --worst 10)
[[ -z $GATE_EVAL_FAIL_ON ]] || args+=(--fail-on "$GATE_EVAL_FAIL_ON")
err=$GATE_WORK/eval.err
rc=0
"$COMPACT" "${args[@]}" "$bundles" >"$md.tmp" 2>"$err" || rc=$?
cat "$err" >&2
mv "$md.tmp" "$md"
reason=$(grep '^compact eval: ' "$err" | tail -n 1 || true)
case $rc in
0) set_output failed false ;;
1)
	# A gate held, or a bundle could not be read: either way the gate fails.
	set_output failed true
	set_output reason "${reason:-compact eval exited 1}"
	;;
*)
	# Nothing to score (no probes in these bundles, say): a failure only
	# when a gate was asked for.
	[[ -s $md ]] || rm -f "$md"
	if [[ -n $GATE_EVAL_FAIL_ON ]]; then
		set_output failed true
		set_output reason "${reason:-compact eval exited $rc}"
	else
		gate_warning "eval could not score the runs (exit $rc): ${reason:-see the log}"
		set_output failed false
	fi
	;;
esac
