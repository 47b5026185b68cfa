#!/usr/bin/env bash
# verdict.sh: the gate's last step: exit 1 when the verdict is fail, after
# the report was written and posted and the response cache saved.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

case $GATE_VERDICT in
pass) echo "compact gate: passed: $GATE_REASON" ;;
fail) die 1 "failed: $GATE_REASON" ;;
*) die 1 "no verdict: an earlier step did not finish" ;;
esac
