# Faults: server not running, wrong password, server killed mid-run, server
# that stops answering.  Each: exit 1, a message naming the server and what
# failed, and the samples measured so far kept as complete CSV lines.
SERVERS=${SERVERS:-sh tests/servers.sh}

# Wait until FILE has more than N lines (at most 10 s).
fault_wait_rows() {
    i=0
    while [ "$( (wc -l <"$1") 2>/dev/null || echo 0)" -le "$2" ] && [ $i -lt 200 ]; do
        sleep 0.05
        i=$((i + 1))
    done
}

# The CSV in $1 holds only complete rows (ends with a newline, 4 fields each,
# besides the server's "# key = value" notes) and at least one of them, and
# `tfsim fit` reads it.
fault_csv_ok() {
    if [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] &&
        awk -F, '/^# / { next } NR > 1 && NF != 4 { exit 1 } NR > 1 { rows++ } END { if (rows < 1) exit 1 }' "$1" &&
        "$TFSIM" fit "$1" --chosen >/dev/null 2>"$tmp/fit.err"; then ok; else bad "$2: samples CSV incomplete or unreadable"; sed 's/^/    /' "$tmp/fit.err" | head -3; fi
}

# Run a probe in the background until the CSV has rows, apply the fault
# ($1: a command), then collect the exit code.  Remaining args: the probe.
fault_mid_run() {
    action=$1
    shift
    rm -f "$tmp/fault.csv"
    "$TFSIM" probe "$@" --out "$tmp/fault.csv" >"$tmp/out" 2>"$tmp/err" &
    fpid=$!
    fault_wait_rows "$tmp/fault.csv" 64
    eval "$action"
    wait $fpid
    frc=$?
}

# -- server not running
expect 1 "redis not running" -- "$TFSIM" probe redis --socket "$TFSIM_SERVERS_DIR/none.sock" --count 5
expect_err "redis at unix:$TFSIM_SERVERS_DIR/none.sock (db 15): cannot connect" "redis not running: names server and failure"
expect 1 "postgres not running" -- "$TFSIM" probe postgres --host "$TFSIM_SERVERS_DIR" --port 1 --count 5
expect_err "postgres at host=$TFSIM_SERVERS_DIR port=1: cannot connect" "postgres not running: names server and failure"

# -- wrong or missing password
expect 1 "redis wrong password" -- "$TFSIM" probe redis --socket "$TFSIM_REDIS_PW_SOCKET" --password wrong --count 5
expect_err "authentication failed" "redis wrong password: says so"
expect 1 "redis missing password" -- env -u TFSIM_REDIS_PASSWORD "$TFSIM" probe redis --socket "$TFSIM_REDIS_PW_SOCKET" --count 5
expect_err "requires a password" "redis missing password: says so"
expect 1 "postgres wrong password" -- "$TFSIM" probe postgres --host 127.0.0.1 --port "$TFSIM_PG_PORT" \
    --dbname postgres --user "$TFSIM_PG_PW_USER" --password wrong --count 5
expect_err "password authentication failed" "postgres wrong password: says so"
if grep -q "wrong" "$tmp/err"; then bad "postgres wrong password: the password was printed"; else ok; fi

# -- server killed mid-run
eval "$($SERVERS redis "$TFSIM_SERVERS_DIR" victim1)"
fault_mid_run 'kill -KILL $TFSIM_R_PID' redis --socket "$TFSIM_R_SOCKET" --concurrency 4 --seconds 20s --timeout 5s
if [ "$frc" -eq 1 ]; then ok; else bad "redis killed mid-run: exit $frc, expected 1"; fi
expect_err "redis at unix:$TFSIM_R_SOCKET (db 15): connection [0-9]*: paymentsession.save failed after [0-9]* operations: connection lost" "redis killed mid-run: names server and failure"
fault_csv_ok "$tmp/fault.csv" "redis killed mid-run"

fault_mid_run '$SERVERS pg-kill "$TFSIM_SERVERS_DIR"' postgres --conninfo "$TFSIM_PG_CONNINFO" \
    --concurrency 4 --seconds 20s --ops accounting.hold
if [ "$frc" -eq 1 ]; then ok; else bad "postgres killed mid-run: exit $frc, expected 1"; fi
expect_err "postgres at host=.* connection [0-9]*: accounting.hold failed after [0-9]* operations" "postgres killed mid-run: names server and failure"
fault_csv_ok "$tmp/fault.csv" "postgres killed mid-run"
if $SERVERS pg-start "$TFSIM_SERVERS_DIR"; then ok; else bad "postgres did not restart after the kill test"; fi

# -- server stops answering (SIGSTOP): the reply timeout fires
eval "$($SERVERS redis "$TFSIM_SERVERS_DIR" victim2)"
fault_mid_run 'kill -STOP $TFSIM_R_PID' redis --socket "$TFSIM_R_SOCKET" --concurrency 4 --seconds 20s --timeout 1s
kill -CONT "$TFSIM_R_PID"
if [ "$frc" -eq 1 ]; then ok; else bad "redis stopped: exit $frc, expected 1"; fi
expect_err "redis at unix:$TFSIM_R_SOCKET (db 15): connection [0-9]*: no reply within 1 s to paymentsession.save .*(server not answering)" "redis stopped: names server and failure"
fault_csv_ok "$tmp/fault.csv" "redis stopped"

fault_mid_run 'pgpids=$($SERVERS pg-pids "$TFSIM_SERVERS_DIR"); kill -STOP $pgpids' postgres \
    --conninfo "$TFSIM_PG_CONNINFO" --concurrency 4 --seconds 20s --timeout 1s --ops accounting.hold
kill -CONT $pgpids
if [ "$frc" -eq 1 ]; then ok; else bad "postgres stopped: exit $frc, expected 1"; fi
expect_err "postgres at host=.* connection [0-9]*: no reply within 1 s to accounting.hold .*(server not answering)" "postgres stopped: names server and failure"
fault_csv_ok "$tmp/fault.csv" "postgres stopped"

# -- interrupted (Ctrl-C): stops, keeps the samples, exit 1
fault_mid_run 'kill -INT $fpid' redis --socket "$TFSIM_REDIS_SOCKET" --concurrency 2 --seconds 20s
if [ "$frc" -eq 1 ] && grep -q "interrupted" "$tmp/err"; then ok; else bad "probe interrupted: exit $frc, expected 1 with 'interrupted'"; fi
fault_csv_ok "$tmp/fault.csv" "probe interrupted"

# -- interrupted during the preload (probe postgres --holds): stops at the
# signal, cancels the statement left running, drops its schema
interrupt_in_preload tfsim_probe "probe interrupted in the preload" probe postgres \
    --conninfo "$TFSIM_PG_CONNINFO" --holds 5000000 --concurrency 1 --count 10

# the cluster answers again for whatever runs next
if /usr/lib/postgresql/15/bin/psql -X -q -t -A "$TFSIM_PG_CONNINFO" -c "SELECT 1" >/dev/null 2>&1; then ok; else bad "postgres does not answer after the fault tests"; fi
