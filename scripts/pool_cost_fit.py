#!/usr/bin/env python3
"""pool_cost_fit: what one pass of the load generator's httpcore pool costs,
read from live runs that counted the pool (scripts/live_cpu_phases.py
--pool-stats, or tests/data/live_cpu_pool.csv where both are in one file).

  python3 scripts/pool_cost_fit.py RUNS.csv [--pool POOL.csv] [--min-concurrency C]

RUNS.csv holds client_ms (the load generator's CPU per request) and, unless
--pool gives them in a second file of the same rows in the same order
(live_cpu_phases.py's --pool-stats output), pool_passes, pool_conns and
pool_idle per phase run.  Fits, by least squares over the runs at
--min-concurrency (default 1) and above,

  client_ms = base + passes x (poll x idle + walk x idle x conns)

roughly the model's client.cpu + sent_cpu, client.pool_poll_cpu and
client.pool_idle_cpu, each times client.cpu_scale (models/tf_sim.c, "A
pass costs"; its pool_cpu and pool_conn_cpu per pass have no term of
their own here and fold into these), and prints them in microseconds with
the fit's root mean square and largest relative error, then each run's
measured and fitted CPU.  The standard library only (Debian's python3
here has no numpy): three terms, solved by elimination.
Exit status: 0 done; 2 a file, column or value that cannot be read, or
fewer runs than terms (3).
"""
import argparse
import csv
import sys

TERMS = ("base", "poll", "walk")


def die(msg):
    print(f"pool_cost_fit: {msg}", file=sys.stderr)
    sys.exit(2)


def read(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        die(f"{path}: {e.strerror}")


def num(path, line, row, key):
    v = row.get(key)
    if v is None:
        die(f"{path}: no column {key}")
    try:
        x = float(v)
    except ValueError:
        die(f"{path}:{line}: {key}: '{v}' is not a number")
    if not x == x or x < 0:
        die(f"{path}:{line}: {key}: '{v}' must be a number >= 0")
    return x


def solve(a, b):
    """Solve a x = b (Gaussian elimination with partial pivoting); None when
    the system is singular (the runs do not tell the terms apart)."""
    n = len(b)
    m = [list(a[i]) + [b[i]] for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        if abs(m[p][i]) < 1e-12 * max(1.0, max(abs(v) for v in m[p][:n])):
            return None
        m[i], m[p] = m[p], m[i]
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                m[r] = [x - f * y for x, y in zip(m[r], m[i])]
    return [m[i][n] / m[i][i] for i in range(n)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs")
    ap.add_argument("--pool", help="the pool's counts, one row per row of RUNS in the same order")
    ap.add_argument("--min-concurrency", type=int, default=1)
    a = ap.parse_args(argv)
    runs = read(a.runs)
    pool = read(a.pool) if a.pool else runs
    ppath = a.pool or a.runs
    if len(pool) != len(runs):
        die(f"--pool {a.pool}: {len(pool)} rows, {a.runs} {len(runs)}")
    xs, ys, names = [], [], []
    for i, (r, p) in enumerate(zip(runs, pool)):
        line = i + 2
        c = num(a.runs, line, r, "concurrency")
        if p is not r and (p.get("phase") != r.get("phase") or p.get("concurrency") != r.get("concurrency")):
            die(f"{ppath}:{line}: phase and concurrency differ from {a.runs}'s row")
        if c < a.min_concurrency:
            continue
        passes = num(ppath, line, p, "pool_passes")
        conns = num(ppath, line, p, "pool_conns")
        idle = num(ppath, line, p, "pool_idle")
        if idle > conns + 1e-9:
            die(f"{ppath}:{line}: pool_idle {idle} exceeds pool_conns {conns}")
        xs.append((1.0, passes * idle, passes * idle * conns))
        ys.append(num(a.runs, line, r, "client_ms"))
        names.append(f"{r.get('arch', '-')},{int(c)},{r.get('phase', '-')}")
    if len(xs) < len(TERMS):
        die(f"{len(xs)} runs at concurrency >= {a.min_concurrency}: at least {len(TERMS)} needed")
    k = len(TERMS)
    ata = [[sum(x[i] * x[j] for x in xs) for j in range(k)] for i in range(k)]
    aty = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(k)]
    c = solve(ata, aty)
    if c is None:
        die("the runs do not tell the terms apart (the same pool state in every run)")
    fit = [sum(ci * xi for ci, xi in zip(c, x)) for x in xs]
    rms = (sum((f - y) ** 2 for f, y in zip(fit, ys)) / len(ys)) ** 0.5
    worst = max(abs(f - y) / y for f, y in zip(fit, ys) if y > 0)
    print(f"runs {len(xs)}: base {1e3 * c[0]:.1f} us, poll {1e3 * c[1]:.3f} us per idle "
          f"connection and pass, walk {1e3 * c[2]:.4f} us per idle connection x connection "
          f"and pass; rms {rms:.3f} ms, largest error {100 * worst:.1f}%")
    print("run,client_ms,fitted_ms")
    for n, y, f in zip(names, ys, fit):
        print(f"{n},{y:.3f},{f:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
