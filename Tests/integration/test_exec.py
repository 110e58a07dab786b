"""--exec (wspipe(1): OPTIONS, Server mode): each client gets its own
`sh -c CMD`; the client's messages are the program's stdin lines, its stdout
lines go to that client only; CGI-style environment; the program's exit
closes the client (1000, or 1011 after a failure); a client that leaves
closes the program's stdin, then SIGTERM, then SIGKILL; every program is
reaped; back-pressure both ways, nothing lost and nothing growing."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest
from websockets.exceptions import ConnectionClosed

import helpers
from helpers import events, wait_events
from peers.raw_peer import OP_TEXT, RawConn, frame
from test_server_mode import Receiver, client_id, listen, raw_client, ws_client

# Echoes each line back as {"port":REMOTE_PORT,"n":<the line>}: which program
# answered shows in every reply.
ECHO_WITH_PORT = 'while read -r line; do printf \'{"port":%s,"got":%s}\\n\' "$REMOTE_PORT" "$line"; done'


def children(pid: int) -> list[tuple[int, str]]:
    """(pid, state) of the processes whose parent is pid, zombies included."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid:
            found.append((int(entry), fields[0]))
    return found


def wait_until(predicate, timeout: float = helpers.EVENT_TIMEOUT, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"{what} not reached within {timeout}s"
        time.sleep(0.02)


@pytest.mark.needs("proc")
def test_three_clients_each_talk_to_their_own_program(spawn):
    server, port = listen(spawn, ["--events", "--exec", ECHO_WITH_PORT])
    with ws_client(port) as a, ws_client(port) as b:
        client_id(server, 2)
        c = spawn(["--events", f"ws://127.0.0.1:{port}/"], stdin=b"", close_stdin=False)
        client_id(server, 3)
        ra, rb = Receiver(a), Receiver(b)
        for n in range(20):
            a.send(json.dumps({"a": n}))
            b.send(json.dumps({"b": n}))
            helpers.write_lines(c, {"c": n})
        got_a = [json.loads(m) for m in ra.wait(20)]
        got_b = [json.loads(m) for m in rb.wait(20)]
        got_c = [json.loads(l) for l in c.wait_stdout_lines(20)]
        assert got_a == [{"port": a.local_address[1], "got": {"a": n}} for n in range(20)]
        assert got_b == [{"port": b.local_address[1], "got": {"b": n}} for n in range(20)]
        assert {m["port"] for m in got_c} == {got_c[0]["port"]} and got_c[0]["port"] not in (
            a.local_address[1], b.local_address[1])
        assert [m["got"] for m in got_c] == [{"c": n} for n in range(20)]
        assert len(children(server.proc.pid)) == 3, "one program per client"
    c.close_stdin()
    assert c.finish().code == 0
    assert server.out.data() == b"", "with --exec nothing goes to wspipe's stdout"
    wait_until(lambda: not children(server.proc.pid), what="every program reaped after its client left")


def test_cgi_environment(spawn):
    program = ('printf \'{"addr":"%s","port":"%s","path":"%s","query":"%s","uri":"%s","token":"%s",'
               '"ua":"%s","id":"%s","proxy":"%s","method":"%s"}\\n\' "$REMOTE_ADDR" "$REMOTE_PORT" "$PATH_INFO" '
               '"$QUERY_STRING" "$REQUEST_URI" "$HTTP_X_TOKEN" "$HTTP_USER_AGENT" "$WSPIPE_CLIENT_ID" '
               '"${HTTP_PROXY-unset}" "$REQUEST_METHOD"')
    server, port = listen(spawn, ["--events", "--exec", program], spec="127.0.0.1:0")
    with ws_client(port, "/rooms/7?user=ann&x=1",
                   additional_headers={"X-Token": "s3cret", "Proxy": "http://evil:1"},
                   user_agent_header="envtest/1") as a:
        # The program's exit may close the connection at once: its port comes from the event.
        connected = [e for e in wait_events(server, "client_connected") if e["$event"] == "client_connected"][0]
        cid, peer_port = connected["id"], connected["peer"].rsplit(":", 1)[1]
        env = json.loads(a.recv(timeout=5))
        assert env == {"addr": "127.0.0.1", "port": peer_port, "path": "/rooms/7",
                       "query": "user=ann&x=1", "uri": "/rooms/7?user=ann&x=1", "token": "s3cret",
                       "ua": "envtest/1", "id": str(cid), "proxy": "unset", "method": "GET"}
        # The program exited (status 0) after its one line: the client is closed with 1000.
        with pytest.raises(ConnectionClosed) as closed:
            a.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1000


@pytest.mark.needs("proc")
def test_program_that_exits_early_closes_its_client_1000_or_1011(spawn):
    program = ('read -r first; echo "{\\"first\\":$first}"; '
               'case "$QUERY_STRING" in fail) exit 3;; esac; echo \'{"$text":"bye"}\'')
    server, port = listen(spawn, ["--events", "--exec", program])
    with ws_client(port, "/?ok") as ok, ws_client(port, "/?fail") as bad:
        ok.send('{"n":1}')
        bad.send('{"n":2}')
        assert ok.recv(timeout=5) == '{"first":{"n":1}}'
        assert ok.recv(timeout=5) == "bye"
        assert bad.recv(timeout=5) == '{"first":{"n":2}}'
        with pytest.raises(ConnectionClosed) as closed_ok:
            ok.recv(timeout=5)
        with pytest.raises(ConnectionClosed) as closed_bad:
            bad.recv(timeout=5)
    assert closed_ok.value.rcvd.code == 1000
    assert closed_bad.value.rcvd.code == 1011
    gone = [e for e in wait_events(server, "client_disconnected", 2) if e["$event"] == "client_disconnected"]
    assert sorted(e["code"] for e in gone) == [1000, 1011], gone
    assert server.proc.poll() is None, "the server keeps serving"
    wait_until(lambda: not children(server.proc.pid), what="both programs reaped")


# 3000 x 8 KiB = ~24 MiB: far more than the pipe, the high water and both
# kernel socket buffers, which loopback autotuning grows to several MiB each
# while the server still reads (12 MiB was once all taken in a fresh-clone run).
BIG = 3000
BIG_SIZE = 8 << 10


def big_messages() -> list[str]:
    pad = "p" * (BIG_SIZE - 40)
    return [json.dumps({"n": i, "pad": pad}, separators=(",", ":")) for i in range(BIG)]


@pytest.mark.needs("proc")
def test_program_that_does_not_read_holds_its_client_back_without_loss(spawn, tmp_path):
    go = tmp_path / "go"
    program = f'while [ ! -e {go} ]; do sleep 0.05; done; exec cat'
    server, port = listen(spawn, ["--events", "--exec", program])
    messages = big_messages()
    # A hand-made client that reads and writes in two threads: a library
    # client that cannot read while a send blocks would deadlock against the
    # echo once the program reads, which is the client's fault, not wspipe's.
    sock, status = raw_client(port)
    assert status.startswith("HTTP/1.1 101"), status
    conn = RawConn(sock, timeout=60)
    sent, received = [0], []

    def send_all():
        try:
            for m in messages:
                conn.send(frame(OP_TEXT, m.encode(), mask=os.urandom(4)))
                sent[0] += 1
        except OSError:
            pass

    def receive_all():
        while len(received) < BIG:
            f = conn.recv_frame()
            if f.opcode != OP_TEXT:
                return
            received.append(f.payload.decode())

    sender = threading.Thread(target=send_all, daemon=True)
    receiver = threading.Thread(target=receive_all, daemon=True)
    try:
        with ws_client(port) as other:
            client_id(server, 2)
            sender.start()
            receiver.start()
            stalled_at = helpers.wait_until_stalled(lambda: sent[0], BIG)
            assert stalled_at < BIG, "all messages were taken although the program read none: expected back-pressure"
            rss = helpers.vm_rss_kib(server.proc.pid)
            assert rss < 64 * 1024, f"server RSS {rss} KiB while a program does not read"
            # The other client's program is not affected.
            other.send('{"still":"served"}')
            go.write_text("")
            assert other.recv(timeout=10) == '{"still":"served"}'
            receiver.join(60)
            assert received == messages, f"lines lost or reordered ({len(received)} of {BIG} back)"
            wait_until(lambda: sent[0] == BIG, what="every message sent")
    finally:
        sock.close()


def written_bytes(pid: int) -> int:
    """What the process wrote so far; "everything" once it is gone."""
    try:
        f = open(f"/proc/{pid}/io")
    except FileNotFoundError:
        return 1 << 62
    with f:
        for line in f:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    raise AssertionError(f"no wchar in /proc/{pid}/io")


@pytest.mark.needs("proc")
def test_client_that_does_not_read_holds_its_program_back_without_loss(spawn):
    count = 100_000   # 100000 x 1 KiB = ~100 MiB: far more than pipes, socket buffers and the high water
    program = ("exec awk 'BEGIN { p = sprintf(\"%1000s\", \"\"); gsub(/ /, \"x\", p); "
               f"for (i = 1; i <= {count}; i++) printf \"{{\\\"n\\\":%d,\\\"p\\\":\\\"%s\\\"}}\\n\", i, p }}'")
    server, port = listen(spawn, ["--events", "--exec", program])
    s, status = raw_client(port, rcvbuf=4096)
    assert status.startswith("HTTP/1.1 101"), status
    try:
        client_id(server, 1)
        wait_until(lambda: children(server.proc.pid), what="the program started")
        awk = children(server.proc.pid)[0][0]
        written = helpers.wait_until_stalled(lambda: written_bytes(awk), count * 1000)
        assert written < count * 1000 // 2, f"the program wrote {written} bytes to a client that reads nothing"
        rss = helpers.vm_rss_kib(server.proc.pid)
        assert rss < 64 * 1024, f"server RSS {rss} KiB while a client does not read"
        # Now read everything: every line arrives, in order, then a Close 1000.
        s.settimeout(10)
        data = bytearray()
        frames = []
        while True:
            opcode, payload, used = parse_frame(data)
            if used == 0:
                chunk = s.recv(1 << 20)
                assert chunk, "connection ended before the Close"
                data += chunk
                continue
            del data[:used]
            if opcode == 8:
                close_code = int.from_bytes(payload[:2], "big")
                break
            frames.append(payload)
        assert close_code == 1000
        assert len(frames) == count
        pad = "x" * 1000
        assert all(f == f'{{"n":{i},"p":"{pad}"}}'.encode() for i, f in enumerate(frames, 1))
    finally:
        s.close()


def parse_frame(data) -> tuple[int, bytes, int]:
    """(opcode, payload, bytes used) of an unmasked server frame; used 0 when incomplete."""
    if len(data) < 2:
        return 0, b"", 0
    n = data[1] & 0x7F
    start = 2
    if n == 126:
        if len(data) < 4:
            return 0, b"", 0
        n, start = int.from_bytes(data[2:4], "big"), 4
    elif n == 127:
        if len(data) < 10:
            return 0, b"", 0
        n, start = int.from_bytes(data[2:10], "big"), 10
    if len(data) < start + n:
        return 0, b"", 0
    return data[0] & 0x0F, bytes(data[start:start + n]), start + n


@pytest.mark.needs("proc")
def test_program_gets_eof_then_sigterm_then_sigkill_and_is_always_reaped(spawn, tmp_path):
    log = tmp_path / "log"
    # Ignores stdin EOF; on SIGTERM notes it and exits, unless told to ignore that too.
    program = (f'case "$QUERY_STRING" in stubborn) trap "echo stubborn-term >>{log}" TERM;; '
               f'*) trap "echo term >>{log}; exit 0" TERM;; esac; '
               f'while read -r l; do :; done; echo eof >>{log}; while :; do sleep 0.05; done')
    server, port = listen(spawn, ["--events", "--close-timeout", "300ms", "--exec", program])
    with ws_client(port, "/?polite") as a:
        client_id(server, 1)
        a.send('{"hi":1}')
    wait_until(lambda: log.exists() and "term" in log.read_text(), what="SIGTERM after the grace period")
    assert log.read_text().split() == ["eof", "term"]
    wait_until(lambda: not children(server.proc.pid), what="the program reaped")

    log.unlink()
    with ws_client(port, "/?stubborn") as b:
        client_id(server, 2)
        b.send('{"hi":2}')
    wait_until(lambda: log.exists() and "stubborn-term" in log.read_text(), what="SIGTERM")
    wait_until(lambda: not children(server.proc.pid), timeout=5, what="SIGKILL and reap of a program ignoring SIGTERM")
    assert server.proc.poll() is None


def test_once_with_exec_exits_after_the_program_is_reaped(spawn):
    server, port = listen(spawn, ["--once", "--exec", 'read -r l; echo "$l"'])
    with ws_client(port) as a:
        a.send('{"once":true}')
        assert a.recv(timeout=5) == '{"once":true}'
    res = server.finish()
    assert res.code == 0, res
    assert res.stdout == b""


@pytest.mark.needs("proc")
def test_program_that_cannot_start_is_1011_and_sigint_reaps_running_ones(spawn):
    server, port = listen(spawn, ["--events", "--exec", "while read -r l; do echo \"$l\"; done"])
    with ws_client(port) as a:
        client_id(server, 1)
        a.send('{"x":1}')
        assert a.recv(timeout=5) == '{"x":1}'
        pids = [p for p, _ in children(server.proc.pid)]
        assert len(pids) == 1
        server.signal()
        with pytest.raises(ConnectionClosed) as closed:
            a.recv(timeout=5)
        assert closed.value.rcvd.code == 1001
    res = server.finish()
    assert res.code == 130, res
    assert not os.path.exists(f"/proc/{pids[0]}") or open(f"/proc/{pids[0]}/stat").read().split()[2] != "Z"


def test_raw_line_mode_and_binary_envelopes(spawn):
    # -t: lines as text both ways; a binary message reaches the program base64-encoded
    # with --binary-output base64.
    server, port = listen(spawn, ["-t", "--binary-output", "base64", "--exec", "while read -r l; do echo \"<$l>\"; done"])
    with ws_client(port) as a:
        a.send("plain text")
        assert a.recv(timeout=5) == "<plain text>"
        a.send(b"\x00\x01\x02")
        assert a.recv(timeout=5) == "<AAEC>"
    server2, port2 = listen(spawn, ["--exec", "while read -r l; do echo \"$l\"; done; echo '{\"$binary\":\"3q2+7w==\"}'"])
    with ws_client(port2) as b:
        b.send(b"\xde\xad")
        assert b.recv(timeout=5) == b"\xde\xad", "a binary message goes through as {$binary} and comes back binary"
        b.send("not json")
        assert b.recv(timeout=5) == "not json", "non-JSON text goes through as {$text} and comes back as text"
