"""Issue 30: the truth without crying wolf (wspipe(1): RECONNECT AND REPLAY).

Confirmations come from the kernel's stamps (Linux SO_TIMESTAMPING: when the
server's TCP acknowledged each byte, when each segment arrived), so a server
that answered everything leaves nothing in doubt; the one-shot rule does not
take a greeting for a reply; warnings appear only when the ending could lose
data. The same runs with WSPIPE_KERNEL_TIMESTAMPS=0 keep the bound the docs
describe for systems without the stamps.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import time

import pytest

import helpers
from helpers import events, stats
from peers.raw_peer import OP_PING, frame

TIMEOUT = 60
TRANSPORTS = ["plain", "tls", "compress"]


def in_doubt_said(stderr: str) -> list[str]:
    return [l for l in stderr.splitlines() if l.startswith("wspipe: ") and ("unconfirmed" in l or "unread" in l)]


def server_for(ws_server, tls_cert, transport, handler):
    kwargs = {}
    if transport == "compress":
        kwargs["compression"] = "deflate"
    ssl_context = helpers.server_ssl_context(tls_cert) if transport == "tls" else None
    return ws_server(handler, ssl_context, **kwargs)


def client_args(tls_cert, transport) -> list[str]:
    if transport == "tls":
        return ["--cacert", os.path.join(tls_cert, "cert.pem")]
    if transport == "compress":
        return ["--compress"]
    return []


def echo_then_close(count: int):
    async def handler(ws, log):
        for _ in range(count):
            await ws.send(await ws.recv())
        await ws.close(1000)
    return handler


@pytest.mark.parametrize("count", [1, 100, 10_000])
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_echo_server_that_closes_with_1000_leaves_nothing_in_doubt(spawn, ws_server, tls_cert, transport, count):
    """The server echoes every message, then closes: each echo arrived after
    the server's TCP had its message, so nothing is unconfirmed, nothing is
    unread, and nothing is said (stdin stays open: the server closes first)."""
    srv = server_for(ws_server, tls_cert, transport, echo_then_close(count))
    lines = b"".join(b'{"n":%d,"pad":"%s"}\n' % (n, b"x" * 40) for n in range(count))
    proc = spawn(["--events", "--stats", *client_args(tls_cert, transport), srv.url()], stdin=lines, close_stdin=False)
    res = proc.finish(TIMEOUT)
    assert res.code == 0, res
    assert res.stdout == lines, "every echo"
    assert in_doubt_said(res.stderr) == [], res
    st = stats(res.stderr)
    assert (st["unconfirmed"], st["unread"], st["not_sent"]) == (0, 0, 0), (st, res.stderr[-3000:])
    assert [(e["code"], e["by"], e["unconfirmed"], e.get("unread", 0)) for e in events(res.stderr, "disconnected")] \
        == [(1000, "server", 0, 0)], res


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_server_that_reads_a_burst_and_closes_leaves_nothing_in_doubt(spawn, ws_server, tls_cert, transport):
    """Autobahn's shape: the server reads everything wspipe sent, answers
    nothing, and closes with 1000. Its Close came after its TCP had every
    message and its window says it read them."""
    count = 2_000

    async def reader(ws, log):
        for _ in range(count):
            await ws.recv()
        await ws.close(1000)

    srv = server_for(ws_server, tls_cert, transport, reader)
    lines = b"".join(b'{"n":%d,"pad":"%s"}\n' % (n, b"y" * 200) for n in range(count))
    proc = spawn(["--events", "--stats", *client_args(tls_cert, transport), srv.url()], stdin=lines, close_stdin=False)
    res = proc.finish(TIMEOUT)
    assert res.code == 0, res
    assert in_doubt_said(res.stderr) == [], res
    st = stats(res.stderr)
    assert (st["unconfirmed"], st["unread"]) == (0, 0), st


def test_without_the_kernels_stamps_a_clean_close_says_its_doubt_only_with_v(spawn, ws_server):
    """The bound (WSPIPE_KERNEL_TIMESTAMPS=0, as on systems without stamps)
    may leave echoed lines unconfirmed; after a clean close that is said at
    -v, in the events and --stats, never as a warning."""
    srv = ws_server(echo_then_close(3))
    env = {"WSPIPE_KERNEL_TIMESTAMPS": "0"}
    lines = b'{"a":1}\n{"a":2}\n{"a":3}\n'
    for verbose in ([], ["-v"]):
        res = spawn(["--events", "--stats", *verbose, srv.url()], stdin=lines, close_stdin=False, env=env).finish(TIMEOUT)
        assert res.code == 0 and res.stdout == lines, res
        st = stats(res.stderr)
        said = in_doubt_said(res.stderr)
        if not verbose:
            assert said == [], res
        else:
            assert len(said) == (1 if st["unconfirmed"] or st["unread"] else 0), res


# -- greetings and replies ---------------------------------------------------------


RUNS = 50


@pytest.mark.parametrize("delay_ms", [5, 50, 300])
def test_a_greeting_does_not_pass_for_the_reply(spawn, raw_peer, tmp_path, delay_ms):
    """`wspipe URL < request` against a server that greets at once (its
    greeting in the 101's segment) and answers after a while, without ids:
    the request goes out before the greeting is read, but the greeting
    arrived before the server's TCP had the request, so it cannot be the
    reply; the answer is printed every time. (A greeting the server sends
    only after its TCP took the request looks like a reply to any client:
    the man page says so, and what to give then.)"""
    from test_ending import stdin_file
    peer = raw_peer(timeout=TIMEOUT)
    for run in range(RUNS):
        fd = stdin_file(tmp_path, '{"type":"ping"}\n')
        try:
            proc = spawn([peer.url()], stdin=None, stdin_fd=fd)
        finally:
            os.close(fd)
        conn = peer.accept()
        conn.read_request()
        conn.send_response(body=frame(0x1, b'{"type":"welcome"}'))
        assert conn.recv_frame().payload == b'{"type":"ping"}'
        time.sleep(delay_ms / 1000)
        try:
            conn.send(frame(0x1, b'{"type":"pong"}'))
            conn.read_until_close()
        except (OSError, helpers_closed()):
            pass
        conn.close()
        res = proc.finish(TIMEOUT)
        assert res.code == 0, f"run {run}: {res}"
        assert res.stdout == b'{"type":"welcome"}\n{"type":"pong"}\n', f"run {run}: {res}"


def helpers_closed():
    from peers.raw_peer import PeerClosed
    return PeerClosed


def test_a_server_that_greets_and_never_answers_is_waited_for_the_linger(spawn, ws_server):
    async def handler(ws, log):
        await ws.send('{"type":"welcome"}')
        await ws.wait_closed()

    srv = ws_server(handler)
    started = time.monotonic()
    # The request goes once the greeting is in: a greeting the server sends
    # only after its TCP took the request looks like a reply to any client
    # (the man page says so), and a loaded machine delays this server's.
    proc = spawn(["-v", "--linger", "400ms", srv.url()], stdin=b"", close_stdin=False)
    proc.wait_stdout_lines(1)
    proc.write(b'{"type":"ping"}\n')
    proc.close_stdin()
    res = proc.finish(TIMEOUT)
    assert res.code == 0, res
    assert res.stdout == b'{"type":"welcome"}\n'
    assert "--linger ran out with 1 reply still owed; closing" in res.stderr, res
    assert time.monotonic() - started >= 0.4


def test_reply_match_waits_for_the_result_after_the_ack(spawn, ws_server):
    """An ack, then the result 20 ms later, both with the request's id:
    --reply id --reply-match type=result prints both and exits 0."""
    async def handler(ws, log):
        async for text in ws:
            request = json.loads(text)
            await ws.send(json.dumps({"id": request["id"], "type": "ack"}, separators=(",", ":")))
            await asyncio.sleep(0.02)
            await ws.send(json.dumps({"id": request["id"], "type": "result", "ok": True}, separators=(",", ":")))

    srv = ws_server(handler)
    for run in range(RUNS):
        res = spawn(["--reply", "id", "--reply-match", "type=result", srv.url()],
                    stdin=b'{"id":7,"op":"work"}\n').finish(TIMEOUT)
        assert res.code == 0, f"run {run}: {res}"
        assert res.stdout == b'{"id":7,"type":"ack"}\n{"id":7,"type":"result","ok":true}\n', f"run {run}: {res}"


def test_reply_match_names_a_result_that_never_came(spawn, ws_server):
    async def handler(ws, log):
        async for text in ws:
            await ws.send(json.dumps({"id": json.loads(text)["id"], "type": "ack"}, separators=(",", ":")))

    srv = ws_server(handler)
    res = spawn(["--reply", "id", "--reply-match", "type=result", "--linger", "300ms", srv.url()],
                stdin=b'{"id":7}\n').finish(TIMEOUT)
    assert res.code == 1, res
    assert "no reply for id 7 (--reply)" in res.stderr, res


# -- trace and refusal edges -------------------------------------------------------------


def test_trace_shows_the_frames_that_came_with_the_101(spawn, raw_peer):
    """Autobahn 2.10: ten pings in the segment of the 101. Each is traced,
    and each is answered."""
    peer = raw_peer()
    proc = spawn(["--trace", peer.url()], stdin=None, close_stdin=False)
    conn = peer.accept()
    conn.read_request()
    conn.send_response(body=b"".join(frame(OP_PING, b"ping-%d" % i) for i in range(10)))
    pongs = [conn.recv_frame() for _ in range(10)]
    assert [f.payload for f in pongs] == [b"ping-%d" % i for i in range(10)]
    proc.close_stdin()
    conn.read_until_close()
    res = proc.finish()
    assert res.code == 0, res
    traced = [l for l in res.stderr.splitlines() if re.match(r"wspipe: \S+ < ping fin 6: ping-\d$", l)]
    assert len(traced) == 10, res.stderr
    assert "not a frame" not in res.stderr, res.stderr


@pytest.mark.parametrize("code", [1003, 1009])
def test_a_refusal_close_names_no_message_when_none_was_written(spawn, raw_peer, code):
    """Autobahn 7.7.4/7.7.7: the server closes with 1003 or 1009 on a
    connection that carried no message of wspipe's: no message is blamed."""
    peer = raw_peer()
    proc = spawn(["--no-reconnect", peer.url()], stdin=None, close_stdin=False)
    conn = peer.accept()
    conn.handshake()
    conn.send(frame(0x8, code.to_bytes(2, "big")))
    conn.read_until_close()
    conn.close()
    res = proc.finish()
    assert res.code == 7, res
    assert "refused a message" not in res.stderr and "may be lost" not in res.stderr, res


# -- warnings that mean something: server mode ------------------------------------------------


def test_a_client_that_leaves_with_a_closing_handshake_is_reported_at_v_only(spawn):
    """A mock server's client stops reading, then closes normally and reads
    the rest: what it may not have read is counted (client_disconnected,
    --stats) and said at -v, never as a warning. A client that drops instead
    is a warning."""
    from test_server_mode import listen, raw_client
    lines = b"".join(b'{"n":%d,"pad":"%s"}\n' % (n, b"z" * 1000) for n in range(2000))
    for verbose, closes in (([], True), (["-v"], True), ([], False)):
        server, port = listen(spawn, ["--events", "--stats", "--once", *verbose])
        raw, status = raw_client(port, rcvbuf=64 << 10)
        assert status.startswith("HTTP/1.1 101"), status
        helpers.wait_events(server, "client_connected", 1)
        server.write(lines)
        time.sleep(0.3)   # the client's kernel is full, unread
        if closes:
            raw.sendall(frame(0x8, (1000).to_bytes(2, "big"), mask=b"abcd"))
            raw.settimeout(TIMEOUT)
            while raw.recv(1 << 16):
                pass
        raw.close()
        helpers.wait_events(server, "client_disconnected", 1)
        server.close_stdin()
        res = server.finish(TIMEOUT)
        gone = events(res.stderr, "client_disconnected")
        assert len(gone) == 1 and gone[0]["clean"] == closes, gone
        counted = gone[0]["unconfirmed"] + gone[0].get("unread", 0) + gone[0]["not_sent"]
        assert counted > 0, f"the client stopped reading: {gone}"
        said = [l for l in res.stderr.splitlines() if re.match(r"wspipe: client \d+: ", l)]
        assert len(said) == (0 if closes and not verbose else 1), res
