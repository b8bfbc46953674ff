#!/bin/sh
# Command-line tests: exit codes, formats, error messages, determinism.
# Usage: TFSIM=bin/tfsim sh tests/cli_test.sh
set -u
TFSIM=${TFSIM:-bin/tfsim}
pass=0
fail=0
tmp=$(mktemp -d /tmp/tfsim-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

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

expect 0 "help" -- "$TFSIM" --help
expect_out "commands:" "help lists commands"
expect 0 "version" -- "$TFSIM" --version
expect_out "tfsim " "version prints name"
expect 2 "unknown command" -- "$TFSIM" frobnicate
expect_err "unknown command" "unknown command message"

for f in tests/cli/*.sh; do
    [ -f "$f" ] || continue
    . "$f"
done

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
