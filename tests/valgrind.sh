#!/bin/sh
# Every shipped config (configs/**/*.ini) through tfsim under valgrind: no
# invalid reads or writes, no use of uninitialised values, no definite or
# indirect leaks.  Small overrides keep it quick (about a minute in all):
# TigerFans configs run 2 replications of client.total=200, queueing
# configs 2 of queueing.customers=5000, analysis configs go through
# `tfsim amdahl`; then a few error paths (a resource bound, bad input).
# Usage: TFSIM=bin/tfsim sh tests/valgrind.sh   (a build without ASan)
set -u
TFSIM=${TFSIM:-bin/tfsim}
cd "$(dirname "$0")/.." || exit 2
command -v valgrind >/dev/null 2>&1 || { echo "valgrind: not installed" >&2; exit 2; }
if nm "$TFSIM" 2>/dev/null | grep -q __asan_init; then
    echo "valgrind: $TFSIM is built with ASan; use the plain build (make, not make SAN=1)" >&2
    exit 2
fi
log=$(mktemp -d /tmp/tfsim-valgrind-XXXXXX)
trap 'rm -rf "$log"' EXIT
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --track-origins=yes"
pass=0
fail=0
n=0
# vg CODE ARGS...: tfsim ARGS under valgrind must exit CODE with a clean log.
vg() {
    want=$1
    shift
    n=$((n + 1))
    $VG --log-file="$log/$n.vg" "$TFSIM" "$@" >"$log/$n.out" 2>"$log/$n.err"
    rc=$?
    if [ $rc -eq "$want" ] && [ ! -s "$log/$n.vg" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: tfsim $* (exit $rc, expected $want)"
        sed 's/^/    /' "$log/$n.vg" "$log/$n.err" | head -40
    fi
}
for cfg in $(find configs -name '*.ini' | sort); do
    case $cfg in
        configs/analysis/*) vg 0 amdahl "$cfg" ;;
        configs/queueing/*) vg 0 run "$cfg" --reps 2 --set queueing.customers=5000 --format csv ;;
        *) vg 0 run "$cfg" --reps 2 --set client.total=200 --format csv ;;
    esac
done
# error paths free what they allocated too: a resource bound, bad input
# (max_events above the size check's lower bound, 3.4e3 events, so that the
# run starts and the bound stops it)
vg 1 run --reps 2 --set client.total=200 --set run.max_events=5000
vg 1 run configs/queueing/mm1.ini --set run.max_pending=16 --set arrivals.rate=0.99
printf 'include = cycle.ini\n' >"$log/cycle.ini"
vg 2 run "$log/cycle.ini"
vg 2 run configs/queueing/mm1.ini --set station.server.service='exp(mean=-1)'
vg 2 amdahl --tigerbench configs/queueing/mm1.ini --arch tb_redis --usl
echo "valgrind: $pass clean, $fail failed"
[ $fail -eq 0 ]
