"""Checks of the fault-injecting server (peers/fault_server.py), no wspipe.

Each fault is checked from the client side with the websockets client (an
independent implementation) or a raw socket client, so the reconnect tests
can trust that "drop with FIN", "RST", "silent peer", ... mean what they say.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import time

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from peers.fault_server import Behaviour, FaultServer, echo, is_seq, realtime
from peers.raw_peer import OP_CLOSE, OP_PING, OP_PONG, OP_TEXT, accept_key, frame


class RawClient:
    """A minimal client: handshake by hand, masked frames out, frames in."""

    def __init__(self, port: int, protocols: list[str] | None = None, timeout: float = 3.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.settimeout(timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        extra = f"Sec-WebSocket-Protocol: {', '.join(protocols)}\r\n" if protocols else ""
        self.sock.sendall((f"GET /t HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                           f"{extra}\r\n").encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(4096)
            assert chunk, f"server closed during the handshake: {self.buf!r}"
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        self.head = head.decode("latin-1")
        self.status = int(self.head.split(" ", 2)[1])
        if self.status == 101:
            assert f"Sec-WebSocket-Accept: {accept_key(key)}" in self.head

    def send(self, opcode: int, payload: bytes = b"") -> None:
        self.sock.sendall(frame(opcode, payload, mask=os.urandom(4)))

    def recv_frame(self) -> tuple[int, bytes]:
        while True:
            if len(self.buf) >= 2:
                n, pos = self.buf[1] & 0x7F, 2
                if n == 126 and len(self.buf) >= 4:
                    n, pos = struct.unpack("!H", self.buf[2:4])[0], 4
                if n < 126 and len(self.buf) >= pos + n:
                    op, payload = self.buf[0] & 0x0F, self.buf[pos:pos + n]
                    self.buf = self.buf[pos + n:]
                    return op, payload
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("server sent FIN")
            self.buf += chunk

    def frames_for(self, seconds: float) -> list[tuple[int, bytes]]:
        """Every frame that arrives within `seconds` (the socket must stay open)."""
        out = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.sock.settimeout(left)
            try:
                out.append(self.recv_frame())
            except socket.timeout:
                break
        return out

    def close(self) -> None:
        self.sock.close()


def test_messages_are_recorded_per_connection_and_answered(fault_server):
    srv = fault_server(responder=echo)
    for i in range(2):
        with connect(srv.url(), open_timeout=3, close_timeout=2) as ws:
            ws.send(f"hello {i}")
            assert ws.recv(timeout=3) == f"hello {i}"
            ws.send(json.dumps({"i": i}))
            assert json.loads(ws.recv(timeout=3)) == {"i": i}
        srv.wait_ended(i)
    assert [c.messages for c in srv.conns] == [["hello 0", '{"i": 0}'], ["hello 1", '{"i": 1}']]
    assert [c.index for c in srv.conns] == [0, 1]
    assert srv.conns[0].log[-1][0] == "close" and srv.conns[0].log[-1][1] == 1000


def test_realtime_responder_and_mute(fault_server):
    srv = fault_server(default=Behaviour(mute_when=is_seq(1)), responder=realtime())
    with connect(srv.url(), open_timeout=3, close_timeout=2) as ws:
        ws.send('{"type":"session_init"}')
        assert json.loads(ws.recv(timeout=3)) == {"type": "session_started", "session_id": "abc123"}
        for n in range(3):
            ws.send(json.dumps({"type": "audio_chunk", "sequence": n, "audio": "AAAA"}))
        got = [json.loads(ws.recv(timeout=3)) for _ in range(2)]
        assert [g["sequence"] for g in got] == [0, 2]
        assert got[0]["type"] == "result"
    assert len(srv.wait_messages(0, 4)) == 4


@pytest.mark.parametrize("how", ["fin", "rst"])
def test_drop_after_k_messages(fault_server, how):
    srv = fault_server(default=Behaviour(drop_after=2, drop=how))
    c = RawClient(srv.port)
    c.send(OP_TEXT, b"one")
    c.send(OP_TEXT, b"two")
    if how == "fin":
        with pytest.raises(EOFError):
            c.recv_frame()
    else:
        with pytest.raises(ConnectionResetError):
            c.recv_frame()
            c.recv_frame()
    c.close()
    conn = srv.wait_ended(0)
    assert conn.messages == ["one", "two"]
    assert ("dropped", how) in conn.log
    assert conn.count("sent_close") == 0


def test_drop_is_seen_by_websockets_as_no_close_frame(fault_server):
    srv = fault_server(default=Behaviour(drop_after=1))
    with connect(srv.url(), open_timeout=3) as ws:
        ws.send("x")
        with pytest.raises(ConnectionClosed) as info:
            ws.recv(timeout=3)
    assert info.value.rcvd is None  # 1006: no Close frame came


def test_drop_from_the_test_thread(fault_server):
    srv = fault_server()
    c = RawClient(srv.port)
    srv.wait_open(0).drop("rst")
    with pytest.raises(ConnectionResetError):
        c.recv_frame()
    c.close()


def test_close_1001_after_k_messages(fault_server):
    srv = fault_server(default=Behaviour(close_after=1))
    with connect(srv.url(), open_timeout=3, close_timeout=2) as ws:
        ws.send("x")
        with pytest.raises(ConnectionClosed) as info:
            ws.recv(timeout=3)
    assert info.value.rcvd.code == 1001 and info.value.rcvd.reason == "going away"
    conn = srv.wait_ended(0)
    assert ("sent_close", 1001) in conn.log and conn.log[-1][:2] == ("close", 1001)


def test_pings_answered_with_same_payload(fault_server):
    srv = fault_server()
    c = RawClient(srv.port)
    c.send(OP_PING, b"p-1")
    assert c.recv_frame() == (OP_PONG, b"p-1")
    c.close()
    assert srv.wait_log(0, "ping") == [("ping", b"p-1")]


def test_silent_peer_keeps_socket_open_and_never_pongs(fault_server):
    srv = fault_server(default=Behaviour(answer_pings=False))
    c = RawClient(srv.port)
    c.send(OP_PING, b"p-1")
    c.send(OP_PING, b"p-2")
    assert c.frames_for(0.3) == []  # no pong, and no FIN/RST (recv_frame would raise)
    c.send(OP_TEXT, b"still there")
    srv.wait_messages(0, 1)
    assert srv.conns[0].count("ping") == 2 and not srv.conns[0].ended
    c.close()


def test_unsolicited_pongs_carry_another_payload(fault_server):
    srv = fault_server(default=Behaviour(answer_pings=False, pong_every=0.05))
    c = RawClient(srv.port)
    c.send(OP_PING, b"mine")
    got = c.frames_for(0.3)
    assert len(got) >= 2 and set(got) == {(OP_PONG, b"unsolicited")}
    c.close()


def test_client_close_is_echoed(fault_server):
    srv = fault_server()
    c = RawClient(srv.port)
    c.send(OP_CLOSE, struct.pack("!H", 1000))
    assert c.recv_frame() == (OP_CLOSE, struct.pack("!H", 1000))
    with pytest.raises(EOFError):
        c.recv_frame()
    c.close()


def test_stop_listening_refuses_then_same_port_comes_back(fault_server):
    srv = fault_server()
    port = srv.port
    srv.stop_listening()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2)
    srv.start_listening()
    assert srv.port == port
    c = RawClient(port)
    assert c.status == 101
    c.close()
    assert len(srv.conns) == 1  # the refused attempt never reached the server


def test_open_connection_survives_stop_listening(fault_server):
    srv = fault_server(responder=echo)
    c = RawClient(srv.port)
    srv.stop_listening()
    c.send(OP_TEXT, b"hi")
    assert c.recv_frame() == (OP_TEXT, b"hi")
    c.close()


@pytest.mark.parametrize("status", [401, 503])
def test_handshake_rejections_then_accept(fault_server, status):
    srv = fault_server(behaviours=[Behaviour(status=status), Behaviour(status=status)])
    for _ in range(2):
        with pytest.raises(InvalidStatus) as info:
            connect(srv.url(), open_timeout=3)
        assert info.value.response.status_code == status
    with connect(srv.url(), open_timeout=3) as ws:
        ws.send("ok")
    srv.wait_messages(2, 1)
    assert [c.log[0] for c in srv.conns[:2]] == [("rejected", status)] * 2
    assert srv.conns[2].log[0] == ("open", "/")
    assert [c.index for c in srv.opened] == [2]


def test_subprotocol_selected_when_offered(fault_server):
    srv = fault_server(default=Behaviour(protocol="chat"))
    with connect(srv.url(), subprotocols=["other", "chat"], open_timeout=3) as ws:
        assert ws.subprotocol == "chat"
    c = RawClient(srv.port)
    assert "Sec-WebSocket-Protocol" not in c.head
    c.close()


def test_behaviour_change_while_running(fault_server):
    srv = fault_server()
    c = RawClient(srv.port)
    c.send(OP_PING, b"a")
    assert c.recv_frame() == (OP_PONG, b"a")
    srv.conns[0].set(answer_pings=False)
    srv.wait_log(0, "ping")
    c.send(OP_PING, b"b")
    assert c.frames_for(0.2) == []
    srv.conns[0].send_text("pushed")
    assert c.recv_frame() == (OP_TEXT, b"pushed")
    c.close()


def test_fragmented_message_is_reassembled(fault_server):
    srv = fault_server()
    c = RawClient(srv.port)
    c.sock.sendall(frame(OP_TEXT, b"ab", fin=False, mask=b"1234") + frame(0, b"cd", mask=b"5678"))
    assert srv.wait_messages(0, 1) == ["abcd"]
    c.close()


def test_close_drops_everything(fault_server):
    srv = FaultServer()
    c = RawClient(srv.port)
    srv.wait_open(0)
    srv.close()
    with pytest.raises((ConnectionResetError, EOFError)):
        c.recv_frame()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", srv.port), timeout=2)


@pytest.mark.parametrize("how", ["fin", "rst"])
def test_answers_sent_before_a_drop_reach_the_client(fault_server, how):
    """Many small answers, then a drop: the client still reads every answer
    before the EOF or the reset (nothing stays in the server's send queue)."""
    srv = fault_server(default=Behaviour(drop_when=lambda t: t == "last", drop=how), responder=echo)
    c = RawClient(srv.port)
    for i in range(50):
        c.send(OP_TEXT, f"m{i}".encode())
    c.send(OP_TEXT, b"last")
    srv.wait_ended(0)
    time.sleep(0.05)  # let the reset arrive before we read: the answers must still be there
    got = []
    with pytest.raises((EOFError, ConnectionResetError)):
        while True:
            got.append(c.recv_frame())
    assert got == [(OP_TEXT, f"m{i}".encode()) for i in range(50)] + [(OP_TEXT, b"last")]
    c.close()
