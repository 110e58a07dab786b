"""Unix-domain sockets: `--unix-socket PATH` for the client (the URL still
gives Host, path and scheme) and `--listen unix:PATH` for the server, whose
socket file is removed at exit. Peers: websockets' unix_serve/unix_connect,
and wspipe on both ends."""

from __future__ import annotations

import os
import signal
import socket
import time

from websockets.asyncio.server import unix_serve
from websockets.sync.client import unix_connect

import helpers
from helpers import write_lines


def _wait_listening(path: str, timeout: float = helpers.EVENT_TIMEOUT) -> None:
    """Until something accepts on the socket file."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.connect(path)
                return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(f"nothing accepted on {path} within {timeout}s")
            time.sleep(0.02)


def test_client_over_unix_socket_keeps_host_and_path(spawn, loop_thread, tmp_path):
    path = str(tmp_path / "server.sock")
    log = helpers.Log()

    async def handler(ws):
        log.put("request", ws.request.path, ws.request.headers["Host"])
        async for msg in ws:
            await ws.send(msg)

    async def start():
        return await unix_serve(handler, path)

    server = loop_thread.run(start())
    try:
        proc = spawn(["--unix-socket", path, "ws://api.example:8080/chat?room=1"], stdin=b'{"over":"unix"}\n',
                     close_stdin=False)
        assert proc.wait_stdout_lines(1) == [b'{"over":"unix"}']
        proc.close_stdin()
        assert proc.finish().code == 0
        assert log.get() == ("request", "/chat?room=1", "api.example:8080")
    finally:
        async def stop():
            server.close()
            await server.wait_closed()
        loop_thread.run(stop())


def test_server_on_unix_socket_removes_it_at_exit(spawn, tmp_path):
    path = str(tmp_path / "wspipe.sock")
    server = spawn(["-v", "--listen", f"unix:{path}"], stdin=b"", close_stdin=False)
    server.wait_stderr(rf"wspipe: listening on unix:{path}")
    _wait_listening(path)
    with unix_connect(path, "ws://localhost/any/path", open_timeout=5, close_timeout=2) as ws:
        write_lines(server, {"to": "client"})
        assert ws.recv(timeout=5) == '{"to":"client"}'
        ws.send('{"to":"server"}')
        assert server.wait_stdout_lines(1) == [b'{"to":"server"}']
    server.signal(signal.SIGINT)
    res = server.finish()
    assert res.code == 130, res
    assert not os.path.exists(path), "the socket file outlived the server"


def test_wspipe_to_wspipe_over_unix_socket_with_once(spawn, tmp_path):
    path = str(tmp_path / "pair.sock")
    server = spawn(["--listen", f"unix:{path}", "--once"], stdin=b"", close_stdin=False)
    _wait_listening(path)   # that probe is a client too: --once counts upgraded clients only
    client = spawn(["--unix-socket", path, "ws://localhost/"], stdin=b'{"n":1}\n{"n":2}\n')
    assert server.wait_stdout_lines(2) == [b'{"n":1}', b'{"n":2}']
    assert client.finish().code == 0
    res = server.finish()
    assert res.code == 0, res
    assert not os.path.exists(path)


def test_stale_socket_file_is_replaced_but_other_files_are_not(spawn, run, tmp_path):
    path = str(tmp_path / "stale.sock")
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(path)
    stale.close()   # the file stays, nobody listens: a listener that died
    server = spawn(["--listen", f"unix:{path}"], stdin=b"", close_stdin=False)
    _wait_listening(path)
    server.signal(signal.SIGTERM)
    server.finish()
    regular = str(tmp_path / "regular")
    with open(regular, "w") as f:
        f.write("keep me")
    res = run(["--listen", f"unix:{regular}"], stdin=b"")
    assert res.code != 0 and f"listen on unix:{regular}: Address already in use" in res.stderr, res
    with open(regular) as f:
        assert f.read() == "keep me"


def test_missing_socket_is_unreachable_exit_3(run, tmp_path):
    path = str(tmp_path / "nobody.sock")
    res = run(["--unix-socket", path, "ws://localhost/"], stdin=b"")
    assert res.code == 3, res
    assert f"connect to unix:{path}: No such file or directory" in res.stderr, res
