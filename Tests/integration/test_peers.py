"""Checks of the test harness itself, with no wspipe involved.

The raw peer is checked against RFC 6455's own examples and against the
websockets client (an independent implementation): its handshake is accepted,
its frames are read as intended, and each protocol-violation case makes
websockets fail the connection with the code the wspipe tests expect.
"""

from __future__ import annotations

import os
import stat
import threading

import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

import helpers
from peers.cases import SIZE, VIOLATIONS
from peers.raw_peer import (OP_BINARY, OP_CLOSE, OP_CONT, OP_PING, OP_PONG, OP_TEXT, Frame, RawConn,
                            accept_key, close_frame, frame, mask_bytes)


def test_accept_key_rfc_example():
    # RFC 6455 section 1.3
    assert accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


def test_frame_encoding_rfc_examples():
    # RFC 6455 section 5.7
    assert frame(OP_TEXT, b"Hello") == bytes.fromhex("810548656c6c6f")
    assert frame(OP_TEXT, b"Hello", mask=bytes.fromhex("37fa213d")) == bytes.fromhex("818537fa213d7f9f4d5158")
    assert frame(OP_TEXT, b"Hel", fin=False) == bytes.fromhex("010348656c")
    assert frame(OP_CONT, b"lo") == bytes.fromhex("80026c6f")
    assert frame(OP_PING, b"Hello") == bytes.fromhex("890548656c6c6f")
    assert frame(OP_BINARY, b"\0" * 256)[:4] == bytes.fromhex("827e0100")
    assert frame(OP_BINARY, b"\0" * 65536)[:10] == bytes.fromhex("827f0000000000010000")


def test_frame_length_forcing_and_flags():
    assert frame(OP_TEXT, b"12345", length_bytes=2)[:4] == bytes.fromhex("817e0005")
    assert frame(OP_TEXT, b"x", rsv=4)[0] == 0xC1
    assert frame(0xB, b"")[0] == 0x8B
    assert frame(OP_BINARY, b"ab", length=1 << 20)[:10] == bytes.fromhex("827f0000000000100000")
    assert close_frame(1000, b"bye") == bytes.fromhex("880503e8627965")
    data = os.urandom(1001)
    assert mask_bytes(mask_bytes(data, b"abcd"), b"abcd") == data


def _socketpair_conn(data: bytes) -> RawConn:
    import socket
    a, b = socket.socketpair()
    b.sendall(data)
    b.close()
    return RawConn(a, 2.0)


def test_frame_parser_unmasks_and_reads_lengths():
    payload = os.urandom(70000)
    wire = (frame(OP_TEXT, b"Hello", mask=bytes.fromhex("37fa213d"))
            + frame(OP_BINARY, payload, mask=b"\x01\x02\x03\x04")
            + frame(OP_CLOSE, b"\x03\xe8", mask=b"zzzz"))
    conn = _socketpair_conn(wire)
    f1 = conn.recv_frame()
    assert (f1.opcode, f1.fin, f1.masked, f1.payload) == (OP_TEXT, True, True, b"Hello")
    f2 = conn.recv_frame()
    assert (f2.opcode, f2.payload) == (OP_BINARY, payload)
    frames, close = conn.read_until_close(reply=False)
    assert frames == [] and close.close_code == 1000


def _client_thread(url: str, max_size, send: list, results: dict) -> threading.Thread:
    def body():
        try:
            with connect(url, max_size=max_size, close_timeout=2, open_timeout=5, compression=None) as ws:
                results["subprotocol"] = ws.subprotocol
                for m in send:
                    ws.send(m)
                results["received"] = []
                while True:
                    results["received"].append(ws.recv(timeout=5))
        except ConnectionClosed as exc:
            results["closed"] = exc
        except (InvalidHandshake, Exception) as exc:  # noqa: BLE001
            results["error"] = exc

    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t


def test_raw_peer_handshake_and_frames_with_websockets_client(raw_peer):
    peer = raw_peer()
    results: dict = {}
    t = _client_thread(peer.url("/chat?x=1"), 2**20, ["hi", b"\x00\xff"], results)
    conn = peer.accept()
    req = conn.handshake()
    assert req.method == "GET" and req.target == "/chat?x=1"
    assert req.header("upgrade").lower() == "websocket"
    f1, f2 = conn.recv_frame(), conn.recv_frame()
    assert (f1.opcode, f1.payload, f1.masked) == (OP_TEXT, b"hi", True)
    assert (f2.opcode, f2.payload) == (OP_BINARY, b"\x00\xff")
    conn.send(frame(OP_TEXT, b"caf\xc3", fin=False) + frame(OP_PING, b"p1") + frame(OP_CONT, b"\xa9"))
    pong = conn.recv_frame()
    assert (pong.opcode, pong.payload) == (OP_PONG, b"p1")
    conn.send(close_frame(1000))
    frames, close = conn.read_until_close(reply=False)
    assert close is not None and close.close_code == 1000
    conn.close()
    t.join(5)
    assert "error" not in results, results
    assert results["received"] == ["café"]
    assert results["closed"].rcvd.code == 1000


def test_raw_peer_wrong_accept_is_rejected_by_websockets(raw_peer):
    peer = raw_peer()
    results: dict = {}
    t = _client_thread(peer.url(), 2**20, [], results)
    conn = peer.accept()
    conn.read_request()
    conn.send_response(accept="dGhpcyBpcyB3cm9uZw==")
    t.join(5)
    assert isinstance(results.get("error"), InvalidHandshake), results


# websockets does not check for the minimal length encoding, so that case is
# checked by test_frame_length_forcing_and_flags alone; nor does it limit the
# frames of a message (wspipe's own bound, not a rule of RFC 6455).
CHECKABLE = [v for v in VIOLATIONS if v[0] not in ("non_minimal_16bit_length", "empty_fragments_past_the_frame_limit")]


@pytest.mark.parametrize("name,data,code,max_size", CHECKABLE, ids=[v[0] for v in CHECKABLE])
def test_violation_case_fails_websockets_client_with_same_code(raw_peer, name, data, code, max_size):
    """The bytes of each case make an independent client close with the expected
    code: the case is a real violation of the kind it claims."""
    peer = raw_peer()
    results: dict = {}
    t = _client_thread(peer.url(), SIZE[max_size] if max_size else 2**20, [], results)
    conn = peer.accept()
    conn.handshake()
    conn.send(data)
    if name == "invalid_utf8_in_first_fragment":
        # websockets checks UTF-8 only once the message is complete, so it gets
        # the end of the message; wspipe must fail without it.
        conn.send(frame(OP_CONT, b'cd"'))
    frames, close = conn.read_until_close()
    conn.close()
    t.join(5)
    assert close is not None, f"no Close frame from websockets; frames={frames} results={results}"
    assert close.close_code == code


def test_fifo_descriptors_echo_through_a_process(tmp_path):
    """The fifo trick used by test_echo_exact: a child with stdin and stdout both
    opened read-write on one named pipe reads back what it writes."""
    fifo = tmp_path / "loop"
    os.mkfifo(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    fd = os.open(fifo, os.O_RDWR)
    script = ("import sys,os\n"
              "os.write(1, b'ping\\n')\n"
              "line = sys.stdin.buffer.readline()\n"
              "sys.stderr.write('got ' + line.decode())\n")
    p = helpers.WsProc(["python3", "-c", script], stdin_fd=fd, stdout_fd=fd)
    os.close(fd)
    res = p.finish(5)
    assert res.code == 0 and res.stderr == "got ping\n"


def test_tls_cert_fixture(tls_cert, tls_cert_other):
    import subprocess
    out = subprocess.run(["openssl", "x509", "-in", os.path.join(tls_cert, "cert.pem"), "-noout", "-text"],
                         capture_output=True, text=True, check=True).stdout
    assert "DNS:localhost" in out and "IP Address:127.0.0.1" in out
    other = subprocess.run(["openssl", "x509", "-in", os.path.join(tls_cert_other, "cert.pem"), "-noout", "-text"],
                           capture_output=True, text=True, check=True).stdout
    assert "DNS:other.example" in other and "localhost" not in other
    helpers.server_ssl_context(tls_cert)  # loads


def test_ws_server_fixture_round_trip(ws_server):
    srv = ws_server(helpers.echo)
    with connect(srv.url("/p")) as ws:
        ws.send("x")
        assert ws.recv(timeout=5) == "x"
    assert srv.log.get()[:2] == ("connected", "/p")


def test_tls_server_fixture_with_websockets_client(ws_server, tls_cert, tls_cert_other):
    import ssl
    srv = ws_server(helpers.echo, ssl_context=helpers.server_ssl_context(tls_cert))
    ctx = ssl.create_default_context(cafile=os.path.join(tls_cert, "cert.pem"))
    for host in ("localhost", "127.0.0.1"):
        with connect(srv.url(host=host), ssl=ctx) as ws:
            ws.send("x")
            assert ws.recv(timeout=5) == "x"
    with pytest.raises(ssl.SSLCertVerificationError, match="certificate verify failed"):
        connect(srv.url(host="localhost"), ssl=ssl.create_default_context(), open_timeout=5)
    other = ws_server(helpers.echo, ssl_context=helpers.server_ssl_context(tls_cert_other))
    octx = ssl.create_default_context(cafile=os.path.join(tls_cert_other, "cert.pem"))
    with pytest.raises(ssl.SSLCertVerificationError, match="[Hh]ostname mismatch"):
        connect(other.url(host="localhost"), ssl=octx, open_timeout=5)
