#!/usr/bin/env python3
"""How steady is this machine?  Time one fixed piece of CPU-bound Python
work again and again and print how much CPU time it took each time: on a
steady machine the figures agree within a few percent; on a shared VM
they show how far one measurement of the same code can move from the
next (docs/load-generator.md, "How steady this VM is").

  python3 scripts/vm_speed.py [-n 100] [--pin CPU] [--csv FILE]

Each repetition: 300,000 dict updates and int-to-str conversions (about
60 ms of CPU on this project's 2-core VM at its fastest), timed with
time.process_time (CPU time, not wall time: a VM that deschedules the
process does not count).  Prints min, p10, median, p90 and max in ms and
max/min; --csv writes every repetition (seconds since the start, CPU ms)
for a plot over time; --pin runs on one CPU (os.sched_setaffinity).
"""
import argparse
import os
import sys
import time


def work() -> float:
    t = time.process_time()
    d = {}
    for i in range(300000):
        d[i % 1000] = d.get(i % 1000, 0) + i
        str(i)
    return (time.process_time() - t) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100, help="repetitions (default 100)")
    ap.add_argument("--pin", type=int, help="run on this CPU only")
    ap.add_argument("--csv", help="write every repetition: t_s,cpu_ms")
    a = ap.parse_args()
    if a.n < 2:
        print("vm_speed: -n must be at least 2", file=sys.stderr)
        return 2
    if a.pin is not None:
        try:
            os.sched_setaffinity(0, {a.pin})
        except (OSError, ValueError) as e:
            print(f"vm_speed: --pin {a.pin}: {e}", file=sys.stderr)
            return 2
    t0 = time.monotonic()
    rows = []
    for _ in range(a.n):
        t = time.monotonic() - t0
        rows.append((t, work()))
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("t_s,cpu_ms\n")
            for t, x in rows:
                f.write(f"{t:.3f},{x:.2f}\n")
    xs = sorted(x for _, x in rows)
    n = len(xs)
    print(f"n {n} min {xs[0]:.1f} p10 {xs[n // 10]:.1f} median {xs[n // 2]:.1f} "
          f"p90 {xs[9 * n // 10]:.1f} max {xs[-1]:.1f} ms (max/min {xs[-1] / xs[0]:.2f}) "
          f"over {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
