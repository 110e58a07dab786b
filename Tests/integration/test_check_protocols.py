"""--record then --check of a Socket.IO server and of a MessagePack server
(issue 32 item 2: `--record`/`--check` work on Socket.IO lines unchanged,
and a --codec session's recording holds JSON lines; wspipe(1): CHECKING A
SERVER, SOCKET.IO, BINARY CODECS).

Real peers: the python-socketio 5 server of test_socketio.py
(peers/sio_server.py), and a websockets server that speaks MessagePack with
the msgpack library. Each session is recorded by wspipe's own --record,
checked against the same server (passes), then against a changed
expectation or server (fails with exit 8, the recording's line and the
path of the difference).
"""

from __future__ import annotations

import json

import pytest

from helpers import events, received_messages
from test_socketio import AUTH, BOTH, SioServer, sio_server  # noqa: F401 (a fixture)

msgpack = pytest.importorskip("msgpack", reason="msgpack (PyPI) is not installed: Tests/run installs it")

FAST = ["--wait", "--backoff", "50ms", "--check-timeout", "5s"]


def record_steps(spawn, args: list[str], path, steps: list[tuple[str, int]], greeting: int = 0) -> list[dict]:
    """Records a session the way a person types it: each line once the
    replies to the one before have come (`steps`: the line, how many lines
    it brings). Returns the recording's lines."""
    proc = spawn([*args, "--record", str(path)], stdin=b"", close_stdin=False)
    seen = greeting
    if seen:
        proc.wait_stdout_lines(seen)
    for line, replies in steps:
        proc.write((line + "\n").encode())
        seen += replies
        proc.wait_stdout_lines(seen)
    proc.close_stdin()
    result = proc.finish()
    assert result.code == 0, str(result)
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_recording(path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    return str(path)


# -- Socket.IO -------------------------------------------------------------------------------


def record_sio(spawn, server, path) -> list[dict]:
    return record_steps(spawn, ["--socketio", *BOTH, *AUTH, server.url], path, [
        ('{"event":"join","data":{"room":"r1"},"ns":"/chat","ack":true}', 2),   # joined, then the ack
        ('{"event":"echo","data":{"text":"hi"}}', 1),
        ('{"event":"multi"}', 1),
    ])


def test_a_socketio_session_recorded_then_checked(spawn, run, sio_server, tmp_path):
    server = sio_server()
    path = tmp_path / "sio.ndjson"
    lines = record_sio(spawn, server, path)
    sent = [l["msg"] for l in lines if l["dir"] == "out"]
    got = [l["msg"] for l in lines if l["dir"] == "in"]
    assert sent[0] == {"event": "join", "data": {"room": "r1"}, "ns": "/chat", "ack": True}, lines
    assert {"ack_of": 1, "data": {"joined": "r1"}, "ns": "/chat"} in got, lines
    # The room's sid differs on every connection: --ignore leaves it out.
    check = ["--check", str(path), "--socketio", *BOTH, *AUTH, "--ignore", "data.sid", *FAST]
    result = run(check)
    assert result.code == 0, str(result)
    assert result.stderr.splitlines()[-1] == "1 passed, 0 failed", result.stderr
    # The check connected both namespaces with the auth and sent the events as packets.
    seen = server.wait_seen(lambda s: s[0] == "echo" and len([x for x in server.seen() if x[0] == "echo"]) >= 2)
    assert seen.count(["connect", "/chat", {"token": "secret"}]) == 2, seen
    assert seen.count(["echo", "/", [{"text": "hi"}]]) == 2, seen
    # Without --ignore, the sid is a difference, named by its path.
    result = run(["--check", str(path), "--socketio", *BOTH, *AUTH, *FAST])
    assert result.code == 8, str(result)
    joined = next(n for n, l in enumerate(lines, 1) if l["dir"] == "in" and l["msg"].get("event") == "joined")
    assert f"FAIL {path}:{joined}: message 1 of 4 differs at data.sid" in result.stderr, result.stderr


def test_a_changed_socketio_answer_fails_with_its_line_and_path(spawn, run, sio_server, tmp_path):
    server = sio_server()
    path = tmp_path / "sio.ndjson"
    lines = record_sio(spawn, server, path)
    # The server "now" answers the ack and the event differently.
    for line in lines:
        if line["dir"] == "in" and line["msg"].get("ack_of") == 1:
            line["msg"]["data"]["joined"] = "r2"
    write_recording(path, lines)
    check = ["--check", str(path), "--socketio", *BOTH, *AUTH, "--ignore", "data.sid", *FAST]
    result = run(check)
    assert result.code == 8, str(result)
    ack = next(n for n, l in enumerate(lines, 1) if l["dir"] == "in" and "ack_of" in l["msg"])
    assert f"FAIL {path}:{ack}: message 2 of 4 differs at data.joined" in result.stderr, result.stderr
    assert '  expected: "r2"' in result.stderr and '  actual:   "r1"' in result.stderr, result.stderr
    # An event the server sends with other arguments: the path goes into "args".
    lines = record_sio(spawn, server, tmp_path / "again.ndjson")
    for line in lines:
        if line["dir"] == "in" and line["msg"].get("event") == "multi":
            line["msg"]["args"][2] = [4]
    write_recording(path, lines)
    result = run(check)
    assert result.code == 8, str(result)
    assert "differs at args.2.0" in result.stderr, result.stderr


def test_allow_extra_names_socketio_events_by_their_name(spawn, run, sio_server, tmp_path):
    """With --socketio the type --allow-extra reads is the event's name (as
    --route's): the room's `joined` event, whose sid differs on every
    connection, is skipped, in the recording and from the server."""
    server = sio_server()
    path = tmp_path / "sio.ndjson"
    record_sio(spawn, server, path)
    result = run(["--check", str(path), "--socketio", *BOTH, *AUTH, "--allow-extra", "joined", *FAST])
    assert result.code == 0, str(result)
    assert result.stderr.splitlines()[-1] == "1 passed, 0 failed", result.stderr
    # An event name it is not: the sid is compared, and differs.
    result = run(["--check", str(path), "--socketio", *BOTH, *AUTH, "--allow-extra", "type", *FAST])
    assert result.code == 8, str(result)
    assert "differs at data.sid" in result.stderr, result.stderr


def test_a_refused_socketio_namespace_is_a_rejection_not_a_check_failure(spawn, run, sio_server, tmp_path):
    server = sio_server()
    path = tmp_path / "sio.ndjson"
    record_sio(spawn, server, path)
    result = run(["--check", str(path), "--socketio", *BOTH, "--sio-auth", '{"token":"wrong"}', *FAST])
    assert result.code == 4, str(result)
    assert "could not connect: Socket.IO namespace / refused by the server: bad token" in result.stderr, result.stderr


def test_socketio_recordings_hold_only_what_socketio_can_send(run, tmp_path, free_port):
    url = f"ws://127.0.0.1:{free_port()}/"
    path = write_recording(tmp_path / "bad.ndjson", [
        {"t_ms": 0, "dir": "out", "conn": 1, "msg": {"event": "ok"}},
        {"t_ms": 1, "dir": "out", "conn": 1, "msg": {"type": "not an event"}},
    ])
    result = run(["--check", path, "--socketio", url])
    assert result.code == 2, str(result)
    assert f"--check {path}:2: not a Socket.IO event line (--socketio)" in result.stderr, result.stderr
    har = tmp_path / "page.har"
    har.write_text(json.dumps({"log": {"entries": [{"request": {"url": url, "headers": []}, "_webSocketMessages": [
        {"type": "receive", "time": 1, "opcode": 1, "data": '0{"sid":"x"}'}]}]}}))
    result = run(["--check", str(har), "--socketio"])
    assert result.code == 2, str(result)
    assert "a HAR file holds the Engine.IO packets of the page, not event lines" in result.stderr, result.stderr


# -- MessagePack ------------------------------------------------------------------------------


def msgpack_server(variant: int = 0):
    """Greets with a MessagePack value, answers each MessagePack message
    with one holding it and a count (plus `variant`), and echoes text as
    text."""
    async def handler(ws, log) -> None:
        log.put("connected")
        await ws.send(msgpack.packb({"type": "welcome", "raw": b"\x00\x01", "pi": 3.25}, use_bin_type=True))
        n = 0
        async for message in ws:
            log.put("msg", message)
            if isinstance(message, str):
                await ws.send(message)
                continue
            n += 1
            value = msgpack.unpackb(message, raw=False)
            await ws.send(msgpack.packb({"type": "echo", "n": n + variant, "got": value}, use_bin_type=True))
        log.put("closed", ws.close_code, None)
    return handler


def test_a_msgpack_session_recorded_then_checked(spawn, run, ws_server, tmp_path):
    server = ws_server(msgpack_server())
    path = tmp_path / "feed.ndjson"
    lines = record_steps(spawn, ["--codec", "msgpack", server.url()], path, [
        ('{"type":"hi","tags":[1,2.5]}', 1),
        (r'{"$text":"{\"plain\":1}"}', 1),    # a text message that is JSON: sent as text, not encoded
    ], greeting=1)
    messages = [(l["dir"], l["msg"]) for l in lines if l["dir"] != "event"]
    assert messages == [
        ("in", {"type": "welcome", "raw": {"$bytes": "AAE="}, "pi": 3.25}),
        ("out", {"type": "hi", "tags": [1, 2.5]}),
        ("in", {"type": "echo", "n": 1, "got": {"type": "hi", "tags": [1, 2.5]}}),
        # Text stays text in the recording: a JSON line there is a MessagePack message.
        ("out", {"$text": '{"plain":1}'}),
        ("in", {"$text": '{"plain":1}'}),
    ], lines
    received_messages(server.log)   # the recording run's
    result = run(["--codec", "msgpack", "--check", str(path), *FAST])
    assert result.code == 0, str(result)
    msgs, _ = received_messages(server.log)
    assert msgs == [msgpack.packb({"type": "hi", "tags": [1, 2.5]}), '{"plain":1}'], msgs

    changed = ws_server(msgpack_server(variant=1))
    result = run(["--codec", "msgpack", "--check", str(path), *FAST, changed.url()])
    assert result.code == 8, str(result)
    assert f"FAIL {path}:{[n for n, l in enumerate(lines, 1) if l['dir'] == 'in'][1]}: message 2 of 3 differs at n" \
        in result.stderr, result.stderr
    assert "  expected: 1\n  actual:   2" in result.stderr, result.stderr


def test_a_msgpack_recording_checked_without_codec_says_so(spawn, run, ws_server, tmp_path):
    """The same recording without --codec sends JSON text, which this server
    does not answer: a check failure, not a pass."""
    server = ws_server(msgpack_server())
    path = tmp_path / "feed.ndjson"
    record_steps(spawn, ["--codec", "msgpack", server.url()], path, [('{"type":"hi"}', 1)], greeting=1)
    result = run(["--check", str(path), *FAST, "--check-timeout", "1s"])
    assert result.code == 8, str(result)


def test_a_recorded_msgpack_byte_string_is_replayed_as_msgpack(spawn, ws_server, tmp_path):
    """A MessagePack value whose JSON starts like an envelope ({"$bytes":…},
    {"$int":…}) is recorded as the value, so --replay --codec sends it
    encoded, not as a text message."""
    values = [b"\x01\x02\x03", 2**64 - 1, {"$text": "a map, not an envelope"}]
    server = ws_server(lambda ws, log: _send_all(ws, [msgpack.packb(v, use_bin_type=True) for v in values]))
    path = tmp_path / "rec.ndjson"
    result = spawn(["--codec", "msgpack", "--record", str(path), "--max-messages", "3", server.url()]).finish()
    assert result.code == 0, str(result)
    recorded = [json.loads(l)["msg"] for l in path.read_text().splitlines() if json.loads(l)["dir"] == "in"]
    assert recorded[:2] == [{"$bytes": "AQID"}, {"$int": "18446744073709551615"}], recorded
    # A server replays what its client was sent.
    import helpers
    port = helpers.free_port()
    replaying = spawn(["--listen", f"127.0.0.1:{port}", "--once", "--codec", "msgpack", "--replay", str(path)],
                      stdin=b"", close_stdin=False)
    helpers.wait_port(port)
    from websockets.sync.client import connect
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=5, compression=None) as ws:
        got = [ws.recv(5) for _ in values]
    assert all(isinstance(m, bytes) for m in got), got
    assert [msgpack.unpackb(m, raw=False) for m in got] == values, got
    replaying.kill()


async def _send_all(ws, messages) -> None:
    for m in messages:
        await ws.send(m)
    await ws.close()


def test_a_har_file_of_msgpack_frames_checked_as_values(run, ws_server, tmp_path):
    """A page that speaks MessagePack saves binary frames (opcode 2, base64)
    in its HAR file: with --codec they are compared as the values they
    hold, so a difference is named by its path, not as a binary mismatch."""
    import base64

    def frame(kind: str, value) -> dict:
        return {"type": kind, "time": 1, "opcode": 2,
                "data": base64.b64encode(msgpack.packb(value, use_bin_type=True)).decode()}

    server = ws_server(msgpack_server())
    har = {"log": {"entries": [{"request": {"url": server.url(), "headers": []}, "_webSocketMessages": [
        frame("receive", {"type": "welcome", "raw": b"\x00\x01", "pi": 3.25}),
        frame("send", {"type": "hi"}),
        frame("receive", {"type": "echo", "n": 1, "got": {"type": "hi"}}),
    ]}]}}
    path = tmp_path / "page.har"
    path.write_text(json.dumps(har))
    result = run(["--codec", "msgpack", "--check", str(path), *FAST])
    assert result.code == 0, str(result)
    msgs, _ = received_messages(server.log)
    assert msgs == [msgpack.packb({"type": "hi"})], msgs
    changed = ws_server(msgpack_server(variant=1))
    result = run(["--codec", "msgpack", "--check", str(path), *FAST, changed.url()])
    assert result.code == 8, str(result)
    assert "message 2 of 2 differs at n" in result.stderr, result.stderr
    assert "  expected: 1\n  actual:   2" in result.stderr, result.stderr


# -- wspipe curl ------------------------------------------------------------------------------


def test_a_browser_copy_of_the_request_runs_a_check(run, spawn, tmp_path, free_port):
    """`wspipe curl COPY -- --check FILE`: the request DevTools copied (its
    origin and cookie; the handshake's own headers dropped) is the one each
    recorded connection is opened with."""
    import helpers
    port = free_port()
    spawn(["--listen", f"127.0.0.1:{port}", "--exec",
           'echo "{\\"origin\\":\\"$HTTP_ORIGIN\\",\\"cookie\\":\\"$HTTP_COOKIE\\"}"'], stdin=b"", close_stdin=False)
    helpers.wait_port(port)
    path = write_recording(tmp_path / "page.ndjson", [
        {"t_ms": 0, "dir": "in", "conn": 1, "msg": {"origin": "https://app.example", "cookie": "sid=1"}}])
    copy = ["curl", f"ws://127.0.0.1:{port}/", "-H", "Origin: https://app.example", "-b", "sid=1",
            "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "--compressed"]
    result = run([*copy, "--", "--check", path, *FAST])
    assert result.code == 0, str(result)
    assert result.stderr.splitlines()[-1] == "1 passed, 0 failed", result.stderr
    copy[5] = "sid=2"
    result = run([*copy, "--", "--check", path, *FAST])
    assert result.code == 8, str(result)
    assert '  expected: "sid=1"\n  actual:   "sid=2"' in result.stderr, result.stderr
