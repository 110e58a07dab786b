"""Name resolution runs off the event loop (wspipe(1): OPTIONS, Connection).

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

from helpers import WsProc

NAME = "wspipe-resolver-test.example"


@pytest.fixture
def silent_nameserver(tmp_path):
    """(resolv.conf path, UDP socket) for a name server that never answers."""
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
    yield conf, sock
    sock.close()


def _spawn_in_namespace(wspipe_bin, conf, args):
    script = 'conf=$1; shift; mount --bind "$conf" /etc/resolv.conf && exec "$@"'
    return WsProc(["unshare", "-m", "sh", "-c", script, "sh", str(conf), wspipe_bin, *args],
                  stdin=b"", close_stdin=False)


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

