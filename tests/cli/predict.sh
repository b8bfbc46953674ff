# tfsim predict on the shipped TigerBench data: outputs, the load
# generator's choice (--client), pg_redis, the seed's two quoted tb_redis
# figures, a self-prediction.  (Split from calibrate.sh so that the two
# run side by side: tests/cli_test.sh runs files in parallel.)
data=tests/data/calibration.csv

expect 0 "predict csv" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target tb_redis --reps 2 --format csv
expect_out "^phase,concurrency,throughput,ci_low,ci_high,band_low,band_high,holds_rows,client_busy,server_busy$" "predict csv header"
expect_out "^reserve,100," "predict covers every baseline concurrency"
# the band: the baseline's own points simulated as the target is, and each
# prediction -+ the note's percentage (1.645 x their root mean square error
# x sqrt(n / (n - k)) for the k fitted values; the note rounds it to 0.1%)
expect_err "band: pg_pg's 44 measured throughputs at concurrency >= 5, simulated at its calibration as the target is, are off by [0-9.]*% on average" \
    "predict: the band's note"
expect_err "band: band_low..band_high = each prediction -+1.645 x [0-9.]*% x sqrt(48 / (48 - [0-9]*)) = [0-9.]*%" \
    "predict: the band's width"
# tb_redis keeps nothing in PostgreSQL that pg_pg did not run there
if grep -q "^note: band: tb_redis keeps" "$tmp/err"; then bad "predict: a band limit where there is none"; else ok; fi
pct=$(sed -n 's/.*band_low..band_high = each prediction .* = \([0-9.]*\)% (a fit.*/\1/p' "$tmp/err")
if [ -n "$pct" ] && awk -F, -v w="$pct" 'NR > 1 { n++; lo = $3 * (1 - w / 100); hi = $3 * (1 + w / 100); d = 1e-3 * $3
        if ($6 < lo - d || $6 > lo + d || $7 < hi - d || $7 > hi + d || !($6 < $3 && $7 > $3)) bad = 1 }
        END { exit bad || n != 48 }' "$tmp/out"; then ok
else bad "predict: band_low and band_high are the throughput -+ the note's '$pct'%"; fi
# TigerBeetle accounts for tb_redis: no holds table, its column empty
expect_out "^reserve,100,[0-9.-]*,[0-9.-]*,[0-9.-]*,[0-9.-]*,[0-9.-]*,,[0-9.]*,[0-9.]*$" "predict: holds_rows empty for TigerBeetle accounting"
# the loops' busy shares: tb_redis's load generator holds reserve from 20
# on (0.98-0.99 at 30-100 when written), the server's loop checkout at 10
# (0.96): shares in 0..1, and predict names the points
if awk -F, 'NR > 1 { n++; if (!($9 >= 0 && $9 <= 1 && $10 >= 0 && $10 <= 1)) bad = 1
        if ($1 == "reserve" && $2 >= 30 && $9 < 0.9) bad = 1; if ($2 == 1 && $9 > 0.5) bad = 1 }
        END { exit !(n == 48 && !bad) }' "$tmp/out"; then ok
else bad "predict: client_busy and server_busy in 0..1, the client holding reserve from 30"; fi
expect_err "the load generator's event loop is busy 90% of the time or more (client_busy): checkout at [0-9]*-100; webhook at [0-9]*-100; reserve at [0-9]*-100; commit at [0-9]*-100; there it sets the throughput" \
    "predict names the points the load generator holds"
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
if grep -q "baseline pg_pg has no operation timings" "$tmp/err"; then bad "predict: timings missing in a file that has them"; else ok; fi
# The fits below are run by the release build only: under the sanitizers
# they take minutes, and the lighter fits of this file and calibrate.sh
# run the same code there.
case "$TFSIM" in
*/san/*) ;;
*)
# --calibrate with --config fits from the config's values (it used to take
# them as the calibration and fit nothing)
expect 0 "predict --config --calibrate" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg \
    --target tb_redis --reps 2 --format csv --config configs/tigerfans/client_debian12.ini --calibrate --fits 1
expect_err "baseline pg_pg: fitted from $data now" "predict --config --calibrate fits"
# no band when the baseline has no more throughputs than fitted values
# (concurrency 1 only: 4 throughputs): the columns empty, a note says why
awk -F, 'NR == 1 || $6 == 1' $data >"$tmp/c1.csv"
expect 0 "predict, the baseline at concurrency 1 only" -- "$TFSIM" predict --tigerbench "$tmp/c1.csv" \
    --baseline pg_pg --target tb_redis --config configs/tigerfans/pg_pg.ini --reps 2 --format csv
expect_out "^checkout,1,[0-9.]*,[0-9.]*,[0-9.]*,,,,[0-9.]*,[0-9.]*$" "predict: band columns empty without a band"
expect_err "band: none (band_low, band_high empty): pg_pg has 4 measured throughputs, no more than the [0-9]* values" \
    "predict says why there is no band"
# the reverse (pg_redis -> pg_pg): pg_pg's sessions in PostgreSQL were never
# in pg_redis's runs, and the band says it does not hold their pricing; a
# config not fitted to these data gives a band as wide as its misses
expect 0 "predict the reverse from a config" -- "$TFSIM" predict --tigerbench tests/data/live_pinned_m.csv \
    --baseline pg_redis --target pg_pg --config configs/tigerfans/pg_redis.ini --reps 2 --format csv
expect_err "band: pg_pg keeps its payment sessions in PostgreSQL, which pg_redis's runs never did" \
    "predict: the band's limit named"
expect_err "band: band_low..band_high = each prediction -+1.645 x [0-9][0-9][0-9]*.[0-9]% x sqrt(24 / (24 - [0-9]*))" \
    "predict: a band as wide as an unfitted config's misses"
# --client auto (the default): a baseline fitted from the file is fitted with
# both load generators and the closer fit kept.  Data the model itself made
# with Debian's client (cpu_scale 0.8: another machine's speed) at 1, 10, 50
# and 100 pick Debian's; the measured upstream points (httpcore 1.0.9) pick
# 1.0's (objectives at --iter 25, which keeps the test short: 0.14 against
# 1.22, and 0.18 against 1.27).  Phase rows only (the kinds' rows of pg_pg
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
    --baseline pg_pg --target tb_redis --reps 2 --iter 25 --fits 1 --format csv
expect_err "with Debian 12's httpx 0.23 / httpcore 0.16 (the client of configs/tigerfans/client_debian12.ini), objective [0-9.e-]*: Debian's kept" \
    "predict --client auto picks Debian's client for data it made"
expect_err "httpcore 0.16 (Debian 12's python3-httpx 0.23.3), as configs/tigerfans/client_debian12.ini (embedded) sets it" \
    "predict names the embedded preset"
# phase rows only: predict says the fit cannot split the client's CPU from the
# server's; the two fits are far apart (0.14 against 1.22), so not "close"
expect_err "baseline pg_pg has no operation timings in $tmp/deb_synth.csv: the fit sees only phase throughputs" \
    "predict says the baseline has no timings"
if grep -q "the two fits are within" "$tmp/err"; then bad "predict calls fits 9x apart close"; else ok; fi
expect 0 "predict --client auto, upstream data" -- "$TFSIM" predict --tigerbench "$tmp/upstream_sub.csv" \
    --baseline pg_pg --target tb_redis --reps 2 --iter 25 --fits 1 --format csv
expect_err "objective [0-9.e-]*: 1.0's kept" "predict --client auto keeps 1.0's client for TigerBench's data"
expect_err "baseline pg_pg has no operation timings in" "predict says the upstream subset has no timings"
if grep -q "the two fits are within" "$tmp/err"; then bad "predict calls fits 7x apart close"; else ok; fi
# host.cpu_scale, a known answer: the upstream subset's pg_pg simulated
# on a host 1.6 times slower (the server's and PostgreSQL's costs, not the
# load generator's; the subset's own database state), and a fit of that
# one key finds it within 10% (the four points' simulation noise, three
# replications)
expect 0 "simulate pg_pg on a slower host" -- "$TFSIM" calibrate --tigerbench "$tmp/upstream_sub.csv" \
    --arch pg_pg --set host.cpu_scale=1.6 --iter 0 --reps 3 --format csv
awk -F, -v OFS=, -v sim="$tmp/out" '
    BEGIN { while ((getline l < sim) > 0) { split(l, f, ","); x[f[1] "," f[2]] = f[4] } }
    NR > 1 && $4 == "pg" && $5 == "pg" { $15 = x[$3 "," $6]; $14 = $12 / $15 } { print }' \
    "$tmp/upstream_sub.csv" >"$tmp/slow_synth.csv"
expect 0 "calibrate --fit host.cpu_scale" -- "$TFSIM" calibrate --tigerbench "$tmp/slow_synth.csv" \
    --arch pg_pg --fit host.cpu_scale --iter 20 --reps 3 --format csv --out "$tmp/slow.ini"
hs=$(awk '/^\[/ { s = $0 } s == "[host]" && $1 == "cpu_scale" { print $3 }' "$tmp/slow.ini")
if [ -n "$hs" ] && awk -v v="$hs" 'BEGIN { exit !(v > 1.44 && v < 1.76) }'; then ok
else bad "calibrate --fit host.cpu_scale: '$hs', not 1.6 within 10%"; fi
# predict --fit: a baseline fitted with those keys, never the shipped
# calibration (fitted with the default set); PostgreSQL's statement cost,
# which host.cpu_scale moves, stays the baseline's (only Redis's comes from
# pg_redis's light-load timings), and without host.cpu_scale among the
# keys it is the target's own again; a key it cannot fit named
expect 0 "predict --fit" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target pg_redis \
    --fit host.cpu_scale --iter 2 --fits 1 --client config --reps 2 --format csv
expect_err "baseline pg_pg: fitted from $data now" "predict --fit fits the baseline, not the shipped values"
expect_err "own demand from its timings at concurrency 1: redis.loop_cpu=" "predict --fit: Redis's cost from pg_redis's timings"
if grep -q "own demand from its timings at concurrency 1: postgres.query_cpu" "$tmp/err"; then
    bad "predict --fit host.cpu_scale: the statement cost refitted from the target's timings"; else ok; fi
expect 0 "predict --fit without host.cpu_scale" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg \
    --target pg_redis --fit client.cpu_scale --iter 2 --fits 1 --client config --reps 2 --format csv
expect_err "own demand from its timings at concurrency 1: postgres.query_cpu=" \
    "predict --fit without the statement cost or host.cpu_scale: the target's timings set it"
# a --set of a key the default set fits: predict says the fit moves it
expect 0 "predict, a fitted key --set" -- "$TFSIM" predict --tigerbench "$tmp/upstream_sub.csv" \
    --baseline pg_pg --target tb_redis --iter 2 --fits 1 --client config --reps 2 --format csv \
    --set host.cores=2.5 --set host.rtt=50us
expect_err "^note: --set host.cores=2.5: a key the fit fits: the value is only its start (a --fit list without it holds it)$" \
    "predict names a --set the default set fits (and not host.rtt)"
expect 2 "predict --fit, an unknown key" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg \
    --target tb_redis --fit host.cpus
expect_err "host.cpus" "predict --fit names the unknown key"
# --fits 2: the baseline fitted from two seeds (the second with the client
# the first kept), each point the mean, fit_low..fit_high around it; a
# given baseline has one fit and says so
expect 0 "predict --fits 2" -- "$TFSIM" predict --tigerbench "$tmp/upstream_sub.csv" \
    --baseline pg_pg --target tb_redis --reps 2 --iter 10 --fits 2 --seed 4 --db "$tmp/fits.db" --format csv
expect_out "^phase,concurrency,throughput,ci_low,ci_high,band_low,band_high,fit_low,fit_high,holds_rows,client_busy,server_busy$" \
    "predict --fits 2: fit_low, fit_high after the band"
expect_err "baseline pg_pg: 2 fits from seeds 4-5 (objectives [0-9.e-]*, [0-9.e-]*), each with the load generator the first kept" \
    "predict --fits 2 names the seeds and objectives"
awk -F, 'NR > 1 && !($8 <= $3 + 1e-9 && $3 <= $9 + 1e-9) { bad = 1 } NR > 1 && $8 < $9 { spread = 1 }
    END { exit bad || !spread }' "$tmp/out" && ok || bad "predict --fits 2: each mean inside fit_low..fit_high, some spread"
expect 0 "predict --fits 3 with a given baseline" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg \
    --target tb_redis --reps 2 --fits 3 --config configs/tigerfans/pg_pg.ini --format csv
expect_err "one fit, not 3: the baseline's values are given (the config given)" "predict --fits with --config: one fit"
expect_out "^phase,concurrency,throughput,ci_low,ci_high,band_low,band_high,holds_rows," "predict, one fit: no fit_low column"
# the same again, in text: both fits read back from --db
expect 0 "predict --fits 2, text" -- "$TFSIM" predict --tigerbench "$tmp/upstream_sub.csv" \
    --baseline pg_pg --target tb_redis --reps 2 --iter 10 --fits 2 --seed 4 --db "$tmp/fits.db"
expect_out "^prediction of tb_redis from pg_pg, the mean of 2 fits (the first: a stored fit), 2 replications per point$" \
    "predict --fits 2, text: the title says the mean"
expect_out "^note: baseline pg_pg: the fit stored for these data" "predict --fits 2, text: the fits read from --db"
for bad_fits in 0 17 x; do
    expect 2 "predict --fits $bad_fits" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg \
        --target tb_redis --fits $bad_fits
    expect_err "--fits: expected an integer in 1..16" "predict names a bad --fits ($bad_fits)"
done
    ;;
esac
expect 2 "predict --client bad" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target tb_redis \
    --client debian11
expect_err "--client: 'debian11' is not auto, config or debian12" "predict names a bad --client"
expect 2 "predict --iter 0" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target tb_redis --iter 0
expect_err "--iter: expected an integer in 1..100000" "predict names a bad --iter"
expect 0 "calibrate with httpcore 0.16" -- "$TFSIM" calibrate --tigerbench $data --arch pg_pg --points 1,10 \
    --iter 1 --reps 1 --format csv --config configs/tigerfans/client_debian12.ini --out "$tmp/cal016.ini"
if grep -q '^cpu_scale = ' "$tmp/cal016.ini" && ! grep -q '^pool_idle_cpu = ' "$tmp/cal016.ini"; then ok;
else bad "calibrate with httpcore 0.16 fits client.cpu_scale, not pool_idle_cpu"; sed 's/^/    /' "$tmp/cal016.ini"; fi
# pg_redis: PostgreSQL (statements, accounting, holds table) is pg_pg's, so
# its costs and the series' state stay; only Redis is fitted from pg_redis's
# timings; --refit-shared fits PostgreSQL's too and takes the state from the
# hold timing
expect 0 "predict pg_redis" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target pg_redis --reps 2 --format csv
expect_out "^reserve,100,[0-9.-]*,[0-9.-]*,[0-9.-]*,[0-9.-]*,[0-9.-]*,[0-9]" "predict: holds_rows given for PostgreSQL accounting"
# the CI's low end of a throughput stops at 0 (2 replications: t = 12.7; commit at 100
# went to -7.5 before)
if awk -F, 'NR > 1 && $4 < 0 { bad = 1 } END { exit !bad }' "$tmp/out"; then
    bad "predict: a negative ci_low"; else ok; fi
expect_err "pg_redis runs PostgreSQL's statements, PostgreSQL accounting and its holds table as pg_pg does: their costs stay those of pg_pg's calibration, with the series' holds rows" \
    "predict: shared components keep the baseline's values"
expect_err "own demand from its timings at concurrency 1: redis.loop_cpu=" "predict: the target's own Redis fitted"
if grep -q "own demand from its timings at concurrency 1: postgres.query_cpu" "$tmp/err"; then
    bad "predict: PostgreSQL's statement cost refitted without --refit-shared"; else ok; fi
expect_err "pg_redis at concurrency 1 ran after pg_pg at 1 on the same database: 12,000 holds rows at its start" "predict: state from the order"
if awk -F, '$1 == "reserve" && $2 == 10 { exit $8 != 64000 }' "$tmp/out"; then ok; else
    bad "predict: pg_redis at 10 on the series' 64,000 holds rows"; grep '^reserve,10,' "$tmp/out" | sed 's/^/    /'; fi
expect 0 "predict pg_redis --refit-shared" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg \
    --target pg_redis --reps 2 --format csv --refit-shared
expect_err "pg_redis's accounting.hold at concurrency 1 (5.984 ms) matches" "predict --refit-shared: state from the hold timing"
expect_err "own demand from its timings at concurrency 1: postgres.query_cpu=" "predict --refit-shared: statement cost fitted"
expect_err "Redis: on cores of its own (host.redis_on_host = false" "predict says where Redis runs"
if grep -q "Redis: io-threads" "$tmp/err"; then
    bad "predict: an io-threads note with Redis off the host (its threads cost nothing there)"; else ok; fi
expect_err "redis-py: each Redis command waits 2 loop turns of the pool's connection check (redis.pool_turns) under the pool's lock" \
    "predict names redis-py's turns (the defaults: TigerFans' redis-py)"
expect_err "then 0 of its send (redis.send_turns" "predict names the send's turns (default 0)"
expect 0 "predict pg_redis, Redis on the host" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg \
    --target pg_redis --reps 2 --format csv --set host.redis_on_host=true --set redis.send_turns=1 \
    --set redis.pool_lock=false --set redis.io_threads=1
if grep -q "Redis: on cores of its own" "$tmp/err"; then bad "predict: no Redis note once it is on the host"; else ok; fi
expect_err "Redis: io-threads 1 (redis.io_threads; TigerFans' Makefile runs Redis with --io-threads 4 --io-threads-do-reads yes); a series" \
    "predict names the target's Redis io-threads once Redis is on the host"
expect_err "outside the pool's lock (redis-py 4.3.4, Debian 12), then 1 of its send" "predict: the turns as --set sets them"
# with the target measured (pg_pg against itself), errors and Amdahl columns appear
# Two withheld tb_redis figures are known: the seed document quotes the
# concurrency-10 means of the same dataset (its pg_pg figures, 272 and 389.7,
# are this file's), 861 checkouts/s and 977.2 reserves/s; seed_quotes.csv
# holds those two rows, appended here to the calibration data.  The prediction from the shipped
# calibration must stay within 10% of both: +2.8% and -1.7% when written (+4.6% and -2.0% on 2026-12-03), with
# the load generator's costs measured by the HTTP probe and only its speed
# factor calibrated (with those costs fitted to pg_pg as well it was +20% and
# +18%: docs/calibration.md); Amdahl-style scaling is 28-30%
# off.  Never fitted to: a check of the prediction only.
{ cat $data; tail -n +2 tests/data/seed_quotes.csv; } >"$tmp/with_quotes.csv"
expect 0 "predict tb_redis vs the seed's quotes" -- "$TFSIM" predict --tigerbench "$tmp/with_quotes.csv" \
    --baseline pg_pg --target tb_redis --format csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         $2 == 10 && ($1 == "checkout" || $1 == "reserve") && $c["measured"] != "" {
             n++; e = $c["error_pct"]; if (e < 0) e = -e; if (e >= 10) bad = 1 }
         END { exit bad || n != 2 }' "$tmp/out" && ok ||
    { bad "predict tb_redis: checkout and reserve at 10 within 10% of the seed's quotes"; grep ',10,' "$tmp/out" | sed 's/^/    /'; }
expect_err "MAPE at concurrency >= 5: simulation" "predict tb_redis: MAPE against the quotes"
# a target FILE does not hold: predicted all the same (the embedded or
# --config demands for what it adds, the baseline's database state at each
# point), checked before any fit; a name that is no architecture fails at once
awk -F, 'NR == 1 || ($4 == "pg" && $5 == "pg")' $data >"$tmp/pg_only.csv"
expect 0 "predict a target not in the file" -- "$TFSIM" predict --tigerbench "$tmp/pg_only.csv" \
    --baseline pg_pg --target pg_redis --config configs/tigerfans/base.ini --reps 2 --format csv
expect_err "pg_redis is not in $tmp/pg_only.csv: what it adds (Redis, \[redis\]) keeps the config's demands" \
    "predict: an absent target's demands are the config's"
expect_err "pg_redis's timings at concurrency 1 in" "predict: says what would fit the absent target"
if [ "$(grep -c '^' "$tmp/out")" -eq 49 ]; then ok; else bad "predict absent target: expected 48 rows + header"; fi
cp "$tmp/out" "$tmp/absent.csv"
expect 0 "calibrate the baseline as given" -- "$TFSIM" calibrate --tigerbench "$tmp/pg_only.csv" \
    --arch pg_pg --config configs/tigerfans/base.ini --iter 0 --reps 2 --format csv
# every point on the rows pg_pg had at that concurrency (8th column of
# predict and of calibrate)
if awk -F, 'NR == FNR { if (FNR > 1) r[$1 "," $2] = $8; next }
            FNR > 1 { n++; if (!($1 "," $2 in r) || r[$1 "," $2] != $8) bad = 1 }
            END { exit bad || n != 48 }' "$tmp/out" "$tmp/absent.csv"; then ok; else
    bad "predict absent target: holds rows are not the baseline's"; fi
# the file's DB_POOL_SIZE (db_pool_size) is simulated: TigerFans' pool and
# DB gate of 20; an absent target runs with the baseline's settings; up to
# concurrency 10 the gate never binds and every figure is the same
sed 's/,pg,pg,\([0-9]*\),10,512,/,pg,pg,\1,20,512,/' "$tmp/pg_only.csv" >"$tmp/pool20.csv"
expect 0 "predict, db_pool_size 20" -- "$TFSIM" predict --tigerbench "$tmp/pool20.csv" \
    --baseline pg_pg --target pg_redis --config configs/tigerfans/base.ini --reps 2 --format csv
expect_err "pg_pg ran with db_pool_size 20: simulated with postgres.pool_size and postgres.gate 20" \
    "predict names the file's pool size"
expect_err "pg_redis is simulated with the settings of pg_pg's runs" "predict: an absent target takes the baseline's settings"
if awk -F, 'NR == FNR { if (FNR > 1) r[$1 "," $2] = $3; next }
            FNR > 1 { same = r[$1 "," $2] == $3; if ($2 <= 10 && !same) bad = 1; if ($2 >= 20 && !same) moved++ }
            END { exit bad || moved < 4 }' "$tmp/absent.csv" "$tmp/out"; then ok; else
    bad "predict db_pool_size 20: the same up to 10, different beyond"; fi
# the notes compare the file with the config, not with TigerBench's
# defaults: a pool of 20 in both is no news, a file's 10 under a config's
# 20 is (and is what runs)
printf 'include = %s/configs/tigerfans/base.ini\n[postgres]\npool_size = 20\ngate = 20\n' "$PWD" >"$tmp/pool20.ini"
expect 0 "predict, db_pool_size 20 as the config's" -- "$TFSIM" predict --tigerbench "$tmp/pool20.csv" \
    --baseline pg_pg --target pg_redis --config "$tmp/pool20.ini" --reps 2 --format csv
if grep -q "db_pool_size" "$tmp/err"; then bad "predict: the file's pool equal to the config's is noted"; else ok; fi
expect 0 "predict, db_pool_size 10 under a config's 20" -- "$TFSIM" predict --tigerbench "$tmp/pg_only.csv" \
    --baseline pg_pg --target pg_redis --config "$tmp/pool20.ini" --reps 2 --format csv
expect_err "pg_pg ran with db_pool_size 10: simulated with postgres.pool_size and postgres.gate 10" \
    "predict names the file's pool where it differs from the config's"
expect 2 "predict a target that names no architecture" -- "$TFSIM" predict --tigerbench "$tmp/pg_only.csv" \
    --baseline pg_pg --target redis
expect_err "--target: .*architecture 'redis' is not in the file (present: pg_pg), and 'redis' does not name one" \
    "predict: a bad target is named with the file's architectures"
expect 2 "predict a target tfsim does not model" -- "$TFSIM" predict --tigerbench "$tmp/pg_only.csv" \
    --baseline pg_pg --target tb_kafka
expect_err "architecture tb_kafka: payments 'kafka' is not one tfsim models" "predict: unmodelled backend"
expect 0 "predict self" -- "$TFSIM" predict --tigerbench $data --baseline pg_pg --target pg_pg --reps 2 --format csv
expect_out "error_pct" "predict error column"
expect_out "amdahl_error_pct" "predict amdahl column"
expect_err "MAPE at concurrency >= 5: simulation" "predict MAPE"
expect_out "measured_min,measured_max" "predict: the repetitions' range"
# the counts agree with the table: points at 5 and more within 15%, and of
# the others those outside their repetitions' least and greatest
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["concurrency"] >= 5 && $c["error_pct"] != "" {
        n++; e = $c["error_pct"]; if (e < 0) e = -e
        x = $c["throughput"]
        if (e <= 15) w++; else if (x < $c["measured_min"] || x > $c["measured_max"]) b++ }
    END { printf "points within 15%%: %d of %d; of the others, %d outside\n", w, n, b }' \
    "$tmp/out" >"$tmp/counts"
if grep -qF "$(cat "$tmp/counts")" "$tmp/err"; then ok; else bad "predict: counts $(cat "$tmp/counts") not in: $(grep 'points within' "$tmp/err")"; fi
# and the points whose measured mean lies in the band
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["concurrency"] >= 5 && $c["error_pct"] != "" {
        n++; m = $c["measured"]; if (m >= $c["band_low"] && m <= $c["band_high"]) k++ }
    END { printf "): %d of %d\n", k, n }' "$tmp/out" >"$tmp/counts"
if grep "^points inside the band (band_low..band_high, -+[0-9.]*%" "$tmp/err" | grep -qF "$(cat "$tmp/counts")"; then ok
else bad "predict: band count $(cat "$tmp/counts") not in: $(grep 'inside the band' "$tmp/err")"; fi

