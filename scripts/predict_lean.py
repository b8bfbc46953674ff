#!/usr/bin/env python3
"""predict_lean: where `tfsim predict` leans over several series, per phase
and concurrency: the mean signed error of the points, how many were more
than 15% off, and how many there were.

  python3 scripts/predict_lean.py [--min-concurrency C] [--by-file] PREDICT.csv...

Each PREDICT.csv is the output of `tfsim predict ... --format csv` on one
series (columns phase, concurrency, error_pct; rows without a measured
point, error_pct empty, are skipped).  A point's error is (simulated /
measured - 1) x 100, as predict prints it: positive is a prediction too
fast.  Points below --min-concurrency (default 5, as predict's MAPE line)
are left out; --by-file also prints each file's MAPE of the points kept,
which is predict's own.  One series' scatter averages out over many; what
stays is the model's lean, the thing to explain before trusting a point.

Prints one line per phase (checkout, reserve, webhook, commit; others
after them in the order read), one column per concurrency:
`mean(over/n)`, mean in percent with one decimal, `over` the points more
than 15% off either way.  The standard library only.
Exit status: 0 done; 2 a file, column or value that cannot be read, or
no point at all.
"""
import argparse
import csv
import math
import sys

PHASES = ("checkout", "reserve", "webhook", "commit")


def die(msg):
    print(f"predict_lean: {msg}", file=sys.stderr)
    sys.exit(2)


def read(path, cmin):
    """(phase, concurrency, error) of every measured point at cmin and up."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rd = csv.DictReader(f)
            rows = list(rd)
            cols = rd.fieldnames or []
    except OSError as e:
        die(f"{path}: {e.strerror}")
    for col in ("phase", "concurrency", "error_pct"):
        if col not in cols:
            die(f"{path}: no column {col}")
    out = []
    for n, r in enumerate(rows, start=2):
        if any(r.get(col) is None for col in ("phase", "concurrency", "error_pct")):
            die(f"{path}:{n}: fewer fields than the header's")
        if r["error_pct"] == "":
            continue
        try:
            c = int(r["concurrency"])
        except ValueError:
            die(f"{path}:{n}: concurrency: '{r['concurrency']}' is not a whole number")
        try:
            e = float(r["error_pct"])
        except ValueError:
            die(f"{path}:{n}: error_pct: '{r['error_pct']}' is not a number")
        if math.isnan(e):
            continue
        if c >= cmin:
            out.append((r["phase"], c, e))
    return out


def main():
    ap = argparse.ArgumentParser(description="where tfsim predict leans over several series")
    ap.add_argument("files", nargs="+", help="tfsim predict --format csv outputs")
    ap.add_argument("--min-concurrency", type=int, default=5,
                    help="points at this concurrency and up (default 5)")
    ap.add_argument("--by-file", action="store_true", help="also each file's MAPE")
    a = ap.parse_args()
    cells, phases, concs = {}, [], set()
    for path in a.files:
        pts = read(path, a.min_concurrency)
        if a.by_file and pts:
            mape = sum(abs(e) for _, _, e in pts) / len(pts)
            print(f"{path}: MAPE {mape:.1f}% ({len(pts)} points)")
        for ph, c, e in pts:
            if ph not in phases:
                phases.append(ph)
            concs.add(c)
            cells.setdefault((ph, c), []).append(e)
    if not cells:
        die("no measured point at --min-concurrency and up")
    order = [p for p in PHASES if p in phases] + [p for p in phases if p not in PHASES]
    concs = sorted(concs)
    print("phase     " + "".join(f"{c:>15}" for c in concs))
    for ph in order:
        line = f"{ph:<10}"
        for c in concs:
            v = cells.get((ph, c))
            if not v:
                line += f"{'-':>15}"
                continue
            over = sum(abs(e) > 15 for e in v)
            line += f"{f'{sum(v) / len(v):+.1f}({over}/{len(v)})':>15}"
        print(line)
    allv = [e for v in cells.values() for e in v]
    print(f"points {len(allv)}: mean {sum(allv) / len(allv):+.1f}%, "
          f"absolute {sum(abs(e) for e in allv) / len(allv):.1f}%, "
          f"{sum(abs(e) > 15 for e in allv)} more than 15% off")


if __name__ == "__main__":
    main()
