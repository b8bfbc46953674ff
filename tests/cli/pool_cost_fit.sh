# scripts/pool_cost_fit.py: the price of a pool pass from live runs that
# counted the pool.  Six runs made from known prices (base 0.5 ms, 10 us per
# idle connection and pass, 0.1 us per idle connection x connection and
# pass): the fit must give them back to the printed digits, every run's
# fitted CPU its measured one.
cat >"$tmp/runs.csv" <<'CSV'
sweep,arch,concurrency,phase,client_ms,pool_passes,pool_conns,pool_idle
1,pg_pg,20,checkout,0.788,3,20,8
1,pg_pg,50,webhook,4.1,6,50,40
1,pg_pg,100,reserve,9.86,6,95,80
1,pg_pg,100,commit,1.98,5,85,16
1,pg_pg,100,checkout,5.25,5,90,50
1,pg_pg,10,commit,0.852,4,10,8
CSV
expect 0 "pool_cost_fit on runs of known prices" -- python3 scripts/pool_cost_fit.py "$tmp/runs.csv"
expect_out "^runs 6: base 500.0 us, poll 10.000 us per idle connection and pass, walk 0.1000 us per idle connection x connection and pass; rms 0.000 ms, largest error 0.0%$" \
    "pool_cost_fit gives the prices back"
expect_out "^pg_pg,100,reserve,9.860,9.860$" "pool_cost_fit: a run's measured and fitted CPU"
# --min-concurrency leaves the runs below out
expect 0 "pool_cost_fit --min-concurrency 50" -- python3 scripts/pool_cost_fit.py "$tmp/runs.csv" --min-concurrency 50
expect_out "^runs 4: base 500.0 us" "pool_cost_fit: four runs at 50 and above"
if grep -q "^pg_pg,20," "$tmp/out"; then bad "pool_cost_fit: the run at 20 was left out"; else ok; fi
# the counts in a second file, as live_cpu_phases.py --pool-stats writes them
cut -d, -f1-5 "$tmp/runs.csv" >"$tmp/cpu.csv"
{ echo "arch,concurrency,phase,pool_passes,pool_conns,pool_idle,pool_queued"
  tail -n +2 "$tmp/runs.csv" | awk -F, '{ print $2 "," $3 "," $4 "," $6 "," $7 "," $8 ",0.8" }'; } >"$tmp/pool.csv"
expect 0 "pool_cost_fit --pool" -- python3 scripts/pool_cost_fit.py "$tmp/cpu.csv" --pool "$tmp/pool.csv"
expect_out "^runs 6: base 500.0 us, poll 10.000 us" "pool_cost_fit reads the counts from --pool"
# bad input: a file, line and column named, exit 2
sed '3s/,40$/,x/' "$tmp/runs.csv" >"$tmp/bad.csv"
expect 2 "pool_cost_fit: a value that is not a number" -- python3 scripts/pool_cost_fit.py "$tmp/bad.csv"
expect_err "bad.csv:3: pool_idle: 'x' is not a number" "pool_cost_fit names the file, line and column"
sed '3s/,40$/,60/' "$tmp/runs.csv" >"$tmp/bad.csv"
expect 2 "pool_cost_fit: more idle connections than open" -- python3 scripts/pool_cost_fit.py "$tmp/bad.csv"
expect_err "bad.csv:3: pool_idle 60.0 exceeds pool_conns 50.0" "pool_cost_fit checks idle against open"
expect 2 "pool_cost_fit: the counts missing" -- python3 scripts/pool_cost_fit.py "$tmp/cpu.csv"
expect_err "cpu.csv: no column pool_passes" "pool_cost_fit names the missing column"
head -3 "$tmp/pool.csv" >"$tmp/short.csv"
expect 2 "pool_cost_fit: --pool of other runs" -- python3 scripts/pool_cost_fit.py "$tmp/cpu.csv" --pool "$tmp/short.csv"
expect_err "2 rows, .*cpu.csv 6" "pool_cost_fit: the two files' rows must pair"
expect 2 "pool_cost_fit: too few runs" -- python3 scripts/pool_cost_fit.py "$tmp/runs.csv" --min-concurrency 101
expect_err "0 runs at concurrency >= 101: at least 3 needed" "pool_cost_fit: too few runs"
expect 2 "pool_cost_fit: a file that is not there" -- python3 scripts/pool_cost_fit.py "$tmp/none.csv"
expect_err "none.csv: No such file" "pool_cost_fit names the missing file"
# the stored runs of 2026-12-07 give the figures docs/load-generator.md quotes
expect 0 "pool_cost_fit on tests/data/live_cpu_pool.csv" -- python3 scripts/pool_cost_fit.py tests/data/live_cpu_pool.csv
expect_out "^runs 36: base 765.1 us, poll 7.602 us .* walk 0.1036 us .*; rms 0.280 ms, largest error 12.9%$" \
    "pool_cost_fit: the stored runs' prices"
