"""A python-socketio 5 server under aiohttp, for test_socketio.py: run as
`python sio_server.py PORT [PING_INTERVAL PING_TIMEOUT]` (seconds); it
prints `ready PORT` on stdout when it listens, then one JSON line for each
thing it saw (`{"seen": ...}`), so a test can wait for it.

Namespaces "/" and "/chat", both with auth checking (a connect whose auth
is not {"token": "secret"} or {"token": "fresh-N"} is refused with a
connect_error "bad token"). Events:
- "echo": emitted back as "echo" with the same arguments;
- "join" (on /chat): enters the room and answers the ack with
  {"joined": ROOM}; everyone in the room gets "joined" {"sid": ...};
- "say" (on /chat): "said" {"text": ...} to everyone in the sender's room;
- "upload": a binary event; answered with the ack {"size": N} (bytes in
  data.body) and emitted back as "download" with the bytes reversed;
- "ask": the server asks the client for an ack (event "question", with a
  callback) and emits "answered" with what the client answered;
- "multi": answered with an event of three arguments.
"""

from __future__ import annotations

import asyncio
import json
import sys

import socketio
from aiohttp import web


def main() -> None:
    port = int(sys.argv[1])
    ping_interval = float(sys.argv[2]) if len(sys.argv) > 2 else 25
    ping_timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 20
    sio = socketio.AsyncServer(async_mode="aiohttp", ping_interval=ping_interval, ping_timeout=ping_timeout,
                               cors_allowed_origins="*")
    app = web.Application()
    sio.attach(app)

    def seen(*what) -> None:
        print(json.dumps({"seen": list(what)}), flush=True)

    def authorized(auth) -> bool:
        token = (auth or {}).get("token", "") if isinstance(auth, dict) else ""
        return token == "secret" or str(token).startswith("fresh-")

    for ns in ("/", "/chat"):
        def register(ns: str) -> None:
            @sio.on("connect", namespace=ns)
            async def connect(sid, environ, auth):
                seen("connect", ns, auth)
                if not authorized(auth):
                    raise socketio.exceptions.ConnectionRefusedError("bad token")

            @sio.on("disconnect", namespace=ns)
            async def disconnect(sid, *reason):
                seen("disconnect", ns)

            @sio.on("echo", namespace=ns)
            async def echo(sid, *args):
                seen("echo", ns, list(args))
                await sio.emit("echo", args[0] if len(args) == 1 else list(args), to=sid, namespace=ns)

            @sio.on("multi", namespace=ns)
            async def multi(sid, *args):
                await sio.emit("multi", (1, "two", [3]), to=sid, namespace=ns)

            @sio.on("upload", namespace=ns)
            async def upload(sid, data):
                body = data["body"]
                seen("upload", ns, data.get("name"), len(body), isinstance(body, bytes))
                await sio.emit("download", {"name": data.get("name"), "body": bytes(reversed(body))}, to=sid, namespace=ns)
                return {"size": len(body)}

            @sio.on("ask", namespace=ns)
            async def ask(sid, data):
                async def answered(*answer):
                    seen("answered", ns, list(answer))
                    await sio.emit("answered", list(answer), to=sid, namespace=ns)
                await sio.emit("question", data, to=sid, namespace=ns, callback=answered)

        register(ns)

    @sio.on("join", namespace="/chat")
    async def join(sid, data):
        room = data["room"]
        await sio.enter_room(sid, room, namespace="/chat")
        seen("join", room)
        await sio.emit("joined", {"sid": sid}, room=room, namespace="/chat")
        return {"joined": room}

    @sio.on("say", namespace="/chat")
    async def say(sid, data):
        seen("say", data)
        for room in sio.rooms(sid, namespace="/chat"):
            if room != sid:
                await sio.emit("said", {"text": data["text"]}, room=room, namespace="/chat")

    async def start() -> None:
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", port)
        await site.start()
        print(f"ready {port}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(start())


if __name__ == "__main__":
    main()
