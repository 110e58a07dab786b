"""Keepalive (wspipe(1): RECONNECT AND REPLAY): --ping-interval / --ping-timeout.

The silent peers here keep the TCP connection open and never answer a ping
nor a Close, so only wspipe's own timeout can end the connection; they run
with --close-timeout 30s so that a client waiting for a Close handshake
before reconnecting would miss the test's 5 s limit (no timing assertion).
"""

from __future__ import annotations

from helpers import FAST_BACKOFF, events, wait_events, write_lines
from peers.fault_server import Behaviour
from peers.raw_peer import OP_PING, frame

SILENT = dict(answer_pings=False, answer_close=False)


def test_pings_answered_keep_the_connection(spawn, fault_server):
    srv = fault_server()
    proc = spawn(["--events", "--ping-interval", "100ms", *FAST_BACKOFF, srv.url()], stdin=None, close_stdin=False)
    pings = srv.wait_log(0, "ping", 4)  # several intervals went by
    write_lines(proc, {"still": "here"})
    srv.wait_messages(0, 1)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert len(srv.conns) == 1, srv.summary()
    assert events(res.stderr, "reconnecting") == [], res
    assert all(len(p[1]) <= 125 for p in pings)


def _silent_then_normal(spawn, fault_server, first: Behaviour, args: list[str]):
    srv = fault_server(behaviours=[first])
    proc = spawn(["--events", "--close-timeout", "30s", *args, *FAST_BACKOFF, srv.url()],
                 stdin=None, close_stdin=False)
    srv.wait_log(0, "ping")
    srv.wait_open(1)       # reconnected: the dead connection was given up
    srv.wait_ended(0)      # and wspipe closed its socket
    write_lines(proc, {"after": "reconnect"})
    assert srv.wait_messages(1, 1) == ['{"after":"reconnect"}']
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    dis = events(res.stderr, "disconnected")[0]
    assert dis["code"] == 1006 and dis["clean"] is False, res
    assert events(res.stderr, "reconnecting")[0]["attempt"] == 2, res
    return srv, res


def test_silent_peer_is_declared_dead_and_reconnected(spawn, fault_server):
    _silent_then_normal(spawn, fault_server, Behaviour(**SILENT),
                        ["--ping-interval", "100ms", "--ping-timeout", "200ms"])


def test_ping_timeout_defaults_to_the_interval(spawn, fault_server):
    _silent_then_normal(spawn, fault_server, Behaviour(**SILENT), ["--ping-interval", "150ms"])


def test_unsolicited_pongs_with_other_payloads_do_not_count(spawn, fault_server):
    srv, _ = _silent_then_normal(spawn, fault_server, Behaviour(pong_every=0.02, **SILENT),
                                 ["--ping-interval", "100ms", "--ping-timeout", "200ms"])
    log = srv.conns[0].log
    first_ping = next(i for i, item in enumerate(log) if item[0] == "ping")
    assert sum(1 for item in log[first_ping:] if item[0] == "sent_pong") >= 3, \
        "the peer should have sent unsolicited pongs while wspipe waited for its own"


def test_silent_peer_with_no_reconnect_exit_3(spawn, fault_server):
    srv = fault_server(behaviours=[Behaviour(**SILENT)])
    proc = spawn(["--events", "--no-reconnect", "--close-timeout", "30s", "--ping-interval", "100ms",
                  srv.url()], stdin=None, close_stdin=False)
    res = proc.finish(5)
    assert res.code == 3, res
    assert len(srv.conns) == 1
    assert srv.conns[0].count("ping") >= 1


def test_server_pings_still_answered_with_keepalive_on(spawn, fault_server):
    srv = fault_server()
    proc = spawn(["--ping-interval", "100ms", srv.url()], stdin=None, close_stdin=False)
    conn = srv.wait_open(0)
    conn.send_bytes(frame(OP_PING, b"server-ping"))
    srv.wait(lambda: ("pong", b"server-ping") in conn.log, 5, "pong to the server's ping")
    proc.close_stdin()
    assert proc.finish().code == 0
