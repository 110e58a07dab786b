"""The interactive transcript (issue 24), in a real terminal (tmux) against
real peers: a Python websockets server that streams 20 messages a second,
one that sends a 300-character message, pongs to filter out, a message to
find after it scrolled away; saved messages across two runs; Tab; the
status row through resizes. Every wait is for something on the screen or
from the server, never a sleep.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import time

import pytest

from test_interactive import TIME, next_message, recorder, terminal  # noqa: F401  (terminal is a fixture)
from tmux_pane import SCREEN_TIMEOUT, prompt_line

MARGIN = 15   # "< 12:01:02.123 "
STATUS = re.compile(r"^(connected|connecting|disconnected|reconnecting|starting|not connected)\b.* · in \d+ · out \d+")


def status_row(screen: str) -> str | None:
    """The status row: the last row of the screen that reads like one."""
    found = None
    for row in screen.split("\n"):
        if STATUS.match(row.rstrip()):
            found = row.rstrip()
    return found


def ticks_on(screen: str) -> list[int]:
    return [int(n) for n in re.findall(r'"type":"tick","n":(\d+)', screen)]


async def streamer(ws, log) -> None:
    """20 messages a second until the client goes, while recording what it sends."""
    async def tick():
        n = 0
        while True:
            n += 1
            await ws.send(json.dumps({"type": "tick", "n": n, "load": [n % 7, n % 11]}, separators=(",", ":")))
            await asyncio.sleep(0.05)

    task = asyncio.create_task(tick())
    try:
        await recorder(ws, log)
    finally:
        task.cancel()


# Readable by default ----------------------------------------------------------------------


def test_twenty_messages_a_second_take_one_row_each_and_the_line_being_typed_stays(terminal, ws_server):
    srv = ws_server(streamer)
    run = terminal([srv.url()])
    run.connected()
    typed = ""
    for piece in ['{"type":', '"say",', '"text":', '"still here"}']:
        # Ticks keep arriving while the line is half typed.
        seen = max(ticks_on(run.pane.screen()) or [0])
        run.pane.wait(lambda s: max(ticks_on(s) or [0]) >= seen + 5, "five more ticks")
        run.pane.type(piece)
        typed += piece
        run.pane.wait_prompt(typed)
    screen = run.pane.screen()
    rows = [r.rstrip() for r in screen.split("\n")]
    tick_rows = [r for r in rows if '"tick"' in r]
    assert len(tick_rows) >= 20, screen
    for row in tick_rows:
        assert re.fullmatch(rf'< {TIME} \{{"type":"tick","n":\d+,"load":\[\d+,\d+\]\}}', row), row
    numbers = ticks_on(screen)
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), "every tick, in order, one row each"
    assert prompt_line(screen) == "> " + typed
    assert rows.index("> " + typed) > rows.index(tick_rows[-1]), "the prompt below the transcript"
    assert re.match(r"connected · in \d+ · out 0 · ws://127\.0\.0\.1:\d+/$", status_row(screen)), screen
    run.pane.keys("Enter")
    assert next_message(srv) == typed
    run.pane.wait(lambda s: re.search(r"· out 1 ·", status_row(s) or ""), "out 1 on the status row")
    run.pane.keys("C-d")
    assert run.status() == 0


ARTICLE = {
    "type": "article",
    "id": 12345,
    "title": "Streaming JSON over WebSockets without losing a single message",
    "tags": ["alpha", "beta", "gamma", "delta"],
    "author": {"name": "Ann Example", "email": "ann@example.com"},
    "score": 0.875,
    "published": True,
    "body": "A body long enough to go past the edge of a narrow terminal and on below.",
}


def tokens(value) -> list[str]:
    """Every key, number, literal and string of the value, as JSON."""
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in [json.dumps(k)] + tokens(v)]
    if isinstance(value, list):
        return [t for v in value for t in tokens(v)]
    return [json.dumps(value)]


@pytest.mark.parametrize("width", [60, 100, 160])
def test_a_300_character_message_is_pretty_printed_for_the_width(terminal, ws_server, width):
    text = json.dumps(ARTICLE, separators=(",", ":"))
    assert 290 <= len(text) <= 320

    async def handler(ws, log):
        await ws.send(text)
        await recorder(ws, log)

    srv = ws_server(handler)
    run = terminal([srv.url()], width=width)
    run.connected()
    run.pane.wait_for(rf"^< {TIME} \{{$")
    rows = run.pane.screen(trailing_blanks=True).split("\n")
    start = next(i for i, r in enumerate(rows) if re.match(rf"< {TIME} \{{\s*$", r))
    end = next(i for i in range(start + 1, len(rows)) if rows[i].rstrip() == " " * MARGIN + "}")
    block = rows[start:end + 1]
    body = [block[0][MARGIN:]] + [r[MARGIN:] for r in block[1:]]
    assert all(r[:MARGIN].strip() == "" for r in block[1:]), block
    assert all(len(r.rstrip()) <= width for r in block), block
    # Indentation: the members one level in; the wider ones continue further in.
    assert '  "type": "article",' in [r.rstrip() for r in body]
    if width > 60:
        assert '  "tags": ["alpha", "beta", "gamma", "delta"],' in [r.rstrip() for r in body], "scalars on one line"
    else:
        assert '  "tags": [' in [r.rstrip() for r in body] and '    "alpha",' in [r.rstrip() for r in body], \
            "too wide for 45 columns: one a line"
    for r in body[1:-1]:
        assert r.startswith("  "), body
    # No token cut: each that fits in a row is whole on one row.
    room = width - MARGIN - 4
    for token in tokens(ARTICLE):
        if len(token) <= room:
            assert any(token in r for r in body), f"{token} split at width {width}:\n" + "\n".join(body)
    # And what is on the screen is the message: rows inside a string join as they are.
    assert json.loads(rejoin(body)) == ARTICLE
    if width == 160:
        assert all(len(r.rstrip()) <= 145 for r in body) and len(body) == 13, "one member a row"
    title = next(i for i, r in enumerate(body) if r.startswith('  "title": '))
    if width == 60:
        assert body[title + 1].startswith("    ") and body[title + 1][4] != " ", "the title goes on, two further in"
        assert not body[title + 1].lstrip().startswith('"tags"')
    run.pane.keys("C-d")
    assert run.status() == 0


def rejoin(body: list[str]) -> str:
    """The rows of a pretty-printed message back into one JSON text: a row
    that goes on with a string goes on with its text (the indentation left
    out); other rows are separated by a blank. Blanks at a row's end are
    kept (they may be the string's)."""
    out = ""
    for row in body:
        out += row.lstrip(" ") if string_open(out) else " " + row.lstrip(" ")
    return out


def string_open(text: str) -> bool:
    """Whether `text` ends inside a JSON string."""
    inside = escaped = False
    for c in text:
        if inside:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                inside = False
        elif c == '"':
            inside = True
    return inside


def test_a_message_longer_than_the_screen_is_folded_until_shown(terminal, ws_server):
    big = {"type": "list", "items": [{"id": n, "name": f"item {n}"} for n in range(1, 41)]}

    async def handler(ws, log):
        await ws.send(json.dumps(big))
        await recorder(ws, log)

    srv = ws_server(handler)
    run = terminal([srv.url()], height=20)
    run.connected()
    m = run.pane.wait_for(r"^ {15}… (\d+) more lines, /show (\d+)$")
    hidden, number = int(m.group(1)), int(m.group(2))
    assert hidden == 3 + 40 * 4 + 2 - 16, "16 of its 165 rows shown on a 20-row screen"
    run.pane.type(f"/show {number}")
    run.pane.keys("Enter")
    run.pane.wait_for(r'^ {21}"name": "item 40"\n {19}\}\n {17}\]\n {15}\}$')
    run.pane.keys("C-d")
    assert run.status() == 0


def test_the_first_text_that_is_not_json_suggests_dash_t(terminal, ws_server):
    async def handler(ws, log):
        await ws.send("Welcome to the echo service")
        await ws.send("and more text")
        await recorder(ws, log)

    srv = ws_server(handler)
    run = terminal([srv.url()])
    run.connected()
    run.pane.wait_for(rf'^< {TIME} text "Welcome to the echo service"\n- {TIME} the server sent text that is not JSON')
    run.pane.wait_for(r"run wspipe with -t")
    run.pane.wait_for(rf'^< {TIME} text "and more text"$')
    run.pane.keys("C-d")
    assert run.status() == 0
    assert run.pane.screen().count("not JSON") == 1


# Filter, find, show ------------------------------------------------------------------------


async def pong_chat_server(ws, log) -> None:
    """On {"type":"go"}: ten pongs with a chat after every fifth, then done."""
    log.put("connected", ws.request.path)
    async for message in ws:
        log.put("msg", message)
        if message == '{"type":"go"}':
            for n in range(1, 11):
                await ws.send(json.dumps({"type": "pong", "n": n}))
                if n % 5 == 0:
                    await ws.send(json.dumps({"type": "chat", "n": n}))
            await ws.send('{"type":"done"}')


def test_a_filter_hides_pongs_and_the_status_line_counts_them(terminal, ws_server, tmp_path):
    """With -i and stdout redirected, what the filter hides still reaches stdout."""
    srv = ws_server(pong_chat_server)
    out = tmp_path / "out.ndjson"
    run = terminal(["-i", srv.url()], before=f"exec >{out}; ")
    run.connected()
    run.pane.type("/filter -type=pong")
    run.pane.keys("Enter")
    run.pane.wait_for(rf"^- {TIME} filter: -type=pong; hidden messages are counted")
    run.pane.type('{"type":"go"}')
    run.pane.keys("Enter")
    screen = run.pane.wait_for(rf'^< {TIME} \{{"type": ?"done"\}}$').string
    run.pane.wait(lambda s: "filter -type=pong (10 hidden)" in (status_row(s) or ""), "10 hidden on the status row")
    screen = run.pane.screen()
    assert '"pong"' not in screen, screen
    assert len(re.findall(rf'^< {TIME} \{{"type": ?"chat", ?"n": ?(?:5|10)\}}$', screen, re.M)) == 2, screen
    assert re.search(r"^connected · in 13 · out 1 · filter -type=pong \(10 hidden\) · ws://", status_row(screen))
    # Hidden, not lost: in the file, and found by /find. (The transcript is
    # drawn before the line is written out: wait for the file's 13th line.)
    lines = [json.loads(line) for line in wait_lines(out, 13)]
    assert [m["type"] for m in lines].count("pong") == 10 and len(lines) == 13
    run.pane.type("/filter off")
    run.pane.keys("Enter")
    run.pane.wait_for(rf"^- {TIME} filter off: every message is shown \(10 were hidden\)$")
    run.pane.type("/find pong")
    run.pane.keys("Enter")
    found = run.pane.wait_for(rf"^- {TIME} 10 messages contain \"pong\":$").string
    assert len(re.findall(rf'^ {{15}}#\d+ < {TIME} \{{"type": ?"pong", ?"n": ?\d+\}}$', found, re.M)) == 10, found
    run.pane.keys("C-d")
    assert run.status() == 0


def wait_lines(path, count: int, timeout: float = SCREEN_TIMEOUT) -> list[str]:
    """The lines of a file once it has at least `count` whole ones."""
    deadline = time.monotonic() + timeout
    while True:
        text = path.read_text() if path.exists() else ""
        lines = text[:text.rfind("\n") + 1].splitlines()
        if len(lines) >= count:
            return lines
        assert time.monotonic() < deadline, f"{path} has {len(lines)} lines, not {count}, after {timeout}s"
        time.sleep(0.05)


def test_find_and_show_a_message_that_scrolled_away(terminal, ws_server):
    needle = {"type": "order", "id": "needle-42", "lines": [{"sku": "A-1", "qty": 2}, {"sku": "B-7", "qty": 1}],
              "note": "deliver to the back door"}

    async def handler(ws, log):
        await ws.send(json.dumps(needle))
        for n in range(1, 61):
            await ws.send(json.dumps({"type": "filler", "n": n}))
        await recorder(ws, log)

    srv = ws_server(handler)
    run = terminal([srv.url()])
    screen = run.pane.wait_for(r'"type":"filler","n":60\}\n>\s*\n').string
    assert "needle-42" not in screen, "scrolled away"
    run.pane.type("/find NEEDLE")
    run.pane.keys("Enter")
    m = run.pane.wait_for(rf'^ {{15}}#(\d+) < {TIME} \{{"type":"order","id":"needle-42",')
    number = m.group(1)
    run.pane.type(f"/show {number}")
    run.pane.keys("Enter")
    run.pane.wait_for(r'^ {17}"id": "needle-42",\n {17}"lines": \[\n {19}\{\n {21}"sku": "A-1",')
    run.pane.wait_for(r'^ {17}"note": "deliver to the back door"\n {15}\}$')
    run.pane.keys("C-d")
    assert run.status() == 0


# Saved messages and Tab --------------------------------------------------------------------------


def test_save_then_send_across_two_runs_with_tab(terminal, ws_server, tmp_path):
    async def handler(ws, log):
        await ws.send('{"type":"welcome","session":"s-1","room":"lobby"}')
        await recorder(ws, log)

    srv = ws_server(handler)
    first = terminal([srv.url()], tag="first")
    first.connected()
    first.pane.type('{"type":"hello","v":1}')
    first.pane.keys("Enter")
    assert next_message(srv) == '{"type":"hello","v":1}'
    first.pane.type("/save greet")
    first.pane.keys("Enter")
    first.pane.wait_for(rf"^- {TIME} saved as greet in ")
    first.pane.type('/save join {"type":"join","session":${sid},"room":${.room}}')
    first.pane.keys("Enter")
    first.pane.wait_for(rf"^- {TIME} saved as join in ")
    first.pane.keys("C-d")
    assert first.status() == 0
    assert srv.log.until("closed")[-1] == ("closed", 1000, "")

    saved = tmp_path / "config" / "wspipe" / "messages.ndjson"
    assert [json.loads(line) for line in saved.read_text().splitlines()] == [
        {"name": "greet", "message": '{"type":"hello","v":1}'},
        {"name": "join", "message": '{"type":"join","session":${sid},"room":${.room}}'},
    ]
    assert stat.S_IMODE(os.stat(saved).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(saved.parent).st_mode) == 0o700

    (tmp_path / "blob.bin").write_bytes(b"\x00\xff")
    second = terminal(["--capture", "sid=session", srv.url()], tag="second")
    second.connected()
    second.pane.type("/s")
    second.pane.keys("Tab")
    second.pane.wait_for(rf"^- {TIME} save  send  show$")
    second.pane.type("en")
    second.pane.keys("Tab")
    second.pane.wait_prompt("/send")   # and a blank, which the screen capture leaves out
    second.pane.type("gr")
    second.pane.keys("Tab")
    second.pane.wait_prompt("/send greet")
    second.pane.keys("Enter")
    assert next_message(srv) == '{"type":"hello","v":1}'
    second.pane.type("/send join")
    second.pane.keys("Enter")
    assert next_message(srv) == '{"type":"join","session":"s-1","room":"lobby"}'
    second.pane.wait_for(rf'^> {TIME} \{{"type":"join","session":"s-1","room":"lobby"\}}$')
    second.pane.type("/binary ~/bl")
    second.pane.keys("Tab")
    second.pane.wait_prompt("/binary ~/blob.bin")
    second.pane.keys("Enter")
    assert next_message(srv) == b"\x00\xff"
    second.pane.keys("C-d")
    assert second.status() == 0


# The status row ------------------------------------------------------------------------------------


def test_a_resize_while_a_filter_is_active(terminal, ws_server):
    async def handler(ws, log):
        async def stream():
            n = 0
            while True:
                n += 1
                kind = "chat" if n % 2 else "pong"
                await ws.send(json.dumps({"type": kind, "n": n, "text": f"number {n} from the server"},
                                         separators=(",", ":")))
                await asyncio.sleep(0.05)

        task = asyncio.create_task(stream())
        try:
            await recorder(ws, log)
        finally:
            task.cancel()

    srv = ws_server(handler)
    run = terminal([srv.url()], width=100)
    run.connected()
    run.pane.type("/filter type=chat")
    run.pane.keys("Enter")
    run.pane.wait(lambda s: hidden_count(s) >= 3, "pongs hidden")
    # One row each at 100 columns.
    run.pane.wait_for(rf'^< {TIME} \{{"type":"chat","n":\d+,"text":"number \d+ from the server"\}}$')
    run.pane.resize(60, 30)
    before = hidden_count(run.pane.screen())
    # Drawn for 60 columns: a chat no longer fits a row, and is pretty-printed.
    screen = run.pane.wait_for(rf'^< {TIME} \{{\n {{17}}"type": "chat",\n {{17}}"n": \d+,\n'
                               r' {17}"text": "number \d+ from the server"\n {15}\}').string
    run.pane.wait(lambda s: hidden_count(s) > before + 2, "the count going on after the resize")
    row = status_row(run.pane.screen())
    assert row.startswith("connected · in ") and "filter type=chat (" in row and len(row) <= 59, row
    # At 40 columns "filter type=chat (N hidden)" would be cut at the edge:
    # the count comes before the filter, which the edge cuts instead.
    run.pane.resize(40, 30)
    narrow = re.compile(r"^connected · in \d+ · out 0 · (\d+) hid")   # "hidden by filter type=chat" cut
    screen = run.pane.wait(lambda s: narrow.match(status_row(s) or ""), "the count at 40 columns")
    first = int(narrow.match(status_row(screen)).group(1))
    screen = run.pane.wait(lambda s: (n := narrow.match(status_row(s) or "")) is not None and int(n.group(1)) > first,
                           "the count going on at 40 columns")
    assert len(status_row(screen)) <= 39, status_row(screen)
    run.pane.keys("C-d")
    assert run.status() == 0


def hidden_count(screen: str) -> int:
    m = re.search(r"\((\d+) hidden\)", status_row(screen) or "")
    return int(m.group(1)) if m else -1


def test_the_status_row_needs_more_than_five_rows(terminal, ws_server):
    srv = ws_server(recorder)
    run = terminal([srv.url()], height=5)
    run.pane.wait_for(rf"^- {TIME} connected to ws://")
    run.pane.wait_prompt("")
    assert status_row(run.pane.screen()) is None, run.pane.screen()
    run.pane.resize(100, 12)
    run.pane.wait(lambda s: status_row(s) is not None, "the status row at 12 rows")
    run.pane.resize(100, 5)
    run.pane.wait(lambda s: status_row(s) is None and prompt_line(s) == "> ", "no status row at 5 rows")
    run.pane.type("[1]")
    run.pane.keys("Enter")
    assert next_message(srv) == "[1]"
    run.pane.keys("C-d")
    assert run.status() == 0


@pytest.mark.parametrize("how", ["flag", "env"])
def test_the_status_row_can_be_turned_off(terminal, ws_server, how):
    srv = ws_server(recorder)
    run = terminal((["--no-status-line"] if how == "flag" else []) + [srv.url()],
                   env={"WSPIPE_PLAIN": "1"} if how == "env" else None)
    run.connected()
    run.pane.type("[2]")
    run.pane.keys("Enter")
    assert next_message(srv) == "[2]"
    run.pane.wait_for(rf"^> {TIME} \[2\]$")
    assert status_row(run.pane.screen()) is None
    run.pane.keys("C-d")
    assert run.status() == 0
