#!/bin/sh
# Fuzz the input readers with libFuzzer (clang, ASan + UBSan).
#
# Usage: sh tests/fuzz/run.sh [SECONDS] [TARGET...]
#   SECONDS  time per target (default 10; CI uses 15)
#   TARGET   cfg, dist, tigerbench, samples, store, http_csv, cpu (default: every
#            tests/fuzz/fuzz_*.c)
#
# Builds the library with clang -fsanitize=fuzzer-no-link,address,undefined
# into build/fuzz (through the Makefile, so it is rebuilt only when a source
# changes), links each tests/fuzz/fuzz_NAME.c, and runs it for SECONDS on a
# working corpus build/fuzz/corpus/NAME seeded from tests/fuzz/corpus/NAME
# (the seeds are never modified).  Prints one line per target with the
# executions from libFuzzer's final stats.  Exit status 1 when a target
# crashed (the input that did it is printed; copy it to
# tests/fuzz/regress/NAME/ and fix the bug: tests/test_hostile.c replays
# that directory), 2 when the build failed.
# Environment: TFSIM_LDLIBS (libraries to link; `make fuzz` passes the
# Makefile's), MAKE, FUZZ_JOBS (targets fuzzed at once, default 2: one per
# core of the project's machines; each still gets SECONDS).
set -u
secs=${1:-10}
[ $# -gt 0 ] && shift
case $secs in
    ''|*[!0-9]*) echo "usage: sh tests/fuzz/run.sh [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/../.." || exit 2

targets=$*
if [ -z "$targets" ]; then
    for f in tests/fuzz/fuzz_*.c; do
        t=${f#tests/fuzz/fuzz_}
        targets="$targets ${t%.c}"
    done
fi

B=build/fuzz
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
LIBS=${TFSIM_LDLIBS:-"-lgsl -lgslcblas -lcsv -lsqlite3 -lhiredis -lpq -lpthread -lm"}
# clang warns about a few things gcc does not: warnings stay visible but do
# not stop the fuzz build (the gcc build with -Werror is the reference).
${MAKE:-make} -s CC=clang BUILD=$B \
    WARN="-std=c17 -Wall -Wextra -Wshadow -Wstrict-prototypes" \
    OPT="-O1 -g -fsanitize=fuzzer-no-link $SAN" $B/libtfsim.a || exit 2
mkdir -p $B/bin
for t in $targets; do
    src=tests/fuzz/fuzz_$t.c
    [ -f "$src" ] || { echo "fuzz: no target $src" >&2; exit 2; }
    if [ ! -x $B/bin/fuzz_$t ] || [ -n "$(find $src tests/fuzz/fuzz_targets.h $B/libtfsim.a -newer $B/bin/fuzz_$t)" ]; then
        clang -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -I. -I/usr/include/postgresql \
            -std=c17 -Wall -Wextra -O1 -g -fsanitize=fuzzer $SAN \
            -o $B/bin/fuzz_$t $src $B/libtfsim.a $LIBS || exit 2
    fi
done

# One target: its summary line goes to $B/fuzz_$t.result, 1 to
# $B/fuzz_$t.crashed when it crashed.
fuzz_one() {
    t=$1
    work=$B/corpus/$t
    crashes=$B/crashes/$t
    log=$B/fuzz_$t.log
    mkdir -p "$work" "$crashes"
    rm -f $B/fuzz_$t.crashed
    seeds=tests/fuzz/corpus/$t
    [ -d "$seeds" ] || seeds=
    opts=
    [ -f tests/fuzz/$t.dict ] && opts="-dict=tests/fuzz/$t.dict"
    # inputs up to 16 KiB, or the largest seed (a results database)
    maxlen=16384
    if [ -n "$seeds" ]; then
        big=$(find "$seeds" -type f -exec wc -c {} + | awk '$2 != "total" && $1 > m { m = $1 } END { print m + 0 }')
        [ "$big" -gt $maxlen ] && maxlen=$big
    fi
    # -rss_limit_mb also caps single allocations: a reader that tries to
    # take more memory than that counts as a crash.
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
        $B/bin/fuzz_$t -max_total_time="$secs" -print_final_stats=1 -timeout=10 \
        -rss_limit_mb=1024 -max_len=$maxlen -artifact_prefix="$crashes/" $opts \
        "$work" $seeds </dev/null >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    if [ $rc -eq 0 ]; then
        echo "fuzz $t: ${runs:-?} executions in $secs s (${rate:-?}/s), $cov, corpus $(ls "$work" | wc -l) inputs"
    else
        echo 1 >$B/fuzz_$t.crashed
        input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
        echo "fuzz $t: CRASH after ${runs:-?} executions (exit $rc); input: ${input:-see $log}"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz invariant|.*runtime error)' "$log" | head -5 | sed 's/^/    /'
        echo "    log: $log"
    fi >$B/fuzz_$t.result
}

jobs=${FUZZ_JOBS:-2}
case $jobs in
    ''|*[!0-9]*|0) echo "fuzz: FUZZ_JOBS must be a positive integer" >&2; exit 2 ;;
esac
# FUZZ_JOBS targets at a time; the summaries are printed in target order
n=0
for t in $targets; do
    fuzz_one "$t" &
    n=$((n + 1))
    if [ $n -ge "$jobs" ]; then
        wait
        n=0
    fi
done
wait
status=0
for t in $targets; do
    cat $B/fuzz_$t.result
    [ -f $B/fuzz_$t.crashed ] && status=1
done
exit $status
