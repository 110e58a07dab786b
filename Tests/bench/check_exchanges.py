#!/usr/bin/env python3
"""How long --check takes beyond the server's own answer time (issue 31:
"a recording of 1,000 exchanges checks in under 1 s more than the server's
own answer time"). Informative, not a test: it prints the numbers.

A websockets server (this process, a thread) answers each request after
DELAY ms; a recording of N exchanges (request i, then its reply i, each
reply with a "${number}" matcher for its time) is checked with
`wspipe --check --events`. The server's own answer time is the sum of the
reply latencies wspipe measured (request sent to reply read); the rest of
the wall time is wspipe's: start-up, connecting, pacing, comparing, the
settle time (--check-settle) and the close.

A lockstep Python client (websockets, the same N exchanges) is timed too,
for comparison.

Usage: Tests/bench/check_exchanges.py [--wspipe PATH] [--exchanges N] [--delay MS]
(run with the test venv's python: .build/test-venv/bin/python)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import tempfile
import threading
import time

import websockets
from websockets.asyncio.server import serve
from websockets.asyncio.client import connect


def start_server(delay_ms: float) -> tuple[int, asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    port = []

    async def handler(ws):
        async for raw in ws:
            request = json.loads(raw)
            if delay_ms:
                await asyncio.sleep(delay_ms / 1000)
            await ws.send(json.dumps({"type": "reply", "id": request["id"], "at": time.time()}))

    async def main():
        server = await serve(handler, "127.0.0.1", 0, compression=None, ping_interval=None)
        port.append(server.sockets[0].getsockname()[1])
        ready.set()
        await asyncio.Future()

    threading.Thread(target=lambda: loop.run_until_complete(main()), daemon=True).start()
    ready.wait(10)
    return port[0], loop


def recording(path: str, url: str, exchanges: int) -> None:
    with open(path, "w") as f:
        f.write(json.dumps({"t_ms": 0, "dir": "event", "conn": 1,
                            "msg": {"$event": "connected", "url": url, "attempt": 1}}) + "\n")
        for i in range(exchanges):
            f.write(json.dumps({"t_ms": i, "dir": "out", "conn": 1, "msg": {"type": "request", "id": i}}) + "\n")
            f.write(json.dumps({"t_ms": i, "dir": "in", "conn": 1,
                                "msg": {"type": "reply", "id": i, "at": "${number}"}}) + "\n")


async def lockstep(url: str, exchanges: int) -> float:
    start = time.monotonic()
    async with connect(url, compression=None) as ws:
        for i in range(exchanges):
            await ws.send(json.dumps({"type": "request", "id": i}))
            await ws.recv()
    return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wspipe", default=os.path.join(os.path.dirname(__file__), "../../.build/release/wspipe"))
    parser.add_argument("--exchanges", type=int, default=1000)
    parser.add_argument("--delay", type=float, default=0.0, help="the server's answer time, in ms")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    port, _ = start_server(args.delay)
    url = f"ws://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "exchanges.ndjson")
        recording(path, url, args.exchanges)
        print(f"{args.exchanges} exchanges, server answer delay {args.delay} ms, wspipe {args.wspipe}")
        for run in range(args.runs):
            start = time.monotonic()
            result = subprocess.run([args.wspipe, "--check", path, "--events"],
                                    capture_output=True, text=True)
            wall = time.monotonic() - start
            replies = [json.loads(l) for l in result.stderr.splitlines() if l.startswith('{"$event":"reply"')]
            answering = sum(r["ms"] for r in replies) / 1000
            last = result.stderr.strip().splitlines()[-1]
            python = asyncio.run(lockstep(url, args.exchanges))
            print(f"  run {run + 1}: exit {result.returncode} ({last}); wall {wall:.3f} s, the server's answer time "
                  f"{answering:.3f} s over {len(replies)} replies, wspipe's own {wall - answering:.3f} s "
                  f"(of which --check-settle 0.100 s); a lockstep Python client: {python:.3f} s")


if __name__ == "__main__":
    main()
