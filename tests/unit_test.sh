#!/bin/sh
# Unit tests: every cmocka binary given, UNIT_JOBS at a time (default: the
# CPUs), each one's output kept and printed in the order given.
# Usage: TFSIM=bin/tfsim sh tests/unit_test.sh BIN...
# Exit status 1 when any binary failed (its name is printed at the end).
set -u
jobs=${UNIT_JOBS:-$(nproc 2>/dev/null || echo 2)}
out=$(mktemp -d /tmp/tfsim-unit-XXXXXX)
trap 'rm -rf "$out"' EXIT
i=0
for t in "$@"; do
    i=$((i + 1))
    printf '%s %s\n' "$i" "$t"
done | xargs -P "$jobs" -n 2 sh -c '"$2" >"$0/$1.log" 2>&1; echo $? >"$0/$1.rc"' "$out"
i=0
failed=
for t in "$@"; do
    i=$((i + 1))
    cat "$out/$i.log" 2>/dev/null
    rc=$(cat "$out/$i.rc" 2>/dev/null || echo 99)
    [ "$rc" = 0 ] || failed="$failed $t"
done
if [ -n "$failed" ]; then
    echo "unit: failed:$failed"
    exit 1
fi
echo "unit: $# binaries passed"
