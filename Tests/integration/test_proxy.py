"""Connecting through proxies (wspipe(1): OPTIONS, Connection; ENVIRONMENT).

Real proxies: Debian's tinyproxy for HTTP CONNECT (with and without Basic
proxy authentication) and microsocks for SOCKS5 (with and without RFC 1929
user/password). Tests/run installs both when missing; without them these
tests skip and say so. Each proxy logs the tunnels it opened, which is how a
test knows the connection really went through it.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time

import pytest

import helpers
from helpers import FAST_BACKOFF, write_lines
from peers.fault_server import Behaviour


class Proxy:
    """A proxy process on 127.0.0.1:port whose log the test can wait on."""

    def __init__(self, argv: list[str], port: int, log_path: str, scheme: str):
        self.port = port
        self.url_text = f"{scheme}://127.0.0.1:{port}"
        self.log_path = log_path
        self.out = open(log_path + ".out", "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.out, stderr=subprocess.STDOUT)
        helpers.wait_port(port)

    def log(self) -> str:
        text = ""
        for path in (self.log_path, self.log_path + ".out"):
            if os.path.exists(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    text += f.read()
        return text

    def wait_log(self, needle: str, count: int = 1, timeout: float = helpers.EVENT_TIMEOUT) -> str:
        deadline = time.monotonic() + timeout
        while self.log().count(needle) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} x{count} not in the proxy log within {timeout}s: {self.log()[-1500:]!r}")
            time.sleep(0.02)
        return self.log()

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.out.close()


@pytest.fixture
def tinyproxy(tmp_path):
    """tinyproxy(auth=None) -> Proxy with .url_text "http://127.0.0.1:PORT"."""
    if shutil.which("tinyproxy") is None:
        pytest.skip("tinyproxy is not installed (Tests/run installs Debian's tinyproxy-bin as root)")
    started: list[Proxy] = []

    def _start(auth: tuple[str, str] | None = None) -> Proxy:
        port = helpers.free_port()
        log = str(tmp_path / f"tinyproxy-{port}.log")
        conf = tmp_path / f"tinyproxy-{port}.conf"
        lines = [f"Port {port}", "Listen 127.0.0.1", "Timeout 30", "MaxClients 20", "Allow 127.0.0.1",
                 "LogLevel Connect", f'LogFile "{log}"', "DisableViaHeader Yes"]
        if auth:
            lines.append(f"BasicAuth {auth[0]} {auth[1]}")
        conf.write_text("\n".join(lines) + "\n")
        proxy = Proxy(["tinyproxy", "-d", "-c", str(conf)], port, log, "http")
        started.append(proxy)
        return proxy

    yield _start
    for p in started:
        p.close()


@pytest.fixture
def microsocks(tmp_path):
    """microsocks(auth=None) -> Proxy; its log names each target as the client gave it."""
    if shutil.which("microsocks") is None:
        pytest.skip("microsocks is not installed (Tests/run installs Debian's microsocks as root)")
    started: list[Proxy] = []

    def _start(auth: tuple[str, str] | None = None) -> Proxy:
        port = helpers.free_port()
        argv = ["microsocks", "-i", "127.0.0.1", "-p", str(port)]
        if auth:
            argv += ["-u", auth[0], "-P", auth[1]]
        proxy = Proxy(argv, port, str(tmp_path / f"microsocks-{port}.log"), "socks5")
        started.append(proxy)
        return proxy

    yield _start
    for p in started:
        p.close()


def _round_trip(spawn, args, url, env=None, line=b'{"via":"proxy"}'):
    proc = spawn([*args, url], stdin=line + b"\n", close_stdin=False, env=env)
    out = proc.wait_stdout_lines(1)
    proc.close_stdin()
    return out, proc.finish()


# -- HTTP CONNECT ---------------------------------------------------------------------------


def test_http_connect_round_trip(spawn, ws_server, tinyproxy):
    srv = ws_server(helpers.echo)
    proxy = tinyproxy()
    out, res = _round_trip(spawn, ["--proxy", proxy.url_text], srv.url())
    assert out == [b'{"via":"proxy"}'] and res.code == 0, res
    proxy.wait_log(f"CONNECT 127.0.0.1:{srv.port}")


def test_http_proxy_auth(spawn, run, ws_server, tinyproxy):
    srv = ws_server(helpers.echo)
    proxy = tinyproxy(auth=("alice", "s3cret"))
    good = f"http://alice:s3cret@127.0.0.1:{proxy.port}"
    out, res = _round_trip(spawn, ["--proxy", good], srv.url())
    assert out == [b'{"via":"proxy"}'] and res.code == 0, res
    prefix = f"wspipe: proxy http://127.0.0.1:{proxy.port} refused the tunnel to 127.0.0.1:{srv.port}: "
    # No credentials: 407, reported with the proxy's own status line (tinyproxy speaks HTTP/1.0).
    res = run(["--proxy", f"http://127.0.0.1:{proxy.port}", srv.url()], stdin=b'{"a":1}\n')
    assert res.code == 3, res
    assert prefix + "HTTP/1.0 407 Proxy Authentication Required\n" in res.stderr, res
    # Wrong ones: refused too (tinyproxy says 401), and never echoed back.
    res = run(["--proxy", f"http://alice:wrong@127.0.0.1:{proxy.port}", srv.url()], stdin=b'{"a":1}\n')
    assert res.code == 3, res
    assert re.search(re.escape(prefix) + r"HTTP/1\.[01] 40[17] ", res.stderr), res
    assert "wrong" not in res.stderr and "alice" not in res.stderr, "credentials must not be shown"


def test_wss_through_http_proxy_is_tls_to_the_server(spawn, ws_server, tinyproxy, tls_cert):
    """TLS runs inside the tunnel with the server's name: SNI and the
    certificate check are for localhost, not for the proxy."""
    seen = []
    ctx = helpers.server_ssl_context(tls_cert)
    ctx.sni_callback = lambda sslobj, name, c: seen.append(name)
    srv = ws_server(helpers.echo, ssl_context=ctx)
    proxy = tinyproxy()
    env = {"https_proxy": proxy.url_text}
    out, res = _round_trip(spawn, ["--cacert", os.path.join(tls_cert, "cert.pem")], srv.url(host="localhost"), env=env)
    assert out == [b'{"via":"proxy"}'] and res.code == 0, res
    assert seen == ["localhost"]
    proxy.wait_log(f"CONNECT localhost:{srv.port}")


def test_environment_chooses_by_scheme(spawn, ws_server, tinyproxy):
    srv = ws_server(helpers.echo)
    proxy = tinyproxy()
    # ws:// reads http_proxy; https_proxy would be a dead end.
    env = {"http_proxy": proxy.url_text, "https_proxy": "http://127.0.0.1:1"}
    out, res = _round_trip(spawn, [], srv.url(), env=env)
    assert out == [b'{"via":"proxy"}'] and res.code == 0, res
    proxy.wait_log(f"CONNECT 127.0.0.1:{srv.port}")
    # all_proxy when the scheme's own variable is absent.
    out, res = _round_trip(spawn, [], srv.url(), env={"all_proxy": proxy.url_text})
    assert res.code == 0, res
    proxy.wait_log(f"CONNECT 127.0.0.1:{srv.port}", count=2)


def test_no_proxy_and_noproxy_flag_connect_directly(spawn, run, ws_server):
    srv = ws_server(helpers.echo)
    dead = {"all_proxy": "http://127.0.0.1:1"}
    res = run([srv.url()], stdin=b'{"a":1}\n', env=dead)
    assert res.code == 3 and "cannot reach proxy http://127.0.0.1:1" in res.stderr, res
    out, res = _round_trip(spawn, [], srv.url(), env={**dead, "no_proxy": "localhost,127.0.0.1"})
    assert res.code == 0, res
    out, res = _round_trip(spawn, ["--noproxy", "*"], srv.url(), env=dead)
    assert res.code == 0, res
    out, res = _round_trip(spawn, ["--proxy", ""], srv.url(), env=dead)
    assert res.code == 0, res


def test_every_reconnect_goes_through_the_proxy(spawn, fault_server, tinyproxy):
    srv = fault_server(behaviours=[Behaviour(drop_after=1, drop="fin")])
    proxy = tinyproxy()
    proc = spawn(["--proxy", proxy.url_text, *FAST_BACKOFF, srv.url("/r")], stdin=None, close_stdin=False)
    srv.wait_open(0)
    write_lines(proc, {"n": 1})
    srv.wait_open(1)
    write_lines(proc, {"n": 2})
    srv.wait_messages(1, 1)
    proc.close_stdin()
    assert proc.finish().code == 0
    proxy.wait_log(f"CONNECT 127.0.0.1:{srv.port}", count=2)


def test_a_silent_proxy_counts_in_the_connect_timeout(run):
    """The proxy accepts TCP (the kernel does, from the backlog) and never answers."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        port = silent.getsockname()[1]
        res = run(["--connect-timeout", "1s", "--proxy", f"http://127.0.0.1:{port}", "ws://example.invalid/"],
                  stdin=b"", timeout=15)
    assert res.code == 3, res
    assert "timed out connecting to ws://example.invalid/ after 1s" in res.stderr, res


# -- SOCKS5 ---------------------------------------------------------------------------------


def test_socks5_resolves_locally_and_socks5h_remotely(spawn, ws_server, microsocks):
    """microsocks logs the target as the client named it: an address for
    socks5:// (wspipe resolved it), the name for socks5h://."""
    srv = ws_server(helpers.echo)
    proxy = microsocks()
    out, res = _round_trip(spawn, ["--proxy", f"socks5://127.0.0.1:{proxy.port}"], srv.url(host="localhost"))
    assert out == [b'{"via":"proxy"}'] and res.code == 0, res
    log = proxy.wait_log("connected to ")
    assert f"connected to 127.0.0.1:{srv.port}" in log or f"connected to ::1:{srv.port}" in log, log
    assert "connected to localhost" not in log, log
    out, res = _round_trip(spawn, ["--proxy", f"socks5h://127.0.0.1:{proxy.port}"], srv.url(host="localhost"))
    assert out == [b'{"via":"proxy"}'] and res.code == 0, res
    proxy.wait_log(f"connected to localhost:{srv.port}")


def test_socks5_user_password(spawn, run, ws_server, microsocks):
    srv = ws_server(helpers.echo)
    proxy = microsocks(auth=("alice", "s3cret"))
    out, res = _round_trip(spawn, ["--proxy", f"socks5h://alice:s3cret@127.0.0.1:{proxy.port}"], srv.url())
    assert out == [b'{"via":"proxy"}'] and res.code == 0, res
    prefix = f"proxy socks5h://127.0.0.1:{proxy.port} refused the tunnel to 127.0.0.1:{srv.port}: "
    res = run(["--proxy", f"socks5h://127.0.0.1:{proxy.port}", srv.url()], stdin=b"")
    assert res.code == 3 and prefix + "it requires a user name and password" in res.stderr, res
    res = run(["--proxy", f"socks5h://alice:wrong@127.0.0.1:{proxy.port}", srv.url()], stdin=b"")
    assert res.code == 3 and prefix + "user name or password rejected" in res.stderr, res


def test_socks5_reply_code_is_named(run, microsocks, free_port):
    proxy = microsocks()
    closed = free_port()
    res = run(["--proxy", f"socks5://127.0.0.1:{proxy.port}", f"ws://127.0.0.1:{closed}/"], stdin=b"")
    assert res.code == 3, res
    assert f"refused the tunnel to 127.0.0.1:{closed}: connection refused" in res.stderr, res


# -- credentials outside the command line (--proxy-user-file, the environment) ------------


def test_proxy_user_and_proxy_user_file_authenticate_to_http_and_socks5(spawn, ws_server, tinyproxy, microsocks,
                                                                         tmp_path):
    srv = ws_server(helpers.echo)
    secret_file = tmp_path / "proxy-user"
    secret_file.write_text("alice:s3cret\n")
    secret_file.chmod(0o600)
    for proxy, scheme in ((tinyproxy(auth=("alice", "s3cret")), "http"), (microsocks(auth=("alice", "s3cret")), "socks5h")):
        base = f"{scheme}://127.0.0.1:{proxy.port}"
        for args in (["--proxy-user-file", str(secret_file)], ["--proxy-user", "alice:s3cret"],
                     # The flag's credentials replace the URL's.
                     ["--proxy-user-file", str(secret_file), "--proxy", f"{scheme}://alice:wrong@127.0.0.1:{proxy.port}"]):
            out, res = _round_trip(spawn, ["--proxy", base, *args], srv.url())
            assert out == [b'{"via":"proxy"}'] and res.code == 0, (args, res)
            assert "s3cret" not in res.stderr


def _ps_as(user: str) -> str:
    """Every process's command line as `user` sees it (ps -eo args)."""
    return subprocess.run(["runuser", "-u", user, "--", "ps", "-eww", "-o", "args"], capture_output=True, text=True,
                          timeout=10).stdout


def _ps_with_environment_as(user: str, pid: int) -> str:
    """ps's view of pid's environment (`e`), as `user`."""
    return subprocess.run(["runuser", "-u", user, "--", "ps", "eww", "-o", "args", "-p", str(pid)],
                          capture_output=True, text=True, timeout=10).stdout


def test_another_user_does_not_see_the_proxy_password_in_ps(spawn, ws_server, tinyproxy, tmp_path):
    if os.geteuid() != 0 or shutil.which("runuser") is None or shutil.which("ps") is None:
        pytest.skip("needs root, runuser and ps to look as the user nobody")
    srv = ws_server(helpers.echo)
    password = "pw-" + os.urandom(6).hex()
    proxy = tinyproxy(auth=("alice", password))
    secret_file = tmp_path / "proxy-user"
    secret_file.write_text(f"alice:{password}\n")
    secret_file.chmod(0o600)
    by_file = spawn(["--proxy", proxy.url_text, "--proxy-user-file", str(secret_file), srv.url()],
                    stdin=b'{"via":"file"}\n', close_stdin=False)
    by_env = spawn([srv.url()], stdin=b'{"via":"env"}\n', close_stdin=False,
                   env={"http_proxy": f"http://alice:{password}@127.0.0.1:{proxy.port}"})
    # The flag: blanked in wspipe's argument vector once read, as curl does (issue 33 item 8).
    by_flag = spawn(["--proxy", proxy.url_text, "--proxy-user", f"alice:{password}", srv.url()],
                    stdin=b'{"via":"flag"}\n', close_stdin=False)
    try:
        assert by_file.wait_stdout_lines(1) == [b'{"via":"file"}']
        assert by_env.wait_stdout_lines(1) == [b'{"via":"env"}']
        assert by_flag.wait_stdout_lines(1) == [b'{"via":"flag"}']
        seen = _ps_as("nobody")
        if "--proxy-user-file" not in seen:
            pytest.skip(f"ps as nobody does not list other users' processes (hidepid?): {seen[:300]!r}")
        file_line = next(line for line in seen.splitlines() if "--proxy-user-file" in line)
        assert password not in file_line, file_line
        flag_line = next(line for line in seen.splitlines() if "--proxy-user " in line)
        assert password not in flag_line and "alice" not in flag_line, flag_line
        env_view = _ps_with_environment_as("nobody", by_env.proc.pid)
        assert password not in env_view, env_view
    finally:
        for proc in (by_file, by_env, by_flag):
            proc.close_stdin()
            proc.finish()
