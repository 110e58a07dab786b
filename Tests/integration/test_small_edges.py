"""Issue 33 item 9: small edges, each against real peers.

- `--route-errors ignore` still printed the route's failure and its count
  of dropped lines;
- install.sh under umask 077 made 0700 folders (other users could not run
  wspipe nor read its man page);
- a Location's bytes past ASCII went raw into the next request line;
- `--max-redirs -1` followed a redirect loop for ever (10,409 requests in 3 s);
- each --exec client refused because its program could not start had a
  stderr line of its own (now one a second)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import socket
import stat
import subprocess
import time

import pytest
from websockets.sync.client import connect

import helpers

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def test_route_errors_ignore_says_nothing_of_a_failed_route(run, ws_server):
    srv = ws_server(helpers.send_then_close([json.dumps({"type": "chat", "n": n}) for n in range(50)]
                                           + ['{"type":"other"}']))
    for ignore, quiet in ((["--route-errors", "ignore"], True), ([], False)):
        res = run(["-n", *ignore, "--route", "chat=|exit 0", srv.url()])
        assert res.stdout == b'{"type":"other"}\n', res
        if quiet:
            assert res.code == 0 and res.stderr == "", res
        else:
            assert res.code == 1 and "route to |exit 0 failed" in res.stderr, res


def test_install_sh_under_umask_077_makes_folders_everyone_may_enter(wspipe_bin, tmp_path):
    """A release folder laid out as packaging/build.sh makes it, installed with install.sh."""
    release = tmp_path / "release"
    files = {"bin/wspipe": wspipe_bin, "share/man/man1/wspipe.1": os.path.join(ROOT, "man", "wspipe.1"),
             "share/bash-completion/completions/wspipe": os.path.join(ROOT, "completions", "wspipe.bash"),
             "share/zsh/site-functions/_wspipe": os.path.join(ROOT, "completions", "_wspipe"),
             "share/fish/vendor_completions.d/wspipe.fish": os.path.join(ROOT, "completions", "wspipe.fish")}
    for name, source in files.items():
        os.makedirs(release / os.path.dirname(name), exist_ok=True)
        shutil.copy(source, release / name)
    shutil.copy(os.path.join(ROOT, "packaging", "install.sh"), release / "install.sh")
    prefix = tmp_path / "prefix"
    res = subprocess.run(["sh", "-c", "umask 077 && exec ./install.sh"], cwd=release, capture_output=True, text=True,
                         env={**os.environ, "PREFIX": str(prefix)}, timeout=60)
    assert res.returncode == 0, res
    for name in files:
        folder = prefix / os.path.dirname(name)
        while folder != prefix.parent:
            assert stat.S_IMODE(os.stat(folder).st_mode) == 0o755, folder
            folder = folder.parent
        assert stat.S_IMODE(os.stat(prefix / name).st_mode) == (0o755 if name.startswith("bin/") else 0o644), name


def redirecting(ws_server, routes):
    """Requests for a path in `routes` get (status, Location); others are upgraded and echoed."""
    holder = {}

    def process_request(connection, request):
        holder["srv"].log.put("request", request.path)
        if request.path in routes:
            status, location = routes[request.path]
            response = connection.respond(status, "moved\n")
            # websockets writes header values as ISO-8859-1: this gives the UTF-8 bytes of `location`.
            response.headers["Location"] = location.encode().decode("latin-1")
            return response
        return None

    async def handler(ws, log):
        async for message in ws:
            await ws.send(message)

    holder["srv"] = ws_server(handler, process_request=process_request)
    return holder["srv"]


def requested(srv):
    paths = []
    while not srv.log.q.empty():
        item = srv.log.q.get_nowait()
        if item[0] == "request":
            paths.append(item[1])
    return paths


def test_a_locations_bytes_past_ascii_are_percent_encoded(run, ws_server):
    srv = redirecting(ws_server, {"/start": (302, "/café?q=ü x")})
    res = run(["-L", srv.url("/start")], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    assert res.stdout == b'{"n":1}\n'
    assert requested(srv) == ["/start", "/caf%C3%A9?q=%C3%BC%20x"]


def test_max_redirs_minus_one_stops_a_loop(run, ws_server):
    srv = redirecting(ws_server, {"/loop": (302, "/loop"), "/a": (307, "/b"), "/b": (307, "/a")})
    # Stopped before the request that would repeat one: was 10,409 requests in 3 s.
    for start, requests in (("/loop", ["/loop"]), ("/a", ["/a", "/b"])):
        res = run(["-L", "--max-redirs", "-1", srv.url(start)], stdin=b'{"n":1}\n', timeout=20)
        assert res.code == 4, res
        assert "a redirect loop" in res.stderr, res
        assert requested(srv) == requests


@pytest.mark.needs("proc")
def test_programs_that_cannot_start_are_reported_once_a_second(spawn):
    """The server's descriptors are limited, after it started, so that a
    client still gets accepted but its program's pipes cannot be made."""
    server = spawn(["--listen", "127.0.0.1:0", "--exec", "cat"], stdin=b"", close_stdin=False)
    port = int(server.wait_stderr(r"listening on \S+:(\d+)").group(1))
    pid = server.proc.pid
    base = len(os.listdir(f"/proc/{pid}/fd"))
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (base + 2, base + 2))
    refused = 0
    started = time.monotonic()
    for _ in range(12):
        try:
            with connect(f"ws://127.0.0.1:{port}/", open_timeout=5):
                pass
        except Exception as error:
            assert "503" in str(error), error
            refused += 1
    assert refused == 12
    took = time.monotonic() - started
    server.signal(signal.SIGTERM)   # an --exec server serves on after its stdin ends
    res = server.finish()
    lines = [l for l in res.stderr.splitlines() if "cannot start the program" in l]
    # One line a second at most (was: one per client).
    assert 1 <= len(lines) <= int(took) + 1, (took, res.stderr)
    assert len(lines) == 1 or "client(s) refused so since the last report" in lines[1], res.stderr
