#!/bin/sh
# Integration tests against real servers.  Starts Redis and PostgreSQL in a
# temporary folder (tests/servers.sh), sources its env file (TFSIM_REDIS_*,
# TFSIM_PG_*), then sources every tests/integration/*.sh with the helpers of
# tests/cli_lib.sh (expect, expect_err, expect_out; $TFSIM, $tmp).  The
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

. tests/cli_lib.sh

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
