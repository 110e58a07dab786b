"""Server mode hardening (wspipe(1): OPTIONS, Server mode): --max-clients
(503 past it), --max-programs (503 past it, saying why), --allow-origin (403
otherwise), and --cacert with --listen (mutual TLS: a client certificate from
another CA, or none, is refused). Every refusal is a client_refused event."""

from __future__ import annotations

import os
import ssl

import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import connect

import helpers
from helpers import events, wait_events
from test_exec import children, wait_until
from test_server_mode import client_id, listen, ws_client


def refused(server, n: int) -> list[dict]:
    return [e for e in wait_events(server, "client_refused", n) if e["$event"] == "client_refused"]


# -- --max-clients --------------------------------------------------------------------


def test_max_clients_answers_503_past_the_limit_and_admits_again_after_a_leave(spawn):
    server, port = listen(spawn, ["--events", "--max-clients", "2"])
    with ws_client(port) as b:
        with ws_client(port) as a:
            client_id(server, 2)
            with pytest.raises(InvalidStatus) as err:
                ws_client(port).close()
            assert err.value.response.status_code == 503
            assert [e["status"] for e in refused(server, 1)] == [503]
        wait_events(server, "client_disconnected", 1)
        with ws_client(port) as c:
            client_id(server, 3)
            c.send('{"third":1}')
            assert server.wait_stdout_lines(1) == [b'{"third":1}']
    assert len(events(server.err.data(), "client_connected")) == 3


@pytest.mark.needs("proc")
def test_max_clients_still_refuses_while_many_connections_are_in_their_handshake(spawn):
    """Idle sockets that never send a request fill the handshake slots; the
    server neither grows without bound nor stops serving its client."""
    import socket
    server, port = listen(spawn, ["--events", "--max-clients", "1"])
    with ws_client(port) as a:
        client_id(server, 1)
        idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(20)]
        try:
            a.send('{"still":"served"}')
            assert server.wait_stdout_lines(1) == [b'{"still":"served"}']
            open_fds = len(os.listdir(f"/proc/{server.proc.pid}/fd"))
        finally:
            for s in idle:
                s.close()
    # stdio, the signal pipe, the listener, one client and one handshake slot:
    # the other idle connections stayed in the kernel's queue.
    assert open_fds < 15, f"{open_fds} descriptors open with --max-clients 1 and 20 idle connections"


# -- --max-programs --------------------------------------------------------------------

WHY = "1 program running, the --max-programs limit"


def test_max_programs_says_why_to_the_client_and_once_to_the_operator(spawn, run):
    """A client refused because --max-programs run reads why in the body (curl,
    a browser's network tab, wspipe's own rejection line); the operator gets
    one stderr line without -v for a crowd of them, and the client_refused
    event says why too. Once there is room, the next refusal is said again."""
    server, port = listen(spawn, ["--events", "--exec", "cat", "--max-programs", "1"])

    def refused_body() -> bytes:
        with pytest.raises(InvalidStatus) as err:
            ws_client(port).close()
        assert err.value.response.status_code == 503
        return err.value.response.body

    def said(text: str) -> list[str]:
        return [l for l in text.split("\n") if l.startswith("wspipe: client")]

    with ws_client(port) as a:
        client_id(server, 1)
        assert refused_body() == f"503 Service Unavailable: {WHY}; try again later\n".encode()
        res = run([f"ws://127.0.0.1:{port}/"], stdin=b'{"n":1}\n')
        assert res.code == 4, res
        assert (f"wspipe: handshake rejected by the server: HTTP/1.1 503 Service Unavailable: {WHY}; "
                "try again later") in res.stderr, res
        assert [(e["status"], e["reason"]) for e in refused(server, 2)] == [(503, WHY)] * 2
        a.send('{"still":"served"}')
        assert a.recv(timeout=5) == '{"still":"served"}'
    first = said(server.err.data().decode())
    assert len(first) == 1 and first[0].endswith(
        f"refused: 503 Service Unavailable: {WHY} (so are the next clients until a program ends; -v names them)"), first
    # Its client gone, the program ends and is reaped: room again, then full again.
    wait_until(lambda: not children(server.proc.pid), what="the program reaped")
    with ws_client(port):
        client_id(server, 2)
        refused_body()
        refused(server, 3)
    assert len(said(server.err.data().decode())) == 2, server.err.data()


# -- --allow-origin -------------------------------------------------------------------


def test_allow_origin(spawn):
    server, port = listen(spawn, ["--events", "--allow-origin", "https://app.example",
                                  "--allow-origin", "http://localhost:8080/"])
    with pytest.raises(InvalidStatus) as err:
        ws_client(port, origin="https://evil.example").close()
    assert err.value.response.status_code == 403
    assert refused(server, 1)[0]["status"] == 403
    with ws_client(port, origin="https://APP.example") as a:
        a.send('{"from":"app"}')
        assert server.wait_stdout_lines(1) == [b'{"from":"app"}']
    with ws_client(port, origin="http://localhost:8080") as b:
        b.send('{"from":"localhost"}')
        assert server.wait_stdout_lines(2)[1] == b'{"from":"localhost"}'
    # No Origin header: not a browser page, admitted.
    with ws_client(port) as c:
        c.send('{"from":"script"}')
        assert server.wait_stdout_lines(3)[2] == b'{"from":"script"}'
    # wspipe's own --origin passes the check too.
    res = spawn(["--origin", "https://app.example", "-u", f"ws://127.0.0.1:{port}/"], stdin=b'{"from":"wspipe"}\n')
    assert res.finish().code == 0
    assert server.wait_stdout_lines(4)[3] == b'{"from":"wspipe"}'
    assert len(refused(server, 1)) == 1


# -- mutual TLS -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client_pki(tmp_path_factory):
    """A CA that server trusts with one client certificate, and a stranger CA with another."""
    root = str(tmp_path_factory.mktemp("mtls"))
    trusted = helpers.make_ca(os.path.join(root, "ca"), "wspipe test client CA")
    stranger = helpers.make_ca(os.path.join(root, "other-ca"), "some other CA")
    good = helpers.make_client_cert(trusted, os.path.join(root, "good"), "good client")
    bad = helpers.make_client_cert(stranger, os.path.join(root, "bad"), "bad client")
    return {"ca": os.path.join(trusted, "ca.pem"), "good": good, "bad": bad}


def tls_client(port: int, server_cert: str, client_cert=None):
    ctx = ssl.create_default_context(cafile=server_cert)
    if client_cert:
        ctx.load_cert_chain(*client_cert)
    return connect(f"wss://localhost:{port}/", ssl=ctx, open_timeout=5, close_timeout=2, compression=None)


def test_mutual_tls_admits_only_clients_with_a_trusted_certificate(spawn, tls_cert, client_pki):
    cert, key = os.path.join(tls_cert, "cert.pem"), os.path.join(tls_cert, "key.pem")
    server, port = listen(spawn, ["--events", "--cert", cert, "--key", key, "--cacert", client_pki["ca"]])

    with tls_client(port, cert, client_pki["good"]) as a:
        client_id(server, 1)
        a.send('{"cert":"good"}')
        assert server.wait_stdout_lines(1) == [b'{"cert":"good"}']

    with pytest.raises((OSError, InvalidHandshake, ConnectionClosed)):
        with tls_client(port, cert, client_pki["bad"]) as b:
            b.send('{"cert":"bad"}')
            b.recv(timeout=5)
    first = refused(server, 1)[0]
    assert "status" not in first and "certificate" in first["reason"], first

    with pytest.raises((OSError, InvalidHandshake, ConnectionClosed)):
        with tls_client(port, cert) as c:
            c.send('{"cert":"none"}')
            c.recv(timeout=5)
    second = refused(server, 2)[1]
    assert "certificate" in second["reason"], second

    # A wspipe client with the trusted certificate.
    good_cert, good_key = client_pki["good"]
    res = spawn(["--cacert", cert, "--cert", good_cert, "--key", good_key, "-u", f"wss://localhost:{port}/"],
                stdin=b'{"cert":"wspipe"}\n').finish()
    assert res.code == 0, res
    assert server.wait_stdout_lines(2)[1] == b'{"cert":"wspipe"}'
    # ... and one with the stranger's: the handshake fails, nothing arrives.
    bad_cert, bad_key = client_pki["bad"]
    res = spawn(["--cacert", cert, "--cert", bad_cert, "--key", bad_key, "-u", f"wss://localhost:{port}/"],
                stdin=b'{"cert":"stranger"}\n').finish()
    assert res.code != 0, res
    refused(server, 3)
    assert server.out.data().count(b"\n") == 2, server.out.data()
    assert len(events(server.err.data(), "client_connected")) == 2
