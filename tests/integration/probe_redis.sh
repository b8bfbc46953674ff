# tfsim probe redis against the real server of tests/servers.sh, then fit.
REDIS_CLI=${REDIS_CLI:-redis-cli}

expect 0 "probe redis (socket)" -- "$TFSIM" probe redis --socket "$TFSIM_REDIS_SOCKET" \
    --concurrency 1,4 --count 200 --warmup 20 --out "$tmp/redis.csv"
for op in save get fulfill remove_pending; do
    expect_out "redis.paymentsession.$op" "probe redis summary has $op"
done
expect_err "1600 samples in" "probe redis reports the samples written"
# header, the server's two io-threads notes, 4 operations x 2 levels x 200
# recorded operations, all complete
if [ "$(wc -l <"$tmp/redis.csv")" -eq 1603 ] && [ "$(grep -c '^# redis.io_threads' "$tmp/redis.csv")" -eq 2 ] &&
    awk -F, 'NR == 1 && $0 != "operation,concurrency,latency_us,timestamp" { exit 1 }
             NR > 1 && !/^# / && (NF != 4 || $3 < 0) { exit 1 }' "$tmp/redis.csv"; then ok; else bad "probe redis CSV: expected header + 2 notes + 1600 rows of 4 columns"; fi
# the probe deleted its keys
left=$("$REDIS_CLI" -s "$TFSIM_REDIS_SOCKET" -n 15 --scan --pattern 'tfsim:probe:*' | wc -l)
if [ "$left" -eq 0 ]; then ok; else bad "probe redis left $left keys behind"; fi

expect 0 "fit the redis samples" -- "$TFSIM" fit "$tmp/redis.csv" --chosen --config-out "$tmp/redis-fit.ini"
expect_out "redis.paymentsession.remove_pending" "fit lists every redis operation"
if grep -q '^\[fit.redis.paymentsession\]' "$tmp/redis-fit.ini" && grep -q '^save_c4 = ' "$tmp/redis-fit.ini" &&
    grep -q '^remove_pending = ' "$tmp/redis-fit.ini"; then ok; else bad "fit fragment lacks the redis keys"; fi

expect 0 "probe redis (TCP, csv, --seconds, --ops)" -- "$TFSIM" probe redis --host 127.0.0.1 \
    --port "$TFSIM_REDIS_PORT" --concurrency 2 --seconds 200ms --warmup 5 \
    --ops paymentsession.save,paymentsession.get --format csv --prefix "tfsim:probe:int:"
if [ "$(head -n 1 "$tmp/out")" = "operation,concurrency,n,mean_ms,p50_ms,p99_ms,max_ms,ops_per_s,server_cpu_us,server_cores,threaded_writes" ] &&
    [ "$(wc -l <"$tmp/out")" -eq 3 ] && ! grep -q fulfill "$tmp/out"; then ok; else bad "probe redis --format csv --ops: header plus the two chosen operations"; fi
# the default server has no I/O threads: none of its replies is threaded
if awk -F, 'NR > 1 { n++; if ($11 != 0) z = 1 } END { exit !(n == 2 && !z) }' "$tmp/out"; then ok
else bad "probe redis: threaded_writes 0 on the default server"; cat "$tmp/out"; fi
left=$("$REDIS_CLI" -p "$TFSIM_REDIS_PORT" -n 15 --scan --pattern 'tfsim:probe:int:*' | wc -l)
if [ "$left" -eq 0 ]; then ok; else bad "probe redis --prefix left $left keys behind"; fi

expect 0 "probe redis with the right password" -- env TFSIM_REDIS_PASSWORD="$TFSIM_REDIS_PW_PASSWORD" \
    "$TFSIM" probe redis --socket "$TFSIM_REDIS_PW_SOCKET" --concurrency 1 --count 20 --warmup 0
if grep -q -- "$TFSIM_REDIS_PW_PASSWORD" "$tmp/out" "$tmp/err"; then bad "probe redis printed the password"; else ok; fi

# a user whose ACL refuses CONFIG: the probe measures and says the I/O
# threads are unknown (it used to change its levels without a word)
if "$REDIS_CLI" -s "$TFSIM_REDIS_SOCKET" ACL SETUSER tfsim_noconfig on '>nocfgpw' '~*' '+@all' '-config' >/dev/null 2>&1; then
    expect 0 "probe redis, CONFIG refused" -- "$TFSIM" probe redis --socket "$TFSIM_REDIS_SOCKET" \
        --user tfsim_noconfig --password nocfgpw --concurrency 1 --count 20 --warmup 2
    expect_err "did not answer CONFIG GET io-threads" "probe redis says the I/O threads are unknown"
    "$REDIS_CLI" -s "$TFSIM_REDIS_SOCKET" ACL DELUSER tfsim_noconfig >/dev/null 2>&1
else
    bad "redis-cli ACL SETUSER failed"
fi
