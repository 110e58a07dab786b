"""The scripted peer under back-pressure (wspipe(1): SCRIPTED PEER): answers
and heartbeats wait behind a peer that does not read them, as stdin lines
do, so memory stays bounded whatever the peer does, and nothing is lost:
every request is answered once the peer reads again. --heartbeat-interval and
--ping-interval under 10 ms are refused.

The peers are raw sockets with a small receive buffer, so that "does not
read" is exactly that: a server (or a client of --listen) that sends requests
as fast as wspipe takes them and reads nothing until the test says so.
Waits are on what the peers see (wspipe has stopped reading them), never on
a length of time, except the heartbeat test's growth over two seconds.
"""

from __future__ import annotations

import json
import os
import select
import socket
import time

import pytest

import helpers
from peers.raw_peer import OP_TEXT, frame, mask_bytes
from test_server_mode import Receiver, client_id, listen, raw_client, ws_client

J = json.loads

# wspipe's resident memory before it has queued anything is ~10 MiB; the
# bounds below leave room for that, the read buffer and allocator slack. On
# main, answers grew to the channel's 72 MiB output bound (RSS ~113 MiB), and
# heartbeats grew by their size times their rate, without bound.
RSS_BOUND_KIB = 48 * 1024
# The answer twice the request: a peer that reads half of what it is sent.
REQUEST_PAD = "r" * 512
ANSWER = '{"type":"answer","n":${.n},"pad":"' + "a" * 1024 + '"}'


def flood_until_blocked(sock: socket.socket, masked: bool, quiet: float = 1.5,
                        limit: int = 4_000_000) -> tuple[int, bytes]:
    """Sends {"type":"req","n":N} text frames, N from 0, until wspipe has
    taken nothing for `quiet` seconds (it stopped reading us), or `limit`
    requests. Returns how many requests were made and the bytes of them not
    written yet (the rest of the last batch, to write once wspipe reads)."""
    n = 0
    pending = b""
    sock.setblocking(False)
    last_progress = time.monotonic()
    while n < limit:
        if not pending:
            pending = b"".join(frame(OP_TEXT, b'{"type":"req","n":%d,"pad":"%s"}' % (k, REQUEST_PAD.encode()),
                                     mask=os.urandom(4) if masked else None)
                               for k in range(n, n + 256))
            n += 256
        try:
            sent = sock.send(pending)
        except BlockingIOError:
            sent = 0
        if sent:
            pending = pending[sent:]
            last_progress = time.monotonic()
        elif time.monotonic() - last_progress > quiet:
            break
        else:
            select.select([], [sock], [], 0.1)
    return n, pending


def read_answers(sock: socket.socket, pending: bytes, count: int, timeout: float = 60) -> list[int]:
    """Writes what is left of the requests while reading until `count`
    answers arrived; returns their "n" (other frames are left aside)."""
    sock.setblocking(False)
    frames = FrameReader()
    answers: list[int] = []
    deadline = time.monotonic() + timeout
    while len(answers) < count:
        left = deadline - time.monotonic()
        assert left > 0, f"expected {count} answer(s), got {len(answers)}; last {answers[-1:]}"
        readable, writable, _ = select.select([sock], [sock] if pending else [], [], min(left, 0.5))
        if writable:
            try:
                pending = pending[sock.send(pending):]
            except BlockingIOError:
                pass
        if readable:
            chunk = sock.recv(1 << 20)
            assert chunk, f"wspipe closed the connection after {len(answers)} answer(s)"
            for opcode, payload in frames.feed(chunk):
                if opcode == OP_TEXT and (msg := J(payload)).get("type") == "answer":
                    answers.append(msg["n"])
    return answers


class FrameReader:
    """Cuts the frames out of what a socket reads (masked or not)."""

    def __init__(self):
        self.data = b""

    def feed(self, chunk: bytes) -> list[tuple[int, bytes]]:
        self.data += chunk
        out, at = [], 0
        while (parsed := self.parse(at)) is not None:
            opcode, payload, at = parsed
            out.append((opcode, payload))
        self.data = self.data[at:]
        return out

    def parse(self, at: int):
        data = self.data
        if len(data) < at + 2:
            return None
        n, head = data[at + 1] & 0x7F, at + 2
        if n == 126:
            if len(data) < head + 2:
                return None
            n, head = int.from_bytes(data[head:head + 2], "big"), head + 2
        elif n == 127:
            if len(data) < head + 8:
                return None
            n, head = int.from_bytes(data[head:head + 8], "big"), head + 8
        mask = None
        if data[at + 1] & 0x80:
            if len(data) < head + 4:
                return None
            mask, head = data[head:head + 4], head + 4
        if len(data) < head + n:
            return None
        payload = data[head:head + n]
        return data[at] & 0x0F, mask_bytes(payload, mask) if mask else payload, head + n


def small_buffer_server() -> socket.socket:
    """A listening socket whose connections get a 4 KB receive buffer (set
    before accept, so the window is small from the start)."""
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(1)
    lsock.settimeout(10)
    return lsock


def accept_websocket(lsock: socket.socket) -> socket.socket:
    import base64
    import hashlib
    sock, _ = lsock.accept()
    sock.settimeout(10)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, "the client left during the handshake"
        head += chunk
    key = next(line.split(b":", 1)[1].strip() for line in head.split(b"\r\n")
               if line.lower().startswith(b"sec-websocket-key:"))
    accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
    sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    return sock


# -- --answer ------------------------------------------------------------------------------
# Was: a server sending requests faster than it read the answers made wspipe
# queue every answer (434 MB in the run; 113 MB here with the default
# --max-message-size), bounded only by the channel's output limit.


@pytest.mark.needs("proc")
def test_answers_wait_for_a_server_that_does_not_read_them(spawn):
    lsock = small_buffer_server()
    port = lsock.getsockname()[1]
    client = spawn(["-q", "-n", "--route", "*=drop", "--answer", f"req={ANSWER}", f"ws://127.0.0.1:{port}/"],
                   stdin=None)
    sock = accept_websocket(lsock)
    try:
        sent, rest = flood_until_blocked(sock, masked=False)
        rss = helpers.vm_rss_kib(client.proc.pid)
        assert rss < RSS_BOUND_KIB, f"wspipe holds {rss} KiB of answers to a server that reads none of them"
        # The server reads again: every request is answered, in order, none lost.
        assert read_answers(sock, rest, sent) == list(range(sent))
    finally:
        sock.close()
        lsock.close()


@pytest.mark.needs("proc")
def test_listen_answers_wait_for_a_client_that_does_not_read_them(spawn):
    server, port = listen(spawn, ["--events", "--route", "*=drop", "--answer", f"req={ANSWER}"])
    flooder, status = raw_client(port, rcvbuf=4096)
    assert status.startswith("HTTP/1.1 101"), status
    client_id(server, 1)
    try:
        sent, rest = flood_until_blocked(flooder, masked=True)
        rss = helpers.vm_rss_kib(server.proc.pid)
        assert rss < RSS_BOUND_KIB, f"the server holds {rss} KiB of answers to a client that reads none of them"
        # Another client is answered meanwhile.
        with ws_client(port) as other:
            client_id(server, 2)
            other.send('{"type":"req","n":7}')
            assert J(other.recv(timeout=10))["n"] == 7
        assert read_answers(flooder, rest, sent) == list(range(sent))
    finally:
        flooder.close()


# -- --heartbeat -----------------------------------------------------------------------------
# Was: +10 MB/s queued for a server that never read (a heartbeat went into the
# output every interval, whatever waited there).


@pytest.mark.needs("proc")
def test_heartbeats_wait_for_a_server_that_does_not_read(spawn):
    lsock = small_buffer_server()
    port = lsock.getsockname()[1]
    beat = '{"type":"hb","n":${seq},"pad":"' + "h" * (60 << 10) + '"}'
    client = spawn(["-q", "-n", "--heartbeat", beat, "--heartbeat-interval", "10ms", f"ws://127.0.0.1:{port}/"],
                   stdin=None)
    sock = accept_websocket(lsock)
    try:
        # The socket buffers fill within the first second; from then on
        # nothing is written and the heartbeats wait.
        time.sleep(1.0)
        before = helpers.vm_rss_kib(client.proc.pid)
        time.sleep(2.0)   # 200 intervals: 12 MB of heartbeats if they were queued
        after = helpers.vm_rss_kib(client.proc.pid)
        assert after - before < 4096, f"wspipe grew by {after - before} KiB while the server read nothing"
        # The server reads again: the heartbeats go on (one for the intervals missed, then one per interval).
        sock.settimeout(10)
        frames = FrameReader()
        beats = []
        while len(beats) < 40:
            chunk = sock.recv(1 << 20)
            assert chunk, "wspipe closed the connection"
            beats += [J(payload)["n"] for opcode, payload in frames.feed(chunk) if opcode == OP_TEXT]
        assert beats == sorted(beats) and len(set(beats)) == len(beats), "heartbeats out of order or repeated"
    finally:
        sock.close()
        lsock.close()


def test_intervals_under_10ms_are_refused(run):
    for flag, extra in (("--heartbeat-interval", ["--heartbeat", "{}"]), ("--ping-interval", [])):
        for value in ("9ms", "0.0000001s", "0.009"):
            res = run([*extra, flag, value, "ws://127.0.0.1:9/"])
            assert res.code == 2, (flag, value, res)
            assert f"{flag}: " in res.stderr and "at least 10ms" in res.stderr, res.stderr
    # 10 ms itself is accepted (the connection is then refused: exit 3).
    assert run(["--heartbeat", "{}", "--heartbeat-interval", "10ms", "ws://127.0.0.1:9/"]).code == 3
