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

# tfsim fit of 10^6 rows in 10^5 (operation, concurrency) groups: 99,900
# groups of 5 rows (listed, too few to fit) and 100 of 5,050 rows (fitted),
# in the order a probe writes them (interleaved).  Peak memory target:
# under 200 MB (groups are found by hash and start with room for 8
# samples; it used to take 1.2 GB for 2 x 10^5 groups).
awk 'BEGIN { srand(7); print "operation,concurrency,latency_us,timestamp";
    for (r = 0; r < 5; r++)
        for (g = 0; g < 99900; g++)
            printf "probe.op%d,%d,%.3f,%d\n", int(g / 10), 1 + g % 10, 100 + 50 * rand(), r;
    for (r = 0; r < 5050; r++)
        for (g = 0; g < 100; g++)
            printf "probe.big%d,1,%.3f,%d\n", g, 200 * -log(1 - rand()) + 50, r }' >"$tmp/fit.csv"
/usr/bin/time -f "%M %e" -o "$tmp/fit.time" "$TFSIM" fit "$tmp/fit.csv" --config-out "$tmp/fit.ini" \
    >/dev/null 2>"$tmp/fit.err" || { cat "$tmp/fit.err"; exit 1; }
read -r kb secs <"$tmp/fit.time"
mb=$((kb / 1024))
echo "fit of 10^6 rows in 10^5 groups: peak ${mb} MB, ${secs} s (target < 200 MB)"
[ "$mb" -lt 200 ]

# Calibration and prediction on the shipped data (issue 15): a full pg_pg
# calibration (12 concurrencies x 4 phases = 48 points, fitted afresh with
# --refit) on --jobs 2 (target: under 15 s), then predict with the stored
# calibration (target: under 2 s), median of 3 each.
data=tests/data/calibration.csv
db="$tmp/bench.db"
times=""
for k in 1 2 3; do
    start=$(date +%s.%N)
    "$TFSIM" calibrate --tigerbench $data --arch pg_pg --jobs 2 --db "$db" --refit >"$tmp/cal.txt" 2>&1
    end=$(date +%s.%N)
    times="$times $(echo "$end - $start" | bc -l)"
done
med=$(echo $times | tr ' ' '\n' | sort -n | sed -n 2p)
evals=$(sed -n 's/.*iterations (\([0-9]*\) evaluations).*/\1/p' "$tmp/cal.txt" | head -1)
echo "calibrate pg_pg, 48 points, --jobs 2: median ${med} s of 3, ${evals} evaluations (target < 15 s)"
"$TFSIM" predict --tigerbench $data --baseline pg_pg --target tb_redis --jobs 2 --db "$db" >/dev/null 2>&1
times=""
for k in 1 2 3; do
    start=$(date +%s.%N)
    "$TFSIM" predict --tigerbench $data --baseline pg_pg --target tb_redis --jobs 2 --db "$db" \
        --format csv >"$tmp/pred.csv" 2>"$tmp/pred.err"
    end=$(date +%s.%N)
    times="$times $(echo "$end - $start" | bc -l)"
done
grep -q "the fit stored for these data" "$tmp/pred.err" || { echo "predict did not use the stored calibration"; exit 1; }
med=$(echo $times | tr ' ' '\n' | sort -n | sed -n 2p)
echo "predict tb_redis with the stored calibration, --jobs 2: median ${med} s of 3 (target < 2 s)"
