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
