# scripts/tigerfans_live.py: TigerBench's driver over a TigerFans checkout.
# Here the checkout is a stand-in: its bench/__main__.py takes the driver's
# arguments and writes one row per env file and repetition, noting the
# environment it was given (the URLs, and whether the stand-in modules
# import), so the order of the env files, the repetitions, --total, the
# shims and the exit paths are what is checked.
if /usr/bin/python3 -c 'import fastapi, sqlalchemy, asyncpg, redis, uvicorn, httpx, jinja2, multipart, itsdangerous' 2>/dev/null; then
    app="$tmp/tf"
    mkdir -p "$app/bench" "$app/tigerfans" "$app/load_tests/db010"
    : >"$app/tigerfans/server.py"
    : >"$app/bench/__init__.py"
    for c in 001 005; do for a in pg_pg redis_pg; do
        printf 'ACCT_BACKEND=pg\n--concurrency=%d\n--total=1000\n' "$c" >"$app/load_tests/db010/db010_con${c}_ops1000_$a.env"
    done; done
    cat >"$app/bench/__main__.py" <<'PY'
import os, sys
a = sys.argv[1:]
envs = [a[i + 1] for i, x in enumerate(a) if x == "--env-file"]
out = a[a.index("--csv-file") + 1]
rep = int(a[a.index("--repeat") + 1])
total = a[a.index("--") + 1] if "--" in a else "none"
def can(m):
    try:
        __import__(m)
        return "yes"
    except Exception:
        return "no"
def asm():
    try:
        from sqlalchemy.ext.asyncio import async_sessionmaker
        async_sessionmaker()
        return "yes"
    except Exception:
        return "no"
import orjson
ok = orjson.dumps({"a": 1}) == b'{"a":1}' and orjson.loads(b"[2]") == [2]
import tigerbeetle as tb
tb.Account(id=1, flags=tb.AccountFlags.DEBITS_MUST_NOT_EXCEED_CREDITS)
new = not os.path.exists(out)
with open(out, "a") as f:
    if new:
        f.write("tag,rep,total,db,redis,orjson,asm,server\n")
    for e in envs:
        for r in range(rep):
            f.write(f"{e},{r + 1},{total},{os.environ['DATABASE_URL']},{os.environ['REDIS_URL']},{ok},{asm()},{a[a.index('--server-cmd') + 1].split()[-3]}\n")
PY
    expect 0 "tigerfans_live with a stand-in checkout" -- /usr/bin/python3 scripts/tigerfans_live.py --app "$app" \
        --out "$tmp/live.csv" --database-url DBURL --redis-url unix:///x.sock --concurrency 1,5 --repeat 2 --total 7
    # TigerBench's order: each concurrency, every architecture in turn; each env file twice
    if awk -F, 'NR == 1 { next } { n++; t[n] = $1 "," $2 }
        $3 != "--total=7" || $4 != "DBURL" || $5 != "unix:///x.sock" || $6 != "True" || $7 != "yes" || $8 != "tigerfans.server:app" { bad = 1 }
        END { exit bad || n != 8 || t[1] != "load_tests/db010/db010_con001_ops1000_pg_pg.env,1" ||
              t[3] != "load_tests/db010/db010_con001_ops1000_redis_pg.env,1" ||
              t[8] != "load_tests/db010/db010_con005_ops1000_redis_pg.env,2" }' "$tmp/live.csv"
    then ok; else bad "tigerfans_live: rows"; sed 's/^/    /' "$tmp/live.csv"; fi
    expect_err "stand-in for orjson" "tigerfans_live: the orjson stand-in is named"
    expect_err "8 rows in $tmp/live.csv; next: tfsim predict" "tigerfans_live: the rows and the next step"
    # never overwritten
    expect 2 "tigerfans_live: --out exists" -- /usr/bin/python3 scripts/tigerfans_live.py --app "$app" \
        --out "$tmp/live.csv" --database-url D --redis-url R
    expect_err "live.csv exists; not overwritten" "tigerfans_live: names the file it keeps"
    [ "$(wc -l <"$tmp/live.csv")" = 9 ] && ok || bad "tigerfans_live: the existing file changed"
    # a concurrency the checkout has no env file for
    expect 2 "tigerfans_live: no env file" -- /usr/bin/python3 scripts/tigerfans_live.py --app "$app" \
        --out "$tmp/l2.csv" --database-url D --redis-url R --concurrency 1,20
    expect_err "no env file $app/load_tests/db010/db010_con020_ops1000_pg_pg.env" "tigerfans_live: names the env file"
    # the driver fails: what it wrote is kept and the exit is 1
    printf 'import sys\nopen(sys.argv[sys.argv.index("--csv-file") + 1], "w").write("tag\\nx\\n")\nsys.exit(3)\n' \
        >"$app/bench/__main__.py"
    expect 1 "tigerfans_live: the driver fails" -- /usr/bin/python3 scripts/tigerfans_live.py --app "$app" \
        --out "$tmp/l3.csv" --database-url D --redis-url R --concurrency 1
    expect_err "the driver exited 3 with 1 rows" "tigerfans_live: says what the driver left"
    [ -s "$tmp/l3.csv" ] && ok || bad "tigerfans_live: the driver's rows were not kept"
else
    echo "skip: tigerfans_live stand-in run (/usr/bin/python3 lacks TigerFans' Debian packages)"
fi
expect 2 "tigerfans_live: not a checkout" -- /usr/bin/python3 scripts/tigerfans_live.py --app "$tmp" \
    --out "$tmp/l4.csv" --database-url D --redis-url R
expect_err "no bench/__main__.py (a checkout of renerocksai/tigerfans?)" "tigerfans_live: names what the checkout lacks"
expect 2 "tigerfans_live: bad concurrency" -- /usr/bin/python3 scripts/tigerfans_live.py --app "$tmp" \
    --out "$tmp/l4.csv" --database-url D --redis-url R --concurrency 1,x
expect_err "--concurrency: '1,x' is not a comma-separated list" "tigerfans_live: names the flag"
expect 2 "tigerfans_live: no --out" -- /usr/bin/python3 scripts/tigerfans_live.py --app "$tmp" \
    --database-url D --redis-url R
expect_err "the following arguments are required: --out" "tigerfans_live: argparse names the missing flag"
# an interpreter without TigerFans' modules: exit 1, the Debian packages named
mkdir -p "$tmp/fakeapp/bench" "$tmp/fakeapp/tigerfans" "$tmp/fakeapp/load_tests/db010"
: >"$tmp/fakeapp/bench/__main__.py"
: >"$tmp/fakeapp/tigerfans/server.py"
: >"$tmp/fakeapp/load_tests/db010/db010_con001_ops1000_pg_pg.env"
printf '#!/bin/sh\nexit 1\n' >"$tmp/nopy"
chmod +x "$tmp/nopy"
expect 1 "tigerfans_live: modules missing" -- /usr/bin/python3 scripts/tigerfans_live.py --app "$tmp/fakeapp" \
    --out "$tmp/l5.csv" --database-url D --redis-url R --concurrency 1 --archs pg_pg --python "$tmp/nopy"
expect_err "lacks Python modules: install python3-fastapi python3-sqlalchemy" "tigerfans_live: names the packages"
[ ! -e "$tmp/l5.csv" ] && ok || bad "tigerfans_live: wrote --out without a run"
# tb_redis without TigerBeetle's client: refused before any run
if ! /usr/bin/python3 -c 'import tigerbeetle' 2>/dev/null && [ -n "${app:-}" ]; then
    : >"$app/load_tests/db010/db010_con001_ops1000_tb_redis.env"
    expect 2 "tigerfans_live: tb_redis without its client" -- /usr/bin/python3 scripts/tigerfans_live.py \
        --app "$app" --out "$tmp/l6.csv" --database-url D --redis-url R --concurrency 1 --archs pg_pg,tb_redis
    expect_err "tb_redis needs TigerBeetle's Python client" "tigerfans_live: says why tb_redis cannot run"
fi
expect 2 "tigerfans_live: no such --python" -- /usr/bin/python3 scripts/tigerfans_live.py --app "$tmp/fakeapp" \
    --out "$tmp/l7.csv" --database-url D --redis-url R --concurrency 1 --archs pg_pg --python "$tmp/no-python"
expect_err "--python $tmp/no-python: no such program" "tigerfans_live: names the missing interpreter"
