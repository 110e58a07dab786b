"""Server-mode clients that attack (README, Server mode: what a hostile client
can and cannot do; wspipe(1): OPTIONS, Server mode): each attack is refused or
bounded, and the other clients are served.

Attackers are raw sockets, so that they send exactly the bytes of the attack:
a spoofed "$client" member, a receive buffer of 4 KB that is never read, 200
connections at once, header names and values a CGI program must not see.
"""

from __future__ import annotations

import base64
import json
import os
import resource
import shutil
import socket
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import pytest

import helpers
from helpers import events, wait_events
from peers.raw_peer import OP_TEXT, frame
from test_exec import children, parse_frame, wait_until
from test_server_mode import Receiver, client_id, listen, raw_client, ws_client


def masked_text(payload: bytes) -> bytes:
    return frame(OP_TEXT, payload, mask=os.urandom(4))


def upgrade(port: int, headers: bytes = b"", rcvbuf: int | None = None) -> tuple[socket.socket, str]:
    """A raw upgrade request with extra header lines `headers` (each ending in
    CRLF); returns the socket and the response's status line."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n".encode() + headers + b"\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            break
        head += chunk
    return s, head.split(b"\r\n", 1)[0].decode("latin-1")


def read_text_frame(s: socket.socket, timeout: float = helpers.EVENT_TIMEOUT) -> bytes:
    s.settimeout(timeout)
    data = b""
    while True:
        opcode, payload, used = parse_frame(data)
        if used:
            assert opcode == OP_TEXT, (opcode, payload)
            return payload
        chunk = s.recv(65536)
        assert chunk, f"closed before a whole frame: {data!r}"
        data += chunk


# -- 1. --tag: a client cannot pass for another -------------------------------------------
# Was: {"$client":2,"type":"whoami","$client":1} on stdout, which jq, Python and
# JavaScript read as client 1.


def test_a_spoofed_client_member_is_removed_before_the_tag(spawn):
    server, port = listen(spawn, ["--tag", "--events"])
    with ws_client(port) as victim:
        victim_id = client_id(server, 1)
        attacker, status = raw_client(port)
        assert status.startswith("HTTP/1.1 101"), status
        attacker_id = client_id(server, 2)
        try:
            attacker.sendall(masked_text(b'{"type":"whoami","$client":%d}' % victim_id))
            attacker.sendall(masked_text(b'{"\\u0024client":%d,"type":"escaped"}' % victim_id))
            attacker.sendall(masked_text(b'{"$client":%d,"$client":%d,"text":"$client"}' % (victim_id, victim_id)))
            victim.send('{"type":"honest","nested":{"$client":99}}')
            lines = server.wait_stdout_lines(4)
        finally:
            attacker.close()
    by_type = {json.loads(line).get("type"): line for line in lines}
    # Python keeps the last of two equal keys, as jq and JavaScript do.
    for line in lines:
        parsed = json.loads(line)
        expected = victim_id if parsed.get("type") == "honest" else attacker_id
        assert parsed["$client"] == expected, line
        pairs = json.loads(line, object_pairs_hook=lambda kv: kv)
        assert [k for k, _ in pairs].count("$client") == 1, line
    assert by_type["whoami"] == b'{"$client":%d,"type":"whoami"}' % attacker_id
    assert by_type["honest"] == b'{"$client":%d,"type":"honest","nested":{"$client":99}}' % victim_id
    if shutil.which("jq"):
        jq = subprocess.run(["jq", "-c", '."$client"'], input=b"\n".join(lines) + b"\n", capture_output=True, timeout=10)
        assert sorted(int(x) for x in jq.stdout.split()) == sorted([attacker_id] * 3 + [victim_id]), jq
    removed = [e for e in wait_events(server, "tag_removed", 3) if e["$event"] == "tag_removed"]
    assert [e["id"] for e in removed] == [attacker_id] * 3
    assert server.err.data().decode().count("sent a \"$client\" member of its own") == 1, "said once per client"


# -- 2. --relay: a member that never reads cannot freeze the room -------------------------
# Was: with default options a client with a 4 KB receive buffer that never read
# stopped the room for good (the sender blocked after 176 messages, the other
# reader got nothing for 11 s and more). Then it held the room for the default
# --send-timeout (10 s): under load the two readers, websockets clients that
# stop reading while a send of theirs is blocked, could not drain their own
# queues while wspipe did not read them, and one of them was dropped in its
# turn ("expected 150 message(s) within 40s, got 4"). Now each member has a
# queue of its own: the readers are never held, and the member that never
# reads is dropped with 1008, for falling more than its limit behind or, short
# of that, after the --send-timeout.

CHAT_MESSAGES = 150
CHAT_SIZE = 64 << 10   # 2 x 150 x 64 KiB = ~19 MiB: far past the high water and the socket buffers


def test_a_relay_member_that_never_reads_is_dropped_by_default_and_the_room_goes_on(spawn):
    server, port = listen(spawn, ["--events", "--relay", "--route", "*=drop"])
    with ExitStack() as stack:
        a = stack.enter_context(ws_client(port))
        id_a = client_id(server, 1)
        stuck, status = raw_client(port, rcvbuf=4096)
        stack.callback(stuck.close)
        assert status.startswith("HTTP/1.1 101"), status
        id_stuck = client_id(server, 2)
        b = stack.enter_context(ws_client(port))
        id_b = client_id(server, 3)
        ra, rb = Receiver(a), Receiver(b)
        pad = "p" * CHAT_SIZE

        def chat(ws, who):
            for n in range(CHAT_MESSAGES):
                ws.send(json.dumps({"from": who, "n": n, "pad": pad}))

        senders = [threading.Thread(target=chat, args=(a, "a"), daemon=True),
                   threading.Thread(target=chat, args=(b, "b"), daemon=True)]
        for t in senders:
            t.start()
        # The readers do not wait for the member that never reads: generous
        # timeouts, which only a room held for the --send-timeout comes near.
        got_b = [json.loads(m) for m in rb.wait(CHAT_MESSAGES, timeout=40)]
        got_a = [json.loads(m) for m in ra.wait(CHAT_MESSAGES, timeout=40)]
        assert [(m["from"], m["n"]) for m in got_b] == [("a", n) for n in range(CHAT_MESSAGES)], "b lost a's lines"
        assert [(m["from"], m["n"]) for m in got_a] == [("b", n) for n in range(CHAT_MESSAGES)], "a lost b's lines"
        for t in senders:
            t.join(10)
        # Dropped one way or the other (it cannot be told which: the kernel's
        # buffers decide whether it fell 16 MiB behind), with 1008 and its event.
        gone = [e for e in wait_events(server, "client_disconnected", 1, timeout=30)
                if e["$event"] == "client_disconnected"]
        assert [(e["id"], e["code"]) for e in gone] == [(id_stuck, 1008)], gone
        why = [e for e in events(server.err.data()) if e["$event"] in ("send_timeout", "relay_behind")]
        assert [e["id"] for e in why] == [id_stuck], why
        assert gone[0]["reason"] == {"send_timeout": "send timeout", "relay_behind": "fell behind the relay"}[why[0]["$event"]]
        assert server.proc.poll() is None
        assert {id_a, id_b}.isdisjoint({e["id"] for e in gone})


# -- 3. --exec: a bounded number of programs, 503 past it or when one cannot start ---------
# Was: 1,000 connections started ~1,000 programs (1.5 GB); a failed fork was
# answered 101 and closed.

ECHO = "while read -r line; do echo \"$line\"; done"


def test_200_connections_against_max_programs_5(spawn):
    server, port = listen(spawn, ["--events", "--exec", ECHO, "--max-programs", "5"])

    def attempt(_):
        return upgrade(port)

    with ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(attempt, range(200)))
    try:
        statuses = [status.split(" ")[1] if status else "none" for _, status in results]
        assert statuses.count("101") == 5 and statuses.count("503") == 195, sorted(set(statuses))
        assert len(children(server.proc.pid)) == 5, "at most --max-programs programs"
        refused = [e for e in wait_events(server, "client_refused", 195, timeout=15) if e["$event"] == "client_refused"]
        assert {e["status"] for e in refused} == {503}
        # The five are served by their own programs.
        for s, status in results:
            if status.endswith("101 Switching Protocols"):
                s.sendall(masked_text(b'{"hello":1}'))
                assert read_text_frame(s) == b'{"hello":1}'
    finally:
        for s, _ in results:
            s.close()
    # Their clients gone, the programs are reaped and the room is free again.
    wait_until(lambda: not children(server.proc.pid), what="every program reaped")
    s, status = upgrade(port)
    s.close()
    assert status == "HTTP/1.1 101 Switching Protocols"


@pytest.mark.needs("proc")
def test_a_program_that_cannot_start_is_a_503_not_a_101(spawn):
    """Out of descriptors (RLIMIT_NOFILE lowered under wspipe's feet): the
    client's socket is accepted, the program's pipes cannot be made."""
    server, port = listen(spawn, ["--events", "--exec", ECHO])
    pid = server.proc.pid
    open_fds = {int(fd) for fd in os.listdir(f"/proc/{pid}/fd")}
    first_free = next(fd for fd in range(len(open_fds) + 1) if fd not in open_fds)
    saved = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    # Exactly one descriptor free: the connection's socket.
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (first_free + 1, saved[1]))
    try:
        s, status = upgrade(port)
        s.close()
        assert status == "HTTP/1.1 503 Service Unavailable", status
        refused = [e for e in wait_events(server, "client_refused") if e["$event"] == "client_refused"]
        assert [e["status"] for e in refused] == [503]
        assert "Too many open files" in server.err.data().decode(), server.err.data()
        assert not events(server.err.data(), "client_connected")
    finally:
        resource.prlimit(pid, resource.RLIMIT_NOFILE, saved)
    s, status = upgrade(port)
    try:
        assert status == "HTTP/1.1 101 Switching Protocols", status
        s.sendall(masked_text(b'{"after":1}'))
        assert read_text_frame(s) == b'{"after":1}'
    finally:
        s.close()


# -- 4. the CGI environment ----------------------------------------------------------------
# Was: X_Forwarded_For: 6.6.6.6 became HTTP_X_FORWARDED_FOR ahead of the proxy's
# X-Forwarded-For; values with a bare CR or a NUL were accepted (HTTP_X_NUL cut short).

SHOW_XFF = 'printf \'{"xff":"%s","under":"%s"}\\n\' "$HTTP_X_FORWARDED_FOR" "$(env | grep -c 6.6.6)"; cat'


def test_header_names_with_underscores_are_left_out_of_the_environment(spawn):
    server, port = listen(spawn, ["-v", "--events", "--exec", SHOW_XFF])
    s, status = upgrade(port, b"X_Forwarded_For: 6.6.6.6\r\nX.Forwarded.For: 6.6.6.7\r\n"
                              b"X-Forwarded-For: 203.0.113.9\r\n")
    try:
        assert status == "HTTP/1.1 101 Switching Protocols", status
        assert json.loads(read_text_frame(s)) == {"xff": "203.0.113.9", "under": "0"}
    finally:
        s.close()
    server.wait_stderr(r"2 request header\(s\) left out of the program's environment .*X_Forwarded_For, X\.Forwarded\.For")


def test_header_values_with_cr_lf_or_nul_are_answered_400(spawn):
    server, port = listen(spawn, ["--events", "--exec", ECHO])
    # The last: an LF without its CR. A proxy in front that ends lines only
    # at CRLF passes it on inside X-A's value; taken as a line end, it would
    # give the program an X-Forwarded-For of the client's choosing.
    bad_heads = (b"X-A: a\rb\r\n", b"X-Nul: a\x00b\r\n", b"X-A: ab\r\r\n", b"X-A: a\nX-Forwarded-For: 6.6.6.6\r\n")
    for bad in bad_heads:
        s, status = upgrade(port, bad)
        s.close()
        assert status.startswith("HTTP/1.1 400 "), (bad, status)
    refused = [e for e in wait_events(server, "client_refused", len(bad_heads)) if e["$event"] == "client_refused"]
    assert [e["status"] for e in refused] == [400] * len(bad_heads)
    assert all("RFC 9110" in e["reason"] for e in refused), refused
    assert not children(server.proc.pid), "no program started for a refused request"
