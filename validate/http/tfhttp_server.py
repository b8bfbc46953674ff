#!/usr/bin/env python3
"""tfhttp_server: the stand-in TigerFans server for `tfsim probe http`.

One uvicorn worker (one asyncio event loop) serving the four TigerBench
endpoints of TigerFans with the HTTP method and body TigerFans uses; each
request awaits a configurable backend latency (asyncio.sleep, the stand-in
for Redis, TigerBeetle or PostgreSQL) and answers a small JSON body.

GET /_stats answers the server's own measurements (process CPU seconds,
requests served, connections accepted, total await time) so that the driver
can difference them around a phase.  GET /_latency?ms=X sets the backend
latency.

With --cpu-ms X each request first spins X ms of the thread's CPU on the
one loop, in series (TigerFans' server spends 1-3 ms of its loop on each
request, one after another), then awaits the backend.

Usage: tfhttp_server.py --port P [--app starlette|asgi|fastapi]
       [--latency-ms X] [--cpu-ms X] [--ready-file F]
Exits 3 when a package is missing (the message names it).
"""
import argparse
import asyncio
import json
import os
import sys
import time

STATE = {"latency": 0.0, "cpu": 0.0, "requests": 0, "await": 0.0, "conns": 0}


def stats_body() -> bytes:
    cpu = time.process_time()
    return json.dumps({
        "pid": os.getpid(), "cpu": cpu, "requests": STATE["requests"],
        "await": STATE["await"], "conns": STATE["conns"],
        "latency": STATE["latency"],
    }).encode()


async def backend() -> None:
    if STATE["cpu"] > 0:  # the request's own CPU on the loop, in series
        c0 = time.thread_time()
        while time.thread_time() - c0 < STATE["cpu"]:
            pass
    t0 = time.perf_counter()
    await asyncio.sleep(STATE["latency"])
    STATE["await"] += time.perf_counter() - t0
    STATE["requests"] += 1


def reply(path: str, body: bytes):
    """(status, JSON body) for one benchmark endpoint, after the backend."""
    if path == "/api/checkout":
        j = json.loads(body or b"{}")
        return 200, {"order_id": "o1", "amount": 100, "currency": "eur",
                     "redirect_url": "/mockpay/ps1", "cls": j.get("cls")}
    if path == "/payments/webhook":
        json.loads(body or b"{}")
        return 200, {"ok": True}
    if path in ("/api/accounting/reserve", "/api/accounting/commit"):
        return 200, {"tb_transfer_id": "1", "goodie_tb_transfer_id": "2"}
    return 404, {"detail": "not found"}


def control(path: str, query: str):
    if path == "/_stats":
        return stats_body()
    if path == "/_latency":
        for part in query.split("&"):
            if part.startswith("ms="):
                STATE["latency"] = float(part[3:]) / 1000.0
        return stats_body()
    return None


def make_asgi():
    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                m = await receive()
                if m["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            m = await receive()
            body += m.get("body", b"")
            if not m.get("more_body"):
                break
        path = scope["path"]
        c = control(path, scope.get("query_string", b"").decode())
        if c is not None:
            status, out = 200, c
        else:
            await backend()
            status, j = reply(path, body)
            out = json.dumps(j).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(out)).encode())]})
        await send({"type": "http.response.body", "body": out})
    return app


def make_starlette():
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    async def ep(request):
        path = request.url.path
        c = control(path, request.url.query)
        if c is not None:
            return Response(c, media_type="application/json")
        body = await request.body()
        await backend()
        status, j = reply(path, body)
        return JSONResponse(j, status_code=status)

    paths = ["/api/checkout", "/payments/webhook", "/api/accounting/reserve",
             "/api/accounting/commit", "/_stats", "/_latency"]
    return Starlette(routes=[Route(p, ep, methods=["GET", "POST"]) for p in paths])


def make_fastapi():
    from fastapi import FastAPI, Request
    from pydantic import BaseModel
    from starlette.responses import Response

    class Checkout(BaseModel):
        cls: str
        customer_email: str

    app = FastAPI()

    @app.post("/api/checkout")
    async def checkout(req: Checkout):
        await backend()
        return reply("/api/checkout", json.dumps(req.dict()).encode())[1]

    @app.post("/payments/webhook")
    async def webhook(request: Request):
        body = await request.body()
        await backend()
        return reply("/payments/webhook", body)[1]

    @app.get("/api/accounting/reserve")
    async def reserve():
        await backend()
        return reply("/api/accounting/reserve", b"")[1]

    @app.get("/api/accounting/commit")
    async def commit(tb_transfer_id: str = "", goodie_tb_transfer_id: str = ""):
        await backend()
        return reply("/api/accounting/commit", b"")[1]

    @app.get("/_stats")
    async def st():
        return Response(stats_body(), media_type="application/json")

    @app.get("/_latency")
    async def lat(ms: float = 0.0):
        STATE["latency"] = ms / 1000.0
        return Response(stats_body(), media_type="application/json")

    return app


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--app", default="starlette", choices=["starlette", "asgi", "fastapi"])
    ap.add_argument("--latency-ms", type=float, default=0.0)
    ap.add_argument("--cpu-ms", type=float, default=0.0)
    ap.add_argument("--ready-file", default=None)
    a = ap.parse_args()
    try:
        import uvicorn
    except ImportError:
        print("tfhttp_server: python3 module 'uvicorn' is missing "
              "(Debian: apt-get install python3-uvicorn)", file=sys.stderr)
        return 3
    try:
        app = {"asgi": make_asgi, "starlette": make_starlette, "fastapi": make_fastapi}[a.app]()
    except ImportError as e:
        print(f"tfhttp_server: python3 module '{e.name}' is missing "
              f"(Debian: apt-get install python3-{e.name})", file=sys.stderr)
        return 3
    STATE["latency"] = a.latency_ms / 1000.0
    STATE["cpu"] = max(a.cpu_ms, 0.0) / 1000.0

    config = uvicorn.Config(app, host=a.host, port=a.port, workers=1,
                            log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)

    # count accepted connections: wrap the protocol factory's connection_made
    proto = config.http_protocol_class if hasattr(config, "http_protocol_class") else None
    if proto is None:
        config.load()
        proto = config.http_protocol_class
    orig = proto.connection_made

    def counted(self, transport):
        STATE["conns"] += 1
        return orig(self, transport)
    proto.connection_made = counted

    if a.ready_file:
        async def announce():
            while not server.started:
                await asyncio.sleep(0.01)
            info = {"pid": os.getpid(), "uvicorn": uvicorn.__version__,
                    "http": proto.__name__, "loop": type(asyncio.get_running_loop()).__name__,
                    "app": a.app, "python": sys.version.split()[0]}
            with open(a.ready_file + ".tmp", "w") as f:
                json.dump(info, f)
            os.replace(a.ready_file + ".tmp", a.ready_file)

        async def serve():
            t = asyncio.create_task(announce())
            await server.serve()
            t.cancel()
        asyncio.run(serve())
    else:
        server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
