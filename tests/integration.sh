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

# interrupt_in_preload SCHEMA LABEL TFSIM-ARGS...: run tfsim with ARGS (a
# command that preloads a large holds table into SCHEMA) in the
# background, wait until the preload's INSERT runs on the server, send
# SIGINT, and check: exit 1 with "preloading the holds table:
# interrupted", stopped within 3 s, SCHEMA dropped, no "may remain".
interrupt_in_preload() {
    schema=$1 label=$2
    shift 2
    psql_="/usr/lib/postgresql/15/bin/psql -X -q -t -A"
    rm -f "$tmp/out" "$tmp/err"
    "$TFSIM" "$@" >"$tmp/out" 2>"$tmp/err" &
    ipid=$!
    n=0
    while [ "$n" -lt 100 ] && [ "$($psql_ "$TFSIM_PG_CONNINFO" -c "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'INSERT INTO $schema.holds%'")" != 1 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    t0=$(date +%s)
    kill -INT "$ipid"
    wait "$ipid"
    irc=$?
    t1=$(date +%s)
    if [ "$irc" -eq 1 ] && grep -q "preloading the holds table: interrupted" "$tmp/err"; then ok
    else bad "$label: exit $irc, expected 1 with 'preloading the holds table: interrupted'"; sed 's/^/    /' "$tmp/err"; fi
    if [ $((t1 - t0)) -le 3 ]; then ok; else bad "$label: took $((t1 - t0)) s to stop"; fi
    if [ "$($psql_ "$TFSIM_PG_CONNINFO" -c "SELECT count(*) FROM pg_namespace WHERE nspname = '$schema'")" = 0 ]; then ok
    else bad "$label: the schema $schema remains"; fi
    if grep -q "may remain" "$tmp/err"; then bad "$label: says the schema may remain"; else ok; fi
}

for f in tests/integration/*.sh; do
    [ -f "$f" ] || continue
    . "$f"
done
echo "integration: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
