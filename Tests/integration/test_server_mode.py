"""Server mode with many clients (wspipe(1): OPTIONS, Server mode): broadcast, --tag and per-client
addressing, slow clients (--send-timeout or back-pressure), TLS, wrong path,
--once, client_connected/client_disconnected events.

Clients are a mix of independent websockets clients (each read by a thread
so it never stalls the server), wspipe clients, and raw sockets (a client
that completes the handshake and then never reads). Client ids come from the
client_connected events: clients connect one at a time, each waiting for its
event, so the nth event belongs to the nth client.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import ssl
import threading
import time

import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

import helpers
from helpers import events, wait_events


# -- helpers -----------------------------------------------------------------------


def listen(spawn, args=(), spec: str = "127.0.0.1:0/"):
    """Start wspipe --listen on port 0 (stdin open); return (proc, port)."""
    proc = spawn(["--listen", spec, *args], stdin=b"", close_stdin=False)
    match = proc.wait_stderr(r"wspipe: listening on (\S+):(\d+)")
    return proc, int(match.group(2))


def ws_client(port: int, path: str = "/", **kw):
    return connect(f"ws://127.0.0.1:{port}{path}", open_timeout=5, close_timeout=2, compression=None,
                   max_size=None, **kw)


def client_id(server, n: int) -> int:
    """Id of the nth client (1-based) from the server's client_connected events."""
    evs = [e for e in wait_events(server, "client_connected", n) if e["$event"] == "client_connected"]
    return evs[n - 1]["id"]


class Receiver:
    """Reads every message of a websockets sync client in a thread."""

    def __init__(self, ws):
        self.ws = ws
        self.msgs: list = []
        self.cond = threading.Condition()
        self.done = False
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for msg in self.ws:
                with self.cond:
                    self.msgs.append(msg)
                    self.cond.notify_all()
        except ConnectionClosed as exc:
            self.error = exc
        finally:
            with self.cond:
                self.done = True
                self.cond.notify_all()

    def count(self) -> int:
        with self.cond:
            return len(self.msgs)

    def wait(self, n: int, timeout: float = helpers.EVENT_TIMEOUT) -> list:
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.msgs) < n and not self.done:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            got = list(self.msgs)
        assert len(got) >= n, (f"client expected {n} message(s) within {timeout}s, got {len(got)}"
                               f" (closed: {self.error!r}); last: {[str(x)[:80] for x in got[-3:]]}")
        return got[:n]


def raw_client(port: int, path: str = "/", rcvbuf: int | None = None) -> tuple[socket.socket, str]:
    """A hand-made WebSocket client socket after the opening handshake; returns
    (socket, status line). rcvbuf: a small receive buffer (set before connect)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    # One byte at a time: frames may follow the head in the same segment,
    # and the caller reads them from the socket.
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(1)
        if not chunk:
            break
        buf += chunk
    return s, buf.split(b"\r\n", 1)[0].decode("latin-1")


def compact(obj) -> str:
    return json.dumps(obj, separators=(",", ":"))


# -- broadcast -----------------------------------------------------------------------


def test_broadcast_to_three_clients_and_all_clients_to_stdout(spawn):
    server, port = listen(spawn, ["--events"])
    a = ws_client(port)
    client_id(server, 1)
    b = ws_client(port)
    client_id(server, 2)
    c = spawn([f"ws://127.0.0.1:{port}/"], stdin=b"", close_stdin=False)
    client_id(server, 3)
    with a, b:
        ra, rb = Receiver(a), Receiver(b)
        lines = [compact({"type": "bcast", "n": i}) for i in range(50)] + ['{"$text":"plain"}', '{"$binary":"AAEC"}']
        server.write("".join(l + "\n" for l in lines).encode())
        want = lines[:50] + ["plain", b"\x00\x01\x02"]
        assert ra.wait(len(want)) == want
        assert rb.wait(len(want)) == want
        assert c.wait_stdout_lines(len(lines)) == [l.encode() for l in lines]

        a.send('{"from":"a"}')
        assert server.wait_stdout_lines(1) == [b'{"from":"a"}']
        b.send('{"from":"b"}')
        assert server.wait_stdout_lines(2)[1] == b'{"from":"b"}'
        helpers.write_lines(c, {"from": "c"})
        assert server.wait_stdout_lines(3)[2] == b'{"from":"c"}'
    c.close_stdin()
    assert c.finish().code == 0


# -- --tag ---------------------------------------------------------------------------


def test_tag_puts_client_first_in_each_object(spawn):
    server, port = listen(spawn, ["--events", "--tag"])
    a = ws_client(port)
    ida = client_id(server, 1)
    b = ws_client(port)
    idb = client_id(server, 2)
    c = spawn([f"ws://127.0.0.1:{port}/"], stdin=b"", close_stdin=False)
    idc = client_id(server, 3)
    assert len({ida, idb, idc}) == 3, (ida, idb, idc)
    with a, b:
        sent = [(a, '{"type":"chat","text":"from a"}'), (b, '{"type":"chat","text":"from b"}'),
                (c, '{"type":"chat","text":"from c"}'), (b, "{}"), (a, "[1,2]"), (a, '"str"'),
                (b, '{"nested":{"$client":"inner"}}')]
        for n, (who, text) in enumerate(sent, 1):
            if who is c:
                c.write(text.encode() + b"\n")
            else:
                who.send(text)
            server.wait_stdout_lines(n)
        out = server.wait_stdout_lines(len(sent))
    assert out[:3] == [f'{{"$client":{ida},"type":"chat","text":"from a"}}'.encode(),
                       f'{{"$client":{idb},"type":"chat","text":"from b"}}'.encode(),
                       f'{{"$client":{idc},"type":"chat","text":"from c"}}'.encode()]
    assert json.loads(out[3]) == {"$client": idb}, out[3]
    assert out[4:6] == [b"[1,2]", b'"str"'], "non-objects are written unchanged"
    assert out[6] == f'{{"$client":{idb},"nested":{{"$client":"inner"}}}}'.encode()


def test_tag_with_compacted_object(spawn):
    server, port = listen(spawn, ["--events", "--tag", "--once"])
    with ws_client(port) as a:
        ida = client_id(server, 1)
        a.send('{\n  "type": "pretty",\n  "list": [1,\n 2]\n}')
        line = server.wait_stdout_lines(1)[0]
    assert line == f'{{"$client":{ida},"type":"pretty","list":[1,2]}}'.encode()
    assert server.finish().code == 0


def test_tag_names_the_client_of_a_large_message(spawn):
    """A message of 64 KiB and more is written to a pipe straight from where
    it arrived; under --tag its line must still carry the member. Was: such a
    line went out untagged."""
    server, port = listen(spawn, ["--events", "--tag", "--once"])
    big = '{"type":"big","x":"' + "a" * (100 << 10) + '"}'
    with ws_client(port) as a:
        ida = client_id(server, 1)
        a.send(big)
        a.send('{"type":"small"}')
        a.send(big.encode())
        lines = server.wait_stdout_lines(3)
    assert lines[0] == f'{{"$client":{ida},'.encode() + big[1:].encode()
    assert lines[1] == f'{{"$client":{ida},"type":"small"}}'.encode()
    assert json.loads(lines[2])["$client"] == ida and json.loads(lines[2])["$binary"]
    assert server.finish().code == 0


def test_tag_addresses_one_client(spawn):
    server, port = listen(spawn, ["--events", "--tag"])
    a = ws_client(port)
    ida = client_id(server, 1)
    b = ws_client(port)
    idb = client_id(server, 2)
    c = spawn([f"ws://127.0.0.1:{port}/"], stdin=b"", close_stdin=False)
    idc = client_id(server, 3)
    with a, b:
        ra, rb = Receiver(a), Receiver(b)
        helpers.write_lines(server,
                            f'{{"$client":{idb},"type":"private","v":1}}',
                            '{"type":"all"}',
                            f'{{"$client":{idc},"only":"c","list":[1, 2]}}',
                            '{"type":"all2"}')
        # Per-client order is kept, so what arrives first shows what was (not) sent.
        assert ra.wait(2) == ['{"type":"all"}', '{"type":"all2"}']
        assert rb.wait(3) == ['{"type":"private","v":1}', '{"type":"all"}', '{"type":"all2"}']
        assert c.wait_stdout_lines(3) == [b'{"type":"all"}', b'{"only":"c","list":[1, 2]}', b'{"type":"all2"}']
        helpers.write_lines(server, f'{{"$client":{ida},"last":true}}', '{"type":"end"}')
        assert ra.wait(4)[2:] == ['{"last":true}', '{"type":"end"}']
        assert rb.wait(4)[3] == '{"type":"end"}'
        assert c.wait_stdout_lines(4)[3] == b'{"type":"end"}'
    assert "no client" not in server.err.data().decode(), server.err.data()


def test_tag_unknown_client_is_reported_and_exits_6(spawn):
    server, port = listen(spawn, ["--events", "--tag", "--once"])
    with ws_client(port) as a:
        ra = Receiver(a)
        client_id(server, 1)
        helpers.write_lines(server, '{"type":"first"}', '{"$client":99,"type":"lost"}', '{"type":"after"}')
        assert ra.wait(2) == ['{"type":"first"}', '{"type":"after"}']
        server.wait_stderr(r"wspipe: stdin:2: no client 99 connected")
    res = server.finish()
    assert res.code == 6, res


# -- slow clients ------------------------------------------------------------------------

SLOW_LINES = 4000
SLOW_LINE_SIZE = 8 << 10   # 4000 x 8 KiB = ~31 MiB: far more than socket buffers and high water
FLOW_TIMEOUT = 10.0        # hard limit for the fast clients to get everything once nothing blocks them


def slow_case_lines() -> list[bytes]:
    pad = "s" * (SLOW_LINE_SIZE - 40)
    return [f'{{"n":"{i:06d}","pad":"{pad}"}}\n'.encode() for i in range(SLOW_LINES)]


def start_writer(proc, lines: list[bytes]) -> threading.Event:
    """Write lines to proc's stdin in a thread (it may block: back-pressure);
    the returned event is set once everything was written."""
    done = threading.Event()
    # A descriptor of its own: the file object's lock must stay free, or closing
    # stdin at teardown would wait forever behind a write blocked by back-pressure.
    fd = os.dup(proc.proc.stdin.fileno())

    def write():
        try:
            for chunk in range(0, len(lines), 64):
                data = memoryview(b"".join(lines[chunk:chunk + 64]))
                while data:
                    data = data[os.write(fd, data):]
            done.set()
        except OSError:
            pass
        finally:
            os.close(fd)

    threading.Thread(target=write, daemon=True).start()
    return done


def three_clients_one_slow(spawn, args, out_path):
    """A fast websockets client, a raw client that never reads, and a wspipe
    client writing to the file out_path (a file, not a pipe: the test does not
    have to copy 30 MiB around to count its lines)."""
    server, port = listen(spawn, ["--events", *args])
    fast = ws_client(port)
    id_fast = client_id(server, 1)
    slow, status = raw_client(port, rcvbuf=4096)
    assert status.startswith("HTTP/1.1 101"), status
    id_slow = client_id(server, 2)
    fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        other = spawn([f"ws://127.0.0.1:{port}/"], stdin=b"", close_stdin=False, stdout_fd=fd)
    finally:
        os.close(fd)
    id_other = client_id(server, 3)
    assert len({id_fast, id_slow, id_other}) == 3
    return server, fast, slow, other, id_slow


def wait_file(path, size: int, timeout: float) -> bytes:
    """Wait until the file holds at least `size` bytes; return its contents."""
    deadline = time.monotonic() + timeout
    while os.path.getsize(path) < size and time.monotonic() < deadline:
        time.sleep(0.05)
    with open(path, "rb") as f:
        return f.read()


def test_send_timeout_disconnects_slow_client_others_get_everything(spawn, tmp_path):
    lines = slow_case_lines()
    expected = b"".join(lines)
    out_path = tmp_path / "other.ndjson"
    server, fast, slow, other, id_slow = three_clients_one_slow(spawn, ["--send-timeout", "300ms"], out_path)
    try:
        with fast:
            rf = Receiver(fast)
            written = start_writer(server, lines)
            evs = wait_events(server, "send_timeout", 1, timeout=10)
            assert [e["id"] for e in evs if e["$event"] == "send_timeout"] == [id_slow], evs
            got = rf.wait(SLOW_LINES, timeout=FLOW_TIMEOUT)
            assert [g.encode() + b"\n" for g in got] == lines, "the fast websockets client lost or reordered lines"
            assert wait_file(out_path, len(expected), FLOW_TIMEOUT) == expected, "the wspipe client lost or reordered lines"
            assert written.wait(10), "wspipe stopped reading stdin although the slow client was dropped"
            gone = events(server.err.data(), "client_disconnected")
            assert all(e["id"] == id_slow for e in gone), f"only the slow client may have gone: {gone}"
            assert server.proc.poll() is None, "the server must keep running"
    finally:
        slow.close()


def test_send_timeout_0_slow_client_gets_back_pressure_not_drops(spawn, tmp_path):
    lines = slow_case_lines()
    expected = b"".join(lines)
    out_path = tmp_path / "other.ndjson"
    server, fast, slow, other, id_slow = three_clients_one_slow(spawn, ["--send-timeout", "0"], out_path)
    try:
        with fast:
            rf = Receiver(fast)
            written = start_writer(server, lines)
            helpers.wait_until_stalled(rf.count, SLOW_LINES)
            stalled_at = rf.count()
            assert stalled_at < SLOW_LINES and not written.is_set(), (
                f"the fast client got {stalled_at}/{SLOW_LINES} lines and stdin was "
                f"{'all' if written.is_set() else 'not all'} read while a client read nothing: "
                "expected back-pressure (stdin paused)")
            assert not events(server.err.data(), "send_timeout"), "--send-timeout 0: nobody is timed out"
            slow.close()  # the slow client goes away: everything must flow again
            got = rf.wait(SLOW_LINES, timeout=FLOW_TIMEOUT)
            assert [g.encode() + b"\n" for g in got] == lines, "the fast websockets client lost or reordered lines"
            assert wait_file(out_path, len(expected), FLOW_TIMEOUT) == expected, "the wspipe client lost or reordered lines"
            assert written.wait(10)
            gone = [e for e in wait_events(server, "client_disconnected", 1) if e["$event"] == "client_disconnected"]
            assert [e["id"] for e in gone] == [id_slow], gone
    finally:
        slow.close()


# -- TLS -------------------------------------------------------------------------------


def test_tls_server(spawn, tls_cert):
    cert, key = os.path.join(tls_cert, "cert.pem"), os.path.join(tls_cert, "key.pem")
    server, port = listen(spawn, ["--events", "--cert", cert, "--key", key], spec="127.0.0.1:0/secure")
    ctx = ssl.create_default_context(cafile=cert)
    a = connect(f"wss://localhost:{port}/secure", ssl=ctx, open_timeout=5, close_timeout=2, compression=None)
    client_id(server, 1)
    c = spawn(["--cacert", cert, f"wss://localhost:{port}/secure"], stdin=b"", close_stdin=False)
    client_id(server, 2)
    with a:
        helpers.write_lines(server, {"over": "tls"}, '{"$binary":"3q2+7w=="}')
        assert a.recv(timeout=5) == '{"over":"tls"}'
        assert a.recv(timeout=5) == b"\xde\xad\xbe\xef"
        assert c.wait_stdout_lines(2) == [b'{"over":"tls"}', b'{"$binary":"3q2+7w=="}']
        a.send('{"from":"websockets"}')
        assert server.wait_stdout_lines(1) == [b'{"from":"websockets"}']
        helpers.write_lines(c, {"from": "wspipe"})
        assert server.wait_stdout_lines(2)[1] == b'{"from":"wspipe"}'
    c.close_stdin()
    assert c.finish().code == 0


def test_tls_server_refuses_plain_client(spawn, tls_cert):
    cert, key = os.path.join(tls_cert, "cert.pem"), os.path.join(tls_cert, "key.pem")
    server, port = listen(spawn, ["--cert", cert, "--key", key])
    with pytest.raises((OSError, InvalidHandshake)):
        ws_client(port).close()
    assert server.out.data() == b""
    # Still serving TLS clients afterwards.
    ctx = ssl.create_default_context(cafile=cert)
    with connect(f"wss://127.0.0.1:{port}/", ssl=ctx, open_timeout=5, close_timeout=2) as a:
        a.send('{"ok":1}')
        assert server.wait_stdout_lines(1) == [b'{"ok":1}']


# -- path, --once, events -------------------------------------------------------------------


def test_wrong_path_404_and_no_client_event(spawn):
    server, port = listen(spawn, ["--events"], spec="127.0.0.1:0/right")
    s, status = raw_client(port, "/wrong")
    s.close()
    assert status.startswith("HTTP/1.1 404"), status
    with ws_client(port, "/right") as a:
        a.send('{"n":1}')
        assert server.wait_stdout_lines(1) == [b'{"n":1}']
        # stderr is read by a thread of its own: the event may lag stdout's line.
        wait_events(server, "client_connected")
    connected = events(server.err.data(), "client_connected")
    assert len(connected) == 1, f"the rejected request must not count as a client: {connected}"


def test_once_serves_one_client_then_exits(spawn):
    server, port = listen(spawn, ["--once"])
    with ws_client(port) as a:
        helpers.write_lines(server, {"hello": 1})
        assert a.recv(timeout=5) == '{"hello":1}'
        a.send('{"bye":1}')
        server.wait_stdout_lines(1)
    res = server.finish()
    assert res.code == 0, res
    assert res.stdout == b'{"bye":1}\n'
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_client_events(spawn):
    server, port = listen(spawn, ["--events"])
    with ws_client(port) as a:
        ida = client_id(server, 1)
        raw, status = raw_client(port)
        assert status.startswith("HTTP/1.1 101"), status
        idr = client_id(server, 2)
        connected = events(server.err.data(), "client_connected")
        assert connected[0]["peer"] == f"127.0.0.1:{a.local_address[1]}", connected
        assert connected[1]["peer"] == f"127.0.0.1:{raw.getsockname()[1]}", connected
        assert ida != idr
        a.close(1000, "bye")
    evs = wait_events(server, "client_disconnected", 1)
    gone = [e for e in evs if e["$event"] == "client_disconnected"]
    assert gone == [{"$event": "client_disconnected", "id": ida, "code": 1000, "reason": "bye", "clean": True,
                     "unconfirmed": 0, "not_sent": 0}], gone

    raw.close()  # TCP FIN without a Close frame
    evs = wait_events(server, "client_disconnected", 2)
    gone = [e for e in evs if e["$event"] == "client_disconnected"]
    assert gone[1]["id"] == idr and gone[1]["code"] == 1006 and gone[1]["clean"] is False, gone
    assert server.out.data() == b"", "events go to stderr, never stdout"
