"""Request headers, as the websockets server sees them."""

from __future__ import annotations

import helpers


def _request(run, ws_server, args, **serve_kwargs):
    srv = ws_server(helpers.record, **serve_kwargs)
    res = run([*args, srv.url("/path?q=1")], stdin=b"")
    kind, path, headers, subprotocol = srv.log.get()
    assert kind == "request"
    srv.log.until("closed")
    return res, path, headers, subprotocol


def test_custom_headers_repeatable(run, ws_server):
    res, path, headers, _ = _request(run, ws_server, ["-H", "X-Token: abc", "--header", "X-Other: d e  f"])
    assert res.code == 0, res
    assert path == "/path?q=1"
    assert headers.get_all("X-Token") == ["abc"]
    assert headers.get_all("X-Other") == ["d e  f"]


def test_same_header_twice_sends_both(run, ws_server):
    res, _, headers, _ = _request(run, ws_server, ["-H", "X-Multi: one", "-H", "X-Multi: two"])
    assert res.code == 0, res
    assert headers.get_all("X-Multi") == ["one", "two"]


def test_header_file(run, ws_server, tmp_path):
    f = tmp_path / "headers"
    f.write_text("Authorization: Bearer s3cr3t\nX-From-File: yes\n")
    res, _, headers, _ = _request(run, ws_server, ["--header-file", str(f)])
    assert res.code == 0, res
    assert headers.get_all("Authorization") == ["Bearer s3cr3t"]
    assert headers.get_all("X-From-File") == ["yes"]


def test_origin(run, ws_server):
    res, _, headers, _ = _request(run, ws_server, ["--origin", "https://example.com"])
    assert res.code == 0, res
    assert headers.get_all("Origin") == ["https://example.com"]


def test_default_user_agent(run, ws_server):
    res, _, headers, _ = _request(run, ws_server, [])
    assert res.code == 0, res
    assert headers.get("User-Agent", "").startswith("wspipe/"), headers.get_all("User-Agent")


def test_custom_user_agent(run, ws_server):
    res, _, headers, _ = _request(run, ws_server, ["--user-agent", "probe/9.9 (test)"])
    assert res.code == 0, res
    assert headers.get_all("User-Agent") == ["probe/9.9 (test)"]


def test_subprotocol_offered_and_accepted(run, ws_server):
    res, _, headers, subprotocol = _request(run, ws_server, ["--protocol", "chat.v2"],
                                            subprotocols=["chat.v1", "chat.v2"])
    assert res.code == 0, res
    assert "chat.v2" in ",".join(headers.get_all("Sec-WebSocket-Protocol"))
    assert subprotocol == "chat.v2"


def test_host_header(run, ws_server):
    srv = ws_server(helpers.record)
    res = run([srv.url()], stdin=b"")
    _, _, headers, _ = srv.log.get()
    assert res.code == 0, res
    assert headers.get_all("Host") == [f"127.0.0.1:{srv.port}"]


# -- headers the user gives cannot bend the handshake ---------------------------------------


def test_a_host_header_replaces_ours(run, ws_server, spawn):
    res, _, headers, _ = _request(run, ws_server, ["-H", "Host: api.example.com", "-H", "User-Agent: probe/1"])
    assert res.code == 0, res
    assert headers.get_all("Host") == ["api.example.com"], "one Host, the user's (curl's rule)"
    assert headers.get_all("User-Agent") == ["probe/1"]
    # wspipe's own server answers 400 to two Host headers: one goes through.
    server = spawn(["--listen", "127.0.0.1:0/"], stdin=b"", close_stdin=False)
    port = int(server.wait_stderr(r"listening on \S+:(\d+)").group(1))
    res = run(["-H", "Host: api.example.com", f"ws://127.0.0.1:{port}/"], stdin=b'{"via":"host"}\n')
    assert res.code == 0, res
    assert server.wait_stdout_lines(1) == [b'{"via":"host"}']


def test_the_handshakes_own_headers_are_refused(run, tmp_path):
    for header in ("Connection: close", "Upgrade: h2c", "sec-websocket-key: AAAAAAAAAAAAAAAAAAAAAA==",
                   "Sec-WebSocket-Version: 8", "Content-Length: 5", "Transfer-Encoding: chunked",
                   "Sec-WebSocket-Extensions: x-evil"):
        res = run(["-H", header, "ws://127.0.0.1:9/"])
        assert res.code == 2, res
        name = header.split(":")[0].lower()
        assert "belongs to the WebSocket handshake" in res.stderr and name in res.stderr.lower(), res
    f = tmp_path / "headers"
    f.write_text("X-Ok: 1\nTransfer-Encoding: chunked\n")
    res = run(["--header-file", str(f), "ws://127.0.0.1:9/"])
    assert res.code == 2, res
    assert f"--header-file {f}:2: Transfer-Encoding belongs to the WebSocket handshake" in res.stderr, res


def test_a_header_command_that_prints_a_handshake_header_fails_the_attempt(run, ws_server):
    srv = ws_server(helpers.record)
    res = run(["--events", "--header-command", "printf 'X-Ok: 1\\nConnection: close\\n'", srv.url()])
    assert res.code == 3, res
    failed = helpers.events(res.stderr, "connect_failed")
    assert len(failed) == 1 and "line 2: Connection belongs to the WebSocket handshake" in failed[0]["error"], res
