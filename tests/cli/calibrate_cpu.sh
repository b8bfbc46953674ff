# tfsim calibrate --cpu: the CPU split of the same live runs
# (tests/data/live_cpu_phases.csv, written by scripts/live_cpu_phases.py)
# fitted with the throughputs of tests/data/live_debian12_f.csv, and the
# model's per-phase PostgreSQL CPU (postgres_cpu) that it is fitted to.
f=tests/data/live_debian12_f.csv
cpu=tests/data/live_cpu_phases.csv
deb=configs/tigerfans/client_debian12.ini
# the model reports PostgreSQL's CPU per request per phase (seconds in csv)
expect 0 "run reports postgres_cpu" -- "$TFSIM" run configs/tigerfans/pg_pg.ini --reps 1 --format csv
if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $1 == "phase" { n++; v = $(c["postgres_cpu"]); if (!(v > 1e-4 && v < 0.05)) bad = 1 }
            END { exit bad || n != 4 }' "$tmp/out"; then ok; else
    bad "run: postgres_cpu missing or out of range"; fi
expect 0 "run tb_redis: no PostgreSQL accounting" -- "$TFSIM" run configs/tigerfans/tb_redis.ini --reps 1 \
    --set client.phases=reserve --format csv
if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $1 == "phase" && $2 == "reserve" { v = $(c["postgres_cpu"]); found = 1 }
            END { exit !(found && v == 0) }' "$tmp/out"; then ok; else
    bad "run tb_redis: a reserve without PostgreSQL should cost it no CPU"; fi
# --iter 0 with --cpu: the measured figures beside the simulated ones
expect 0 "calibrate --cpu --iter 0" -- "$TFSIM" calibrate --tigerbench $f --arch pg_pg --config $deb \
    --points 1,5 --iter 0 --reps 1 --cpu $cpu --format csv
expect_out "client_cpu_ms,sim_client_cpu_ms,server_cpu_ms,sim_server_cpu_ms,postgres_cpu_ms,sim_postgres_cpu_ms" \
    "calibrate --cpu: the CPU columns"
expect_out "^checkout,5,221.6018,.*,1.2096,[0-9.]*,3.39,[0-9.]*,2.48,[0-9.]*$" "calibrate --cpu: the file's figures"
# without --cpu the table keeps its columns (nothing appended)
expect 0 "calibrate --iter 0 without --cpu" -- "$TFSIM" calibrate --tigerbench $f --arch pg_pg --config $deb \
    --points 1,5 --iter 0 --reps 1 --format csv
if grep -q "cpu_ms" "$tmp/out"; then bad "calibrate without --cpu: CPU columns appended"; else ok; fi
# The same short fit of PostgreSQL's two costs with and without the split:
# fitted to throughputs alone it charges PostgreSQL 2.7 times what was
# measured per checkout at 5 (6.6 ms against 2.48); with the split, weight
# 1, within 30% of it.
expect 0 "calibrate PostgreSQL's costs, throughputs only" -- "$TFSIM" calibrate --tigerbench $f --arch pg_pg \
    --config $deb --points 1,5,10 --fit postgres.query_cpu,postgres.row_cost --iter 25 --reps 1 \
    --out "$tmp/nocpu.ini" --format csv
expect 0 "simulate that fit with the split beside it" -- "$TFSIM" calibrate --tigerbench $f --arch pg_pg \
    --config "$tmp/nocpu.ini" --points 1,5,10 --iter 0 --reps 1 --cpu $cpu --format csv
pg_no=$(awk -F, '$1 == "checkout" && $2 == 5 { print $NF }' "$tmp/out")
expect 0 "calibrate PostgreSQL's costs with --cpu" -- "$TFSIM" calibrate --tigerbench $f --arch pg_pg \
    --config $deb --points 1,5,10 --fit postgres.query_cpu,postgres.row_cost --iter 25 --reps 1 \
    --cpu $cpu --cpu-weight 1 --format csv
pg_cpu=$(awk -F, '$1 == "checkout" && $2 == 5 { print $NF }' "$tmp/out")
if awk -v a="$pg_no" -v b="$pg_cpu" 'BEGIN { exit !(a > 1.5 * 2.48 && b > 2.48 / 1.3 && b < 2.48 * 1.3) }'; then ok
else bad "calibrate --cpu: PostgreSQL per checkout at 5: $pg_no ms without, $pg_cpu with (measured 2.48)"; fi
# bad input: exit 2 naming the file (and line, column)
printf '%s\n%s\n' "arch,concurrency,phase,requests,ok,walltime,throughput,client_ms,server_ms,postgres_ms,redis_ms" \
    "pg_pg,5,checkout,1000,1000,4.5,221.6,1.2,-3.4,2.5,0" >"$tmp/badcpu.csv"
expect 2 "calibrate --cpu bad row" -- "$TFSIM" calibrate --tigerbench $f --arch pg_pg --iter 0 --cpu "$tmp/badcpu.csv"
expect_err "badcpu.csv:2: server_ms: expected milliseconds" "calibrate --cpu names file, line and column"
expect 2 "calibrate --cpu missing file" -- "$TFSIM" calibrate --tigerbench $f --arch pg_pg --iter 0 --cpu "$tmp/none.csv"
expect_err "none.csv: cannot open" "calibrate --cpu: a missing file"
sed 's/^pg_pg,/tb_redis,/' $cpu | sed 's/^pg_redis,/tb_redis,/' >"$tmp/otherarch.csv"
expect 2 "calibrate --cpu without the arch's rows" -- "$TFSIM" calibrate --tigerbench $f --arch pg_pg --iter 0 \
    --cpu "$tmp/otherarch.csv"
expect_err "no rows of architecture pg_pg" "calibrate --cpu: rows of other architectures only"
expect 2 "calibrate --cpu-weight 0" -- "$TFSIM" calibrate --tigerbench $f --arch pg_pg --cpu $cpu --cpu-weight 0
expect_err "cpu-weight" "calibrate --cpu-weight 0 is refused"
