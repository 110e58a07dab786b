"""Name resolution runs off the event loop (wspipe(1): OPTIONS, Connection),
and works in the static release executable.

A name server that answers (A records only) shows the resolver of the
statically linked C library really asks DNS and connects to its answer.
A name server that never answers: wspipe runs in its own mount namespace
(`unshare -m`) with /etc/resolv.conf bind-mounted to a file naming a UDP
socket on 127.0.0.x that this test binds and never reads from. The resolver
library's own time-out is set to 30 s, so a lookup that blocked the loop
would outlast every deadline below by far.
"""

from __future__ import annotations

import random
import signal
import socket
import subprocess
import time

import pytest

import struct
import threading

from helpers import WsProc, echo

NAME = "wspipe-resolver-test.example"


def _bind_nameserver(tmp_path):
    """(resolv.conf path, UDP socket bound to 127.0.0.x:53)."""
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -m is not permitted here (needs root or user namespaces)")
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(20):
        host = f"127.0.0.{random.randint(60, 250)}"
        try:
            sock.bind((host, 53))
            break
        except PermissionError:
            sock.close()
            pytest.skip("binding UDP port 53 needs root")
        except OSError:
            continue
    else:
        sock.close()
        pytest.skip("no free 127.0.0.x:53 for the silent name server")
    conf = tmp_path / "resolv.conf"
    conf.write_text(f"nameserver {host}\noptions timeout:30 attempts:1\n")
    return conf, sock


@pytest.fixture
def silent_nameserver(tmp_path):
    """(resolv.conf path, UDP socket) for a name server that never answers."""
    conf, sock = _bind_nameserver(tmp_path)
    yield conf, sock
    sock.close()


def _answer(query: bytes) -> bytes:
    """The reply to one query: 127.0.0.1 for an A question, no records otherwise."""
    qid, _flags, qdcount = struct.unpack("!HHH", query[:6])
    end = 12
    while query[end] != 0:
        end += 1 + query[end]
    question = query[12:end + 5]
    qtype = struct.unpack("!H", question[-4:-2])[0]
    answers = b""
    if qtype == 1:
        answers = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton("127.0.0.1")
    header = struct.pack("!HHHHHH", qid, 0x8180, qdcount, 1 if answers else 0, 0, 0)
    return header + question + answers


@pytest.fixture
def answering_nameserver(tmp_path):
    """(resolv.conf path, list of names asked) for a name server that answers every A query with 127.0.0.1."""
    conf, sock = _bind_nameserver(tmp_path)
    asked: list[bytes] = []
    sock.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                data, addr = sock.recvfrom(2048)
            except socket.timeout:
                continue
            except OSError:
                return
            asked.append(data)
            sock.sendto(_answer(data), addr)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield conf, asked
    stop.set()
    thread.join()
    sock.close()


def _spawn_in_namespace(wspipe_bin, conf, args, stdin: bytes = b""):
    script = 'conf=$1; shift; mount --bind "$conf" /etc/resolv.conf && exec "$@"'
    return WsProc(["unshare", "-m", "sh", "-c", script, "sh", str(conf), wspipe_bin, *args],
                  stdin=stdin, close_stdin=bool(stdin))


def _wait_for_query(sock, timeout=10.0):
    """The lookup has started once a query reaches the silent server."""
    sock.settimeout(timeout)
    try:
        data, _ = sock.recvfrom(2048)
    except socket.timeout:
        raise AssertionError(f"no DNS query reached the silent name server within {timeout}s") from None
    assert NAME.split(".")[0].encode() in data, data


def test_connect_timeout_covers_a_silent_name_server(wspipe_bin, silent_nameserver):
    conf, sock = silent_nameserver
    proc = _spawn_in_namespace(wspipe_bin, conf, ["--connect-timeout", "1s", f"ws://{NAME}:9/"])
    try:
        _wait_for_query(sock)
        started = time.monotonic()
        res = proc.finish(timeout=20)
        elapsed = time.monotonic() - started
    finally:
        proc.kill()
    assert res.code == 3, res
    assert "timed out connecting to" in res.stderr, res
    # Loose bound: the resolver itself would take 30 s.
    assert elapsed < 10, f"exited {elapsed:.1f}s after the query was sent"


def test_sigint_during_resolution_exits_130(wspipe_bin, silent_nameserver):
    conf, sock = silent_nameserver
    proc = _spawn_in_namespace(wspipe_bin, conf, ["--connect-timeout", "60s", f"ws://{NAME}:9/"])
    try:
        _wait_for_query(sock)
        proc.signal(signal.SIGINT)
        res = proc.finish(timeout=10)
    finally:
        proc.kill()
    assert res.code == 130, res



def test_a_name_resolved_by_dns_connects(wspipe_bin, answering_nameserver, ws_server):
    conf, asked = answering_nameserver
    srv = ws_server(echo)
    proc = _spawn_in_namespace(wspipe_bin, conf, ["-q", srv.url(host=NAME)], stdin=b'{"via":"dns"}\n')
    res = proc.finish(timeout=20)
    assert res.code == 0, res
    assert res.stdout == b'{"via":"dns"}\n', res
    assert any(NAME.split(".")[0].encode() in query for query in asked), asked


def _is_static(path: str) -> bool:
    """No program interpreter: the executable needs no shared library."""
    with open(path, "rb") as f:
        return b"ld-linux" not in f.read(1 << 16)


def _spawn_without_libraries(wspipe_bin, tmp_path, conf, args, stdin: bytes):
    """wspipe in a mount namespace with /usr/lib (every shared library and
    every libnss_*.so.2) hidden under an empty tmpfs, /etc/hosts naming
    HOSTS_NAME, and an nsswitch.conf whose hosts line starts with a source
    that is not built into the C library."""
    hosts = tmp_path / "hosts"
    hosts.write_text(f"127.0.0.1 localhost {HOSTS_NAME}\n")
    nsswitch = tmp_path / "nsswitch.conf"
    nsswitch.write_text("hosts: myhostname files dns\n")
    script = ('conf=$1 ns=$2 hosts=$3; shift 3; mount --bind "$conf" /etc/resolv.conf'
              ' && mount --bind "$ns" /etc/nsswitch.conf && mount --bind "$hosts" /etc/hosts'
              ' && mount -t tmpfs none /usr/lib && exec "$@"')
    return WsProc(["unshare", "-m", "sh", "-c", script, "sh", str(conf), str(nsswitch), str(hosts), wspipe_bin, *args],
                  stdin=stdin, close_stdin=True)


HOSTS_NAME = "wspipe-hosts-file-test.example"


def test_names_resolve_with_no_system_library(wspipe_bin, answering_nameserver, ws_server, tmp_path):
    """What README (Install) and Sources/README.md say of the
    static executable: /etc/hosts and DNS (nsswitch's files and dns) are
    answered by the C library inside it, with no libnss_*.so.2 of the
    system; a source named before them that the system does not have
    (myhostname, here: /usr/lib is empty) is skipped."""
    if not _is_static(wspipe_bin):
        pytest.skip("not the static release executable")
    conf, asked = answering_nameserver
    srv = ws_server(echo)
    for name, via in ((HOSTS_NAME, "hosts"), (NAME, "dns")):
        res = _spawn_without_libraries(wspipe_bin, tmp_path, conf, ["-q", srv.url(host=name)],
                                       stdin=f'{{"via":"{via}"}}\n'.encode()).finish(timeout=20)
        assert res.code == 0, res
        assert res.stdout == f'{{"via":"{via}"}}\n'.encode(), res
    assert not any(HOSTS_NAME.split(".")[0].encode() in q for q in asked), "the hosts file answered, not DNS"
    assert any(NAME.split(".")[0].encode() in q for q in asked), asked
