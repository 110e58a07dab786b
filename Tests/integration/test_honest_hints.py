"""Small honesty fixes (issue 20), each against a real peer: hints that
fit what was sent, a TLS port behind nginx, websocat's ways to listen, a
missing certificate file, one line per reconnect attempt."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import helpers


def test_a_401_to_a_request_with_a_credential_says_the_credential_was_refused(spawn, raw_peer):
    for headers, expected in [(["-H", "Authorization: Bearer expired"], "refused the credential that was sent"),
                              ([], "does it need a credential, e.g. -H 'Authorization: Bearer TOKEN'")]:
        peer = raw_peer()
        proc = spawn([*headers, peer.url()])
        conn = peer.accept()
        conn.read_request()
        conn.sock.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        conn.close()
        res = proc.finish()
        assert res.code == 4, res
        assert f"hint: the server " in res.stderr and expected in res.stderr, res
        if headers:
            assert "-H 'Authorization" not in res.stderr, res


NGINX_CONF = """daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{}}
http {{
    access_log off;
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        location / {{ return 200 "ok\\n"; }}
    }}
}}
"""


@pytest.fixture
def nginx_tls(tmp_path, tls_cert):
    """nginx (Debian's package) serving HTTPS on a port of its own; yields the port."""
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if shutil.os.path.exists("/usr/sbin/nginx") else None)
    if binary is None:
        pytest.skip("nginx is not installed (Tests/run installs it)")
    port = helpers.free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(NGINX_CONF.format(dir=tmp_path, port=port, cert=f"{tls_cert}/cert.pem", key=f"{tls_cert}/key.pem"))
    proc = subprocess.Popen([binary, "-p", str(tmp_path), "-c", str(conf)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        helpers.wait_port(port)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_ws_to_a_tls_port_behind_nginx_hints_wss_and_shows_the_body_as_lines(run, nginx_tls):
    res = run([f"ws://127.0.0.1:{nginx_tls}/"])
    assert res.code == 4, res
    assert "HTTP/1.1 400 Bad Request" in res.stderr, res
    assert "\n  <head><title>400 The plain HTTP request was sent to HTTPS port</title></head>\n" in res.stderr, res
    assert "\\x0d" not in res.stderr and "\\x0a" not in res.stderr, res
    assert "hint: this port expects TLS: use wss:// instead of ws://" in res.stderr, res


def test_websocats_ways_to_listen_get_did_you_mean_listen(run):
    res = run(["-s", "8080"])
    assert res.code == 2, res
    assert "wspipe: unknown option '-s' (did you mean '--listen'?)" in res.stderr, res
    res = run(["ws-l:127.0.0.1:8080"])
    assert res.code == 2, res
    assert "'ws-l:127.0.0.1:8080' is websocat's way to listen (did you mean '--listen 127.0.0.1:8080'?)" in res.stderr, res


@pytest.mark.parametrize("args", [["--cacert", "/nonexistent/ca.pem", "wss://127.0.0.1:9/"],
                                  ["--cacert", "/nonexistent/ca.pem", "ws://127.0.0.1:9/"],
                                  ["--listen", "127.0.0.1:0", "--cert", "/nonexistent/c.pem", "--key", "/nonexistent/k.pem"]])
def test_a_missing_certificate_file_is_a_usage_error(run, args):
    res = run(args)
    assert res.code == 2, res
    assert "/nonexistent/" in res.stderr and "No such file or directory" in res.stderr, res


def test_each_reconnect_attempt_is_one_line(run):
    closed = f"ws://127.0.0.1:{helpers.free_port()}/"
    res = run(["--wait", "--max-retries", "3", *helpers.FAST_BACKOFF, closed], timeout=20)
    assert res.code == 3, res
    lines = [l for l in res.stderr.split("\n") if l]
    attempts = [l for l in lines if l.startswith("wspipe: attempt ")]
    assert [l.split(" failed")[0] for l in attempts] == ["wspipe: attempt 1", "wspipe: attempt 2", "wspipe: attempt 3"], res
    assert all("retrying in " in l and "(attempt " in l for l in attempts), res
    assert lines[-1].startswith("wspipe: giving up after 4 attempt(s)"), res
