"""--check: a recorded session played against a live server and compared
(issue 31; wspipe(1): CHECKING A SERVER).

The server is a Python websockets chat server (peers/chat_server.py, join,
message, broadcast, leave) recorded by wspipe's own --record, then switched
into broken variants: each failure must name the recording's line, the path
of the difference, and exit 8 (3/4/7 when the connection itself failed).
"""

from __future__ import annotations

import json
import os
import re

import pytest

from helpers import WSServer, events, stats
from peers.chat_server import ChatServer

FAST = ["--wait", "--backoff", "50ms", "--check-timeout", "2s"]


@pytest.fixture
def chat(loop_thread):
    server = ChatServer()
    ws = WSServer(loop_thread, server.handler)
    server.url = ws.url()
    server.ws = ws
    yield server
    ws.close()


def record_session(spawn, url: str, path, steps: list[tuple], greeting: int = 1) -> list[dict]:
    """Records a session as a person would type it: each message once the
    replies to the one before have come. `steps`: (message, how many
    messages it brings), the message a dict or a function of the messages
    received so far. Returns the recording's lines."""
    proc = spawn(["--record", str(path), url], stdin=b"", close_stdin=False)
    seen = greeting
    received = proc.wait_stdout_lines(seen)
    for message, replies in steps:
        if callable(message):
            message = message([json.loads(line) for line in received])
        proc.write((json.dumps(message, separators=(",", ":")) + "\n").encode())
        seen += replies
        received = proc.wait_stdout_lines(seen)
    proc.close_stdin()
    result = proc.finish()
    assert result.code == 0, str(result)
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_recording(path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    return str(path)


def line_of(lines: list[dict], predicate) -> int:
    """The 1-based line of the first recording line that satisfies predicate."""
    return next(i + 1 for i, line in enumerate(lines) if predicate(line))


def with_matchers(lines: list[dict]) -> list[dict]:
    """The edit a user makes: the session id captured (and sent back as
    ${sid}), the join time any number."""
    for line in lines:
        msg = line.get("msg")
        if line["dir"] == "in" and msg.get("type") == "welcome":
            msg["session"] = "${capture:sid}"
        if line["dir"] == "in" and msg.get("type") == "joined":
            msg["ts"] = "${number}"
        if line["dir"] == "out" and msg.get("type") == "resume":
            msg["session"] = "${sid}"
        if line["dir"] == "in" and msg.get("type") == "resumed":
            msg["session"] = "${sid}"
    return lines


CHAT = [
    ({"type": "join", "room": "general", "name": "ann"}, 1),
    ({"type": "message", "id": 1, "text": "hello"}, 2),
    ({"type": "leave"}, 1),
]


@pytest.fixture
def recorded_chat(chat, spawn, tmp_path):
    """A chat session recorded from the good server, with the user's matchers."""
    lines = with_matchers(record_session(spawn, chat.url, tmp_path / "raw.ndjson", CHAT))
    return write_recording(tmp_path / "chat.ndjson", lines), lines


def summary(stderr: str) -> str:
    return [l for l in stderr.splitlines() if re.fullmatch(r"\d+ passed, \d+ failed", l)][-1]


def test_a_recorded_session_checks_against_the_same_server(chat, recorded_chat, run):
    path, lines = recorded_chat
    # The recording holds its URL: none is needed on the command line.
    result = run(["--check", path, *FAST])
    assert result.code == 0, str(result)
    assert f"PASS {path} (" in result.stderr
    assert summary(result.stderr) == "1 passed, 0 failed"
    assert result.stderr.rstrip().endswith("1 passed, 0 failed")
    assert result.stdout == b""


def test_without_the_matchers_the_volatile_values_fail(chat, spawn, tmp_path, run):
    lines = record_session(spawn, chat.url, tmp_path / "raw.ndjson", CHAT)
    path = write_recording(tmp_path / "plain.ndjson", lines)
    result = run(["--check", path, chat.url, *FAST])
    assert result.code == 8, str(result)
    welcome = line_of(lines, lambda l: l["dir"] == "in" and l["msg"]["type"] == "welcome")
    assert f"FAIL {path}:{welcome}: message 1 of 5 differs at session" in result.stderr
    # --ignore leaves them out instead of matchers.
    result = run(["--check", path, chat.url, "--ignore", "session", "--ignore", "ts", *FAST])
    assert result.code == 0, str(result)


@pytest.mark.parametrize("variant, message, path, detail", [
    ("renamed", 2, "room.topic", ["the message has no such key", 'expected: "general chat"', "actual:   (no such key)"]),
    ("wrong_number", 2, "room.users", ["expected: 1", "actual:   2"]),
])
def test_a_different_answer_names_its_line_and_path(chat, recorded_chat, run, variant, message, path, detail):
    recording, lines = recorded_chat
    chat.variant = variant
    result = run(["--check", recording, chat.url, *FAST])
    assert result.code == 8, str(result)
    joined = line_of(lines, lambda l: l["dir"] == "in" and l["msg"]["type"] == "joined")
    assert f"FAIL {recording}:{joined}: message {message} of 5 differs at {path}" in result.stderr, result.stderr
    for text in detail:
        assert text in result.stderr, result.stderr
    # The two messages, as in a pytest assertion: - expected, + actual.
    assert re.search(r'^  - \{"type":"joined",', result.stderr, re.M), result.stderr
    assert re.search(r'^  \+ \{"type":"joined",', result.stderr, re.M), result.stderr
    assert summary(result.stderr) == "0 passed, 1 failed"


def test_a_missing_reply(chat, recorded_chat, run):
    recording, lines = recorded_chat
    chat.variant = "missing_reply"
    result = run(["--check", recording, chat.url, *FAST, "--check-timeout", "1s"])
    assert result.code == 8, str(result)
    ack = line_of(lines, lambda l: l["dir"] == "in" and l["msg"]["type"] == "ack")
    broadcast = line_of(lines, lambda l: l["dir"] == "in" and l["msg"]["type"] == "broadcast")
    assert f"FAIL {recording}:{ack}: message 3 of 5 did not come within 1s (--check-timeout)" in result.stderr
    assert '  - {"type":"ack","id":1}' in result.stderr
    assert f"the message expected later, at {recording}:{broadcast}, came in its place" in result.stderr


def test_an_extra_message(chat, recorded_chat, run):
    recording, lines = recorded_chat
    chat.variant = "extra_message"
    result = run(["--check", recording, chat.url, *FAST])
    assert result.code == 8, str(result)
    left = line_of(lines, lambda l: l["dir"] == "in" and l["msg"]["type"] == "left")
    assert f"FAIL {recording}:{left}: message 5 of 5 differs at type" in result.stderr, result.stderr
    assert 'expected: "left"' in result.stderr and 'actual:   "debug"' in result.stderr
    assert "--allow-extra debug would skip messages of this type" in result.stderr
    assert run(["--check", recording, chat.url, "--allow-extra", "debug", *FAST]).code == 0


def test_an_extra_message_after_the_last_one(chat, spawn, tmp_path, run):
    lines = record_session(spawn, chat.url, tmp_path / "raw.ndjson", CHAT[:2])
    recording = write_recording(tmp_path / "chat.ndjson", with_matchers(lines))
    chat.variant = "extra_message"
    result = run(["--check", recording, chat.url, *FAST])
    assert result.code == 8, str(result)
    assert "a message the recording does not have, after the last one expected" in result.stderr
    assert '  + {"type":"debug","note":"sent by mistake"}' in result.stderr


def test_replies_out_of_order(chat, spawn, tmp_path, run):
    # Two subscriptions sent together, confirmed in order when recorded.
    proc = spawn(["--record", str(tmp_path / "raw.ndjson"), chat.url], stdin=b"", close_stdin=False)
    proc.wait_stdout_lines(1)
    proc.write(b'{"type":"subscribe","channel":"a"}\n{"type":"subscribe","channel":"b"}\n')
    proc.wait_stdout_lines(3)
    proc.close_stdin()
    assert proc.finish().code == 0
    lines = with_matchers([json.loads(l) for l in (tmp_path / "raw.ndjson").read_text().splitlines()])
    recording = write_recording(tmp_path / "subs.ndjson", lines)
    assert run(["--check", recording, chat.url, *FAST]).code == 0
    chat.variant = "out_of_order"
    result = run(["--check", recording, chat.url, *FAST])
    assert result.code == 8, str(result)
    first = line_of(lines, lambda l: l["dir"] == "in" and l["msg"].get("channel") == "a")
    second = line_of(lines, lambda l: l["dir"] == "in" and l["msg"].get("channel") == "b")
    assert f"FAIL {recording}:{first}: message 2 of 3 differs at channel" in result.stderr, result.stderr
    assert 'expected: "a"' in result.stderr and 'actual:   "b"' in result.stderr
    assert f"it is the message expected at {recording}:{second}, and the one expected here came after it" in result.stderr
    assert run(["--check", recording, chat.url, "--check-order", "any", *FAST]).code == 0


def test_a_session_id_captured_and_sent_back(chat, spawn, tmp_path, run):
    # Recorded, the resume carries the session the server handed that connection; the edit makes it ${sid}.
    steps = CHAT[:1] + [(lambda received: {"type": "resume", "session": received[0]["session"]}, 1)]
    lines = record_session(spawn, chat.url, tmp_path / "raw.ndjson", steps)
    recording = write_recording(tmp_path / "resume.ndjson", with_matchers(lines))
    result = run(["--check", recording, chat.url, *FAST])
    assert result.code == 0, str(result)
    sent = [item[1] for item in list(chat.ws.log.q.queue) if item[0] == "msg"]
    resumes = [m for m in sent if m["type"] == "resume"]
    assert resumes and re.fullmatch(r"[0-9a-f]{12}", resumes[-1]["session"]), resumes
    # A session the server did not hand out on this connection is refused (Close 4001): exit 7.
    lines = [l for l in lines]
    for line in lines:
        if line["dir"] == "out" and line["msg"].get("type") == "resume":
            line["msg"]["session"] = "000000000000"
    result = run(["--check", write_recording(tmp_path / "stale.ndjson", lines), chat.url, *FAST])
    assert result.code == 7, str(result)
    assert 'the server closed the connection (4001 "unknown session") while message 3 of 3 was expected' in result.stderr


def test_connection_failures_are_not_check_failures(chat, recorded_chat, run, free_port):
    recording, _ = recorded_chat
    result = run(["--check", recording, f"ws://127.0.0.1:{free_port()}/"])
    assert result.code == 3, str(result)
    assert f"FAIL {recording}: could not connect" in result.stderr
    chat.variant = "error_close"
    result = run(["--check", recording, chat.url, *FAST])
    assert result.code == 7, str(result)
    assert 'the server closed the connection (4003 "forbidden")' in result.stderr


def test_patterns_several_files_and_the_summary(chat, recorded_chat, run, tmp_path):
    recording, lines = recorded_chat
    folder = tmp_path / "suite"
    folder.mkdir()
    write_recording(folder / "a.ndjson", lines)
    broken = [dict(l) for l in lines]
    for line in broken:
        if line["dir"] == "in" and line["msg"].get("type") == "left":
            line["msg"] = {"type": "left", "room": "elsewhere"}
    write_recording(folder / "b.ndjson", broken)
    result = run(["--check", str(folder / "*.ndjson"), chat.url, *FAST, "--events", "--stats"])
    assert result.code == 8, str(result)
    assert summary(result.stderr) == "1 passed, 1 failed"
    checks = events(result.stderr, "check")
    assert [(c["file"], c["result"]) for c in checks] == [(str(folder / "a.ndjson"), "passed"),
                                                           (str(folder / "b.ndjson"), "failed")]
    assert checks[1]["path"] == "room"
    # Replies: joined, ack, broadcast and left of a; b fails at its left.
    assert stats(result.stderr)["reply_ms"]["count"] == 7
    assert run(["--check", str(folder / "*.json"), chat.url]).code == 2


def test_junit_report_read_by_junitparser(chat, recorded_chat, run, tmp_path):
    junitparser = pytest.importorskip("junitparser")
    recording, lines = recorded_chat
    folder = tmp_path / "tests" / "chat"
    folder.mkdir(parents=True)
    write_recording(folder / "good.ndjson", lines)
    broken = [dict(l) for l in lines]
    for line in broken:
        if line["dir"] == "in" and line["msg"].get("type") == "ack":
            line["msg"] = {"type": "ack", "id": 2}
    write_recording(folder / "bad.ndjson", broken)
    report = tmp_path / "report.xml"
    result = run(["--check", "tests/chat/*.ndjson", chat.url, "--junit", str(report), *FAST], cwd=tmp_path)
    assert result.code == 8, str(result)
    xml = junitparser.JUnitXml.fromfile(str(report))
    suites = list(xml)
    assert len(suites) == 1
    suite = suites[0]
    assert (suite.tests, suite.failures, suite.errors) == (2, 1, 0)
    cases = {case.name: case for case in suite}
    assert set(cases) == {"good.ndjson", "bad.ndjson"}
    assert all(case.classname == "tests.chat" for case in suite)
    assert cases["good.ndjson"].is_passed
    assert not cases["bad.ndjson"].is_passed
    failure = cases["bad.ndjson"].result[0]
    assert isinstance(failure, junitparser.Failure)
    assert "differs at id" in failure.message
    assert 'expected: 2' in failure.text and 'actual:   1' in failure.text
    assert 0 < cases["bad.ndjson"].time < 10


def test_a_har_file_checked_against_the_live_server(chat, run, tmp_path):
    frames = [
        ("receive", {"type": "welcome", "session": "${capture:sid}", "motd": "hi"}),
        ("send", {"type": "join", "room": "har", "name": "bo"}),
        ("receive", {"type": "joined", "room": {"name": "har", "topic": "general chat", "users": 1}, "you": "bo",
                     "ts": "${number}"}),
        ("send", {"type": "resume", "session": "${sid}"}),
        ("receive", {"type": "resumed", "session": "${sid}"}),
    ]
    har = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": [
        {"request": {"method": "GET", "url": "https://example.com/", "headers": []}, "response": {"status": 200}},
        {"_resourceType": "websocket",
         "request": {"method": "GET", "url": chat.url, "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Host", "value": "example.com"},
                                 {"name": "Origin", "value": "https://example.com"},
                                 {"name": "Cookie", "value": "sid=from-the-browser"},
                                 {"name": "X-Client", "value": "devtools"},
                                 {"name": "Sec-WebSocket-Key", "value": "dGhlIHNhbXBsZSBub25jZQ=="}]},
         "response": {"status": 101},
         "_webSocketMessages": [{"type": kind, "time": 1700000000 + i / 10, "opcode": 1,
                                 "data": json.dumps(message)} for i, (kind, message) in enumerate(frames)]},
    ]}}
    path = tmp_path / "session.har"
    path.write_text(json.dumps(har, indent=2))
    result = run(["--check", str(path), *FAST])   # the URL is the HAR request's
    assert result.code == 0, str(result)
    request = next(item for item in list(chat.ws.log.q.queue) if item[0] == "request")[1]
    assert request.get("Origin") == "https://example.com"
    assert request.get("X-Client") == "devtools"
    assert "Cookie" not in request, "credentials only with --har-credentials"
    result = run(["--check", str(path), "--har-credentials", *FAST])
    assert result.code == 0, str(result)
    requests = [item[1] for item in list(chat.ws.log.q.queue) if item[0] == "request"]
    assert requests[-1].get("Cookie") == "sid=from-the-browser"
    # A difference in a HAR file names its connection and frame.
    frames[2][1]["you"] = "someone else"
    har["log"]["entries"][1]["_webSocketMessages"][2]["data"] = json.dumps(frames[2][1])
    path.write_text(json.dumps(har, indent=2))
    result = run(["--check", str(path), *FAST])
    assert result.code == 8, str(result)
    assert f"FAIL {path}: connection 1, frame 3: message 2 of 3 differs at you" in result.stderr, result.stderr


def test_replay_plays_a_har_file(chat, run, tmp_path):
    har = {"log": {"entries": [{"request": {"url": chat.url, "headers": []}, "_webSocketMessages": [
        {"type": "send", "time": 1, "opcode": 1, "data": '{"type":"join","room":"r","name":"x"}'},
        {"type": "receive", "time": 1.1, "opcode": 1, "data": '{"type":"joined"}'},
    ]}]}}
    path = tmp_path / "s.har"
    path.write_text(json.dumps(har))
    result = run(["--replay", str(path), "--max-messages", "2"])
    assert result.code == 0, str(result)
    assert [json.loads(l)["type"] for l in result.lines] == ["welcome", "joined"]


def test_one_fresh_connection_per_recorded_connection(chat, run, tmp_path):
    def connection(number: int, room: str) -> list[dict]:
        return [
            {"t_ms": number, "dir": "event", "conn": number,
             "msg": {"$event": "connected", "url": chat.url, "attempt": number}},
            {"t_ms": number, "dir": "in", "conn": number, "msg": {"type": "welcome", "session": "${any}", "motd": "hi"}},
            {"t_ms": number, "dir": "out", "conn": number, "msg": {"type": "join", "room": room, "name": f"u{number}"}},
            {"t_ms": number, "dir": "in", "conn": number,
             "msg": {"type": "joined", "room": {"name": room, "topic": "general chat", "users": 1}, "you": f"u{number}",
                     "ts": "${number}"}},
        ]
    recording = write_recording(tmp_path / "two.ndjson", connection(1, "first") + connection(2, "second"))
    result = run(["--check", recording, "--events"])
    assert result.code == 0, str(result)
    assert "PASS " + recording + " (2 connections, 6 messages," in result.stderr
    assert len(events(result.stderr, "connected")) == 2
    assert len([item for item in list(chat.ws.log.q.queue) if item[0] == "request"]) == 2
    # Each closed by wspipe once its check was over, before the next one opened.
    kinds = [e["$event"] for e in events(result.stderr) if e["$event"] in ("connected", "disconnected")]
    assert kinds == ["connected", "disconnected", "connected", "disconnected"]
    assert [e["by"] for e in events(result.stderr, "disconnected")] == ["client", "client"]
