"""--compress: permessage-deflate (RFC 7692) with the websockets library on
the other side (as server and as client of --listen), and a raw peer for
what a library would not send (a decompression bomb, compressed control
frames, a bad negotiation)."""

from __future__ import annotations

import base64
import json
import os
import select
import socket
import zlib

import pytest
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory, ServerPerMessageDeflateFactory
from websockets.sync.client import connect

import helpers
from helpers import FAST_BACKOFF
from peers.raw_peer import OP_BINARY, OP_CONT, OP_PING, OP_TEXT, frame

PMD = [("Sec-WebSocket-Extensions", "permessage-deflate")]


def compressible_json(size: int) -> bytes:
    """One JSON line of about `size` bytes that deflate shrinks a lot."""
    items = []
    n = 0
    while n < size:
        item = {"type": "tick", "seq": len(items), "text": "the same words again and again"}
        items.append(item)
        n += len(json.dumps(item)) + 1
    return json.dumps({"type": "batch", "items": items}, separators=(",", ":")).encode()


def deflate_raw(data: bytes) -> bytes:
    """RFC 7692 §7.2.1: raw deflate, sync flush, the 00 00 ff ff tail removed."""
    c = zlib.compressobj(wbits=-15)
    out = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)
    assert out.endswith(b"\x00\x00\xff\xff")
    return out[:-4]


def inflate_raw(payload: bytes) -> bytes:
    return zlib.decompressobj(wbits=-15).decompress(payload + b"\x00\x00\xff\xff")


def echo_logging_extensions(log_key: str = "extensions"):
    async def handler(ws, log):
        log.put(log_key, ws.request.headers.get("Sec-WebSocket-Extensions"),
                ws.response.headers.get("Sec-WebSocket-Extensions"))
        async for message in ws:
            await ws.send(message)
    return handler


def echo_run(spawn, url: str, lines: list[bytes], args=(), timeout: float = 20):
    proc = spawn(["--compress", *args, url], stdin=b"".join(l + b"\n" for l in lines), close_stdin=False)
    got = proc.wait_stdout_lines(len(lines), timeout)
    proc.close_stdin()
    return got, proc.finish(timeout)


# -- wspipe as the client, websockets as the server ---------------------------

def test_client_negotiates_with_websockets_and_round_trips_2mib(spawn, ws_server):
    srv = ws_server(echo_logging_extensions(), compression="deflate")
    big = compressible_json(2 << 20)
    lines = [b'{"type":"hello"}', big, b'{"type":"bye"}']
    got, res = echo_run(spawn, srv.url(), lines)
    assert res.code == 0, res
    assert got == lines
    _, offer, answer = srv.log.until("extensions")[-1]
    assert offer == "permessage-deflate; client_max_window_bits"
    # websockets' defaults (server and client window 12 bits), which wspipe honours.
    assert answer == "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12"


@pytest.mark.parametrize("factory,expected", [
    (ServerPerMessageDeflateFactory(), "permessage-deflate"),
    (ServerPerMessageDeflateFactory(server_no_context_takeover=True, client_no_context_takeover=True),
     "permessage-deflate; server_no_context_takeover; client_no_context_takeover"),
    # An 8-bit window for the client's compressor: zlib deflates with 9, whose
    # matches never reach back more than 250 bytes, so websockets' 8-bit
    # inflater reads it.
    (ServerPerMessageDeflateFactory(client_max_window_bits=8, server_max_window_bits=9),
     "permessage-deflate; server_max_window_bits=9; client_max_window_bits=8"),
], ids=["context-takeover", "no-context-takeover", "window-bits-8"])
def test_client_context_takeover_modes(spawn, ws_server, factory, expected):
    srv = ws_server(echo_logging_extensions(), compression=None, extensions=[factory])
    block = base64.b64encode(os.urandom(225)).decode()   # 300 characters, repeated at distance 300
    lines = [json.dumps({"n": i, "data": block * 20}).encode() for i in range(5)] + [b'"short"'] * 3
    got, res = echo_run(spawn, srv.url(), lines)
    assert res.code == 0, res
    assert got == lines
    _, _, answer = srv.log.until("extensions")[-1]
    assert answer == expected


def test_server_declining_compression_is_fine(spawn, ws_server):
    srv = ws_server(echo_logging_extensions(), compression=None)
    got, res = echo_run(spawn, srv.url(), [b'{"a":1}'])
    assert res.code == 0, res
    assert got == [b'{"a":1}']
    _, offer, answer = srv.log.until("extensions")[-1]
    assert offer == "permessage-deflate; client_max_window_bits" and answer is None


# -- websockets as the client of wspipe --listen --compress -------------------

def start_listener(spawn, args=()):
    proc = spawn(["--listen", "127.0.0.1:0", *args], stdin=b"", close_stdin=False)
    m = proc.wait_stderr(r"wspipe: listening on (\S+):(\d+)")
    return proc, int(m.group(2))


@pytest.mark.parametrize("factory,expected", [
    (ClientPerMessageDeflateFactory(), "permessage-deflate"),
    (ClientPerMessageDeflateFactory(server_no_context_takeover=True, client_no_context_takeover=True,
                                    server_max_window_bits=10),
     "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10"),
], ids=["context-takeover", "no-context-takeover"])
def test_listener_accepts_websockets_client(spawn, factory, expected):
    proc, port = start_listener(spawn, ["--compress", "--once"])
    big = compressible_json(1 << 20)
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=5, close_timeout=2, compression=None,
                 extensions=[factory], max_size=None) as ws:
        assert ws.response.headers.get("Sec-WebSocket-Extensions") == expected
        for i in range(3):
            ws.send(json.dumps({"type": "hi", "n": i}))
        ws.send(big.decode())
        lines = proc.wait_stdout_lines(4, timeout=10)
        assert lines == [json.dumps({"type": "hi", "n": i}).encode() for i in range(3)] + [big]
        proc.write(big + b"\n" + b'{"to":"client"}\n')
        assert ws.recv(timeout=10) == big.decode()
        assert ws.recv(timeout=5) == '{"to":"client"}'
    res = proc.finish()
    assert res.code == 0, res


def test_listener_without_compress_declines_the_offer(spawn):
    proc, port = start_listener(spawn, ["--once"])
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=5, close_timeout=2, compression="deflate") as ws:
        assert ws.response.headers.get("Sec-WebSocket-Extensions") is None
        ws.send('{"plain":true}')
        assert proc.wait_stdout_lines(1) == [b'{"plain":true}']
    assert proc.finish().code == 0


# -- raw peers ------------------------------------------------------------------

def _connect_raw(spawn, raw_peer, args=(), response_headers=PMD, stdin=b""):
    peer = raw_peer()
    proc = spawn(["--compress", *args, peer.url()], stdin=stdin, close_stdin=False)
    conn = peer.accept()
    conn.handshake(headers=response_headers)
    return proc, conn


def vm_hwm_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmHWM in /proc/{pid}/status")


def test_sent_frames_are_compressed_with_rsv1_on_the_only_frame(spawn, raw_peer):
    big = compressible_json(100_000)
    proc, conn = _connect_raw(spawn, raw_peer, stdin=big + b"\n" + b'{"$binary":"AAEC"}\n')
    first, second = conn.recv_frame(), conn.recv_frame()
    assert (first.opcode, first.fin, first.rsv, first.masked) == (OP_TEXT, True, 4, True)
    assert len(first.payload) < len(big) // 10
    assert inflate_raw(first.payload) == big
    assert (second.opcode, second.rsv) == (OP_BINARY, 4)
    proc.close_stdin()
    _, close = conn.read_until_close()
    assert close is not None and close.rsv == 0, "control frames are never compressed"
    conn.close()
    assert proc.finish().code == 0


def test_compressed_fragmented_message_from_the_server(spawn, raw_peer):
    proc, conn = _connect_raw(spawn, raw_peer)
    payload = deflate_raw(b'{"fragmented":"' + b"x" * 5000 + b'"}')
    third = len(payload) // 3
    conn.send(frame(OP_TEXT, payload[:third], fin=False, rsv=4)
              + frame(OP_PING, b"between")
              + frame(OP_CONT, payload[third:2 * third], fin=False)
              + frame(OP_CONT, payload[2 * third:]))
    pong = conn.recv_frame()
    assert pong.payload == b"between" and pong.rsv == 0
    assert proc.wait_stdout_lines(1) == [b'{"fragmented":"' + b"x" * 5000 + b'"}']
    proc.close_stdin()
    conn.read_until_close()
    conn.close()
    assert proc.finish().code == 0


@pytest.mark.needs("proc")
def test_decompression_bomb_closes_1009_with_bounded_memory(spawn, raw_peer):
    # 64 MiB of zeroes in about 64 KiB of deflate data, in 16 fragments,
    # against a 1 MiB limit; a 1 KiB bomb of 1 MiB + 1 is the small case.
    for size, limit in ((64 << 20, "1M"), ((1 << 20) + 1, "1M")):
        proc, conn = _connect_raw(spawn, raw_peer, ["--max-message-size", limit])
        bomb = deflate_raw(bytes(size))
        assert len(bomb) < size // 500
        pieces = [bomb[i:i + len(bomb) // 16 + 1] for i in range(0, len(bomb), len(bomb) // 16 + 1)]
        data = b"".join(frame(OP_BINARY if i == 0 else OP_CONT, p, fin=i == len(pieces) - 1, rsv=4 if i == 0 else 0)
                        for i, p in enumerate(pieces))
        try:
            conn.send(data)
        except OSError:
            pass   # wspipe may close before all of it is read
        _, close = conn.read_until_close(reply=False)
        assert close is not None and close.close_code == 1009, close
        hwm = vm_hwm_kib(proc.proc.pid)   # still running: it waits for our Close
        assert hwm < 40 << 10, f"peak RSS {hwm} KiB for a {size}-byte bomb"
        conn.close()
        res = proc.finish()
        assert res.code == 5, res
        assert res.stdout == b""


@pytest.mark.parametrize("data", [
    frame(OP_PING, b"x", rsv=4),
    frame(OP_TEXT, deflate_raw(b"ab")[:1], fin=False, rsv=4) + frame(OP_CONT, deflate_raw(b"ab")[1:], rsv=4),
], ids=["compressed-ping", "rsv1-on-continuation"])
def test_rsv1_where_it_may_not_be_is_1002(spawn, raw_peer, data):
    proc, conn = _connect_raw(spawn, raw_peer)
    conn.send(data)
    _, close = conn.read_until_close()
    conn.close()
    res = proc.finish()
    assert close is not None and close.close_code == 1002, res
    assert res.code == 5, res


def test_corrupt_compressed_data_is_1007(spawn, raw_peer):
    proc, conn = _connect_raw(spawn, raw_peer)
    conn.send(frame(OP_TEXT, b"\xff\xff\xff\xff", rsv=4))
    _, close = conn.read_until_close()
    conn.close()
    res = proc.finish()
    assert close is not None and close.close_code == 1007, res
    assert res.code == 5, res


@pytest.mark.parametrize("args,extensions", [
    ((), "permessage-deflate"),                                   # not offered: no --compress
    (("--compress",), "permessage-deflate; server_max_window_bits=16"),
    (("--compress",), "permessage-deflate; mystery_parameter"),
    (("--compress",), "x-other-extension"),
])
def test_server_accepting_what_was_not_offered_fails_exit_5(spawn, raw_peer, args, extensions):
    peer = raw_peer()
    proc = spawn([*args, peer.url()], stdin=b'{"a":1}\n', close_stdin=False)
    conn = peer.accept()
    conn.read_request()
    conn.send_response(headers=[("Sec-WebSocket-Extensions", extensions)])
    res = proc.finish()
    sent = conn.pending()
    conn.close()
    assert res.code == 5, res
    assert "extension" in res.stderr or "permessage-deflate" in res.stderr, res
    assert sent == b"", "no data may be sent on a failed handshake"


def test_unsent_compressed_messages_are_resent_exactly_after_a_drop(spawn, raw_peer):
    """The first server never reads and then resets the connection; what
    wspipe had not written is re-sent on the next connection (uncompressed
    this time) as the original messages, in order."""
    peer = raw_peer()
    peer.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    # The first message is incompressible and larger than any socket buffer
    # (net.ipv4.tcp_wmem allows at most 4 MiB): once its first bytes arrive,
    # its frame is in wspipe's output until the drop, never written whole.
    blobs = [os.urandom(12 << 20)] + [os.urandom(1000) for _ in range(5)]
    lines = [b'{"$binary":"' + base64.b64encode(b) + b'"}' for b in blobs]
    proc = spawn(["-vv", "--compress", *FAST_BACKOFF, peer.url()], stdin=b"".join(l + b"\n" for l in lines),
                 close_stdin=False)
    first = peer.accept()
    first.handshake(headers=PMD)
    readable, _, _ = select.select([first.sock], [], [], 10)
    assert readable, "nothing arrived from wspipe"
    # An accepted socket inherits the listener's receive buffer: the second
    # connection, which takes the whole 12 MiB, gets a normal one (with 4 KiB
    # it took 27 s on a busy machine, and the test timed out).
    peer.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    first.abort()
    second = peer.accept(timeout=10)
    second.handshake()   # no compression this time
    proc.wait_stderr(r"\d+ message\(s\) did not reach the server; queued again")
    received = []
    while len(received) < len(blobs):
        f = second.recv_frame(timeout=10)
        assert f.opcode == OP_BINARY and f.rsv == 0, f
        received.append(f.payload)
    assert received == blobs, "every message again, exact and in order"
    proc.close_stdin()
    second.read_until_close()
    second.close()
    assert proc.finish().code == 0
