#!/usr/bin/env bash
# Runs every Fuzz target in the module for the given time each (default 3s).
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-3s}
n=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)' "$dir"/*_test.go 2>/dev/null | awk '{print $2}'); do
    echo "fuzz: $pkg $f ($t)"
    go test -run '^$' -fuzz "^$f\$" -fuzztime "$t" "$pkg" >/tmp/actbridge-fuzz.log 2>&1 || { cat /tmp/actbridge-fuzz.log; exit 1; }
    n=$((n+1))
  done
done
echo "fuzz: $n targets ran for $t each, no failures"
