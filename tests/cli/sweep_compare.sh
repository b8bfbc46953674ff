# scripts/sweep_compare.py: a sweep's runs simulated with a fitted config,
# phase by phase at each run's concurrency and holds rows (the run's rows
# before it plus two per hold of its own earlier phases).
sw="$tmp/sweep.csv"
cat >"$sw" <<'CSV'
arch,concurrency,phase,requests,ok,walltime,throughput,client_ms,server_ms,postgres_ms,redis_ms
pg_pg,5,checkout,1000,1000,4.6,215.7,1.56,3.94,1.68,0.00
pg_pg,5,webhook,1000,1000,4.3,230.7,1.23,3.67,1.38,0.02
pg_pg,5,reserve,1000,1000,2.6,385.3,0.94,2.07,1.22,0.01
pg_pg,5,commit,1000,1000,1.8,559.8,0.96,1.14,0.43,0.00
pg_redis,5,checkout,1000,1000,4.0,249.9,1.38,3.15,1.65,0.10
pg_pg,100,checkout,1000,1000,7.9,126.4,2.18,4.93,6.34,0.01
pg_pg,100,reserve,1000,1000,6.4,156.0,1.94,3.40,5.94,0.01
CSV
cfg=configs/tigerfans/pg_pg.ini
expect 0 "sweep_compare" -- python3 scripts/sweep_compare.py --tfsim "$TFSIM" --config pg_pg=$cfg \
    --cpu "$sw" --rows 0,4000,28000 --reps 1
# 6 pg_pg phase runs (pg_redis has no config: skipped and counted)
if [ "$(awk -F, 'NR > 1' "$tmp/out" | wc -l)" -eq 6 ]; then ok; else bad "sweep_compare: rows"; cat "$tmp/out"; fi
expect_err "MAPE pg_pg: [0-9.]*% (6 phase runs)" "sweep_compare: MAPE per architecture"
expect_err "1 runs without a config skipped" "sweep_compare: a run without a config is counted"
# the rows each phase ran on: the run's, +2000 after checkout, +4000 after reserve
if awk -F, 'NR > 1 { r[$2 "," $4] = $3 }
            END { exit !(r["5,checkout"] == 0 && r["5,webhook"] == 2000 && r["5,reserve"] == 2000 &&
                         r["5,commit"] == 4000 && r["100,checkout"] == 28000 && r["100,reserve"] == 30000) }' \
    "$tmp/out"; then ok; else bad "sweep_compare: holds rows per phase"; cat "$tmp/out"; fi
# error_pct = simulated / measured - 1
if awk -F, 'NR > 1 { e = 100 * ($6 / $5 - 1); if (e - $7 > 0.06 || $7 - e > 0.06) bad = 1 }
            END { exit bad }' "$tmp/out"; then ok; else bad "sweep_compare: error_pct"; fi
# the simulated figure is tfsim run's at those settings (same seed and reps)
sim=$(awk -F, '$2 == 100 && $4 == "reserve" { print $6 }' "$tmp/out")
expect 0 "the same point by tfsim run" -- "$TFSIM" run $cfg --set architecture.accounting=pg \
    --set architecture.payments=pg --set client.phases=reserve --set client.concurrency=100 \
    --set postgres.holds_rows=30000 --reps 1 --seed 1 --format csv
direct=$(awk -F, '$1 == "phase" && $2 == "reserve" { printf "%.1f", $3 }' "$tmp/out")
if [ -n "$sim" ] && [ "$sim" = "$direct" ]; then ok; else bad "sweep_compare: $sim against tfsim run's $direct"; fi
# bad input: exit 2 with the reason
expect 2 "sweep_compare: --rows count" -- python3 scripts/sweep_compare.py --tfsim "$TFSIM" \
    --config pg_pg=$cfg --cpu "$sw" --rows 0,4000
expect_err "gives 2 figures.*holds 3 runs" "sweep_compare: --rows must match the runs"
expect 2 "sweep_compare: bad --config" -- python3 scripts/sweep_compare.py --tfsim "$TFSIM" \
    --config tb_pg=$cfg --cpu "$sw" --rows 0,4000,28000
expect_err "expected ARCH=FILE" "sweep_compare: unknown architecture"
sed '3s/,webhook,/,browse,/' "$sw" >"$tmp/bad.csv"
expect 2 "sweep_compare: bad phase" -- python3 scripts/sweep_compare.py --tfsim "$TFSIM" \
    --config pg_pg=$cfg --cpu "$tmp/bad.csv" --rows 0,4000,28000
expect_err "bad.csv:3: phase" "sweep_compare: names file, line and column"
expect 2 "sweep_compare: missing file" -- python3 scripts/sweep_compare.py --tfsim "$TFSIM" \
    --config pg_pg=$cfg --cpu "$tmp/none.csv" --rows 0
expect_err "none.csv" "sweep_compare: a missing file"
