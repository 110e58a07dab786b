"""Frames a server must not send, and the client's answer: a Close with the
right code and exit status 5. Also the valid edge cases around them."""

from __future__ import annotations

import pytest

from peers.cases import VIOLATIONS
from peers.raw_peer import OP_CONT, OP_PING, OP_PONG, OP_TEXT, close_frame, frame


def _connect(spawn, raw_peer, args=(), stdin=b"", close_stdin=False):
    peer = raw_peer()
    proc = spawn([*args, peer.url()], stdin=stdin, close_stdin=close_stdin)
    conn = peer.accept()
    conn.handshake()
    return proc, conn


@pytest.mark.parametrize("name,data,code,max_size", VIOLATIONS, ids=[v[0] for v in VIOLATIONS])
def test_violation_closes_with_code_and_exit_5(spawn, raw_peer, name, data, code, max_size):
    args = ["--max-message-size", max_size] if max_size else []
    proc, conn = _connect(spawn, raw_peer, args)
    conn.send(data)
    frames, close = conn.read_until_close()
    conn.close()
    res = proc.finish()
    assert close is not None, f"client sent no Close frame (frames before EOF: {frames}); {res}"
    assert close.masked, "client frames must be masked"
    assert close.close_code == code, f"Close code {close.close_code}, expected {code}; {res}"
    assert res.code == 5, res
    assert res.stdout == b"", "nothing from a violating stream may reach stdout"
    assert res.stderr.startswith("wspipe: "), res


def test_fragmented_text_with_ping_between_fragments(spawn, raw_peer):
    proc, conn = _connect(spawn, raw_peer)
    conn.send(frame(OP_TEXT, b'{"a":', fin=False) + frame(OP_PING, b"ping-payload") + frame(OP_CONT, b"1}"))
    pong = conn.recv_frame()
    assert (pong.opcode, pong.payload, pong.masked) == (OP_PONG, b"ping-payload", True)
    assert proc.wait_stdout_lines(1) == [b'{"a":1}']
    conn.send(close_frame(1000))
    _, close = conn.read_until_close(reply=False)
    conn.close()
    res = proc.finish()
    assert close is not None and close.close_code == 1000
    assert res.code == 0, res
    assert res.stdout == b'{"a":1}\n'


def test_utf8_character_split_across_fragments_is_valid(spawn, raw_peer):
    proc, conn = _connect(spawn, raw_peer)
    conn.send(frame(OP_TEXT, b'"caf\xc3', fin=False) + frame(OP_CONT, b'\xa9"'))
    conn.send(close_frame(1000))
    conn.read_until_close(reply=False)
    conn.close()
    res = proc.finish()
    assert res.code == 0, res
    assert res.stdout == '"café"\n'.encode()


def test_ping_is_answered_with_same_payload(spawn, raw_peer):
    proc, conn = _connect(spawn, raw_peer)
    conn.send(frame(OP_PING, b"\x00\x01\xfe\xff" * 31))
    pong = conn.recv_frame()
    assert (pong.opcode, pong.fin, pong.payload) == (OP_PONG, True, b"\x00\x01\xfe\xff" * 31)
    conn.send(close_frame(1000))
    conn.read_until_close(reply=False)
    conn.close()
    assert proc.finish().code == 0


def test_server_close_1000_is_echoed_and_exit_0(spawn, raw_peer):
    proc, conn = _connect(spawn, raw_peer)
    conn.send(frame(OP_TEXT, b'{"bye":true}') + close_frame(1000, b"done"))
    frames, close = conn.read_until_close(reply=False)
    conn.close()
    res = proc.finish()
    assert close is not None, f"no Close echoed; frames={frames}"
    assert close.close_code == 1000
    assert res.code == 0, res
    assert res.stdout == b'{"bye":true}\n'


def test_abrupt_tcp_close_exit_3_without_reconnect(spawn, raw_peer):
    proc, conn = _connect(spawn, raw_peer, ["--no-reconnect"])
    conn.send(frame(OP_TEXT, b'{"n":1}'))
    assert proc.wait_stdout_lines(1) == [b'{"n":1}']
    conn.close()
    res = proc.finish()
    assert res.code == 3, res
    assert res.stderr.startswith("wspipe: "), res
    assert res.stdout == b'{"n":1}\n'


def test_connection_reset_exit_3_without_reconnect(spawn, raw_peer):
    proc, conn = _connect(spawn, raw_peer, ["--no-reconnect"])
    conn.send(frame(OP_TEXT, b"[1]"))
    proc.wait_stdout_lines(1)
    conn.abort()
    res = proc.finish()
    assert res.code == 3, res
    assert res.stderr.startswith("wspipe: "), res


def test_close_timeout_when_server_never_answers_close(spawn, raw_peer):
    """stdin EOF: Close 1000 goes out; the peer never answers, so wspipe gives
    up after --close-timeout and still exits 0."""
    proc, conn = _connect(spawn, raw_peer, ["--close-timeout", "300ms"], stdin=b'{"x":1}\n', close_stdin=True)
    frames, close = conn.read_until_close(reply=False)
    assert [(f.opcode, f.payload) for f in frames] == [(OP_TEXT, b'{"x":1}')]
    assert close is not None and close.close_code == 1000
    res = proc.finish(timeout=5)
    conn.close()
    assert res.code == 0, res


def test_frames_split_byte_by_byte_and_coalesced(spawn, raw_peer):
    """The frame parser copes with any TCP segmentation."""
    import socket
    proc, conn = _connect(spawn, raw_peer)
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    big = b'"' + b"y" * 300 + b'"'
    for b in frame(OP_TEXT, b'{"split":true}') + frame(OP_TEXT, big):
        conn.send(bytes([b]))
    conn.send(frame(OP_TEXT, b"[1]") + frame(OP_TEXT, b"[2]") + frame(OP_TEXT, b"[3]") + close_frame(1000))
    _, close = conn.read_until_close(reply=False)
    conn.close()
    res = proc.finish()
    assert close is not None and close.close_code == 1000
    assert res.code == 0, res
    assert res.lines == ['{"split":true}', big.decode(), "[1]", "[2]", "[3]"]


@pytest.mark.parametrize("stamps", ["1", "0"], ids=["stamps", "bound"])
def test_messages_the_server_took_before_it_broke_the_protocol_are_not_reported(spawn, raw_peer, stamps):
    """Autobahn 3.4, 4.1.5, 4.2.5 (issue 30): the server takes our messages,
    its TCP acknowledges them, then it sends a frame with reserved bits and
    answers our Close. The bytes that broke the protocol were written by its
    application after it had them: nothing is unconfirmed, and the run says
    only what went wrong (exit 5)."""
    import time
    peer = raw_peer()
    proc = spawn(["--no-reconnect", peer.url()], stdin=b'{"n":1}\n{"n":2}\n{"n":3}\n',
                 close_stdin=False,
                 env={"WSPIPE_KERNEL_TIMESTAMPS": stamps})
    conn = peer.accept()
    conn.handshake()
    got = [conn.recv_frame().payload for _ in range(3)]
    assert got == [b'{"n":1}', b'{"n":2}', b'{"n":3}']
    time.sleep(0.3)   # its TCP acknowledges them before it speaks again
    conn.send(bytes([0x81 | 0x40, 2]) + b"hi")
    frames, close = conn.read_until_close()
    conn.close()
    res = proc.finish()
    assert close is not None and close.close_code == 1002, res
    assert res.code == 5, res
    assert "reserved bits" in res.stderr, res
    assert "unconfirmed" not in res.stderr and "lost" not in res.stderr, res
