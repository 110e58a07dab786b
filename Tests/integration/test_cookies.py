"""--cookie, -c/--cookie-jar, --user and --user-file (issue 25), against a
websockets server that logs each request's headers and sets cookies in its
101 (its process_response hook)."""

from __future__ import annotations

import base64
import os
import stat

import pytest

import helpers
from helpers import FAST_BACKOFF


def cookie_server(ws_server, set_cookies=(), close_first=None):
    """Logs ("request", path, headers) for each upgrade; the 101 of the
    first connection carries `set_cookies`; with close_first, that first
    connection is closed with this code (a restart), later ones echo."""
    state = {"connections": 0}

    def process_response(connection, request, response):
        state["connections"] += 1
        if state["connections"] == 1:
            for cookie in set_cookies:
                response.headers["Set-Cookie"] = cookie
        return None

    async def handler(ws, log):
        log.put("request", ws.request.path, ws.request.headers)
        if close_first is not None and state["connections"] == 1:
            await ws.close(close_first, "restart")
            return
        async for message in ws:
            await ws.send(message)

    return ws_server(handler, process_response=process_response)


def requests(srv, count):
    out = []
    while len(out) < count:
        item = srv.log.get()
        if item[0] == "request":
            out.append(item[2])
    return out


def test_cookies_set_by_a_101_are_sent_on_the_reconnect(spawn, ws_server, tmp_path):
    srv = cookie_server(ws_server, ["sid=abc123; Path=/; HttpOnly", "theme=dark; Max-Age=3600"], close_first=1012)
    jar = tmp_path / "jar.txt"
    proc = spawn(["-c", str(jar), "--events", *FAST_BACKOFF, srv.url("/live")], close_stdin=False)
    helpers.wait_events(proc, "connected", 2)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    first, second = requests(srv, 2)
    assert "Cookie" not in first
    assert second["Cookie"] == "sid=abc123; theme=dark"
    # The jar is curl's format, private, and holds both.
    assert stat.S_IMODE(os.stat(jar).st_mode) == 0o600
    lines = [l for l in jar.read_text().splitlines() if l and not l.startswith("# ")]
    fields = sorted(l.split("\t") for l in lines)
    assert fields[0][0] == "#HttpOnly_127.0.0.1" and fields[0][5:] == ["sid", "abc123"], fields
    assert fields[1][0] == "127.0.0.1" and fields[1][5:] == ["theme", "dark"] and int(fields[1][4]) > 0, fields


def test_a_cookie_file_is_read_and_the_jar_written_back(run, ws_server, tmp_path):
    srv = cookie_server(ws_server, ["added=1"])
    jar = tmp_path / "cookies.txt"
    jar.write_text("# Netscape HTTP Cookie File\n"
                   "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tfromfile\n"
                   "127.0.0.1\tFALSE\t/other\tFALSE\t0\telsewhere\tno\n"
                   ".example.com\tTRUE\t/\tFALSE\t0\tforeign\tno\n"
                   "127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\tno\n")
    res = run(["--cookie", str(jar), "-c", str(jar), srv.url("/live")], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    (headers,) = requests(srv, 1)
    assert headers["Cookie"] == "session=fromfile"
    names = [l.split("\t")[5] for l in jar.read_text().splitlines() if l and not l.startswith("# ")]
    assert sorted(names) == ["added", "elsewhere", "foreign", "session"]


def test_cookie_data_is_sent_as_given(run, ws_server):
    srv = cookie_server(ws_server)
    res = run(["--cookie", "a=1; b=2", srv.url()], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    (headers,) = requests(srv, 1)
    assert headers["Cookie"] == "a=1; b=2"


def test_a_missing_cookie_file_is_an_empty_jar(run, ws_server, tmp_path):
    srv = cookie_server(ws_server, ["new=1"])
    jar = tmp_path / "new.txt"
    res = run(["--cookie", str(jar), "-c", str(jar), srv.url()], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    (headers,) = requests(srv, 1)
    assert "Cookie" not in headers
    assert "\tnew\t1" in jar.read_text()


def test_user_is_seen_by_the_server(run, ws_server, tmp_path):
    srv = cookie_server(ws_server)
    res = run(["--user", "ann:s3cret:with:colons", srv.url()], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    (headers,) = requests(srv, 1)
    assert headers["Authorization"] == "Basic " + base64.b64encode(b"ann:s3cret:with:colons").decode()
    creds = tmp_path / "creds"
    creds.write_text("bob:pw\n")
    res = run(["--user-file", str(creds), srv.url()], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    (headers,) = requests(srv, 1)
    assert headers["Authorization"] == "Basic " + base64.b64encode(b"bob:pw").decode()


def test_a_header_given_wins_over_user(run, ws_server):
    srv = cookie_server(ws_server)
    res = run(["--user", "ann:pw", "-H", "Authorization: Bearer t", srv.url()], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    (headers,) = requests(srv, 1)
    assert headers.get_all("Authorization") == ["Bearer t"]


@pytest.mark.parametrize("args,message", [
    (["--user", "annonly"], "expected USER:PASSWORD"),
    (["--user", "a:b", "--user-file", "f"], "--user-file"),
    (["--user-file", "/nonexistent/creds"], "/nonexistent/creds"),
    (["-c", ""], "--cookie-jar"),
    (["--cookie", "a=b\nc"], "line break"),
], ids=["no-colon", "both", "missing-file", "empty-jar", "newline"])
def test_usage_errors(run, args, message):
    res = run(args + ["ws://127.0.0.1:9/"])
    assert res.code == 2, res
    assert message in res.stderr, res


def test_short_b_and_u_keep_websocats_meanings(run, ws_server):
    srv = cookie_server(ws_server)
    # -b is --binary (a binary frame), not curl's --cookie.
    res = run(["-b", "-n", "--max-messages", "1", srv.url()], stdin=b"hi\n")
    assert res.code == 0, res
    assert res.stdout == b"hi\n", res
    (headers,) = requests(srv, 1)
    assert "Cookie" not in headers and "Authorization" not in headers
