# tfsim live against the real servers of tests/servers.sh: output layout,
# counts, cleanup, stand-in CPU, architectures, bad input.
PSQL="/usr/lib/postgresql/15/bin/psql -X -q -t -A"
REDIS_CLI=${REDIS_CLI:-redis-cli}
# tfsim live ARGS... against the test servers
live_srv() {
    "$TFSIM" live "$@" --redis-socket "$TFSIM_REDIS_SOCKET" --pg-conninfo "$TFSIM_PG_CONNINFO"
}

# Something of the user's that the live driver must not touch.
$PSQL "$TFSIM_PG_CONNINFO" -c "CREATE TABLE public.live_sentinel (v text); INSERT INTO public.live_sentinel VALUES ('kept')" >/dev/null

expect 0 "live pg_redis (csv)" -- live_srv configs/live/pg_redis.ini --set client.total=60 \
    --set client.concurrency=4 --format csv
if [ "$(head -n 1 "$tmp/out" | cut -d, -f1-3)" = "scope,name,throughput" ] && ! grep -q "_ci" "$tmp/out"; then ok; else bad "live csv: the layout of tfsim run with one replication"; fi
n=$(awk -F, '$1 == "phase" && $3 > 0 && $8 == 0 { n++ } END { print n + 0 }' "$tmp/out")
if [ "$n" -eq 4 ]; then ok; else bad "live csv: four phases with a throughput and no errors (got $n)"; fi
# counts: 120 holds (checkout + reserve), 60 of each session operation
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
         $1 == "kind" { k[$2] = $(c["count"]) }
         END { exit !(k["accounting.hold"] == 120 && k["accounting.commit_order"] == 120 &&
                      k["paymentsession.save"] == 60 && k["db.add_order"] == 60) }' "$tmp/out" &&
    ok || bad "live csv: kind counts (120 holds, 120 commit_order, 60 saves, 60 orders)"
# the COMMITs of the transactions that ran sums are the 120 holds', among
# the 300 COMMITs (holds, commit_orders, orders)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
         $1 == "round_trip" { n[$2] = $(c["count"]); m[$2] = $(c["mean"]) }
         END { exit !(n["pg.commit_after_sums"] == 120 && n["pg.commit"] == 300 && m["pg.commit_after_sums"] > 0) }' "$tmp/out" &&
    ok || bad "live csv: 120 COMMITs after sums of 300"
# the server's WAL flushes (pg_stat_wal; tests/servers.sh turns
# track_wal_io_timing on): the 300 COMMITs, four at most in flight, share
# between 75 and 300 flushes (a few more for the server's own), each timed
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
         $1 == "run" && $2 == "totals" { f = $(c["pg_wal_flushes"]); ms = $(c["pg_wal_flush_ms"]) }
         END { exit !(f >= 75 && f <= 320 && ms > 0 && ms < 1000) }' "$tmp/out" &&
    ok || bad "live csv: the run's WAL flushes counted and timed (pg_stat_wal)"
# the same counters per phase (run,PHASE rows): each of the four phases
# timed, its flushes among the run's, none of its replies written by I/O
# threads on the default server (io-threads 1), its waits not negative
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
         $1 == "run" && $2 == "totals" { tf = $(c["pg_wal_flushes"]) }
         $1 == "run" && $2 != "totals" { n++; f += $(c["pg_wal_flushes"])
             if (!($(c["elapsed"]) > 0) || $(c["threaded_writes"]) != 0 || !($(c["cpu_wait"]) >= 0) ||
                 !($(c["pg_wal_flush_ms"]) > 0)) bad = 1 }
         END { exit !(n == 4 && !bad && f >= 75 && f <= tf) }' "$tmp/out" &&
    ok || bad "live csv: the servers' counters per phase (run,PHASE rows): $(grep '^run,' "$tmp/out" | tr '\n' ' ')"
# CPU waits of the loop and of the backends (schedstat): measured, not negative,
# and only for those two components
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
         $1 == "component" { w[$2] = $(c["cpu_wait"]) }
         END { exit !(w["server_loop"] != "" && w["server_loop"] >= 0 && w["postgres_cpu"] != "" &&
                      w["postgres_cpu"] >= 0 && w["host_cpu"] == "") }' "$tmp/out" &&
    ok || bad "live csv: cpu_wait of the loop and the backends"
expect_err "tfsim live: commit " "live: a progress line per phase"
if [ "$($PSQL "$TFSIM_PG_CONNINFO" -c "SELECT count(*) FROM pg_namespace WHERE nspname = 'tfsim_live'")" = 0 ]; then ok; else bad "live left its schema"; fi
if [ "$($PSQL "$TFSIM_PG_CONNINFO" -c "SELECT v FROM public.live_sentinel")" = kept ]; then ok; else bad "live touched public.live_sentinel"; fi
left=$("$REDIS_CLI" -s "$TFSIM_REDIS_SOCKET" -n 15 --scan --pattern 'tfsim:live:*' | wc -l)
if [ "$left" -eq 0 ]; then ok; else bad "live left $left redis keys behind"; fi
$PSQL "$TFSIM_PG_CONNINFO" -c "DROP TABLE public.live_sentinel" >/dev/null

# the stand-in CPU: reserve at concurrency 1 is 15 CPU steps, each a spin
# of 2 ms of wall time.  Bounds that hold under any load of the machine:
# - the spins: 20 requests x 15 steps x 2 ms = 0.6 s (run totals "spin");
# - at most 1 / 30 ms = 33.3 requests per second (the spins alone);
# - at least 20 / (0.6 s + 20 x 15 ms + the time the loop thread and the
#   backends waited for a CPU, measured from schedstat): 15 ms per request
#   is the tolerance for its 11 round trips to the local servers and the
#   loop's own work (about 5 ms on an idle machine); what a busy machine
#   adds is in the measured waits (a wait during a spin is counted twice,
#   which only loosens the bound).
expect 0 "live --cpu-per-step" -- live_srv configs/live/pg_redis.ini --set client.total=20 \
    --set client.concurrency=1 --set client.phases=reserve --cpu-per-step 2ms --format csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
         $1 == "phase" && $2 == "reserve" { x = $3; w = $(c["walltime"]) }
         $1 == "component" && $2 == "server_loop" { lw = $(c["cpu_wait"]) }
         $1 == "component" && $2 == "postgres_cpu" { pw = $(c["cpu_wait"]) }
         $1 == "run" && $2 == "totals" { spin = $(c["spin"]); el = $(c["elapsed"]) }
         END { lo = 20 / (0.6 + 20 * 0.015 + (lw + pw) * el)
               exit !(spin > 0.5999 && spin < 0.6001 && x < 33.4 && x > lo) }' "$tmp/out" &&
    ok || bad "live --cpu-per-step 2ms: spins 0.6 s, reserve throughput below 33.4/s and above 20 / (0.9 s + CPU waits): $(grep -E '^phase,reserve|server_loop|postgres_cpu|^run,totals' "$tmp/out" | tr '\n' ' ')"

# pg_pg (PostgreSQL sessions), text output, keep the schema
expect 0 "live pg_pg --pg-keep" -- live_srv configs/tigerfans/pg_pg.ini --set client.total=30 \
    --set postgres.holds_rows=500 --cpu-scale 0 --pg-keep
expect_out "live run, pg_pg, concurrency 10, 30 requests per phase" "live text header"
expect_out "paymentsession.fulfill" "live text: kind rows"
# 500 preloaded holds + one ticket and one goodie hold per checkout and reserve
n=$($PSQL "$TFSIM_PG_CONNINFO" -c "SELECT count(*) FROM tfsim_live.holds")
if [ "$n" -eq 620 ]; then ok; else bad "live --pg-keep: expected 620 holds rows, found $n"; fi
n=$($PSQL "$TFSIM_PG_CONNINFO" -c "SELECT count(*) FROM tfsim_live.orders")
if [ "$n" -eq 30 ]; then ok; else bad "live pg_pg: expected 30 orders, found $n"; fi
$PSQL "$TFSIM_PG_CONNINFO" -c "SET client_min_messages = warning; DROP SCHEMA tfsim_live CASCADE" >/dev/null

# bad input: exit 2 before any server is touched
expect 2 "live tb_redis" -- live_srv configs/tigerfans/tb_redis.ini
expect_err "needs a TigerBeetle server" "live tb_redis: says why"
expect 2 "live poisson" -- live_srv configs/live/pg_redis.ini --set client.mode=poisson
expect_err "client.mode" "live poisson: names the key"
expect 2 "live without config" -- "$TFSIM" live
expect 2 "live bad option" -- "$TFSIM" live configs/live/pg_redis.ini --cpu-scale lots
expect 2 "live bad key" -- "$TFSIM" live configs/live/pg_redis.ini --set client.totl=5
expect_err "did you mean" "live bad key: did-you-mean"
expect 0 "live --help" -- "$TFSIM" live --help
expect_out "cpu-per-step" "live --help lists the options"
