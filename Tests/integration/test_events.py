"""--events and --stats (wspipe(1): OPTIONS, Diagnostics): JSON lines on stderr, never on stdout."""

from __future__ import annotations

import json

from helpers import FAST_BACKOFF, events, stats, wait_events, write_lines
from peers.fault_server import Behaviour, echo


def test_no_event_lines_without_the_flag(run, fault_server):
    srv = fault_server(responder=echo)
    res = run([srv.url()], stdin=b'{"a":1}\n')
    assert res.code == 0, res
    assert '"$event"' not in res.stderr and '"$stats"' not in res.stderr, res


def test_event_lines_are_json_on_stderr_only(run, fault_server):
    srv = fault_server(responder=echo)
    res = run(["--events", srv.url()], stdin=b'{"a":1}\nnot json\n')
    assert res.code == 6, res
    assert res.lines == ['{"a":1}'], "stdout holds the messages and nothing else"
    for line in res.stderr.splitlines():
        assert line.startswith("wspipe: ") or line.startswith('{"$event":'), f"unexpected stderr line {line!r}"
        if line.startswith("{"):
            assert isinstance(json.loads(line)["$event"], str)
    kinds = [e["$event"] for e in events(res.stderr) if e["$event"] != "invalid_input"]
    assert kinds[:2] == ["connecting", "connected"], res
    assert len(events(res.stderr, "invalid_input")) == 1, res


def test_invalid_input_event(run, fault_server):
    srv = fault_server()
    res = run(["--events", srv.url()], stdin=b'{"a":1}\nhello\n{"b":2}\n')
    assert res.code == 6, res
    inv = events(res.stderr, "invalid_input")
    assert len(inv) == 1, res
    assert inv[0]["line"] == 2 and inv[0]["column"] == 1, inv
    assert isinstance(inv[0]["reason"], str) and inv[0]["reason"], inv
    assert srv.wait_messages(0, 2) == ['{"a":1}', '{"b":2}']


def test_stats_line_counts_both_ways_across_a_reconnect(spawn, fault_server):
    def respond(conn, text):
        conn.send_json({"got": len(conn.messages)})

    srv = fault_server(behaviours=[Behaviour(drop_after=1)], responder=respond)
    proc = spawn(["--stats", "--events", *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    first, second = '{"first":1}', '{"second":[1,2,3]}'
    write_lines(proc, first)
    proc.wait_stdout_lines(1)
    srv.wait_open(1)
    write_lines(proc, "{oops", second)
    proc.wait_stdout_lines(2)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 6, res  # the invalid line
    assert res.lines == ['{"got":1}', '{"got":1}']
    st = stats(res.stderr)
    assert set(st) == {"messages_out", "bytes_out", "messages_in", "bytes_in", "reconnects", "invalid_lines",
                       "unacked", "not_sent", "unconfirmed", "unconfirmed_lines", "unread", "unread_lines"}, st
    assert st["messages_out"] == 2 and st["bytes_out"] == len(first) + len(second), st
    assert st["messages_in"] == 2 and st["bytes_in"] == 2 * len('{"got":1}'), st
    assert (st["reconnects"], st["invalid_lines"], st["unacked"], st["not_sent"]) == (1, 1, 0, 0), st
    # The first line's answer confirms it only if wspipe saw its TCP
    # acknowledgement before the answer came (wspipe(1): RECONNECT AND
    # REPLAY); with a delayed ACK riding on the answer, the drop finds it
    # unconfirmed, and it says so with its line.
    assert (st["unconfirmed"], st["unconfirmed_lines"]) in ((0, []), (1, [[1, 1]])), st


def test_stats_not_sent_when_giving_up_with_queued_lines(spawn, fault_server):
    srv = fault_server()
    proc = spawn(["--stats", "--events", "--max-retries", "3", "--backoff", "150ms:150ms", "--jitter", "0",
                  srv.url()], stdin=None, close_stdin=False)
    srv.wait_open(0)
    srv.stop_listening()
    srv.conns[0].drop("fin")
    wait_events(proc, "disconnected")
    write_lines(proc, {"q": 1}, {"q": 2}, {"q": 3})
    proc.close_stdin()
    res = proc.finish(8)
    assert res.code == 3, res
    assert events(res.stderr, "gave_up"), res
    st = stats(res.stderr)
    assert st["not_sent"] == 3 and st["messages_out"] == 0, st


def test_stats_without_events(run, fault_server):
    srv = fault_server(responder=echo)
    res = run(["--stats", srv.url()], stdin=b'{"a":1}\n')
    assert res.code == 0, res
    assert events(res.stderr) == []
    st = stats(res.stderr)
    assert (st["messages_out"], st["bytes_out"], st["messages_in"], st["bytes_in"]) == (1, 7, 1, 7), st
