"""Happy Eyeballs (RFC 8305) and -4/-6 (issue 25), in network namespaces.

A test host (namespace H) and a client (namespace C) share a veth pair with
an IPv4 and an IPv6 subnet. H's route back to the client's IPv6 address is
a blackhole (`ip -6 route add blackhole`): the client's SYN to H's IPv6
address arrives, H's answer is thrown away, so that connect neither
succeeds nor fails; the neighbour entries are fixed, so nothing else (a
failed neighbour discovery) gives it away early. IPv4 works. The name
he-test.example resolves to H's IPv6 address first (the client's hosts
file, bind-mounted inside its own mount namespace as in test_resolver), so
a client that tried the addresses one at a time would wait out
--connect-timeout on IPv6; racing them connects over IPv4 after 250 ms.

Skipped when namespaces cannot be made (not root, no `ip`, no veth)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

import pytest

from helpers import WsProc

NAME = "he-test.example"
CONNECT_TIMEOUT = 30   # what a one-at-a-time client would wait for


def sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=20)


@pytest.fixture(scope="module")
def namespaces(tmp_path_factory):
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("network namespaces need root and iproute2's ip")
    tag = f"{os.getpid() % 100000}"
    host, client = f"wsp-he-h{tag}", f"wsp-he-c{tag}"
    v4, v6 = f"10.{200 + os.getpid() % 50}.{os.getpid() % 250}", "fd00:5e:7e57"
    try:
        sh("ip", "netns", "add", host)
    except (subprocess.CalledProcessError, OSError) as error:
        pytest.skip(f"ip netns add failed: {getattr(error, 'stderr', b'').decode(errors='replace').strip()}")
    try:
        sh("ip", "netns", "add", client)
        sh("ip", "-n", client, "link", "add", "c0", "type", "veth", "peer", "name", "h0", "netns", host)
        for ns, dev, last in ((host, "h0", "1"), (client, "c0", "2")):
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "link", "set", dev, "up")
            sh("ip", "-n", ns, "addr", "add", f"{v4}.{last}/24", "dev", dev)
            sh("ip", "-n", ns, "-6", "addr", "add", f"{v6}::{last}/64", "dev", dev, "nodad")
        mac = {ns: json.loads(subprocess.run(["ip", "-n", ns, "-j", "link", "show", dev], check=True,
                                             capture_output=True).stdout)[0]["address"]
               for ns, dev in ((host, "h0"), (client, "c0"))}
        sh("ip", "-n", client, "-6", "neigh", "replace", f"{v6}::1", "lladdr", mac[host], "dev", "c0", "nud", "permanent")
        sh("ip", "-n", host, "-6", "neigh", "replace", f"{v6}::2", "lladdr", mac[client], "dev", "h0", "nud", "permanent")
        # The test host's IPv6 answers to the client go nowhere.
        sh("ip", "-n", host, "-6", "route", "add", "blackhole", f"{v6}::2/128")
    except (subprocess.CalledProcessError, OSError) as error:
        for ns in (host, client):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        pytest.skip(f"setting up the namespaces failed: {getattr(error, 'stderr', b'')!r}")
    hosts = tmp_path_factory.mktemp("he") / "hosts"
    # IPv6 first, as RFC 6724 sorts a global IPv6 destination with a source address.
    hosts.write_text(f"127.0.0.1 localhost\n{v6}::1 {NAME}\n{v4}.1 {NAME}\n")
    yield {"host": host, "client": client, "v4": f"{v4}.1", "v6": f"{v6}::1", "hosts": hosts}
    for ns in (host, client):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


@pytest.fixture
def test_host(namespaces, wspipe_bin):
    """wspipe --listen in H on every address (IPv4 and IPv6): it greets each client."""
    port = 9810
    server = WsProc(["ip", "netns", "exec", namespaces["host"], wspipe_bin, "--listen", f"[::]:{port}",
                     "--exec", 'echo \'{"hello":"from the test host"}\'; cat >/dev/null'], stdin=b"")
    try:
        # Up once something accepts on IPv4 (checked from inside C).
        deadline = time.monotonic() + 10
        while subprocess.run(["ip", "netns", "exec", namespaces["client"], "bash", "-c",
                              f"exec 3<>/dev/tcp/{namespaces['v4']}/{port}"], capture_output=True).returncode != 0:
            assert time.monotonic() < deadline, f"the test host did not listen: {server.err.data()!r}"
            time.sleep(0.05)
        yield port
    finally:
        server.kill()


def client(namespaces, wspipe_bin, args):
    """wspipe in C, with the test's hosts file."""
    script = 'hosts=$1; shift; mount --bind "$hosts" /etc/hosts && exec "$@"'
    return WsProc(["ip", "netns", "exec", namespaces["client"], "sh", "-c", script, "sh",
                   str(namespaces["hosts"]), wspipe_bin, *args], stdin=b"")


def test_the_name_resolves_to_ipv6_first(namespaces):
    script = 'mount --bind "$1" /etc/hosts && getent ahosts ' + NAME
    out = subprocess.run(["ip", "netns", "exec", namespaces["client"], "sh", "-c", script, "sh",
                          str(namespaces["hosts"])], capture_output=True, text=True, timeout=20).stdout
    assert out.split()[0] == namespaces["v6"], out


def test_an_ipv6_blackhole_costs_the_head_start_not_the_timeout(namespaces, wspipe_bin, test_host):
    started = time.monotonic()
    proc = client(namespaces, wspipe_bin, ["-U", "-1", "--connect-timeout", f"{CONNECT_TIMEOUT}s",
                                           "-w", "%{remote_ip} %{time_connect}\\n", f"ws://{NAME}:{test_host}/"])
    res = proc.finish(timeout=CONNECT_TIMEOUT + 10)
    elapsed = time.monotonic() - started
    assert res.code == 0, res
    assert res.lines[0] == '{"hello":"from the test host"}', res
    remote, time_connect = res.lines[1].split()
    assert remote == namespaces["v4"], res
    # Well under the connect timeout a one-at-a-time client would wait on IPv6 (it
    # is 0.25 s plus the connection; the bound is loose for a loaded machine).
    assert float(time_connect) < CONNECT_TIMEOUT / 3, res
    assert elapsed < CONNECT_TIMEOUT / 2, f"took {elapsed:.1f}s"


def test_dash_4_goes_straight_to_ipv4(namespaces, wspipe_bin, test_host):
    proc = client(namespaces, wspipe_bin, ["-4", "-U", "-1", "--connect-timeout", f"{CONNECT_TIMEOUT}s",
                                           "-w", "%{remote_ip}\\n", f"ws://{NAME}:{test_host}/"])
    res = proc.finish(timeout=CONNECT_TIMEOUT + 10)
    assert res.code == 0, res
    assert res.lines[1] == namespaces["v4"], res


def test_dash_6_keeps_to_the_blackholed_ipv6(namespaces, wspipe_bin, test_host):
    proc = client(namespaces, wspipe_bin, ["-6", "-U", "-1", "--connect-timeout", "1s", f"ws://{NAME}:{test_host}/"])
    res = proc.finish(timeout=20)
    assert res.code == 3, res
    assert "timed out connecting" in res.stderr, res
