"""Replay and acknowledgements (wspipe(1): RECONNECT AND REPLAY): --on-connect, --on-connect-file,
--on-reconnect, --capture, --ack, --ack-timeout, and the realtime-session
scenario that ties them together."""

from __future__ import annotations

import base64
import json
import random
import re

import pytest

from helpers import FAST_BACKOFF, events, stats, wait_events, write_lines
from peers.fault_server import Behaviour, echo, is_seq, no_reply, realtime, reply_acks


def J(text: str):
    return json.loads(text)


# -- on-connect / on-reconnect / capture ----------------------------------------------------


def test_on_connect_messages_first_on_every_connection(spawn, fault_server):
    srv = fault_server(behaviours=[Behaviour(drop_after=3)])
    proc = spawn(["--on-connect", '{"hello":1}', "--on-connect", '{"hello":2}', *FAST_BACKOFF, srv.url()],
                 stdin=b'{"line":1}\n', close_stdin=False)
    assert srv.wait_messages(0, 3) == ['{"hello":1}', '{"hello":2}', '{"line":1}']
    srv.wait_messages(1, 2)
    write_lines(proc, {"line": 2})
    srv.wait_messages(1, 3)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert srv.conns[1].messages == ['{"hello":1}', '{"hello":2}', '{"line":2}']


def test_on_connect_file_one_message_per_line(spawn, fault_server, tmp_path):
    f = tmp_path / "init.ndjson"
    f.write_text('{"type":"auth","token":"t0k"}\n{"type":"subscribe","topics":["a","b"]}\n')
    srv = fault_server(behaviours=[Behaviour(drop_after=3)])
    proc = spawn(["--on-connect-file", str(f), *FAST_BACKOFF, srv.url()], stdin=b'{"line":1}\n', close_stdin=False)
    assert srv.wait_messages(0, 3) == ['{"type":"auth","token":"t0k"}', '{"type":"subscribe","topics":["a","b"]}',
                                       '{"line":1}']
    assert srv.wait_messages(1, 2) == ['{"type":"auth","token":"t0k"}', '{"type":"subscribe","topics":["a","b"]}']
    proc.close_stdin()
    assert proc.finish().code == 0


def test_on_reconnect_replaces_on_connect_on_reconnections(spawn, fault_server):
    srv = fault_server(behaviours=[Behaviour(drop_after=2), Behaviour(drop_after=2)])
    proc = spawn(["--on-connect", '{"type":"init"}', "--on-reconnect", '{"type":"resume","n":1}',
                  "--on-reconnect", '{"type":"resume","n":2}', *FAST_BACKOFF, srv.url()],
                 stdin=None, close_stdin=False)
    assert srv.wait_messages(0, 1) == ['{"type":"init"}']
    write_lines(proc, {"line": 1})
    assert srv.wait_messages(1, 2) == ['{"type":"resume","n":1}', '{"type":"resume","n":2}']  # then it drops
    assert srv.wait_messages(2, 2) == ['{"type":"resume","n":1}', '{"type":"resume","n":2}']
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert srv.conns[0].messages == ['{"type":"init"}', '{"line":1}']
    assert srv.conns[2].messages == ['{"type":"resume","n":1}', '{"type":"resume","n":2}']


def test_capture_substitutes_latest_values_as_json(spawn, fault_server):
    def respond(conn, text):
        if conn.index != 0:
            return
        if J(text).get("type") == "init":
            conn.send_json({"session_id": "old", "meta": {"n": 1}})
        else:
            conn.send_json({"session_id": "s-2", "meta": {"n": 5, "obj": {"a": [1, "x"]}}})
            conn.send_json({"other": True})  # no value at the paths: the captures keep theirs
            conn.send_text("not json")

    srv = fault_server(behaviours=[Behaviour(drop_after=2)], responder=respond)
    proc = spawn(["--capture", "sid=session_id", "--capture", "n=meta.n", "--capture", "o=meta.obj",
                  "--on-connect", '{"type":"init","sid":${sid}}',
                  "--on-reconnect", '{"type":"resume","sid":${sid},"n":${n},"o":${o},"keep":"\\u0024{unknown}"}',
                  *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    first = srv.wait_messages(0, 1)[0]
    assert J(first) == {"type": "init", "sid": None}, "${NAME} is null before anything was captured"
    proc.wait_stdout_lines(1)  # the answer to init arrived
    write_lines(proc, {"go": 1})
    resume = srv.wait_messages(1, 1)[0]
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert J(resume) == {"type": "resume", "sid": "s-2", "n": 5, "o": {"a": [1, "x"]}, "keep": "${unknown}"}, resume
    assert '"sid":"s-2"' in resume, "a captured string keeps its quotes"


# -- acks ------------------------------------------------------------------------------------


def test_all_acked_exit_0_with_acked_events(run, fault_server):
    srv = fault_server(responder=reply_acks("sequence"))
    lines = b"".join(json.dumps({"sequence": n, "data": "d"}).encode() + b"\n" for n in range(1, 6))
    res = run(["--ack", "sequence", "--events", "--stats", srv.url()], stdin=lines + b'{"no_key":true}\n')
    assert res.code == 0, res
    assert [e["key"] for e in events(res.stderr, "acked")] == [1, 2, 3, 4, 5], res
    assert events(res.stderr, "unacked") == []
    assert len(srv.wait_messages(0, 6)) == 6
    assert srv.wait_log(0, "close")[0][1] == 1000
    assert stats(res.stderr)["unacked"] == 0


def test_ack_timeout_with_silent_server_exit_6_lists_keys(run, fault_server):
    srv = fault_server(responder=no_reply)
    stdin = b'{"sequence":1}\n{"sequence":2}\n{"x":0}\n{"sequence":3}\n'
    res = run(["--ack", "sequence", "--ack-timeout", "300ms", "--events", "--stats", srv.url()], stdin=stdin,
              timeout=6)
    assert res.code == 6, res
    assert srv.conns[0].messages == ['{"sequence":1}', '{"sequence":2}', '{"x":0}', '{"sequence":3}']
    lines = [l for l in res.stderr.splitlines() if l.startswith("wspipe: ") and "not acknowledged" in l]
    assert len(lines) == 1, res
    assert sorted(int(k) for k in re.findall(r"\d+", lines[0].split("not acknowledged", 1)[1])) == [1, 2, 3], lines
    assert [e["keys"] for e in events(res.stderr, "unacked")] == [[1, 2, 3]], res
    assert stats(res.stderr)["unacked"] == 3


def test_ack_timeout_reports_only_the_missing_keys(run, fault_server):
    srv = fault_server(default=Behaviour(mute_when=is_seq(3, 4)), responder=reply_acks("sequence"))
    stdin = b"".join(f'{{"sequence":{n}}}\n'.encode() for n in range(1, 6))
    res = run(["--ack", "sequence", "--ack-timeout", "300ms", "--events", srv.url()], stdin=stdin, timeout=6)
    assert res.code == 6, res
    line = next(l for l in res.stderr.splitlines() if "not acknowledged" in l)
    assert line.startswith("wspipe: 2 "), line
    assert sorted(int(k) for k in re.findall(r"\d+", line.split("not acknowledged", 1)[1])) == [3, 4], line
    assert [e["key"] for e in events(res.stderr, "acked")] == [1, 2, 5], res
    assert events(res.stderr, "unacked")[0]["keys"] == [3, 4], res


def test_ack_nested_string_keys(run, fault_server):
    def respond(conn, text):
        msg = json.loads(text)
        if msg["meta"]["id"] != "b":
            conn.send_json({"reply": True, "meta": {"id": msg["meta"]["id"]}})

    srv = fault_server(responder=respond)
    stdin = b'{"meta":{"id":"a"}}\n{"meta":{"id":"b"}}\n{"meta":{"id":"c"}}\n'
    res = run(["--ack", "meta.id", "--ack-timeout", "300ms", "--events", srv.url()], stdin=stdin, timeout=6)
    assert res.code == 6, res
    assert [e["key"] for e in events(res.stderr, "acked")] == ["a", "c"], res
    assert events(res.stderr, "unacked")[0]["keys"] == ["b"], res
    line = next(l for l in res.stderr.splitlines() if "not acknowledged" in l)
    assert line.startswith("wspipe: 1 ") and "b" in line.split("not acknowledged", 1)[1], line


def test_held_messages_resent_after_on_reconnect_and_before_queued_lines(spawn, fault_server):
    srv = fault_server(behaviours=[Behaviour(mute_when=is_seq(2, 3), drop_after=4)],
                       responder=reply_acks("sequence"))
    proc = spawn(["--ack", "sequence", "--events", "--on-connect", '{"hello":1}', "--on-reconnect", '{"resume":1}',
                  *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    srv.wait_open(0)
    srv.stop_listening()
    write_lines(proc, {"sequence": 1}, {"sequence": 2}, {"sequence": 3})
    wait_events(proc, "disconnected")
    write_lines(proc, {"sequence": 4}, {"plain": True})
    wait_events(proc, "reconnecting", 2)
    srv.start_listening()
    got = srv.wait_messages(1, 5)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert srv.conns[0].messages == ['{"hello":1}', '{"sequence":1}', '{"sequence":2}', '{"sequence":3}']
    assert got == ['{"resume":1}', '{"sequence":2}', '{"sequence":3}', '{"sequence":4}', '{"plain":true}']
    assert [e["key"] for e in events(res.stderr, "acked")] == [1, 2, 3, 4], res


# -- the realtime session scenario ---------------------------------------------------------


def chunk(n: int) -> str:
    audio = base64.b64encode(random.Random(n).randbytes(96)).decode()
    return json.dumps({"type": "audio_chunk", "sequence": n, "audio": audio}, separators=(",", ":"))


def chunk_seqs(conn) -> list[int]:
    return [m["sequence"] for m in conn.json_messages if m.get("type") == "audio_chunk"]


RESUME = {"type": "session_resume", "session_id": "abc123"}


@pytest.mark.parametrize("pacing", ["paced", "all_at_once"])
def test_realtime_session_survives_two_drops(spawn, fault_server, pacing):
    """session_init, then 30 audio chunks answered by results; the server drops
    the connection after chunk 8 (FIN) and after chunk 19 (RST), each time
    without answering the last three chunks it got. Every chunk is answered
    exactly once, in order; each reconnection resumes the session with the
    captured id and re-sends exactly the unanswered chunks."""
    srv = fault_server(behaviours=[Behaviour(mute_when=is_seq(6, 7, 8), drop_when=is_seq(8), drop="fin"),
                                   Behaviour(mute_when=is_seq(17, 18, 19), drop_when=is_seq(19), drop="rst")],
                       responder=realtime("abc123"))
    args = ["--backoff", "50ms:200ms", "--jitter", "0", "--on-connect", '{"type":"session_init"}',
            "--on-reconnect", '{"type":"session_resume","session_id":${sid}}', "--capture", "sid=session_id",
            "--ack", "sequence", srv.url("/realtime")]
    chunks = "".join(chunk(n) + "\n" for n in range(30)).encode()
    if pacing == "all_at_once":
        proc = spawn(args, stdin=chunks)
    else:
        per = chunks.split(b"\n")
        proc = spawn(args, stdin=None, close_stdin=False)
        proc.write(b"\n".join(per[0:9]) + b"\n")
        srv.wait_ended(0)
        proc.write(b"\n".join(per[9:20]) + b"\n")
        srv.wait_ended(1)
        proc.write(b"\n".join(per[20:30]) + b"\n")
        proc.close_stdin()
    res = proc.finish(20)
    assert res.code == 0, f"{res}\n{srv.summary()}"

    out = [json.loads(l) for l in res.lines]
    results = [m["sequence"] for m in out if m.get("type") == "result"]
    assert results == list(range(30)), f"results on stdout: {results}"
    assert [m for m in out if m.get("type") == "session_started"] == [{"type": "session_started",
                                                                       "session_id": "abc123"}]

    conns = srv.opened
    assert len(conns) == 3, srv.summary()
    assert ("dropped", "fin") in conns[0].log and ("dropped", "rst") in conns[1].log
    assert conns[0].messages[0] == '{"type":"session_init"}'
    assert chunk_seqs(conns[0]) == list(range(9)), "the first connection ends at chunk 8"
    for c in conns[1:]:
        assert c.json_messages[0] == RESUME, c.messages[0]
        assert '"session_id":"abc123"' in c.messages[0]
    # resent chunks = exactly the unanswered ones, in order, then the rest
    second = chunk_seqs(conns[1])
    assert second[:3] == [6, 7, 8], second
    assert second == list(range(6, 6 + len(second))) and second[-1] >= 19, second
    if pacing == "paced":
        assert second == list(range(6, 20)), second
    assert chunk_seqs(conns[2]) == list(range(17, 30))
    assert conns[2].log[-1][:2] == ("close", 1000), conns[2].log[-3:]
