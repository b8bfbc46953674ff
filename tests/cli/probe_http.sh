# tfsim probe http: flags, failures that keep the output file, and a tiny
# real probe when /usr/bin/python3 has httpx, uvicorn and starlette (CI
# installs them through scripts/install-deps.sh).
expect 0 "probe http help" -- "$TFSIM" probe --help
expect_out "tfsim probe http --out FILE" "probe help shows the http usage"
expect_out "python3-httpx python3-uvicorn python3-starlette" "probe help names the packages"
expect 2 "probe http without --out" -- "$TFSIM" probe http --concurrency 1
expect_err "\-\-out FILE is required" "probe http names --out"
expect 2 "probe http unknown flag" -- "$TFSIM" probe http --out "$tmp/h.csv" --count 5
expect_err "unknown option '--count' for http" "probe http names the unknown flag"
expect 2 "probe http --concurrency 0" -- "$TFSIM" probe http --out "$tmp/h.csv" --concurrency 1,0
expect_err "\-\-concurrency: '0'" "probe http names --concurrency"
expect 2 "probe http --latency-ms negative" -- "$TFSIM" probe http --out "$tmp/h.csv" --latency-ms=-1
expect_err "\-\-latency-ms: '-1'" "probe http names --latency-ms"
expect 2 "probe http --phases unknown" -- "$TFSIM" probe http --out "$tmp/h.csv" --phases reserve,refund
expect_err "\-\-phases: unknown phase 'refund'" "probe http names the phase"
expect 2 "probe http --app unknown" -- "$TFSIM" probe http --out "$tmp/h.csv" --app django
expect_err "\-\-app: 'django'" "probe http names --app"
expect 2 "probe http --total 0" -- "$TFSIM" probe http --out "$tmp/h.csv" --total 0
expect_err "\-\-total" "probe http names --total"
expect 2 "probe http --timeout 0" -- "$TFSIM" probe http --out "$tmp/h.csv" --timeout 0
expect_err "\-\-timeout: '0'" "probe http names --timeout"
expect 2 "probe http --server-cpu-ms -1" -- "$TFSIM" probe http --out "$tmp/h.csv" --server-cpu-ms -1
expect_err "\-\-server-cpu-ms: '-1' is not a number of ms in \[0, 1000\]" "probe http names --server-cpu-ms"
expect 2 "probe http --server-cpu-ms 2ms" -- "$TFSIM" probe http --out "$tmp/h.csv" --server-cpu-ms 2ms
expect_err "\-\-server-cpu-ms: '2ms'" "probe http names --server-cpu-ms's bad value"
expect 2 "probe http --reps missing value" -- "$TFSIM" probe http --out "$tmp/h.csv" --reps
expect_err "\-\-reps: missing value" "probe http names --reps"
[ ! -e "$tmp/h.csv" ] && ok || bad "probe http bad flags created the output file"

# No interpreter: exit 1, a message, an existing output file left intact.
echo "precious" > "$tmp/keep.csv"
expect 1 "probe http --python /nonexistent" -- "$TFSIM" probe http --python /nonexistent \
    --out "$tmp/keep.csv" --concurrency 1 --total 5
expect_err "cannot start the Python interpreter '/nonexistent': not found (Debian: apt-get install python3" \
    "probe http names the missing interpreter and its package"
expect_err "nothing was measured ($tmp/keep.csv left as it was)" "probe http says the file is kept"
[ "$(cat "$tmp/keep.csv")" = "precious" ] && ok || bad "probe http --python /nonexistent changed --out"
[ ! -e "$tmp/keep.csv.part" ] && ok || bad "probe http left keep.csv.part"

# A module missing (a stand-in interpreter that fails as tfhttp_load.py
# does): exit 1 with the Debian package named; the file intact.
printf '#!/bin/sh\necho "tfhttp_load: python3 module '"'"'httpx'"'"' is missing (Debian: apt-get install python3-httpx)" >&2\nexit 3\n' \
    > "$tmp/nohttpx"
chmod +x "$tmp/nohttpx"
expect 1 "probe http with httpx missing" -- "$TFSIM" probe http --python "$tmp/nohttpx" \
    --out "$tmp/keep.csv" --concurrency 1 --total 5
expect_err "tfsim probe: tfhttp_load: python3 module 'httpx' is missing (Debian: apt-get install python3-httpx)" \
    "probe http names the missing module's package"
[ "$(cat "$tmp/keep.csv")" = "precious" ] && ok || bad "probe http with httpx missing changed --out"

# The real thing, tiny: two concurrencies, two phases.
if /usr/bin/python3 -c 'import httpx, httpcore, uvicorn, starlette' 2>/dev/null; then
    mkdir -p "$tmp/httptmp"
    expect 0 "probe http (real, tiny)" -- env TMPDIR="$tmp/httptmp" "$TFSIM" probe http \
        --concurrency 1,2 --total 20 --latency-ms 0 --phases reserve,commit \
        --out "$tmp/keep.csv" --format csv
    expect_err "tfsim probe: 4 rows in $tmp/keep.csv" "probe http reports its rows"
    expect_out "^latency_ms,concurrency,phase,runs,requests,errors,throughput,client_cpu_ms,server_cpu_ms,conns,pool_idle$" \
        "probe http summary header"
    expect_out "^0,2,commit,1,20,0," "probe http summary row"
    expect_out "^0,1,reserve,1,20,0,.*,1,0.975$" "probe http summary: the pool's idle connections at a pass"
    grep -q '^# httpx [0-9.]*, httpcore [0-9.]*, uvicorn [0-9.]* (.*), python 3\.[0-9.]*, app starlette$' \
        "$tmp/keep.csv" && ok || bad "probe http CSV lacks the versions comment"
    grep -q '^# tfsim probe http: python /usr/bin/python3, ' "$tmp/keep.csv" && ok \
        || bad "probe http CSV lacks the settings comment"
    # a server slower than --timeout (it used to wait httpx's 10 s per
    # request): every request an error within the time allowed, the
    # setting in the CSV, and the probe done in a few seconds
    expect 0 "probe http --timeout shorter than the backend" -- env TMPDIR="$tmp/httptmp" "$TFSIM" probe http \
        --concurrency 1 --total 4 --latency-ms 300 --phases reserve --timeout 100ms --out "$tmp/slow.csv" --format csv
    expect_out "^300,1,reserve,1,4,4,0" "probe http --timeout: the requests past it are errors"
    grep -qx '# timeout 0.1 s per request' "$tmp/slow.csv" && ok || bad "probe http --timeout: not in the CSV"
    awk -F, '$1 == 300 && $7 < 1 { w = 1 } END { exit !w }' "$tmp/slow.csv" && ok \
        || bad "probe http --timeout: 4 requests took a second or more"
    grep -v '^#' "$tmp/keep.csv" > "$tmp/keep.data"
    [ "$(head -1 "$tmp/keep.data")" = "latency_ms,concurrency,phase,total,ok,errors,walltime,throughput,client_cpu,server_cpu,server_requests,server_await,server_conns,pool_passes,pool_conns,pool_idle" ] \
        && ok || bad "probe http CSV header"
    # the pool at its passes: Debian's httpcore 0.16 counts a start and a
    # response close per request (2 passes, 20 requests: 2.0000); at
    # concurrency 1 the one connection, idle at every pass but the first
    # (39/40 = 0.975); at 2 at most two, idle ones among them
    [ "$(sed -n 2p "$tmp/keep.data" | cut -d, -f14-16)" = "2.0000,0.975,0.975" ] \
        && ok || bad "probe http pool at concurrency 1: $(sed -n 2p "$tmp/keep.data")"
    sed 1d "$tmp/keep.data" | awk -F, '$14 != "2.0000" || $15 > $2 || $16 > $15 || $16 < 0 { bad = 1 } END { exit bad }' \
        && ok || { bad "probe http pool columns"; sed 's/^/    /' "$tmp/keep.data"; }
    [ "$(sed 1d "$tmp/keep.data" | cut -d, -f1-5 | tr '\n' ' ')" = "0,1,reserve,20,20 0,1,commit,20,20 0,2,reserve,20,20 0,2,commit,20,20 " ] \
        && ok || { bad "probe http CSV rows"; sed 's/^/    /' "$tmp/keep.csv"; }
    [ -z "$(ls -A "$tmp/httptmp")" ] && ok || bad "probe http left files in TMPDIR: $(ls "$tmp/httptmp")"
    # --out through a symbolic link and to a FIFO: the link stays and its
    # target gets the rows; the FIFO is written, not replaced by a file
    ln -s "$tmp/keep.csv" "$tmp/keep_link.csv"
    expect 0 "probe http --out a symbolic link" -- "$TFSIM" probe http --concurrency 1 --total 10 \
        --latency-ms 0 --phases reserve --out "$tmp/keep_link.csv"
    [ -L "$tmp/keep_link.csv" ] && grep -q '^0,1,reserve,10,10,' "$tmp/keep.csv" && ok ||
        bad "probe http replaced the link or missed its target"
    mkfifo "$tmp/rows.fifo"
    cat "$tmp/rows.fifo" >"$tmp/fifo.out" &
    expect 0 "probe http --out a FIFO" -- "$TFSIM" probe http --concurrency 1 --total 10 \
        --latency-ms 0 --phases reserve --out "$tmp/rows.fifo"
    wait
    [ -p "$tmp/rows.fifo" ] && grep -q '^0,1,reserve,10,10,' "$tmp/fifo.out" && ok ||
        bad "probe http replaced the FIFO or wrote nothing through it"
else
    echo "skip: probe http real run (/usr/bin/python3 lacks httpx, uvicorn or starlette;" \
         "Debian: apt-get install python3-httpx python3-uvicorn python3-starlette)"
fi
