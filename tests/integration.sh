#!/bin/sh
# Integration tests against real servers.  Each tests/integration/*.sh is
# sourced with the helpers of tests/cli_test.sh style (ok/bad).
set -u
TFSIM=${TFSIM:-bin/tfsim}
pass=0
fail=0
tmp=$(mktemp -d /tmp/tfsim-int-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
for f in tests/integration/*.sh; do
    [ -f "$f" ] || continue
    . "$f"
done
echo "integration: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
