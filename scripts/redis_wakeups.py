#!/usr/bin/env python3
"""Read a perf trace of a Redis server and the event loop that talks to it,
and print what tfsim's Redis wake-up rules are measured from
(redis.wake_wait, host.wake_affine; docs/live-tigerfans.md "TigerFans itself, live on this
machine").

Record (as root), around the phase to study:
  perf record -e syscalls:sys_exit_epoll_wait -e sched:sched_switch \\
      -e sched:sched_wakeup -e sched:sched_migrate_task -a -o trace.data
  perf script -i trace.data -F comm,tid,cpu,time,event,trace > trace.txt
Then:
  python3 scripts/redis_wakeups.py trace.txt --redis PID --server PID

PID: Redis's main thread (its process id) and the thread that sends it
commands (TigerFans' server process).  The window is from Redis's first to
its last event-loop cycle with a ready client.  Printed:
  cycles      event-loop cycles by ready clients (epoll_wait's return), and
              those with 8 or more (what starts 4 I/O threads)
  wakeups     Redis's wake-ups by the server: onto the CPU the server was
              running on, or another; the wait from wake-up to running
              (median, p90) for each; and split by whether a CPU besides
              the server's was idle at the wake-up (the idle task
              running there) or every other CPU was busy: how many went
              onto another CPU in each case
  waits       the share of those wake-ups that waited over 0.25, 0.5, 1 and
              2 ms, outside the I/O threads' episodes
  episodes    stretches with an I/O thread (comm io_thd_*) running, gaps
              under 2 ms merged: count, median and longest, share of the
              window
  runs        runs of consecutive cycles with 8 or more ready clients (the
              I/O threads on, as Redis starts and stops them): count, the
              cycles in them and their median length (epoll_wait's return
              to the next), share of the window, share of the ready
              clients served in them (what INFO's io_threaded_writes_processed
              counts), and the cores Redis's threads (main and io_thd_*) ran
              during them (host.redis_cores)
  wake_wait   twice the share of waits over 2 ms: tfsim's redis.wake_wait,
              whose waits last to the next 4 ms tick (half of them over 2 ms)
  placement   where Redis sits: the share of its wake-ups by the server
              onto the CPU it last ran on (its previous CPU); the share
              of the window it sat on the server's CPU (each one's CPU:
              where it last ran, or where a migration put it), the
              spells in and out and their mean length in time, and the
              cycles with 8 or more ready clients in each; then the
              spells on the clock of idle CPUs (the idle task running):
              the idle CPU time in each state over the spells that ended
              in it, and the share and mean they give
              (host.redis_affine_share, host.affine_period)
Exit status 2 when the file cannot be read or holds no cycle of Redis.
"""
import argparse
import bisect
import re
import sys

LINE = re.compile(r'^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$')


def quantile(xs, q):
    xs = sorted(xs)
    return xs[int(q * (len(xs) - 1))] if xs else float('nan')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('trace')
    ap.add_argument('--redis', type=int, required=True, help="Redis's main thread id")
    ap.add_argument('--server', type=int, required=True, help='the sending thread id')
    a = ap.parse_args()
    ev = []
    try:
        with open(a.trace) as f:
            for line in f:
                m = LINE.match(line)
                if m:
                    comm, tid, cpu, t, e, tr = m.groups()
                    ev.append((float(t), int(tid), int(cpu), e, tr))
    except OSError as e:
        print(f'redis_wakeups: {a.trace}: {e.strerror}', file=sys.stderr)
        return 2
    ready = [(t, int(tr.split()[-1], 16)) for t, tid, c, e, tr in ev
             if tid == a.redis and e.endswith('epoll_wait') and tr.split()
             and re.fullmatch(r'0x[0-9a-f]+', tr.split()[-1])]
    busy = [t for t, n in ready if n > 0]
    if not busy:
        print(f'redis_wakeups: {a.trace}: no event-loop cycle of thread {a.redis} '
              '(sys_exit_epoll_wait with a ready client)', file=sys.stderr)
        return 2
    t0, t1 = busy[0], busy[-1]
    sizes = [n for t, n in ready if t0 <= t <= t1 and n > 0]
    # I/O threads' episodes
    running, iv, main_iv = {}, [], []
    for t, tid, c, e, tr in ev:
        if e != 'sched:sched_switch':
            continue
        m = re.search(r'prev_comm=(.*?) prev_pid=(\d+) .*next_comm=(.*?) next_pid=(\d+)', tr)
        if not m:
            continue
        pc, pp, nc, npid = m.group(1), int(m.group(2)), m.group(3), int(m.group(4))
        if (pc.startswith('io_thd') or pp == a.redis) and pp in running:
            (main_iv if pp == a.redis else iv).append((running.pop(pp), t))
        if nc.startswith('io_thd') or npid == a.redis:
            running[npid] = t
    eps = []
    for s, e in sorted(x for x in iv if t0 <= x[0] <= t1):
        if eps and s <= eps[-1][1] + 0.002:
            eps[-1][1] = max(eps[-1][1], e)
        else:
            eps.append([s, e])
    starts = [e[0] for e in eps]

    def in_episode(t):
        i = bisect.bisect_right(starts, t) - 1
        return i >= 0 and t <= eps[i][1] + 0.001
    # one pass over the events:
    # - Redis's wake-ups by the server: onto its CPU or another, and the
    #   wait to running; split by whether a CPU besides the waker's was
    #   idle or none was: [onto the waker's CPU, onto another];
    # - placement: each thread's CPU (where it last ran, or where a
    #   migration put it); Redis's wake-ups onto its previous CPU; the
    #   time it shared the server's CPU, its spells in and out, and the
    #   cycles of 8+ in and out of it; the placement's clock: idle CPU
    #   time (the idle task on a CPU) in each state, and the spells that
    #   ended in it
    on_cpu, woken = {}, None
    same, other, outside = [], [], []
    split = {True: [0, 0], False: [0, 0]}
    where, ran, prev_ok, prev_n = {}, {}, 0, 0
    shared, state, t_last = 0.0, None, None
    spells, spell_t = 0, None  # spells from t0 on; when the current one began
    idle_cpu, ended = {True: 0.0, False: 0.0}, {True: 0, False: 0}
    big = {True: [0, 0], False: [0, 0]}
    for t, tid, c, e, tr in ev:
        if state is not None and t >= t0 and t_last is not None and t_last <= t1:
            if not spells:
                spells, spell_t = 1, t0
            dt = min(t, t1) - max(t_last, t0)
            if state:
                shared += dt
            idle_cpu[state] += dt * sum(1 for p in on_cpu.values() if p == 0)
        if state is not None and t0 <= t <= t1 and tid == a.redis and e.endswith('epoll_wait') \
                and tr.split() and re.fullmatch(r'0x[0-9a-f]+', tr.split()[-1]):
            n = int(tr.split()[-1], 16)
            if n > 0:
                big[state][0] += 1
                big[state][1] += n >= 8
        t_last = t
        if e == 'sched:sched_switch':
            m = re.search(r'prev_pid=(\d+) .*next_pid=(\d+)', tr)
            if m:
                nxt = int(m.group(2))
                on_cpu[c] = nxt
                if woken and nxt == a.redis:
                    tw, here = woken
                    (same if here else other).append(t - tw)
                    if not in_episode(tw):
                        outside.append(t - tw)
                    woken = None
                for pid in (int(m.group(1)), nxt):
                    if pid in (a.redis, a.server):
                        where[pid] = ran[pid] = c
        elif e == 'sched:sched_migrate_task':
            m = re.search(r' pid=(\d+) .*dest_cpu=(\d+)', ' ' + tr)
            if m and int(m.group(1)) in (a.redis, a.server):
                where[int(m.group(1))] = int(m.group(2))
        elif e == 'sched:sched_wakeup' and t0 <= t <= t1 and tid == a.server:
            m = re.search(r' pid=(\d+) .*target_cpu=(\d+)', ' ' + tr)
            if m and int(m.group(1)) == a.redis:
                woken = (t, on_cpu.get(int(m.group(2))) == a.server)
                # the waker's CPU is where the server runs (not the event's
                # CPU: a wake-up may be traced on its target); 0 is the idle
                # task; a CPU not yet seen in a switch counts as busy
                home = [k for k, p in on_cpu.items() if p == a.server]
                if home:
                    idle = any(p == 0 for k, p in on_cpu.items() if k != home[0])
                    split[idle][0 if woken[1] else 1] += 1
                if a.redis in ran:
                    prev_n += 1
                    prev_ok += int(m.group(2)) == ran[a.redis]
        if a.redis in where and a.server in where:
            now = where[a.redis] == where[a.server]
            if now != state and t0 <= t <= t1:
                if not spells and state is not None:
                    spells, spell_t = 1, t0
                if not (spells and spell_t == t):  # a spell of no length is replaced
                    spells += 1
                spell_t = t
                if state is not None:
                    ended[state] += 1
            state = now
    print(f'window {t1 - t0:.3f} s')
    print(f'cycles {len(sizes)}: 1 client {sizes.count(1)}, 2-7 '
          f'{sum(1 for n in sizes if 2 <= n <= 7)}, 8 or more {sum(1 for n in sizes if n >= 8)}')
    for name, xs in (('onto the server\'s CPU', same), ('onto another CPU', other)):
        print(f'wakeups {name}: {len(xs)}, wait median {1e6 * quantile(xs, .5):.0f} us, '
              f'p90 {1e6 * quantile(xs, .9):.0f} us')
    for idle, what in ((True, 'another CPU idle'), (False, 'every other CPU busy')):
        n = sum(split[idle])
        if n:
            print(f'wakeups with {what}: {n}, onto another CPU {split[idle][1]} '
                  f'({split[idle][1] / n:.3f})')
    if outside:
        print('waits outside episodes (' + str(len(outside)) + '): ' + ', '.join(
            f'> {x:g} ms {sum(1 for w in outside if w > x / 1e3) / len(outside):.4f}'
            for x in (0.25, 0.5, 1, 2)))
    d = sorted(e - s for s, e in eps)
    if d:
        print(f'episodes {len(d)}: median {1e3 * quantile(d, .5):.1f} ms, longest '
              f'{1e3 * d[-1]:.1f} ms, {sum(d) / (t1 - t0):.3f} of the window')
    else:
        print('episodes 0')
    # runs of cycles with 8 or more ready clients
    cyc = [(t, n) for t, n in ready if t0 <= t <= t1 and n > 0]
    runs, start, k = [], None, 0
    for i, (t, n) in enumerate(cyc):
        if n >= 8 and start is None:
            start, k = t, 0
        if n >= 8:
            k += 1
        elif start is not None:
            runs.append((start, t, k))
            start = None
    lens = [cyc[i + 1][0] - cyc[i][0] for i in range(len(cyc) - 1) if cyc[i][1] >= 8]
    if runs:
        span = sum(e - s for s, e, k in runs)
        on = sum(min(e, y) - max(s, x) for x, y in iv + main_iv for s, e, k in runs
                 if min(e, y) > max(s, x))
        served = sum(n for t, n in cyc if n >= 8 and any(s <= t < e for s, e, k in runs))
        print(f'runs of 8+ cycles {len(runs)}: {sum(k for s, e, k in runs)} cycles, median '
              f'{1e3 * quantile(lens, .5):.1f} ms each, {span / (t1 - t0):.3f} of the window, '
              f'{served / sum(sizes):.3f} of the clients; Redis ran {on / span:.2f} cores in them')
    else:
        print('runs of 8+ cycles 0')
    if outside:
        print(f'wake_wait {2 * sum(1 for w in outside if w > 0.002) / len(outside):.4f}')
    if prev_n:
        print(f'wakeups onto Redis\'s previous CPU: {prev_ok} of {prev_n} ({prev_ok / prev_n:.3f})')
    if spells:
        print(f'Redis on the server\'s CPU {shared / (t1 - t0):.3f} of the window, {spells} spells '
              f'in and out, mean {1e3 * (t1 - t0) / spells:.1f} ms; cycles of 8+: '
              f'{big[True][1]} of {big[True][0]} while on it, {big[False][1]} of {big[False][0]} apart')
        # the spells on the clock of idle CPUs (the model's): idle CPU
        # time in each state over the spells that ended in it
        if ended[True] and ended[False]:
            on, off = idle_cpu[True] / ended[True], idle_cpu[False] / ended[False]
            print(f'spells on the idle CPUs\' clock: on the server\'s CPU {ended[True]} ended, '
                  f'{1e3 * idle_cpu[True]:.1f} ms of idle CPU (mean {1e3 * on:.2f} ms); apart '
                  f'{ended[False]} ended, {1e3 * idle_cpu[False]:.1f} ms (mean {1e3 * off:.2f} ms) '
                  f'(host.redis_affine_share {on / (on + off):.3f}, host.affine_period '
                  f'{1e3 * (on + off) / 2:.2f} ms)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
