# tfsim live faults: server not running, wrong password, server killed
# mid-run, server that stops answering, Ctrl-C.  Each: exit 1, a message
# naming the server and what failed, and what was measured printed.
SERVERS=${SERVERS:-sh tests/servers.sh}

# Wait until FILE mentions PATTERN (at most 20 s).
live_wait_for() {
    i=0
    while ! grep -q -- "$2" "$1" 2>/dev/null && [ $i -lt 400 ]; do
        sleep 0.05
        i=$((i + 1))
    done
}

# Run tfsim live in the background until its first phase (checkout) ends,
# apply the fault ($1: a command), collect the exit code.  Remaining args:
# options.  3000 requests per phase: a phase lasts about a second.
live_fault() {
    action=$1
    shift
    rm -f "$tmp/out" "$tmp/err"
    "$TFSIM" live configs/live/pg_redis.ini --set client.total=3000 --set client.concurrency=4 \
        "$@" >"$tmp/out" 2>"$tmp/err" &
    lpid=$!
    live_wait_for "$tmp/err" "tfsim live: checkout"
    eval "$action"
    wait $lpid
    lrc=$?
}

# -- server not running
expect 1 "live: redis not running" -- "$TFSIM" live configs/live/pg_redis.ini \
    --redis-socket "$TFSIM_SERVERS_DIR/none.sock" --pg-conninfo "$TFSIM_PG_CONNINFO"
expect_err "redis at unix:$TFSIM_SERVERS_DIR/none.sock (db 15): cannot connect" "live: redis not running: names server"
expect 1 "live: postgres not running" -- "$TFSIM" live configs/live/pg_redis.ini \
    --redis-socket "$TFSIM_REDIS_SOCKET" --pg-conninfo "host=$TFSIM_SERVERS_DIR port=1 dbname=postgres"
expect_err "postgres at host=$TFSIM_SERVERS_DIR port=1 dbname=postgres: cannot connect" "live: postgres not running: names server"

# -- wrong password
expect 1 "live: redis wrong password" -- "$TFSIM" live configs/live/pg_redis.ini \
    --redis-socket "$TFSIM_REDIS_PW_SOCKET" --redis-password wrong --pg-conninfo "$TFSIM_PG_CONNINFO"
expect_err "authentication failed" "live: redis wrong password: says so"
expect 1 "live: postgres wrong password" -- "$TFSIM" live configs/live/pg_redis.ini \
    --redis-socket "$TFSIM_REDIS_SOCKET" \
    --pg-conninfo "host=127.0.0.1 port=$TFSIM_PG_PORT dbname=postgres user=$TFSIM_PG_PW_USER password=wrong"
expect_err "password authentication failed" "live: postgres wrong password: says so"
if grep -q "password=wrong" "$tmp/err"; then bad "live: the password was printed"; else ok; fi

# -- redis killed mid-run: the webhook phase loses its connections
eval "$($SERVERS redis "$TFSIM_SERVERS_DIR" livevictim1)"
live_fault 'kill -KILL $TFSIM_R_PID' --redis-socket "$TFSIM_R_SOCKET" --pg-conninfo "$TFSIM_PG_CONNINFO" \
    --set client.phases=checkout,webhook
if [ "$lrc" -eq 1 ]; then ok; else bad "live: redis killed: exit $lrc, expected 1"; fi
expect_err "redis at unix:$TFSIM_R_SOCKET (db 15): connection [0-9]*: paymentsession.[a-z_]* failed after [0-9]* round trips: connection lost" "live: redis killed: names server and failure"
expect_out "checkout" "live: redis killed: the finished phase is printed"
expect_out "stopped early" "live: redis killed: the output says it stopped early"

# -- redis stops answering: the reply timeout fires
eval "$($SERVERS redis "$TFSIM_SERVERS_DIR" livevictim2)"
live_fault 'kill -STOP $TFSIM_R_PID' --redis-socket "$TFSIM_R_SOCKET" --pg-conninfo "$TFSIM_PG_CONNINFO" \
    --set client.phases=checkout,webhook --timeout 1s
kill -CONT "$TFSIM_R_PID"
if [ "$lrc" -eq 1 ]; then ok; else bad "live: redis stopped: exit $lrc, expected 1"; fi
expect_err "redis at unix:$TFSIM_R_SOCKET (db 15): connection [0-9]*: no reply within 1 s to paymentsession.[a-z_]* after [0-9]* round trips (server not answering)" "live: redis stopped: names server and failure"
expect_out "checkout" "live: redis stopped: the finished phase is printed"

# -- postgres killed mid-run
live_fault '$SERVERS pg-kill "$TFSIM_SERVERS_DIR"' --redis-socket "$TFSIM_REDIS_SOCKET" --pg-conninfo "$TFSIM_PG_CONNINFO"
if [ "$lrc" -eq 1 ]; then ok; else bad "live: postgres killed: exit $lrc, expected 1"; fi
expect_err "postgres at host=.*: connection [0-9]*: [a-z_.]* failed after [0-9]* round trips" "live: postgres killed: names server and failure"
expect_out "checkout" "live: postgres killed: the finished phase is printed"
if $SERVERS pg-start "$TFSIM_SERVERS_DIR"; then ok; else bad "postgres did not restart after the live kill test"; fi

# -- interrupted (Ctrl-C)
live_fault 'kill -INT $lpid' --redis-socket "$TFSIM_REDIS_SOCKET" --pg-conninfo "$TFSIM_PG_CONNINFO"
if [ "$lrc" -eq 1 ] && grep -q "interrupted" "$tmp/err"; then ok; else bad "live interrupted: exit $lrc, expected 1 with 'interrupted'"; fi
expect_out "checkout" "live interrupted: the finished phase is printed"
left=$(redis-cli -s "$TFSIM_REDIS_SOCKET" -n 15 --scan --pattern 'tfsim:live:*' | wc -l)
if [ "$left" -eq 0 ]; then ok; else bad "live interrupted: left $left redis keys behind"; fi

# -- interrupted (Ctrl-C) during the set-up: the preload of a large holds
# table.  It used to run on to its end (up to --timeout plus a second per
# 20,000 rows); now the wait ends at the signal, the statement left running
# is cancelled and the schema dropped (the DROP used to wait for its locks
# and leave the schema behind)
interrupt_in_preload tfsim_live "live interrupted in the preload" live configs/live/pg_redis.ini \
    --set postgres.holds_rows=5000000 --set client.total=10 \
    --redis-socket "$TFSIM_REDIS_SOCKET" --pg-conninfo "$TFSIM_PG_CONNINFO"
