#!/bin/sh
# Whole-command benchmarks: a 12-point x 3-architecture sweep with 10
# replications on 2 threads (target: under 5 s in all), median of 3.
set -eu
TFSIM=${TFSIM:-bin/tfsim}
tmp=$(mktemp -d /tmp/tfsim-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
times=""
for k in 1 2 3; do
    start=$(date +%s.%N)
    for cfg in configs/tigerfans/pg_pg.ini configs/tigerfans/pg_redis.ini configs/tigerfans/tb_redis.ini; do
        "$TFSIM" sweep "$cfg" --vary client.concurrency=1,5,10,20,30,40,50,60,70,80,90,100 \
            --reps 10 --jobs 2 --format csv > "$tmp/out.csv"
    done
    end=$(date +%s.%N)
    times="$times $(echo "$end - $start" | bc -l)"
done
med=$(echo $times | tr ' ' '\n' | sort -n | sed -n 2p)
echo "sweep 12 points x 3 architectures x 10 replications, --jobs 2: median ${med} s of 3 (target < 5 s)"
