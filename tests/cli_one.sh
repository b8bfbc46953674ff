#!/bin/sh
# One file of tests/cli/ in a shell of its own (tests/cli_test.sh runs
# several at once).  Usage: TFSIM=... sh tests/cli_one.sh OUTDIR FILE
# Writes OUTDIR/NAME.log (what the file printed) and OUTDIR/NAME.res
# ("PASS FAIL SECONDS"); a file that stops early leaves no .res, which the
# runner counts as a failure.
set -u
TFSIM=${TFSIM:-bin/tfsim}
out=$1
f=$2
name=$(basename "$f" .sh)
pass=0
fail=0
tmp=$(mktemp -d /tmp/tfsim-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. tests/cli_lib.sh
t0=$(date +%s)
. "$f" >"$out/$name.log" 2>&1
echo "$pass $fail $(($(date +%s) - t0))" >"$out/$name.res"
