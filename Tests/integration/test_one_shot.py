"""Scripts get the right answer and an exit status that tells the truth
(issue 20): `echo REQUEST | wspipe URL` against servers that talk (a
greeting, an ack before the result, a late answer), `--reply`, and servers
that close with an error code (exit 7, never a reconnect just to say
goodbye). Each one-shot case runs 50 times in a row: every reply printed,
the same exit status every time."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import threading
import time

import pytest

import helpers
from helpers import FAST_BACKOFF, events
from peers.raw_peer import OP_TEXT, frame

RUNS = 50


def one_shot_runs(run, url: str, make_line, args=(), runs: int = RUNS, **kw) -> list:
    """`runs` one-shot runs in a row; returns their results."""
    return [run([*args, url], stdin=(make_line(i) + "\n").encode(), **kw) for i in range(runs)]


def request(i: int) -> str:
    return json.dumps({"type": "ping", "id": i}, separators=(",", ":"))


# -- servers that talk ------------------------------------------------------------------


async def send_together(ws, *messages: str):
    """Sends the messages as one TCP segment (TCP_CORK), so that wspipe reads
    them in one read: what is asserted then does not depend on how soon the
    second follows the first on a loaded machine (a second message later
    than the quiet time is documented to be cut off; ReplyTrackerTests
    covers the timing with its own clock)."""
    sock = ws.transport.get_extra_info("socket")
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
    try:
        for message in messages:
            await ws.send(message)
    finally:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 0)


async def greet_then_answer(ws, log):
    await ws.send('{"type":"welcome"}')
    async for msg in ws:
        await ws.send(json.dumps({"type": "pong", "id": json.loads(msg)["id"]}, separators=(",", ":")))


def test_a_greeting_does_not_pay_for_the_reply(run, ws_server):
    srv = ws_server(greet_then_answer)
    for i, res in enumerate(one_shot_runs(run, srv.url(), request)):
        assert res.code == 0, f"run {i}: {res}"
        assert res.lines == ['{"type":"welcome"}', '{"type":"pong","id":%d}' % i], f"run {i}: {res}"


async def greet_then_answer_without_id(ws, log):
    # The greeting goes out after the request came in, so it is counted as
    # the reply; the answer is right behind it.
    async for msg in ws:
        await send_together(ws, '{"type":"welcome"}', '{"type":"pong"}')


def test_without_an_id_the_answer_right_behind_a_greeting_still_arrives(run, ws_server):
    """The rule's quiet time: the greeting is counted as the reply, and the
    answer right behind it is still printed."""
    srv = ws_server(greet_then_answer_without_id)
    for i, res in enumerate(one_shot_runs(run, srv.url(), lambda i: '{"type":"ping"}')):
        assert res.code == 0, f"run {i}: {res}"
        assert res.lines == ['{"type":"welcome"}', '{"type":"pong"}'], f"run {i}: {res}"


async def ack_then_result(ws, log):
    async for msg in ws:
        rid = json.loads(msg)["id"]
        await send_together(ws, json.dumps({"type": "ack", "id": rid}, separators=(",", ":")),
                            json.dumps({"type": "result", "id": rid}, separators=(",", ":")))


def test_an_ack_then_its_result_are_both_printed(run, ws_server):
    srv = ws_server(ack_then_result)
    for i, res in enumerate(one_shot_runs(run, srv.url(), request)):
        assert res.code == 0, f"run {i}: {res}"
        assert res.lines == ['{"type":"ack","id":%d}' % i, '{"type":"result","id":%d}' % i], f"run {i}: {res}"


async def answer_after_300ms(ws, log):
    async for msg in ws:
        await asyncio.sleep(0.3)
        await ws.send(msg)


def test_an_answer_300ms_late_is_waited_for(run, ws_server):
    srv = ws_server(answer_after_300ms)
    for i, res in enumerate(one_shot_runs(run, srv.url(), request)):
        assert res.code == 0, f"run {i}: {res}"
        assert res.lines == [request(i)], f"run {i}: {res}"


async def greet_then_answer_each_after_300ms(ws, log):
    await ws.send('{"type":"welcome"}')
    pending = []

    async def answer(msg):
        await asyncio.sleep(0.3)
        await ws.send(msg)

    async for msg in ws:
        pending.append(asyncio.create_task(answer(msg)))
    await asyncio.gather(*pending, return_exceptions=True)


def test_three_chat_lines_to_a_greeting_server_that_answers_late_get_three_replies(run, ws_server):
    srv = ws_server(greet_then_answer_each_after_300ms)
    lines = [json.dumps({"type": "chat", "id": n, "text": f"line {n}"}, separators=(",", ":")) for n in range(3)]
    for i in range(10):
        res = run([srv.url()], stdin="".join(l + "\n" for l in lines).encode())
        assert res.code == 0, f"run {i}: {res}"
        assert res.lines[0] == '{"type":"welcome"}' and sorted(res.lines[1:]) == sorted(lines), f"run {i}: {res}"


async def greet_then_echo_each_later(ws, log):
    """Greets, then echoes the n-th message 300 + 100 n ms after it came."""
    await ws.send('{"type":"welcome"}')
    pending = []

    async def echo(msg, delay):
        await asyncio.sleep(delay)
        await ws.send(msg)

    n = 0
    async for msg in ws:
        pending.append(asyncio.create_task(echo(msg, 0.3 + 0.1 * n)))
        n += 1
    await asyncio.gather(*pending, return_exceptions=True)


def test_chat_lines_without_an_id_to_a_greeting_echo_server_get_every_echo(run, ws_server):
    """Without ids, the greeting and the first two echoes make three
    messages for three lines; the server echoes, so the third echo is owed
    all the same (the Close goes out as soon as it is in: the long linger
    costs nothing)."""
    srv = ws_server(greet_then_echo_each_later)
    lines = [json.dumps({"type": "chat", "text": f"line {n}"}, separators=(",", ":")) for n in range(3)]
    for i in range(10):
        res = run(["--linger", "20s", srv.url()], stdin="".join(l + "\n" for l in lines).encode(), timeout=30)
        assert res.code == 0, f"run {i}: {res}"
        assert res.lines == ['{"type":"welcome"}', *lines], f"run {i}: {res}"


def test_verbose_says_why_the_close_went_out(run, ws_server):
    """-v: the one-shot rule's ending is said, as --until's and
    --idle-timeout's are."""
    async def echo(ws, log):
        async for msg in ws:
            await ws.send(msg)

    async def sink(ws, log):
        async for msg in ws:
            pass

    res = run(["-v", ws_server(echo).url()], stdin=b'{"a":1}\n')
    assert res.code == 0 and res.lines == ['{"a":1}'], res
    assert "wspipe: the server sent back every message as it was; closing" in res.stderr, res
    res = run(["-v", "--linger", "200ms", ws_server(sink).url()], stdin=b'{"id":1}\n{"id":2}\n')
    assert res.code == 0, res
    assert "wspipe: --linger ran out with 2 replies still owed; closing" in res.stderr, res
    res = run(["-v", ws_server(echo).url()], stdin=b"")
    assert "wspipe: nothing was sent on this connection; closing" in res.stderr, res


GREETING_SCRIPT = """#!/bin/sh
echo '{"type":"welcome"}'
while read -r line; do
  printf '%s\\n' "$line" | sed 's/"ping"/"pong"/'
done
"""


@pytest.fixture
def websocketd(tmp_path):
    """websocketd (Debian's package) serving a shell script that greets, then
    answers each line; yields its ws:// URL."""
    binary = shutil.which("websocketd")
    if binary is None:
        pytest.skip("websocketd is not installed (Tests/run installs it)")
    script = tmp_path / "greet.sh"
    script.write_text(GREETING_SCRIPT)
    script.chmod(0o755)
    port = helpers.free_port()
    proc = subprocess.Popen([binary, f"--port={port}", "--address=127.0.0.1", str(script)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        helpers.wait_port(port)
        yield f"ws://127.0.0.1:{port}/"
    finally:
        proc.kill()
        proc.wait(5)


def test_websocketd_greeting_script_one_shot(run, websocketd):
    for i, res in enumerate(one_shot_runs(run, websocketd, request)):
        assert res.code == 0, f"run {i}: {res}"
        assert res.lines == ['{"type":"welcome"}', '{"type":"pong","id":%d}' % i], f"run {i}: {res}"


# -- --reply ----------------------------------------------------------------------------


def test_reply_closes_as_soon_as_every_reply_is_in(run, ws_server):
    srv = ws_server(greet_then_answer_each_after_300ms)
    lines = [request(n) for n in range(3)]
    start = time.monotonic()
    res = run(["--reply", "id", "--linger", "5s", srv.url()], stdin="".join(l + "\n" for l in lines).encode())
    elapsed = time.monotonic() - start
    assert res.code == 0, res
    assert res.lines[0] == '{"type":"welcome"}' and sorted(res.lines[1:]) == sorted(lines), res
    assert elapsed < 4, f"{elapsed:.1f}s: it waited for the linger, not for the replies"


async def answers_odd_ids_only(ws, log):
    async for msg in ws:
        rid = json.loads(msg)["id"]
        if rid % 2:
            await ws.send(json.dumps({"id": rid, "ok": True}, separators=(",", ":")))


def test_reply_names_the_ids_still_owed_and_exits_1(run, ws_server):
    srv = ws_server(answers_odd_ids_only)
    lines = "".join(request(n) + "\n" for n in range(1, 6))
    res = run(["--reply", "id", "--linger", "500ms", "--events", srv.url()], stdin=lines.encode())
    assert res.code == 1, res
    assert sorted(res.lines) == ['{"id":1,"ok":true}', '{"id":3,"ok":true}', '{"id":5,"ok":true}'], res
    assert "wspipe: no reply for id 2, 4 (--reply)" in res.stderr, res
    assert events(res.stderr, "unreplied") == [{"$event": "unreplied", "keys": [2, 4]}], res


def test_reply_is_bounded_by_idle_timeout_too(run, ws_server):
    srv = ws_server(answers_odd_ids_only)
    start = time.monotonic()
    res = run(["--reply", "id", "--linger", "30s", "--idle-timeout", "300ms", srv.url()],
              stdin=(request(2) + "\n").encode(), timeout=20)
    assert res.code == 1, res
    assert "no reply for id 2" in res.stderr, res
    assert time.monotonic() - start < 15


def test_a_reply_that_never_comes_is_not_exit_0_when_the_server_closes_first(run, ws_server):
    async def close_normally(ws, log):
        await ws.recv()
        await ws.close(1000)

    srv = ws_server(close_normally)
    res = run(["--reply", "id", srv.url()], stdin=(request(9) + "\n").encode())
    assert res.code == 1, res
    assert "no reply for id 9" in res.stderr, res


# -- an error Close is an error ---------------------------------------------------------


def connection_counter(code: int, reason: str, read_first: bool):
    async def handler(ws, log):
        log.put("open")
        if read_first:
            await ws.recv()
        await ws.close(code, reason)
    return handler


@pytest.mark.parametrize("code,reason,read_first", [(4401, "unauthorized", True), (1011, "internal error", True),
                                                     (4004, "not found", False)])
def test_an_error_close_exits_7_every_time_without_a_reconnect(run, ws_server, code, reason, read_first):
    srv = ws_server(connection_counter(code, reason, read_first))
    # (A Close that comes before stdin was read is retried: a short backoff
    # keeps 50 runs short; the status is the same either way.)
    results = one_shot_runs(run, srv.url(), request, args=["--events", *FAST_BACKOFF])
    opened = 0
    while True:
        try:
            srv.log.get(timeout=0.5)
            opened += 1
        except AssertionError:
            break
    for i, res in enumerate(results):
        assert res.code == 7, f"run {i}: {res}"
        assert f"closed by the server with {code}" in res.stderr and reason in res.stderr, f"run {i}: {res}"
        dis = events(res.stderr, "disconnected")
        assert dis[-1]["code"] == code and dis[-1]["reason"] == reason and dis[-1]["by"] == "server", f"run {i}: {res}"
        if read_first:
            # The request went out and was answered with the Close: no second
            # connection just to say goodbye (even when stdin's end is read
            # only after the Close came).
            assert [e["attempt"] for e in events(res.stderr, "connecting")] == [1], f"run {i}: {res}"
    if read_first:
        assert opened == RUNS, f"{opened} connections for {RUNS} runs"


def test_a_server_that_refuses_every_connection_ends_after_three_attempts(run, ws_server):
    srv = ws_server(connection_counter(4004, "not found", False))
    for i in range(5):
        res = run(["-U", "--events", *FAST_BACKOFF, srv.url()], timeout=20)
        assert res.code == 7, f"run {i}: {res}"
        assert [e["attempt"] for e in events(res.stderr, "connecting")] == [1, 2, 3], f"run {i}: {res}"
        assert events(res.stderr, "gave_up")[0]["attempts"] == 3, res
        assert "wspipe: giving up after 3 attempt(s): closed by the server with 4004: not found" in res.stderr, res
        # One line per attempt at the default verbosity.
        lost = [l for l in res.stderr.split("\n") if l.startswith("wspipe: connection lost")]
        assert len(lost) == 2, res


def test_until_does_not_hang_on_a_server_that_refuses(run, ws_server):
    srv = ws_server(connection_counter(4004, "not found", False))
    res = run(["--until", "type=pong", *FAST_BACKOFF, srv.url()], stdin=(request(1) + "\n").encode(), timeout=20)
    assert res.code == 7, res
    res = run(["-U", "--until", "type=pong", *FAST_BACKOFF, srv.url()], timeout=20)
    assert res.code == 7, res


def test_max_retries_counts_refusals_and_still_exits_7(run, ws_server):
    srv = ws_server(connection_counter(4401, "unauthorized", False))
    for i in range(5):
        res = run(["-U", "--max-retries", "1", *FAST_BACKOFF, srv.url()], timeout=20)
        assert res.code == 7, f"run {i}: {res}"


def test_a_close_1001_once_stdin_is_over_ends_the_run_with_0(run, ws_server):
    async def going_away(ws, log):
        log.put("open")
        await ws.recv()
        await ws.close(1001, "restarting")

    srv = ws_server(going_away)
    res = run(["-n", srv.url()], stdin=b'{"a":1}\n')
    assert res.code == 0, res
    srv.log.get()
    with pytest.raises(AssertionError):
        srv.log.get(timeout=0.5)   # no second connection


def test_stdin_that_ends_before_anything_was_sent_says_how_to_keep_receiving(run, raw_peer):
    """cron, CI: stdin is empty, so the run closes at once, while the server
    streams; said once, with what keeps receiving."""
    peer = raw_peer()

    def serve():
        conn = peer.accept()
        conn.handshake()
        conn.send(frame(OP_TEXT, b'{"tick":1}'))
        conn.read_until_close()
        conn.close()

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    res = run([peer.url()])
    server.join(5)
    assert res.code == 0, res
    assert res.lines == ['{"tick":1}'], res
    assert res.stderr.count("wspipe: stdin ended before anything was sent, so wspipe closed") == 1, res
    assert "use -U (stdin is not read)" in res.stderr, res
