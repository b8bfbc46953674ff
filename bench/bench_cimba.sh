#!/bin/sh
# M/M/1 at rho 0.9, 10^6 customers: tfsim beside Cimba (a C discrete-event
# library with coroutine processes), run alternately on the same machine so
# that both see the same load.  Cimba is not part of tfsim and is never
# built by it: point CIMBA_MM1 at a build of its own benchmark
# (benchmark/MM1_single of its repository, release build); without it this
# script says so and does nothing.  Figures: median CPU time (task-clock
# from perf stat when available, else user+sys time) of ROUNDS runs each;
# tfsim's is that of `tfsim run` on 10^6 customers less that of the same
# command on one customer (the process start, about 14 M instructions of
# dynamic linking for its libraries, is not simulation; Cimba's is small).
set -eu
TFSIM=${TFSIM:-bin/tfsim}
ROUNDS=${ROUNDS:-7}
if [ -z "${CIMBA_MM1:-}" ]; then
    echo "cimba: CIMBA_MM1 not set (path of Cimba's MM1_single): side-by-side figure skipped"
    exit 0
fi
[ -x "$CIMBA_MM1" ] || { echo "cimba: $CIMBA_MM1 is not an executable" >&2; exit 1; }
tmp=$(mktemp -d /tmp/tfsim-cimba-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/mm1.ini" <<'INI'
[model]
type = queueing
[run]
replications = 1
[queueing]
customers = 1000000
warmup = 0
[arrivals]
rate = 0.9
[station.server]
service = exp(rate=1.0)
INI
sed 's/^customers = 1000000$/customers = 1/' "$tmp/mm1.ini" >"$tmp/one.ini"
# CPU seconds of one command (its output discarded)
cpu_of() {
    if perf stat -x, -e task-clock true >/dev/null 2>&1; then
        perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ { print $1 / 1000 }'
    else
        /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -n 1 | awk '{ print $1 + $2 }'
    fi
}
: >"$tmp/t"
: >"$tmp/c"
for k in $(seq "$ROUNDS"); do
    full=$(cpu_of "$TFSIM" run "$tmp/mm1.ini")
    one=$(cpu_of "$TFSIM" run "$tmp/one.ini")
    echo "$full $one" | awk '{ print $1 - $2 }' >>"$tmp/t"
    cpu_of "$CIMBA_MM1" >>"$tmp/c"
done
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
t=$(med "$tmp/t")
c=$(med "$tmp/c")
echo "$t $c" | awk '{ printf "cimba side by side, M/M/1 rho 0.9, 10^6 customers, median CPU time of '"$ROUNDS"' alternate runs: tfsim %.2f M customers/s (less its process start), Cimba %.2f M customers/s, ratio %.2f (target >= 2)\n", 1 / $1, 1 / $2, $2 / $1 }'
