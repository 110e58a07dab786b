"""How a session ends: stdin EOF, server Close, -n, -1/--max-messages, -u/-U,
SIGINT and the exit statuses that go with them."""

from __future__ import annotations

import asyncio
import os
import re
import signal

import pytest

import helpers
from helpers import FAST_BACKOFF, events, received_messages, write_lines
from peers.raw_peer import OP_CLOSE, OP_TEXT, close_frame, frame


def test_stdin_eof_sends_close_1000_and_exit_0(run, ws_server):
    srv = ws_server(helpers.record)
    res = run([srv.url()], stdin=b'{"a":1}\n{"b":2}\n')
    msgs, closed = received_messages(srv.log)
    assert res.code == 0, res
    assert msgs == ['{"a":1}', '{"b":2}']
    # ("closed", code the server received, the client closed first)
    assert closed == ("closed", 1000, True)


def test_server_close_1000_exit_0(spawn, ws_server):
    srv = ws_server(helpers.send_then_close(['{"x":1}'], 1000, "bye"))
    res = spawn([srv.url()], stdin=b"", close_stdin=False).finish()
    assert res.code == 0, res
    assert res.stdout == b'{"x":1}\n'
    assert srv.log.until("closed")[-1][1] == 1000


def test_server_close_with_an_error_code_exit_7_without_reconnect(spawn, ws_server):
    # (Reconnecting after such a Close is tested in test_reconnect.py.)
    srv = ws_server(helpers.send_then_close(['{"x":1}'], 1011, "internal"))
    res = spawn(["--no-reconnect", srv.url()], stdin=b"", close_stdin=False).finish()
    assert res.code == 7, res
    assert "closed by the server with 1011 (internal error): internal" in res.stderr, res
    assert res.stdout == b'{"x":1}\n'
    assert res.stderr.startswith("wspipe: "), res


def test_no_close_keeps_receiving_after_eof(spawn, ws_server):
    async def handler(ws, log):
        log.put("msg", await ws.recv())
        try:
            # A client without -n sends its Close right at EOF.
            extra = await asyncio.wait_for(ws.recv(), 0.7)
            log.put("unexpected", extra)
        except asyncio.TimeoutError:
            pass
        await ws.send('{"late":1}')
        await ws.close(1000)
        log.put("closed", ws.close_code, None)

    srv = ws_server(handler)
    proc = spawn(["-n", srv.url()], stdin=b'{"a":1}\n')
    items = srv.log.until("closed")
    res = proc.finish()
    assert items[0] == ("msg", '{"a":1}')
    assert [i for i in items if i[0] == "unexpected"] == []
    assert res.code == 0, res
    assert res.stdout == b'{"late":1}\n'


def _three_then_wait():
    """Sends three messages, then waits (and records) until the client leaves."""
    return helpers.send_then_record(['{"n":1}', '{"n":2}', '{"n":3}'])


@pytest.mark.parametrize("flag", ["-1", "--one-message"])
def test_one_message(spawn, ws_server, flag):
    srv = ws_server(_three_then_wait())
    res = spawn([flag, srv.url()], stdin=b"", close_stdin=False).finish()
    assert res.code == 0, res
    assert res.stdout == b'{"n":1}\n'


def test_max_messages(spawn, ws_server):
    srv = ws_server(_three_then_wait())
    res = spawn(["--max-messages", "2", srv.url()], stdin=b"", close_stdin=False).finish()
    assert res.code == 0, res
    assert res.stdout == b'{"n":1}\n{"n":2}\n'


def test_unidirectional_sends_but_prints_nothing(run, ws_server):
    srv = ws_server(helpers.send_then_record(['{"hello":1}']))
    res = run(["-u", srv.url()], stdin=b'{"a":1}\n')
    msgs, _ = received_messages(srv.log)
    assert res.code == 0, res
    assert msgs == ['{"a":1}']
    assert res.stdout == b""


def test_reverse_unidirectional_prints_but_sends_nothing(spawn, ws_server):
    async def handler(ws, log):
        await ws.send('{"hello":1}')
        try:
            got = await asyncio.wait_for(ws.recv(), 0.7)
            log.put("unexpected", got)
        except asyncio.TimeoutError:
            pass
        except Exception:  # the client closing is fine here
            pass
        await ws.close(1000)
        log.put("closed", ws.close_code, None)

    srv = ws_server(handler)
    proc = spawn(["-U", srv.url()], stdin=b'{"a":1}\n{"b":2}\n', close_stdin=False)
    items = srv.log.until("closed")
    res = proc.finish()
    assert [i for i in items if i[0] == "unexpected"] == []
    assert res.code == 0, res
    assert res.stdout == b'{"hello":1}\n'


def test_sigint_sends_close_1000_and_exit_130(spawn, ws_server):
    srv = ws_server(helpers.send_then_record(['{"ready":true}']))
    proc = spawn([srv.url()], stdin=b"", close_stdin=False)
    assert proc.wait_stdout_lines(1) == [b'{"ready":true}']
    proc.signal(signal.SIGINT)
    res = proc.finish()
    _, closed = received_messages(srv.log)
    assert res.code == 130, res
    assert closed[1] == 1000, f"server saw close code {closed[1]}"
    assert res.stdout == b'{"ready":true}\n'


def test_messages_arriving_while_closing_are_still_printed(spawn, raw_peer):
    """At stdin EOF the Close goes out at once (wspipe(1): OPTIONS, Ending), but data frames the
    server sends before its own Close are still data of the session
    (RFC 6455 §1.4) and reach stdout."""
    peer = raw_peer()
    proc = spawn([peer.url()], stdin=b'{"a":1}\n')
    conn = peer.accept()
    conn.handshake()
    first = conn.recv_frame()
    assert (first.opcode, first.payload) == (OP_TEXT, b'{"a":1}')
    closing = conn.recv_frame()
    assert closing.opcode == OP_CLOSE and closing.close_code == 1000
    conn.send(frame(OP_TEXT, b'{"late":1}') + frame(OP_TEXT, b'{"late":2}') + close_frame(1000))
    conn.expect_eof()
    conn.close()
    res = proc.finish()
    assert res.code == 0, res
    assert res.stdout == b'{"late":1}\n{"late":2}\n'


# -- a server that refuses the connection right after the upgrade --------------------------
#
# A Close with an error code (4004 here) right after the 101 refuses the
# connection. The ending must not depend on timing: whether the server's TCP
# had acknowledged the line when the socket closed (a delayed ACK), or
# whether a greeting was read after the line went out, once made the same run
# end after one attempt or three, and report the line unconfirmed, or not at
# all. The rules (wspipe(1): RECONNECT AND REPLAY): a line written before the
# server's Close reached the server ahead of wspipe's answer, so it is not
# owed again (stdin is over: the Close ends the run, exit 7); the server
# refused the connection, so no greeting confirms it: it is reported
# unconfirmed, with its line. A line never written is owed: it goes on the
# next attempt.

REFUSAL_RUNS = 20


def refuses(after: str):
    """Closes with 4004 right after the upgrade ("upgrade"), after a
    greeting ("greeting"), or after reading one message ("first line")."""
    async def handler(ws, log):
        log.put("open")
        if after == "greeting":
            await ws.send('{"hello":1}')
        elif after == "first line":
            log.put("msg", await ws.recv())
        await ws.close(4004, "not allowed")
    return handler


def stdin_file(tmp_path, lines: str) -> int:
    """stdin from a file: the lines are there before wspipe starts, so each
    run writes them on its first connection (a pipe written by a thread
    could bring them after the server's Close, a different case)."""
    path = tmp_path / "stdin.ndjson"
    path.write_text(lines)
    return os.open(path, os.O_RDONLY)


def connections(srv) -> int:
    opened = 0
    while True:
        try:
            if srv.log.get(timeout=0.3)[0] == "open":
                opened += 1
        except AssertionError:
            return opened


@pytest.mark.parametrize("after,lines", [("upgrade", 1), ("greeting", 1), ("first line", 2)])
def test_a_server_that_refuses_at_once_ends_the_run_once_with_the_lines_unconfirmed(spawn, ws_server, tmp_path,
                                                                                   after, lines):
    srv = ws_server(refuses(after))
    text = "".join(f'{{"n":{i}}}\n' for i in range(1, lines + 1))
    for i in range(REFUSAL_RUNS):
        fd = stdin_file(tmp_path, text)
        try:
            res = spawn(["--events", *FAST_BACKOFF, srv.url()], stdin=None, stdin_fd=fd).finish()
        finally:
            os.close(fd)
        run = f"run {i}: {res}"
        assert res.code == 7, run
        # One connection: the lines went out on it, nothing is owed again.
        assert [e["attempt"] for e in events(res.stderr, "connecting")] == [1], run
        dis = events(res.stderr, "disconnected")
        said = [l for l in res.stderr.split("\n") if l.startswith("wspipe: ")]
        if after == "greeting" and dis and dis[0]["by"] == "client":
            # A loaded machine can delay the server's greeting until its TCP
            # has taken the line: it then confirms the line and is its reply
            # (the man page's one-shot rule), and wspipe's Close crosses the
            # server's. Nothing is in doubt, and the refusal still says so.
            assert dis == [{"$event": "disconnected", "code": 4004, "reason": "not allowed", "clean": True,
                            "by": "client", "unconfirmed": 0}], run
            assert said == ["wspipe: closed by the server with 4004: not allowed"], run
            assert res.stdout == b'{"hello":1}\n', run
            continue
        assert dis == [{"$event": "disconnected", "code": 4004, "reason": "not allowed", "clean": True,
                        "by": "server", "unconfirmed": lines, "unconfirmed_lines": [1, lines]}], run
        where = "stdin:1" if lines == 1 else f"stdin:1-{lines}"
        # The refusal says its reason first (issue 30).
        assert said == ["wspipe: closed by the server with 4004: not allowed",
                        f"wspipe: {lines} message(s) ({where}) unconfirmed: written to a connection the server "
                        "refused (4004), which does not say whether it read them (--ack confirms and re-sends)"], run
        if after == "greeting":
            assert res.stdout == b'{"hello":1}\n', run
    assert connections(srv) == REFUSAL_RUNS


def test_a_line_that_was_never_written_to_a_refused_connection_goes_on_the_next_one(spawn, ws_server):
    """The server refuses the first connection before stdin has a line: the
    line is owed, and the next attempt (within the refusal limit) carries it.
    That server refuses the next connection once it has read the line, so
    the run ends the same way whenever the line comes."""
    opened = []

    async def handler(ws, log):
        opened.append(ws)
        log.put("open")
        if len(opened) > 1:
            log.put("msg", await ws.recv())
        await ws.close(4004, "not allowed")

    srv = ws_server(handler)
    proc = spawn(["--events", "--backoff", "1s", "--jitter", "0", srv.url()], stdin=b"", close_stdin=False)
    helpers.wait_events(proc, "disconnected")
    write_lines(proc, {"n": 1})
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 7, res
    assert [e["attempt"] for e in events(res.stderr, "connecting")] == [1, 2], res
    dis = events(res.stderr, "disconnected")
    assert [(e["code"], e["unconfirmed"], e.get("unconfirmed_lines")) for e in dis] == [(4004, 0, None), (4004, 1, [1, 1])], res
    assert "not sent" not in res.stderr, res
    assert [i for i in srv.log.until("msg") if i[0] == "msg"] == [("msg", '{"n":1}')]
