# scripts/live_cpu_sweep.py: a fresh server per concurrency, with the env
# file's settings, then scripts/live_cpu_phases.py against it.  Here the
# checkout is a stand-in: tigerfans/server.py a bare ASGI app that writes
# what it was started with, bench/load_phases.py four phases that return
# their summaries at once, and two env files.
a="$tmp/sweep_app"
mkdir -p "$a/tigerfans" "$a/bench" "$a/load_tests/db010"
cat >"$a/tigerfans/server.py" <<PY
import os
with open("$tmp/started.txt", "a") as f:
    f.write(" ".join(os.environ.get(k, "-") for k in ("ACCT_BACKEND", "PAYSESSION_BACKEND",
                                                     "DB_POOL_SIZE", "DATABASE_URL")) + "\n")
async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    if os.environ.get("STANDIN_GARBAGE"):  # containers: the server's young collections
        junk = [[i] for i in range(int(os.environ["STANDIN_GARBAGE"]))]
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})
PY
cat >"$a/bench/load_phases.py" <<'PY'
class Summary:
    def __init__(self, n):
        self.total = self.ok = n
        self.errors, self.wall_time, self.throughput = 0, 0.5, n / 0.5
async def phase_checkout(base, total, conc):
    import os
    if os.environ.get("STANDIN_REQUESTS"):  # real requests through httpx's pool
        import httpx
        async with httpx.AsyncClient(base_url=base) as client:
            for _ in range(int(os.environ["STANDIN_REQUESTS"])):
                (await client.get("/")).raise_for_status()
    return list(range(total)), Summary(total)
async def phase_webhook(base, sessions, concurrency, mode, succeed_rate, mock_webhook_url, mock_secret):
    return sessions, Summary(len(sessions))
async def phase_accounting_reserve(base, total, conc):
    return list(range(total)), Summary(total)
async def phase_accounting_commit(base, sessions, conc):
    return sessions, Summary(len(sessions))
PY
touch "$a/tigerfans/__init__.py" "$a/bench/__init__.py"
for c in 003 007; do
    printf '# pg | tb\nACCT_BACKEND=pg\nPAYSESSION_BACKEND=redis\nDB_POOL_SIZE=10\n--concurrency=%d\n' "$c" \
        >"$a/load_tests/db010/db010_con${c}_ops1000_redis_pg.env"
done
# the interpreter with Debian's python3-uvicorn (.ci/run installs it), as
# `tfsim probe http` picks it; without uvicorn the run is reported, not passed
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
if "$py" -c 'import uvicorn' 2>/dev/null; then
    expect 0 "live_cpu_sweep with a stand-in checkout" -- "$py" scripts/live_cpu_sweep.py --app "$a" \
        --arch redis_pg --concurrency 3,7 --total 20 --csv "$tmp/sweep.csv" \
        --database-url postgresql+asyncpg://u@/db --redis-url unix:///nowhere.sock
    if [ "$(grep -c '^pg_redis,3,' "$tmp/sweep.csv")" -eq 4 ] && [ "$(grep -c '^pg_redis,7,' "$tmp/sweep.csv")" -eq 4 ] &&
        [ "$(grep -c '^arch,' "$tmp/sweep.csv")" -eq 1 ]; then ok
    else bad "live_cpu_sweep: four rows per concurrency, labelled pg_redis"; sed 's/^/    /' "$tmp/sweep.csv"; fi
    if [ "$(sort -u "$tmp/started.txt")" = "pg redis 10 postgresql+asyncpg://u@/db" ] &&
        [ "$(wc -l <"$tmp/started.txt")" -eq 2 ]; then ok
    else bad "live_cpu_sweep: two servers, each with the env file's settings"; sed 's/^/    /' "$tmp/started.txt"; fi
    # --pool-stats: the client's pool counted at its passes, per phase; the
    # checkout stand-in sends 5 requests one after another through httpx
    # (a pass at each start and each close: 2 per request, on one
    # connection, idle at every pass but the first), the others none
    if "$py" -c 'import httpx' 2>/dev/null; then
        STANDIN_REQUESTS=5 expect 0 "live_cpu_sweep --pool-stats" -- "$py" scripts/live_cpu_sweep.py \
            --app "$a" --arch redis_pg --concurrency 3 --total 5 --csv "$tmp/sweep2.csv" \
            --pool-stats "$tmp/pool.csv" --database-url x --redis-url y
        if [ "$(head -1 "$tmp/pool.csv")" = "arch,concurrency,phase,pool_passes,pool_conns,pool_idle,pool_queued" ] &&
            awk -F, 'NR == 2 && $1 == "pg_redis" && $2 == 3 && $3 == "checkout" && $4 >= 1.5 && $4 <= 2.5 &&
                         $5 > 0.5 && $5 <= 1 && $6 > 0.3 && $6 <= $5 { c++ }
                     NR > 2 && $4 == 0 { c++ } END { exit c != 4 || NR != 5 }' "$tmp/pool.csv"; then ok
        else bad "live_cpu_sweep --pool-stats: the checkout's passes, none elsewhere"; sed 's/^/    /' "$tmp/pool.csv"; fi
        # --gc-stats: the garbage collector in both processes; the stand-in
        # server makes 7,000 lists per request (some 10 young collections
        # each), the checkout's 5 requests some 50 in all
        STANDIN_REQUESTS=5 STANDIN_GARBAGE=7000 expect 0 "live_cpu_sweep --gc-stats" -- "$py" \
            scripts/live_cpu_sweep.py --app "$a" --arch redis_pg --concurrency 3 --total 5 \
            --csv "$tmp/sweep3.csv" --gc-stats "$tmp/gc.csv" --database-url x --redis-url y
        if [ "$(head -1 "$tmp/gc.csv")" = "arch,concurrency,phase,client_gc_ms,client_collections,server_gc_ms,server_collections" ] &&
            awk -F, 'NR == 2 && $1 == "pg_redis" && $3 == "checkout" && $7 >= 25 && $6 > 0 { c++ }
                     NR > 2 && $7 != "" && $7 <= 3 { c++ } END { exit c != 4 || NR != 5 }' "$tmp/gc.csv"; then ok
        else bad "live_cpu_sweep --gc-stats: the server's collections in checkout"; sed 's/^/    /' "$tmp/gc.csv"; fi
    else
        echo "NOTE: live_cpu_sweep: $py has no httpx (python3-httpx): --pool-stats is not run"
    fi
else
    echo "NOTE: live_cpu_sweep: $py has no uvicorn (python3-uvicorn): the sweep itself is not run"
fi
expect 2 "live_cpu_sweep: an env file missing" -- python3 scripts/live_cpu_sweep.py --app "$a" \
    --arch pg_pg --concurrency 3 --csv "$tmp/x.csv" --database-url x --redis-url y
expect_err "no env file .*db010_con003_ops1000_pg_pg.env" "live_cpu_sweep names the missing env file"
expect 2 "live_cpu_sweep: a bad --arch" -- python3 scripts/live_cpu_sweep.py --app "$a" \
    --arch tb_redis --csv "$tmp/x.csv" --database-url x --redis-url y
expect_err "--arch: 'tb_redis'" "live_cpu_sweep names --arch"
expect 2 "live_cpu_sweep: concurrency 0" -- python3 scripts/live_cpu_sweep.py --app "$a" \
    --arch pg_pg --concurrency 0 --csv "$tmp/x.csv" --database-url x --redis-url y
[ ! -e "$tmp/x.csv" ] && ok || bad "live_cpu_sweep: bad arguments wrote the CSV"
