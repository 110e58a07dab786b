"""Issue 33 item 10: what a newcomer ran into, each against real peers.

- `--answer` could answer neither `{"ping":N}` (a type that is no string)
  nor a plain text ping (`--answer '$text=...'` was accepted and never
  fired): both work now (`$text`, `$binary`, a number's text, `.KEYPATH`);
- templates take environment variables: `${env:NAME}`, as a JSON string;
- `-u user:pass` said "URL must start with ws://" without naming --user;
- a 401 asking for Basic got the Bearer hint;
- `-6` against a name with IPv4 addresses only said "Name or service not known";
- a client --replay read no stdin and said nothing of its lines;
- --wrap sent empty lines as empty messages;
- Ctrl-C (SIGINT) closed without a status code where Ctrl-D sends 1000;
- `--listen 8080` binds loopback only: --help says so, with 0.0.0.0;
- a client of --listen that came after stdin ended waited for lines that
  would never come, unsaid.
(`/show N` under `/compact` is in test_interactive_edges.py.)"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import shutil
import subprocess

import pytest
from websockets.sync.client import connect

import helpers
from helpers import WsProc, events, wait_events


def pinger(messages):
    """Sends each message, then waits for an answer to it; logs the answers."""
    async def handler(ws, log):
        for message in messages:
            await ws.send(message)
            log.put("answer", await asyncio.wait_for(ws.recv(), 5))
        await ws.close()
    return handler


def answers(srv, count):
    return [srv.log.get()[1] for _ in range(count)]


def test_answer_a_ping_whose_type_is_a_number_or_a_key(run, ws_server):
    srv = ws_server(pinger(['{"ping":1700000001}', '{"op":1,"d":41}', '{"ping":1700000002}']))
    res = run(["-n", "--type-key", "op", "--answer", '.ping={"pong":${.ping}}',
               "--answer", '1={"op":1,"d":${.d}}', srv.url()], stdin=b"")
    assert answers(srv, 3) == ['{"pong":1700000001}', '{"op":1,"d":41}', '{"pong":1700000002}']
    assert res.code == 0, res


def test_answer_a_plain_text_ping_and_a_binary_one(run, ws_server):
    srv = ws_server(pinger(["ping", b"\x01", "ping"]))
    res = run(["-n", "--answer", '$text={"$text":"pong"}', "--answer", '$binary={"$binary":"Ag=="}', srv.url()],
              stdin=b"")
    assert answers(srv, 3) == ["pong", b"\x02", "pong"]
    assert res.code == 0, res


def test_answer_a_key_path_that_is_malformed_is_refused(run):
    res = run(["--answer", '.a..b={"x":1}', "ws://127.0.0.1:9/"])
    assert res.code == 2 and "--answer" in res.stderr and "key path" in res.stderr, res


def test_templates_take_environment_variables_as_json_strings(run, ws_server):
    srv = ws_server(helpers.record)
    token = 'tok"en\\with\tescapes'
    res = run(["--on-connect", '{"type":"auth","token":${env:WSPIPE_TEST_TOKEN}}', "--linger", "0", srv.url()],
              stdin=b"", env={"WSPIPE_TEST_TOKEN": token})
    assert res.code == 0, res
    messages, _ = helpers.received_messages(srv.log)
    assert [json.loads(m) for m in messages] == [{"type": "auth", "token": token}]


def test_an_unset_environment_variable_is_refused_at_start(run):
    res = run(["--heartbeat", '{"t":${env:WSPIPE_SURELY_UNSET}}', "ws://127.0.0.1:9/"])
    assert res.code == 2, res
    assert "WSPIPE_SURELY_UNSET is not set" in res.stderr, res


@pytest.mark.parametrize("args", [["-u", "alice:s3cret", "ws://127.0.0.1:9/"],
                                  ["ws://127.0.0.1:9/", "-u", "alice:s3cret"]])
def test_dash_u_with_credentials_points_to_user(run, args):
    res = run(args)
    assert res.code == 2, res
    assert "--user" in res.stderr and "websocat" in res.stderr, res


def test_a_401_asking_for_basic_suggests_user(run, ws_server):
    def process_request(connection, request):
        response = connection.respond(401, "who are you?\n")
        response.headers["WWW-Authenticate"] = 'Basic realm="chat"'
        return response

    srv = ws_server(helpers.echo, process_request=process_request)
    res = run([srv.url()], stdin=b'{"n":1}\n')
    assert res.code == 4, res
    assert "--user" in res.stderr and "Bearer" not in res.stderr, res


def in_own_hosts(hosts_text, tmp_path, argv):
    """argv run with /etc/hosts replaced by hosts_text (its own mount namespace)."""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode:
        pytest.skip("unshare -m is not permitted here (needs root or user namespaces)")
    hosts = tmp_path / "hosts"
    hosts.write_text(hosts_text)
    return WsProc(["unshare", "-m", "sh", "-c", f'mount --bind "{hosts}" /etc/hosts && exec "$@"', "sh", *argv])


def test_dash_6_against_an_ipv4_only_name_says_so(wspipe_bin, tmp_path):
    res = in_own_hosts("127.0.0.1 v4only.test\n", tmp_path,
                       [wspipe_bin, "-6", "ws://v4only.test:9/"]).finish()
    assert res.code == 3, res
    assert "v4only.test has no IPv6 address" in res.stderr and "-6" in res.stderr, res


def test_a_client_replay_reports_the_stdin_lines_it_did_not_send(spawn, ws_server, tmp_path):
    srv = ws_server(helpers.record)
    rec = tmp_path / "r.ndjson"
    rec.write_text('{"t_ms":0,"dir":"out","conn":1,"msg":{"replayed":1}}\n')
    typed = tmp_path / "typed"
    typed.write_bytes(b'{"typed":1}\n{"typed":2}\n')
    with open(typed, "rb") as f:
        res = spawn(["--replay", str(rec), "--linger", "0", srv.url()], stdin=None, stdin_fd=f.fileno()).finish()
    messages, _ = helpers.received_messages(srv.log)
    assert messages == ['{"replayed":1}']
    assert res.code == 6, res
    assert "2 message(s) (stdin:1-2) not sent" in res.stderr and "--replay" in res.stderr, res
    # Nothing on stdin: nothing to say.
    srv = ws_server(helpers.record)
    res = spawn(["--replay", str(rec), "--linger", "0", srv.url()], stdin=b"").finish()
    assert res.code == 0 and res.stderr == "", res


def test_a_client_replay_ends_with_its_recording_while_stdin_stays_open(spawn, ws_server, tmp_path):
    """The recording is the run: a stdin pipe nobody closes does not hold it
    open, and the lines already written to it are reported, not sent."""
    srv = ws_server(helpers.record)
    rec = tmp_path / "r.ndjson"
    rec.write_text('{"t_ms":0,"dir":"out","conn":1,"msg":{"replayed":1}}\n')
    r, w = os.pipe()
    try:
        os.write(w, b'{"early":1}\n')
        proc = spawn(["--replay", str(rec), "--linger", "0", srv.url()], stdin=None, stdin_fd=r)
        os.close(r)
        res = proc.finish()
    finally:
        os.close(w)
    messages, _ = helpers.received_messages(srv.log)
    assert messages == ['{"replayed":1}']
    assert res.code == 6, res
    assert "1 message(s) (stdin:1) not sent" in res.stderr, res


def test_wrap_skips_empty_lines(run, ws_server):
    srv = ws_server(helpers.record)
    res = run(["--wrap", '{"text":${line}}', "--linger", "0", srv.url()], stdin=b"one\n\ntwo\n\n\n")
    assert res.code == 0, res
    messages, _ = helpers.received_messages(srv.log)
    assert [json.loads(m) for m in messages] == [{"text": "one"}, {"text": "two"}]


def test_sigint_closes_with_a_status_code(spawn, ws_server):
    srv = ws_server(helpers.record)
    proc = spawn(["--events", srv.url()], stdin=b'{"n":1}\n', close_stdin=False)
    wait_events(proc, "connected")
    assert srv.log.get()[0] == "request"
    assert srv.log.get() == ("msg", '{"n":1}')
    proc.signal(signal.SIGINT)
    res = proc.finish()
    assert res.code == 130, res
    _, closed = helpers.received_messages(srv.log)
    assert closed[1] in (1000, 1001), closed


def test_help_says_a_bare_port_is_loopback_only(run):
    # The short --help, one line an option.
    res = run(["--help"])
    row = next(line for line in res.stdout.decode().splitlines() if line.strip().startswith("--listen <"))
    assert "bare PORT: 127.0.0.1 only" in row, row
    # The whole sentence, with the form that exposes the port.
    res = run(["--help", "server"])
    lines = res.stdout.decode().splitlines()
    start = next(n for n, line in enumerate(lines) if line.strip().startswith("--listen <"))
    block = " ".join(lines[start:start + 4])
    assert "a bare PORT is 127.0.0.1" in block and "0.0.0.0:PORT" in block, block


def test_a_client_after_stdin_ended_is_told_it_gets_no_lines(spawn):
    server = spawn(["-n", "-v", "--listen", "127.0.0.1:0"], stdin=b'{"canned":1}\n', close_stdin=False)
    port = int(server.wait_stderr(r"listening on \S+:(\d+)").group(1))
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=5) as first:
        assert first.recv(timeout=5) == '{"canned":1}'
        server.close_stdin()
        server.wait_stderr("stdin ended")
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=5) as second:
        server.wait_stderr(r"client 2 .*stdin ended.*--on-connect")
        second.send('{"from":"second"}')
        server.wait_stdout_lines(1)
    server.signal(signal.SIGTERM)
    server.finish()
