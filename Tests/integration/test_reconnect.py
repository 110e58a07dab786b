"""Reconnection (wspipe(1): RECONNECT AND REPLAY; EXIT STATUS): what is retried, what is fatal, the backoff
delays, --wait, --max-retries, --no-reconnect, and lines written during an
outage.

Delays are checked from the delay_ms of the `reconnecting` events (with
--jitter 0 they are exact), never from the wall clock. Every wait has a hard
timeout, so a missing feature fails instead of hanging.
"""

from __future__ import annotations

import time

import pytest

from helpers import FAST_BACKOFF, events, wait_events, write_lines
from peers.fault_server import Behaviour

LIFECYCLE = ("connecting", "connected", "disconnected", "reconnecting", "gave_up")


def lifecycle(stderr: str) -> list[dict]:
    return [e for e in events(stderr) if e["$event"] in LIFECYCLE]


def delays(stderr: str) -> list[int]:
    return [e["delay_ms"] for e in events(stderr, "reconnecting")]


def attempts(stderr: str, name: str) -> list[int]:
    return [e["attempt"] for e in events(stderr, name)]


# -- the first connection ------------------------------------------------------------


def test_first_connection_refused_fails_fast_exit_3(run, free_port):
    """Without --wait a refused first connection is not retried (default
    backoff 1s: a retry loop would outlive the 3 s limit)."""
    res = run(["--events", f"ws://127.0.0.1:{free_port()}/"], stdin=b'{"a":1}\n', timeout=3)
    assert res.code == 3, res
    assert "Connection refused" in res.stderr, res
    assert events(res.stderr, "reconnecting") == [], res
    assert attempts(res.stderr, "connecting") == [1], res
    assert events(res.stderr, "connected") == [], res


def test_wait_retries_first_connection_until_server_appears(spawn, free_port, fault_server):
    port = free_port()
    proc = spawn(["--wait", "--events", *FAST_BACKOFF, f"ws://127.0.0.1:{port}/w"], stdin=None, close_stdin=False)
    wait_events(proc, "reconnecting", 3)
    srv = fault_server(port=port)
    srv.wait_open(0)
    write_lines(proc, {"after": "wait"})
    assert srv.wait_messages(0, 1) == ['{"after":"wait"}']
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    rec = events(res.stderr, "reconnecting")
    # connection attempts are counted from 1: the first retry is attempt 2
    assert [e["attempt"] for e in rec] == list(range(2, 2 + len(rec))), res
    assert delays(res.stderr) == [50, 100, 200, 400, 400, 400, 400, 400][:len(rec)], res
    # each retry has its connecting event, and the success names the last attempt
    assert attempts(res.stderr, "connecting") == [1] + [e["attempt"] for e in rec], res
    connected = events(res.stderr, "connected")
    assert len(connected) == 1 and connected[0]["attempt"] == rec[-1]["attempt"], res
    assert connected[0]["url"] == f"ws://127.0.0.1:{port}/w"


def test_wait_with_max_retries_gives_up_exit_3(run, free_port):
    res = run(["--wait", "--max-retries", "2", "--events", *FAST_BACKOFF, f"ws://127.0.0.1:{free_port()}/"],
              stdin=b"", timeout=5)
    assert res.code == 3, res
    assert delays(res.stderr) == [50, 100], res
    assert attempts(res.stderr, "connecting") == [1, 2, 3], res
    gave_up = events(res.stderr, "gave_up")
    assert len(gave_up) == 1 and isinstance(gave_up[0]["attempts"], int) and gave_up[0]["reason"], res
    assert lifecycle(res.stderr)[-1]["$event"] == "gave_up", res
    assert any(l.startswith("wspipe: ") for l in res.stderr.splitlines()), res


@pytest.mark.parametrize("status", [401, 403])
def test_handshake_401_403_fatal_even_with_wait(run, fault_server, status):
    srv = fault_server(default=Behaviour(status=status))
    res = run(["--wait", "--events", *FAST_BACKOFF, srv.url()], stdin=b'{"a":1}\n', timeout=5)
    assert res.code == 4, res
    assert str(status) in res.stderr, res
    assert len(srv.conns) == 1, srv.summary()
    assert events(res.stderr, "reconnecting") == [], res


def test_handshake_503_retried_with_wait(run, fault_server):
    srv = fault_server(behaviours=[Behaviour(status=503), Behaviour(status=503)])
    res = run(["--wait", "--events", *FAST_BACKOFF, srv.url()], stdin=b'{"a":1}\n', timeout=8)
    assert res.code == 0, res
    assert [c.log[0][0] for c in srv.conns] == ["rejected", "rejected", "open"], srv.summary()
    assert srv.conns[2].messages == ['{"a":1}']
    assert delays(res.stderr) == [50, 100], res
    assert attempts(res.stderr, "connected") == [3], res


# -- drops, Close codes ---------------------------------------------------------------


@pytest.mark.parametrize("how", ["fin", "rst"])
def test_drop_without_close_reconnects(spawn, fault_server, how):
    srv = fault_server(behaviours=[Behaviour(drop_after=1, drop=how)])
    proc = spawn(["--events", *FAST_BACKOFF, srv.url("/r")], stdin=None, close_stdin=False)
    srv.wait_open(0)
    write_lines(proc, {"n": 1})
    srv.wait_ended(0)
    srv.wait_open(1)
    write_lines(proc, {"n": 2})
    srv.wait_messages(1, 1)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert srv.conns[0].messages == ['{"n":1}']
    if how == "fin":
        # The FIN acknowledged everything: nothing is sent twice.
        assert srv.conns[1].messages == ['{"n":2}'], srv.summary()
    else:
        # An RST acknowledges nothing: a message the server read inside its
        # delayed-ACK window was never acknowledged, so it comes again (at
        # least once); nothing is lost.
        assert srv.conns[1].messages in (['{"n":2}'], ['{"n":1}', '{"n":2}']), srv.summary()
    assert len(srv.opened) == 2
    kinds = [e["$event"] for e in lifecycle(res.stderr)]
    assert kinds[:6] == ["connecting", "connected", "disconnected", "reconnecting", "connecting", "connected"], res
    ev = lifecycle(res.stderr)
    assert ev[0] == {"$event": "connecting", "url": srv.url("/r"), "attempt": 1}
    assert ev[1] == {"$event": "connected", "url": srv.url("/r"), "attempt": 1}
    assert ev[2]["code"] == 1006 and ev[2]["clean"] is False and isinstance(ev[2]["reason"], str), ev[2]
    assert ev[3] == {"$event": "reconnecting", "attempt": 2, "delay_ms": 50}
    assert ev[4]["attempt"] == 2 and ev[5]["attempt"] == 2


@pytest.mark.parametrize("code", [1001, 1011, 4000])
def test_server_close_other_than_1000_reconnects(spawn, fault_server, code):
    srv = fault_server(behaviours=[Behaviour(close_after=1, close_code=code, close_reason="restarting")])
    proc = spawn(["--events", *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    write_lines(proc, {"n": 1})
    srv.wait_open(1)
    write_lines(proc, {"n": 2})
    srv.wait_messages(1, 1)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    # wspipe answered the server's Close (a clean close), then reconnected
    assert srv.conns[0].log[-1][:2] == ("close", code), srv.summary()
    dis = events(res.stderr, "disconnected")[0]
    assert (dis["code"], dis["clean"]) == (code, True) and "restarting" in dis["reason"], res
    assert srv.conns[1].messages == ['{"n":2}']


def test_server_close_1000_ends_session_exit_0(spawn, fault_server):
    srv = fault_server(behaviours=[Behaviour(close_after=1, close_code=1000, close_reason="done")])
    proc = spawn(["--events", *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    write_lines(proc, {"n": 1})
    res = proc.finish(5)  # stdin stays open: the server's Close 1000 alone ends the run
    assert res.code == 0, res
    assert len(srv.conns) == 1, srv.summary()
    assert events(res.stderr, "reconnecting") == [], res
    dis = events(res.stderr, "disconnected")
    assert dis and dis[0]["code"] == 1000 and dis[0]["clean"] is True, res


@pytest.mark.parametrize("fault", ["fin", "rst", "close1001"])
def test_no_reconnect_exit_3(spawn, fault_server, fault):
    b = Behaviour(close_after=1) if fault == "close1001" else Behaviour(drop_after=1, drop=fault)
    srv = fault_server(behaviours=[b])
    proc = spawn(["--no-reconnect", "--events", *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    write_lines(proc, {"n": 1})
    res = proc.finish(5)
    assert res.code == 3, res
    assert len(srv.conns) == 1, srv.summary()
    assert events(res.stderr, "reconnecting") == [], res
    assert any(l.startswith("wspipe: ") for l in res.stderr.splitlines()), res


def test_handshake_401_on_reconnection_is_fatal_exit_4(spawn, fault_server):
    srv = fault_server(behaviours=[Behaviour(drop_after=1), Behaviour(status=401)])
    proc = spawn(["--events", *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    write_lines(proc, {"n": 1})
    res = proc.finish(5)
    assert res.code == 4, res
    assert "401" in res.stderr, res
    assert len(srv.conns) == 2, srv.summary()


def test_handshake_503_on_reconnection_is_retried(spawn, fault_server):
    srv = fault_server(behaviours=[Behaviour(drop_after=1), Behaviour(status=503), Behaviour(status=503)])
    proc = spawn(["--events", *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    write_lines(proc, {"n": 1})
    srv.wait_open(3)
    write_lines(proc, {"n": 2})
    srv.wait_messages(3, 1)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert delays(res.stderr) == [50, 100, 200], res
    assert attempts(res.stderr, "reconnecting") == [2, 3, 4], res
    assert srv.conns[3].messages == ['{"n":2}']


def test_connected_event_names_negotiated_protocol(spawn, fault_server):
    srv = fault_server(behaviours=[Behaviour(protocol="chat", drop_after=1)])
    proc = spawn(["--events", "--protocol", "chat", *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    write_lines(proc, {"n": 1})
    srv.wait_open(1)  # the second connection negotiates nothing
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    connected = events(res.stderr, "connected")
    assert connected[0] == {"$event": "connected", "url": srv.url(), "attempt": 1, "protocol": "chat"}, res
    assert "protocol" not in connected[1], res


# -- backoff, jitter, retries ----------------------------------------------------------


def _outage(spawn, srv, args: list[str], max_retries: int):
    """Connect, stop listening, make the server drop the connection: wspipe
    retries against a closed port until --max-retries, then exits."""
    proc = spawn(["--events", "--max-retries", str(max_retries), *args, srv.url()], stdin=None, close_stdin=False)
    srv.wait_open(0)
    srv.stop_listening()
    write_lines(proc, {"bye": 1})
    return proc.finish(10)


@pytest.mark.parametrize("spec,expected", [
    ("20ms:160ms:2", [20, 40, 80, 160, 160, 160]),
    ("10ms:500ms:3", [10, 30, 90, 270, 500]),
    ("30ms", [30, 60, 120, 240]),          # MAX and FACTOR default to 30s and 2
    ("25ms:25ms", [25, 25, 25]),
])
def test_backoff_delays_exact_with_jitter_0_then_give_up(spawn, fault_server, spec, expected):
    srv = fault_server(behaviours=[Behaviour(drop_after=1)])
    res = _outage(spawn, srv, ["--backoff", spec, "--jitter", "0"], len(expected))
    assert res.code == 3, res
    assert delays(res.stderr) == expected, res
    assert attempts(res.stderr, "reconnecting") == list(range(2, 2 + len(expected))), res
    assert attempts(res.stderr, "connecting") == list(range(1, 2 + len(expected))), res
    kinds = [e["$event"] for e in lifecycle(res.stderr)]
    assert kinds[-1] == "gave_up" and kinds.count("gave_up") == 1, res
    assert kinds.count("connected") == 1, res


def test_jitter_keeps_each_delay_within_bounds(spawn, fault_server):
    srv = fault_server(behaviours=[Behaviour(drop_after=1)])
    res = _outage(spawn, srv, ["--backoff", "40ms:160ms:2", "--jitter", "0.5"], 6)
    assert res.code == 3, res
    got = delays(res.stderr)
    base = [40, 80, 160, 160, 160, 160]
    assert len(got) == len(base), res
    for d, b in zip(got, base):
        assert b * 0.5 - 1 <= d <= b * 1.5 + 1, f"delay {d} ms outside [{b * 0.5}, {b * 1.5}]: {got}"
    assert got != base, f"--jitter 0.5 gave the exact base delays {got}"


def test_default_jitter_is_0_2(spawn, fault_server):
    srv = fault_server(behaviours=[Behaviour(drop_after=1)])
    res = _outage(spawn, srv, ["--backoff", "100ms:100ms"], 4)
    assert res.code == 3, res
    got = delays(res.stderr)
    assert len(got) == 4 and all(80 - 1 <= d <= 120 + 1 for d in got), got


def _two_outages(spawn, fault_server, hold_open: float):
    """Connection 0, an outage, connection 1 kept open `hold_open` seconds,
    a second outage, connection 2; returns (result, reconnecting events of
    the first outage)."""
    srv = fault_server(behaviours=[Behaviour(drop_after=1), Behaviour(drop_after=1)])
    proc = spawn(["--events", *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    srv.wait_open(0)
    srv.stop_listening()
    write_lines(proc, {"n": 1})
    wait_events(proc, "reconnecting", 3)
    srv.start_listening()
    srv.wait_open(1)
    first = len(events(proc.err.data(), "reconnecting"))
    # The contract's rule is about time: a connection resets the backoff
    # only once it has stayed open 5 s. This wait is the stimulus.
    time.sleep(hold_open)
    srv.stop_listening()
    write_lines(proc, {"n": 2})
    wait_events(proc, "reconnecting", first + 2)
    srv.start_listening()
    srv.wait_open(2)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert attempts(res.stderr, "connected")[0] == 1
    assert len(events(res.stderr, "connected")) == 3, res
    got = delays(res.stderr)
    assert got[:first] == [50, 100, 200, 400, 400, 400, 400][:first], got
    return got, first


def test_connection_open_5s_resets_backoff(spawn, fault_server):
    got, first = _two_outages(spawn, fault_server, hold_open=5.3)
    assert got[first:first + 2] == [50, 100], f"backoff not reset after 5 s open: {got}"


def test_short_lived_connection_keeps_backoff_growing(spawn, fault_server):
    got, first = _two_outages(spawn, fault_server, hold_open=0)
    assert got[first:first + 2] == [400, 400], f"a connection that ended at once reset the backoff: {got}"


def test_max_retries_counts_consecutive_failures_only(spawn, fault_server):
    """Two outages of three failed attempts each stay under --max-retries 4
    (six failures in all) when the connection between them stayed open 5 s:
    that connection starts the count again."""
    srv = fault_server(default=Behaviour(drop_after=1))
    proc = spawn(["--events", "--max-retries", "4", *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    seen = 0
    for i in range(2):
        srv.wait_open(i)
        if i == 1:
            time.sleep(5.3)  # the stimulus: a connection that stays open 5 s
        srv.stop_listening()
        write_lines(proc, {"n": i})
        wait_events(proc, "reconnecting", seen + 3)  # two refused retries, a third one pending
        seen = len(events(proc.err.data(), "reconnecting"))
        srv.start_listening()
    srv.wait_open(2)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert len(events(res.stderr, "reconnecting")) >= 6, res
    assert events(res.stderr, "gave_up") == [], res


# -- lines written during an outage -----------------------------------------------------


def test_lines_written_during_outage_arrive_in_order(spawn, fault_server):
    srv = fault_server()
    proc = spawn(["--events", *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    write_lines(proc, {"n": 0})
    srv.wait_messages(0, 1)
    srv.stop_listening()
    srv.conns[0].drop("fin")
    wait_events(proc, "disconnected")
    outage = [{"n": i, "text": f"line {i}"} for i in range(1, 41)]
    for line in outage:
        write_lines(proc, line)
    wait_events(proc, "reconnecting", 2)  # at least one failed attempt while the lines waited
    srv.start_listening()
    got = srv.wait_messages(1, 40)
    write_lines(proc, {"n": 41})
    srv.wait_messages(1, 41)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert srv.conns[0].messages == ['{"n":0}']
    assert [m for m in srv.conns[1].messages] == got[:40] + ['{"n":41}']
    assert got[:40] == [f'{{"n":{i},"text":"line {i}"}}' for i in range(1, 41)]


# -- usage errors of the new flags --------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["--backoff", "abc"],
    ["--backoff", "1s:2s:x"],
    ["--jitter", "1.5"],
    ["--jitter", "-0.1"],
    ["--max-retries", "-1"],
    ["--max-retries", "x"],
    ["--queue-limit", "12Q"],
    ["--ping-interval", "abc"],
    ["--ping-timeout", "1s"],           # requires --ping-interval
    ["--ack-timeout", "1s"],            # requires --ack
    ["--capture", "noequals"],
    ["--ack-timeout", "soon", "--ack", "id"],
])
def test_usage_errors_exit_2(run, args):
    res = run([*args, "ws://127.0.0.1:9/"], timeout=3)
    assert res.code == 2, res
    assert res.stderr.startswith("wspipe: "), res
