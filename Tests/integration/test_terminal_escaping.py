"""Peer text at a terminal (README, Lines and messages; wspipe(1): LINES AND
MESSAGES): whatever a server or a client sends, nothing reaches a terminal
that could drive it (C0 and C1 controls, DEL, bidirectional overrides), in
every mode; into a pipe the same bytes are exact.

The terminal is a real pseudo-terminal (Python's pty), put in raw mode so
that the line discipline passes the bytes through as written (no LF to
CR LF): what the test reads from the master side is exactly what wspipe
wrote to its stdout.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import struct
import threading
import time
import tty

import helpers
from helpers import events
from peers.raw_peer import OP_CLOSE, accept_key, frame
from test_server_mode import listen, ws_client

# What must never reach a terminal raw: ESC, BEL, C1 CSI (U+009B) and NEL
# (U+0085) in UTF-8, DEL, RLO (U+202E), LRI (U+2066), RLM (U+200F), U+2028,
# the byte-order mark, and a lone 0x9B byte.
RAW = [b"\x1b", b"\x07", b"\xc2\x9b", b"\xc2\x85", b"\x7f", b"\xe2\x80\xae", b"\xe2\x81\xa6", b"\xe2\x80\x8f", b"\xe2\x80\xa8", b"\xef\xbb\xbf"]

# A JSON text with C1 controls, DEL and bidi controls raw inside a string
# (ESC cannot stand raw in JSON: a server escapes it as \u001b).
JSON_MESSAGE = '{"a":"x\u009b31my\u202ez\u007f\u2066w\u0085\u200f\u2028\ufeff"}'
JSON_ESCAPED = b'{"a":"x\\u009b31my\\u202ez\\u007f\\u2066w\\u0085\\u200f\\u2028\\ufeff"}\n'

TEXT_MESSAGE = "a\x1b]0;pwned\x07b\u009bc\u202ed\te\nf\rg"
TEXT_ESCAPED = b"a\\x1b]0;pwned\\x07b\\x9bc\\u202ed\te\nf\\x0dg\n"

BINARY_MESSAGE = b"\x1b[2J\x9b\xffok\n"
BINARY_ESCAPED = b"\\x1b[2J\\x9b\\xffok\n\n"


class Terminal:
    """A pseudo-terminal in raw mode; `slave` goes to wspipe, the master is read in a thread."""

    def __init__(self):
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        self.buf = bytearray()
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 1 << 16)
            except OSError:  # EIO: every slave descriptor is closed
                chunk = b""
            with self.cond:
                if not chunk:
                    self.cond.notify_all()
                    return
                self.buf += chunk
                self.cond.notify_all()

    def wait_for(self, needle: bytes, timeout: float = helpers.EVENT_TIMEOUT) -> bytes:
        deadline = time.monotonic() + timeout
        with self.cond:
            while needle not in self.buf:
                left = deadline - time.monotonic()
                assert left > 0, f"{needle!r} not on the terminal within {timeout}s: {bytes(self.buf)[-800:]!r}"
                self.cond.wait(left)
            return bytes(self.buf)

    def wait_lines(self, n: int, timeout: float = helpers.EVENT_TIMEOUT) -> bytes:
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.buf.count(b"\n") < n:
                left = deadline - time.monotonic()
                assert left > 0, f"{n} lines not on the terminal within {timeout}s: {bytes(self.buf)[-800:]!r}"
                self.cond.wait(left)
            return bytes(self.buf)

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def release(self) -> None:
        """The test's own copy of the slave: closed once wspipe has it."""
        if self.slave >= 0:
            os.close(self.slave)
            self.slave = -1

    def close(self) -> None:
        self.release()
        self.thread.join(2)
        os.close(self.master)

    def data(self) -> bytes:
        with self.cond:
            return bytes(self.buf)


def assert_nothing_raw(data: bytes, allow_colour: bool = False) -> None:
    shown = data
    if allow_colour:
        # wspipe's own colours are the only escape sequences allowed.
        shown = re.sub(rb"\x1b\[[0-9;]*m", b"", data)
    for raw in RAW:
        assert raw not in shown, f"{raw!r} reached the terminal raw: {data[-800:]!r}"
    assert b"\x9b" not in shown.replace(b"\\x9b", b""), f"a 0x9B byte reached the terminal: {data[-800:]!r}"


def at_terminal(spawn, args, env=None, stdin_tty=False):
    term = Terminal()
    proc = spawn(args, stdin=b"", close_stdin=not stdin_tty, stdout_fd=term.slave,
                 stdin_fd=term.slave if stdin_tty else None, env=env)
    term.release()
    return term, proc


def serve(ws_server, *messages):
    return ws_server(helpers.send_then_close(list(messages)))


# -- stdout at a terminal, each mode ------------------------------------------------------


def test_json_mode_escapes_c1_del_and_bidi_inside_strings(spawn, ws_server):
    srv = serve(ws_server, JSON_MESSAGE)
    term, proc = at_terminal(spawn, ["-n", srv.url()])
    try:
        res = proc.finish()
        assert res.code == 0, res
        data = term.wait_for(b"\n")
        assert data == JSON_ESCAPED, data
        assert json.loads(data) == json.loads(JSON_MESSAGE), "the line shown is the same JSON value"
        assert_nothing_raw(data)
    finally:
        term.close()


def test_json_mode_in_colour_escapes_before_colouring(spawn, ws_server):
    srv = serve(ws_server, JSON_MESSAGE, "not json \x1b[2J\u009b\u202e")
    term, proc = at_terminal(spawn, ["-n", srv.url()], env={"NO_COLOR": ""})
    try:
        assert proc.finish().code == 0
        data = term.wait_lines(2)
        assert b"\x1b[" in data, "colours at a terminal"
        assert_nothing_raw(data, allow_colour=True)
        plain = re.sub(rb"\x1b\[[0-9;]*m", b"", data)
        assert plain.split(b"\n")[:2] == [JSON_ESCAPED[:-1], b'{"$text":"not json \\u001b[2J\\u009b\\u202e"}'], plain
    finally:
        term.close()


def test_text_mode_escapes_controls_and_keeps_lines_and_tabs(spawn, ws_server):
    srv = serve(ws_server, TEXT_MESSAGE)
    term, proc = at_terminal(spawn, ["-t", "-n", srv.url()])
    try:
        assert proc.finish().code == 0
        data = term.wait_for(b"g\n")
        assert data == TEXT_ESCAPED, data
        assert_nothing_raw(data)
    finally:
        term.close()


def test_raw_binary_output_escapes_every_byte_a_terminal_acts_on(spawn, ws_server):
    srv = serve(ws_server, BINARY_MESSAGE)
    term, proc = at_terminal(spawn, ["-b", "-n", "--binary-output", "raw", srv.url()])
    try:
        assert proc.finish().code == 0
        data = term.wait_for(b"ok\n\n")
        assert data == BINARY_ESCAPED, data
        assert_nothing_raw(data)
    finally:
        term.close()


def test_server_mode_stdout_at_a_terminal(spawn):
    term = Terminal()
    server = spawn(["--listen", "127.0.0.1:0/", "--tag"], stdin=b"", close_stdin=False, stdout_fd=term.slave)
    term.release()
    try:
        port = int(server.wait_stderr(r"listening on \S+:(\d+)").group(1))
        with ws_client(port) as c:
            c.send(JSON_MESSAGE)
            data = term.wait_for(b"\n")
            server.close_stdin()  # stdin EOF with a client connected: the server closes and exits
            assert server.finish().code == 0
        assert data == b'{"$client":1,' + JSON_ESCAPED[1:], data
        assert_nothing_raw(data)
    finally:
        term.close()


def test_server_mode_tag_at_a_colour_terminal(spawn):
    """--tag with stdout a colour terminal: every line still names its client.
    Was: the member went into the coloured line, which starts with an escape
    sequence, so no line at a terminal had a "$client" at all."""
    term = Terminal()
    server = spawn(["--listen", "127.0.0.1:0/", "--tag"], stdin=b"", close_stdin=False, stdout_fd=term.slave,
                   env={"NO_COLOR": ""})
    term.release()
    try:
        port = int(server.wait_stderr(r"listening on \S+:(\d+)").group(1))
        with ws_client(port) as c:
            c.send(JSON_MESSAGE)
            c.send("not json \u009b")
            c.send(b"\x01\x02")
            data = term.wait_lines(3)
            server.close_stdin()
            assert server.finish().code == 0
        assert b"\x1b[" in data, "colours at a terminal"
        assert_nothing_raw(data, allow_colour=True)
        plain = re.sub(rb"\x1b\[[0-9;]*m", b"", data)
        assert plain.split(b"\n")[:3] == [b'{"$client":1,' + JSON_ESCAPED[1:-1],
                                          b'{"$client":1,"$text":"not json \\u009b"}',
                                          b'{"$client":1,"$binary":"AQI="}'], plain
    finally:
        term.close()


def test_interactive_transcript_escapes_bidi_and_c1(spawn, ws_server):
    srv = serve(ws_server, JSON_MESSAGE)
    term, proc = at_terminal(spawn, ["--no-reconnect", srv.url()], stdin_tty=True)
    try:
        data = term.wait_for(b"\\u202e")
        term.write(b"\x04")  # Ctrl-D: stdin EOF
        proc.finish()
        data = term.data()
        assert b"\\u009b" in data and b"\\u2066" in data, data
        # The console draws with its own sequences (ESC [ ...), never the peer's.
        assert_nothing_raw(re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", data))
    finally:
        term.close()


def test_write_out_values_from_the_peer_are_escaped_at_a_terminal(spawn, raw_peer):
    """-w's url_effective is the server's Location. Its RLO and C1 CSI were
    escaped at a terminal and exact in a pipe; they are now percent-encoded
    in the next request, as curl does (issue 33 item 9), so the URL holds
    nothing a terminal could take for a control, in a pipe or not."""
    for at_a_tty in (True, False):
        peer = raw_peer()
        args = ["-L", "-n", "--no-reconnect", "-w", "%{url_effective}\\n", peer.url()]
        if at_a_tty:
            term, proc = at_terminal(spawn, args)
        else:
            proc = spawn(args, stdin=b"")
        conn = peer.accept()
        conn.read_request()
        conn.sock.sendall("HTTP/1.1 302 Found\r\nLocation: /a\u202eb\u009bc\r\nContent-Length: 0\r\n\r\n".encode())
        conn.close()
        conn = peer.accept()
        conn.handshake()
        conn.send(frame(OP_CLOSE, struct.pack("!H", 1000)))
        conn.read_until_close(reply=False)
        conn.close()
        res = proc.finish()
        assert res.code == 0, res
        url = peer.url("/a").encode()
        if at_a_tty:
            try:
                data = term.wait_for(b"\n")
            finally:
                term.close()
            assert data == url + b"%E2%80%AEb%C2%9Bc\n", data
            assert_nothing_raw(data)
        else:
            assert res.stdout == url + b"%E2%80%AEb%C2%9Bc\n", res


# -- in a pipe: exact ---------------------------------------------------------------------


def test_in_a_pipe_every_byte_is_exact(run, ws_server):
    srv = serve(ws_server, JSON_MESSAGE)
    assert run(["-n", srv.url()]).stdout == JSON_MESSAGE.encode() + b"\n"
    srv = serve(ws_server, TEXT_MESSAGE)
    assert run(["-t", "-n", srv.url()]).stdout == TEXT_MESSAGE.encode() + b"\n"
    srv = serve(ws_server, BINARY_MESSAGE)
    assert run(["-b", "-n", "--binary-output", "raw", srv.url()]).stdout == BINARY_MESSAGE + b"\n"


# -- stderr: always escaped ---------------------------------------------------------------


def test_an_unoffered_subprotocol_is_not_printed_raw(spawn, raw_peer):
    for value in ("\x1b]0;pwned\x07", "chat\u202e\u009b"):
        peer = raw_peer()
        proc = spawn(["--protocol", "chat", peer.url()])
        conn = peer.accept()
        request = conn.read_request()
        conn.sock.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Accept: {accept_key(request.header('Sec-WebSocket-Key'))}\r\n"
                           f"Sec-WebSocket-Protocol: {value}\r\n\r\n").encode())
        res = proc.finish()
        conn.close()
        assert res.code == 5, res
        assert "not offered" in res.stderr, res
        err = res.stderr.encode()
        assert_nothing_raw(err)
        assert (b"\\x1b]0;pwned\\x07" if value.startswith("\x1b") else b"chat\\u202e\\x9b") in err, res


def test_reasons_and_events_on_stderr_are_escaped_and_keep_their_value(spawn, raw_peer):
    reason = "bye \u009b\u202e\x1b[2J".encode()
    peer = raw_peer()
    proc = spawn(["--events", "--no-reconnect", peer.url()], stdin=b"", close_stdin=False)
    conn = peer.accept()
    conn.handshake()
    conn.send(frame(OP_CLOSE, struct.pack("!H", 4000) + reason))
    conn.read_until_close(reply=False)
    conn.close()
    res = proc.finish()
    err = res.stderr.encode()
    assert_nothing_raw(err)
    assert b"bye \\x9b\\u202e\\x1b[2J" in err, res
    disconnected = events(res.stderr, "disconnected")
    assert [e["reason"] for e in disconnected] == [reason.decode()], "the event is JSON: escaped, same value"
