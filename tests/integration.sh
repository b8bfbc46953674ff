#!/bin/sh
# Integration tests against real servers.  Starts Redis and PostgreSQL in a
# temporary folder (tests/servers.sh), sources its env file (TFSIM_REDIS_*,
# TFSIM_PG_*), then sources every tests/integration/*.sh with the helpers of
# tests/cli_test.sh (expect, expect_err, expect_out; $TFSIM, $tmp).  The
# servers are stopped on exit, also on failure or interruption.  If they
# cannot start, the run fails: it never skips silently.
# Usage: TFSIM=bin/tfsim sh tests/integration.sh
set -u
TFSIM=${TFSIM:-bin/tfsim}
SERVERS="sh tests/servers.sh"
pass=0
fail=0
tmp=$(mktemp -d /tmp/tfsim-int-XXXXXX)
srv=$(mktemp -d /tmp/tfsim-srv-XXXXXX)
cleanup() {
    $SERVERS stop "$srv" || echo "integration: could not stop the servers in $srv" >&2
    rm -rf "$tmp" "$srv"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect CODE DESCRIPTION -- CMD...: run CMD, check its exit code.
expect() {
    code=$1; desc=$2; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq "$code" ]; then ok; else bad "$desc: exit $rc, expected $code"; sed 's/^/    /' "$tmp/err" | head -5; fi
}
# expect_err PATTERN DESCRIPTION: the last command's stderr matches PATTERN.
expect_err() {
    if grep -q -- "$1" "$tmp/err"; then ok; else bad "$2: stderr lacks '$1'"; sed 's/^/    /' "$tmp/err" | head -5; fi
}
expect_out() {
    if grep -q -- "$1" "$tmp/out"; then ok; else bad "$2: stdout lacks '$1'"; head -5 "$tmp/out" | sed 's/^/    /'; fi
}

if ! $SERVERS start "$srv"; then
    echo "FAIL: integration: cannot start the test servers (see above)"
    exit 1
fi
# shellcheck disable=SC1091
. "$srv/env"

for f in tests/integration/*.sh; do
    [ -f "$f" ] || continue
    . "$f"
done
echo "integration: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
