"""Issue 33 item 5: every number from a flag or a file is range-checked.
An Int64 overflow trapped (SIGILL, exit 132, no message) on a hostile
--replay file (the server died at its first client), a tiny
--replay-speed or --rate; a duration near Int64's end made a deadline that
wrapped into the past, so a timer fired at once, or a loop spun. Now: exit 2
for a flag, the file's line for a file, never a trap."""

from __future__ import annotations

import json

import pytest
from websockets.sync.client import connect

import helpers

YEAR = "8760h (a year)"


def write_recording(path, entries) -> None:
    with open(path, "w") as f:
        for t, direction, conn, msg in entries:
            f.write(json.dumps({"t_ms": t, "dir": direction, "conn": conn, "msg": msg}, separators=(",", ":")) + "\n")


def test_a_hostile_replay_file_is_refused_with_its_line(spawn, tmp_path):
    """Was: the server started, then died of SIGILL at its first client."""
    rec = tmp_path / "hostile.ndjson"
    entries = []
    for conn in range(1, 6):
        entries += [(0, "event", conn, {"$event": "client_connected"}), (9_000_000_000_000_000_000, "in", conn, {"n": conn})]
    write_recording(rec, entries)
    server = spawn(["--listen", "127.0.0.1:0", "--replay", str(rec)], stdin=b"", close_stdin=False)
    try:
        port = int(server.wait_stderr(r"listening on \S+:(\d+)|wspipe: --replay", timeout=5).group(1) or 0)
    except AssertionError:
        port = 0
    if port:   # the old behaviour: its first client killed it (SIGILL)
        try:
            with connect(f"ws://127.0.0.1:{port}/", open_timeout=5) as ws:
                ws.recv(timeout=1)
        except Exception:
            pass
    res = server.finish()
    assert res.code == 2, res
    assert f'--replay {rec}:2: "t_ms" is more than 31536000000 ({YEAR})' in res.stderr, res


def test_a_replay_too_slow_to_finish_within_a_year_is_refused(run, tmp_path):
    rec = tmp_path / "session.ndjson"
    write_recording(rec, [(0, "event", 1, {"$event": "connected"})]
                    + [(1000 * k, "out" if k % 2 else "in", 1, {"n": k}) for k in range(1, 9)])
    res = run(["--replay", str(rec), "--replay-speed", "0.000000001", "ws://127.0.0.1:9/"])
    assert res.code == 2, res
    assert f"at this --replay-speed the replay would last more than {YEAR}" in res.stderr, res
    res = run(["--listen", "127.0.0.1:0", "--replay", str(rec), "--rate", "0.0000025/m"])
    assert "at this --rate the replay would last more than" in res.stderr, res
    assert res.code == 2, res


@pytest.mark.parametrize("args, message", [
    (["--rate", "0.0000000000001/m"], f"--rate: '0.0000000000001/m' is slower than one message every {YEAR}"),
    (["--idle-timeout", "9223372036s"], f"--idle-timeout: '9223372036s' is longer than {YEAR}"),
    (["--connect-timeout", "9223372036s"], f"--connect-timeout: '9223372036s' is longer than {YEAR}"),
    (["--linger", "2562047h"], f"--linger: '2562047h' is longer than {YEAR}"),
    (["--ack", "id", "--ack-timeout", "9223372036s"], f"--ack-timeout: '9223372036s' is longer than {YEAR}"),
    (["--heartbeat", "{}", "--heartbeat-interval", "9223372036s"], f"--heartbeat-interval: '9223372036s' is longer"),
    (["--close-timeout", "99999999999999999999h"], f"--close-timeout: '99999999999999999999h' is longer than {YEAR}"),
    (["--backoff", "1s:8761h"], f"--backoff: MAX is longer than {YEAR}"),
])
def test_numbers_out_of_range_are_usage_errors(run, ws_server, args, message):
    """Was: SIGILL (132), a spinning loop that ignored SIGTERM, or a timer that fired at once."""
    srv = ws_server(helpers.echo)
    res = run([*args, srv.url()], stdin=b'{"id":1}\n')
    assert res.code == 2, res
    assert message in res.stderr, res


def test_the_longest_durations_work(run, ws_server):
    """A year is taken, and its deadlines wait (a wrapped one fired at once)."""
    srv = ws_server(helpers.echo)
    res = run(["--idle-timeout", "8760h", "--ping-interval", "8760h", "--close-timeout", "8760h", "--linger", "0.2",
               "--ack", "id", "--ack-timeout", "8760h", "--backoff", "1s:8760h", srv.url()], stdin=b'{"id":1}\n')
    assert res.code == 0, res
    assert res.stdout == b'{"id":1}\n'


def test_unconfirmed_replayed_messages_are_reported_with_their_recording_lines(spawn, raw_peer, tmp_path):
    """Issue 33 item 9: a --replay's messages the server never showed it
    read were reported by count only. Now with their lines in the recording,
    as stdin's are (`stdin:3-7`). The server here reads nothing and never answers."""
    rec = tmp_path / "session.ndjson"
    write_recording(rec, [(0, "event", 1, {"$event": "connected"})] + [(0, "out", 1, {"n": k}) for k in range(1, 6)])
    peer = raw_peer()
    proc = spawn(["--replay", str(rec), "--linger", "0", "--close-timeout", "300ms", "--max-retries", "0",
                  peer.url()], stdin=None, close_stdin=False)
    conn = peer.accept()
    conn.handshake()
    res = proc.finish()
    conn.close()
    assert "5 message(s) (--replay:2-6) unconfirmed" in res.stderr, res
