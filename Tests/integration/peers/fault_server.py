"""A fault-injecting WebSocket server for the reconnect/keepalive/replay tests.

Raw sockets (no websockets library): the server must be able to misbehave in
ways a real server library refuses to, such as ignoring pings, dropping the
TCP connection in the middle of a session, or vanishing from its port and
coming back.

- One thread accepts on 127.0.0.1 (select with a short timeout, so listening
  can be stopped and resumed on the same port: SO_REUSEADDR).
- Every accepted TCP connection gets an index (0, 1, 2, ... in accept order,
  rejected handshakes included) and one thread that owns its socket. The
  thread polls the socket and a queue of actions, so a test can inject a
  fault from its own thread (conn.drop("rst")) without racing the reader.
- What a connection does comes from a Behaviour: behaviours[i] for
  connection i, `default` for the rest (both may be changed while running).
- Everything is recorded per connection (FaultConn.log, .messages) and the
  server's condition variable is notified on each record, so tests wait on
  predicates with a hard timeout instead of sleeping.
"""

from __future__ import annotations

import fcntl
import json
import queue
import select
import socket
import struct
import termios
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from peers.raw_peer import (OP_BINARY, OP_CLOSE, OP_CONT, OP_PING, OP_PONG, OP_TEXT, Request, accept_key,
                            close_payload, frame, mask_bytes)

REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           408: "Request Timeout", 429: "Too Many Requests", 500: "Internal Server Error",
           502: "Bad Gateway", 503: "Service Unavailable"}

POLL = 0.01  # seconds between checks of the action queue while idle


Responder = Callable[["FaultConn", str], None]


@dataclass
class Behaviour:
    """How one connection behaves. All fields optional; the default is a
    well-behaved server that answers pings and Close and passes each text
    message to the responder."""

    status: Optional[int] = None            # reject the handshake with this HTTP status
    response_headers: list = field(default_factory=list)  # extra headers on the response
    protocol: Optional[str] = None          # select this subprotocol when the client offers it
    on_open: Optional[Callable[["FaultConn"], None]] = None   # after the 101 is sent
    respond: bool = True                    # pass messages to the responder
    mute_when: Optional[Callable[[str], bool]] = None         # messages not to answer
    drop_after: Optional[int] = None        # drop after this many data messages on this connection
    drop_when: Optional[Callable[[str], bool]] = None         # drop right after such a message
    drop: str = "fin"                       # "fin" (shutdown + close) or "rst" (SO_LINGER 0 + close)
    close_after: Optional[int] = None       # send a Close after this many data messages
    close_code: int = 1001
    close_reason: str = "going away"
    answer_pings: bool = True               # False: a silent peer that keeps the socket open
    answer_close: bool = True               # echo the client's Close and end the connection
    pong_every: Optional[float] = None      # send unsolicited pongs (payload b"unsolicited") this often


class FaultConn:
    """One accepted TCP connection, owned by its thread."""

    def __init__(self, server: "FaultServer", sock: socket.socket, index: int, behaviour: Behaviour):
        self.server = server
        self.sock = sock
        self.index = index
        self.behaviour = behaviour
        self.request: Optional[Request] = None
        self.log: list[tuple] = []           # ("open", target) ("msg", text) ("binary", b) ("ping", b)
        #                                      ("pong", b) ("close", code, reason) ("eof",) ("reset",)
        #                                      ("dropped", how) ("sent_close", code) ("rejected", status)
        self.messages: list[str] = []        # text messages, in order
        self.ended = False                   # the socket is closed, the thread is done
        self.opened = False                  # the 101 went out
        self._actions: queue.Queue = queue.Queue()
        self._buf = b""
        self._frag_op: Optional[int] = None
        self._frag: list[bytes] = []
        self._closing_deadline: Optional[float] = None
        self._next_pong: Optional[float] = None
        self._done = False
        self.thread = threading.Thread(target=self._run, name=f"fault-conn-{index}", daemon=True)

    # recording ---------------------------------------------------------------
    def _record(self, *item) -> None:
        with self.server.cond:
            self.log.append(item)
            if item[0] == "msg":
                self.messages.append(item[1])
            self.server.cond.notify_all()

    @property
    def json_messages(self) -> list:
        """Text messages parsed as JSON (a message that is not JSON fails the test)."""
        return [json.loads(m) for m in list(self.messages)]

    def count(self, kind: str) -> int:
        return sum(1 for i in list(self.log) if i[0] == kind)

    # actions: direct on the connection's thread, queued from any other --------
    def _do(self, fn) -> None:
        """Run fn on the connection's thread; from another thread, wait (at
        most 2 s) until it ran, so the next step of a test sees its effect."""
        if threading.current_thread() is self.thread:
            fn()
            return
        done = threading.Event()

        def run():
            try:
                fn()
            finally:
                done.set()
        self._actions.put(run)
        deadline = time.monotonic() + 2.0
        while not done.wait(0.01):
            if self.ended or time.monotonic() > deadline:
                return

    def send_text(self, text: str) -> None:
        self._do(lambda: self._send(frame(OP_TEXT, text.encode("utf-8"))))

    def send_json(self, value) -> None:
        self.send_text(json.dumps(value, separators=(",", ":")))

    def send_bytes(self, data: bytes) -> None:
        """Raw bytes on the wire (frames built by raw_peer.frame)."""
        self._do(lambda: self._send(data))

    def drop(self, how: str = "fin", flush: bool = True) -> None:
        """End the TCP connection without a Close frame: "fin" or "rst".
        flush: first wait (up to 1 s) until the client got what we sent."""
        assert how in ("fin", "rst"), how
        self._do(lambda: self._drop(how, flush))

    def close(self, code: int = 1001, reason: str = "going away") -> None:
        """Start a Close handshake; the TCP connection ends when the client
        answers (or after 2 s)."""
        self._do(lambda: self._start_close(code, reason))

    def set(self, **changes) -> None:
        """Change this connection's behaviour while it runs (e.g. answer_pings=False)."""
        def apply():
            for k, v in changes.items():
                setattr(self.behaviour, k, v)
            if "pong_every" in changes:
                self._next_pong = time.monotonic() if changes["pong_every"] else None
        self._do(apply)

    # socket level ----------------------------------------------------------------
    def _send(self, data: bytes) -> None:
        if self._done:
            return
        try:
            self.sock.sendall(data)
        except OSError:
            self._finish("reset")

    def _finish(self, kind: Optional[str] = None) -> None:
        if self._done:
            return
        self._done = True
        if kind:
            self._record(kind)
        try:
            self.sock.close()
        except OSError:
            pass

    def _wait_sent(self, timeout: float = 1.0) -> None:
        """Wait until the client's kernel acknowledged everything we sent
        (SIOCOUTQ == 0): an RST, or a close() with unread input (which also
        sends an RST), throws away what is still in our send queue, and a
        "drop after answering" must not silently take the answers back."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                left = struct.unpack("i", fcntl.ioctl(self.sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]
            except OSError:
                return
            if left == 0:
                return
            time.sleep(0.002)

    def _drop(self, how: str, flush: bool = True) -> None:
        if self._done:
            return
        if flush:
            self._wait_sent()
        if how == "rst":
            try:
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
        else:
            try:
                self.sock.shutdown(socket.SHUT_WR)  # the FIN goes out now
            except OSError:
                pass
            self._drain()  # unread bytes at close() would turn the FIN into an RST
        self._record("dropped", how)
        self._finish()

    def _drain(self) -> None:
        self.sock.setblocking(False)
        try:
            while True:
                chunk = self.sock.recv(1 << 16)
                if not chunk:
                    break
                self._record("discarded", chunk)
        except OSError:
            pass

    def _start_close(self, code: int, reason: str) -> None:
        if self._done or self._closing_deadline is not None:
            return
        self._send(frame(OP_CLOSE, close_payload(code, reason.encode("utf-8"))))
        self._record("sent_close", code)
        self._closing_deadline = time.monotonic() + 2.0

    # the thread ---------------------------------------------------------------------
    def _run(self) -> None:
        try:
            if not self._handshake():
                return
            b = self.behaviour
            if b.on_open:
                b.on_open(self)
            if b.pong_every:
                self._next_pong = time.monotonic()
            while not self._done:
                self._run_actions()
                if self._done:
                    break
                now = time.monotonic()
                if self._closing_deadline is not None and now > self._closing_deadline:
                    self._finish("close_timeout")
                    break
                if self._next_pong is not None and self.behaviour.pong_every and now >= self._next_pong:
                    self._send(frame(OP_PONG, b"unsolicited"))
                    self._record("sent_pong", b"unsolicited")
                    self._next_pong = now + self.behaviour.pong_every
                try:
                    ready, _, _ = select.select([self.sock], [], [], POLL)
                except (OSError, ValueError):
                    self._finish("reset")
                    break
                if not ready:
                    continue
                try:
                    chunk = self.sock.recv(1 << 16)
                except ConnectionResetError:
                    self._finish("reset")
                    break
                except OSError:
                    self._finish("reset")
                    break
                if not chunk:
                    self._finish("eof")
                    break
                self._buf += chunk
                self._parse()
        except Exception as exc:  # a bug in a script: record it, the test sees it
            self._record("error", repr(exc))
            self._finish()
        finally:
            with self.server.cond:
                self.ended = True
                self.server.cond.notify_all()

    def _run_actions(self) -> None:
        while True:
            try:
                fn = self._actions.get_nowait()
            except queue.Empty:
                return
            fn()
            if self._done:
                return

    def _handshake(self) -> bool:
        deadline = time.monotonic() + self.server.timeout
        self.sock.settimeout(self.server.timeout)
        while b"\r\n\r\n" not in self._buf:
            if time.monotonic() > deadline or len(self._buf) > 65536:
                self._finish("bad_request")
                return False
            try:
                chunk = self.sock.recv(1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._finish("eof_before_request")
                return False
            self._buf += chunk
        head, self._buf = self._buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ", 2)
        headers = []
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.append((name.strip(), value.strip()))
        self.request = Request(head + b"\r\n\r\n", method, target, version, headers)
        b = self.behaviour
        if b.status is not None:
            body = f"rejected with {b.status}\n".encode()
            hs = [("Content-Type", "text/plain"), ("Content-Length", str(len(body))), ("Connection", "close")]
            hs += b.response_headers
            text = (f"HTTP/1.1 {b.status} {REASONS.get(b.status, 'Error')}\r\n"
                    + "".join(f"{k}: {v}\r\n" for k, v in hs) + "\r\n")
            try:
                self.sock.sendall(text.encode("latin-1") + body)
            except OSError:
                pass
            self._record("rejected", b.status)
            try:
                self.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            self._finish()
            return False
        hs = [("Upgrade", "websocket"), ("Connection", "Upgrade"),
              ("Sec-WebSocket-Accept", accept_key(self.request.header("Sec-WebSocket-Key") or ""))]
        if b.protocol:
            offered = [p.strip() for v in self.request.header_all("Sec-WebSocket-Protocol") for p in v.split(",")]
            if b.protocol in offered:
                hs.append(("Sec-WebSocket-Protocol", b.protocol))
        hs += b.response_headers
        text = "HTTP/1.1 101 Switching Protocols\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hs) + "\r\n"
        self.sock.sendall(text.encode("latin-1"))
        self.sock.settimeout(None)
        self.sock.setblocking(True)
        self.opened = True
        self._record("open", target)
        return True

    def _parse(self) -> None:
        """Handle every complete frame in the buffer."""
        while not self._done:
            parsed = _parse_frame(self._buf)
            if parsed is None:
                return
            (fin, opcode, payload), used = parsed
            self._buf = self._buf[used:]
            self._on_frame(fin, opcode, payload)

    def _on_frame(self, fin: bool, opcode: int, payload: bytes) -> None:
        b = self.behaviour
        if opcode == OP_PING:
            self._record("ping", payload)
            if b.answer_pings:
                self._send(frame(OP_PONG, payload))
            return
        if opcode == OP_PONG:
            self._record("pong", payload)
            return
        if opcode == OP_CLOSE:
            code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
            self._record("close", code, payload[2:].decode("utf-8", "replace"))
            if self._closing_deadline is not None:
                self._finish()  # our Close was answered: we close TCP first (RFC 6455 §7.1.1)
            elif b.answer_close:
                self._send(frame(OP_CLOSE, payload[:2]))
                self._finish()
            return
        if opcode in (OP_TEXT, OP_BINARY):
            self._frag_op, self._frag = opcode, [payload]
        elif opcode == OP_CONT and self._frag_op is not None:
            self._frag.append(payload)
        else:
            self._record("error", f"unexpected frame opcode {opcode:#x}")
            return
        if not fin:
            return
        data, op = b"".join(self._frag), self._frag_op
        self._frag_op, self._frag = None, []
        if op == OP_TEXT:
            self._on_message(data.decode("utf-8"))
        else:
            self._record("binary", data)

    def _on_message(self, text: str) -> None:
        self._record("msg", text)
        b = self.behaviour
        if self._closing_deadline is not None:
            return
        if b.respond and not (b.mute_when and b.mute_when(text)) and self.server.responder:
            self.server.responder(self, text)
        n = len(self.messages)
        if (b.drop_after is not None and n >= b.drop_after) or (b.drop_when and b.drop_when(text)):
            self._drop(b.drop)
        elif b.close_after is not None and n >= b.close_after:
            self._start_close(b.close_code, b.close_reason)


def _parse_frame(buf: bytes):
    """((fin, opcode, unmasked payload), bytes used) or None when incomplete."""
    if len(buf) < 2:
        return None
    b0, b1 = buf[0], buf[1]
    n, pos = b1 & 0x7F, 2
    if n == 126:
        if len(buf) < 4:
            return None
        n, pos = struct.unpack("!H", buf[2:4])[0], 4
    elif n == 127:
        if len(buf) < 10:
            return None
        n, pos = struct.unpack("!Q", buf[2:10])[0], 10
    mask = None
    if b1 & 0x80:
        if len(buf) < pos + 4:
            return None
        mask, pos = buf[pos:pos + 4], pos + 4
    if len(buf) < pos + n:
        return None
    payload = buf[pos:pos + n]
    if mask:
        payload = mask_bytes(payload, mask)
    return (bool(b0 & 0x80), b0 & 0x0F, payload), pos + n


class FaultServer:
    """Listens on 127.0.0.1 (port 0 = pick one; the port stays the same across
    stop_listening()/start_listening())."""

    def __init__(self, behaviours: Optional[list] = None, default: Optional[Behaviour] = None,
                 responder: Optional[Responder] = None, port: int = 0, timeout: float = 5.0):
        self.behaviours: list[Behaviour] = list(behaviours or [])
        self.default = default or Behaviour()
        self.responder = responder
        self.timeout = timeout
        self.cond = threading.Condition()
        self.conns: list[FaultConn] = []
        self.port = port
        self._lsock: Optional[socket.socket] = None
        self._stop = threading.Event()
        self._accepter: Optional[threading.Thread] = None
        self.start_listening()

    # listening ----------------------------------------------------------------------
    @property
    def listening(self) -> bool:
        return self._lsock is not None

    def start_listening(self) -> None:
        """Bind (again) on the same port and accept connections."""
        assert self._lsock is None, "already listening"
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.port))
        s.listen(16)
        self.port = s.getsockname()[1]
        self._lsock = s
        self._stop = threading.Event()
        self._accepter = threading.Thread(target=self._accept_loop, args=(s, self._stop), daemon=True,
                                          name="fault-accept")
        self._accepter.start()

    def stop_listening(self) -> None:
        """Close the listening socket: new connections are refused until
        start_listening(). Open connections are not touched."""
        if self._lsock is None:
            return
        self._stop.set()
        self._accepter.join(5)
        self._lsock.close()
        self._lsock = None

    def _accept_loop(self, lsock: socket.socket, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                ready, _, _ = select.select([lsock], [], [], 0.02)
            except (OSError, ValueError):
                return
            if not ready or stop.is_set():
                continue
            try:
                sock, _ = lsock.accept()
            except OSError:
                continue
            with self.cond:
                index = len(self.conns)
                b = self.behaviours[index] if index < len(self.behaviours) else self.default
                # Every frame leaves at once (no Nagle delay): what a script
                # sends before a fault is on the wire when the fault happens.
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conn = FaultConn(self, sock, index, _copy(b))
                self.conns.append(conn)
                self.cond.notify_all()
            conn.thread.start()

    # waiting ---------------------------------------------------------------------------
    def url(self, path: str = "/") -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    def wait(self, predicate: Callable[[], bool], timeout: float = 5.0, what: str = "condition") -> None:
        """Wait until predicate() (called under the lock) is true; fail after timeout."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"fault server: {what} not reached within {timeout}s; {self.summary()}")
                self.cond.wait(min(left, 0.1))

    def conn(self, index: int, timeout: float = 5.0) -> FaultConn:
        """Connection `index`, waiting for it to be accepted."""
        self.wait(lambda: len(self.conns) > index, timeout, f"connection #{index}")
        return self.conns[index]

    def wait_open(self, index: int, timeout: float = 5.0) -> FaultConn:
        """Connection `index` after its 101 went out."""
        c = self.conn(index, timeout)
        self.wait(lambda: c.opened or c.ended, timeout, f"connection #{index} open")
        assert c.opened, f"connection #{index} was not opened: {c.log}"
        return c

    def wait_messages(self, index: int, n: int, timeout: float = 5.0) -> list[str]:
        c = self.conn(index, timeout)
        self.wait(lambda: len(c.messages) >= n, timeout, f"{n} message(s) on connection #{index}")
        return list(c.messages)

    def wait_ended(self, index: int, timeout: float = 5.0) -> FaultConn:
        c = self.conn(index, timeout)
        self.wait(lambda: c.ended, timeout, f"end of connection #{index}")
        return c

    def wait_log(self, index: int, kind: str, count: int = 1, timeout: float = 5.0) -> list[tuple]:
        c = self.conn(index, timeout)
        self.wait(lambda: c.count(kind) >= count, timeout, f"{count} {kind!r} record(s) on connection #{index}")
        return [i for i in c.log if i[0] == kind]

    # reading -------------------------------------------------------------------------
    @property
    def opened(self) -> list[FaultConn]:
        """Connections that completed the handshake, in order."""
        with self.cond:
            return [c for c in self.conns if c.opened]

    def all_messages(self) -> list[str]:
        with self.cond:
            return [m for c in self.conns for m in c.messages]

    def summary(self) -> str:
        parts = []
        for c in list(self.conns):
            log = [(i[0], i[1][:60] if len(i) > 1 and isinstance(i[1], (str, bytes)) else i[1:]) for i in c.log]
            s = repr(log)
            parts.append(f"#{c.index}{' ended' if c.ended else ''}: {s if len(s) < 600 else s[:600] + '...'}")
        return f"listening={self.listening} conns=[{'; '.join(parts)}]"

    def close(self) -> None:
        self.stop_listening()
        for c in list(self.conns):
            c.drop("rst", flush=False)
        for c in list(self.conns):
            c.thread.join(2)


def _copy(b: Behaviour) -> Behaviour:
    """Each connection gets its own copy, so conn.set() changes only that one."""
    return Behaviour(**{k: (list(v) if isinstance(v, list) else v) for k, v in b.__dict__.items()})


# Responders ----------------------------------------------------------------------------


def no_reply(conn: FaultConn, text: str) -> None:
    """A server that never answers."""


def echo(conn: FaultConn, text: str) -> None:
    conn.send_text(text)


def reply_acks(key: str = "sequence") -> Responder:
    """Answer every JSON object carrying `key` with {"ack":true,key:value}."""
    def respond(conn: FaultConn, text: str) -> None:
        try:
            msg = json.loads(text)
        except ValueError:
            return
        if isinstance(msg, dict) and key in msg:
            conn.send_json({"ack": True, key: msg[key]})
    return respond


def realtime(session_id: str = "abc123") -> Responder:
    """The realtime-API scenario: session_init -> session_started (with the
    session id), session_resume -> session_resumed, audio_chunk N -> result N."""
    def respond(conn: FaultConn, text: str) -> None:
        msg = json.loads(text)
        kind = msg.get("type") if isinstance(msg, dict) else None
        if kind == "session_init":
            conn.send_json({"type": "session_started", "session_id": session_id})
        elif kind == "session_resume":
            conn.send_json({"type": "session_resumed", "session_id": msg.get("session_id")})
        elif kind == "audio_chunk":
            n = msg["sequence"]
            conn.send_json({"type": "result", "sequence": n, "text": f"words {n}"})
    return respond


def is_seq(*numbers: int) -> Callable[[str], bool]:
    """Predicate for mute_when/drop_when: a JSON message whose "sequence" is one of these."""
    wanted = set(numbers)

    def pred(text: str) -> bool:
        try:
            msg = json.loads(text)
        except ValueError:
            return False
        return isinstance(msg, dict) and msg.get("sequence") in wanted
    return pred
