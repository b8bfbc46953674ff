# tfsim calibrate / predict: small fits (a few iterations) on the shipped
# TigerBench data, outputs, cross-validation columns, bad input.
data=tests/data/calibration.csv

expect 0 "calibrate quick" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --points 1,10 \
    --fit client.cpu,server.cpu_request --iter 3 --reps 1 --format csv --out "$tmp/cal.ini"
expect_out "^phase,concurrency,measured,simulated,simulated_ci,error_pct,fitted,holds_rows" "calibrate csv header"
expect_out "^checkout,1,122.18" "calibrate measured value"
expect_out "held out" "calibrate held-out points"
expect_err "MAPE of phase throughput: fitted points" "calibrate MAPE line"
if grep -q '^\[client\]' "$tmp/cal.ini" && grep -q '^cpu = ' "$tmp/cal.ini" \
   && grep -q '^\[server\]' "$tmp/cal.ini"; then ok; else bad "calibrate --out content"; fi
# the written file is a runnable scenario
expect 0 "run calibrated ini" -- "$TFSIM" run "$tmp/cal.ini" --reps 2 --set client.total=100 --format csv
# same seed, same calibration
expect 0 "calibrate again" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --points 1,10 \
    --fit client.cpu,server.cpu_request --iter 3 --reps 1 --format csv
cp "$tmp/out" "$tmp/cal2.csv"
expect 0 "calibrate third" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --points 1,10 \
    --fit client.cpu,server.cpu_request --iter 3 --reps 1 --format csv
if cmp -s "$tmp/cal2.csv" "$tmp/out"; then ok; else bad "calibrate not deterministic"; fi

# the same fit whatever --jobs is
expect 0 "calibrate --jobs 1" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --points 1,10 \
    --fit client.cpu,server.cpu_request --iter 3 --reps 1 --format csv --jobs 1
if cmp -s "$tmp/cal2.csv" "$tmp/out"; then ok; else bad "calibrate depends on --jobs"; fi
# --db: the fit is stored with its per-point table; the same calibration
# again is read back (no fit) and prints exactly what the fresh one did
expect 0 "calibrate --db" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --points 1,10 \
    --fit client.cpu,server.cpu_request --iter 3 --reps 1 --format csv --db "$tmp/cal.db"
expect_err "stored as run 1 in .*calibration key" "calibrate --db stores the fit"
if cmp -s "$tmp/cal2.csv" "$tmp/out"; then ok; else bad "calibrate --db changed the results"; fi
expect 0 "calibrate --db again" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --points 1,10 \
    --fit client.cpu,server.cpu_request --iter 3 --reps 1 --db "$tmp/cal.db"
expect_out "stored fit (run 1 of" "calibrate reads the stored fit"
expect 0 "calibrate --db again, csv" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --points 1,10 \
    --fit client.cpu,server.cpu_request --iter 3 --reps 1 --format csv --db "$tmp/cal.db"
if cmp -s "$tmp/cal2.csv" "$tmp/out"; then ok; else bad "stored and fresh calibrations differ"; fi
expect 0 "export the stored calibration" -- "$TFSIM" export "$tmp/cal.db" --list runs
expect_out "calibrate" "the calibration is a run of the results database"

expect 0 "predict csv" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target tb_redis --reps 2 --format csv
expect_out "^phase,concurrency,throughput,ci_low,ci_high,holds_rows" "predict csv header"
expect_out "^reserve,100," "predict covers every baseline concurrency"
if [ "$(grep -c '^' "$tmp/out")" -eq 49 ]; then ok; else bad "predict: expected 48 rows + header"; fi
expect_err "baseline pg_pg: the shipped calibration" "predict says where the baseline's values come from"
expect_err "own demand from its timings at concurrency 1: tigerbeetle.batch_base=gamma(shape=8" "predict light-load fit"
expect_err "series order by concurrency" "predict states the series order"
expect_err "measured throughput is not in" "predict says the target is not measured"
expect_err "load generator: httpcore 1.0 (TigerFans pins httpx 0.28.1); for data measured with Debian 12" \
    "predict names the load generator's httpcore and the Debian config"
# the load generator on Debian 12's httpx (httpcore 0.16): the config runs,
# predict says so, and the default fit skips pool_idle_cpu (0.16 has no such term)
expect 0 "predict with client_debian12.ini" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg \
    --target tb_redis --reps 2 --format csv --config configs/tigerfans/client_debian12.ini
expect_err "load generator: httpcore 0.16 (Debian 12's python3-httpx 0.23.3), as configs/tigerfans/client_debian12.ini sets it" \
    "predict names httpcore 0.16 and where it was set"
# --calibrate with --config fits from the config's values (it used to take
# them as the calibration and fit nothing)
expect 0 "predict --config --calibrate" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg \
    --target tb_redis --reps 2 --format csv --config configs/tigerfans/client_debian12.ini --calibrate
expect_err "baseline pg_pg: fitted from $data now" "predict --config --calibrate fits"
# --client auto (the default): a baseline fitted from the file is fitted with
# both load generators and the closer fit kept.  Data the model itself made
# with Debian's client (cpu_scale 0.8: another machine's speed) at 1, 10, 50
# and 100 pick Debian's; the measured upstream points (httpcore 1.0.9) pick
# 1.0's (objectives at --iter 25, which keeps the test short: 0.14 against
# 1.60, and 0.17 against 1.27).  Phase rows only (the kinds' rows of pg_pg
# are left out of both).
subset() { # $1: simulated csv of calibrate (or - for the measured values), $2: out
    awk -F, -v OFS=, -v sim="$1" '
        BEGIN { if (sim != "-") while ((getline l < sim) > 0) { split(l, f, ","); x[f[1] "," f[2]] = f[4] } }
        NR == 1 { print; next }
        $4 == "pg" && $5 == "pg" {
            if ($3 ~ /^kind:/ || ($6 != 1 && $6 != 10 && $6 != 50 && $6 != 100)) next
            if (sim != "-") { $15 = x[$3 "," $6]; $14 = $12 / $15 }
            print; next }
        $4 == "tb" { print }' $data >"$2"
}
expect 0 "simulate pg_pg with Debian's client" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg \
    --config configs/tigerfans/client_debian12.ini --set client.cpu_scale=0.8 --iter 0 --reps 3 --format csv
subset "$tmp/out" "$tmp/deb_synth.csv"
subset - "$tmp/upstream_sub.csv"
expect 0 "predict --client auto, Debian-made data" -- "$TFSIM" predict --tigerbench "$tmp/deb_synth.csv" \
    --baseline pg_pg --target tb_redis --reps 2 --iter 25 --format csv
expect_err "with Debian 12's httpx 0.23 / httpcore 0.16 (the client of configs/tigerfans/client_debian12.ini), objective [0-9.e-]*: Debian's kept" \
    "predict --client auto picks Debian's client for data it made"
expect_err "httpcore 0.16 (Debian 12's python3-httpx 0.23.3), as configs/tigerfans/client_debian12.ini (embedded) sets it" \
    "predict names the embedded preset"
expect 0 "predict --client auto, upstream data" -- "$TFSIM" predict --tigerbench "$tmp/upstream_sub.csv" \
    --baseline pg_pg --target tb_redis --reps 2 --iter 25 --format csv
expect_err "objective [0-9.e-]*: 1.0's kept" "predict --client auto keeps 1.0's client for TigerBench's data"
expect 2 "predict --client bad" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target tb_redis \
    --client debian11
expect_err "--client: 'debian11' is not auto, config or debian12" "predict names a bad --client"
expect 2 "predict --iter 0" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target tb_redis --iter 0
expect_err "--iter: expected an integer in 1..100000" "predict names a bad --iter"
expect 0 "calibrate with httpcore 0.16" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --points 1,10 \
    --iter 1 --reps 1 --format csv --config configs/tigerfans/client_debian12.ini --out "$tmp/cal016.ini"
if grep -q '^cpu_scale = ' "$tmp/cal016.ini" && ! grep -q '^pool_idle_cpu = ' "$tmp/cal016.ini"; then ok;
else bad "calibrate with httpcore 0.16 fits client.cpu_scale, not pool_idle_cpu"; sed 's/^/    /' "$tmp/cal016.ini"; fi
# pg_redis: its hold timing gives the database state it ran against
expect 0 "predict pg_redis" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target pg_redis --reps 2 --format csv
expect_err "pg_redis's accounting.hold at concurrency 1 (5.984 ms) matches" "predict: state from the hold timing"
expect_err "pg_redis at concurrency 1 ran after pg_pg at 1 on the same database: 12,000 holds rows at its start" "predict: state from the order"
expect_err "Redis: on cores of its own (host.redis_on_host = false" "predict says where Redis runs"
expect 0 "predict pg_redis, Redis on the host" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg \
    --target pg_redis --reps 2 --format csv --set host.redis_on_host=true
if grep -q "Redis: on cores of its own" "$tmp/err"; then bad "predict: no Redis note once it is on the host"; else ok; fi
# with the target measured (pg_pg against itself), errors and Amdahl columns appear
# Two withheld tb_redis figures are known: the seed document quotes the
# concurrency-10 means of the same dataset (its pg_pg figures, 272 and 389.7,
# are this file's), 861 checkouts/s and 977.2 reserves/s; seed_quotes.csv
# holds those two rows, appended here to the calibration data.  The prediction from the shipped
# calibration must stay within 10% of both: +2.8% and -1.7% when written, with
# the load generator's costs measured by the HTTP probe and only its speed
# factor calibrated (with those costs fitted to pg_pg as well it was +20% and
# +18%: README, "Calibration and prediction"); Amdahl-style scaling is 28-30%
# off.  Never fitted to: a check of the prediction only.
{ cat $data; tail -n +2 tests/data/seed_quotes.csv; } >"$tmp/with_quotes.csv"
expect 0 "predict tb_redis vs the seed's quotes" -- "$TFSIM" predict --tigerbench "$tmp/with_quotes.csv" \
    --baseline pg_pg --target tb_redis --format csv
awk -F, '$2 == 10 && ($1 == "checkout" || $1 == "reserve") && $6 != "" { n++; e = $7 < 0 ? -$7 : $7; if (e >= 10) bad = 1 }
         END { exit bad || n != 2 }' "$tmp/out" && ok ||
    { bad "predict tb_redis: checkout and reserve at 10 within 10% of the seed's quotes"; grep ',10,' "$tmp/out" | sed 's/^/    /'; }
expect_err "MAPE at concurrency >= 5: simulation" "predict tb_redis: MAPE against the quotes"
expect 0 "predict self" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target pg_pg --reps 2 --format csv
expect_out "error_pct" "predict error column"
expect_out "amdahl_error_pct" "predict amdahl column"
expect_err "MAPE at concurrency >= 5: simulation" "predict MAPE"

# bad input: exit 2 naming the file (and line)
expect 2 "calibrate unknown arch" -- "$TFSIM" calibrate --tigerbench $data --arch mongo_pg
expect_err "architecture 'mongo_pg' is not in the file" "unknown arch message"
expect 2 "calibrate arch without throughput" -- "$TFSIM" calibrate --tigerbench $data --arch tb_redis --iter 1
expect_err "has no phase throughput rows" "no throughput message"
printf 'a,b,c\n1,2,3\n' > "$tmp/shape.csv"
expect 2 "calibrate csv of another shape" -- "$TFSIM" calibrate --tigerbench "$tmp/shape.csv" --arch pg_pg
expect_err "shape.csv" "shape message names file"
head -3 $data > "$tmp/nonnum.csv"
sed -i '3s/,1000,1000,0,/,1000,many,0,/' "$tmp/nonnum.csv"
expect 2 "calibrate non-numeric field" -- "$TFSIM" calibrate --tigerbench "$tmp/nonnum.csv" --arch pg_pg
expect_err "nonnum.csv:3" "non-numeric message names line"
expect 2 "calibrate missing point" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --points 7
expect_err "no concurrency 7" "missing point message"
expect 2 "calibrate bad fit key" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --fit client.cpus
expect 2 "calibrate non-numeric fit key" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --fit architecture.payments
expect 2 "predict missing target" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg
expect 2 "predict unknown target" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target tb_pg
expect 2 "predict missing file" -- "$TFSIM" predict --tigerbench "$tmp/none.csv" --baseline pg_pg --target tb_redis
# predict --db: the table is stored and the report charts its error column
expect 0 "predict --db" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target pg_pg --reps 2 \
    --format csv --db "$tmp/pred.db"
expect_err "stored as run [0-9]* in" "predict stored"
expect 0 "report of a prediction" -- "$TFSIM" report "$tmp/pred.db" -o "$tmp/pred.html"
if grep -q "<svg" "$tmp/pred.html" && grep -q "error_pct" "$tmp/pred.html"; then ok; else bad "prediction report has no chart or table"; fi

# calibrate, then predict on the same data: predict uses the stored fit
# (not the shipped calibration: these are not the data it was fitted on),
# and gives what a fresh fit gives.  A small file (pg_pg at 1 and 10, the
# light-load timings of tb_redis) and 200 requests per phase keep it short.
awk -F, 'NR == 1 || $6 == 1 || ($6 == 10 && $4 == "pg")' $data >"$tmp/small.csv"
small="--tigerbench $tmp/small.csv --set client.total=200"
expect 0 "calibrate the small file" -- "$TFSIM" calibrate $small --arch pg_pg --db "$tmp/flow.db"
expect_err "stored as run 1" "calibrate stored the small file's fit"
expect 0 "predict from the stored fit" -- "$TFSIM" predict $small --baseline pg_pg --target tb_redis --reps 2 \
    --format csv --db "$tmp/flow.db"
expect_err "baseline pg_pg: the fit stored for these data" "predict uses calibrate's fit"
cp "$tmp/out" "$tmp/flow_stored.csv"
expect 0 "predict fitting again" -- "$TFSIM" predict $small --baseline pg_pg --target tb_redis --reps 2 \
    --format csv --calibrate
expect_err "baseline pg_pg: fitted from" "predict --calibrate fits"
if cmp -s "$tmp/flow_stored.csv" "$tmp/out"; then ok; else bad "predict: stored and fresh fits give different predictions"; fi

# the series in another order: all of pg_pg, then pg_redis on the same database
awk -F, 'NR == 1 || ($4 == "pg" && $5 == "pg" && ($6 == 1 || $6 == 10))' $data >"$tmp/byarch.csv"
awk -F, '$4 == "pg" && $5 == "redis"' $data | sed 's/2025-09-20T11:30:40/2025-09-20T12:30:40/' >>"$tmp/byarch.csv"
expect 0 "predict on a file by architecture" -- "$TFSIM" predict --tigerbench "$tmp/byarch.csv" --config configs/tigerfans/pg_pg.ini \
    --baseline pg_pg --target pg_redis --reps 2 --format csv
expect_err "series order by architecture" "predict reads the order by architecture"
expect_err "pg_redis at concurrency 1 ran after pg_pg at 1, 10 on the same database: 24,000 holds rows at its start" "predict: by-architecture state"

# bad or inconsistent files: exit 2 naming file:line
{ head -1 $data; sed -n 14p $data | awk -F, -v OFS=, '{ $15 = "1e308"; print }'; } >"$tmp/absurd.csv"
expect 2 "calibrate: a kind mean of 1e308 s" -- "$TFSIM" calibrate --tigerbench "$tmp/absurd.csv" --arch pg_pg
expect_err "absurd.csv:2: throughput: 1e+308 is beyond" "absurd kind mean names file:line"
{ cat $data; tail -n +2 $data; } >"$tmp/twice.csv"
expect 2 "predict: duplicated rows" -- "$TFSIM" predict --tigerbench "$tmp/twice.csv" --baseline pg_pg --target tb_redis
expect_err "twice.csv:445: duplicates line 2" "duplicated rows name both lines"
sed '5s/,commit,pg,pg,/,browse,pg,pg,/' $data >"$tmp/phase.csv"
expect 2 "calibrate: an unknown phase" -- "$TFSIM" calibrate --tigerbench "$tmp/phase.csv" --arch pg_pg
expect_err "phase.csv:5: phase: 'browse' is not a TigerBench phase" "unknown phase names file:line"
sed '60s/,tb,redis,/,mongo,redis,/' $data >"$tmp/arch.csv"
expect 2 "predict: an unknown architecture" -- "$TFSIM" predict --tigerbench "$tmp/arch.csv" --baseline pg_pg --target tb_redis
expect_err "arch.csv:60: accounting: architecture mongo_redis" "unknown architecture names file:line"
