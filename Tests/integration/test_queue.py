"""The outage queue (wspipe(1): RECONNECT AND REPLAY): lines read while disconnected are kept in
order and sent after the reconnect; --queue-limit bounds the queue, and a
full queue stops wspipe reading stdin (back-pressure) without dropping.

Back-pressure is observed through the pipe itself: the test writes stdin
with non-blocking writes; EAGAIN means the pipe is full, i.e. wspipe stopped
reading. Sleeps only give wspipe time to read; they are never the assertion.
"""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from helpers import events, vm_rss_kib, wait_events, write_lines

LINE_SIZE = 100
PUSH_LIMIT = 40 << 20     # try to push this much during the outage
ACCEPTED_LIMIT = 8 << 20  # wspipe may take in at most this much while the server is down
RSS_LIMIT_KIB = 64 << 10


def line(n: int) -> bytes:
    head = f'{{"n":{n},"pad":"'
    return (head + "x" * (LINE_SIZE - len(head) - 3) + '"}\n').encode()


class Feeder:
    """Writes numbered lines to a non-blocking pipe, remembering where it stopped."""

    def __init__(self, fd: int, first: int):
        self.fd = fd
        self.next = first
        self.pending = b""
        self.written = 0

    def _refill(self) -> None:
        start = self.next
        self.next += 655
        self.pending = b"".join(line(n) for n in range(start, self.next))

    def push(self, limit: int) -> bool:
        """Write until the pipe is full (True) or `limit` bytes were written (False)."""
        start = self.written
        while self.written - start < limit:
            if not self.pending:
                self._refill()
            try:
                n = os.write(self.fd, self.pending)
            except BlockingIOError:
                return True
            self.pending = self.pending[n:]
            self.written += n
        return False


@pytest.mark.needs("proc")
def test_queue_limit_back_pressure_then_every_line_exactly_once(spawn, fault_server):
    srv = fault_server()
    proc = spawn(["--events", "--queue-limit", "4K", "--backoff", "50ms:200ms", "--jitter", "0", srv.url()],
                 stdin=None, close_stdin=False)
    fd = proc.proc.stdin.fileno()
    os.write(fd, b"".join(line(n) for n in range(10)))
    srv.wait_messages(0, 10)

    srv.stop_listening()
    srv.conns[0].drop("fin")
    wait_events(proc, "disconnected")
    os.set_blocking(fd, False)
    feeder = Feeder(fd, 10)
    before = feeder.written
    assert feeder.push(PUSH_LIMIT), (
        f"wspipe took in {feeder.written - before} bytes of stdin while disconnected with --queue-limit 4K "
        "(no back-pressure)")
    # Give wspipe time to read what it wants; it must stop once its queue is full.
    quiet_rounds = 0
    for _ in range(30):
        time.sleep(0.1)
        mark = feeder.written
        assert feeder.push(PUSH_LIMIT)
        quiet_rounds = quiet_rounds + 1 if feeder.written == mark else 0
        if quiet_rounds >= 3:
            break
    accepted = feeder.written - before
    assert quiet_rounds >= 3, f"wspipe kept reading stdin while disconnected ({accepted} bytes so far)"
    assert accepted < ACCEPTED_LIMIT, f"wspipe took in {accepted} bytes while disconnected"
    rss = vm_rss_kib(proc.proc.pid)
    assert rss < RSS_LIMIT_KIB, f"VmRSS {rss} KiB while the queue is full"
    assert proc.proc.poll() is None
    assert srv.all_messages() == [line(n).decode().rstrip("\n") for n in range(10)]

    # The server comes back: the queue drains, reading resumes, nothing is lost.
    srv.start_listening()
    os.set_blocking(fd, True)
    total = feeder.next + 200
    tail = feeder.pending + b"".join(line(n) for n in range(feeder.next, total))
    done = threading.Event()

    def writer():
        view = memoryview(tail)
        try:
            while view:
                n = os.write(fd, view)
                view = view[n:]
        finally:
            done.set()

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    assert done.wait(10), "stdin writes still blocked 10 s after the server came back"
    proc.close_stdin()
    res = proc.finish(15)
    assert res.code == 0, res
    got = [json.loads(m)["n"] for m in srv.all_messages()]
    assert len(got) == total, f"expected {total} lines, the server got {len(got)}"
    assert got == list(range(total)), "lines lost, repeated or out of order"
    assert events(res.stderr, "reconnecting"), res


def test_queued_lines_sent_after_reconnect_before_new_ones(spawn, fault_server):
    """A line written after the reconnect comes after everything queued."""
    srv = fault_server()
    proc = spawn(["--events", "--backoff", "50ms", "--jitter", "0", srv.url()], stdin=None, close_stdin=False)
    srv.wait_open(0)
    srv.stop_listening()
    srv.conns[0].drop("rst")
    wait_events(proc, "disconnected")
    write_lines(proc, *({"q": i} for i in range(5)))
    wait_events(proc, "reconnecting", 2)
    srv.start_listening()
    srv.wait_open(1)
    write_lines(proc, {"q": 5})
    srv.wait_messages(1, 6)
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert srv.conns[1].messages == [f'{{"q":{i}}}' for i in range(6)]
