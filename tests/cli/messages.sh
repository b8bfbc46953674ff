# Output a person reads (issue #16, items 3, 4 and 6): latencies in ms with
# one precision, one interval notation, counts as integers; the component
# that saturates first named by run, sweep, diff and plan, and the load
# generator when it limits; plan decisions from intervals that do not
# change with the seed.  CSV keeps the model's units (seconds).
# (Sourced by tests/cli_test.sh.)
tf=configs/tigerfans

# run: text in ms, CSV in seconds, the bottleneck named (1.5 cores, so that
# the host's CPU saturates whatever the calibration)
expect 0 "run pg_pg text" -- "$TFSIM" run $tf/pg_pg.ini --reps 3 --set client.total=300 --set host.cores=1.5
expect_out "p99_ms" "run text: latencies in ms"
expect_out "^  checkout  *[0-9][0-9.]* ± [0-9.]*  *[0-9]*\.[0-9][0-9] ± [0-9]*\.[0-9][0-9] " "run text: ms with two decimals, mean ± half"
expect_out "^  accounting.hold .* ± .*  *600$" "run text: counts as integers"
expect_out "^bottleneck: host_cpu saturates first: [0-9]*% busy (its cores: postgres_cpu" "run names the host CPU and its users"
if grep -q 'e-0' "$tmp/out"; then bad "run text has exponent notation"; grep 'e-0' "$tmp/out" | head -3; else ok; fi
expect 0 "run pg_pg csv" -- "$TFSIM" run $tf/pg_pg.ini --reps 3 --set client.total=300 --set host.cores=1.5 --format csv
expect_out "^scope,name,throughput,throughput_ci,latency_mean,latency_mean_ci,p50," "run csv: seconds, names unchanged"
u=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $2 == "postgres_cpu" { print $c["utilisation"] }' "$tmp/out")
if awk -v u="$u" 'BEGIN { exit !(u > 0.3 && u <= 1) }'; then ok; else bad "run csv: postgres_cpu utilisation '$u' is not a share of the host"; fi
expect_err "^bottleneck: host_cpu" "run csv: the bottleneck on stderr"
if grep -q bottleneck "$tmp/out"; then bad "run csv: message on stdout"; else ok; fi
expect 0 "run tb_redis c=50" -- "$TFSIM" run $tf/tb_redis.ini --reps 2 --set client.total=300 --set client.concurrency=50
expect_out "^bottleneck: the load generator limits this result: client_loop is [0-9]*% busy" "run: the load generator limits"

# diff: the load generator limits both (the example)
expect 0 "diff workers2 at 50" -- "$TFSIM" diff $tf/tb_redis.ini $tf/whatif/workers2.ini --set client.concurrency=50
expect_out "^  checkout  *throughput  *[0-9.]*  *[0-9.]*  *-*[0-9.]* ± [0-9.]*  *[-+][0-9.]* ± [0-9.]*  *\(yes\|no\)$" "diff text: b - a and change with intervals"
expect_out "^bottleneck of A: the load generator limits" "diff names A's bottleneck"
expect_out "^bottleneck of B: the load generator limits" "diff names B's bottleneck"
expect_out "^the load generator (client_loop at [0-9]*% in A, client_loop at [0-9]*% in B) limits both" "diff explains the change"
expect 0 "diff --all" -- "$TFSIM" diff $tf/pg_pg.ini $tf/whatif/big_gate.ini --reps 2 --set client.total=200 --all
expect_out "^  totals  *events  *[0-9]*  *[0-9]* " "diff --all: counts as integers"
if grep -q 'e+0' "$tmp/out"; then bad "diff --all prints a count in exponent notation"; else ok; fi

# sweep: the bottleneck per point, and the points the load generator limits
expect 0 "sweep pg_pg" -- "$TFSIM" sweep $tf/pg_pg.ini --vary client.concurrency=1,10,50 --reps 2 --set client.total=300 --set host.cores=1.5
expect_out "^  client.concurrency .* checkout.p99_ms .* bottleneck$" "sweep text: ms and a bottleneck column"
expect_out "^  10 .* ± .* host_cpu [0-9]*%$" "sweep text: host_cpu at 10"
expect 0 "sweep tb_redis" -- "$TFSIM" sweep $tf/tb_redis.ini --vary client.concurrency=1,10,50 --reps 2 --set client.total=300
expect_out "^bottleneck: the load generator (client_loop) saturates first at client.concurrency = 50" "sweep names the points the load generator limits"
expect 0 "sweep pg_pg csv" -- "$TFSIM" sweep $tf/pg_pg.ini --vary client.concurrency=1,10 --reps 2 --set client.total=300 --format csv
expect_out "^client.concurrency,checkout.throughput,checkout.throughput_ci,checkout.p99,.*,bottleneck$" "sweep csv: names unchanged, a bottleneck column"

# plan: decided from intervals, undecided settings get replications, the
# answer is the same for every seed and first round (with 5 replications,
# seed 1 leaves 2 workers undecided after 5: its interval straddles the
# target; a load generator ten times lighter than the calibrated httpx
# (cpu_scale 0.567), so that the workers matter)
plan_args="plan $tf/tb_redis.ini --vary server.workers=1..3 --target-throughput 1890 --phase reserve --set client.concurrency=50 --set client.cpu_scale=0.0567 --set client.total=500 --jobs 2"
for a in "--seed 1" "--seed 2" "--seed 3" "--reps 3" "--reps 20"; do
    expect 0 "plan $a" -- "$TFSIM" $plan_args $a
    expect_out "^cheapest setting that meets the target: server.workers=2$" "plan $a: the decision"
done
expect_out "^  2 .* meets " "plan: the setting's decision in the table"
expect_out "^bottleneck at server.workers=2: server_loop saturates first: [0-9]*% busy" "plan: the bottleneck of the pick"
expect 0 "plan seed 1" -- "$TFSIM" $plan_args --seed 1
expect_out "^  2  *[0-9.]* ± [0-9.]*  *[0-9.]* ± [0-9.]*  *10  *meets " "plan: replications added to the undecided setting"
if grep -q "undecided" "$tmp/out"; then bad "plan: a setting stayed undecided"; else ok; fi
# --margin: headroom for the model's own error (predict's band): 2 workers
# (1,919 reserves/s) meet 1,890/s, but not 1,890 / 0.85 = 2,224/s; 3 (2,295) do
expect 0 "plan --margin 15" -- "$TFSIM" $plan_args --seed 1 --margin 15
expect_out "^target: reserve throughput >= 1890/s, simulated >= 2223.53/s (its throughput less a 15% margin" "plan --margin: the target it decides by"
expect_out "^cheapest setting that meets the target: server.workers=3$" "plan --margin: a setting more"
expect 0 "plan --margin csv" -- "$TFSIM" $plan_args --seed 1 --margin 15 --format csv
expect_out "^2,.*,fails,no,.*,1890,15,,reserve$" "plan --margin csv: the target and the margin per row"
for m in 100 -1 abc 1e9; do
    expect 2 "plan --margin $m" -- "$TFSIM" $plan_args --margin $m
    expect_err "--margin: '$m' is not a percentage in 0..100 (100 excluded)" "plan --margin $m: named"
done
# a target at a setting's own throughput stays undecided up to the cap
expect 1 "plan open loop at its rate" -- "$TFSIM" plan configs/queueing/mm1.ini --vary arrivals.rate=0.5,0.6 --target-throughput 0.6 --set queueing.customers=2000 --set run.max_replications=8 --reps 2 --phase server
expect_out "^undecided after 8 replications: arrivals.rate=0.6 (throughput " "plan names the undecided setting"
expect_out "^no setting in the list meets the target for sure (some are undecided)$" "plan: no sure answer"
