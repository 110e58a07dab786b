"""A raw-socket WebSocket server peer for protocol-level tests.

It does the server side of the opening handshake by hand (computing
Sec-WebSocket-Accept itself), then sends exactly the bytes a test gives it,
and parses (unmasks) what the client sends back. It never "fixes" anything:
whatever bytes the test passes go on the wire as they are.

Driven synchronously from the test thread; every read has a timeout.
"""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import struct
import time
from dataclasses import dataclass, field

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


def accept_key(key: str) -> str:
    """Sec-WebSocket-Accept for a Sec-WebSocket-Key (RFC 6455 section 4.2.2)."""
    return base64.b64encode(hashlib.sha1((key + GUID).encode("ascii")).digest()).decode("ascii")


def mask_bytes(data: bytes, mask: bytes) -> bytes:
    if not data:
        return b""
    m = (mask * (len(data) // 4 + 1))[: len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(m, "big")).to_bytes(len(data), "big")


def frame(opcode: int, payload: bytes = b"", fin: bool = True, rsv: int = 0,
          mask: bytes | None = None, length: int | None = None, length_bytes: int | None = None) -> bytes:
    """Build one frame byte for byte.

    rsv: the three RSV bits as a number 0..7 (4 = RSV1).
    mask: 4 bytes to mask with (servers must not; tests use it for violations).
    length: announce this length instead of len(payload).
    length_bytes: force the length encoding: 0 (7-bit), 2 (16-bit) or 8 (64-bit),
    even when it is not minimal.
    """
    n = len(payload) if length is None else length
    b0 = (0x80 if fin else 0) | ((rsv & 7) << 4) | (opcode & 0xF)
    mbit = 0x80 if mask is not None else 0
    if length_bytes is None:
        length_bytes = 0 if n < 126 else 2 if n < 65536 else 8
    if length_bytes == 0:
        head = bytes([b0, mbit | n])
    elif length_bytes == 2:
        head = bytes([b0, mbit | 126]) + struct.pack("!H", n)
    else:
        head = bytes([b0, mbit | 127]) + struct.pack("!Q", n)
    if mask is not None:
        return head + mask + mask_bytes(payload, mask)
    return head + payload


def close_payload(code: int | None = None, reason: bytes = b"") -> bytes:
    return b"" if code is None else struct.pack("!H", code) + reason


def close_frame(code: int | None = 1000, reason: bytes = b"") -> bytes:
    return frame(OP_CLOSE, close_payload(code, reason))


@dataclass
class Frame:
    fin: bool
    rsv: int
    opcode: int
    masked: bool
    payload: bytes  # unmasked

    @property
    def close_code(self) -> int | None:
        assert self.opcode == OP_CLOSE
        return struct.unpack("!H", self.payload[:2])[0] if len(self.payload) >= 2 else None

    def __repr__(self) -> str:
        p = self.payload if len(self.payload) <= 40 else self.payload[:40] + b"..."
        return f"Frame(op={self.opcode:#x}, fin={self.fin}, rsv={self.rsv}, masked={self.masked}, len={len(self.payload)}, {p!r})"


@dataclass
class Request:
    raw: bytes
    method: str
    target: str
    version: str
    headers: list[tuple[str, str]] = field(default_factory=list)

    def header(self, name: str) -> str | None:
        """The value of a header (first one), case-insensitive name."""
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def header_all(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k.lower() == name.lower()]


class PeerClosed(Exception):
    """The client closed the TCP connection."""


class RawConn:
    def __init__(self, sock: socket.socket, timeout: float):
        self.sock = sock
        self.timeout = timeout
        self.sock.settimeout(timeout)
        self.buf = b""
        self.request: Request | None = None
        self.received_before_response = b""  # bytes after the request, before our response

    # low level ------------------------------------------------------------
    def _fill(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("raw peer: timed out waiting for the client")
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(1 << 16)
        except socket.timeout:
            raise TimeoutError("raw peer: timed out waiting for the client") from None
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise PeerClosed("client closed the connection")
        self.buf += chunk

    def _take(self, n: int, deadline: float) -> bytes:
        while len(self.buf) < n:
            self._fill(deadline)
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def pending(self) -> bytes:
        """Whatever the client sent that was not consumed yet, without blocking."""
        self.sock.setblocking(False)
        try:
            while True:
                try:
                    chunk = self.sock.recv(1 << 16)
                except (BlockingIOError, InterruptedError):
                    break
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                self.buf += chunk
        finally:
            self.sock.setblocking(True)
        return self.buf

    # handshake -------------------------------------------------------------
    def read_request(self, timeout: float | None = None) -> Request:
        deadline = time.monotonic() + (timeout or self.timeout)
        while b"\r\n\r\n" not in self.buf:
            self._fill(deadline)
            if len(self.buf) > 65536:
                raise AssertionError("raw peer: request head larger than 64 KiB")
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ", 2)
        headers = []
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.append((name.strip(), value.strip()))
        self.request = Request(head + b"\r\n\r\n", method, target, version, headers)
        return self.request

    def send_response(self, status: str = "101 Switching Protocols", headers: list[tuple[str, str]] | None = None,
                      accept: str | bool = True, body: bytes = b"") -> None:
        """Send a handshake response. accept=True computes the right key,
        a string sends that value, False leaves the header out."""
        self.received_before_response = self.pending()
        if status.startswith("101"):
            hs = [("Upgrade", "websocket"), ("Connection", "Upgrade")]
        else:
            hs = [("Content-Length", str(len(body))), ("Connection", "close")]
        if accept is True:
            hs.append(("Sec-WebSocket-Accept", accept_key(self.request.header("Sec-WebSocket-Key") or "")))
        elif isinstance(accept, str):
            hs.append(("Sec-WebSocket-Accept", accept))
        hs += headers or []
        text = f"HTTP/1.1 {status}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hs) + "\r\n"
        self.sock.sendall(text.encode("latin-1") + body)

    def handshake(self, delay: float = 0.0, headers: list[tuple[str, str]] | None = None) -> Request:
        req = self.read_request()
        if delay:
            time.sleep(delay)
        self.send_response(headers=headers)
        return req

    # frames -------------------------------------------------------------------
    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv_frame(self, timeout: float | None = None) -> Frame:
        """Parse one frame from the client (raises PeerClosed on EOF)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        b0, b1 = self._take(2, deadline)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._take(2, deadline))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._take(8, deadline))[0]
        masked = bool(b1 & 0x80)
        mask = self._take(4, deadline) if masked else None
        payload = self._take(n, deadline)
        if mask:
            payload = mask_bytes(payload, mask)
        return Frame(bool(b0 & 0x80), (b0 >> 4) & 7, b0 & 0xF, masked, payload)

    def read_until_close(self, timeout: float | None = None, reply: bool = True) -> tuple[list[Frame], Frame | None]:
        """Read frames until a Close frame (answered with the same code when
        reply is set) or EOF. Returns (frames before the close, close frame)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        frames: list[Frame] = []
        while True:
            try:
                f = self.recv_frame(max(deadline - time.monotonic(), 0.001))
            except PeerClosed:
                return frames, None
            if f.opcode == OP_CLOSE:
                if reply:
                    try:
                        self.send(frame(OP_CLOSE, f.payload[:2]))
                    except OSError:
                        pass
                return frames, f
            frames.append(f)

    def expect_eof(self, timeout: float | None = None) -> bytes:
        """Wait until the client closes TCP; return any bytes that came first."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            try:
                self._fill(deadline)
            except PeerClosed:
                return self.buf

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def abort(self) -> None:
        """Close with an RST instead of a FIN."""
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.close()


class RawPeer:
    """Listens on 127.0.0.1, port 0."""

    def __init__(self, timeout: float = 5.0):
        self.timeout = timeout
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(8)
        self.port = self.lsock.getsockname()[1]
        self.conns: list[RawConn] = []

    def url(self, path: str = "/", scheme: str = "ws") -> str:
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def accept(self, timeout: float | None = None) -> RawConn:
        self.lsock.settimeout(timeout or self.timeout)
        try:
            sock, _ = self.lsock.accept()
        except socket.timeout:
            raise AssertionError(f"raw peer: no client connected within {timeout or self.timeout}s") from None
        conn = RawConn(sock, self.timeout)
        self.conns.append(conn)
        return conn

    def close(self) -> None:
        for c in self.conns:
            c.close()
        self.lsock.close()


def random_bytes(n: int) -> bytes:
    return os.urandom(n)
