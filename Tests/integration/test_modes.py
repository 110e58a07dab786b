"""Each flag works in the modes it names and is refused in the others
(issue 20): every flag of the table tried in client and server mode, the
server's own pings counted by a raw client, -H in the 101, and an --exec
program that prints plain text."""

from __future__ import annotations

import os
import re
import struct
import time

import pytest

import helpers
from helpers import events, wait_events
from peers.raw_peer import OP_CLOSE, OP_PING, OP_PONG, OP_TEXT, RawConn, frame
from test_server_mode import listen, raw_client

# A value for each flag; {pem} and {file} are replaced by files the test makes.
SAMPLES = {
    "header": ["-H", "X-A: 1"], "header-file": ["--header-file", "{file}"],
    "header-command": ["--header-command", "echo X-T: 1"], "origin": ["--origin", "http://o.example"],
    "user-agent": ["--user-agent", "ua/2"], "protocol": ["--protocol", "chat"],
    "connect-timeout": ["--connect-timeout", "3s"], "proxy": ["--proxy", "socks5h://127.0.0.1:9"],
    "noproxy": ["--noproxy", "localhost"], "unix-socket": ["--unix-socket", "/nonexistent.sock"],
    "max-message-size": ["--max-message-size", "1K"], "compress": ["--compress"], "insecure": ["-k"],
    "cacert": ["--cacert", "{pem}", "--cert", "{pem}", "--key", "{pem}"], "cert": ["--cert", "{pem}", "--key", "{pem}"], "key": ["--cert", "{pem}", "--key", "{pem}"],
    "text": ["-t"], "binary": ["-b"], "nul": ["-0"], "no-line": ["--no-line"],
    "binary-output": ["--binary-output", "base64"], "codec": ["--codec", "msgpack"],
    "lenient": ["--lenient"], "strict": ["--strict"],
    "type-key": ["--type-key", "kind"], "route": ["--route", "$event=stdout"], "route-errors": ["--route-errors", "ignore"],
    "no-close": ["-n"], "one-message": ["-1"], "max-messages": ["--max-messages", "3"], "unidirectional": ["-u"],
    "unidirectional-reverse": ["-U"], "close-timeout": ["--close-timeout", "5s"], "linger": ["--linger", "3s"],
    "reply": ["--reply", "id"], "reply-match": ["--reply-match", "type=result", "--reply", "id"],
    "until": ["--until", "type=done"], "idle-timeout": ["--idle-timeout", "5s"],
    "rate": ["--rate", "10/s"], "close-code": ["--close-code", "4000"], "ping-interval": ["--ping-interval", "5s"],
    "ping-timeout": ["--ping-timeout", "2s", "--ping-interval", "5s"], "backoff": ["--backoff", "2s"],
    "jitter": ["--jitter", "0.5"], "max-retries": ["--max-retries", "4"], "no-reconnect": ["--no-reconnect"],
    "wait": ["--wait", "--max-retries", "1"], "queue-limit": ["--queue-limit", "1K"], "on-connect": ["--on-connect", "{}"],
    "on-connect-file": ["--on-connect-file", "{json}"], "on-reconnect": ["--on-reconnect", "{}"],
    "capture": ["--capture", "a=b"], "ack": ["--ack", "seq"], "ack-timeout": ["--ack-timeout", "1s", "--ack", "seq"],
    "once": ["--once"], "relay": ["--relay"], "tag": ["--tag"], "send-timeout": ["--send-timeout", "2s"],
    "max-clients": ["--max-clients", "3"], "allow-origin": ["--allow-origin", "https://o.example"],
    "events": ["--events"], "stats": ["--stats"], "trace": ["--trace"], "verbose": ["-v"], "quiet": ["-q"],
    "exec": ["--exec", "cat"], "location": ["-L"], "max-redirs": ["--max-redirs", "3", "-L"],
    "location-downgrade": ["--location-downgrade", "-L"], "cookie": ["--cookie", "sid=1"],
    "cookie-jar": ["-c", "{jar}"], "user": ["--user", "ann:pw"], "user-file": ["--user-file", "{file}"],
    "ipv4": ["-4"], "ipv6": ["-6"], "write-out": ["-w", "%{json}"], "max-programs": ["--max-programs", "3", "--exec", "cat"],
    "proxy-user": ["--proxy-user", "u:p", "--proxy", "http://127.0.0.1:9"],
    "proxy-user-file": ["--proxy-user-file", "{file}", "--proxy", "http://127.0.0.1:9"],
    "history-size": ["--history-size", "1M"], "no-status-line": ["--no-status-line"],
    "answer": ["--answer", 'ping={"type":"pong"}'], "heartbeat": ["--heartbeat", "{}"],
    "heartbeat-interval": ["--heartbeat-interval", "5s", "--heartbeat", "{}"],
    "heartbeat-timeout": ["--heartbeat-timeout", "5s"], "wrap": ["--wrap", '{"t":${line}}'],
    "record": ["--record", "{record}"], "replay": ["--replay", "{recording}"],
    "replay-speed": ["--replay-speed", "2", "--replay", "{recording}"],
    "check-timeout": ["--check-timeout", "2s"], "check-settle": ["--check-settle", "1s"],
    "ignore": ["--ignore", "a.*.b"], "check-order": ["--check-order", "any"], "allow-extra": ["--allow-extra", "hb"],
    "junit": ["--junit", "{record}"], "repeat": ["--repeat", "2"], "max-reply-p99": ["--max-reply-p99", "1s"],
    "har-credentials": ["--har-credentials", "--replay", "{har}"],
    "config": ["--config", "{conf}"], "no-config": ["--no-config"], "profile": ["--profile", "p", "-K", "{conf}"],
    "keylog": ["--keylog", "{keys}"],
    "socketio": ["--socketio"], "namespace": ["--namespace", "/chat", "--socketio"],
    "sio-auth": ["--sio-auth", '{"token":"t"}', "--socketio"],
}
SKIP = {"help", "version", "generate", "listen", "interactive", "check"}


def man_modes(wspipe_bin) -> dict[str, str]:
    """Each option's mode sentence from the man page (generated from the
    table): "" for every mode."""
    man = os.popen(f"{wspipe_bin} --generate man").read()
    modes = {}
    for entry in man.split("\n.TP\n")[1:]:
        m = re.match(r"(?:\\fB\\-(\w)\\fR, )?\\fB\\-\\-((?:[a-z0-9]|\\-)+)\\fR", entry)
        if not m:
            continue
        name = m.group(2).replace("\\-", "-")
        said = re.search(r"\n(Client mode[^\n]*only[^\n]*|Server mode only[^\n]*|Needs \\fB\\-\\-listen\\fR\.|"
                         r"Needs \\fB\\-\\-check\\fR\.|Interactive mode only[^\n]*|Refused [^\n]*)(?:\n|$)", entry)
        modes[name] = said.group(1) if said else ""
    return modes


def test_every_flag_is_refused_or_accepted_in_both_modes_as_the_table_says(wspipe_bin, spawn, tmp_path):
    """The man page says where each flag is refused (it is generated from the
    table); the binary must agree: exit 2 naming the flag and the mode, or
    accepted (a client then fails to connect to a closed port, a server
    listens). That the flags accepted have an effect is FlagModesTests'."""
    pem = tmp_path / "x.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\n")
    headers = tmp_path / "file"
    headers.write_text("X-File: 1\n")
    messages = tmp_path / "messages"
    messages.write_text('{"hello":1}\n')
    recording = tmp_path / "recording.ndjson"
    recording.write_text('{"t_ms":1,"dir":"in","conn":1,"msg":{}}\n{"t_ms":2,"dir":"out","conn":1,"msg":{}}\n')
    har = tmp_path / "session.har"
    har.write_text('{"log":{"entries":[{"request":{"url":"ws://127.0.0.1:9/","headers":[]},'
                   '"_webSocketMessages":[{"type":"send","time":1,"opcode":1,"data":"{}"}]}]}}')
    conf = tmp_path / "wspipe.conf"
    conf.write_text("[p]\nurl = ws://127.0.0.1:9/\n")
    modes = man_modes(wspipe_bin)
    assert len(modes) >= 65, modes
    closed = f"ws://127.0.0.1:{helpers.free_port()}/"
    for name, said in sorted(modes.items()):
        if name in SKIP:
            continue
        assert name in SAMPLES, f"--{name}: add a sample to test_modes.py"
        args = [a.replace("{pem}", str(pem)).replace("{file}", str(headers)).replace("{jar}", str(tmp_path / "jar"))
                .replace("{json}", str(messages)).replace("{recording}", str(recording))
                .replace("{record}", str(tmp_path / "record.ndjson")).replace("{har}", str(har))
                .replace("{conf}", str(conf)).replace("{keys}", str(tmp_path / "keys.log"))
                for a in SAMPLES[name]]
        client_ok = said == "" or said.startswith(("Client", "Refused"))
        server_ok = said == "" or said.startswith(("Server", "Needs \\fB\\-\\-listen", "Refused"))
        res = spawn([*args, closed], stdin=b"").finish(20)
        if said.startswith("Needs \\fB\\-\\-check"):
            # The flags of --check alone (CheckFlagsTests and test_check.py try them with it).
            assert res.code == 2 and f"--{name} requires --check" in res.stderr, f"--{name}: {res}"
            res = spawn(["--listen", f"127.0.0.1:{helpers.free_port()}", *args], stdin=b"").finish(10)
            assert res.code == 2 and f"--{name} requires --check" in res.stderr, f"--{name}: {res}"
            continue
        if client_ok:
            assert res.code != 2, f"--{name} refused in client mode: {res}"
        elif said.startswith("Interactive"):
            # Here stdin and stdout are pipes: a client, not the interactive mode.
            assert res.code == 2 and f"--{name} works in interactive mode only" in res.stderr, f"--{name}: {res}"
        else:
            assert res.code == 2 and f"--{name}" in res.stderr and "--listen" in res.stderr, f"--{name}: {res}"
        port = helpers.free_port()
        proc = spawn(["--listen", f"127.0.0.1:{port}", *args], stdin=b"", close_stdin=False)
        if not server_ok:
            res = proc.finish(10)
            assert res.code == 2 and f"--{name}" in res.stderr and "client mode" in res.stderr, f"--{name}: {res}"
        elif name in ("cert", "key", "cacert"):
            res = proc.finish(10)   # not a real certificate: fails after the usage checks
            assert res.code == 1, f"--{name}: {res}"
        else:
            proc.wait_stderr(r"listening on|wspipe: ", 10) if name != "quiet" else helpers.wait_port(port, timeout=10)
            proc.kill()
            res = proc.finish(5)
            assert "listening on" in res.stderr or name == "quiet", f"--{name}: {res}"


def test_the_server_pings_its_clients_and_a_raw_client_counts_them(spawn):
    server, port = listen(spawn, ["--ping-interval", "100ms", "--ping-timeout", "5s", "--events"])
    s, status = raw_client(port)
    assert status.startswith("HTTP/1.1 101"), status
    conn = RawConn(s, 10)
    pings = 0
    while pings < 5:
        f = conn.recv_frame(10)
        assert f.opcode == OP_PING, f
        pings += 1
        s.sendall(frame(OP_PONG, f.payload, mask=os.urandom(4)))
    assert events(server.err.data(), "client_disconnected") == [], "a client that answers stays"
    s.close()


def test_a_client_that_does_not_answer_pings_is_dropped_with_1001(spawn):
    server, port = listen(spawn, ["--ping-interval", "100ms", "--ping-timeout", "200ms", "--events", "-v"])
    s, _ = raw_client(port)
    conn = RawConn(s, 10)
    frames = []
    while True:
        f = conn.recv_frame(10)
        frames.append(f)
        if f.opcode == OP_CLOSE:
            break
    assert frames[0].opcode == OP_PING and frames[-1].close_code == 1001, frames
    gone = wait_events(server, "client_disconnected")
    gone = [e for e in gone if e["$event"] == "client_disconnected"]
    assert gone[0]["code"] == 1001 and gone[0]["reason"] == "ping timeout" and gone[0]["clean"] is False, gone
    s.close()
    # The server goes on: another client is served.
    s2, status = raw_client(port)
    assert status.startswith("HTTP/1.1 101"), status
    s2.close()


def test_header_adds_response_headers_in_server_mode(spawn, tmp_path):
    extra = tmp_path / "headers"
    extra.write_text("X-From-File: 2\n")
    server, port = listen(spawn, ["-H", "X-Server: wspipe-test", "--header-file", str(extra)])
    s = __import__("socket").create_connection(("127.0.0.1", port), timeout=5)
    s.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    s.close()
    text = head.decode()
    assert text.startswith("HTTP/1.1 101"), text
    assert "\r\nX-Server: wspipe-test\r\n" in text and "\r\nX-From-File: 2\r\n" in text, text


def test_header_that_the_101_writes_itself_is_refused(run):
    res = run(["--listen", "127.0.0.1:0", "-H", "Sec-WebSocket-Protocol: chat"])
    assert res.code == 2, res
    assert "Sec-WebSocket-Protocol" in res.stderr and "--protocol" in res.stderr, res


PLAIN_PROGRAM = """#!/bin/sh
echo "hello from a plain program"
while read -r line; do echo "got a line"; done
"""


def test_an_exec_program_that_prints_text_gets_a_hint_naming_t_once(spawn, tmp_path):
    from websockets.sync.client import connect
    program = tmp_path / "plain.sh"
    program.write_text(PLAIN_PROGRAM)
    program.chmod(0o755)
    server, port = listen(spawn, ["--exec", str(program)])
    for n in (1, 2):
        with connect(f"ws://127.0.0.1:{port}/", open_timeout=5, compression=None) as ws:
            ws.send('{"n":1}')
            server.wait_stderr(rf"client {n}: program output:1:1", 10)
    stderr = server.err.data().decode()
    first = [l for l in stderr.split("\n") if "program output:1:1" in l]
    assert first and "-t sends each line as text" in first[0], stderr
    assert stderr.count("-t sends each line as text") == 1, stderr
    # With -t the lines are messages.
    server2, port2 = listen(spawn, ["-t", "--exec", str(program)])
    with connect(f"ws://127.0.0.1:{port2}/", open_timeout=5, compression=None) as ws:
        assert ws.recv(5) == "hello from a plain program"
