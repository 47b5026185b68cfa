#!/usr/bin/env bash
# diff.sh: `compact diff --run RUN --baseline BASELINE-RUN --format
# markdown --fail-on FAIL-ON`, then the gate's verdict and its report: the
# verdict and why, how each run was replayed and what it cost, diff's
# markdown, and eval's in a collapsed block. The report goes to the job
# summary ($GITHUB_STEP_SUMMARY) and to $GATE_WORK/comment.md, the pull
# request comment (its first line a marker, so the comment step updates
# the gate's own comment; cut to GitHub's 65,536 characters, the summary
# having the whole).
#
# Outputs: verdict (pass or fail), reason, comment-file.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
need_compact
enter_bundles "$GATE_BUNDLES_DIR"

args=(diff --run "$GATE_RUN" --baseline "$GATE_BASELINE_RUN" --format markdown)
[[ -z $GATE_FAIL_ON ]] || args+=(--fail-on "$GATE_FAIL_ON")
md=$GATE_WORK/diff.md err=$GATE_WORK/diff.err
rc=0
"$COMPACT" "${args[@]}" "$bundles" >"$md" 2>"$err" || rc=$?
cat "$err" >&2
((rc != 130)) || die 130 "compact diff was interrupted"

reasons=()
if ((rc != 0)); then
	line=$(grep '^compact diff: ' "$err" | tail -n 1 || true)
	reasons+=("${line:-compact diff exited $rc}")
fi
[[ $GATE_EVAL_FAILED != true ]] || reasons+=("${GATE_EVAL_REASON:-compact eval failed}")
[[ $GATE_REPLAY_INCOMPLETE != true ]] || reasons+=("some bundles got no answer from a run (the replay step names them)")
if ((${#reasons[@]})); then
	verdict=fail
	reason=$(printf '%s; ' "${reasons[@]}")
	reason=${reason%; }
else
	verdict=pass
	reason="the candidate lost nothing the gate checks (fail-on: ${GATE_FAIL_ON:-none})"
fi

report=$GATE_WORK/report.md
{
	printf '<!-- compact-gate:%s -->\n' "$GATE_COMMENT_TAG"
	if [[ $verdict == pass ]]; then
		printf '**compact gate: passed.** %s.\n\n' "$reason"
	else
		printf '**compact gate: failed.** %s.\n\n' "$reason"
	fi
	if [[ -s $GATE_WORK/runs.md ]]; then
		cat "$GATE_WORK/runs.md"
		echo
	fi
	if [[ -s $md ]]; then
		cat "$md"
		echo
	fi
	if [[ -s $GATE_WORK/eval.md ]]; then
		printf '<details><summary>compact eval: the grounded score and coverage of both runs</summary>\n\n'
		cat "$GATE_WORK/eval.md"
		printf '\n\n</details>\n'
	fi
} >"$report"
cat "$report" >>"$GITHUB_STEP_SUMMARY"

# GitHub refuses a comment over 65,536 characters: without eval's tables
# first, then cut at a line, pointing to the job summary.
comment=$GATE_WORK/comment.md
limit=65000
cp "$report" "$comment"
if (($(wc -c <"$comment") > limit)) && [[ -s $GATE_WORK/eval.md ]]; then
	sed '/^<details><summary>compact eval: /,$d' "$report" >"$comment"
	printf '\n_compact eval'"'"'s tables are in the job summary._\n' >>"$comment"
fi
if (($(wc -c <"$comment") > limit)); then
	head -c "$((limit - 200))" "$comment" | sed '$d' >"$comment.cut"
	printf '\n\n_Cut here: the whole report is in the job summary._\n' >>"$comment.cut"
	mv "$comment.cut" "$comment"
fi

set_output verdict "$verdict"
set_output reason "$reason"
set_output comment-file "$comment"
echo "compact gate: $verdict: $reason"
