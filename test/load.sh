#!/usr/bin/env bash
# The long load run of issue 9: 64 MCP clients for 120 s (or $1 seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
ACTBRIDGE_LOAD_SECONDS=${1:-120} go test ./test -run 'TestLoadMixedClientsKeepsEveryInvariant' -count=1 -v -timeout 30m
