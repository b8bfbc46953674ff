# The live driver's config (configs/live/pg_redis.ini) simulated with one
# fixed calibration, the parameters `tfsim compare` measured on this VM on
# 2026-12-02 (io-threads 4, reads too): a wave of 8 webhook GETs, sent by
# the driver's loop in one go, is one Redis cycle of 8 and starts the I/O
# threads (the webhook then runs about 125/s: four 16 ms cycles a wave);
# with 4 clients no cycle reaches 8.  Before the wake-up fix of that night
# the wave's first GET woke Redis alone (a cycle of 1, then 7) and the
# threads never started with these parameters (3,300 webhooks/s).
# the load generator's costs as tfsim compare zeroes them (the live
# driver spins no client CPU); both calibrations below
client0='[client]
cpu = 0
sent_cpu = 0
cold = 0
crowding = 0
max_connections = 0
connect_cpu = 0
pool_cpu = 0
pool_conn_cpu = 0
pool_idle_cpu = 0
pool_poll_cpu = 0
pool_req_cpu = 0
send_yields = 0
recv_yields = 0
keepalive_expiry = 0'
cat >"$tmp/live8.ini" <<INI
include = $PWD/configs/live/pg_redis.ini
[server]
cpu_request = 0
cpu_split = 0.7
cpu_checkout = 0
cpu_webhook = 0
wake_cpu = 2.098e-05
crowding = 0
accept_cpu = 0
cold = 0
cpu_shape = 1
[postgres]
loop_cpu_txn = 0
loop_cpu_query = 3.685e-07
query_cpu = 4.566e-05
commit_cpu = 4.566e-05
row_cost = 7.335e-08
sum_cpu = 1.636e-05
flush = lognormal(mu=-8.9793, sigma=0.4898)
wake_cpu = 1.386e-05
jitter = 1
[redis]
loop_cpu = 3.685e-07
service = 5.934e-06
save_extra = 1.521e-05
wake_wait = 0
io_threads = 4
io_threads_do_reads = true
[tigerbeetle]
loop_cpu = 0.00012
[host]
cores = 1.974
postgres_on_host = true
rtt = 1.286e-05
redis_on_host = true
wake_affine = true
redis_affine_share = 1
client_on_host = true
$client0
INI
lm() { "$TFSIM" run "$tmp/live8.ini" --reps 2 --set client.total=400 --set client.phases=webhook --format csv "$@"; }
lval() { awk -F, -v s="$1" -v n="$2" -v m="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
         $1 == s && $2 == n { print $(h[m]) }' "$tmp/out"; }
expect 0 "live config, webhooks at 8" -- lm --set client.concurrency=8
t8=$(lval phase webhook throughput) w8=$(lval run totals redis_threaded_writes)
expect 0 "live config, webhooks at 4" -- lm --set client.concurrency=4
t4=$(lval phase webhook throughput) w4=$(lval run totals redis_threaded_writes)
if awk -v a="$t8" -v b="$w8" -v c="$t4" -v d="$w4" 'BEGIN { exit !(b > 0.7 && a < 300 && d == 0 && c > 1000) }'; then ok
else bad "live config: the webhook's cliff at 8 (8: $t8/s, threaded $w8; 4: $t4/s, threaded $w4)"; fi
# The driver's placement as the shipped config has it (Redis on the
# driver's core host.redis_affine_share of the time, in spells counted on
# the host's idle cores; docs/redis-io-threads.md, "Where Redis sits"), with
# the parameters `tfsim compare` measured on 2026-12-06 at 08:06 (io-threads
# 4): apart, a wave's GETs wake Redis one by one and fewer cycles reach 8,
# so the webhook at 8 lies between the cliff (always on the driver's core:
# 200/s, half the replies threaded) and none (never: 1,204/s); 2,000
# requests, 4 replications: 296/s, 0.30 threaded.  (With the calibration
# above the threads, once started, never stop at 8, and the placement
# changes little: 127/s.)
cat >"$tmp/live8b.ini" <<INI
include = $PWD/configs/live/pg_redis.ini
[postgres]
loop_cpu_txn = 0
loop_cpu_query = 2.09595447e-05
query_cpu = 6.64342454e-05
commit_cpu = 6.64342454e-05
row_cost = 7.79525146e-08
sum_cpu = 3.83433183e-05
commit_wake = 0.000113835542
flush = lognormal(mu=-8.699637931355495, sigma=0.7745478426238313, shift=3.211898542091444e-05)
wake_cpu = 0
busy_cost = 0.282659875
flush_wait = 0.000251640557
jitter = 1
[server]
cpu_request = 0
cpu_split = 0.7
cpu_checkout = 0
cpu_webhook = 0
wake_cpu = 1.17770638e-06
crowding = 0
accept_cpu = 0
io_turns = 0
cold = 0
cpu_shape = 1
[redis]
loop_cpu = 2.09595447e-05
service = lognormal(mu=-11.082235513683164, sigma=1.163081378403346, shift=1.338316438627471e-06)
save_extra = 3.95009993e-05
wake_wait = 0
io_threads = 4
io_threads_do_reads = true
pool_turns = 0
pool_lock = false
send_turns = 0
[tigerbeetle]
loop_cpu = 0.00012
$client0
[host]
cores = 1.95643224
postgres_on_host = true
rtt = 4.72472878e-07
redis_on_host = true
wake_affine = true
client_on_host = true
INI
l8b() { "$TFSIM" run "$tmp/live8b.ini" --reps 4 --set client.total=2000 --set client.phases=webhook \
        --set client.concurrency=8 --format csv "$@"; }
expect 0 "live config, today's calibration, webhooks at 8, the driver's placement" -- l8b
p8=$(lval phase webhook throughput) pw8=$(lval run totals redis_threaded_writes)
expect 0 "the same, Redis always on the driver's core" -- l8b --set host.redis_affine_share=1
a8=$(lval phase webhook throughput) aw8=$(lval run totals redis_threaded_writes)
expect 0 "the same, Redis never on the driver's core" -- l8b --set host.redis_affine_share=0
n8=$(lval phase webhook throughput) nw8=$(lval run totals redis_threaded_writes)
if awk -v p="$p8" -v pw="$pw8" -v a="$a8" -v aw="$aw8" -v n="$n8" -v nw="$nw8" \
    'BEGIN { exit !(p > 1.1 * a && p < 0.5 * n && pw < aw - 0.05 && pw > 0.2 && nw == 0) }'; then ok
else bad "live config, placement: webhook at 8 $p8/s (threaded $pw8) should lie between $a8/s ($aw8) and $n8/s ($nw8)"; fi
