"""Round trips with the websockets library as the independent server."""

from __future__ import annotations

import base64
import json
import os

import helpers


def echo_run(spawn, srv, stdin: bytes, n: int, timeout: float = 10):
    """Send stdin with stdin held open, wait for n lines back, then EOF."""
    proc = spawn([srv.url()], stdin=stdin, close_stdin=False)
    proc.wait_stdout_lines(n, timeout)
    proc.close_stdin()
    return proc.finish(timeout)


def _b64line(data: bytes) -> bytes:
    return b'{"$binary":"' + base64.b64encode(data) + b'"}\n'


def test_json_text_round_trip(spawn, ws_server):
    srv = ws_server(helpers.echo)
    lines = [b'{"type":"hello","n":1}', b'["a",{"b":null}]', b'"x"', b"3.25e10"]
    res = echo_run(spawn, srv, b"\n".join(lines) + b"\n", len(lines))
    assert res.code == 0, res
    assert res.stdout == b"\n".join(lines) + b"\n"


def test_binary_round_trip_random_bytes(spawn, ws_server):
    srv = ws_server(helpers.echo)
    blobs = [os.urandom(n) for n in (1, 7, 300, 70000)]
    res = echo_run(spawn, srv, b"".join(_b64line(b) for b in blobs), len(blobs))
    assert res.code == 0, res
    assert [base64.b64decode(json.loads(l)["$binary"]) for l in res.lines] == blobs


def test_binary_arrives_as_binary_frames(run, ws_server):
    srv = ws_server(helpers.record)
    blob = os.urandom(4096)
    res = run([srv.url()], stdin=_b64line(blob))
    msgs, _ = helpers.received_messages(srv.log)
    assert res.code == 0, res
    assert msgs == [blob] and isinstance(msgs[0], bytes)


def test_4mib_binary_both_ways(spawn, ws_server):
    srv = ws_server(helpers.echo)
    blob = os.urandom(4 << 20)
    res = echo_run(spawn, srv, _b64line(blob), 1, timeout=30)
    assert res.code == 0, res
    assert res.stdout == _b64line(blob)


def test_4mib_text_both_ways(spawn, ws_server):
    srv = ws_server(helpers.echo)
    text = json.dumps({"big": "é" * (2 << 20)}, ensure_ascii=False).encode()
    assert len(text) > 4 << 20
    res = echo_run(spawn, srv, text + b"\n", 1, timeout=30)
    assert res.code == 0, res
    assert res.stdout == text + b"\n"


def test_non_json_text_round_trip(spawn, ws_server):
    srv = ws_server(helpers.echo)
    texts = ["plain words", 'quote " and \\ backslash', "tab\tnew\nline", "ünï 🎉", ""]
    stdin = b"".join(json.dumps({"$text": t}).encode() + b"\n" for t in texts)
    res = echo_run(spawn, srv, stdin, len(texts))
    assert res.code == 0, res
    assert [json.loads(l) for l in res.lines] == [{"$text": t} for t in texts]


def test_pretty_json_from_server_is_compacted(spawn, ws_server):
    obj = {"type": "state", "items": [{"id": i, "name": f"n {i}", "tags": ["a", "b"]} for i in range(5)],
           "nested": {"x": None, "y": True, "z": 1.5, "s": "spaces  inside\tand\nescapes"}}
    pretty = json.dumps(obj, indent=4)
    srv = ws_server(helpers.send_then_close([pretty]))
    res = spawn([srv.url()], stdin=b"", close_stdin=False).finish()
    assert res.code == 0, res
    (line,) = res.lines
    assert json.loads(line) == obj
    assert line == json.dumps(obj, separators=(",", ":"))


def test_hundred_messages_in_order_both_ways(spawn, ws_server):
    srv = ws_server(helpers.echo)
    lines = [json.dumps({"seq": i, "pad": "x" * (i * 37 % 500)}) for i in range(100)]
    res = echo_run(spawn, srv, "".join(l + "\n" for l in lines).encode(), len(lines))
    assert res.code == 0, res
    assert res.lines == lines


def test_hundred_messages_from_server_in_order(spawn, ws_server):
    msgs = [json.dumps({"seq": i}) for i in range(100)]
    srv = ws_server(helpers.send_then_close(msgs))
    res = spawn([srv.url()], stdin=b"", close_stdin=False).finish()
    assert res.code == 0, res
    assert res.lines == msgs
