"""Issue 33 item 4: `wspipe A | wspipe B` is lossless. A text message that
is exactly an envelope's shape (`{"$binary":"3q2+7w=="}`, `{"$text":"x"}`)
was printed as itself, so the next wspipe sent a 4-byte binary message, or
the text `x`, in its place. Such a text is now written in a `$text` envelope
in every output path that writes JSON lines: a client's stdout, a server's
(with and without --tag), a --route file and an --exec program's stdin.
Each test relays through real wspipes and compares the frames a websockets
server receives with those another sent."""

from __future__ import annotations

import json
import os

from websockets.sync.client import connect

import helpers
from helpers import WsProc, wait_events

# What the far end must receive exactly as sent: text (str) or binary (bytes).
TRICKY = [
    '{"$binary":"3q2+7w=="}',
    '{"$text":"x"}',
    '{ "$text" : "blanks around" }',
    '{\n  "$text": "pretty"\n}',
    '{"$binary":"not base64!"}',
    '{"$text":"\\ud800"}',
    '{"$text":"\\u00e9 and \\"quotes\\""}',
]
# Not envelopes: sent on as they are (the first two were always fine).
PLAIN = [
    '{"\\u0024text":"an escaped key is no envelope"}',
    '{"$text":"a","and":"more"}',
    '{"$binary":5}',
    '{"type":"plain"}',
    "not json",
    b"\xde\xad\xbe\xef",
]
MESSAGES = TRICKY + PLAIN


def record_into(ws_server):
    return ws_server(helpers.record)


def received(srv):
    messages, _ = helpers.received_messages(srv.log)
    return messages


def test_a_client_relays_to_a_client(wspipe_bin, ws_server):
    source = ws_server(helpers.send_then_close(MESSAGES))
    sink = record_into(ws_server)
    relay = WsProc(["sh", "-c", '"$0" "$1" | "$0" --linger 0 "$2"', wspipe_bin, source.url(), sink.url()])
    res = relay.finish()
    assert res.code == 0, res
    assert received(sink) == MESSAGES


def test_the_lines_say_what_each_message_was(run, ws_server):
    source = ws_server(helpers.send_then_close(MESSAGES))
    res = run([source.url()])
    assert res.code == 0, res
    lines = res.stdout.decode().splitlines()
    assert lines[0] == '{"$text":"{\\"$binary\\":\\"3q2+7w==\\"}"}'
    assert lines[1] == '{"$text":"{\\"$text\\":\\"x\\"}"}'
    assert [json.loads(l)["$text"] for l in lines[:len(TRICKY)]] == [json.loads(json.dumps(t)) for t in TRICKY]
    assert lines[len(TRICKY):len(TRICKY) + 4] == PLAIN[:4], "other JSON is written as it came"


def test_a_server_relays_to_a_client(spawn, wspipe_bin, ws_server):
    """A client's messages to `wspipe --listen`, its stdout piped to a client of another server."""
    sink = record_into(ws_server)
    relay = WsProc(["sh", "-c", '"$0" --listen 127.0.0.1:0 --once | "$0" --linger 0 "$1"', wspipe_bin, sink.url()],
                   close_stdin=False)   # the server's stdin stays open: at its end, it would close the client
    port = int(relay.wait_stderr(r"listening on \S+:(\d+)").group(1))
    with connect(f"ws://127.0.0.1:{port}/", compression=None, max_size=None) as client:
        for message in MESSAGES:
            client.send(message)
    assert relay.finish().code == 0
    assert received(sink) == MESSAGES


def test_tag_lines_fed_back_to_the_server_echo_exactly(spawn, tmp_path):
    """A tagged echo server: --tag's stdout, through a FIFO, is its own stdin,
    so each line goes back to the client it came from."""
    fifo = tmp_path / "loop"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDWR)
    server = spawn(["--listen", "127.0.0.1:0", "--tag", "--events"], stdin_fd=fd, stdout_fd=fd)
    os.close(fd)
    port = int(server.wait_stderr(r"listening on \S+:(\d+)").group(1))
    with connect(f"ws://127.0.0.1:{port}/", compression=None, max_size=None) as client:
        wait_events(server, "client_connected")
        got = []
        for message in MESSAGES:
            client.send(message)
            got.append(client.recv(timeout=5))
    assert got == MESSAGES


def test_a_route_file_replays_exactly(run, ws_server, tmp_path):
    source = ws_server(helpers.send_then_close(MESSAGES))
    routed = tmp_path / "routed.ndjson"
    res = run(["--route", f"*={routed}", source.url()])
    assert res.code == 0 and res.stdout == b"", res
    sink = record_into(ws_server)
    res = run(["--linger", "0", sink.url()], stdin=routed.read_bytes())
    assert res.code == 0, res
    assert received(sink) == MESSAGES


def test_an_exec_program_echoes_exactly(spawn):
    """`cat` as the --exec program: its stdin lines are its stdout lines."""
    server = spawn(["--listen", "127.0.0.1:0", "--exec", "cat"], stdin=b"", close_stdin=False)
    port = int(server.wait_stderr(r"listening on \S+:(\d+)").group(1))
    with connect(f"ws://127.0.0.1:{port}/", compression=None, max_size=None) as client:
        got = []
        for message in MESSAGES:
            client.send(message)
            got.append(client.recv(timeout=5))
    assert got == MESSAGES


def test_a_large_envelope_shaped_text_is_wrapped_too(run, ws_server):
    """Lines of 64 KiB and more are written straight from where they arrived."""
    big = '{"$text":"' + "a" * (100 << 10) + '"}'
    source = ws_server(helpers.send_then_close([big]))
    res = run([source.url()])
    assert res.code == 0, res
    assert json.loads(res.stdout) == {"$text": big}
