#!/usr/bin/env python3
"""Measure how much CPU a Python client spends per command when its code
ran recently (warm) or not (cold): what server.cold is measured from
(docs/live-tigerfans.md, "a Python loop is slow after it idled").

  python3 scripts/cold_paths.py redis SOCKET [--gaps 0,1,2,4,8,16] [-n 300] [--busy]
      TigerFans' session commands through redis.asyncio (Debian's
      python3-redis), one connection: save (MULTI, HSET of 11 fields,
      EXPIRE, ZADD, EXEC), gap, get (HGETALL), two SET NX, gap, remove
      (MULTI, ZREM, DEL, EXEC), gap; per gap, the median CPU
      (time.process_time) and wall time of each command.  --busy spends
      each gap in other Python work instead of asyncio.sleep.
  python3 scripts/cold_paths.py redis-load SOCKET [--clients 1,2,5,10,20] [--gap 2.4] [-n 300]
      the same commands from N coroutines at once: CPU per command.
  python3 scripts/cold_paths.py redis-turns SOCKET [-n 30] [--parser hiredis|python]
      how many turns of a busy asyncio loop (each turn 2 ms of other work,
      so that a round trip fits in one) each step of a redis.asyncio
      command waits: the pool's get_connection (its connection check), the
      send, the reply's read, and the whole GET; with socket_timeout unset
      and 2.0 (TigerFans' setting); medians (what redis.pool_turns and
      redis.send_turns are measured from).
  python3 scripts/cold_paths.py pg-turns HOST PORT [-n 30] [--user postgres]
      the same busy loop: the turns of asyncio.sleep(0), of an asyncpg
      fetchval and of an UPDATE (what server.io_turns is measured from).
  python3 scripts/cold_paths.py pg HOST PORT [--gaps ...] [-n 300] [--user postgres]
      BEGIN, UPDATE by key, COMMIT through asyncpg (Debian's
      python3-asyncpg) on one connection, in a table cold_paths it makes
      and drops (in --database): the
      backend's CPU (/proc/PID/schedstat; the backend must run on this
      machine) and the client's, medians per gap.

Prints one line per gap (or client count).  Exit status 2 when a package
is missing or the server cannot be reached.
"""
import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid

FIELDS = {"order_id": "o" * 36, "cls": "A", "qty": "1", "amount": "6500", "currency": "eur",
          "customer_email": "x@y.z", "tb_transfer_id": "1" * 30, "goodie_tb_transfer_id": "0",
          "try_goodie": "1", "created_at": "1", "status": "PENDING"}
KINDS = ("save", "get", "setnx", "setnx2", "remove")
BUSY_DATA = [{"k%d" % i: list(range(20)), "s": "x" * 50} for i in range(200)]


def die(msg):
    print(f"cold_paths: {msg}", file=sys.stderr)
    sys.exit(2)


async def pause(ms, busy):
    if ms <= 0:
        return
    if not busy:
        await asyncio.sleep(ms / 1e3)
        return
    t = time.perf_counter()
    while time.perf_counter() - t < ms / 1e3:
        json.loads(json.dumps(BUSY_DATA))


async def session(r, gap, busy, out=None):
    """One session's five commands; out[kind] gets (cpu, wall) per command."""
    p = uuid.uuid4().hex

    async def timed(kind, coro_fn):
        c0, w0 = time.process_time(), time.perf_counter()
        await coro_fn()
        if out is not None:
            out[kind].append((time.process_time() - c0, time.perf_counter() - w0))

    async def save():
        pipe = r.pipeline(transaction=True)
        pipe.hset("ps:" + p, mapping=FIELDS)
        pipe.expire("ps:" + p, 960)
        pipe.zadd("pendings", {p: 1.0})
        await pipe.execute()

    async def remove():
        pipe = r.pipeline(transaction=True)
        pipe.zrem("pendings", p)
        pipe.delete("ps:" + p)
        await pipe.execute()

    await timed("save", save)
    await pause(gap, busy)
    await timed("get", lambda: r.hgetall("ps:" + p))
    await timed("setnx", lambda: r.set("fulfill:" + p, "1", nx=True, ex=60))
    await timed("setnx2", lambda: r.set("idemp:" + p, "1", nx=True, ex=60))
    await pause(gap, busy)
    await timed("remove", remove)
    await pause(gap, busy)


async def redis_client(sock):
    try:
        import redis.asyncio as aioredis
    except ImportError:
        die("python3-redis is missing (apt-get install python3-redis)")
    r = aioredis.Redis(unix_socket_path=sock, decode_responses=True, max_connections=512)
    try:
        await r.ping()
    except Exception as e:  # the client's own error types vary by version
        die(f"redis at {sock}: {e}")
    return r


async def run_redis(a):
    r = await redis_client(a.socket)
    for gap in a.gaps:
        out = {k: [] for k in KINDS}
        for _ in range(a.n):
            await session(r, gap, a.busy, out)
        cells = "  ".join("%s cpu %.0f wall %.0f" % (k, statistics.median(c for c, w in v) * 1e6,
                                                    statistics.median(w for c, w in v) * 1e6)
                          for k, v in out.items())
        print("%s gap %g ms: %s (us, medians of %d)" % ("busy" if a.busy else "sleep", gap, cells, a.n))


async def run_redis_load(a):
    r = await redis_client(a.socket)
    for n in a.clients:
        await asyncio.gather(*[session(r, a.gap, False) for _ in range(n)])  # connections
        per = max(1, a.n // n)
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(per):
            await asyncio.gather(*[session(r, a.gap, False) for _ in range(n)])
        c1, w1 = time.process_time(), time.perf_counter()
        cmds = len(KINDS) * n * per
        print("clients %d gap %g ms: cpu per command %.1f us, %.0f commands/s"
              % (n, a.gap, (c1 - c0) / cmds * 1e6, cmds / (w1 - w0)))


async def pg_client(a):
    try:
        import asyncpg
    except ImportError:
        die("python3-asyncpg is missing (apt-get install python3-asyncpg)")
    try:
        return await asyncpg.connect(host=a.host, port=a.port, user=a.user, database=a.database)
    except (OSError, asyncpg.PostgresError) as e:
        die(f"postgres at {a.host}:{a.port}: {e}")


def busy_loop():
    """One callback per loop turn, each 2 ms of CPU (a reply on this machine
    is in within a turn): returns the turn counter and the callback's
    handle."""
    loop = asyncio.get_running_loop()
    turns = [0]
    state = {}

    def busy_turn():
        turns[0] += 1
        t = time.perf_counter()
        while time.perf_counter() - t < 0.002:
            pass
        state["h"] = loop.call_soon(busy_turn)

    state["h"] = loop.call_soon(busy_turn)

    class Handle:
        def cancel(self):
            state["h"].cancel()
    return turns, Handle()


async def count_turns(turns, n, fn):
    """Median of the turns one await of fn() takes, over n."""
    c = []
    for _ in range(n):
        t0 = turns[0]
        await fn()
        c.append(turns[0] - t0)
    return statistics.median(c)


async def run_pg_turns(a):
    c = await pg_client(a)
    await c.execute("create temp table pg_turns (id int primary key, v int); "
                    "insert into pg_turns values (1, 0)")
    turns, handle = busy_loop()
    cells = ["sleep(0) %g" % await count_turns(turns, a.n, lambda: asyncio.sleep(0)),
             "fetchval %g" % await count_turns(turns, a.n, lambda: c.fetchval("select 1")),
             "update %g" % await count_turns(
                 turns, a.n, lambda: c.execute("update pg_turns set v = v + 1 where id = 1"))]
    handle.cancel()
    await c.close()
    print("%s (loop turns, medians of %d; python %s, asyncpg %s)"
          % (" ".join(cells), a.n, sys.version.split()[0], sys.modules["asyncpg"].__version__))


async def run_redis_turns(a):
    import redis
    import redis.asyncio as aioredis
    from redis.utils import HIREDIS_AVAILABLE
    try:  # redis-py 4.x
        from redis.asyncio.connection import HiredisParser, PythonParser
    except ImportError:  # 5.x and later
        from redis._parsers import _AsyncHiredisParser as HiredisParser
        from redis._parsers import _AsyncRESP2Parser as PythonParser
    if a.parser == "hiredis" and not HIREDIS_AVAILABLE:
        die("python3-hiredis is missing (apt-get install python3-hiredis), or use --parser python")
    turns, handle = busy_loop()

    async def count(pool, what):
        conn = await pool.get_connection("GET")
        if what == "get_connection":
            await pool.release(conn)
            t0 = turns[0]
            conn = await pool.get_connection("GET")
        elif what == "read":
            await conn.send_command("GET", "k")
            t0 = turns[0]
            await conn.read_response()
        else:  # send, command
            t0 = turns[0]
            await conn.send_command("GET", "k")
            if what == "command":
                await conn.read_response()
        n = turns[0] - t0
        if what == "send":
            await conn.read_response()
        await pool.release(conn)
        return n

    parser = HiredisParser if a.parser == "hiredis" else PythonParser
    for timeout in (None, 2.0):
        pool = aioredis.ConnectionPool(connection_class=aioredis.UnixDomainSocketConnection,
                                       path=a.socket, socket_timeout=timeout, parser_class=parser)
        r = aioredis.Redis(connection_pool=pool)
        try:
            await r.set("k", "v")
        except Exception as e:  # the client's own error types vary by version
            die(f"redis at {a.socket}: {e}")
        cells = []
        for what in ("get_connection", "send", "read"):
            cells.append("%s %g" % (what, statistics.median([await count(r.connection_pool, what)
                                                             for _ in range(a.n)])))
        # the whole command through the client, as TigerFans calls it
        cells.append("command %g" % await count_turns(turns, a.n, lambda: r.get("k")))
        await pool.disconnect()
        print("socket_timeout %s: %s (loop turns, medians of %d; python %s, redis-py %s, parser %s)"
              % (timeout, " ".join(cells), a.n, sys.version.split()[0], redis.__version__, a.parser))
    handle.cancel()


def schedstat(pid):
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[0])


async def run_pg(a):
    c = await pg_client(a)
    # a logged table (its COMMIT flushes WAL, as TigerFans' do), dropped at the end
    await c.execute("drop table if exists cold_paths; "
                    "create table cold_paths (id int primary key, v int); "
                    "insert into cold_paths select g, 0 from generate_series(1, 10000) g")
    pid = await c.fetchval("select pg_backend_pid()")
    try:
        schedstat(pid)
    except OSError:
        die(f"backend {pid}: no /proc/{pid}/schedstat (the server must run on this machine)")
    upd = await c.prepare("update cold_paths set v = v + 1 where id = $1")
    for gap in a.gaps:
        b, cl, w = [], [], []
        for i in range(a.n):
            await pause(gap, False)
            b0, c0, w0 = schedstat(pid), time.process_time(), time.perf_counter()
            async with c.transaction():
                await upd.fetch(i % 10000 + 1)
            w1, c1, b1 = time.perf_counter(), time.process_time(), schedstat(pid)
            b.append((b1 - b0) / 1e3)
            cl.append((c1 - c0) * 1e6)
            w.append((w1 - w0) * 1e6)
        print("gap %g ms: backend cpu %.0f us, client cpu %.0f us, wall %.0f us (medians of %d)"
              % (gap, statistics.median(b), statistics.median(cl), statistics.median(w), a.n))
    await c.execute("drop table cold_paths")
    await c.close()


def numbers(text, kind):
    try:
        v = [kind(x) for x in text.split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of numbers")
    if not v or min(v) < 0:
        raise argparse.ArgumentTypeError(f"'{text}' needs numbers >= 0")
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("redis")
    r.add_argument("socket")
    r.add_argument("--gaps", type=lambda t: numbers(t, float), default=[0, 1, 2, 4, 8, 16])
    r.add_argument("-n", type=int, default=300)
    r.add_argument("--busy", action="store_true")
    rl = sub.add_parser("redis-load")
    rl.add_argument("socket")
    rl.add_argument("--clients", type=lambda t: numbers(t, int), default=[1, 2, 5, 10, 20])
    rl.add_argument("--gap", type=float, default=2.4)
    rl.add_argument("-n", type=int, default=300)
    rt = sub.add_parser("redis-turns")
    rt.add_argument("socket")
    rt.add_argument("-n", type=int, default=30)
    rt.add_argument("--parser", choices=("hiredis", "python"), default="hiredis")
    pt = sub.add_parser("pg-turns")
    pt.add_argument("host")
    pt.add_argument("port", type=int)
    pt.add_argument("-n", type=int, default=30)
    pt.add_argument("--user", default="postgres")
    pt.add_argument("--database", default="postgres")
    p = sub.add_parser("pg")
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("--gaps", type=lambda t: numbers(t, float), default=[0, 1, 2, 4, 8, 16])
    p.add_argument("-n", type=int, default=300)
    p.add_argument("--user", default="postgres")
    p.add_argument("--database", default="postgres")
    a = ap.parse_args()
    if a.n < 1:
        ap.error("-n must be at least 1")
    run = {"redis": run_redis, "redis-load": run_redis_load, "redis-turns": run_redis_turns,
           "pg": run_pg, "pg-turns": run_pg_turns}[a.what]
    asyncio.run(run(a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
