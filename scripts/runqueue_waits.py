#!/usr/bin/env python3
"""Read a perf scheduler trace of TigerFans under load and print how long
its threads wait for a CPU: what the host model's processor sharing does
not have (docs/live-tigerfans.md "TigerFans itself, live on this machine", the checks of
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
Last, how much CPU the host loses to threads stacked on one CPU while
another idles (the model's `host.stacking`): the share of the time some CPU
idles while a thread waits on another, the cores lost (at each instant, the
idle CPUs that a waiting thread could have used), and what placing the same
runnable threads on the CPUs at random would lose (min(m, K) - K (1 - (1 -
1/K)^m) for m runnable threads on K CPUs), and their ratio.

A trace can lack the events of a CPU while it idles (on this project's
2-core VM, CPU 1's never appear): wake-ups onto it and the runs that start
from its idle loop are then missing, and the script says which CPUs; the
waits of wake-ups onto busy CPUs, what the model lacks, are unaffected.
For the stacking figures such a CPU counts as busy from the first event
recorded on it, or the first wake-up aimed at it, after it went idle (a
thread woken onto an idle CPU runs at once); every CPU counts from its first
event (before it, neither busy nor idle).

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
    # stacking: per CPU (from its first event) busy or idle, and the
    # threads waiting on it; time-weighted cores lost and runnable threads
    busy = {}
    waiting = {}
    st = {"lost": 0.0, "stacked": 0.0, "t": None, "m": {}}

    def account(t):
        if st["t"] is not None and t > st["t"]:
            d = t - st["t"]
            idle = sum(1 for c in busy if not busy[c])
            w = sum(len(v) for c, v in waiting.items() if busy.get(c, True))
            m = sum(1 for c in busy if busy[c]) + w
            st["m"][m] = st["m"].get(m, 0.0) + d
            if idle and w:
                st["lost"] += d * min(idle, w)
                st["stacked"] += d
        st["t"] = t

    for line in lines:
        h = HEAD.match(line)
        if not h:
            continue
        t, cpu = float(h.group(4)), int(h.group(3))
        wake = WAKE.search(line)
        sw = None if wake else SWITCH.search(line)
        if wake or sw:
            account(t)
            busy.setdefault(cpu, True)
            waiting.setdefault(cpu, set())
            if h.group(2) != "0":
                busy[cpu] = True  # an event from a thread: the CPU runs it (a switch sets it below)
        if h.group(2) == "0":
            idle_seen.add(cpu)
        m = wake
        if m:
            tid = int(m.group(2))
            comm.setdefault(tid, m.group(1))
            if tid not in pend and tid not in on:
                pend[tid] = (t, False, cur.get(int(m.group(3)), "idle"))
            tc = int(m.group(3))
            busy.setdefault(tc, True)
            waiting.setdefault(tc, set())
            if not busy[tc]:
                busy[tc] = True   # onto an idle CPU: it runs at once
            elif tid not in on:
                waiting[tc].add(tid)
            t_first = t if t_first is None else t_first
            t_last = t
            continue
        m = sw
        if not m:
            continue
        t_first = t if t_first is None else t_first
        t_last = t
        for v in waiting.values():
            v.discard(int(m.group(5)))
        if int(m.group(2)) != 0 and m.group(3).startswith("R"):
            waiting[cpu].add(int(m.group(2)))
        busy[cpu] = int(m.group(5)) != 0
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
    k = len(busy)
    tot = sum(st["m"].values())
    if tot > 0 and k > 1:
        rand = sum(d * (min(m, k) - k * (1 - (1 - 1.0 / k) ** m)) for m, d in st["m"].items())
        print("stacking: a CPU idle while another has a thread waiting %.1f%% of the time, "
              "%.3f cores lost; random placement of the same runnable threads on %d CPUs: %.3f; "
              "ratio %.2f" % (100 * st["stacked"] / tot, st["lost"] / tot, k, rand / tot,
                              st["lost"] / rand if rand > 0 else 0.0))
    for c in sorted(idle_to - idle_seen):
        print("cpu %d: no event while idle (the trace drops them): wake-ups onto it while idle "
              "and the runs they start are not counted" % c)
    return 0


if __name__ == "__main__":
    sys.exit(main())
