# Redis with --io-threads 4 --io-threads-do-reads yes (as TigerFans runs it)
# beside the default one: the probe reads the setting and sees the cliff at
# 2 x io-threads clients, fit carries the setting into its fragment, and
# compare sets redis.io_threads from the server and simulates the cliff.
# Gross checks only (the machine may be shared); the 15% comparison is
# measured by hand (docs/redis-io-threads.md).
# levels 1, 7, 8, 16, 32: with 7 clients (below 2 x io-threads) a GET stays
# under a millisecond (no cycle waits for the I/O threads); at 8, 16 or 32 the
# threads start and a GET takes scheduler ticks (over 4 ms).  They start
# once 8 replies are pending in one cycle, which on a quiet machine may not
# happen at every level from 8 on (Redis keeps up with one sender), and in
# a CI run happened at none of them: so up to three probe runs, the cliff
# in one of them; below 8, never, in any (300 GETs per level: with 120 a run
# once started the threads at none of 8, 16 and 32).
# The threads' share of the replies (threaded_writes, from INFO stats):
# none at 7; where a level shows the cliff, a share of its replies
# threaded: over a tenth (the threads may start part-way through a level:
# a CI run had 0.36 of the replies threaded at 8 and a mean of 6.8 ms, the
# 16 ms cycles for that share and sub-millisecond ones before them).
rio_cliff=0
for rio_try in 1 2 3; do
    expect 0 "probe redis io-threads 4, auto levels (run $rio_try)" -- "$TFSIM" probe redis \
        --socket "$TFSIM_REDIS_IO4_SOCKET" --concurrency auto --ops paymentsession.get --count 300 \
        --warmup 10 --format csv --out "$tmp/io4.csv"
    expect_err "io-threads 4 (reads too)" "probe redis: the server's io-threads"
    cp "$tmp/out" "$tmp/io4_out.csv"
    awk -F, 'NR > 1 { n++; c[$2] = $4; w[$2] = $11 }
             END { good = 1; for (l in c) if (l + 0 >= 8 && c[l] > 4 && w[l] < 0.1) good = 0;
                   exit !(good && n == 5 && (7 in c) && (8 in c) && (32 in c) && c[7] < 1 && w[7] == 0) }' \
        "$tmp/io4_out.csv" && ok || { bad "probe redis io4: levels 1,7,8,16,32, no cliff and no threaded reply below 8, slow levels with threaded replies"; sed 's/^/    /' "$tmp/io4_out.csv"; }
    if awk -F, 'NR > 1 { c[$2] = $4 } END { exit !(c[8] > 4 || c[16] > 4 || c[32] > 4) }' "$tmp/io4_out.csv"; then
        rio_cliff=1
        break
    fi
done
if [ "$rio_cliff" = 1 ]; then ok; else bad "probe redis io4: no cliff at 8, 16 or 32 in three runs"; sed 's/^/    /' "$tmp/io4_out.csv"; fi
if [ "$(head -n 1 "$tmp/io4_out.csv")" = "operation,concurrency,n,mean_ms,p50_ms,p99_ms,max_ms,ops_per_s,server_cpu_us,server_cores,threaded_writes" ]; then ok; else bad "probe redis: server CPU and threaded-writes columns"; head -n 1 "$tmp/io4_out.csv"; fi
if grep -q '^# redis.io_threads = 4$' "$tmp/io4.csv" && grep -q '^# redis.io_threads_do_reads = true$' "$tmp/io4.csv"; then ok; else bad "probe redis: io-threads notes in the samples"; head -4 "$tmp/io4.csv"; fi
expect 0 "fit the io4 samples" -- "$TFSIM" fit "$tmp/io4.csv" --chosen --config-out "$tmp/io4-fit.ini"
if grep -q '^io_threads = 4$' "$tmp/io4-fit.ini" && grep -q '^io_threads_do_reads = true$' "$tmp/io4-fit.ini"; then ok; else bad "fit: the server's io-threads in the fragment"; cat "$tmp/io4-fit.ini"; fi
printf 'include = io4-fit.ini\n[client]\ntotal = 50\n[redis]\nservice = fit.redis.paymentsession.get\n' >"$tmp/io4-scen.ini"
expect 0 "a scenario with the fitted fragment" -- "$TFSIM" run "$tmp/io4-scen.ini" --reps 1

# tfsim live against the io4 server: the webhook's waves of 16 can start
# the I/O threads, so its run row counts threaded writes; together the
# phases' counts are the run's share times its Redis round trips (checkout
# 1 each, webhook 4: get, two fulfill SETs, remove) on every run.  Whether
# a run's waves start them is live behaviour (the 16 requests reach Redis
# in one cycle or not): on a CI machine on 2026-12-07 one run had none in
# either phase, on this VM the same hour ten of ten had 59-249 of 320; so
# up to three runs, one with threaded webhook writes wanted
rio_live=0
for try in 1 2 3; do
    expect 0 "live, redis io4, webhooks of 16" -- "$TFSIM" live configs/live/pg_redis.ini --set client.total=64 \
        --set client.concurrency=16 --set client.phases=checkout,webhook --format csv \
        --redis-socket "$TFSIM_REDIS_IO4_SOCKET" --pg-conninfo "$TFSIM_PG_CONNINFO"
    # exit 2: the phases' counts do not add up; 1: they do, no threaded
    # webhook write; 0: they do, and the webhook has some
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
             $1 == "run" && $2 == "totals" { share = $(c["redis_threaded_writes"]) }
             $1 == "run" && $2 == "webhook" { w = $(c["threaded_writes"]) }
             $1 == "run" && $2 == "checkout" { k = $(c["threaded_writes"]) }
             END { d = k + w - share * 64 * 5
                   if (!(w >= 0 && k >= 0 && d * d < 1)) exit 2
                   exit !(w > 0) }' "$tmp/out"
    rio_rc=$?
    if [ "$rio_rc" = 2 ]; then
        bad "live, redis io4: the threaded writes counted per phase: $(grep '^run,' "$tmp/out" | tr '\n' ' ')"
    else
        ok
    fi
    if [ "$rio_rc" = 0 ]; then
        rio_live=1
        break
    fi
done
if [ "$rio_live" = 1 ]; then ok; else bad "live, redis io4: no threaded webhook write at 16 in three runs"; fi

# compare learns the server's setting; with 16 webhooks per wave the model's
# threads start and the webhooks slow down, as the live ones do.  Redis
# stays on the driver's core here (host.redis_affine_share = 1): the
# config's spells on and off it are counted on idle cores, so once the
# threads spin they outlast these 64-request phases, and two replications
# would show the cliff or not by lot (tests/cli/live_model.sh checks the
# placement).
for rio_srv in default io4; do
    rio_sock=$TFSIM_REDIS_SOCKET
    [ "$rio_srv" = io4 ] && rio_sock=$TFSIM_REDIS_IO4_SOCKET
    expect 0 "compare webhooks, redis $rio_srv" -- "$TFSIM" compare configs/live/pg_redis.ini \
        --vary client.concurrency=1,4,16 --set client.total=64 --set client.phases=checkout,webhook \
        --reps 2 --format csv --params-out "$tmp/params-$rio_srv.txt" --set host.redis_affine_share=1 \
        --redis-socket "$rio_sock" --pg-conninfo "$TFSIM_PG_CONNINFO"
    cp "$tmp/out" "$tmp/cmp-$rio_srv.csv"
done
if grep -q '^redis.io_threads=4$' "$tmp/params-io4.txt" && grep -q '^redis.io_threads_do_reads=true$' "$tmp/params-io4.txt" &&
    grep -q '^redis.io_threads=1$' "$tmp/params-default.txt"; then ok; else bad "compare: redis.io_threads from CONFIG GET"; fi
# webhook at 16 over webhook at 4, simulated: the default server scales,
# the io4 one falls (the server's setting, read by compare, starts the
# model's threads).  Live, the same fall shows in most runs but not in all:
# one sender's 16 webhooks may all be served before a cycle ends with 8
# replies pending (a fresh-clone CI run saw live 1.46 against 1.38, after
# others saw it fall); so the live ratio is reported, not required.
ratio() { awk -F, -v col="$2" '$1 == "point" && $3 == "webhook" { x[$2] = $col } END { printf "%.3f", x[16] / x[4] }' "$1"; }
lr_d=$(ratio "$tmp/cmp-default.csv" 4) sr_d=$(ratio "$tmp/cmp-default.csv" 5)
lr_4=$(ratio "$tmp/cmp-io4.csv" 4) sr_4=$(ratio "$tmp/cmp-io4.csv" 5)
if awk -v b="$sr_d" -v d="$sr_4" 'BEGIN { exit !(d < 0.5 * b) }'; then ok
else bad "compare: simulated io-threads 4 webhooks at 16 vs 4 ($sr_4) should fall below half the default's ($sr_d)"; fi
# The threads' share of Redis's replies, live (INFO stats) and simulated:
# none on the default server; the model's at 16 on the io4 one (its
# webhooks' waves start the threads); the live one is reported.
thr() { awk -F, -v v="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
        $1 == "point" && $2 == v && $3 == "webhook" { print $(h[col]) }' "$1"; }
if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
            $1 == "point" { n++; if ($(h["live_threaded_writes"]) != 0 || $(h["sim_threaded_writes"]) != 0) z = 1 }
            END { exit !(n > 0 && !z) }' "$tmp/cmp-default.csv"; then ok
else bad "compare: threaded writes on the default server (none expected)"; fi
st_4=$(thr "$tmp/cmp-io4.csv" 16 sim_threaded_writes) lt_4=$(thr "$tmp/cmp-io4.csv" 16 live_threaded_writes)
if awk -v s="$st_4" 'BEGIN { exit !(s > 0.3 && s <= 1) }'; then ok
else bad "compare: simulated threaded writes at 16 on the io4 server ($st_4)"; fi
echo "note: io-threads 4 at 16, replies written by the I/O threads: live $lt_4, simulated $st_4"
if awk -v a="$lr_d" -v c="$lr_4" 'BEGIN { exit !(c < 0.5 * a) }'; then
    echo "note: live, io-threads 4 webhooks at 16 vs 4: $lr_4 (default $lr_d): the cliff"
else
    echo "note: live, io-threads 4 webhooks at 16 vs 4: $lr_4 (default $lr_d): no cliff in this run"
fi
