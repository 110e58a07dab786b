"""Peers that attack (wspipe(1): OPTIONS, Server mode; RECONNECT AND REPLAY;
ROUTING): memory stays bounded and one bad client never stops the others.

Each attack runs against the release binary on loopback with raw-socket
peers. Memory is VmRSS from /proc/PID/status, CPU time utime+stime from
/proc/PID/stat; the thresholds sit far from both the figures measured with
the fixes (tens of MB, hundredths of a second) and without them (GBs, a
whole core): see the comments at each test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import struct
import threading
import time

import pytest

import helpers
from helpers import events, vm_rss_kib, wait_events
from peers.raw_peer import OP_CLOSE, OP_PING, OP_TEXT, close_frame, frame
from test_server_mode import listen, ws_client, raw_client as upgraded_raw_client

MIB = 1 << 20


def rss_mib(proc) -> float:
    return vm_rss_kib(proc.proc.pid) / 1024


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def raw_client(port: int, timeout: float = 10.0) -> socket.socket:
    """A WebSocket client done by hand: the upgrade, then whatever bytes the test sends."""
    s, status = upgraded_raw_client(port)
    assert status.startswith("HTTP/1.1 101"), status
    s.settimeout(timeout)
    return s


def masked(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    return frame(opcode, payload, fin=fin, mask=os.urandom(4))


class Flood(threading.Thread):
    """Sends `data` over and over on `sock` until `total` bytes are out,
    never reading; RSS of `proc` is sampled meanwhile."""

    def __init__(self, sock: socket.socket, data: bytes, total: int, proc):
        super().__init__(daemon=True)
        self.sock, self.data, self.total, self.proc = sock, data, total, proc
        self.sent = 0
        self.error = None
        self.start()

    def run(self) -> None:
        try:
            while self.sent < self.total:
                self.sent += self.sock.send(self.data)
        except OSError as e:
            self.error = e

    def watch(self, deadline: float) -> float:
        """Peak RSS (MiB) until the flood is out or `deadline` seconds pass."""
        peak = 0.0
        end = time.monotonic() + deadline
        while self.is_alive() and time.monotonic() < end:
            peak = max(peak, rss_mib(self.proc))
            time.sleep(0.1)
        return max(peak, rss_mib(self.proc))


def good_client_round_trip(server, port: int, n: int) -> None:
    """A well-behaved client is served both ways while an attack goes on."""
    line = f'{{"good":{n}}}'
    with ws_client(port) as good:
        good.send(line)
        server.out.wait_for(lambda b: line.encode() in b, helpers.EVENT_TIMEOUT)
        assert line.encode() in server.out.data(), server.err.data()[-2000:]
        helpers.write_lines(server, {"to_all": n})
        assert json.loads(good.recv(timeout=helpers.EVENT_TIMEOUT)) == {"to_all": n}


# -- 1. ping floods -------------------------------------------------------------------------
# Measured: 600 MB of pings from a peer that never reads left the client at 11 MiB
# and the server at 10 MiB (was: 0.8 -> 3.7 GB in 15 s, 3.0 GB in 10 s).

PING_FLOOD = 600 * MIB


def test_a_server_that_pings_and_never_reads_does_not_grow_the_client(spawn, raw_peer):
    peer = raw_peer(timeout=30)
    proc = spawn([peer.url()], stdin=b"", close_stdin=False)
    conn = peer.accept()
    conn.handshake()
    flood = Flood(conn.sock, frame(OP_PING, b"p" * 125) * 512, PING_FLOOD, proc)
    peak = flood.watch(deadline=60)
    assert flood.error is None, flood.error
    assert flood.sent >= PING_FLOOD, f"only {flood.sent >> 20} MiB of pings went out in 60 s"
    assert peak < 150, f"client RSS {peak:.0f} MiB after {flood.sent >> 20} MiB of unread pings"
    # Still working: the peer reads what was held back for it, then gets an answer through.
    conn.sock.settimeout(0.2)
    try:
        while conn.sock.recv(1 << 20):
            pass
    except (socket.timeout, BlockingIOError):
        pass
    conn.send(frame(OP_TEXT, b'{"after":"flood"}'))
    assert proc.wait_stdout_lines(1) == [b'{"after":"flood"}']


def test_a_client_that_pings_and_never_reads_does_not_grow_the_server(spawn):
    server, port = listen(spawn, ["--events"])
    attacker = raw_client(port)
    flood = Flood(attacker, masked(OP_PING, b"p" * 125) * 512, PING_FLOOD, server)
    good_client_round_trip(server, port, 1)
    peak = flood.watch(deadline=60)
    assert flood.error is None, flood.error
    assert flood.sent >= PING_FLOOD, f"only {flood.sent >> 20} MiB of pings went out in 60 s"
    assert peak < 150, f"server RSS {peak:.0f} MiB after {flood.sent >> 20} MiB of unread pings"
    good_client_round_trip(server, port, 2)
    attacker.close()


# -- 2. the server's memory budget ---------------------------------------------------------
# Measured: 150 clients each sending 3.9 MB of a message and stopping held 600 MiB
# before; with the budget (64 MiB for --max-message-size 4M) the peak is ~70 MiB.


@pytest.mark.needs("proc")
def test_many_clients_holding_half_sent_messages_stay_within_the_budget(spawn):
    server, port = listen(spawn, ["--events", "--max-message-size", "4M"])
    piece = b"a" * (3900 << 10)
    attackers = []
    peak = 0.0
    try:
        for i in range(150):
            s = raw_client(port)
            try:
                s.sendall(masked(OP_TEXT, piece, fin=False))   # a message that never ends
            except OSError:
                pass   # already disconnected for the budget
            attackers.append(s)
            if i % 10 == 9:
                peak = max(peak, rss_mib(server))
        good_client_round_trip(server, port, 1)
        dropped = [e for e in wait_events(server, "memory_budget", 80) if e["$event"] == "memory_budget"]
        peak = max(peak, rss_mib(server))
    finally:
        for s in attackers:
            s.close()
    assert peak < 150, f"server RSS {peak:.0f} MiB with 150 clients holding 3.9 MB each"
    assert {e["budget"] for e in dropped} == {64 * MIB}
    # The client dropped holds the most, so at least an average share of the
    # budget (151 clients at most); how much exactly depends on how far its
    # message had arrived when reading paused (the per-client high water
    # shrinks as clients arrive).
    bad = [e for e in dropped if not (0 < e["bytes"] <= 4 * MIB + 64 * 1024 and e["bytes"] * 151 > e["budget"])]
    assert not bad, (bad[:5], len(dropped))
    ids = [e["id"] for e in dropped]
    assert len(ids) == len(set(ids)), f"a client reported dropped twice: {ids}"
    closes = [e for e in events(server.err.data(), "client_disconnected") if e["code"] == 1008]
    assert closes and all(e["reason"] == "memory budget exceeded" for e in closes), closes[:3]
    assert "the clients' buffers passed 67108864 bytes; disconnecting" in server.err.data().decode()


# -- 3. out of file descriptors ------------------------------------------------------------
# Measured with 64 descriptors and 100 connections: 2.0 s of CPU in 2 s (a busy loop)
# before; 0.00 s after, and one warning.


@pytest.mark.needs("proc")
@pytest.mark.skipif(shutil.which("prlimit") is None, reason="needs prlimit (util-linux)")
def test_running_out_of_descriptors_pauses_accepting_without_spinning(wspipe_bin):
    # prlimit execs wspipe: same pid, 64 descriptors.
    server = helpers.WsProc(["prlimit", "--nofile=64:64", "--", wspipe_bin, "--listen", "0", "--events"],
                            stdin=b"", close_stdin=False)
    idle = []
    try:
        port = int(server.wait_stderr(r"listening on ws://127\.0\.0\.1:(\d+)").group(1))
        idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(100)]
        wait_events(server, "accept_paused")
        before = cpu_seconds(server.proc.pid)
        time.sleep(2)   # the measurement window the issue asks for
        used = cpu_seconds(server.proc.pid) - before
        # One episode so far. Closing the idle sockets frees descriptors, and
        # the connections still queued may fill them again: a second episode,
        # reported again, is right then.
        during = server.err.data().decode()
        for s in idle:
            s.close()
        good_client_round_trip(server, port, 1)
    finally:
        for s in idle:
            s.close()
        server.close_stdin()
        server.kill()
    assert used < 0.5, f"{used:.2f} s of CPU in 2 s while out of descriptors"
    text = server.err.data().decode()
    assert text.count("cannot accept connections (accept: Too many open files)") == 1, text[-2000:]
    assert len(events(during, "accept_paused")) == 1, during[-2000:]


# -- 4. --ack without acks -----------------------------------------------------------------
# Measured with --queue-limit 16M: 1.1 GB of stdin taken and 1.3 GB RSS in 6 s before;
# 16 MiB taken and 30 MiB RSS after.


class Feeder(threading.Thread):
    """Writes numbered lines to the process's stdin for as long as it takes them."""

    def __init__(self, proc):
        super().__init__(daemon=True)
        self.proc = proc
        self.fed = 0
        self.start()

    def run(self) -> None:
        pad = "x" * 1000
        n = 0
        try:
            while True:
                chunk = "".join(f'{{"seq":{n + i},"pad":"{pad}"}}\n' for i in range(100)).encode()
                n += 100
                self.proc.proc.stdin.write(chunk)
                self.proc.proc.stdin.flush()
                self.fed += len(chunk)
        except (OSError, ValueError):
            pass


def drain_socket(sock: socket.socket, counter: list) -> threading.Thread:
    def run():
        try:
            while chunk := sock.recv(1 << 20):
                counter[0] += len(chunk)
        except OSError:
            pass
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


@pytest.mark.needs("proc")
def test_messages_held_for_their_ack_count_against_the_queue_limit(spawn, raw_peer):
    peer = raw_peer(timeout=30)
    proc = spawn(["--ack", "seq", "--queue-limit", "4M", "-u", peer.url()], stdin=None, close_stdin=False)
    feeder = Feeder(proc)
    try:
        held_lines_hold_stdin(proc, feeder, peer)
    finally:
        proc.kill()   # the feeder is blocked writing: it holds stdin's lock until wspipe is gone


def held_lines_hold_stdin(proc, feeder, peer) -> None:
    conn = peer.accept()
    conn.handshake()
    received = [0]
    drain_socket(conn.sock, received)
    # The server reads everything and acks nothing: wspipe holds 4 MiB, then stops reading stdin.
    deadline = time.monotonic() + 30
    while received[0] < 4 * MIB and time.monotonic() < deadline:
        time.sleep(0.05)
    assert received[0] >= 4 * MIB, f"only {received[0]} bytes reached the server"
    stalled_at = feeder.fed
    time.sleep(1)   # a loose window: before the fix 200 MB went through in it
    assert feeder.fed < 16 * MIB, f"{feeder.fed >> 20} MiB of stdin taken with --queue-limit 4M"
    assert feeder.fed - stalled_at < 2 * MIB
    assert rss_mib(proc) < 150
    # Acks let stdin go on: ack the first hundred, more lines arrive.
    before = received[0]
    for n in range(100):
        conn.send(frame(OP_TEXT, json.dumps({"seq": n}).encode()))
    deadline = time.monotonic() + helpers.EVENT_TIMEOUT
    while received[0] <= before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert received[0] > before, "stdin did not resume after acks"


def test_held_messages_are_resent_in_order_after_a_reconnect(spawn, raw_peer):
    peer = raw_peer(timeout=30)
    lines = "".join(json.dumps({"seq": n, "pad": "y" * 1000}) + "\n" for n in range(3000)).encode()
    proc = spawn(["--ack", "seq", "--queue-limit", "1M", "-u", *helpers.FAST_BACKOFF, peer.url()],
                 stdin=lines, close_stdin=False)
    first = peer.accept()
    first.handshake()
    got = []
    while sum(len(f.payload) for f in got) < 1 * MIB:
        got.append(first.recv_frame(10))
    first.abort()   # dropped: nothing was acknowledged
    second = peer.accept()
    second.handshake()
    seqs = []
    # The held messages come again first, in order, then the rest as acks free room.
    while len(seqs) < 3000:
        f = second.recv_frame(10)
        assert f.opcode == OP_TEXT, f
        n = json.loads(f.payload)["seq"]
        if n not in seqs:
            seqs.append(n)
        second.send(frame(OP_TEXT, json.dumps({"seq": n}).encode()))
    assert seqs == list(range(3000))
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res


# Compressed messages are kept, uncompressed, until the server's TCP acknowledges
# them (to be compressed and sent again after a drop); their frames are small, so
# the socket's high water let them pile up. Measured with 40 lines of 10 MiB to a
# server that reads nothing: before, 21 lines taken and 207 MiB RSS; now 4 (two
# sent, the rest in stdin's buffers) and 34 MiB, under the default --queue-limit 16M.

BIG_LINE = b'{"pad":"' + b"a" * (10 * MIB) + b'"}\n'


class BigFeeder(threading.Thread):
    """Writes `count` copies of BIG_LINE to the process's stdin, then closes it."""

    def __init__(self, proc, count: int):
        super().__init__(daemon=True)
        self.proc, self.count = proc, count
        self.fed = 0
        self.start()

    def run(self) -> None:
        try:
            for _ in range(self.count):
                self.proc.proc.stdin.write(BIG_LINE)
                self.proc.proc.stdin.flush()
                self.fed += 1
        except (OSError, ValueError):
            pass


@pytest.mark.needs("proc")
def test_compressed_messages_kept_for_a_resend_count_against_the_queue_limit(spawn, raw_peer):
    peer = raw_peer(timeout=30)
    proc = spawn(["--compress", "-u", "--max-message-size", "16M", peer.url()], stdin=None, close_stdin=False)
    conn = peer.accept()
    conn.read_request()
    conn.send_response(headers=[("Sec-WebSocket-Extensions", "permessage-deflate")])
    feeder = BigFeeder(proc, 40)
    try:
        # The server reads nothing: stdin must stop once 16 MiB of originals are held.
        helpers.wait_until_stalled(lambda: feeder.fed, 40)
        peak = rss_mib(proc)
        assert feeder.fed < 8, f"{feeder.fed} lines of 10 MiB taken with --queue-limit 16M and nothing acknowledged"
        assert peak < 100, f"client RSS {peak:.0f} MiB"
        # The server reads: its TCP acknowledges, the originals go, stdin goes on to the end.
        received = [0]
        drain_socket(conn.sock, received)
        deadline = time.monotonic() + 30
        while feeder.fed < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert feeder.fed == 40, f"stdin stopped at line {feeder.fed} although the server read everything"
    finally:
        proc.kill()


# -- 6. peer text, $text, stray lines ------------------------------------------------------

HOSTILE_REASON = b"\x1b[2J\nwspipe: fake \x1b]0;title\x07"


def assert_no_raw_controls(stderr: str) -> None:
    assert "\x1b" not in stderr and "\x07" not in stderr, repr(stderr[-1500:])
    assert not any(line.startswith("wspipe: fake") for line in stderr.split("\n")), repr(stderr[-1500:])


@pytest.mark.parametrize("code, args", [(1000, ["-v"]), (4000, ["--no-reconnect"]),
                                        (1011, ["-v", "--no-reconnect"])])
def test_a_servers_close_reason_reaches_stderr_escaped(spawn, raw_peer, code, args):
    peer = raw_peer()
    proc = spawn([*args, peer.url()], stdin=b"", close_stdin=False)
    conn = peer.accept()
    conn.handshake()
    conn.send(frame(OP_CLOSE, struct.pack("!H", code) + HOSTILE_REASON))
    conn.read_until_close(reply=False)
    conn.close()
    res = proc.finish()
    assert "\\x1b[2J\\x0awspipe: fake" in res.stderr, res
    assert_no_raw_controls(res.stderr)


def test_a_rejected_handshake_shows_the_status_line_and_body_escaped(spawn, raw_peer):
    peer = raw_peer()
    proc = spawn([peer.url()])
    conn = peer.accept()
    conn.read_request()
    conn.sock.sendall(b"HTTP/1.1 403 Forbidden\x1b[2J\r\nContent-Length: 20\r\nConnection: close\r\n\r\n"
                      b"no\n\x1b[31mwspipe: fake")
    conn.close()
    res = proc.finish()
    assert res.code == 4, res
    assert_no_raw_controls(res.stderr)
    assert "\\x1b" in res.stderr, res


def test_a_clients_close_reason_reaches_the_servers_stderr_escaped(spawn):
    server, port = listen(spawn, ["-v", "--events"])
    s = raw_client(port)
    s.sendall(masked(OP_CLOSE, struct.pack("!H", 1000) + HOSTILE_REASON))
    wait_events(server, "client_disconnected")
    s.close()
    stderr = server.err.data().decode()
    assert "\\x1b[2J\\x0awspipe: fake" in stderr, stderr
    assert_no_raw_controls(stderr)


def test_text_with_a_lone_surrogate_is_an_invalid_line(run, ws_server):
    srv = ws_server(helpers.record)
    res = run(["-u", srv.url()], stdin=b'{"$text":"\\ud800"}\n{"$text":"ok \\ud83d\\ude00"}\n')
    assert res.code == 6, res
    assert "stdin:1:11: invalid $text: lone surrogate \\ud800" in res.stderr, res
    msgs, _ = helpers.received_messages(srv.log)
    assert msgs == ["ok \U0001F600"]


def test_a_stray_opening_bracket_does_not_swallow_the_lines_after_it(run, ws_server):
    srv = ws_server(helpers.record)
    res = run(["-u", srv.url()], stdin=b'{"a":1}\n[\n{"b":2}\n{"c":3}\n{"d":4}\n')
    assert res.code == 6, res
    assert "stdin:2:2: unterminated JSON value (line 4 cannot continue it)" in res.stderr, res
    assert res.stderr.count("stdin:") == 1, res
    msgs, _ = helpers.received_messages(srv.log)
    assert msgs == ['{"a":1}', '{"b":2}', '{"c":3}', '{"d":4}']


# -- 7. signals and output nobody reads ----------------------------------------------------
# Measured: a FIFO echo client whose server sent 256 KiB and closed hung until SIGKILL
# (SIGTERM and SIGINT ignored) before; now it exits after --close-timeout, or at once on
# a second SIGTERM.


def fifo_echo_client(spawn, raw_peer, tmp_path, close_timeout: str):
    """wspipe URL <>fifo >fifo; the server sends a 256 KiB message and closes."""
    path = str(tmp_path / "fifo")
    os.mkfifo(path)
    fd = os.open(path, os.O_RDWR)
    peer = raw_peer()
    proc = helpers.WsProc([os.environ["WSPIPE"], "-v", "--close-timeout", close_timeout, peer.url()],
                          stdin_fd=fd, stdout_fd=fd)
    os.close(fd)
    conn = peer.accept()
    conn.handshake()
    conn.send(frame(OP_TEXT, json.dumps({"big": "x" * (256 << 10)}).encode()) + close_frame(1000))
    conn.read_until_close()
    return proc


def test_output_nobody_reads_after_the_end_is_abandoned_after_the_close_timeout(spawn, raw_peer, tmp_path):
    proc = fifo_echo_client(spawn, raw_peer, tmp_path, "300ms")
    try:
        res = proc.finish(timeout=10)
    finally:
        proc.kill()
    assert res.code == 1, res
    assert re.search(r"\d+ line\(s\) of output to stdout could not be written", res.stderr), res


def test_a_second_sigterm_ends_a_stuck_drain_at_once(spawn, raw_peer, tmp_path):
    proc = fifo_echo_client(spawn, raw_peer, tmp_path, "60s")
    try:
        # The session is over and the output stuck: the first SIGTERM lets the drain go on...
        proc.wait_stderr(r"closed by the server with 1000")
        proc.signal(signal.SIGTERM)
        time.sleep(0.3)
        assert proc.proc.poll() is None
        # ... the second ends it.
        proc.signal(signal.SIGTERM)
        res = proc.finish(timeout=5)
    finally:
        proc.kill()
    assert res.code == 143, res
    assert re.search(r"\d+ line\(s\) of output to stdout could not be written", res.stderr), res


def test_a_route_command_that_never_exits_is_stopped_after_the_close_timeout(run, ws_server, tmp_path):
    srv = ws_server(helpers.send_then_close(['{"type":"x","n":1}']))
    marker = tmp_path / "got"
    started = time.monotonic()
    res = run(["--close-timeout", "300ms", "-U", "--route", f"x=|cat > {marker}; exec sleep 30", srv.url()],
              timeout=10)
    assert res.code == 1, res
    assert "still running --close-timeout after its input ended; stopped with SIGTERM" in res.stderr, res
    assert time.monotonic() - started < 8
    assert marker.read_text() == '{"type":"x","n":1}\n'


def test_a_blocked_route_command_is_reported_in_lines(run, ws_server):
    """Issue 19: a |COMMAND that never reads was reported in bytes; the lines
    it did not get are counted (a line written in part counts: its reader
    never gets the whole of it)."""
    line = '{"type":"x","pad":"%s"}' % ("p" * 980)
    srv = ws_server(helpers.send_then_close([line] * 400))
    res = run(["--stats", "--close-timeout", "300ms", "-U", "--route", "x=|exec sleep 30", srv.url()], timeout=15)
    assert res.code == 1, res
    match = re.search(r"(\d+) line\(s\) of output to \|exec sleep 30 could not be written", res.stderr)
    assert match, res
    received = helpers.stats(res.stderr)["messages_in"]
    # The pipe took at most 64 KiB: that many whole lines went, the others did not.
    assert received - (64 << 10) // (len(line) + 1) <= int(match.group(1)) <= received, (match.group(0), received)


def test_a_route_command_that_exits_is_waited_for(run, ws_server, tmp_path):
    srv = ws_server(helpers.send_then_close(['{"type":"x","n":1}']))
    out = tmp_path / "out"
    res = run(["-U", "--route", f"x=|sleep 0.5; cat > {out}", srv.url()])
    assert res.code == 0, res
    assert out.read_text() == '{"type":"x","n":1}\n'
