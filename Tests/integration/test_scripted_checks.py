"""Scripted checks (wspipe(1): OPTIONS, Ending): --until KEYPATH=VALUE ends
with exit 0 once the matching message is written, --idle-timeout after a
silence, --close-code is the Close of a run that ends on its own, in client
and server mode. Timings are asserted loosely."""

from __future__ import annotations

import asyncio
import json
import time

from websockets.exceptions import ConnectionClosed

import helpers
from test_server_mode import listen, ws_client


def script(messages, then_wait: float = 30.0, gap: float = 0.0):
    """A handler that sends messages (gap seconds apart), records what comes
    back and how it closes, and otherwise keeps the connection open."""
    async def handler(ws, log):
        log.put("connected")

        async def reader():
            try:
                async for m in ws:
                    log.put("msg", m)
            except ConnectionClosed:
                pass
            log.put("closed", ws.close_code, ws.close_reason)

        task = asyncio.ensure_future(reader())
        for m in messages:
            if gap:
                await asyncio.sleep(gap)
            await ws.send(m)
        try:
            await asyncio.wait_for(asyncio.shield(task), then_wait)
        except asyncio.TimeoutError:
            pass
    return handler


def test_until_exits_0_after_writing_the_match_and_nothing_after(run, ws_server):
    srv = ws_server(script(['{"type":"progress","n":1}', '{"type":"progress","n":2}',
                            '{"type":"done","ok":true}', '{"type":"late"}']))
    start = time.monotonic()
    res = run(["--until", "type=done", "--close-code", "4000:checked", srv.url()])
    assert res.code == 0, res
    assert time.monotonic() - start < 5
    assert res.lines == ['{"type":"progress","n":1}', '{"type":"progress","n":2}', '{"type":"done","ok":true}']
    closed = srv.log.until("closed")[-1]
    assert closed == ("closed", 4000, "checked"), closed


def test_until_keeps_receiving_after_stdin_eof(run, ws_server):
    async def handler(ws, log):
        request = json.loads(await ws.recv())
        await asyncio.sleep(0.3)   # longer than a reply would be waited for without --until
        await ws.send(json.dumps({"type": "ack", "id": request["id"]}, separators=(",", ":")))
        await ws.send(json.dumps({"type": "result", "id": request["id"], "status": 200}, separators=(",", ":")))
        await ws.wait_closed()

    srv = ws_server(handler)
    res = run(["--linger", "50ms", "--until", "status=200", srv.url()], stdin=b'{"id":7}\n')
    assert res.code == 0, res
    assert res.lines == ['{"type":"ack","id":7}', '{"type":"result","id":7,"status":200}']


def test_until_compares_json_values(run, ws_server):
    srv = ws_server(script(['{"status":"200"}', '{"status":200}']))
    res = run(["--until", "status=200", srv.url()])
    assert res.code == 0, res
    assert res.lines == ['{"status":"200"}', '{"status":200}'], "the string \"200\" is not the number 200"


def test_until_without_a_match_exits_1(run, ws_server):
    srv = ws_server(helpers.send_then_close(['{"type":"progress"}'], code=1000))
    res = run(["--until", "type=done", srv.url()])
    assert res.code == 1, res
    assert res.lines == ['{"type":"progress"}']
    assert "no message matched --until type=done" in res.stderr, res


def test_idle_timeout_exits_0_after_the_silence(run, ws_server):
    srv = ws_server(script(['{"n":1}', '{"n":2}', '{"n":3}'], gap=0.1))
    start = time.monotonic()
    res = run(["-U", "--idle-timeout", "500ms", "--close-code", "4001", srv.url()])
    elapsed = time.monotonic() - start
    assert res.code == 0, res
    assert res.lines == ['{"n":1}', '{"n":2}', '{"n":3}']
    # The last message came ~0.3 s in; the silence after it is what counts.
    assert 0.75 <= elapsed < 6, elapsed
    closed = srv.log.until("closed")[-1]
    assert closed[1] == 4001, closed


def test_idle_timeout_with_until_unmatched_exits_1(run, ws_server):
    srv = ws_server(script(['{"type":"progress"}']))
    start = time.monotonic()
    res = run(["--until", "type=done", "--idle-timeout", "300ms", srv.url()])
    assert res.code == 1, res
    assert "no message matched --until type=done" in res.stderr
    assert 0.3 <= time.monotonic() - start < 6


def test_close_code_at_stdin_eof(run, ws_server):
    srv = ws_server(helpers.record)
    res = run(["--linger", "0", "--close-code", "3001:bye now", srv.url()], stdin=b'{"a":1}\n')
    assert res.code == 0, res
    msgs, closed = helpers.received_messages(srv.log)
    assert msgs == ['{"a":1}']
    assert closed[1] == 3001, closed


def test_close_code_in_server_mode(spawn):
    server, port = listen(spawn, ["--close-code", "4002:shutting down"])
    with ws_client(port) as a:
        a.send('{"hello":1}')
        server.wait_stdout_lines(1)
        server.close_stdin()   # stdin EOF: the server ends on its own
        try:
            while True:
                a.recv(timeout=5)
        except ConnectionClosed as exc:
            assert exc.rcvd is not None
            assert (exc.rcvd.code, exc.rcvd.reason) == (4002, "shutting down")
    assert server.finish().code == 0


def test_rate_paces_stdin_lines(run, ws_server):
    arrivals = []

    async def handler(ws, log):
        async for m in ws:
            arrivals.append(time.monotonic())
            log.put("msg", m)
        log.put("closed", ws.close_code, None)

    srv = ws_server(handler)
    lines = [json.dumps({"n": i}, separators=(",", ":")) for i in range(11)]
    res = run(["--rate", "20/s", "--linger", "0", srv.url()], stdin=("\n".join(lines) + "\n").encode())
    assert res.code == 0, res
    msgs, _ = helpers.received_messages(srv.log)
    assert msgs == lines
    span = arrivals[-1] - arrivals[0]
    # 10 intervals of 50 ms: never faster (a timer never fires early), and
    # generously bounded above for a loaded machine.
    assert 0.45 <= span < 5, span
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
    assert sorted(gaps)[len(gaps) // 2] >= 0.04, gaps   # the median gap is the interval, not a burst


def test_rate_in_server_mode(spawn):
    server, port = listen(spawn, ["--rate", "25/s"])
    with ws_client(port) as a:
        server.write(b"".join(b'{"n":%d}\n' % i for i in range(6)))
        start = time.monotonic()
        got = [a.recv(timeout=5) for _ in range(6)]
        span = time.monotonic() - start
    assert got == ['{"n":%d}' % i for i in range(6)]
    assert 0.15 <= span < 5, span
