# scripts/pool_pass_cpu.py: the probe's load pattern with the httpcore
# pool's pass methods timed.  With Debian's httpcore 0.16 at concurrency 1
# and 20 requests: 40 housekeeping passes (a start and a close each), the
# one connection open and idle at all but the first (39/40), one request
# in the pool at a start and none at a close, a positive CPU per pass, no
# other pass between a request's assignment and its claim (claim_passes
# 0.00; "nan" when no claim was counted); the probe's own CSV row
# unchanged on stdout.
if /usr/bin/python3 -c 'import httpx, httpcore, uvicorn, starlette' 2>/dev/null; then
    mkdir -p "$tmp/pp"
    expect 0 "pool_pass_cpu (real, tiny)" -- env TMPDIR="$tmp/pp" /usr/bin/python3 scripts/pool_pass_cpu.py \
        --latency-ms 0 --concurrency 1 --total 20 --phases reserve
    line=$(grep '^pool: ' "$tmp/err")
    case "$line" in
        "pool: latency_ms=0 concurrency=1 phase=reserve passes=40 us_per_pass="*" idle=0.97"*" conns=0.97"*" requests=0.50 claim_passes=0.00") ok ;;
        *) bad "pool_pass_cpu: stderr line '$line'" ;;
    esac
    echo "$line" | sed 's/.* us_per_pass=\([0-9.]*\) .*/\1/' | awk '{ exit !($1 > 0 && $1 < 100000) }' \
        && ok || bad "pool_pass_cpu: us_per_pass not positive: '$line'"
    expect_out "^0,1,reserve,20,20,0,.*,2.0000,0.975,0.975$" "pool_pass_cpu: the probe's row on stdout"
    # --passes-csv: one row per pass (40; at most the one connection, idle at
    # 39 passes), the state as the stderr line's
    # means, and the rows' CPU summing to the phase's us_per_pass x passes.
    expect 0 "pool_pass_cpu --passes-csv" -- env TMPDIR="$tmp/pp" /usr/bin/python3 scripts/pool_pass_cpu.py \
        --latency-ms 0 --concurrency 1 --total 20 --phases reserve --passes-csv "$tmp/passes.csv"
    line=$(grep '^pool: ' "$tmp/err")
    per=$(echo "$line" | sed 's/.* us_per_pass=\([0-9.]*\) .*/\1/')
    awk -F, -v per="$per" 'NR == 1 { ok = ($0 == "concurrency,phase,conns,idle,requests,queued,us"); next }
        { n++; us += $7; idle += $4; if ($1 != 1 || $2 != "reserve" || $3 > 1 || $4 > $3 || $7 < 0) ok = 0 }
        END { d = us / n - per; exit !(ok && n == 40 && idle == 39 && d < 0.06 && d > -0.06) }' "$tmp/passes.csv" \
        && ok || bad "pool_pass_cpu: --passes-csv rows: $(head -3 "$tmp/passes.csv") / $line"
    expect 0 "pool_pass_cpu --passes-csv appends" -- env TMPDIR="$tmp/pp" /usr/bin/python3 scripts/pool_pass_cpu.py \
        --latency-ms 0 --concurrency 1 --total 5 --phases commit --passes-csv="$tmp/passes.csv"
    [ "$(grep -c '^concurrency,' "$tmp/passes.csv")" = 1 ] && [ "$(grep -c ',commit,' "$tmp/passes.csv")" = 10 ] \
        && ok || bad "pool_pass_cpu: --passes-csv appended rows: $(grep -c ',commit,' "$tmp/passes.csv")"
    expect 2 "pool_pass_cpu: --passes-csv without a file" -- /usr/bin/python3 scripts/pool_pass_cpu.py --passes-csv
    expect_err "pool_pass_cpu: --passes-csv needs a file" "pool_pass_cpu: names the missing file"
    expect 2 "pool_pass_cpu: --passes-csv in a missing folder" -- /usr/bin/python3 scripts/pool_pass_cpu.py \
        --passes-csv "$tmp/no/such/dir/p.csv"
    expect_err "--passes-csv $tmp/no/such/dir/p.csv: No such file" "pool_pass_cpu: names the bad file"
    expect 2 "pool_pass_cpu: a bad concurrency" -- /usr/bin/python3 scripts/pool_pass_cpu.py --concurrency 0
    expect_err "bad --latency-ms, --concurrency" "pool_pass_cpu: names the bad flag"
else
    echo "skip: pool_pass_cpu real run (/usr/bin/python3 lacks httpx, uvicorn or starlette)"
fi
