"""A chat server in the manner of Vapor's chat example, for --check (issue 31).

One room per name; every connection is greeted with a session id of its
own. The protocol (JSON text messages, "type" first):

    server: {"type":"welcome","session":S,"motd":"hi"}                 on connect
    join    {"room":R,"name":N} -> {"type":"joined","room":{"name":R,"topic":"general chat","users":K},
                                    "you":N,"ts":MS}
                                   (others in R get {"type":"presence","who":N,"event":"join"})
    message {"id":I,"text":T}   -> {"type":"ack","id":I}, then to everyone in R
                                   {"type":"broadcast","room":R,"from":N,"text":T}
    leave                        -> {"type":"left","room":R}
    resume  {"session":S}       -> {"type":"resumed","session":S} when S is this connection's,
                                   else Close 4001 "unknown session"
    subscribe {"channel":C}     -> {"type":"subscribed","channel":C}
    ping    {"id":I,"delay_ms":D} -> {"type":"pong","id":I} after D ms

`server.variant` switches it into a broken server, between or during runs:

    "good"          as above
    "renamed"       joined has room.title instead of room.topic
    "wrong_number"  joined says one user more
    "missing_reply" no ack for a message
    "extra_message" a {"type":"debug"} after each broadcast
    "out_of_order"  two subscriptions in a row are confirmed in reverse order
    "error_close"   Close 4003 "forbidden" at a join

Every message received is logged as ("msg", json) on `server.log`, each
request as ("request", headers).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time


class ChatServer:
    def __init__(self) -> None:
        self.variant = "good"
        self.rooms: dict[str, set] = {}
        self.log = None

    async def handler(self, ws, log) -> None:
        self.log = log
        log.put("request", dict(ws.request.headers.raw_items()), ws.subprotocol)
        session = secrets.token_hex(6)
        name, room = None, None
        held_subscription = None
        await ws.send(json.dumps({"type": "welcome", "session": session, "motd": "hi"}))
        try:
            async for raw in ws:
                m = json.loads(raw)
                log.put("msg", m)
                kind = m.get("type")
                if kind == "join":
                    if self.variant == "error_close":
                        await ws.close(4003, "forbidden")
                        return
                    name, room = m.get("name"), m.get("room")
                    members = self.rooms.setdefault(room, set())
                    for other in members:
                        await other.send(json.dumps({"type": "presence", "who": name, "event": "join"}))
                    members.add(ws)
                    info = {"name": room, "topic": "general chat", "users": len(members)}
                    if self.variant == "renamed":
                        info = {"name": room, "title": "general chat", "users": len(members)}
                    if self.variant == "wrong_number":
                        info["users"] += 1
                    await ws.send(json.dumps({"type": "joined", "room": info, "you": name,
                                              "ts": int(time.time() * 1000)}))
                elif kind == "message":
                    broadcast = json.dumps({"type": "broadcast", "room": room, "from": name, "text": m.get("text")})
                    if self.variant != "missing_reply":
                        await ws.send(json.dumps({"type": "ack", "id": m.get("id")}))
                    for member in list(self.rooms.get(room, ())):
                        await member.send(broadcast)
                    if self.variant == "extra_message":
                        await ws.send(json.dumps({"type": "debug", "note": "sent by mistake"}))
                elif kind == "leave":
                    self.rooms.get(room, set()).discard(ws)
                    await ws.send(json.dumps({"type": "left", "room": room}))
                elif kind == "resume":
                    if m.get("session") != session:
                        await ws.close(4001, "unknown session")
                        return
                    await ws.send(json.dumps({"type": "resumed", "session": session}))
                elif kind == "subscribe":
                    answer = json.dumps({"type": "subscribed", "channel": m.get("channel")})
                    if self.variant == "out_of_order" and held_subscription is None:
                        held_subscription = answer
                        continue
                    await ws.send(answer)
                    if held_subscription is not None:
                        await ws.send(held_subscription)
                        held_subscription = None
                elif kind == "ping":
                    await asyncio.sleep(m.get("delay_ms", 0) / 1000)
                    await ws.send(json.dumps({"type": "pong", "id": m.get("id")}))
        finally:
            if room is not None:
                self.rooms.get(room, set()).discard(ws)
