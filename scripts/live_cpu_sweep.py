#!/usr/bin/env python3
"""live_cpu_sweep: where TigerFans' CPU goes at each concurrency, each run
against a fresh TigerFans server (the sweep behind
tests/data/live_cpu_phases_p.csv; it was a throw-away shell loop).

  python3 scripts/live_cpu_sweep.py --app /path/to/tigerfans --arch pg_pg \\
      --concurrency 1,20,50,100 --csv out.csv \\
      --database-url postgresql+asyncpg://USER@/DB?host=SOCKDIR&port=PORT \\
      --redis-url unix:///path/to/redis.sock [--total N] [--python PY] \\
      [--pool-stats POOL.csv] [--gc-stats GC.csv]

For each concurrency in turn: `PY -m uvicorn tigerfans.server:app
--workers=1 --no-access-log` in the checkout, with the KEY=VALUE lines of
load_tests/db010/db010_conCCC_ops1000_ARCH.env, DATABASE_URL, REDIS_URL and
tigerfans_live.py's stand-ins for the modules PY lacks on PYTHONPATH (before
the caller's, so that a pinned httpx there reaches the server and the
driver alike); once it answers on 127.0.0.1:8000 (within 30 s),
scripts/live_cpu_phases.py runs TigerBench's four phases against it and
appends their rows to --csv (labelled pg_pg or pg_redis; with --pool-stats
the load generator's pool at its passes to POOL.csv as well; with
--gc-stats the garbage collector's time per request in the load generator
and the server, through live_cpu_phases.py's GC_HOOK in the server's
sitecustomize, to GC.csv); then the server stops.  ARCH is an env file
suffix: pg_pg or redis_pg.

Exit status: 0 done; 1 a server or a run failed (the rows written before
stay in --csv); 2 bad arguments or a missing env file.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tigerfans_live  # noqa: E402  (its stand-ins, env files and list parsing)
import live_cpu_phases  # noqa: E402  (its GC hook for the server)

LABEL = {"pg_pg": "pg_pg", "redis_pg": "pg_redis"}


def env_of(path):
    """The KEY=VALUE lines of a TigerBench env file (its --flag lines are
    the driver's, not the server's)."""
    env = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and not line.startswith("--") and "=" in line:
                k, v = line.split("=", 1)
                env[k.strip()] = v.strip()
    return env


def answering(port, timeout):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app", required=True, help="a checkout of renerocksai/tigerfans")
    ap.add_argument("--arch", required=True, help="env file suffix: pg_pg or redis_pg")
    ap.add_argument("--concurrency", default="1,20,50,100")
    ap.add_argument("--csv", required=True, help="rows are appended (header when new)")
    ap.add_argument("--database-url", required=True)
    ap.add_argument("--redis-url", required=True)
    ap.add_argument("--total", type=int, default=1000)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--pool-stats", metavar="FILE",
                    help="live_cpu_phases.py --pool-stats: the client's pool at its passes")
    ap.add_argument("--gc-stats", metavar="FILE",
                    help="live_cpu_phases.py --gc-stats: the garbage collector's time, both sides")
    try:
        a = ap.parse_args(argv)
        conc = tigerfans_live.parse_list("concurrency", a.concurrency, int)
        if any(c < 1 or c > 999 for c in conc) or a.total < 1:
            raise ValueError(f"--concurrency '{a.concurrency}' (each 1-999) or --total {a.total}")
        if a.arch not in LABEL:
            raise ValueError(f"--arch: '{a.arch}' is not pg_pg or redis_pg")
    except ValueError as e:
        print(f"live_cpu_sweep: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # argparse's own message went to stderr
        return 2 if e.code else 0
    try:
        envs = [env_of(os.path.join(a.app, rel))
                for rel in tigerfans_live.env_files(a.app, conc, [a.arch])]
    except FileNotFoundError as e:
        print(f"live_cpu_sweep: --app {a.app}: no env file {e.args[0]}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="tigerfans-shims-") as shims:
        used = tigerfans_live.write_shims(a.python, shims)
        if used:
            print(f"live_cpu_sweep: stand-ins for {', '.join(used)} (see tigerfans_live.py)",
                  file=sys.stderr)
        if a.gc_stats:  # after the stand-ins' sitecustomize, if they wrote one
            with open(os.path.join(shims, "sitecustomize.py"), "a", encoding="ascii") as f:
                f.write(live_cpu_phases.GC_HOOK)
        for c, extra in zip(conc, envs):
            if answering(8000, 0.3):
                print("live_cpu_sweep: something already answers on 127.0.0.1:8000 (a server "
                      "left running?); stop it first", file=sys.stderr)
                return 1
            env = dict(os.environ)
            env.update(extra)
            env["DATABASE_URL"] = a.database_url
            env["REDIS_URL"] = a.redis_url
            env["PYTHONPATH"] = shims + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
            srv_env = dict(env)
            if a.gc_stats:  # the server's hook keeps its running total there
                gc_file = os.path.join(shims, f"server_gc_{c}.txt")
                srv_env["TFSIM_GC_FILE"] = gc_file
            srv = subprocess.Popen([a.python, "-m", "uvicorn", "tigerfans.server:app", "--workers=1",
                                    "--no-access-log"], cwd=a.app, env=srv_env,
                                   stdout=subprocess.DEVNULL, stderr=sys.stderr)
            try:
                if not answering(8000, 30) or srv.poll() is not None:
                    print(f"live_cpu_sweep: the server for concurrency {c} did not answer on "
                          f"127.0.0.1:8000 within 30 s", file=sys.stderr)
                    return 1
                r = subprocess.run([a.python, os.path.join(HERE, "live_cpu_phases.py"), "--app",
                                    a.app, "--server-pid", str(srv.pid), "--arch", LABEL[a.arch],
                                    "--concurrency", str(c), "--total", str(a.total), "--csv", a.csv]
                                   + (["--pool-stats", a.pool_stats] if a.pool_stats else [])
                                   + (["--gc-stats", a.gc_stats, "--server-gc", gc_file]
                                      if a.gc_stats else []),
                                   env=env, stdout=sys.stderr)
                if r.returncode != 0:
                    print(f"live_cpu_sweep: the run at concurrency {c} failed (status "
                          f"{r.returncode}); the rows before it are in {a.csv}", file=sys.stderr)
                    return 1
            finally:
                if srv.poll() is None:
                    srv.send_signal(signal.SIGINT)
                    try:
                        srv.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        srv.kill()
                        srv.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
