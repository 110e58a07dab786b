"""--socketio against real Socket.IO peers (wspipe(1): SOCKET.IO).

A python-socketio 5 server under aiohttp (peers/sio_server.py: two
namespaces, auth checking, acks, a binary event, a room broadcast) driven
by wspipe from pipelines, killed and restarted under it; a python-socketio
client against `wspipe --listen --socketio`; a raw Engine.IO peer for the
heartbeat's edges. The long test of the heartbeat (2 minutes of silence)
runs with WSPIPE_LONG_TESTS=1 (conftest.py: long_test).
"""

from __future__ import annotations

import faulthandler
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from helpers import FAST_BACKOFF, WsProc, events, free_port, wait_events, write_lines, RUN_TIMEOUT

PEERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers")
AUTH = ["--sio-auth", '{"token":"secret"}']
BOTH = ["--namespace", "/", "--namespace", "/chat"]

needs_jq = pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq (Tests/run installs it)")


class SioServer:
    """peers/sio_server.py in a process of its own (so it can be killed and
    started again on the same port); `seen` waits for what it printed."""

    def __init__(self, port: int | None = None, ping: tuple[float, float] | None = None):
        self.port = port or free_port()
        self.ping = ping
        self.proc: WsProc | None = None
        self.start()

    def start(self) -> None:
        args = [sys.executable, os.path.join(PEERS, "sio_server.py"), str(self.port)]
        if self.ping:
            args += [str(self.ping[0]), str(self.ping[1])]
        self.proc = WsProc(args, stdin=None, close_stdin=False)
        self.proc.wait_stdout_lines(1, timeout=20)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def seen(self) -> list[list]:
        return [json.loads(line)["seen"] for line in self.proc.out.data().decode().splitlines()[1:]]

    def wait_seen(self, predicate, timeout: float = 10) -> list[list]:
        ok = self.proc.out.wait_for(lambda _: any(predicate(s) for s in self.seen()), timeout)
        assert ok, f"the Socket.IO server did not see it within {timeout}s; it saw {self.seen()}; stderr={self.proc.err.data()[-1500:]!r}"
        return self.seen()

    def kill(self) -> None:
        self.proc.kill()


@pytest.fixture
def sio_server():
    servers: list[SioServer] = []

    def _make(**kwargs) -> SioServer:
        s = SioServer(**kwargs)
        servers.append(s)
        return s

    yield _make
    for s in servers:
        s.kill()


def lines(result) -> list[dict]:
    return [json.loads(line) for line in result.lines]


# -- a chat from a pipeline ------------------------------------------------------------------

def test_events_and_acks_both_ways_from_a_pipeline(run, sio_server):
    server = sio_server()
    stdin = (b'{"event":"join","data":{"room":"r1"},"ns":"/chat","ack":true}\n'
             b'{"event":"echo","data":{"text":"hi"}}\n'
             b'{"event":"multi","args":[]}\n')
    result = run(["--socketio", *BOTH, *AUTH, "--events", server.url], stdin=stdin)
    assert result.code == 0, result
    got = lines(result)
    assert {"ack_of": 1, "data": {"joined": "r1"}, "ns": "/chat"} in got, result
    assert {"event": "echo", "data": {"text": "hi"}} in got, result
    assert {"event": "multi", "args": [1, "two", [3]]} in got, result
    joined = [l for l in got if l.get("event") == "joined"]
    assert len(joined) == 1 and joined[0]["ns"] == "/chat", result
    # The id of the ack asked for is in the events, and both namespaces got the auth.
    assert events(result.stderr, "ack_requested") == [{"$event": "ack_requested", "ack": 1, "event": "join",
                                                        "ns": "/chat", "line": 1}]
    seen = server.wait_seen(lambda s: s[0] == "echo")
    assert ["connect", "/", {"token": "secret"}] in seen and ["connect", "/chat", {"token": "secret"}] in seen
    assert ["echo", "/", [{"text": "hi"}]] in seen


def test_the_ack_asked_for_is_the_reply_the_one_shot_rule_waits_for(run, sio_server):
    """No flag: `echo REQUEST | wspipe --socketio URL` prints the server's
    answer and exits, even when a broadcast comes first."""
    server = sio_server()
    result = run(["--socketio", "--namespace", "/chat", *AUTH, server.url],
                 stdin=b'{"event":"join","data":{"room":"a"},"ns":"/chat","ack":true}\n')
    assert result.code == 0, result
    assert lines(result)[-1] == {"ack_of": 1, "data": {"joined": "a"}, "ns": "/chat"}, result


@needs_jq
def test_jq_picks_events_from_the_pipeline(sio_server, wspipe_bin, tmp_path):
    server = sio_server()
    script = (f"printf '%s\\n' '{{\"event\":\"echo\",\"data\":{{\"text\":\"one\"}}}}' '{{\"event\":\"multi\"}}' "
              f"| {wspipe_bin} --socketio --sio-auth '{{\"token\":\"secret\"}}' {server.url} "
              f"| jq -c 'select(.event == \"echo\") | .data.text'")
    out = subprocess.run(["sh", "-c", script], capture_output=True, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
    assert out.returncode == 0 and out.stdout == b'"one"\n', out


def test_room_broadcast_reaches_the_other_client(spawn, sio_server):
    server = sio_server()
    listener = spawn(["--socketio", "--namespace", "/chat", *AUTH, server.url], close_stdin=False)
    write_lines(listener, {"event": "join", "data": {"room": "lobby"}, "ns": "/chat", "ack": True})
    assert json.loads(listener.wait_stdout_lines(2)[1])["ack_of"] == 1
    talker = spawn(["--socketio", "--namespace", "/chat", *AUTH, server.url],
                   stdin=b'{"event":"join","data":{"room":"lobby"},"ns":"/chat","ack":true}\n'
                         b'{"event":"say","data":{"text":"hello room"},"ns":"/chat"}\n')
    said = [json.loads(l) for l in listener.wait_stdout_lines(4)]
    assert {"event": "said", "data": {"text": "hello room"}, "ns": "/chat"} in said, said
    assert talker.finish().code == 0
    listener.close_stdin()
    assert listener.finish().code == 0


def test_binary_events_both_ways(run, sio_server):
    server = sio_server()
    result = run(["--socketio", *AUTH, server.url],
                 stdin=b'{"event":"upload","data":{"name":"f","body":{"$binary":"AAECAw=="}},"ack":true}\n')
    assert result.code == 0, result
    got = lines(result)
    assert {"event": "download", "data": {"name": "f", "body": {"$binary": "AwIBAA=="}}} in got, result
    assert {"ack_of": 1, "data": {"size": 4}} in got, result
    # The server got bytes, not a base64 string.
    assert ["upload", "/", "f", 4, True] in server.wait_seen(lambda s: s[0] == "upload")


def test_an_ack_the_server_asks_for_is_answered_by_answer_routed_by_event_name(run, sio_server, tmp_path):
    server = sio_server()
    questions = tmp_path / "questions"
    result = run(["--socketio", *AUTH, "--answer", 'question={"ack":${.ack},"data":{"yes":${.data.q}}}',
                  "--route", f"question={questions}", "--until", "event=answered", server.url],
                 stdin=b'{"event":"ask","data":{"q":42}}\n')
    assert result.code == 0, result
    assert lines(result) == [{"event": "answered", "data": [{"yes": 42}]}], result
    question = json.loads(questions.read_text())
    assert question["event"] == "question" and question["data"] == {"q": 42} and isinstance(question["ack"], int)
    assert ["answered", "/", [{"yes": 42}]] in server.wait_seen(lambda s: s[0] == "answered")


def test_connect_error_ends_the_run_as_a_rejection(run, sio_server):
    server = sio_server()
    result = run(["--socketio", "--sio-auth", '{"token":"wrong"}', "--events", server.url],
                 stdin=b'{"event":"echo","data":1}\n')
    assert result.code == 4, result
    assert "namespace / refused by the server: bad token" in result.stderr, result
    assert result.stdout == b""
    # Once: a rejection is not retried.
    assert len(events(result.stderr, "connecting")) == 1, result


def test_lines_that_are_no_socketio_events_are_rejected_with_their_place(run, sio_server):
    server = sio_server()
    result = run(["--socketio", *AUTH, server.url],
                 stdin=b'{"event":"echo","date":1}\n{"$binary":"AA=="}\n{"event":"echo","data":"ok"}\n')
    assert result.code == 6, result
    assert 'stdin:1:17: unknown member "date"' in result.stderr, result
    assert "stdin:2:2:" in result.stderr, result
    assert lines(result) == [{"event": "echo", "data": "ok"}], result


def test_a_server_that_does_not_speak_engineio_is_a_protocol_error(run, ws_server):
    async def greet(ws, log):
        await ws.send('{"hello":"world"}')
        await ws.wait_closed()
    server = ws_server(greet)
    result = run(["--socketio", server.url()])
    assert result.code == 5, result
    assert "not a Socket.IO server" in result.stderr, result


# -- reconnecting ------------------------------------------------------------------------------

def test_reconnect_after_the_server_restarts_joins_again_and_sends_the_queue(spawn, sio_server):
    server = sio_server()
    client = spawn(["--socketio", *BOTH, "--sio-auth", '{"token":"fresh-${seq}"}', "--events", *FAST_BACKOFF,
                    server.url], close_stdin=False)
    wait_events(client, "connected")
    write_lines(client, {"event": "echo", "data": "before"})
    assert json.loads(client.wait_stdout_lines(1)[0]) == {"event": "echo", "data": "before"}
    server.kill()
    wait_events(client, "disconnected")
    # Lines written while the server is down wait in the queue.
    write_lines(client, {"event": "echo", "data": "queued 1"}, {"event": "echo", "data": "queued 2", "ns": "/chat"})
    time.sleep(0.3)
    server.start()
    got = [json.loads(l) for l in client.wait_stdout_lines(3, timeout=15)]
    assert got[1:] == [{"event": "echo", "data": "queued 1"}, {"event": "echo", "data": "queued 2", "ns": "/chat"}], got
    seen = server.wait_seen(lambda s: s[0] == "echo" and s[1] == "/chat")
    # Both namespaces joined again on the new Engine.IO session, with a fresh token.
    connects = [s for s in seen if s[0] == "connect"]
    assert {c[1] for c in connects} == {"/", "/chat"}, seen
    assert all(c[2]["token"] != "fresh-1" for c in connects), connects
    client.close_stdin()
    result = client.finish()
    assert result.code == 0, result
    assert len(events(result.stderr, "connected")) == 2, result


def test_a_silent_engineio_server_is_dropped_after_its_ping_deadline(spawn, ws_server):
    """pingInterval + pingTimeout without a ping: the connection is dead,
    dropped without waiting for TCP, and a new one is made."""
    async def handshake_then_silence(ws, log):
        await ws.send('0{"sid":"s1","upgrades":[],"pingInterval":300,"pingTimeout":200,"maxPayload":1000000}')
        log.put("connect", await ws.recv())
        await ws.send('40{"sid":"n1"}')
        await ws.wait_closed()
    server = ws_server(handshake_then_silence)
    # The deadline runs from the open packet, which comes after the start
    # (not from when this thread hears of the connect: later under load).
    started = time.monotonic()
    client = spawn(["--socketio", "--events", *FAST_BACKOFF, server.url()], close_stdin=False)
    assert server.log.get() == ("connect", "40")
    found = wait_events(client, "reconnecting", timeout=10)
    assert time.monotonic() - started >= 0.45
    disconnected = [e for e in found if e["$event"] == "disconnected"]
    assert disconnected and disconnected[0]["reason"] == "ping timeout", found
    assert server.log.get() == ("connect", "40")


def test_engineio_pings_are_answered_and_never_lines(spawn, sio_server):
    """The server pings every second and drops a client that misses a pong
    for a second (python-engineio announces whole seconds): 4 s of silence
    keep the connection, and stdout stays empty."""
    server = sio_server(ping=(1, 1))
    client = spawn(["--socketio", *AUTH, "--events", server.url], close_stdin=False)
    wait_events(client, "connected")
    time.sleep(4)
    client.close_stdin()
    result = client.finish()
    assert result.code == 0, result
    assert result.stdout == b"", result
    assert len(events(result.stderr, "connected")) == 1 and events(result.stderr, "disconnected")[0]["by"] == "client", result


@pytest.mark.long_test
def test_the_servers_ping_timeout_holds_over_two_minutes_of_silence(spawn, sio_server):
    """Engine.IO's defaults (25 s + 20 s): nothing but pings for 2 minutes,
    and the one connection stays (WSPIPE_LONG_TESTS=1)."""
    # Longer than the suite's hang report (faulthandler_timeout): this one is meant to be.
    faulthandler.dump_traceback_later(300)
    server = sio_server()
    client = spawn(["--socketio", *AUTH, "--events", server.url], close_stdin=False)
    wait_events(client, "connected")
    time.sleep(125)
    write_lines(client, {"event": "echo", "data": "still here"})
    assert json.loads(client.wait_stdout_lines(1)[0]) == {"event": "echo", "data": "still here"}
    client.close_stdin()
    result = client.finish()
    assert result.code == 0, result
    assert len(events(result.stderr, "connected")) == 1 and len(events(result.stderr, "disconnected")) == 1, result


# -- the mock server ---------------------------------------------------------------------------

CLIENT = r'''
import asyncio, json, sys
import socketio

async def main():
    sio = socketio.AsyncClient()
    got = []
    done = asyncio.Event()
    def keep(ns):
        async def on_any(event, *args):
            got.append([ns, event, [a.hex() if isinstance(a, bytes) else a for a in args]])
            if event == "bye":
                done.set()
        return on_any
    sio.on("*", keep("/"))
    sio.on("*", keep("/chat"), namespace="/chat")
    await sio.connect(sys.argv[1], transports=["websocket"], namespaces=["/", "/chat"], auth={"token": "t"})
    answer = await sio.call("question", {"q": 1}, namespace="/chat", timeout=5)
    await sio.emit("upload", {"body": b"\x00\x01"})
    await asyncio.wait_for(done.wait(), 10)
    print(json.dumps({"answer": answer, "got": got}), flush=True)
    await sio.disconnect()

asyncio.run(main())
'''


def test_a_python_socketio_client_against_the_mock_server_with_replay(spawn, tmp_path):
    recording = tmp_path / "session.ndjson"
    recording.write_text("".join(json.dumps(line) + "\n" for line in [
        {"t_ms": 0, "dir": "in", "conn": 1, "msg": {"event": "welcome", "data": {"motd": "hi"}}},
        {"t_ms": 50, "dir": "in", "conn": 1, "msg": {"event": "news", "args": [1, "two"], "ns": "/chat"}},
        {"t_ms": 100, "dir": "in", "conn": 1, "msg": {"event": "blob", "data": {"$binary": "AAEC"}}},
        {"t_ms": 150, "dir": "in", "conn": 1, "msg": {"event": "bye"}},
    ]))
    port = free_port()
    server = spawn(["--listen", str(port), "--once", "--socketio", "--replay", str(recording), "--events",
                    "--answer", 'question={"ack":${.ack},"data":{"a":${.data.q}},"ns":"/chat"}'], close_stdin=False)
    server.wait_stderr("listening on")
    client = WsProc([sys.executable, "-c", CLIENT, f"http://127.0.0.1:{port}"], stdin=None)
    result = client.finish(timeout=20)
    assert result.code == 0, result
    report = json.loads(result.stdout)
    assert report["answer"] == {"a": 1}
    assert report["got"] == [["/", "welcome", [{"motd": "hi"}]], ["/chat", "news", [1, "two"]],
                             ["/", "blob", ["000102"]], ["/", "bye", []]], report
    lines_out = [json.loads(l) for l in server.wait_stdout_lines(2)]
    assert lines_out[0] == {"event": "question", "data": {"q": 1}, "ns": "/chat", "ack": lines_out[0]["ack"]}
    assert lines_out[1] == {"event": "upload", "data": {"body": {"$binary": "AAE="}}}
    connects = wait_events(server, "namespace_connected", count=2)
    assert [e["ns"] for e in connects if e["$event"] == "namespace_connected"] == ["/", "/chat"]
    assert [e.get("auth") for e in connects if e["$event"] == "namespace_connected"] == [{"token": "t"}] * 2
    server.close_stdin()
    assert server.finish().code == 0
