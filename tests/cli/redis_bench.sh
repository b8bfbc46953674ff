# tfsim run of the redis_bench model (configs/redis/benchmark.ini): the I/O
# threads start at io_threads x 2 clients (7: no, 8: yes) and then every
# cycle takes four scheduler ticks (16 ms); io_threads 1 has no cliff;
# the open loop runs; a bad mode value is refused.
bench=configs/redis/benchmark.ini
rb() { "$TFSIM" run $bench --reps 2 --set client.total=2000 --format csv "$@"; }
val() { awk -F, -v s="$1" -v n="$2" -v m="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
        $1 == s && $2 == n { print $(h[m]) }' "$tmp/out"; }
expect 0 "redis_bench 7 clients" -- rb --set client.concurrency=7
t7=$(val bench requests throughput) io7=$(val component redis_io_threads utilisation)
expect 0 "redis_bench 8 clients" -- rb --set client.concurrency=8
t8=$(val bench requests throughput) io8=$(val component redis_io_threads utilisation) p8=$(val bench requests p50)
expect 0 "redis_bench 8 clients, io_threads 1" -- rb --set client.concurrency=8 --set redis.io_threads=1
t81=$(val bench requests throughput)
if awk -v a="$t7" -v b="$t8" -v c="$t81" -v i7="$io7" -v i8="$io8" -v p="$p8" \
    'BEGIN { exit !(i7 == 0 && i8 > 0.9 && b < a / 20 && c > 20 * b && p > 0.015 && p < 0.017) }'; then ok
else bad "redis_bench: the cliff at 8 clients (7: $t7/s io $io7; 8: $t8/s io $io8 p50 $p8; io 1: $t81/s)"; fi
expect 0 "redis_bench open loop" -- rb --set client.mode=poisson --set client.rate=20000
expect_out "^bench,requests," "redis_bench open loop: a bench row"
expect 0 "redis_bench text" -- "$TFSIM" run $bench --reps 2 --set client.total=500
expect_out "redis-benchmark: 16 clients (closed loop)" "redis_bench note"
