"""The interactive mode with --codec and --socketio (wspipe(1): INTERACTIVE
MODE, BINARY CODECS, SOCKET.IO), in a real terminal (tmux): what is typed
goes out as the protocol's messages, what comes back is shown as lines, and
a line the protocol cannot send stays in the editor with its reason instead
of being shown as sent.

Real peers: a websockets server speaking MessagePack with the msgpack
library, and the python-socketio 5 server of test_socketio.py.
"""

from __future__ import annotations

import re

import pytest

from helpers import received_messages
from test_interactive import terminal  # noqa: F401 (a fixture)
from test_socketio import AUTH, BOTH, sio_server  # noqa: F401 (a fixture)

msgpack = pytest.importorskip("msgpack", reason="msgpack (PyPI) is not installed: Tests/run installs it")


def msgpack_echo():
    """Greets with a MessagePack value holding bytes, answers each
    MessagePack message with one holding it, and a text with a text."""
    async def handler(ws, log) -> None:
        log.put("connected")
        await ws.send(msgpack.packb({"type": "welcome", "raw": b"\x00\x01"}, use_bin_type=True))
        async for message in ws:
            log.put("msg", message)
            if isinstance(message, str):
                await ws.send("text:" + message)
            else:
                await ws.send(msgpack.packb({"type": "echo", "got": msgpack.unpackb(message, raw=False)},
                                            use_bin_type=True))
        log.put("closed", ws.close_code, None)
    return handler


def test_codec_typed_lines_go_encoded_and_binary_messages_show_as_values(terminal, ws_server):
    server = ws_server(msgpack_echo())
    run = terminal(["--codec", "msgpack", server.url()], width=160)
    run.connected()
    run.pane.wait_for(r'< \S+ \{"type":"welcome","raw":\{"\$bytes":"AAE="\}\}')
    run.pane.type('{"type":"hi","n":[1,2.5]}')
    run.pane.keys("Enter")
    run.pane.wait_for(r'< \S+ \{"type":"echo","got":\{"type":"hi","n":\[1,2\.5\]\}\}')
    run.pane.type("/text plain")
    run.pane.keys("Enter")
    run.pane.wait_for(r'< \S+ text "text:plain"')
    # The hint for text that is not JSON names what works with --codec, not -t (which it refuses).
    screen = run.pane.wait_for(r"typed lines are sent as msgpack \(--codec\); /text TEXT sends a text message")
    assert "run wspipe with -t" not in screen.string, screen.string
    run.pane.keys("C-d")
    assert run.status() == 0
    messages, _ = received_messages(server.log)
    assert messages == [msgpack.packb({"type": "hi", "n": [1, 2.5]}), "plain"], messages


def test_socketio_events_typed_and_shown_and_a_line_that_is_no_event_kept(terminal, sio_server):
    server = sio_server()
    run = terminal(["--socketio", *BOTH, *AUTH, server.url], width=120)
    run.connected()
    run.pane.type('{"event":"join","data":{"room":"r1"},"ns":"/chat","ack":true}')
    run.pane.keys("Enter")
    run.pane.wait_for(r'< \S+ \{"ack_of":1,"data":\{"joined":"r1"\},"ns":"/chat"\}')
    # Not an event line: kept in the editor with the reason, never shown as sent.
    run.pane.type('{"type":"chat"}')
    run.pane.keys("Enter")
    run.pane.wait_for(r'not a Socket\.IO event line: unknown member')
    assert not re.search(r'^> \d\d:\d\d:\d\d\.\d{3} \{"type":"chat"\}', run.pane.screen(), re.M), run.pane.screen()
    run.pane.keys("C-u")
    run.pane.type("/text hello")
    run.pane.keys("Enter")
    run.pane.wait_for(r"/text: --socketio sends event lines, not bare messages")
    run.pane.keys("C-u")
    run.pane.type('{"event":"echo","data":{"text":"hi"}}')
    run.pane.keys("Enter")
    run.pane.wait_for(r'< \S+ \{"event":"echo","data":\{"text":"hi"\}\}')
    run.pane.wait_for(r"connected · in \d+ · out 2 ·")   # the refused lines are not counted as sent
    run.pane.keys("C-d")
    assert run.status() == 0, run.pane.everything()
    seen = server.seen()
    assert ["echo", "/", [{"text": "hi"}]] in seen, seen
    assert [s[0] for s in seen if s[0] not in ("connect", "disconnect")] == ["join", "echo"], seen
