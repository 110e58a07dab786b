"""What a websocat user tries in the first five minutes (issue 9), each
against a real peer: one-shot replies, a server that accepts then closes, a
refused message, drops without --ack, whole files with --no-line, --listen's
bind, rejections and their hints, invalid lines, events, --trace and -v.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest
from websockets.exceptions import ConnectionClosed

import helpers
from helpers import FAST_BACKOFF, echo, events, record, received_messages, server_ssl_context, stats

TIMEOUT = 20.0


# -- one-shot replies (--linger) ----------------------------------------------


def test_one_shot_reply_every_time_against_websockets(run, ws_server):
    srv = ws_server(echo)
    for i in range(20):
        res = run([srv.url()], stdin=b'{"a":%d}\n' % i)
        assert res.code == 0, res
        assert res.lines == ['{"a":%d}' % i], f"run {i}: {res}"


def test_one_shot_reply_every_time_against_a_fifo_echo_server(run, tmp_path):
    """wspipe --listen echoing through a FIFO: each run prints its own reply,
    never one left over from the run before."""
    fifo = tmp_path / "loop"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDWR)   # keeps the FIFO open for both ends
    try:
        proc = subprocess.Popen([os.environ["WSPIPE"], "-n", "--listen", "127.0.0.1:0"], stdin=fd, stdout=fd,
                                stderr=subprocess.PIPE)
        try:
            line = proc.stderr.readline().decode()
            port = int(re.search(r"listening on ws://127\.0\.0\.1:(\d+)/", line).group(1))
            for i in range(20):
                res = run([f"ws://127.0.0.1:{port}/"], stdin=b'{"n":%d}\n' % i)
                assert res.code == 0, res
                assert res.lines == ['{"n":%d}' % i], f"run {i}: {res}"
        finally:
            proc.kill()
            proc.wait()
    finally:
        os.close(fd)


def test_a_quiet_server_costs_at_most_the_linger(run, ws_server):
    srv = ws_server(record)
    start = time.monotonic()
    res = run(["--linger", "300ms", srv.url()], stdin=b'{"log":1}\n')
    elapsed = time.monotonic() - start
    assert res.code == 0 and res.lines == [], res
    assert received_messages(srv.log)[0] == ['{"log":1}']
    assert elapsed < 5, f"took {elapsed:.1f}s"


def test_a_server_that_streams_without_pause_still_ends(run, ws_server):
    async def stream(ws, log):
        await ws.recv()
        n = 0
        try:
            while True:
                await ws.send(json.dumps({"tick": n}))
                n += 1
                await asyncio.sleep(0)
        except ConnectionClosed:
            pass

    srv = ws_server(stream)
    res = run([srv.url()], stdin=b'{"subscribe":"ticks"}\n', timeout=TIMEOUT)
    assert res.code == 0, res
    assert res.lines and res.lines[0] == '{"tick": 0}', res


def test_linger_0_closes_at_once_as_before(run, ws_server):
    srv = ws_server(record)
    res = run(["--linger", "0", srv.url()], stdin=b'{"a":1}\n')
    assert res.code == 0, res
    assert received_messages(srv.log)[1][1] == 1000


# -- a server that accepts, then closes at once ---------------------------------------


@pytest.mark.parametrize("code,reason", [(1008, "invalid token"), (4000, "")])
def test_accept_then_close_grows_the_delay_and_runs_out_of_retries(spawn, ws_server, code, reason):
    async def refuse(ws, log):
        log.put("open")
        await ws.close(code, reason)

    srv = ws_server(refuse)
    start = time.monotonic()
    proc = spawn(["--events", "--max-retries", "3", "--backoff", "100ms:5s", "--jitter", "0", srv.url()],
                 stdin=None, close_stdin=False)
    res = proc.finish(TIMEOUT)
    elapsed = time.monotonic() - start
    assert res.code == 7, res   # the last failure was the server's error Close
    assert [e["delay_ms"] for e in events(res.stderr, "reconnecting")] == [100, 200, 400], res
    assert len(events(res.stderr, "gave_up")) == 1, res
    assert 0.7 <= elapsed < 10, f"{elapsed:.2f}s: the delays add up to 0.7 s"
    if reason:
        assert f"closed by the server with {code} (policy violation): {reason}" in res.stderr, res


# -- a message the server refuses ----------------------------------------------------


def _limited_recorder(limit_reached_after=None):
    async def handler(ws, log):
        try:
            async for msg in ws:
                log.put("msg", msg)
                if limit_reached_after and msg == limit_reached_after:
                    await ws.close(1000)
        except ConnectionClosed as exc:
            log.put("closed", exc.rcvd.code if exc.rcvd else None, None)
    return handler


def test_a_refused_message_is_reported_not_resent_and_the_rest_delivered(spawn, ws_server):
    srv = ws_server(_limited_recorder(), max_size=100)
    big = json.dumps({"n": 2, "pad": "x" * 300})
    lines = ['{"n":1}', big, '{"n":3}']
    res = spawn(["--stats", "--events", *FAST_BACKOFF, srv.url()],
                stdin="".join(line + "\n" for line in lines).encode()).finish(TIMEOUT)
    assert res.code == 6, res
    assert re.search(r"^wspipe: stdin:2: message refused by the server with 1009 \(message too big\); not sent again$",
                     res.stderr, re.M), res
    got = []
    while '{"n":3}' not in got:
        item = srv.log.get()
        if item[0] == "msg":
            got.append(item[1])
    # The server read nothing wspipe could see before it refused: the first
    # line may come twice (at least once), the refused one never again.
    assert set(got) == {'{"n":1}', '{"n":3}'} and got[-1] == '{"n":3}', got
    assert stats(res.stderr)["not_sent"] == 1, res
    assert events(res.stderr, "refused") == [{"$event": "refused", "line": 2, "code": 1009}], res


def test_a_refused_message_with_no_close_never_hangs(spawn, ws_server):
    srv = ws_server(_limited_recorder(limit_reached_after='{"n":3}'), max_size=100)
    big = json.dumps({"n": 2, "pad": "x" * 300})
    res = spawn(["-n", *FAST_BACKOFF, srv.url()],
                stdin=f'{{"n":1}}\n{big}\n{{"n":3}}\n'.encode()).finish(TIMEOUT)
    assert res.code == 6, res


# -- drops without --ack ------------------------------------------------------------


class KilledSink:
    """peers/sink_peer.py as a server that is killed with SIGKILL and started
    again on the same port: each process logs exactly the bytes it read (one
    os.write per read) in a directory of its own, so that a kill in the
    middle of a write can only cut that process's last frame short."""

    SINK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers", "sink_peer.py")

    def __init__(self, tmp_path) -> None:
        self.tmp_path = tmp_path
        self.dirs: list[str] = []
        self.port = 0
        self.proc = None
        self.start()

    def start(self) -> None:
        directory = str(self.tmp_path / f"sink-{len(self.dirs)}")
        os.makedirs(directory)
        self.dirs.append(directory)
        # Silent, never answers: nothing it read is ever confirmed.
        plan = json.dumps([{"pongs": False, "progress_every": 1000}])
        self.proc = subprocess.Popen([sys.executable, self.SINK, "--log-dir", directory, "--plan", plan,
                                      "--port", str(self.port)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.port = int(self.proc.stdout.readline().split()[1])

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def messages(self) -> tuple[list[bytes], list[str]]:
        """Every complete message any process read, and the logs they came from."""
        from peers.sink_peer import read_connection
        out, logs = [], []
        for directory in self.dirs:
            k = 0
            while os.path.exists(os.path.join(directory, f"conn-{k}.jsonl")):
                out += read_connection(directory, k)[0]
                logs.append(os.path.join(directory, f"conn-{k}.raw"))
                k += 1
        return out, logs

    def read_so_far(self) -> int:
        """Messages the running process has read, by its progress notes."""
        path = os.path.join(self.dirs[-1], "conn-0.jsonl")
        if not os.path.exists(path):
            return 0
        with open(path) as f:
            return sum(1000 for line in f if '"progress"' in line)


def test_killing_the_server_three_times_loses_nothing_unreported(spawn, tmp_path):
    """100k lines while the server (which never answers) is killed with
    SIGKILL and started again three times: every line arrives at least once,
    byte for byte, except at most the ones wspipe reports as unconfirmed (the
    dead server's TCP acknowledged them after it last sent anything: here,
    everything it acknowledged), and those are within the stdin lines it
    names. What its TCP never acknowledged is sent again.

    The test waits on wspipe's reports (its disconnected and connected
    events) and on what the server read, never on a total that a loss may
    rightly keep from coming. On failure it names the logs it kept and every
    malformed message. (The malformed `{"i"` line the old harness once found
    was its own: every server appended its lines to one shared file, and
    SIGKILL can cut a write(2) to a regular file short, the kernel copying
    page by page and stopping at a fatal signal: a 12-byte line straddling a
    page boundary kept `{"i"`, and the next server appended its line to it.
    Measured: 151 of 200 kills of a process writing 20 KB lines left a cut
    line. Here each process logs what it read to files of its own, so a cut
    can only be a process's last frame, which is not a message it read:
    test_a_log_cut_short_by_a_kill_keeps_its_whole_frames.)"""
    total = 100_000
    server = KilledSink(tmp_path)
    proc = spawn(["--stats", "--events", "--backoff", "20ms:200ms", "--jitter", "0",
                  f"ws://127.0.0.1:{server.port}/"], stdin=None, close_stdin=False)
    fed = [0]

    def feed():
        # Paced, so that the kills land while lines are still flowing.
        for start in range(0, total, 1000):
            proc.write(b"".join(b'{"i":%d}\n' % i for i in range(start, start + 1000)))
            fed[0] = start + 1000
            time.sleep(0.03)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        for kill in range(1, 4):
            # Connection `kill` is up and has carried lines, and the feeder is still going.
            helpers.wait_events(proc, "connected", kill, timeout=TIMEOUT)
            deadline = time.monotonic() + TIMEOUT
            while server.read_so_far() < 2000 and fed[0] < total:
                assert time.monotonic() < deadline, f"the server read nothing on connection {kill}"
                time.sleep(0.01)
            server.kill()
            helpers.wait_events(proc, "disconnected", kill, timeout=TIMEOUT)
            server.start()
        feeder.join(TIMEOUT)
        assert not feeder.is_alive(), "wspipe stopped reading stdin"
        proc.close_stdin()
        res = proc.finish(TIMEOUT)
    finally:
        server.kill()
    messages, logs = server.messages()
    malformed = [m for m in messages if not re.fullmatch(rb'\{"i":\d+\}', m)]
    assert not malformed, f"malformed messages {malformed[:20]!r} in {logs}"
    got = {int(m[5:-1]) for m in messages}
    lost = set(range(total)) - got
    assert res.code == 0, res
    st = stats(res.stderr)
    reported = set()
    for e in events(res.stderr, "disconnected"):
        if e["unconfirmed"]:
            first, last = e["unconfirmed_lines"]
            reported.update(range(first - 1, last))   # stdin line n carries {"i":n-1}
    assert lost <= reported, (f"{len(lost - reported)} lost line(s) not reported, e.g. {sorted(lost - reported)[:10]}; "
                              f"logs kept in {logs}")
    assert st["reconnects"] == 3, st
    assert sum(e["unconfirmed"] for e in events(res.stderr, "disconnected")) == st["unconfirmed"], res


# -- whole files with --no-line ------------------------------------------------------


def test_no_line_sends_a_binary_file_as_one_message(run, ws_server, tmp_path):
    srv = ws_server(record)
    blob = os.urandom(3 << 20) + b"\n\x00\r\n"
    path = tmp_path / "blob"
    path.write_bytes(blob)
    res = run(["-b", "--no-line", srv.url()], stdin=blob, timeout=TIMEOUT)
    assert res.code == 0, res
    messages, _ = received_messages(srv.log, TIMEOUT)
    assert messages == [blob], [len(m) for m in messages]


def test_no_line_saves_one_message_byte_for_byte(spawn, ws_server):
    blob = os.urandom(3 << 20) + b"\n"
    srv = ws_server(helpers.send_then_record([blob]))
    res = spawn(["--no-line", "-U", "-1", srv.url()], stdin=None, close_stdin=False).finish(TIMEOUT)
    assert res.code == 0, res
    assert res.stdout == blob


def test_no_line_input_over_the_limit_is_refused(run, ws_server):
    srv = ws_server(record)
    res = run(["-b", "--no-line", "--max-message-size", "1K", srv.url()], stdin=b"x" * 5000)
    assert res.code == 6, res
    assert "input larger than --max-message-size" in res.stderr, res


# -- --listen binds 127.0.0.1 and says where ----------------------------------------------


@pytest.mark.needs("ss")
def test_listen_port_binds_loopback_and_says_its_url(spawn):
    port = helpers.free_port()
    proc = spawn(["--listen", str(port)], stdin=None, close_stdin=False)
    proc.wait_stderr(rf"^wspipe: listening on ws://127\.0\.0\.1:{port}/$")
    out = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    addresses = [line.split()[3] for line in out.splitlines() if line.strip()]
    assert addresses == [f"127.0.0.1:{port}"], out
    proc.signal(signal.SIGINT)
    assert proc.finish().code == 130


def test_listen_quiet_says_nothing(spawn):
    proc = spawn(["-q", "--listen", "127.0.0.1:0"], stdin=None, close_stdin=False)
    time.sleep(0.3)   # nothing should appear; give it the chance
    proc.signal(signal.SIGINT)
    res = proc.finish()
    assert "listening" not in res.stderr, res


# -- rejections and hints ------------------------------------------------------------------


def test_a_rejection_shows_its_status_line_and_body(run, fault_server):
    from peers.fault_server import Behaviour
    srv = fault_server(behaviours=[Behaviour(status=403)])
    res = run([srv.url()])
    assert res.code == 4, res
    assert "handshake rejected by the server: HTTP/1.1 403 Forbidden: rejected with 403" in res.stderr, res
    assert "hint: the server refused the request" in res.stderr, res


@pytest.mark.parametrize("args", [[], ["--wait", "--max-retries", "2", "--backoff", "20ms"]])
def test_a_5xx_rejection_exits_4(run, fault_server, args):
    from peers.fault_server import Behaviour
    srv = fault_server(default=Behaviour(status=503))
    res = run([*args, srv.url()])
    assert res.code == 4, res


def test_tls_to_a_plain_server_hints_ws(run, ws_server):
    srv = ws_server(echo)
    res = run([srv.url().replace("ws://", "wss://")])
    assert res.code == 3, res
    assert "hint: the server hung up during the TLS handshake: if it is a plain WebSocket endpoint, use ws://" in res.stderr, res


def test_plain_to_a_tls_server_hints_wss(run, spawn, tls_cert):
    proc = spawn(["--listen", "127.0.0.1:0", "--cert", f"{tls_cert}/cert.pem", "--key", f"{tls_cert}/key.pem"],
                 stdin=None, close_stdin=False)
    port = int(proc.wait_stderr(r"listening on wss://127\.0\.0\.1:(\d+)/").group(1))
    res = run([f"ws://127.0.0.1:{port}/"])
    assert res.code in (3, 5), res
    assert "hint: if this port expects TLS, use wss://" in res.stderr, res


def test_an_http_server_that_is_not_a_websocket_endpoint(run, tmp_path):
    port = helpers.free_port()
    http = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        helpers.wait_port(port)
        res = run([f"ws://127.0.0.1:{port}/"])
    finally:
        http.kill()
        http.wait()
    assert res.code == 4, res
    assert "hint: an HTTP server answered (status 200) but did not upgrade" in res.stderr, res


def test_a_self_signed_certificate_hints_cacert_or_k(run, ws_server, tls_cert):
    srv = ws_server(echo, ssl_context=server_ssl_context(tls_cert))
    res = run([srv.url(host="localhost")])
    assert res.code == 3, res
    assert "certificate verify failed" in res.stderr, res
    assert "hint: to trust this server's certificate, give its CA with --cacert FILE, or skip verification with -k" in res.stderr


# -- invalid lines ------------------------------------------------------------------


def test_an_invalid_line_says_it_was_not_sent_and_how_to_send_it(run, ws_server):
    srv = ws_server(record)
    res = run([srv.url()], stdin=b"hello\nworld\n")
    assert res.code == 6, res
    assert ("wspipe: stdin:1:1: expected value (not sent; --lenient sends invalid lines as text, "
            "-t sends every line as is)") in res.stderr, res
    assert "wspipe: stdin:2:1: expected value (not sent)\n" in res.stderr, res


# -- events ------------------------------------------------------------------------


def test_disconnected_says_who_closed(run, spawn, ws_server):
    srv = ws_server(echo)
    res = run(["--events", srv.url()], stdin=b'{"a":1}\n')
    ev = events(res.stderr, "disconnected")
    assert ev and ev[0]["by"] == "client" and ev[0]["code"] == 1000, res
    assert ev[0]["reason"] == "", res
    # The Close frame's reason, exact: JSON escapes it, not the terminal escaping of notices.
    reason = "bye \x1b[31m\n\u00e9"
    srv2 = ws_server(helpers.send_then_close([], code=1000, reason=reason))
    res2 = spawn(["--events", srv2.url()], stdin=None, close_stdin=False).finish()
    ev2 = events(res2.stderr, "disconnected")
    assert ev2 and ev2[0]["by"] == "server" and ev2[0]["code"] == 1000, res2
    assert ev2[0]["reason"] == reason, res2
    assert "\x1b" not in res2.stderr, res2


def test_connect_failed_carries_the_error(run):
    port = helpers.free_port()
    res = run(["--events", f"ws://127.0.0.1:{port}/"])
    assert res.code == 3, res
    ev = events(res.stderr, "connect_failed")
    assert len(ev) == 1 and ev[0]["attempt"] == 1 and "refused" in ev[0]["error"], res


# -- --trace and -v ------------------------------------------------------------------


def test_trace_shows_every_frame_both_ways(run, ws_server):
    srv = ws_server(echo)
    res = run(["--trace", srv.url()], stdin=b'{"a":1}\n{"$binary":"AAE="}\n')
    assert res.code == 0, res
    trace = [line for line in res.stderr.splitlines() if re.match(r"wspipe: \d\d:\d\d:\d\d\.\d{3} [<>] ", line)]
    kinds = [re.sub(r"^wspipe: \S+ ", "", line) for line in trace]
    assert '> text fin masked 7: {"a":1}' in kinds, trace
    assert '< text fin 7: {"a":1}' in kinds, trace
    assert "> binary fin masked 2: 00 01" in kinds, trace
    assert "> close fin masked 2: 1000 (normal closure)" in kinds, trace
    assert any(k.startswith("< close fin 2: 1000") for k in kinds), trace


def test_verbose_shows_the_handshake_response(run, ws_server):
    srv = ws_server(echo)
    res = run(["-v", srv.url()])
    assert "wspipe: < HTTP/1.1 101 Switching Protocols" in res.stderr, res
    assert re.search(r"^wspipe: < Sec-WebSocket-Accept: \S+$", res.stderr, re.M), res
