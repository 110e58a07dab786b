"""`wspipe URL <fifo >fifo` is an exact echo client.

wspipe's stdin and stdout are one named pipe (both opened read-write), so
every line it writes comes back to it as input and is sent back to the
server. The server checks each message returns identical and of the same
type, then closes with 1000, and wspipe exits 0.
"""

from __future__ import annotations

import asyncio
import os

import helpers

MIB = 1 << 20

CONTROL = "".join(chr(c) for c in range(0x20)) + "\x7f"

MESSAGES = [
    '{"a": 1, "b": [true, null, 2.50, "x  y"], "c": {}}',
    "[1,2,3]",
    '"a JSON string with \\"escapes\\" and \\u00e9"',
    "0",
    'quote " backslash \\ slash / ' + CONTROL + " ünïcødé 🎉 \u2028\u2029 \ufeff",
    "plain text, not JSON",
    "line\nbreaks\r\ninside",
    "",
    b"",
    os.urandom(1),
    os.urandom(125),
    os.urandom(126),
    os.urandom(65535),
    os.urandom(65536),
    os.urandom(MIB),
    os.urandom(16 * MIB),
    ("text é 🎉 " * (16 * MIB // 14))[: 16 * MIB],
    # Large valid JSON is written to stdout straight from the message (the
    # fifo takes 64 KiB at a time): byte for byte, in order, also after a
    # small message in the same batch.
    '{"big":"' + "x" * (2 * MIB) + '","n":[1,2,3]}',
    "[" + ",".join(['"é🎉"'] * (MIB // 8)) + "]",
    '{"small":1}',
    '{"after":"' + "y" * (300 * 1024) + '"}',
]


def _describe(m) -> str:
    return f"{type(m).__name__}[{len(m)}]"


def make_echo_checker(messages):
    async def handler(ws, log):
        for i, sent in enumerate(messages):
            await ws.send(sent)
            try:
                got = await asyncio.wait_for(ws.recv(), 30)
            except asyncio.TimeoutError:
                log.put("result", i, f"no echo for message {i} ({_describe(sent)})")
                await ws.close(1011)
                return
            if type(got) is not type(sent) or got != sent:
                log.put("result", i, f"message {i}: sent {_describe(sent)} {sent[:60]!r}, "
                                     f"got {_describe(got)} {got[:60]!r}")
                await ws.close(1011)
                return
        log.put("result", len(messages), "ok")
        await ws.close(1000)
    return handler


def run_fifo_echo(spawn, url: str, fifo_path, args=()):
    os.mkfifo(fifo_path)
    fd = os.open(fifo_path, os.O_RDWR)
    try:
        proc = spawn([*args, url], stdin_fd=fd, stdout_fd=fd)
    finally:
        os.close(fd)
    return proc


def test_exact_echo_through_a_fifo(spawn, ws_server, tmp_path):
    srv = ws_server(make_echo_checker(MESSAGES))
    proc = run_fifo_echo(spawn, srv.url(), tmp_path / "loop")
    (_, count, verdict) = srv.log.until("result", timeout=90)[-1]
    res = proc.finish(timeout=15)
    assert verdict == "ok", f"{verdict}; {res}"
    assert count == len(MESSAGES)
    assert res.code == 0, res
