#!/usr/bin/env python3
"""Read a perf trace and print how the PostgreSQL backends that one
PostgreSQL process wakes together (the waiters of a WAL flush, or of a
lock) come back: postgres.commit_tail is measured from it
(docs/validation.md, "A COMMIT's tail").

Record (as root), around the run to study:
  perf record -e sched:sched_switch -e sched:sched_wakeup -a -o trace.data
  perf script -i trace.data -F comm,tid,cpu,time,event,trace > trace.txt
Then:
  python3 scripts/pg_wake_groups.py trace.txt [--within US] [--comm NAME]

A group is a burst of wake-ups of NAME processes (default postgres) by
one NAME process, each within US microseconds (default 50) of the one
before.  For each woken process, the time it next switches out (it has
finished, sent its reply and blocks again).  Printed per group size n
(2 or more): the groups, the mean and median gap between consecutive
wakees' next switch-out ((last - first) / (n - 1)), and the median time
from the burst's first wake-up to the first switch-out; then the mean gap
over the groups of 3 or more (one line, "groups of 3+").  Exit status 2
when the file cannot be read or holds no group.
"""
import argparse
import bisect
import collections
import re
import sys

LINE = re.compile(r'^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$')
KV = re.compile(r'(\w+)=(\S+)')


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('trace')
    ap.add_argument('--within', type=float, default=50, help='us between a burst\'s wake-ups')
    ap.add_argument('--comm', default='postgres')
    a = ap.parse_args()
    try:
        f = open(a.trace)
    except OSError as e:
        print(f'pg_wake_groups: {a.trace}: {e.strerror}', file=sys.stderr)
        return 2
    within = a.within * 1e-6
    outs = collections.defaultdict(list)  # pid -> its switch-out times
    groups, cur = [], None                # cur: [waker, [(t, wakee)], last t]
    with f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            comm, tid, t, ev, rest = m.group(1), int(m.group(2)), float(m.group(4)), m.group(5), m.group(6)
            if ev == 'sched:sched_switch':
                kv = dict(KV.findall(rest.replace('==>', ' ')))
                outs[int(kv['prev_pid'])].append(t)
            elif ev == 'sched:sched_wakeup' and comm == a.comm:
                kv = dict(KV.findall(rest))
                if kv.get('comm') != a.comm:
                    continue
                if cur and cur[0] == tid and t - cur[2] <= within:
                    cur[1].append((t, int(kv['pid'])))
                    cur[2] = t
                    continue
                if cur and len(cur[1]) >= 2:
                    groups.append(cur)
                cur = [tid, [(t, int(kv['pid']))], t]
    if cur and len(cur[1]) >= 2:
        groups.append(cur)
    gaps, firsts = collections.defaultdict(list), collections.defaultdict(list)
    for _, woken, _ in groups:
        t0 = woken[0][0]
        back = []
        for t, pid in woken:
            i = bisect.bisect_right(outs[pid], t)
            if i < len(outs[pid]):
                back.append(outs[pid][i] - t0)
        if len(back) >= 2:
            back.sort()
            n = len(back)
            gaps[n].append((back[-1] - back[0]) / (n - 1))
            firsts[n].append(back[0])
    if not gaps:
        print(f'pg_wake_groups: {a.trace}: no burst of {a.comm} wake-ups by one {a.comm} process',
              file=sys.stderr)
        return 2
    for n in sorted(gaps):
        g = gaps[n]
        print(f'n={n} groups {len(g)}: gap {1e6 * sum(g) / len(g):.0f} us mean, '
              f'{1e6 * median(g):.0f} us median; first back after {1e6 * median(firsts[n]):.0f} us')
    big = [x for n in gaps if n >= 3 for x in gaps[n]]
    if big:
        print(f'groups of 3+: {len(big)}, gap {1e6 * sum(big) / len(big):.0f} us mean')
    return 0


if __name__ == '__main__':
    sys.exit(main())
