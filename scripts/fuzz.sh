#!/usr/bin/env bash
# Runs every Fuzz target in the module for the given budget each: a time
# ("3s", "2m") or an input count ("20000x", what make test uses).
# Go's fuzzer sometimes ends a timed run with "context deadline exceeded"
# and no failing input (a toolchain race at shutdown); that case is retried
# once, a real failure (a "Failing input" or a crash) never is.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-3s}
n=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)' "$dir"/*_test.go 2>/dev/null | awk '{print $2}'); do
    echo "fuzz: $pkg $f ($budget)"
    for try in 1 2; do
      if go test -run '^$' -fuzz "^$f\$" -fuzztime "$budget" "$pkg" >"$log" 2>&1; then
        break
      fi
      if [ "$try" = 1 ] && grep -q "context deadline exceeded" "$log" && ! grep -qE "Failing input|panic:" "$log"; then
        echo "fuzz: $f ended with the fuzzer's shutdown race and no failing input; running it again"
        continue
      fi
      cat "$log"
      exit 1
    done
    n=$((n+1))
  done
done
echo "fuzz: $n targets ran for $budget each, no failures"
