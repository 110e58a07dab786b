"""The programs wspipe starts (a `|COMMAND` route, an --exec program, a
--header-command): none gets a non-blocking descriptor, so each can write
as much as it likes to the stdout and stderr it shares with wspipe (here
pipes, which wspipe makes non-blocking for itself); each leads a process
group that is signalled and ended as a whole; and nothing any of them
started outlives wspipe, not even after kill -9 (wspipe(1): ROUTING;
OPTIONS, Server mode; OPTIONS, Connection)."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

import helpers
from test_exec import wait_until
from test_server_mode import Receiver, listen, ws_client

MIB = 1 << 20
# dd writes 1 MiB of NUL bytes to the fd named, and says how it ended.
DD = "{{ dd if=/dev/zero bs=65536 count=16 2>/dev/null; }} >&{fd}; echo \"dd exit $?\" >&2"


def processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            continue
        found[int(entry)] = (int(stat[stat.rindex(")") + 2:].split()[1]), cmdline)
    return found


def descendants(pid: int) -> set[int]:
    table = processes()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, (parent, _) in table.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    """Those still running (a zombie has exited, its parent just has not reaped it)."""
    running = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] != "Z":
            running.add(pid)
    return running


def sleeping(*seconds: str) -> set[int]:
    """The `sleep SECONDS` processes running (times no other test uses)."""
    wanted = {f"sleep {s}" for s in seconds}
    return alive({pid for pid, (_, cmdline) in processes().items() if cmdline in wanted})


# --- a blocking stdout and stderr for every child ---------------------------------


def test_route_command_writes_a_mebibyte_to_our_stdout_and_stderr(run, ws_server):
    srv = ws_server(helpers.send_then_close(['{"type":"big"}', '{"type":"other"}']))
    command = "cat >/dev/null; " + DD.format(fd=1) + "; " + DD.format(fd=2)
    res = run(["--route", f"big=|{command}", srv.url()], timeout=30)
    assert res.code == 0, res
    assert res.stderr.count("dd exit 0") == 2, res
    assert res.stdout.count(b"\0") == MIB, "every byte the command wrote to stdout"
    assert res.stdout.replace(b"\0", b"") == b'{"type":"other"}\n'
    assert res.stderr.count("\0") == MIB, "every byte the command wrote to stderr"


def test_exec_program_writes_a_mebibyte_to_its_stdout_and_our_stderr(spawn):
    # ~1 MiB of 1012-byte JSON lines through dd (its own stdout pipe), then
    # 1 MiB of NULs on stderr (shared with wspipe).
    lines = "awk 'BEGIN { s = sprintf(\"%1000s\", \"\"); gsub(/ /, \"a\", s); " \
            "for (i = 0; i < 1036; i++) print \"{\\\"pad\\\":\\\"\" s \"\\\"}\" }'"
    program = f"{lines} | dd bs=65536 2>/dev/null; echo \"dd exit $?\" >&2; {DD.format(fd=2)}; echo '{{\"done\":1}}'"
    server, port = listen(spawn, ["--exec", program])
    with ws_client(port) as ws:
        received = Receiver(ws).wait(1037, timeout=30)
    assert [json.loads(m) for m in received[-1:]] == [{"done": 1}]
    assert all(len(m) == 1010 for m in received[:-1]), "each line one message"
    server.wait_stderr(r"(?s)dd exit 0.*dd exit 0")
    assert server.err.data().count(b"\0") == MIB, "every byte the program wrote to stderr"


def test_header_command_writes_a_mebibyte_to_our_stderr(run, ws_server):
    async def handler(ws, log):
        await ws.send('{"ok":"%s"}' % ws.request.headers.get("X-Ok"))
        await ws.wait_closed()

    srv = ws_server(handler)
    res = run(["-U", "-1", "--header-command", DD.format(fd=2) + "; echo 'X-Ok: 1'", srv.url()], timeout=30)
    assert res.code == 0, res
    assert res.lines == ['{"ok":"1"}']
    assert "dd exit 0" in res.stderr, res
    assert res.stderr.count("\0") == MIB


# --- process groups ---------------------------------------------------------------


@pytest.mark.needs("proc")
def test_header_command_output_ends_at_its_exit(run, ws_server):
    """A background process holding the command's stdout used to hold up
    every attempt until --connect-timeout; it is killed with the command's
    process group."""
    async def handler(ws, log):
        await ws.send('{"ok":"%s"}' % ws.request.headers.get("X-Ok"))
        await ws.wait_closed()

    srv = ws_server(handler)
    start = time.monotonic()
    res = run(["-U", "-1", "--connect-timeout", "20s", "--header-command", "sleep 31.4159 & echo 'X-Ok: 1'",
               srv.url()], timeout=30)
    assert res.code == 0, res
    assert res.lines == ['{"ok":"1"}']
    assert time.monotonic() - start < 15, "did not wait for the background process"
    wait_until(lambda: not sleeping("31.4159"), what="the background process killed")


@pytest.mark.needs("proc")
def test_route_command_stopped_with_its_whole_group(run, ws_server):
    """A route command still running --close-timeout after its input ended
    gets SIGTERM, and so does everything it started (the shell's children)."""
    srv = ws_server(helpers.send_then_close(['{"type":"x"}']))
    res = run(["--close-timeout", "300ms", "--route", "x=|sleep 41.71 & sleep 41.72", srv.url()], timeout=30)
    assert res.code == 1, res
    assert "stopped with SIGTERM" in res.stderr, res
    wait_until(lambda: not sleeping("41.71", "41.72"), what="the command's process group stopped")


@pytest.mark.needs("proc")
def test_exec_programs_background_children_end_with_it(spawn):
    server, port = listen(spawn, ["--exec", "sleep 52.61 & echo '{\"hi\":1}'; read -r line"])
    with ws_client(port) as ws:
        assert json.loads(ws.recv(timeout=10)) == {"hi": 1}
        assert sleeping("52.61"), "the background child runs while its program does"
    wait_until(lambda: not sleeping("52.61"), what="the program's background child ended with it")
    assert server.proc.poll() is None, "the server serves on"


@pytest.mark.needs("proc")
def test_nothing_outlives_wspipe_killed_with_sigkill(spawn, ws_server):
    """kill -9 gives wspipe no chance to clean up: its route commands, its
    --exec programs and what they started in the background still end."""
    srv = ws_server(helpers.send_then_record(['{"type":"x"}']))
    client = spawn(["--route", "x=|sleep 62.71 & sleep 62.72", srv.url()], stdin=b"", close_stdin=False)
    server, port = listen(spawn, ["--exec", "sleep 62.73 & sleep 62.74"])
    with ws_client(port):
        markers = ("62.71", "62.72", "62.73", "62.74")
        wait_until(lambda: len(sleeping(*markers)) == 4, what="every program started")
        tree = descendants(client.proc.pid) | descendants(server.proc.pid)
        assert len(alive(tree)) >= 6, "the shells and the four sleeps"
        for proc in (client, server):
            proc.proc.send_signal(signal.SIGKILL)
            proc.proc.wait(5)
    wait_until(lambda: not alive(tree), what="every process wspipe started ended after kill -9")
    assert not sleeping(*markers)
