"""How a session ends: stdin EOF, server Close, -n, -1/--max-messages, -u/-U,
SIGINT and the exit statuses that go with them."""

from __future__ import annotations

import asyncio
import signal

import pytest

import helpers
from helpers import received_messages
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
