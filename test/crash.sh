#!/usr/bin/env bash
# The long crash run of issue 5: 200 motions (or $1), each through a SIGKILL
# of the bridge at a random moment; fails if any goal reaches the sim twice.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
ACTBRIDGE_CRASH_MOTIONS=${1:-200} go test ./test -run 'TestRandomKillsNeverSendAGoalTwice' -count=1 -v -timeout 60m
