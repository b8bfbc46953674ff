#!/bin/sh
# Command-line tests: exit codes, formats, error messages, determinism.
# Usage: TFSIM=bin/tfsim [CLI_JOBS=N] sh tests/cli_test.sh [FILE...]
# Runs every tests/cli/*.sh (or the FILEs given), each in a shell of its
# own (tests/cli_one.sh), CLI_JOBS at a time (default: the CPUs), the
# slowest known first (SLOW) so that the others fill in beside them, then
# prints their output in file order, the totals and the slowest files.
set -u
TFSIM=${TFSIM:-bin/tfsim}
export TFSIM
pass=0
fail=0
tmp=$(mktemp -d /tmp/tfsim-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. tests/cli_lib.sh

expect 0 "help" -- "$TFSIM" --help
expect_out "commands:" "help lists commands"
expect 0 "version" -- "$TFSIM" --version
expect_out "tfsim " "version prints name"
expect 2 "unknown command" -- "$TFSIM" frobnicate
expect_err "unknown command" "unknown command message"

files=$(echo ${*:-tests/cli/*.sh}) # one line, names separated by spaces
jobs=${CLI_JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir "$tmp/res"
SLOW="tests/cli/predict.sh tests/cli/fit.sh tests/cli/live_tigerfans.sh tests/cli/live_tigerfans_c.sh tests/cli/live_tigerfans_io1.sh tests/cli/calibrate.sh tests/cli/examples.sh"
order=
for f in $SLOW; do
    case " $files " in *" $f "*) order="$order $f" ;; esac
done
for f in $files; do
    case " $SLOW " in *" $f "*) ;; *) order="$order $f" ;; esac
done
printf '%s\n' $order | xargs -P "$jobs" -n 1 sh tests/cli_one.sh "$tmp/res"
for f in $files; do
    name=$(basename "$f" .sh)
    cat "$tmp/res/$name.log" 2>/dev/null
    if [ -s "$tmp/res/$name.res" ]; then
        read -r p q secs <"$tmp/res/$name.res"
        echo "$secs $f" >>"$tmp/times"
        pass=$((pass + p))
        fail=$((fail + q))
    else
        bad "$f stopped before its end"
    fi
done

echo "cli: $pass passed, $fail failed; slowest files (s):" $(sort -rn "$tmp/times" 2>/dev/null | head -3)
[ "$fail" -eq 0 ]
