#!/usr/bin/env python3
"""pool_pass_cpu: the CPU of the load generator's httpcore pool passes.

Runs validate/http/tfhttp_load.py (the probe's load pattern, the same
arguments: --latency-ms, --concurrency, --total, --phases, ...) with the
pool's pass methods timed (time.process_time around each call):
httpcore 1.x's _assign_requests_to_connections (every start, close and
retry), or 0.16's _close_expired_connections and
_attempt_to_acquire_connection (the work under its pool lock), and the
garbage collector's time inside them (gc.callbacks).  The probe's CSV rows
go to stdout as tfhttp_load.py prints them; after each phase one line goes
to stderr:

  pool: latency_ms=L concurrency=C phase=P passes=N us_per_pass=X
        gc_us_per_pass=G idle=I conns=O requests=R claim_passes=W

passes: the pool's housekeeping passes (as the probe's pool_passes counts
them); us_per_pass: the timed CPU of the phase's pass methods over those
passes; idle, conns, requests: means at a pass of the idle and open
connections and of the requests in the pool's list; claim_passes: the
mean number of passes between a request's assignment to a connection and
its check of that connection (its claim: the connection still free, or
taken by another request it was also assigned to, a retry), over every
claim ("nan" without one).  This is what the model prices with
client.pool_* and what its loop turns (client.pool_yields) decide
(docs/load-generator.md, "The pool's state", "The turns between a pass
and a claim").  Run it with the interpreter (and PYTHONPATH) of the httpcore to
measure; exit status as tfhttp_load.py's.
"""
import asyncio
import gc
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "validate", "http"))


def is_queued(request):
    """A request in the pool's list still without a connection (1.x's
    is_queued(); 0.16's RequestStatus has connection None)."""
    f = getattr(request, "is_queued", None)
    if f is not None:
        return f()
    return getattr(request, "connection", None) is None


class PassClock:
    """Sums the CPU of the pool's pass methods and the state at each pass."""

    def __init__(self, record=False):
        self.record = record  # keep per-pass rows (--passes-csv)
        self.reset()
        self.in_pass = 0
        self.gc_t0 = 0.0
        gc.callbacks.append(self.on_gc)

    def reset(self):
        self.cpu = self.gc = 0.0
        self.passes = self.idle = self.conns = self.requests = 0
        self.assigned = {}  # id(request) -> passes when a pass assigned it a connection
        self.claims = self.claim_passes = 0
        self.rows = []  # per pass: [conns, idle, requests, queued, cpu at the pass]

    def on_gc(self, phase, info):
        if phase == "start":
            self.gc_t0 = time.process_time()
        elif self.in_pass:
            self.gc += time.process_time() - self.gc_t0

    def state(self, conns, requests):
        self.passes += 1
        idle = sum(1 for c in conns if c.is_idle())
        self.conns += len(conns)
        self.idle += idle
        self.requests += len(requests)
        if self.record:  # counted only when asked for: it runs in the measured loop
            queued = sum(1 for r in requests if is_queued(r))
            self.rows.append([len(conns), idle, len(requests), queued, self.cpu])

    def pass_rows(self):
        """Rows of (conns, idle, requests, queued, us): each pass's state
        and the pass methods' CPU until the next pass."""
        out = []
        for k, r in enumerate(self.rows):
            end = self.rows[k + 1][4] if k + 1 < len(self.rows) else self.cpu
            out.append((r[0], r[1], r[2], r[3], (end - r[4]) * 1e6))
        return out

    def assign(self, request):
        """A pass gave request a connection (it claims it a few turns later)."""
        self.assigned[id(request)] = self.passes

    def claim(self, request):
        """request checked the connection it was given: the passes since."""
        t = self.assigned.pop(id(request), None)
        if t is not None:
            self.claims += 1
            self.claim_passes += self.passes - t

    def timed(self, fn):
        """fn(*a) as a synchronous call, its CPU added to the sum."""
        def wrapper(*a, **k):
            self.in_pass += 1
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                self.cpu += time.process_time() - t0
                self.in_pass -= 1
        return wrapper

    def timed_async(self, fn):
        """The same for a coroutine method that does not wait (the pool's)."""
        async def wrapper(*a, **k):
            self.in_pass += 1
            t0 = time.process_time()
            try:
                return await fn(*a, **k)
            finally:
                self.cpu += time.process_time() - t0
                self.in_pass -= 1
        return wrapper


def install_claims(clock, cp):
    """Count the passes between each assignment and its claim: 1.x's
    AsyncPoolRequest (0.16's RequestStatus) records the assignment and a
    retry's clearing, the HTTP/1.1 connection's request headers (sent right
    after a successful state check; for a new connection, after its
    connect) the other claims.  The assignment's record runs inside the
    timed pass: a dict store, well under a microsecond of us_per_pass."""
    from httpcore._async import http11
    holder = getattr(cp, "AsyncPoolRequest", None)
    names = ("assign_to_connection", "clear_connection")
    if holder is None:
        holder, names = getattr(cp, "RequestStatus", None), ("set_connection", "unset_connection")
    headers = getattr(http11.AsyncHTTP11Connection, "_send_request_headers", None)
    if holder is None or headers is None or not all(hasattr(holder, n) for n in names):
        return
    set_conn, unset_conn = getattr(holder, names[0]), getattr(holder, names[1])

    def set_counted(self, *a, **k):
        clock.assign(self.request)
        return set_conn(self, *a, **k)

    def unset_counted(self, *a, **k):  # ConnectionNotAvailable: a failed claim
        clock.claim(self.request)
        return unset_conn(self, *a, **k)

    async def headers_counted(self, request, *a, **k):
        clock.claim(request)
        return await headers(self, request, *a, **k)
    setattr(holder, names[0], set_counted)
    setattr(holder, names[1], unset_counted)
    http11.AsyncHTTP11Connection._send_request_headers = headers_counted


def install(clock):
    """Wrap the installed httpcore's pass methods; False if it has none."""
    from httpcore._async import connection_pool as cp
    install_claims(clock, cp)
    pool = cp.AsyncConnectionPool
    assign = getattr(pool, "_assign_requests_to_connections", None)
    if assign is not None:  # 1.x
        timed = clock.timed(assign)

        def assign_counted(self, *a, **k):
            clock.state(self._connections, self._requests)
            return timed(self, *a, **k)
        pool._assign_requests_to_connections = assign_counted
        return True
    close = getattr(pool, "_close_expired_connections", None)
    acquire = getattr(pool, "_attempt_to_acquire_connection", None)
    if close is None or acquire is None:
        return False
    timed_close = clock.timed_async(close)

    async def close_counted(self, *a, **k):  # 0.16: once per start and close
        clock.state(self._pool, self._requests)
        return await timed_close(self, *a, **k)
    pool._close_expired_connections = close_counted
    pool._attempt_to_acquire_connection = clock.timed_async(acquire)
    return True


def take_passes_csv(argv):
    """Removes --passes-csv FILE (or --passes-csv=FILE) from argv and
    returns FILE; None without the flag; ValueError for the flag without
    a file."""
    for k, a in enumerate(argv):
        if a == "--passes-csv":
            if k + 1 >= len(argv) or argv[k + 1].startswith("--"):
                raise ValueError("--passes-csv needs a file")
            f = argv[k + 1]
            del argv[k:k + 2]
            return f
        if a.startswith("--passes-csv="):
            del argv[k]
            f = a.split("=", 1)[1]
            if not f:
                raise ValueError("--passes-csv needs a file")
            return f
    return None


def main() -> int:
    import tfhttp_load
    argv = sys.argv[1:]
    try:
        passes_csv = take_passes_csv(argv)
    except ValueError as e:
        print(f"pool_pass_cpu: {e}", file=sys.stderr)
        return 2
    if passes_csv is not None:
        try:  # fail before the run, not after it
            with open(passes_csv, "a", encoding="ascii") as f:
                if f.tell() == 0:
                    f.write("concurrency,phase,conns,idle,requests,queued,us\n")
        except OSError as e:
            print(f"pool_pass_cpu: --passes-csv {passes_csv}: {e.strerror}", file=sys.stderr)
            return 2
    try:
        import httpcore  # noqa: F401
    except ImportError as e:
        print(f"pool_pass_cpu: python3 module '{e.name}' is missing", file=sys.stderr)
        return 3
    clock = PassClock(record=passes_csv is not None)
    if not install(clock):
        print("pool_pass_cpu: this httpcore has no pass method to time", file=sys.stderr)
        return 3
    run_phase = tfhttp_load.run_phase

    async def timed_phase(httpx, base, phase, total, conc, sessions):
        clock.reset()
        out = await run_phase(httpx, base, phase, total, conc, sessions)
        n = max(clock.passes, 1)
        lat = tfhttp_load_args.get("lat", "?")
        print(f"pool: latency_ms={lat} concurrency={conc} phase={phase} passes={clock.passes} "
              f"us_per_pass={clock.cpu / n * 1e6:.1f} gc_us_per_pass={clock.gc / n * 1e6:.1f} "
              f"idle={clock.idle / n:.2f} conns={clock.conns / n:.2f} "
              f"requests={clock.requests / n:.2f} claim_passes="
              f"{clock.claim_passes / clock.claims if clock.claims else float('nan'):.2f}",
              file=sys.stderr, flush=True)
        nonlocal passes_csv
        if passes_csv is not None:
            try:
                with open(passes_csv, "a", encoding="ascii") as f:
                    for r in clock.pass_rows():
                        f.write(f"{conc},{phase},{r[0]},{r[1]},{r[2]},{r[3]},{r[4]:.2f}\n")
            except OSError as e:  # the probe's rows go on; the per-pass file stops here
                print(f"pool_pass_cpu: --passes-csv {passes_csv}: {e.strerror}; "
                      "no more rows written to it", file=sys.stderr, flush=True)
                passes_csv = None
        return out
    tfhttp_load.run_phase = timed_phase

    one_run = tfhttp_load.one_run

    async def one_run_noted(httpx, base, latency_ms, *a, **k):
        tfhttp_load_args["lat"] = f"{latency_ms:g}"
        return await one_run(httpx, base, latency_ms, *a, **k)
    tfhttp_load.one_run = one_run_noted
    sys.argv = ["tfhttp_load.py"] + argv
    return tfhttp_load.main()


tfhttp_load_args = {}

if __name__ == "__main__":
    sys.exit(main())
