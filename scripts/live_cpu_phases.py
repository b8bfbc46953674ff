#!/usr/bin/env python3
"""Run TigerBench's four load phases against a running TigerFans server and
record, per phase, the CPU every process on the host spent per request: the
load generator (this process), the server (--server-pid, all its threads),
PostgreSQL (every process named postgres*, exited backends included through
the postmaster's children times) and Redis (every redis-server process).
What the model's per-component cores say at each concurrency, measured
(docs/live-tigerfans.md, "Where the CPU goes at each concurrency").

The phases are TigerBench's own functions (bench/load_phases.py of the
TigerFans checkout given by --app, imported, not copied): checkout, webhook
(direct, signed with the mock secret), reserve, commit, each with a new
httpx client, as `python3 -m bench.load_phases` runs them.

  python3 scripts/live_cpu_phases.py --app /path/to/tigerfans --server-pid PID \
      --arch pg_pg --concurrency 20 --csv out.csv

Appends one row per phase to --csv (header when the file is new):
arch,concurrency,phase,requests,ok,walltime,throughput,client_ms,server_ms,
postgres_ms,redis_ms (CPU milliseconds per successful request).
--pool-stats FILE also counts the load generator's httpcore pool at every
pass (validate/http/tfhttp_load.py's PoolStats: the hook tfsim probe http
uses) and appends arch,concurrency,phase,pool_passes,pool_conns,pool_idle,
pool_queued to FILE (passes per request; the mean connections open and
idle, and requests waiting for a connection, at a pass: the last on
httpcore 1.x only, 0 on 0.16).  The hook's own CPU is taken out of
client_ms.
--gc-stats FILE times Python's garbage collector (gc.callbacks, the CPU
time of each collection) in the load generator and, with --server-gc
PATH, in the server, whose own hook (GC_HOOK below, which
live_cpu_sweep.py --gc-stats puts into the server) keeps its running
total in PATH; appends arch,concurrency,phase,client_gc_ms,
client_collections,server_gc_ms,server_collections to FILE (milliseconds
per successful request; collections in the phase; the server's columns
empty without --server-gc).
Each phase's rows are appended as soon as it is measured.
Exit status: 0 done; 1 the server stopped during the run, or an output
file could not be written (the phases measured before are in the files);
2 bad arguments (an output file's folder missing or not writable among
them) or a process that cannot be read at the start.
"""
import argparse
import asyncio
import gc
import os
import resource
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")

# Python that times every garbage collection of the process it runs in
# and keeps the running total in the file TFSIM_GC_FILE names ("SECONDS
# COLLECTIONS", rewritten in place after each collection); it does
# nothing where TFSIM_GC_FILE is not set.  live_cpu_sweep.py --gc-stats
# appends it to the server's sitecustomize.
GC_HOOK = '''
import gc as _tfsim_gc, os as _tfsim_os, time as _tfsim_time
if _tfsim_os.environ.get("TFSIM_GC_FILE"):
    _tfsim_gc_fd = _tfsim_os.open(_tfsim_os.environ["TFSIM_GC_FILE"],
                                  _tfsim_os.O_WRONLY | _tfsim_os.O_CREAT | _tfsim_os.O_TRUNC, 0o644)
    _tfsim_gc_st = [0.0, 0.0, 0]

    def _tfsim_gc_cb(phase, info):
        if phase == "start":
            _tfsim_gc_st[0] = _tfsim_time.process_time()
            return
        _tfsim_gc_st[1] += _tfsim_time.process_time() - _tfsim_gc_st[0]
        _tfsim_gc_st[2] += 1
        line = "%.9f %d" % (_tfsim_gc_st[1], _tfsim_gc_st[2])
        _tfsim_os.pwrite(_tfsim_gc_fd, line.ljust(47).encode() + b"\\n", 0)

    _tfsim_gc.callbacks.append(_tfsim_gc_cb)
'''


class GcTime:
    """The garbage collector's CPU time and collections in this process."""

    def __init__(self):
        self.seconds = 0.0
        self.count = 0
        self._t = 0.0
        gc.callbacks.append(self._cb)

    def _cb(self, phase, info):
        if phase == "start":
            self._t = time.process_time()
        else:
            self.seconds += time.process_time() - self._t
            self.count += 1


def server_gc(path):
    """(seconds, collections) the server's GC_HOOK wrote to path; (0, 0)
    before its first collection (no file, or the hook's empty one).  A
    read that catches the hook's rewrite half done is read again; None
    (said on stderr) for a file that never reads right."""
    for _ in range(100):
        try:
            with open(path) as f:
                text = f.read()
        except FileNotFoundError:
            return 0.0, 0
        if not text.strip():
            return 0.0, 0
        try:
            sec, n = text.split()
            return float(sec), int(n)
        except ValueError:
            time.sleep(0.001)
    print(f"live_cpu_phases: --server-gc {path}: not the hook's 'SECONDS COLLECTIONS' "
          f"({text!r}); the server's GC columns of this phase are left empty", file=sys.stderr)
    return None


def stat_fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    # the command may hold spaces and parentheses: fields follow the last ')'
    rest = s[s.rindex(")") + 2:].split()
    return rest  # rest[0] is field 3 (state)


def proc_cpu(pid, children=False, f=None):
    """utime + stime (+ cutime + cstime) of pid, seconds (f: its
    stat_fields, when already read)."""
    f = f or stat_fields(pid)
    t = int(f[11]) + int(f[12])  # fields 14, 15
    if children:
        t += int(f[13]) + int(f[14])  # fields 16, 17: waited-for children
    return t / TICK


def pids_named(prefix):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/comm") as f:
                if f.read().strip().startswith(prefix):
                    out.append(int(d))
        except OSError:
            pass
    return out


def group_cpu(prefix):
    """CPU of every process named prefix*; a process whose parent has the
    same name counts alone, its parent's children times count those that
    exited (postgres backends under the postmaster)."""
    total = 0.0
    pids = set(pids_named(prefix))
    for p in pids:
        try:
            ppid = int(stat_fields(p)[1])
            total += proc_cpu(p, children=ppid not in pids)
        except (OSError, ValueError, IndexError):
            pass  # exited meanwhile: its parent's children times have it
    return total


class ServerStopped(Exception):
    """The server's /proc entry is gone, or it exited and waits to be reaped."""


def sample(server_pid):
    try:
        f = stat_fields(server_pid)
    except OSError as e:
        raise ServerStopped(str(e)) from e
    if f[0] in "ZX":  # exited, its parent has not reaped it yet
        raise ServerStopped(f"process {server_pid} has exited")
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "client": ru.ru_utime + ru.ru_stime,
        "server": proc_cpu(server_pid, f=f),
        "postgres": group_cpu("postgres"),
        "redis": group_cpu("redis-server"),
    }


CSV_HEADER = ("arch,concurrency,phase,requests,ok,walltime,throughput,client_ms,server_ms,"
              "postgres_ms,redis_ms")
POOL_HEADER = "arch,concurrency,phase,pool_passes,pool_conns,pool_idle,pool_queued"
GC_HEADER = ("arch,concurrency,phase,client_gc_ms,client_collections,server_gc_ms,"
             "server_collections")


async def run(args, lp, pool=None, gct=None):
    """The four phases; each phase's rows are appended to the files as soon
    as it is measured, so that a run cut short keeps them."""
    base = args.base

    def record(phase, summary, before, t0):
        after = sample(args.server_pid)
        ok = max(summary.ok, 1)
        if pool is not None:  # the hook's own CPU is not the load generator's
            after["client"] -= pool.cpu
            n = max(pool.passes, 1)
            append_rows(args.pool_stats, POOL_HEADER,
                        [[args.arch, args.concurrency, phase,
                          "%.3f" % (pool.passes / ok), "%.2f" % (pool.conns / n),
                          "%.2f" % (pool.idle / n), "%.2f" % (pool.queued / n)]])
        if gct is not None:
            srv = server_gc(args.server_gc) if args.server_gc else None
            b0 = before["server_gc"]
            append_rows(args.gc_stats, GC_HEADER,
                        [[args.arch, args.concurrency, phase,
                          "%.4f" % (1e3 * (gct.seconds - before["gc"][0]) / ok),
                          gct.count - before["gc"][1]] +
                         (["%.4f" % (1e3 * (srv[0] - b0[0]) / ok), srv[1] - b0[1]]
                          if srv and b0 else ["", ""])])
        append_rows(args.csv, CSV_HEADER,
                    [[args.arch, args.concurrency, phase, summary.total, summary.ok,
                      "%.6f" % summary.wall_time, "%.4f" % summary.throughput] +
                     ["%.4f" % (1e3 * (after[k] - before[k]) / ok)
                      for k in ("client", "server", "postgres", "redis")]])

    def start():
        if pool is not None:
            pool.reset()
        b = sample(args.server_pid)
        if gct is not None:
            b["gc"] = (gct.seconds, gct.count)
            b["server_gc"] = server_gc(args.server_gc) if args.server_gc else None
        return b

    b = start()
    t0 = time.perf_counter()
    sessions, s = await lp.phase_checkout(base, args.total, args.concurrency)
    record("checkout", s, b, t0)
    b = start()
    _, s = await lp.phase_webhook(base=base, sessions=sessions, concurrency=args.concurrency,
                                  mode="direct", succeed_rate=1.0,
                                  mock_webhook_url=base + "/payments/webhook",
                                  mock_secret=args.secret)
    record("webhook", s, b, t0)
    b = start()
    acc, s = await lp.phase_accounting_reserve(base, args.total, args.concurrency)
    record("reserve", s, b, t0)
    b = start()
    _, s = await lp.phase_accounting_commit(base=base, sessions=acc, conc=args.concurrency)
    record("commit", s, b, t0)


def append_rows(path, header, rows):
    """Appends rows to the CSV at path, the header first when it is new; a
    file that cannot be written ends the run (exit 1), the rows written
    before kept."""
    new = not os.path.exists(path)
    try:
        with open(path, "a") as f:
            if new:
                f.write(header + "\n")
            for r in rows:
                f.write(",".join(str(x) for x in r) + "\n")
    except OSError as e:
        print(f"live_cpu_phases: cannot write {path}: {e}", file=sys.stderr)
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--app", required=True, help="TigerFans checkout (holds bench/)")
    ap.add_argument("--server-pid", type=int, required=True)
    ap.add_argument("--arch", required=True, help="label for the rows, e.g. pg_pg")
    ap.add_argument("--concurrency", type=int, required=True)
    ap.add_argument("--total", type=int, default=1000)
    ap.add_argument("--base", default="http://127.0.0.1:8000")
    ap.add_argument("--secret", default="supersecret")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--pool-stats", metavar="FILE",
                    help="also count the client's httpcore pool at every pass into FILE")
    ap.add_argument("--gc-stats", metavar="FILE",
                    help="also time the garbage collector per phase into FILE")
    ap.add_argument("--server-gc", metavar="PATH",
                    help="the running total the server's GC hook keeps (with --gc-stats)")
    args = ap.parse_args()
    if args.concurrency < 1 or args.total < 1:
        print("live_cpu_phases: --concurrency and --total must be at least 1", file=sys.stderr)
        sys.exit(2)
    try:
        sample(args.server_pid)
    except ServerStopped as e:
        print(f"live_cpu_phases: --server-pid {args.server_pid}: {e}", file=sys.stderr)
        sys.exit(2)
    for flag, path in (("--csv", args.csv), ("--pool-stats", args.pool_stats),
                       ("--gc-stats", args.gc_stats)):
        folder = os.path.dirname(os.path.abspath(path)) if path else None
        if folder and not (os.path.isdir(folder) and os.access(folder, os.W_OK)):
            print(f"live_cpu_phases: {flag} {path}: its folder {folder} is missing or not "
                  f"writable", file=sys.stderr)
            sys.exit(2)
    sys.path.insert(0, args.app)
    import bench.load_phases as lp  # TigerBench's phases, from the checkout
    pool = None
    if args.pool_stats:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "..", "validate", "http"))
        import tfhttp_load  # the probe's pool hook, one place for both
        pool = tfhttp_load.PoolStats()
        pool.install()
        if not pool.hooked:
            print("live_cpu_phases: --pool-stats: this httpcore has neither pool pass "
                  "(_assign_requests_to_connections, _close_expired_connections)",
                  file=sys.stderr)
            sys.exit(2)
    if args.server_gc and not args.gc_stats:
        print("live_cpu_phases: --server-gc needs --gc-stats", file=sys.stderr)
        sys.exit(2)
    gct = GcTime() if args.gc_stats else None
    try:
        asyncio.run(run(args, lp, pool, gct))
    except ServerStopped as e:  # it stopped mid-run
        print(f"live_cpu_phases: --server-pid {args.server_pid} cannot be read any more ({e}): "
              f"the phases measured before are in {args.csv}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
