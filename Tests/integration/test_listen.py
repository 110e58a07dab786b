"""Server mode: --listen [HOST:]PORT[/PATH] and --once."""

from __future__ import annotations

import json

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

import helpers


def start_listener(spawn, spec: str, args=()):
    """Start wspipe --listen with port 0; return (proc, port) from its stderr notice."""
    proc = spawn(["--listen", spec, *args], stdin=b"", close_stdin=False)
    m = proc.wait_stderr(r"wspipe: listening on (\S+):(\d+)")
    return proc, int(m.group(2))


def _connect(port: int, path: str = "/"):
    return connect(f"ws://127.0.0.1:{port}{path}", open_timeout=5, close_timeout=2, compression=None)


def test_client_messages_reach_stdout(spawn):
    proc, port = start_listener(spawn, "127.0.0.1:0/chat", ["--once"])
    with _connect(port, "/chat") as ws:
        ws.send('{"a": 1}')
        ws.send("not json")
        ws.send(b"\x00\xff")
        ws.send("[\n1,\n2\n]")
        lines = proc.wait_stdout_lines(4)
    assert lines == [b'{"a": 1}', b'{"$text":"not json"}', b'{"$binary":"AP8="}', b"[1,2]"]
    res = proc.finish()
    assert res.code == 0, res


def test_stdin_lines_broadcast_to_all_clients(spawn):
    proc, port = start_listener(spawn, "127.0.0.1:0/")
    with _connect(port) as a, _connect(port) as b:
        proc.write(b'{"to":"all"}\n{"$binary":"AAEC"}\n{"$text":"plain"}\n')
        for ws in (a, b):
            assert ws.recv(timeout=5) == '{"to":"all"}'
            assert ws.recv(timeout=5) == b"\x00\x01\x02"
            assert ws.recv(timeout=5) == "plain"


def test_once_exits_0_when_the_client_leaves(spawn):
    proc, port = start_listener(spawn, "127.0.0.1:0", ["--once"])
    with _connect(port) as ws:
        ws.send('{"only":1}')
        proc.wait_stdout_lines(1)
        ws.close(1000)
    res = proc.finish()
    assert res.code == 0, res
    assert res.stdout == b'{"only":1}\n'


def test_other_path_gets_404(spawn):
    proc, port = start_listener(spawn, "127.0.0.1:0/chat")
    with pytest.raises(InvalidStatus) as err:
        _connect(port, "/other")
    assert err.value.response.status_code == 404
    with _connect(port, "/chat") as ws:  # still serving
        ws.send('{"after":404}')
        assert proc.wait_stdout_lines(1) == [b'{"after":404}']


def test_fixed_port_without_host(spawn, free_port):
    port = free_port()
    proc = spawn(["--listen", f"{port}/ws", "--once"], stdin=b"", close_stdin=False)
    helpers.wait_port(port)
    with _connect(port, "/ws") as ws:
        proc.write(b'{"hello":"client"}\n')
        assert ws.recv(timeout=5) == '{"hello":"client"}'
        ws.send('{"hello":"server"}')
        assert proc.wait_stdout_lines(1) == [b'{"hello":"server"}']
    assert proc.finish().code == 0


def test_wspipe_client_to_wspipe_listener(spawn):
    server, port = start_listener(spawn, "127.0.0.1:0/pipe", ["--once"])
    client = spawn([f"ws://127.0.0.1:{port}/pipe"], stdin=b'{"from":"client"}\n{"$binary":"/w=="}\n',
                   close_stdin=False)
    assert server.wait_stdout_lines(2) == [b'{"from":"client"}', b'{"$binary":"/w=="}']
    server.write(b'{"from":"server"}\n{"$text":"t x"}\n')
    assert client.wait_stdout_lines(2) == [b'{"from":"server"}', b'{"$text":"t x"}']
    client.close_stdin()
    cres = client.finish()
    sres = server.finish()
    assert cres.code == 0, cres
    assert sres.code == 0, sres


def test_client_close_code_reaches_listener_cleanly(spawn):
    """A client closing with 1000 is answered with a Close of its own."""
    proc, port = start_listener(spawn, "127.0.0.1:0", ["--once"])
    with _connect(port) as ws:
        ws.send(json.dumps({"x": 1}))
        proc.wait_stdout_lines(1)
        ws.close(1000, "bye")
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1000
    assert closed.value.rcvd_then_sent is False  # we closed first; the listener answered
    assert proc.finish().code == 0
