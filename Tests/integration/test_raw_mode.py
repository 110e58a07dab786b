"""Raw line mode: -t, -b, --binary-output, -0."""

from __future__ import annotations

import base64

import helpers
from helpers import received_messages


def _incoming(spawn, ws_server, messages, args):
    srv = ws_server(helpers.send_then_close(messages))
    return spawn([*args, srv.url()], stdin=b"", close_stdin=False).finish()


def test_text_lines_sent_as_is(run, ws_server):
    srv = ws_server(helpers.record)
    res = run(["-t", srv.url()], stdin=b'hello world\n{not json\n  spaced  \n{"a" : 1}\n')
    msgs, _ = received_messages(srv.log)
    assert res.code == 0, res
    assert msgs == ["hello world", "{not json", "  spaced  ", '{"a" : 1}']


def test_text_messages_written_with_newline(spawn, ws_server):
    res = _incoming(spawn, ws_server, ["line1", "multi\nline", '{"a":\n1}', "ünï"], ["-t"])
    assert res.code == 0, res
    assert res.stdout == 'line1\nmulti\nline\n{"a":\n1}\nünï\n'.encode()


def test_text_round_trip_with_echo_server(spawn, ws_server):
    srv = ws_server(helpers.echo)
    lines = [f"message {i} \"q\" \\" for i in range(20)]
    proc = spawn(["-t", srv.url()], stdin="".join(l + "\n" for l in lines).encode(), close_stdin=False)
    proc.wait_stdout_lines(len(lines))
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert res.stdout.decode().split("\n") == lines + [""]


def test_binary_output_default_raw(spawn, ws_server):
    res = _incoming(spawn, ws_server, [b"\x00\x01bin\xff", "text"], ["-t"])
    assert res.code == 0, res
    assert res.stdout == b"\x00\x01bin\xff\ntext\n"


def test_binary_output_base64(spawn, ws_server):
    blob = bytes(range(256))
    res = _incoming(spawn, ws_server, [blob, "text"], ["-t", "--binary-output", "base64"])
    assert res.code == 0, res
    assert res.stdout == base64.b64encode(blob) + b"\ntext\n"


def test_binary_output_drop(spawn, ws_server):
    res = _incoming(spawn, ws_server, [b"\x00gone", "after"], ["-t", "--binary-output", "drop"])
    assert res.code == 0, res
    assert res.stdout == b"after\n"


def test_binary_lines_sent_as_binary(run, ws_server):
    srv = ws_server(helpers.record)
    res = run(["-b", srv.url()], stdin=b"abc\n\x00\xffdef\n{\"a\":1}\n")
    msgs, _ = received_messages(srv.log)
    assert res.code == 0, res
    assert msgs == [b"abc", b"\x00\xffdef", b'{"a":1}']


def test_nul_separator_both_ways(spawn, ws_server):
    async def handler(ws, log):
        got = [await ws.recv(), await ws.recv()]
        log.put("got", got)
        await ws.send("x\ny")
        await ws.send("z")
        await ws.close(1000)

    srv = ws_server(handler)
    res = spawn(["-t", "-0", srv.url()], stdin=b"a b\nc\x00d\x00", close_stdin=False).finish()
    assert srv.log.get() == ("got", ["a b\nc", "d"])
    assert res.code == 0, res
    assert res.stdout == b"x\ny\x00z\x00"
