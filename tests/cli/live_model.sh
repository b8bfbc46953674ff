# The live driver's config (configs/live/pg_redis.ini) simulated with one
# fixed calibration, the parameters `tfsim compare` measured on this VM on
# 2026-12-02 (io-threads 4, reads too): a wave of 8 webhook GETs, sent by
# the driver's loop in one go, is one Redis cycle of 8 and starts the I/O
# threads (the webhook then runs about 125/s: four 16 ms cycles a wave);
# with 4 clients no cycle reaches 8.  Before the wake-up fix of that night
# the wave's first GET woke Redis alone (a cycle of 1, then 7) and the
# threads never started with these parameters (3,300 webhooks/s).
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
client_on_host = true
[client]
cpu = 0
sent_cpu = 0
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
keepalive_expiry = 0
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
