"""A raw WebSocket sink server for the delivery-accounting tests, run as its
own process: it logs exactly the bytes it read and can die on cue.

    python sink_peer.py --log-dir DIR --plan JSON [--tls CERT KEY] [--compress]
                        [--rcvbuf BYTES] [--port N]

It prints "port N" once it listens on 127.0.0.1 (on N if given, so that a
sink killed with SIGKILL can be started again where its client reconnects).
With --connect PORT it is a client instead (of wspipe --listen): one
connection, behaving as plan[0], its own messages masked; it prints "open"
once upgraded. Connection k (in accept
order) behaves as plan[k], the last entry for the rest. A behaviour is a
JSON object; every key is optional:

  die_after          after reading this many data messages, die: close the
                     socket at once, without reading what its kernel still
                     holds (an RST then, as when a process is killed)
  die_after_message  die this many data messages after its own message
                     (message_at)
  message_at         seconds after the upgrade: send one text message
                     {"hello":1}
  tick               seconds between {"tick":N} text messages
  quiet_last         send no message and answer no ping within this many
                     data messages of die_after (see the tests: a peer that
                     dies right after a sign of life can lose what its TCP
                     acknowledged and its application never read, which no
                     client can see; and over TLS a pong that arrives just
                     before the reset is not read once a write has failed)
  rate               read at most this many bytes per second
  burst              [BYTES, SECONDS]: read BYTES, then nothing for SECONDS
                     (a healthy but slow reader)
  stall_after        after this many data messages, read nothing for
                     stall_for seconds (default 2; "cue": until the file
                     DIR/cue-I-resume exists), then read on to the end:
                     afterwards the log holds exactly what the client wrote
  pongs              answer pings (default true)
  progress_every     note {"ev":"progress"} every this many data messages
  cued_message       [N, K]: after N data messages, stop reading; once the
                     client's kernel holds 128 KiB for it, note "waiting"
                     until the file DIR/cue-I-send exists (I: the
                     connection's index); then send {"hello":1}, read K more
                     data messages, stop reading, and once its kernel holds
                     unread bytes, acknowledged, note "stalled" and wait
                     until DIR/cue-I-die exists, then die (the test decides
                     when, e.g. while its client is stopped)

A connection without die_after reads everything, answers pings, echoes the
client's Close and closes: the well-behaved sink the client reconnects to.

Everything read after the upgrade request goes to DIR/conn-K.raw with one
os.write per read, so that what the file holds is exactly what the sink
read, whenever it dies. DIR/conn-K.jsonl says what it did, one JSON object a
line: {"ev":"tick","msgs":M} (M = data messages read when it sent it),
{"ev":"message","msgs":M}, {"ev":"pong","msgs":M}, {"ev":"die","msgs":M},
{"ev":"close","msgs":M}, {"ev":"eof","msgs":M}. The tests parse both
(`read_connection`).
"""

from __future__ import annotations

import argparse
import fcntl
import termios
import base64
import hashlib
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time
import zlib

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
# cued_message waits until its client's kernel holds this much for it: more
# than the sink reads after its message plus its receive buffer.
CUED_CLIENT_QUEUE = 128 << 10
OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


def server_frame(opcode: int, payload: bytes) -> bytes:
    n = len(payload)
    if n < 126:
        head = bytes([0x80 | opcode, n])
    elif n < 65536:
        head = bytes([0x80 | opcode, 126]) + struct.pack("!H", n)
    else:
        head = bytes([0x80 | opcode, 127]) + struct.pack("!Q", n)
    return head + payload


class FrameCounter:
    """Follows the client's frames as they arrive: counts complete data
    messages, hands control frames back (unmasked)."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.messages = 0

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        self.buf += data
        controls = []
        while True:
            frame = take_frame(self.buf)
            if frame is None:
                return controls
            fin, _rsv, opcode, payload, used = frame
            del self.buf[:used]
            if opcode >= 0x8:
                controls.append((opcode, payload))
            elif fin:
                self.messages += 1


def take_frame(buf) -> tuple[bool, int, int, bytes, int] | None:
    """(fin, rsv, opcode, unmasked payload, bytes used), or None if incomplete."""
    if len(buf) < 2:
        return None
    b0, b1 = buf[0], buf[1]
    n, pos = b1 & 0x7F, 2
    if n == 126:
        if len(buf) < 4:
            return None
        n, pos = struct.unpack("!H", bytes(buf[2:4]))[0], 4
    elif n == 127:
        if len(buf) < 10:
            return None
        n, pos = struct.unpack("!Q", bytes(buf[2:10]))[0], 10
    mask = None
    if b1 & 0x80:
        if len(buf) < pos + 4:
            return None
        mask, pos = bytes(buf[pos:pos + 4]), pos + 4
    if len(buf) < pos + n:
        return None
    payload = bytes(buf[pos:pos + n])
    if mask:
        m = (mask * (n // 4 + 1))[:n]
        payload = (int.from_bytes(payload, "big") ^ int.from_bytes(m, "big")).to_bytes(n, "big") if n else b""
    return bool(b0 & 0x80), (b0 >> 4) & 7, b0 & 0x0F, payload, pos + n


def read_connection(directory: str, index: int) -> tuple[list[bytes], list[dict]]:
    """The complete data messages connection `index` read (inflated when
    compressed), and its event log. A frame cut short by the sink's death
    is not a message it read."""
    with open(os.path.join(directory, f"conn-{index}.raw"), "rb") as f:
        raw = bytearray(f.read())
    with open(os.path.join(directory, f"conn-{index}.jsonl")) as f:
        log = [json.loads(line) for line in f if line.strip()]
    inflater = zlib.decompressobj(-15)
    messages, pieces, compressed = [], [], False
    while (frame := take_frame(raw)) is not None:
        fin, rsv, opcode, payload, used = frame
        del raw[:used]
        if opcode >= 0x8:
            continue
        if opcode != OP_CONT:
            compressed = bool(rsv & 4)
        pieces.append(payload)
        if fin:
            data = b"".join(pieces)
            pieces = []
            if compressed:
                data = inflater.decompress(data + b"\x00\x00\xff\xff")
            messages.append(data)
    return messages, log


class Connection(threading.Thread):
    def __init__(self, sock: socket.socket, index: int, behaviour: dict, args, tls) -> None:
        super().__init__(daemon=True)
        self.sock, self.index, self.b, self.args, self.tls = sock, index, behaviour, args, tls
        self.raw = os.open(os.path.join(args.log_dir, f"conn-{index}.raw"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        self.log = os.open(os.path.join(args.log_dir, f"conn-{index}.jsonl"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        self.frames = FrameCounter()
        self.start()

    def note(self, event: str) -> None:
        entry = {"ev": event, "msgs": self.frames.messages}
        try:   # what its kernel holds unread, and the receive buffer's size
            fd = self.sock.fileno()
            entry["unread"] = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
            entry["rcvbuf"] = self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
        except OSError:
            pass
        os.write(self.log, (json.dumps(entry) + "\n").encode())

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def frame(self, opcode: int, payload: bytes) -> bytes:
        if not self.args.connect:
            return server_frame(opcode, payload)
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x80 | opcode, 0x80 | n]) if n < 126 else bytes([0x80 | opcode, 0x80 | 126]) + struct.pack("!H", n)
        m = (mask * (n // 4 + 1))[:n]
        body = (int.from_bytes(payload, "big") ^ int.from_bytes(m, "big")).to_bytes(n, "big") if n else b""
        return head + mask + body

    def upgrade(self) -> bytes:
        if self.args.connect:
            return self.upgrade_as_client()
        request, rest = self.read_head()
        headers = {}
        for line in request.decode("latin-1").split("\r\n")[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        accept = base64.b64encode(hashlib.sha1((headers["sec-websocket-key"] + GUID).encode()).digest()).decode()
        extra = ""
        if self.args.compress and "permessage-deflate" in headers.get("sec-websocket-extensions", ""):
            extra = "Sec-WebSocket-Extensions: permessage-deflate\r\n"
        self.send((f"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Accept: {accept}\r\n{extra}\r\n").encode())
        return rest

    def read_head(self) -> tuple[bytes, bytes]:
        """An HTTP head (without its blank line) and what came after it."""
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError("closed during the upgrade")
            head += chunk
        head, rest = head.split(b"\r\n\r\n", 1)
        return head, rest

    def upgrade_as_client(self) -> bytes:
        key = base64.b64encode(os.urandom(16)).decode()
        self.send((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{self.args.connect}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        response, rest = self.read_head()
        assert response.startswith(b"HTTP/1.1 101"), response
        print("open", flush=True)
        return rest

    def run(self) -> None:
        try:
            if self.tls is not None:
                self.sock = self.tls.wrap_socket(self.sock, server_side=True)
            self.serve()
        except (OSError, EOFError, ssl.SSLError):
            self.note("error")
        finally:
            try:
                self.sock.close()
            except OSError:
                pass
            os.close(self.raw)
            os.close(self.log)

    def wait_for_cue(self, name: str) -> None:
        path = os.path.join(self.args.log_dir, f"cue-{self.index}-{name}")
        deadline = time.monotonic() + 60
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.005)

    def wait_for_client_queue(self, minimum: int) -> None:
        """Waits (reading nothing) until the client's kernel holds at least
        `minimum` bytes our TCP has not acknowledged (its socket's tx_queue
        in /proc/net/tcp): what it can send while its process is stopped."""
        host, port = self.sock.getpeername()[:2]
        local = "%08X:%04X" % (struct.unpack("<I", socket.inet_aton(host))[0], port)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with open("/proc/net/tcp") as f:
                for row in f.read().splitlines()[1:]:
                    fields = row.split()
                    if fields[1] == local and int(fields[4].split(":")[0], 16) >= minimum:
                        return
            time.sleep(0.005)

    def hold_acknowledged(self) -> None:
        """Waits until the kernel holds bytes this sink has not read, then
        has them acknowledged at once (TCP_QUICKACK: no delayed ACK), so
        that its death loses bytes its TCP acknowledged."""
        fd = self.sock.fileno()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            unread = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
            if unread > 0:
                break
            time.sleep(0.005)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)

    def quiet(self) -> bool:
        die = self.b.get("die_after")
        return die is not None and self.frames.messages >= die - self.b.get("quiet_last", 0)

    def serve(self) -> None:
        b = self.b
        rest = self.upgrade()
        opened = time.monotonic()
        tick = b.get("tick")
        next_tick = opened + tick if tick else None
        message_at = opened + b["message_at"] if "message_at" in b else None
        die_after = b.get("die_after")
        rate = b.get("rate")
        read_bytes = 0
        burst, burst_read = b.get("burst"), 0
        stall_after = b.get("stall_after")
        cued, cued_until = b.get("cued_message"), None
        self.sock.settimeout(0.005)
        pending = rest
        while True:
            now = time.monotonic()
            if next_tick is not None and now >= next_tick:
                next_tick = now + tick
                if not self.quiet():
                    self.send(self.frame(OP_TEXT, b'{"tick":%d}' % self.frames.messages))
                    self.note("tick")
            if message_at is not None and now >= message_at:
                message_at = None
                self.send(self.frame(OP_TEXT, b'{"hello":1}'))
                self.note("message")
                if "die_after_message" in b:
                    die_after = self.frames.messages + b["die_after_message"]
            if rate and read_bytes > rate * (now - opened):
                time.sleep(min(0.005, read_bytes / rate - (now - opened)))
                continue
            if burst and burst_read >= burst[0]:
                time.sleep(burst[1])
                burst_read = 0
            if stall_after is not None and self.frames.messages >= stall_after:
                stall_after = None
                self.note("stall")
                if b.get("stall_for") == "cue":
                    self.wait_for_cue("resume")
                else:
                    time.sleep(b.get("stall_for", 2))
                self.note("resume")
            if pending:
                data, pending = pending, b""
            else:
                try:
                    data = self.sock.recv(8192)
                except (socket.timeout, ssl.SSLWantReadError):
                    continue
                if not data:
                    self.note("eof")
                    return
            os.write(self.raw, data)   # exactly what was read, before anything else
            read_bytes += len(data)
            burst_read += len(data)
            before = self.frames.messages
            controls = self.frames.feed(data)
            every = b.get("progress_every")
            if every and self.frames.messages // every > before // every:
                self.note("progress")
            for opcode, payload in controls:
                if opcode == OP_PING:
                    if b.get("pongs", True) and not self.quiet():
                        self.send(self.frame(OP_PONG, payload))
                        self.note("pong")
                elif opcode == OP_CLOSE:
                    self.note("close")   # before the echo: the client may be gone right after it
                    self.send(self.frame(OP_CLOSE, payload[:2]))
                    return
            if cued is not None and cued_until is None and self.frames.messages >= cued[0]:
                self.wait_for_client_queue(CUED_CLIENT_QUEUE)
                self.note("waiting")
                self.wait_for_cue("send")
                self.send(self.frame(OP_TEXT, b'{"hello":1}'))
                self.note("message")
                cued_until = self.frames.messages + cued[1]
            elif cued_until is not None and self.frames.messages >= cued_until:
                self.hold_acknowledged()
                self.note("stalled")
                self.wait_for_cue("die")
                self.note("die")
                return
            if die_after is not None and self.frames.messages >= die_after:
                self.note("die")
                return   # the socket closes with unread bytes in its kernel: an RST


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log-dir", required=True)
    parser.add_argument("--plan", required=True)
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--compress", action="store_true")
    parser.add_argument("--rcvbuf", type=int, default=0)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--connect", type=int, default=0)
    args = parser.parse_args()
    plan = json.loads(args.plan)
    if args.connect:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if args.rcvbuf:   # before connect, so that the window is sized by it
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
        sock.connect(("127.0.0.1", args.connect))
        client = Connection(sock, 0, plan[0], args, None)
        client.join()
        return
    context = None
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*args.tls)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # A small receive buffer (inherited by accepted sockets): what the sink's
    # TCP acknowledged and it has not read stays within a few dozen lines.
    if args.rcvbuf:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(16)
    print(f"port {listener.getsockname()[1]}", flush=True)
    index = 0
    while True:
        sock, _ = listener.accept()
        Connection(sock, index, plan[min(index, len(plan) - 1)], args, context)
        index += 1


if __name__ == "__main__":
    sys.exit(main())
