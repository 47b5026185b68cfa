#!/usr/bin/env bash
# comment.sh: post the report on the pull request, or update the comment
# an earlier run of the gate posted (found by the marker on its first
# line), with the gh CLI and the github-token input. Not a pull request,
# comment: false, or no report: nothing to do. A comment that cannot be
# posted (a pull request from a fork gets a read-only token) is a warning:
# the verdict does not depend on it.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

if [[ $GATE_COMMENT != true ]]; then
	echo "compact gate: comment: off"
	exit 0
fi
if [[ -z $GATE_PR_NUMBER ]]; then
	echo "compact gate: not a pull request: no comment (the job summary has the report)"
	exit 0
fi
if [[ -z $GATE_COMMENT_FILE || ! -s $GATE_COMMENT_FILE ]]; then
	echo "compact gate: no report to post"
	exit 0
fi
if ! command -v gh >/dev/null 2>&1; then
	gate_warning "no gh CLI on this runner: the report is in the job summary only"
	exit 0
fi
[[ -n ${GH_TOKEN:-} ]] || {
	gate_warning "github-token is empty: the report is in the job summary only"
	exit 0
}

repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}
marker=$(head -n 1 "$GATE_COMMENT_FILE")
# The marker is <!-- compact-gate:TAG -->, TAG checked by prepare.sh: safe
# inside the jq string.
id=$(gh api --paginate "repos/$repo/issues/$GATE_PR_NUMBER/comments" \
	--jq ".[] | select(.body | startswith(\"$marker\")) | .id" | tail -n 1) || {
	gate_warning "could not read the pull request's comments (a read-only token?): the report is in the job summary only"
	exit 0
}
if [[ -n $id ]]; then
	if gh api -X PATCH "repos/$repo/issues/comments/$id" -F "body=@$GATE_COMMENT_FILE" >/dev/null; then
		echo "compact gate: updated comment $id on #$GATE_PR_NUMBER"
	else
		gate_warning "could not update comment $id: the report is in the job summary only"
	fi
elif gh api -X POST "repos/$repo/issues/$GATE_PR_NUMBER/comments" -F "body=@$GATE_COMMENT_FILE" >/dev/null; then
	echo "compact gate: commented on #$GATE_PR_NUMBER"
else
	gate_warning "could not comment on #$GATE_PR_NUMBER (a read-only token, as a fork's pull request gets?): the report is in the job summary only"
fi
