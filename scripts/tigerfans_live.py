#!/usr/bin/env python3
"""tigerfans_live: run TigerFans itself with TigerBench's own driver, live on
this machine, and write the series `tfsim predict --tigerbench` reads.

  python3 scripts/tigerfans_live.py --app /path/to/tigerfans --out live.csv \\
      --database-url postgresql+asyncpg://USER@/DB?host=SOCKDIR&port=PORT \\
      --redis-url unix:///path/to/redis.sock \\
      [--concurrency 1,5,10,20,50,100] [--archs pg_pg,redis_pg] [--repeat 2] \\
      [--total N]

--app is a checkout of renerocksai/tigerfans (its bench/, tigerfans/ and
load_tests/db010/ env files).  The run is `python3 -m bench` in that
checkout (a fresh `uvicorn tigerfans.server:app --workers=1
--no-access-log` per repetition, 5 s warm-up, 3 s cool-down) over the env
files db010_conCCC_ops1000_ARCH.env in TigerBench's order: each
concurrency, every architecture in turn.  The series it writes is what
tests/data/live_debian12*.csv hold; give the database a new, empty
database (TigerBench's series run on one database that is never emptied,
and predict counts its holds rows from there).  The servers are yours:
tests/servers.sh starts a PostgreSQL and a Redis with `--io-threads 4
--io-threads-do-reads yes` (TigerFans' Makefile) in a folder.

Debian 12 has TigerFans' Python stack but three pieces; for each one
missing, a module in a temporary folder on PYTHONPATH stands in, and a
note says so (they change what is measured a little):
  orjson                   the standard json (orjson is not packaged);
  tigerbeetle              an empty module (its client is not installable;
                           pg accounting never calls it: tb_redis cannot run);
  async_sessionmaker       SQLAlchemy 1.4's sessionmaker(class_=AsyncSession)
                           (new in SQLAlchemy 2.0).
--total N replaces the env files' 1000 requests per phase (a short check).

Exit status: 0 done; 1 a run failed or a Python module is missing (the
message names its Debian package); 2 bad arguments, a missing file of the
checkout, or an --out that exists (never overwritten).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

# module -> Debian package, what TigerFans' server and TigerBench's driver import
NEEDED = [
    ("fastapi", "python3-fastapi"), ("sqlalchemy", "python3-sqlalchemy"),
    ("asyncpg", "python3-asyncpg"), ("redis", "python3-redis"),
    ("uvicorn", "python3-uvicorn"), ("httpx", "python3-httpx"),
    ("jinja2", "python3-jinja2"), ("multipart", "python3-multipart"),
    ("itsdangerous", "python3-itsdangerous"),
]

SHIM_ORJSON = '''\
# tigerfans_live.py's stand-in for orjson (not packaged in Debian 12)
import json
OPT_NON_STR_KEYS = 1
OPT_SERIALIZE_NUMPY = 2
OPT_INDENT_2 = 4
OPT_SORT_KEYS = 8
JSONDecodeError = json.JSONDecodeError
def dumps(obj, default=None, option=0):
    return json.dumps(obj, default=default, separators=(",", ":")).encode()
def loads(s):
    return json.loads(s)
'''

SHIM_TIGERBEETLE = '''\
# tigerfans_live.py's stand-in for TigerBeetle's client (not installable
# here): any name is a class whose attributes and instances are again such
# classes, so TigerFans' module-level account tables import; pg accounting
# never calls it
class _Meta(type):
    def __getattr__(cls, name):
        return _Any
    def __or__(cls, other):
        return cls
    __ror__ = __or__
class _Any(metaclass=_Meta):
    def __init__(self, *a, **k):
        pass
    def __getattr__(self, name):
        return _Any()
def __getattr__(name):
    return _Any
'''

SHIM_SITECUSTOMIZE = '''\
# tigerfans_live.py: SQLAlchemy 1.4 has no async_sessionmaker (2.0's)
try:
    import sqlalchemy.ext.asyncio as _a
    from sqlalchemy.orm import sessionmaker as _sm
    if not hasattr(_a, "async_sessionmaker"):
        def async_sessionmaker(*a, **k):
            k.setdefault("class_", _a.AsyncSession)
            return _sm(*a, **k)
        _a.async_sessionmaker = async_sessionmaker
except ImportError:
    pass
'''


def parse_list(name, s, conv):
    try:
        out = [conv(x) for x in s.split(",") if x != ""]
    except ValueError:
        out = []
    if not out:
        raise ValueError(f"--{name}: '{s}' is not a comma-separated list")
    return out


def runs(python, code):
    """True when python runs code (one line) without an error."""
    r = subprocess.run([python, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return r.returncode == 0


def write_shims(python, folder):
    """Writes into folder the stand-ins this python lacks; their names."""
    used = []
    for module, text in (("orjson", SHIM_ORJSON), ("tigerbeetle", SHIM_TIGERBEETLE)):
        if not runs(python, f"import {module}"):
            with open(os.path.join(folder, module + ".py"), "w", encoding="ascii") as f:
                f.write(text)
            used.append(module)
    if not runs(python, "from sqlalchemy.ext.asyncio import async_sessionmaker"):
        with open(os.path.join(folder, "sitecustomize.py"), "w", encoding="ascii") as f:
            f.write(SHIM_SITECUSTOMIZE)
        used.append("async_sessionmaker")
    return used


def env_files(app, concurrency, archs):
    """The env files in TigerBench's order; raises FileNotFoundError naming
    the first one missing."""
    out = []
    for c in concurrency:
        for a in archs:
            rel = os.path.join("load_tests", "db010", f"db010_con{c:03d}_ops1000_{a}.env")
            if not os.path.isfile(os.path.join(app, rel)):
                raise FileNotFoundError(os.path.join(app, rel))
            out.append(rel)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app", required=True, help="a checkout of renerocksai/tigerfans")
    ap.add_argument("--out", required=True, help="the series CSV to write (must not exist)")
    ap.add_argument("--database-url", required=True, help="SQLAlchemy URL (postgresql+asyncpg://...)")
    ap.add_argument("--redis-url", required=True, help="redis://HOST:PORT or unix:///SOCKET")
    ap.add_argument("--concurrency", default="1,5,10,20,50,100")
    ap.add_argument("--archs", default="pg_pg,redis_pg", help="env file suffixes: pg_pg, redis_pg")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--total", type=int, default=0, help="requests per phase (default: the env files' 1000)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter for server and driver")
    try:
        a = ap.parse_args(argv)
        conc = parse_list("concurrency", a.concurrency, int)
        archs = parse_list("archs", a.archs, str)
        if any(c < 1 or c > 999 for c in conc):
            raise ValueError(f"--concurrency: '{a.concurrency}': each from 1 to 999")
        for x in archs:
            if x not in ("pg_pg", "redis_pg", "tb_redis"):
                raise ValueError(f"--archs: '{x}' is not pg_pg, redis_pg or tb_redis")
        if a.repeat < 1 or a.total < 0:
            raise ValueError("--repeat must be at least 1 and --total at least 0")
    except ValueError as e:
        print(f"tigerfans_live: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # argparse's own message went to stderr
        return 2 if e.code else 0
    if shutil.which(a.python) is None:
        print(f"tigerfans_live: --python {a.python}: no such program", file=sys.stderr)
        return 2
    out = os.path.abspath(a.out)
    if os.path.exists(out):
        print(f"tigerfans_live: --out {a.out} exists; not overwritten", file=sys.stderr)
        return 2
    if not os.path.isdir(os.path.dirname(out)):
        print(f"tigerfans_live: --out {a.out}: no such folder", file=sys.stderr)
        return 2
    app = os.path.abspath(a.app)
    for rel in (os.path.join("bench", "__main__.py"), os.path.join("tigerfans", "server.py")):
        if not os.path.isfile(os.path.join(app, rel)):
            print(f"tigerfans_live: --app {a.app}: no {rel} (a checkout of renerocksai/tigerfans?)",
                  file=sys.stderr)
            return 2
    try:
        envs = env_files(app, conc, archs)
    except FileNotFoundError as e:
        print(f"tigerfans_live: --app {a.app}: no env file {e.args[0]}", file=sys.stderr)
        return 2
    missing = [pkg for mod, pkg in NEEDED if not runs(a.python, f"import {mod}")]
    if missing:
        print(f"tigerfans_live: {a.python} lacks Python modules: install {' '.join(missing)}"
              " (Debian's packages serve /usr/bin/python3: run this script with it, or give"
              " --python /usr/bin/python3)", file=sys.stderr)
        return 1
    if "tb_redis" in archs and not runs(a.python, "import tigerbeetle"):
        print(f"tigerfans_live: --archs tb_redis needs TigerBeetle's Python client (module "
              f"tigerbeetle), which {a.python} lacks", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="tigerfans-shims-") as shims:
        used = write_shims(a.python, shims)
        for u in used:
            print(f"note: stand-in for {u} (tigerfans_live.py's docstring says what it changes)",
                  file=sys.stderr)
        env = dict(os.environ)
        env["DATABASE_URL"] = a.database_url
        env["REDIS_URL"] = a.redis_url
        env["PYTHONPATH"] = shims + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        cmd = [a.python, "-m", "bench"]
        for e in envs:
            cmd += ["--env-file", e]
        cmd += ["--csv-file", out, "--repeat", str(a.repeat), "--server-cmd",
                f"{a.python} -m uvicorn tigerfans.server:app --workers=1 --no-access-log"]
        if a.total:
            cmd += ["--", f"--total={a.total}"]
        print(f"tigerfans_live: {len(envs)} env files x {a.repeat} repetitions in {app}",
              file=sys.stderr, flush=True)
        r = subprocess.run(cmd, cwd=app, env=env, stdout=sys.stderr)
    rows = 0
    if os.path.exists(out):
        with open(out, encoding="utf-8", errors="replace") as f:
            rows = sum(1 for line in f) - 1
    if r.returncode != 0 or rows <= 0:
        print(f"tigerfans_live: the driver exited {r.returncode} with {max(rows, 0)} rows in {a.out}"
              " (what was measured is kept)", file=sys.stderr)
        return 1
    print(f"tigerfans_live: {rows} rows in {a.out}; next: tfsim predict --tigerbench {a.out} "
          "--baseline pg_pg --target pg_redis", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
