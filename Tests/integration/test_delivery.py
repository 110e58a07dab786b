"""Delivery accounting against a server that talks (wspipe(1): RECONNECT AND
REPLAY): what a dead server's TCP acknowledged after its last sign of life is
reported, with its stdin lines, and nothing else is.

The peer is peers/sink_peer.py, a raw sink in its own process that logs
exactly the bytes it read (one os.write per read) and dies on cue, closing its
socket with bytes unread (an RST, as a killed process does). wspipe reconnects
and the next connection reads everything. For every run:

- the lines no connection read are a subset of the stdin lines wspipe
  reported as unconfirmed (the disconnected event, --stats, the warning);
- wspipe reports no more than it must: no line the sink had read when it last
  gave a sign of life (a message, or a pong to wspipe's ping) is reported,
  give or take one socket buffer (what wspipe's kernel had not yet said was
  acknowledged when the sign of life came);
- the exit status stays 0: what the sink's TCP never acknowledged was sent
  again, and the rest is reported (only --ack confirms delivery).

The sink's receive buffer is small (32 KiB) and a ticking sink sends nothing
in the last lines before its death (`quiet_last`): what a peer's TCP
acknowledged and its application never read is invisible to any client, and
the README says so. A silent sink can confirm nothing; it dies within one
socket buffer of its first line.
"""

from __future__ import annotations

import base64
import json
import os
import random
import re
import subprocess
import sys
import time

import pytest

import helpers
from helpers import events, stats
from peers.sink_peer import read_connection

HERE = os.path.dirname(os.path.abspath(__file__))
SINK = os.path.join(HERE, "peers", "sink_peer.py")
TIMEOUT = 60
# wspipe fixes its send buffer at 256 KiB on a short path; the kernel counts twice that.
SOCKET_BUFFER = 512 << 10


# Random padding: permessage-deflate must not make the lines much shorter on the wire.
PADDING = base64.b64encode(random.Random(19).randbytes(3 << 16))


def line(n: int) -> bytes:
    start = n * 101 % (len(PADDING) - 100)
    return b'{"i":%d,"pad":"%s"}\n' % (n, PADDING[start:start + 100 - len(str(n))])


def lines(first: int, last: int) -> bytes:
    return b"".join(line(n) for n in range(first, last + 1))


LINE_BYTES = len(line(1))


class Sink:
    def __init__(self, tmp_path, plan: list[dict], tls_cert: str | None = None, compress: bool = False,
                 rcvbuf: int = 0):
        self.dir = str(tmp_path / "sink")
        os.makedirs(self.dir)
        argv = [sys.executable, SINK, "--log-dir", self.dir, "--plan", json.dumps(plan), "--rcvbuf", str(rcvbuf)]
        if tls_cert:
            argv += ["--tls", os.path.join(tls_cert, "cert.pem"), os.path.join(tls_cert, "key.pem")]
        if compress:
            argv.append("--compress")
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        first = self.proc.stdout.readline().decode()
        assert first.startswith("port "), first
        self.port = int(first.split()[1])
        self.scheme = "wss" if tls_cert else "ws"

    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/"

    def connections(self) -> list[tuple[list[int], list[dict]]]:
        """Per connection: the stdin line numbers it read, in order, and its log."""
        out = []
        k = 0
        while os.path.exists(os.path.join(self.dir, f"conn-{k}.jsonl")):
            messages, log = read_connection(self.dir, k)
            out.append(([int(m[5:m.index(b",", 5)]) for m in messages], log))
            k += 1
        return out

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def sink(tmp_path):
    sinks = []

    def _make(plan, **kw) -> Sink:
        s = Sink(tmp_path, plan, **kw)
        sinks.append(s)
        return s

    yield _make
    for s in sinks:
        s.close()


def reported_lines(stderr: str) -> list[tuple[int, int, int]]:
    """(count, first, last) of each disconnected event that reported any."""
    out = []
    for e in events(stderr, "disconnected"):
        if e.get("unconfirmed"):
            first, last = e.get("unconfirmed_lines", [0, 0])
            out.append((e["unconfirmed"], first, last))
    return out


def last_sign_of_life(read: list[int], log: list[dict]) -> int:
    """The stdin line the sink had read when it last sent something (0: never)."""
    signs = [e["msgs"] for e in log if e["ev"] in ("tick", "message", "pong")]
    return read[signs[-1] - 1] if signs and signs[-1] > 0 else 0


def check_accounting(res, conns, total: int) -> dict:
    """The promises of this file, for one run; returns figures for messages."""
    got = set()
    for read, _ in conns:
        got.update(read)
    lost = set(range(1, total + 1)) - got
    reports = reported_lines(res.stderr)
    covered = set()
    for _, first, last in reports:
        covered.update(range(first, last + 1))
    figures = {"lost": len(lost), "reports": reports, "connections": len(conns)}
    assert lost <= covered, (f"{len(lost - covered)} lost line(s) not reported, e.g. "
                             f"{sorted(lost - covered)[:10]}; {figures}; stderr={res.stderr[-3000:]}")
    # Each report is as tight as the sign of life allows (one per dead connection, in order).
    dead = [(read, log) for read, log in conns if any(e["ev"] == "die" for e in log)]
    slack = SOCKET_BUFFER // LINE_BYTES
    for (count, first, last), (read, log) in zip(reports, dead):
        sign = last_sign_of_life(read, log)
        # The premise (see QUIET): what the sink's kernel held unread at its last
        # message, it read before it died.
        messages = [e for e in log if e["ev"] in ("tick", "message")]
        died = next(e for e in log if e["ev"] == "die")
        if messages:
            assert messages[-1].get("unread", 0) <= (died["msgs"] - messages[-1]["msgs"]) * 60, (messages[-1], died)
        assert count <= last - first + 1, (count, first, last)
        assert first > sign - slack, (f"unconfirmed from stdin:{first}, though the sink had read line {sign} "
                                      f"when it last gave a sign of life ({count} reported); {figures}")
    st = stats(res.stderr)
    assert st["unconfirmed"] == sum(r[0] for r in reports), (st, reports)
    assert st["unconfirmed_lines"] == [[first, last] for _, first, last in reports], (st, reports)
    # What the dead sink's TCP never acknowledged went to the next connection:
    # everything was delivered as far as TCP tells, so the exit status is 0.
    assert res.code == 0, res
    warnings = [l for l in res.stderr.splitlines() if l.startswith("wspipe: ") and "unconfirmed" in l]
    for _, first, last in reports:
        assert any(f"stdin:{first}-{last}" in w for w in warnings), (first, last, warnings)
    return figures


# Each row of the table in issue 19. The sink's receive buffer is fixed at
# 64 KiB (128 KiB for the kernel): after its last message a ticking sink reads
# QUIET more lines (at least 240 KiB on the wire) before it dies, so that what
# its TCP had acknowledged then was read. The next connection reads everything.
RCVBUF = 64 << 10
QUIET = 4096
ROWS = {
    # Sends nothing, answers nothing: nothing can be confirmed.
    "silent": ({"die_after": 1024, "pongs": False}, []),
    # One message, then 4,096 lines more and death.
    "one_message": ({"message_at": 0.2, "die_after_message": QUIET, "rate": 10e6}, []),
    # {"tick":N} every 50 ms, a fast reader (20 MB/s).
    "ticks": ({"tick": 0.05, "die_after": 20_000, "rate": 20e6, "quiet_last": QUIET}, []),
    # The same, a slow reader (5 MB/s).
    "ticks_slow_reader": ({"tick": 0.05, "die_after": 10_000, "rate": 5e6, "quiet_last": QUIET}, []),
    # Silent, but answers wspipe's pings.
    "pongs": ({"die_after": 15_000, "rate": 5e6}, ["--ping-interval", "50ms", "--ping-timeout", "10s"]),
}

TRANSPORTS = {"plain": (False, False), "tls": (True, False), "compress": (False, True), "tls_compress": (True, True)}


def run_row(spawn, sink, tls_cert, row: str, transport: str, total: int = 30_000):
    behaviour, extra = ROWS[row]
    tls, compress = TRANSPORTS[transport]
    s = sink([behaviour, {}], tls_cert=tls_cert if tls else None, compress=compress, rcvbuf=RCVBUF)
    args = ["--events", "--stats", "--backoff", "20ms:100ms", "--jitter", "0", *extra]
    if tls:
        args += ["--cacert", os.path.join(tls_cert, "cert.pem")]
    if compress:
        args.append("--compress")
    stdin = lines(1, total)
    res = spawn([*args, s.url()], stdin=stdin).finish(TIMEOUT)
    conns = s.connections()
    assert len(conns) >= 2 and any(e["ev"] == "die" for e in conns[0][1]), (conns and conns[0][1], res)
    return res, conns, total


@pytest.mark.parametrize("transport", list(TRANSPORTS))
@pytest.mark.parametrize("row", list(ROWS))
def test_what_a_dead_server_lost_is_reported_with_its_lines(spawn, sink, tls_cert, row, transport):
    res, conns, total = run_row(spawn, sink, tls_cert, row, transport)
    check_accounting(res, conns, total)
