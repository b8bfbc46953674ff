#!/usr/bin/env python3
"""Simulate the runs of a CPU sweep (scripts/live_cpu_phases.py's CSV) with a
fitted config and compare: a transfer test for a calibration, at the
concurrencies and database states of runs it was not fitted to.

A sweep whose concurrencies alternate on one growing database
(tests/data/live_cpu_alternating.csv) separates what the holds table's
size does from what the concurrency does; a fit made on TigerBench's
ascending order sees the two together.  Every run (the consecutive rows
of one architecture and concurrency, one per phase) is simulated phase by
phase with

  tfsim run CONFIG --set architecture.accounting=pg \\
      --set architecture.payments=pg|redis --set client.phases=PHASE \\
      --set client.concurrency=C --set postgres.holds_rows=R

where R is the run's --rows figure plus what its own earlier phases add
(two rows per hold: 2 x requests after checkout, 4 x requests after
reserve).  --config ARCH=FILE names the config of each architecture
(pg_pg=FIT.ini; an architecture without one is skipped and counted).

  python3 scripts/sweep_compare.py --tfsim bin/tfsim \\
      --config pg_pg=FIT.ini --cpu tests/data/live_cpu_alternating.csv \\
      --rows 0,4000,8000,12000,16000,20000,24000,28000,32000,36000

Prints one CSV row per phase run (arch, concurrency, rows, phase, measured
and simulated throughput, error_pct, then measured and simulated CPU ms
per request of the load generator, the server and PostgreSQL) and, on
stderr, the MAPE of the throughputs over the runs simulated, per
architecture and over all.  Exit status 2 on bad arguments or input,
1 when a simulation fails.
"""
import argparse
import csv
import subprocess
import sys

PHASES = ("checkout", "webhook", "reserve", "commit")
PAYMENTS = {"pg_pg": "pg", "pg_redis": "redis"}


def fail(msg):
    print(f"sweep_compare: {msg}", file=sys.stderr)
    sys.exit(2)


def read_runs(path):
    """Runs in file order: (arch, concurrency, [rows of its phases])."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    need = ("arch", "concurrency", "phase", "requests", "throughput", "client_ms",
            "server_ms", "postgres_ms")
    runs = []
    for i, r in enumerate(rows, start=2):
        for k in need:
            if r.get(k) in (None, ""):
                fail(f"{path}:{i}: {k}: missing")
        if r["phase"] not in PHASES:
            fail(f"{path}:{i}: phase: '{r['phase']}' is not one of {', '.join(PHASES)}")
        try:
            c = int(r["concurrency"])
            for k in need[3:]:
                float(r[k])
        except ValueError:
            fail(f"{path}:{i}: expected numbers in concurrency, requests, throughput, *_ms")
        last = runs[-1] if runs else None
        # a new run: another architecture or concurrency, or a phase seen already
        if (last is None or last[0] != r["arch"] or last[1] != c
                or any(p["phase"] == r["phase"] for p in last[2])):
            runs.append((r["arch"], c, []))
        runs[-1][2].append(r)
    return runs


def simulate(tfsim, config, arch, conc, rows, phase, reps, seed):
    cmd = [tfsim, "run", config,
           "--set", "architecture.accounting=pg",
           "--set", f"architecture.payments={PAYMENTS[arch]}",
           "--set", f"client.phases={phase}",
           "--set", f"client.concurrency={conc}",
           "--set", f"postgres.holds_rows={rows:.0f}",
           "--reps", str(reps), "--seed", str(seed), "--format", "csv"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"sweep_compare: {' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}",
              file=sys.stderr)
        sys.exit(1)
    for r in csv.DictReader(p.stdout.splitlines()):
        if r["scope"] == "phase" and r["name"] == phase:
            return {k: float(r[k]) for k in
                    ("throughput", "client_cpu", "server_cpu", "postgres_cpu")}
    print(f"sweep_compare: {' '.join(cmd)}: no phase row", file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tfsim", default="bin/tfsim")
    ap.add_argument("--config", action="append", default=[], metavar="ARCH=FILE")
    ap.add_argument("--cpu", required=True, help="the sweep (live_cpu_phases.py's CSV)")
    ap.add_argument("--rows", required=True,
                    help="holds rows before each run, comma-separated, in file order")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    configs = {}
    for c in a.config:
        arch, sep, path = c.partition("=")
        if not sep or arch not in PAYMENTS or not path:
            fail(f"--config '{c}': expected ARCH=FILE with ARCH one of {', '.join(PAYMENTS)}")
        configs[arch] = path
    if not configs:
        fail("--config ARCH=FILE: at least one")
    if a.reps < 1:
        fail("--reps: at least 1")
    try:
        rows0 = [float(x) for x in a.rows.split(",")]
    except ValueError:
        fail(f"--rows '{a.rows}': expected numbers, comma-separated")
    if any(r < 0 for r in rows0):
        fail("--rows: a negative count")
    runs = read_runs(a.cpu)
    if len(rows0) != len(runs):
        fail(f"--rows gives {len(rows0)} figures, {a.cpu} holds {len(runs)} runs")
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["arch", "concurrency", "rows", "phase", "measured", "simulated", "error_pct",
                "client_cpu_ms", "sim_client_cpu_ms", "server_cpu_ms", "sim_server_cpu_ms",
                "postgres_cpu_ms", "sim_postgres_cpu_ms"])
    errs, skipped = {}, 0
    for (arch, conc, phases), r0 in zip(runs, rows0):
        if arch not in configs:
            skipped += 1
            continue
        added = 0.0
        for r in sorted(phases, key=lambda r: PHASES.index(r["phase"])):
            ph = r["phase"]
            s = simulate(a.tfsim, configs[arch], arch, conc, r0 + added, ph, a.reps, a.seed)
            meas = float(r["throughput"])
            e = 100 * (s["throughput"] / meas - 1) if meas > 0 else float("nan")
            errs.setdefault(arch, []).append(abs(e))
            w.writerow([arch, conc, f"{r0 + added:.0f}", ph, f"{meas:.1f}",
                        f"{s['throughput']:.1f}", f"{e:.1f}",
                        r["client_ms"], f"{1e3 * s['client_cpu']:.2f}",
                        r["server_ms"], f"{1e3 * s['server_cpu']:.2f}",
                        r["postgres_ms"], f"{1e3 * s['postgres_cpu']:.2f}"])
            if ph in ("checkout", "reserve"):  # each hold adds two rows
                added += 2 * float(r["requests"])
    if not errs:
        fail("no run of an architecture with a --config")
    allv = [x for v in errs.values() for x in v]
    for arch, v in errs.items():
        print(f"MAPE {arch}: {sum(v) / len(v):.1f}% ({len(v)} phase runs)", file=sys.stderr)
    print(f"MAPE: {sum(allv) / len(allv):.1f}% ({len(allv)} phase runs"
          f"{f', {skipped} runs without a config skipped' if skipped else ''})", file=sys.stderr)


if __name__ == "__main__":
    main()
