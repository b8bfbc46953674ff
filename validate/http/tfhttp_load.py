#!/usr/bin/env python3
"""tfhttp_load: the TigerBench load pattern against a stand-in server.

Replays TigerFans' load generator (bench/load_phases.py upstream) as it runs
in the benchmark: per phase a new httpx.AsyncClient with
Limits(max_connections=C, max_keepalive_connections=C); checkout and reserve
create all `total` requests as tasks at once (asyncio.gather), each waiting
on asyncio.Semaphore(C); webhook and commit run in waves of C (gather of C,
the next wave when the whole wave is done; commit's requests also pass a
Semaphore(C)).  The client does the same per-request work as upstream
(JSON payloads, HMAC-signed webhook events, parsing the answers).

For every (backend latency, concurrency) it starts a fresh server
(tfhttp_server.py, one uvicorn worker), runs the four phases and prints one
CSV row per phase on stdout, flushed at once (a killed run keeps the rows
already printed):

  latency_ms,concurrency,phase,total,ok,errors,walltime,throughput,
  client_cpu,server_cpu,server_requests,server_await,server_conns,
  pool_passes,pool_conns,pool_idle

client_cpu and server_cpu are CPU seconds of the load generator and of the
server process during the phase (process_time of each); server_await the
mean time a request awaited its backend; server_conns the connections the
server accepted during the phase.  pool_passes, pool_conns and pool_idle
describe the client's httpcore pool at its passes (PoolStats below): passes
per request, and the mean connections open and idle at a pass ("nan" when
this httpcore has neither hook); counting them costs the client a few
microseconds per pass, which is measured and left out of client_cpu.  The
first line of stderr is a JSON object with the versions in use.  Exit status: 0 done, 2 bad arguments,
3 a python3 module is missing, 1 the server failed.
"""
import argparse
import asyncio
import base64
import hashlib
import hmac
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time

PHASES = ("checkout", "webhook", "reserve", "commit")
PSID = re.compile(r"/mockpay/([^/?#]+)")
SECRET = b"supersecret"


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    """A fresh tfhttp_server process on a free loopback port."""

    def __init__(self, app: str, python: str, cpu_ms: float = 0.0):
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="tfhttp-")
        ready = os.path.join(self.dir, "ready.json")
        here = os.path.dirname(os.path.abspath(__file__))
        self.proc = subprocess.Popen(
            [python, os.path.join(here, "tfhttp_server.py"), "--port", str(self.port),
             "--app", app, "--cpu-ms", repr(cpu_ms), "--ready-file", ready],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        t0 = time.monotonic()
        while not os.path.exists(ready):
            if self.proc.poll() is not None:
                code = self.proc.returncode
                self.stop()
                raise RuntimeError("server: a python3 module is missing (see above)" if code == 3
                                   else f"server exited with status {code}")
            if time.monotonic() - t0 > 30:
                self.stop()
                raise RuntimeError("server did not start within 30 s")
            time.sleep(0.02)
        with open(ready) as f:
            self.info = json.load(f)
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for n in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, n))
        os.rmdir(self.dir)


async def control(httpx, base: str, path: str) -> dict:
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as c:
        r = await c.get(path)
        r.raise_for_status()
        return r.json()


class PoolStats:
    """Counts the client's httpcore pool at every pass.

    httpcore 0.16 (Debian 12) runs _close_expired_connections under the
    pool lock at each request's start and each response's close (a retry
    after ConnectionNotAvailable skips it); httpcore 1.x runs
    _assign_requests_to_connections at each start, close and retry.  The
    hook wraps whichever the installed httpcore has, counts the pool's
    connections and the idle ones before the pass (on 1.x also the
    requests waiting for a connection: scripts/live_cpu_phases.py
    --pool-stats reports them; the probe's CSV does not), and times itself
    (process_time) so that its own CPU can be taken out of the client's."""

    def __init__(self):
        self.passes = 0
        self.conns = 0
        self.idle = 0
        self.queued = 0
        self.cpu = 0.0
        self.hooked = False

    def reset(self):
        self.passes = self.conns = self.idle = self.queued = 0
        self.cpu = 0.0

    def count(self, conns, requests=()):
        t0 = time.process_time()
        self.passes += 1
        self.conns += len(conns)
        self.idle += sum(1 for c in conns if c.is_idle())
        self.queued += sum(1 for r in requests if r.is_queued())
        self.cpu += time.process_time() - t0

    def install(self):
        try:
            from httpcore._async import connection_pool as cp
        except ImportError:
            return
        pool = getattr(cp, "AsyncConnectionPool", None)
        if pool is None:
            return
        stats = self
        orig16 = getattr(pool, "_close_expired_connections", None)
        orig10 = getattr(pool, "_assign_requests_to_connections", None)
        if orig10 is not None:
            def assign(self_, *a, **k):
                stats.count(getattr(self_, "_connections", ()), getattr(self_, "_requests", ()))
                return orig10(self_, *a, **k)
            pool._assign_requests_to_connections = assign
            self.hooked = True
        elif orig16 is not None:
            async def close_expired(self_, *a, **k):
                stats.count(getattr(self_, "_pool", ()))
                return await orig16(self_, *a, **k)
            pool._close_expired_connections = close_expired
            self.hooked = True


POOL = PoolStats()
TIMEOUT = 10.0  # seconds per request (--timeout)


def sign(payload: bytes) -> str:
    return base64.b64encode(hmac.new(SECRET, payload, hashlib.sha256).digest()).decode()


async def run_phase(httpx, base: str, phase: str, total: int, conc: int, sessions: list):
    """One phase as the benchmark runs it; returns (ok, errors, seconds)."""
    limits = httpx.Limits(max_connections=conc, max_keepalive_connections=conc)
    ok = 0
    errors = 0
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT, limits=limits,
                                 follow_redirects=False) as client:
        sem = asyncio.Semaphore(conc)

        async def checkout(i: int):
            nonlocal ok, errors
            async with sem:
                payload = {"cls": "A" if i % 2 == 0 else "B",
                           "customer_email": f"user{i}-{random.randrange(1_000_000)}@example.com"}
                try:
                    r = await client.post("/api/checkout", json=payload)
                    r.raise_for_status()
                    j = r.json()
                    m = PSID.search(j["redirect_url"] or "")
                    if not m:
                        errors += 1
                        return
                    sessions.append((j["order_id"], m.group(1), j["amount"], j["currency"]))
                    ok += 1
                except Exception:
                    errors += 1

        async def webhook(s):
            nonlocal ok, errors
            kind = "succeeded" if random.random() < 1.0 else "failed"
            event = {"type": f"payment.{kind}", "payment_session_id": s[1],
                     "order_id": s[0], "amount": s[2], "currency": s[3],
                     "created_at": int(time.time()),
                     "idempotency_key": f"evt_{s[1]}_{random.randrange(1_000_000)}"}
            payload = json.dumps(event).encode()
            try:
                r = await client.post(base + "/payments/webhook", content=payload,
                                      headers={"x-mockpay-signature": sign(payload),
                                               "content-type": "application/json"})
                if r.status_code == 200:
                    ok += 1
                else:
                    errors += 1
            except Exception:
                errors += 1

        async def reserve(i: int):
            nonlocal ok, errors
            async with sem:
                try:
                    r = await client.get("/api/accounting/reserve")
                    r.raise_for_status()
                    j = r.json()
                    sessions.append((j["tb_transfer_id"], j["goodie_tb_transfer_id"]))
                    ok += 1
                except Exception:
                    errors += 1

        async def commit(s):
            nonlocal ok, errors
            async with sem:
                try:
                    r = await client.get("/api/accounting/commit",
                                         params={"tb_transfer_id": s[0],
                                                 "goodie_tb_transfer_id": s[1]})
                    r.raise_for_status()
                    j = r.json()
                    j["tb_transfer_id"], j["goodie_tb_transfer_id"]
                    ok += 1
                except Exception:
                    errors += 1

        t0 = time.perf_counter()
        if phase == "checkout":
            await asyncio.gather(*(checkout(i) for i in range(total)))
        elif phase == "reserve":
            await asyncio.gather(*(reserve(i) for i in range(total)))
        else:
            fn = webhook if phase == "webhook" else commit
            work = list(sessions)
            for start in range(0, len(work), conc):
                await asyncio.gather(*(fn(s) for s in work[start:start + conc]))
        dt = time.perf_counter() - t0
    return ok, errors, dt


async def one_run(httpx, base: str, latency_ms: float, conc: int, total: int, phases, out):
    await control(httpx, base, f"/_latency?ms={latency_ms}")
    carts: list = []
    holds: list = []
    for ph in PHASES:
        if ph not in phases:
            continue
        if ph == "webhook" and not carts:
            carts = [("o%d" % i, "ps%d" % i, 100, "eur") for i in range(total)]
        if ph == "commit" and not holds:
            holds = [(str(i), str(i + 1)) for i in range(total)]
        s0 = await control(httpx, base, "/_stats")
        POOL.reset()
        c0 = time.process_time()
        sessions = carts if ph in ("checkout", "webhook") else holds
        if ph in ("checkout", "reserve"):
            sessions.clear()
        ok, err, dt = await run_phase(httpx, base, ph, total, conc, sessions)
        c1 = time.process_time() - POOL.cpu
        # the phase's pool, before the control request's own passes
        nreq = ok + err
        if POOL.hooked and POOL.passes > 0 and nreq > 0:
            pool = (f"{POOL.passes / nreq:.4f},{POOL.conns / POOL.passes:.3f},"
                    f"{POOL.idle / POOL.passes:.3f}")
        else:
            pool = "nan,nan,nan"
        s1 = await control(httpx, base, "/_stats")
        n = s1["requests"] - s0["requests"]
        aw = (s1["await"] - s0["await"]) / n if n > 0 else float("nan")
        # the two /_stats calls' own server work is a few hundred microseconds
        print(f"{latency_ms:g},{conc},{ph},{total},{ok},{err},{dt:.6f},{ok / dt:.4f},"
              f"{c1 - c0:.6f},{s1['cpu'] - s0['cpu']:.6f},{n},{aw:.7f},"
              f"{s1['conns'] - s0['conns'] - 1},{pool}", file=out, flush=True)


def parse_list(s: str, conv):
    try:
        v = [conv(x) for x in s.split(",") if x != ""]
    except ValueError:
        v = []
    return v


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency-ms", default="0", help="backend latencies, comma-separated")
    ap.add_argument("--concurrency", default="1,5,10,20,30,40,50,60,70,80,90,100")
    ap.add_argument("--total", type=int, default=1000)
    ap.add_argument("--phases", default=",".join(PHASES))
    ap.add_argument("--app", default="starlette", choices=["starlette", "asgi", "fastapi"])
    ap.add_argument("--reps", type=int, default=1, help="runs per (latency, concurrency)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=10.0,
                    help="seconds allowed for each request (TigerBench's load_phases.py: 10)")
    ap.add_argument("--server-cpu-ms", type=float, default=0.0,
                    help="CPU ms the stand-in spins per request, in series, before its backend await")
    ap.add_argument("--header", action="store_true", help="print the CSV header first")
    a = ap.parse_args()
    global TIMEOUT
    TIMEOUT = a.timeout
    lats = parse_list(a.latency_ms, float)
    concs = parse_list(a.concurrency, int)
    phases = [p for p in a.phases.split(",") if p]
    if not lats or not concs or any(c < 1 for c in concs) or any(x < 0 for x in lats) \
            or a.total < 1 or a.reps < 1 or not a.timeout > 0 or any(p not in PHASES for p in phases) \
            or not 0 <= a.server_cpu_ms <= 1000:
        print("tfhttp_load: bad --latency-ms, --concurrency, --total, --reps, --timeout, "
              "--server-cpu-ms or --phases",
              file=sys.stderr)
        return 2
    try:
        import httpx
        import httpcore
    except ImportError as e:
        print(f"tfhttp_load: python3 module '{e.name}' is missing "
              f"(Debian: apt-get install python3-{e.name})", file=sys.stderr)
        return 3
    random.seed(a.seed)
    POOL.install()
    if a.header:
        print("latency_ms,concurrency,phase,total,ok,errors,walltime,throughput,"
              "client_cpu,server_cpu,server_requests,server_await,server_conns,"
              "pool_passes,pool_conns,pool_idle", flush=True)
    first = True
    for rep in range(a.reps):
        for lat in lats:
            for conc in concs:
                try:
                    srv = Server(a.app, sys.executable, a.server_cpu_ms)
                except RuntimeError as e:
                    print(f"tfhttp_load: {e}", file=sys.stderr)
                    return 1 if "missing" not in str(e) else 3
                try:
                    if first:
                        info = dict(srv.info)
                        info.update({"httpx": httpx.__version__, "httpcore": httpcore.__version__})
                        print(json.dumps(info), file=sys.stderr, flush=True)
                        first = False
                    asyncio.run(one_run(httpx, srv.base, lat, conc, a.total, phases, sys.stdout))
                finally:
                    srv.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
