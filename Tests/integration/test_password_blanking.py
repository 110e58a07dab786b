"""Issue 33 item 8: `--user` and `--proxy-user` showed the password to every
local user in ps(1). wspipe now blanks the value in its own argument vector
once it has read it, as curl 7.88 does (the -file forms, which the man page
calls the safe ones, never put it there). Read here from /proc/PID/cmdline,
which is what ps shows."""

from __future__ import annotations

import base64
import socket
import threading

import pytest

import helpers


def cmdline(pid: int) -> list[bytes]:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read().split(b"\0")[:-1]


def auth_server(ws_server):
    async def handler(ws, log):
        log.put("auth", ws.request.headers.get("Authorization"))
        async for message in ws:
            await ws.send(message)
    return ws_server(handler)


@pytest.mark.needs("proc")
@pytest.mark.parametrize("form", [["--user", "alice:s3cret"], ["--user=alice:s3cret"]])
def test_the_user_password_is_blanked_once_read(spawn, ws_server, form):
    srv = auth_server(ws_server)
    proc = spawn([*form, srv.url()], stdin=b'{"n":1}\n', close_stdin=False)
    assert proc.wait_stdout_lines(1) == [b'{"n":1}']
    args = cmdline(proc.proc.pid)
    assert not any(b"s3cret" in a or b"alice" in a for a in args), args
    blanked = args[1:1 + len(form)]
    if len(form) == 1:
        assert blanked == [b"--user=" + b" " * len("alice:s3cret")], "the flag stays, its value is blanked"
    else:
        assert blanked == [b"--user", b" " * len("alice:s3cret")]
    assert args[-1] == srv.url().encode(), "the other arguments are untouched"
    assert srv.log.get() == ("auth", "Basic " + base64.b64encode(b"alice:s3cret").decode()), "still sent"
    proc.close_stdin()
    assert proc.finish().code == 0


@pytest.mark.needs("proc")
def test_the_proxy_password_is_blanked_once_read(spawn):
    """A proxy that never answers keeps wspipe waiting in its handshake, long enough to look."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    accepted, done = threading.Event(), threading.Event()

    def accept():
        conn, _ = listener.accept()
        conn.recv(4096)   # the CONNECT request: wspipe has parsed its arguments long before
        accepted.set()
        done.wait(30)
        conn.close()

    threading.Thread(target=accept, daemon=True).start()
    port = listener.getsockname()[1]
    proc = spawn(["--proxy", f"http://127.0.0.1:{port}", "--proxy-user", "bob:pr0xypw", "ws://example.invalid/"],
                 stdin=b"", close_stdin=False)
    try:
        assert accepted.wait(helpers.EVENT_TIMEOUT), "wspipe never reached the proxy"
        args = cmdline(proc.proc.pid)
        assert not any(b"pr0xypw" in a or b"bob" in a for a in args), args
        assert b"--proxy-user" in args
    finally:
        done.set()
        proc.kill()
        listener.close()


@pytest.mark.needs("proc")
@pytest.mark.parametrize("form", [["-u", "alice:s3cret"], ["-ualice:s3cret"], ["--user=alice:s3cret"]])
def test_a_pasted_curl_command_has_its_password_blanked_too(spawn, ws_server, form):
    """`wspipe curl URL -u user:pass` reads curl's -u: the same password in argv."""
    srv = auth_server(ws_server)
    proc = spawn(["curl", srv.url(), *form], stdin=b'{"n":1}\n', close_stdin=False)
    assert proc.wait_stdout_lines(1) == [b'{"n":1}']
    args = cmdline(proc.proc.pid)
    assert not any(b"s3cret" in a or b"alice" in a for a in args), args
    assert args[1:3] == [b"curl", srv.url().encode()], "the other arguments are untouched"
    assert srv.log.get() == ("auth", "Basic " + base64.b64encode(b"alice:s3cret").decode()), "still sent"
    proc.close_stdin()
    assert proc.finish().code == 0
