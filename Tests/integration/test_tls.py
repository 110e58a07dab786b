"""wss:// against a websockets server with a self-signed certificate."""

from __future__ import annotations

import os
import re

import helpers


def _tls_echo(ws_server, certdir):
    return ws_server(helpers.echo, ssl_context=helpers.server_ssl_context(certdir))


def _round_trip(spawn, url, args):
    proc = spawn([*args, url], stdin=b'{"tls":true}\n', close_stdin=False)
    out = proc.wait_stdout_lines(1)
    proc.close_stdin()
    return out, proc.finish()


def test_cacert_round_trip(spawn, ws_server, tls_cert):
    srv = _tls_echo(ws_server, tls_cert)
    out, res = _round_trip(spawn, srv.url(host="localhost"), ["--cacert", os.path.join(tls_cert, "cert.pem")])
    assert out == [b'{"tls":true}']
    assert res.code == 0, res


def test_cacert_with_ip_address_san(spawn, ws_server, tls_cert):
    srv = _tls_echo(ws_server, tls_cert)
    out, res = _round_trip(spawn, srv.url(host="127.0.0.1"), ["--cacert", os.path.join(tls_cert, "cert.pem")])
    assert out == [b'{"tls":true}']
    assert res.code == 0, res


def test_untrusted_certificate_exit_3(run, ws_server, tls_cert):
    srv = _tls_echo(ws_server, tls_cert)
    res = run([srv.url(host="localhost")], stdin=b'{"a":1}\n')
    assert res.code == 3, res
    assert "certificate verify failed" in res.stderr, res
    assert res.stdout == b""


def test_insecure_accepts_self_signed(spawn, ws_server, tls_cert):
    srv = _tls_echo(ws_server, tls_cert)
    out, res = _round_trip(spawn, srv.url(host="localhost"), ["-k"])
    assert out == [b'{"tls":true}']
    assert res.code == 0, res


def test_hostname_mismatch_exit_3(run, ws_server, tls_cert_other):
    srv = _tls_echo(ws_server, tls_cert_other)
    res = run(["--cacert", os.path.join(tls_cert_other, "cert.pem"), srv.url(host="localhost")], stdin=b"")
    assert res.code == 3, res
    assert re.search(r"certificate verify failed|hostname mismatch", res.stderr, re.I), res


def test_sni_is_sent(spawn, ws_server, tls_cert):
    seen = []
    ctx = helpers.server_ssl_context(tls_cert)
    ctx.sni_callback = lambda sslobj, name, c: seen.append(name)
    srv = ws_server(helpers.echo, ssl_context=ctx)
    out, res = _round_trip(spawn, srv.url(host="localhost"), ["--cacert", os.path.join(tls_cert, "cert.pem")])
    assert res.code == 0, res
    assert seen == ["localhost"]


def test_large_messages_over_tls_are_exact(spawn, ws_server, tls_cert):
    """Frames larger than a read are read over TLS straight into the message
    being assembled, and the lines written from it: byte for byte."""
    srv = _tls_echo(ws_server, tls_cert)
    lines = [b'{"big":"' + b"a" * (3 << 20) + b'"}', b'{"small":1}',
             b'[' + b",".join([b'"\\u00e9x"'] * 100_000) + b']']
    proc = spawn(["--cacert", os.path.join(tls_cert, "cert.pem"), srv.url(host="localhost")],
                 stdin=b"\n".join(lines) + b"\n", close_stdin=False)
    out = proc.wait_stdout_lines(len(lines), timeout=60)
    proc.close_stdin()
    res = proc.finish()
    assert out == lines
    assert res.code == 0, res
