"""The opening handshake, seen from both sides."""

from __future__ import annotations

import base64
from http import HTTPStatus

import helpers
from peers.raw_peer import OP_TEXT


def test_request_is_a_valid_upgrade(spawn, raw_peer):
    peer = raw_peer()
    proc = spawn([peer.url("/chat/room?x=1&y=%20")], stdin=b"")
    conn = peer.accept()
    req = conn.read_request()
    assert (req.method, req.target, req.version) == ("GET", "/chat/room?x=1&y=%20", "HTTP/1.1")
    assert req.header("Host") == f"127.0.0.1:{peer.port}"
    assert req.header("Upgrade").lower() == "websocket"
    assert "upgrade" in [t.strip().lower() for t in req.header("Connection").split(",")]
    assert req.header("Sec-WebSocket-Version") == "13"
    assert len(base64.b64decode(req.header("Sec-WebSocket-Key"), validate=True)) == 16
    conn.send_response()
    _, close = conn.read_until_close()
    conn.close()
    res = proc.finish()
    assert close is not None and close.close_code == 1000
    assert res.code == 0, res


def test_no_frame_before_the_101_response(spawn, raw_peer):
    peer = raw_peer()
    proc = spawn([peer.url()], stdin=b'{"early":1}\n')
    conn = peer.accept()
    req = conn.handshake(delay=0.3)
    assert req.method == "GET"
    assert conn.received_before_response == b"", "the client sent bytes after its request, before the 101"
    f = conn.recv_frame()
    assert (f.opcode, f.masked, f.payload) == (OP_TEXT, True, b'{"early":1}')
    _, close = conn.read_until_close()
    conn.close()
    assert close is not None and close.close_code == 1000
    assert proc.finish().code == 0


def test_401_exit_4_with_status_line(run, ws_server):
    def reject(connection, request):
        return connection.respond(HTTPStatus.UNAUTHORIZED, "no token\n")

    srv = ws_server(helpers.echo, process_request=reject)
    res = run([srv.url()], stdin=b'{"a":1}\n')
    assert res.code == 4, res
    assert "401 Unauthorized" in res.stderr
    assert res.stderr.startswith("wspipe: ")
    assert res.stdout == b""


def test_403_from_raw_peer_exit_4(spawn, raw_peer):
    peer = raw_peer()
    proc = spawn([peer.url()], stdin=b"")
    conn = peer.accept()
    conn.read_request()
    conn.send_response("403 Forbidden", accept=False, body=b"nope")
    res = proc.finish()
    conn.close()
    assert res.code == 4, res
    assert "403 Forbidden" in res.stderr


def _bad_accept(spawn, raw_peer, accept):
    peer = raw_peer()
    proc = spawn([peer.url()], stdin=b'{"a":1}\n', close_stdin=False)
    conn = peer.accept()
    conn.read_request()
    conn.send_response(accept=accept)
    res = proc.finish()
    sent = conn.pending()
    conn.close()
    return res, sent


def test_missing_accept_header_fails(spawn, raw_peer):
    res, sent = _bad_accept(spawn, raw_peer, False)
    assert 0 < res.code < 128, res
    assert "Sec-WebSocket-Accept" in res.stderr, res
    assert sent == b"", "no data may be sent on a failed handshake"


def test_wrong_accept_header_fails(spawn, raw_peer):
    res, sent = _bad_accept(spawn, raw_peer, base64.b64encode(b"x" * 20).decode())
    assert 0 < res.code < 128, res
    assert "Sec-WebSocket-Accept" in res.stderr, res
    assert sent == b"", "no data may be sent on a failed handshake"


def test_connection_refused_exit_3(run, free_port):
    res = run([f"ws://127.0.0.1:{free_port()}/"], stdin=b"")
    assert res.code == 3, res
    assert "Connection refused" in res.stderr
    assert res.stderr.startswith("wspipe: ")
