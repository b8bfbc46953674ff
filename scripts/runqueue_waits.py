#!/usr/bin/env python3
"""Read a perf scheduler trace of TigerFans under load and print how long
its threads wait for a CPU: what the host model's processor sharing does
not have (README "TigerFans itself, live on this machine", the checks of
2026-12-02).

Record (as root), around one phase:
  perf record -e sched:sched_wakeup -e sched:sched_switch -a -o trace.data
  perf script -i trace.data -F comm,tid,cpu,time,event,trace > trace.txt
Then:
  python3 scripts/runqueue_waits.py trace.txt --server PID --requests N

PID: the server's event-loop thread (uvicorn's process id); N: the requests
the phase made.  Threads are put in classes: the server (that thread),
postgres (comm postgres*), client (other python3* threads: the load
generator), other.  Printed per class, per request: the CPU time, the
wake-ups, and the wait from a wake-up to running on a CPU (median and mean
per wake-up, the sum per request), and the wait of a thread preempted while
runnable until it runs again; then PostgreSQL's wake-ups by what ran on
the CPU they were woken onto (a backend woken onto a CPU that runs another
backend waits for that statement: no wake-up preemption between equals).

A trace can lack the events of a CPU while it idles (on this project's
2-core VM, CPU 1's never appear): wake-ups onto it and the runs that start
from its idle loop are then missing, and the script says which CPUs; the
waits of wake-ups onto busy CPUs, what the model lacks, are unaffected.

Exit status 2 for a file that cannot be read or holds no scheduler event.
"""
import argparse
import re
import sys

WAKE = re.compile(r"sched_wakeup: comm=(.+?) pid=(\d+) prio=\d+ target_cpu=(\d+)")
SWITCH = re.compile(r"prev_comm=(.+?) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> "
                    r"next_comm=(.+?) next_pid=(\d+)")
HEAD = re.compile(r"^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([0-9.]+):")
CLASSES = ("server", "postgres", "client", "other")
RUNNING = ("idle", "server", "postgres", "client", "other")


def klass(tid, comm, server):
    if tid == 0:
        return "idle"
    if tid == server:
        return "server"
    if comm.startswith("postgres"):
        return "postgres"
    if comm.startswith("python3"):
        return "client"
    return "other"


def median(a):
    a = sorted(a)
    return a[len(a) // 2] if a else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--server", type=int, required=True, help="the server's event-loop thread id")
    ap.add_argument("--requests", type=float, required=True, help="requests in the traced phase")
    a = ap.parse_args()
    if not a.requests > 0:
        print("runqueue_waits: --requests must be positive", file=sys.stderr)
        return 2
    try:
        lines = open(a.trace, encoding="utf-8", errors="replace").readlines()
    except OSError as e:
        print("runqueue_waits: %s: %s" % (a.trace, e.strerror), file=sys.stderr)
        return 2
    comm = {}
    on = {}          # tid -> time it went on a CPU
    cur = {}         # cpu -> class running there
    pend = {}        # tid -> (time, preempted, class running on the target CPU)
    cpu_t = {k: 0.0 for k in CLASSES}
    woken = {k: [] for k in CLASSES}
    preempted = {k: [] for k in CLASSES}
    by_running = {k: [] for k in RUNNING}
    t_first = t_last = None
    idle_to = set()     # CPUs some thread switched to idle on
    idle_seen = set()   # CPUs with an event while idle
    for line in lines:
        h = HEAD.match(line)
        if not h:
            continue
        t, cpu = float(h.group(4)), int(h.group(3))
        if h.group(2) == "0":
            idle_seen.add(cpu)
        m = WAKE.search(line)
        if m:
            tid = int(m.group(2))
            comm.setdefault(tid, m.group(1))
            if tid not in pend and tid not in on:
                pend[tid] = (t, False, cur.get(int(m.group(3)), "idle"))
            t_first = t if t_first is None else t_first
            t_last = t
            continue
        m = SWITCH.search(line)
        if not m:
            continue
        t_first = t if t_first is None else t_first
        t_last = t
        prev, nxt = int(m.group(2)), int(m.group(5))
        comm[prev] = m.group(1)
        comm[nxt] = m.group(4)
        if prev in on:
            k = klass(prev, comm[prev], a.server)
            if k in cpu_t:
                cpu_t[k] += t - on.pop(prev)
            else:
                on.pop(prev)
        if prev != 0 and m.group(3).startswith("R"):
            pend[prev] = (t, True, None)
        cur[cpu] = klass(nxt, comm[nxt], a.server)
        if nxt == 0:
            idle_to.add(cpu)
        if nxt in pend:
            t0, was_preempted, running = pend.pop(nxt)
            k = klass(nxt, comm[nxt], a.server)
            if k in woken:
                (preempted if was_preempted else woken)[k].append(t - t0)
                if k == "postgres" and not was_preempted:
                    by_running[running].append(t - t0)
        if nxt != 0:
            on[nxt] = t
    if t_first is None:
        print("runqueue_waits: %s: no sched_wakeup or sched_switch event" % a.trace,
              file=sys.stderr)
        return 2
    n = a.requests
    print("window %.3f s, %.0f requests" % (t_last - t_first, n))
    for k in CLASSES:
        w, p = woken[k], preempted[k]
        print("%s: cpu %.3f ms/request, %.2f wake-ups/request, wake to run median %.0f us, "
              "mean %.0f us, %.3f ms/request; preempted to run %.3f ms/request"
              % (k, 1e3 * cpu_t[k] / n, len(w) / n, 1e6 * median(w),
                 1e6 * sum(w) / len(w) if w else 0.0, 1e3 * sum(w) / n, 1e3 * sum(p) / n))
    tot = sum(len(v) for v in by_running.values())
    parts = []
    for k in RUNNING:
        v = by_running[k]
        if v:
            parts.append("%s %d (%.0f%%, mean %.0f us)" % (k, len(v), 100.0 * len(v) / tot,
                                                          1e6 * sum(v) / len(v)))
    print("postgres wake-ups by what ran on their CPU: " + (", ".join(parts) if parts else "none"))
    for c in sorted(idle_to - idle_seen):
        print("cpu %d: no event while idle (the trace drops them): wake-ups onto it while idle "
              "and the runs they start are not counted" % c)
    return 0


if __name__ == "__main__":
    sys.exit(main())
