"""The interactive mode's edges, in a real terminal (tmux) against a real
peer: emoji sequences where the terminal draws them, narrow terminals, a
shrinking window, long errors under a rejected line, and two sessions
saving a message at the same moment. Every wait is for something on the
screen, in the terminal's cursor, or in the kernel's lock table, never a
sleep.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import time

import pytest

from test_interactive import TIME, recorder, terminal  # noqa: F401  (terminal is a fixture)
from tmux_pane import SCREEN_TIMEOUT, TmuxPane, prompt_line, shell_command


def wait_until(predicate, what: str, timeout: float = SCREEN_TIMEOUT):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"never {what} within {timeout}s")
        time.sleep(0.05)


def wait_cursor(pane: TmuxPane, column: int, row: int | None = None) -> tuple[int, int]:
    def there():
        x, y = pane.cursor()
        return (x, y) if x == column and (row is None or y == row) else None
    try:
        return wait_until(there, f"the cursor at column {column}")
    except AssertionError:
        raise AssertionError(f"cursor at {pane.cursor()}, not column {column} (row {row}); screen:\n{pane.screen()}")


def prompt_row(screen: str) -> int:
    """Screen row of the edit area's first row."""
    rows = screen.split("\n")
    line = prompt_line(screen)
    return max(i for i, r in enumerate(rows) if r.rstrip() == line)


# Emoji sequences -----------------------------------------------------------------------------------

SEQUENCES = {
    "skin tone": "\U0001F44D\U0001F3FD",                      # 👍🏽
    "skin tone on a narrow base": "\u270C\U0001F3FD",          # ✌🏽
    "ZWJ": "\U0001F469\u200D\U0001F4BB",                      # 👩‍💻
    "skin tone in a ZWJ sequence": "\U0001F469\U0001F3FD\u200D\U0001F4BB",
    "ZWJ onto a narrow base": "\U0001F3F3\uFE0F\u200D\U0001F308",   # 🏳️‍🌈
    "flag": "\U0001F1EB\U0001F1F7",                           # 🇫🇷
    "keycap": "1\uFE0F\u20E3",                                # 1️⃣
    "VS16": "\u2764\uFE0F",                                   # ❤️
}


def drawn_width(directory: str, text: str) -> int:
    """The columns this tmux draws `text` in: printed between two bars by a
    shell in a pane of its own, the cursor read after the second."""
    sample = os.path.join(directory, "sample.txt")
    with open(sample, "w") as f:
        f.write(text)
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    pane = TmuxPane(directory, shell_command("sh", "-c", 'printf "|"; cat "$0"; printf "|"; exec sleep 60', sample), env)
    try:
        pane.wait(lambda s: s.split("\n")[0].rstrip().count("|") == 2, "the sample between its bars")
        return pane.cursor()[0] - 2
    finally:
        pane.close()


@pytest.mark.parametrize("name", list(SEQUENCES))
def test_the_cursor_lands_where_the_terminal_draws_an_emoji_sequence(terminal, ws_server, tmp_path, name):
    text = SEQUENCES[name]
    width = drawn_width(str(tmp_path), text)
    run = terminal([ws_server(recorder).url()])
    run.connected()
    run.pane.type("a" + text + "b")
    screen = run.pane.wait_prompt("a" + text + "b")
    row = prompt_row(screen)
    wait_cursor(run.pane, 2 + 1 + width + 1, row)     # after the b
    run.pane.keys("Left")
    wait_cursor(run.pane, 2 + 1 + width, row)         # on the b
    run.pane.keys("Left")
    wait_cursor(run.pane, 3, row)                     # on the sequence
    run.pane.type("X")
    run.pane.wait_prompt("aX" + text + "b")
    wait_cursor(run.pane, 4, row)
    run.pane.keys("C-c")
    run.pane.wait_prompt("")
    run.pane.keys("C-d")
    assert run.status() == 0


def test_skin_tones_wrap_where_the_terminal_wraps(terminal, ws_server, tmp_path):
    thumb = SEQUENCES["skin tone"]
    width = drawn_width(str(tmp_path), thumb)
    run = terminal([ws_server(recorder).url()], width=30)
    run.pane.wait(lambda s: prompt_line(s) == "> " and "\nconnected · in 0" in s, "connected")
    run.pane.type(thumb * 10)
    per_row = (30 - 2) // width
    screen = run.pane.wait(lambda s: prompt_line(s) == "> " + thumb * per_row, "the first row of thumbs")
    row = prompt_row(screen)
    assert screen.split("\n")[row + 1].rstrip() == thumb * (10 - per_row), screen
    wait_cursor(run.pane, (10 - per_row) * width, row + 1)
    # Home redraws the area from its first row: no copy of it is left above.
    run.pane.keys("Home")
    wait_cursor(run.pane, 2, row)
    rows = [r.rstrip() for r in run.pane.screen().split("\n")]
    assert rows.count("> " + thumb * per_row) == 1, "\n".join(rows)
    run.pane.keys("C-c")
    run.pane.wait_prompt("")
    run.pane.keys("C-d")
    assert run.status() == 0


# Narrow terminals, and long errors ------------------------------------------------------------------


async def welcomer(ws, log) -> None:
    await ws.send('{"type":"welcome","room":"lobby","members":["ann","bob"],"motd":"be nice to each other"}')
    await recorder(ws, log)


def squeezed(screen: str) -> str:
    """The screen without its blanks and line ends: text wherever it was cut."""
    return re.sub(r"\s", "", screen)


@pytest.mark.parametrize("width", [20, 10])
def test_every_row_fits_a_narrow_terminal(terminal, ws_server, width):
    run = terminal([ws_server(welcomer).url()], width=width)
    run.pane.wait(lambda s: '"lobby"' in squeezed(s), "the welcome")
    run.pane.wait(lambda s: prompt_line(s) == "> ", "the prompt")
    run.pane.type('{"sent": [1, 2, 3], "to": "everyone in the room"}')
    run.pane.keys("Enter")
    run.pane.wait(lambda s: '"everyoneintheroom"' in squeezed(s), "the message sent")
    run.pane.wait(lambda s: prompt_line(s) == "> ", "the prompt again")
    run.pane.type('{"a" 1}')
    run.pane.keys("Enter")
    run.pane.wait(lambda s: "(/textsendstextasis)" in squeezed(s), "the whole error")
    # Every row, the transcript's and the edit area's, within the screen:
    # none wider, which the terminal would have wrapped (-J joins those).
    screen = run.pane.screen_joined()
    assert all(len(row.rstrip()) <= width for row in screen.split("\n")), screen
    run.pane.keys("C-u")
    run.pane.type("/help")
    run.pane.keys("Enter")
    run.pane.wait(lambda s: "Suspendwspipe" in squeezed(s), "the help's last key")
    screen = run.pane.screen_joined()
    assert all(len(row.rstrip()) <= width for row in screen.split("\n")), screen
    run.pane.keys("C-d")
    assert run.status() == 0


def test_a_long_error_is_shown_whole_under_the_line(terminal, ws_server):
    run = terminal([ws_server(recorder).url()], width=60)
    run.connected()
    run.pane.type('{"a" 1}')
    run.pane.keys("Enter")
    # Where, why, and how to send it anyway: on two rows, nothing cut.
    screen = run.pane.wait(lambda s: "not sent (/text sends text as is)" in " ".join(r.strip() for r in s.split("\n")),
                           "the error's last words")
    rows = [r.rstrip() for r in screen.split("\n")]
    start = rows.index("> {\"a\" 1}")
    assert rows[start + 1:start + 3] == ["invalid JSON at 1:6: expected ':' after object key; not",
                                         "sent (/text sends text as is)"], screen
    assert "…" not in screen
    wait_cursor(run.pane, 9, start)
    run.pane.keys("C-u")
    run.pane.wait_prompt("")
    assert "sent (/text" not in run.pane.screen(), "the error goes with the line"
    run.pane.keys("C-d")
    assert run.status() == 0


# A shrinking window, and the scrollback ------------------------------------------------------------

LONG_LINE = "".join(f"{i:03d}-" for i in range(60))   # 240 characters


def joined(text: str) -> str:
    """Rows run together, so that a line wrapped onto rows reads whole again."""
    return "".join(row.rstrip() for row in text.split("\n"))


def test_shrinking_the_window_shows_the_line_once(terminal, ws_server):
    run = terminal([ws_server(recorder).url()], width=100)
    run.connected()
    run.pane.type(LONG_LINE)
    run.pane.wait(lambda s: LONG_LINE in joined(s), "the whole line")
    run.pane.resize(40, 30)
    run.pane.wait(lambda s: prompt_line(s) == "> " + LONG_LINE[:38] and LONG_LINE in joined(s),
                  "the line drawn again at 40 columns")
    run.pane.type("XYZ")
    screen = run.pane.wait(lambda s: LONG_LINE + "XYZ" in joined(s), "the keys typed after the resize")
    assert joined(screen).count(LONG_LINE[-40:]) == 1, screen
    assert all(len(r.rstrip()) <= 40 for r in screen.split("\n")), screen
    # The rows the terminal itself pushed up when it re-wrapped the line are
    # out of any program's reach; the line's end was on screen, and a redraw
    # clears it there rather than scroll a copy of it into the scrollback.
    everything = run.pane.everything()
    assert joined(everything).count(LONG_LINE[-40:]) == 1, everything
    run.pane.keys("C-c")
    run.pane.wait_prompt("")
    run.pane.keys("C-d")
    assert run.status() == 0


def test_redrawing_at_the_top_of_the_screen_leaves_no_copies_in_the_scrollback(terminal, ws_server):
    run = terminal([ws_server(recorder).url()])
    run.connected()
    run.pane.keys("C-l")
    run.pane.wait(lambda s: s.split("\n")[0].rstrip() == ">", "the prompt at the top")
    for n in range(1, 6):
        run.pane.type(str(n))
        run.pane.wait_prompt("12345"[:n])
    rows = [r.rstrip() for r in run.pane.everything().split("\n")]
    assert [r for r in rows if r.startswith("> 1")] == ["> 12345"], "\n".join(rows)
    # Nor did the first notes push the first prompt up (it was at the top too).
    assert re.match(rf"- {TIME} connecting to ", rows[0]), "\n".join(rows)
    run.pane.keys("C-c")
    run.pane.wait_prompt("")
    run.pane.keys("C-d")
    assert run.status() == 0


# Two sessions saving at the same moment -----------------------------------------------------------


def opened_elsewhere(path) -> bool:
    """Another process has `path` open (wspipe opens the file, then tries
    for its lock every 10 ms: /proc/locks lists no waiter then)."""
    target = os.path.realpath(path)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    return True
            except OSError:
                pass
    return False


@pytest.mark.needs("proc")
def test_two_saves_at_the_same_moment_keep_both(terminal, ws_server, tmp_path):
    saved = tmp_path / "config" / "wspipe" / "messages.ndjson"
    saved.parent.mkdir(parents=True, mode=0o700)
    saved.write_text('{"name":"old","message":"1"}\n')
    os.chmod(saved, 0o600)
    run = terminal([ws_server(recorder).url()])
    run.connected()
    # The other session, as wspipe saves: it takes the lock, reads the file,
    # and writes its own save back (a new file renamed over it) only once
    # this session's /save is under way: the file open and its lock tried
    # (wspipe waits up to 3 s for it), or, without one, done.
    with open(saved) as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        before = saved.read_text()
        run.pane.type('/save mine {"a":1}')
        run.pane.keys("Enter")
        wait_until(lambda: opened_elsewhere(saved) or "saved as mine" in run.pane.screen(),
                   "the /save waiting for the lock or done")
        replacement = saved.with_name("messages.ndjson.other")
        replacement.write_text(before + '{"name":"theirs","message":"2"}\n')
        os.rename(replacement, saved)
    run.pane.wait_for(rf"^- {TIME} saved as mine in ")
    names = [json.loads(line)["name"] for line in saved.read_text().splitlines()]
    assert names == ["old", "theirs", "mine"]
    run.pane.keys("C-d")
    assert run.status() == 0


def test_show_under_compact_prints_the_whole_message(terminal, ws_server):
    """Issue 33 item 10: /show N under /compact printed the cut row again."""
    big = {"type": "hello", "members": [f"member-{n}" for n in range(12)], "topic": "the end of it"}

    async def handler(ws, log):
        await ws.recv()   # the line typed: the transcript is in /compact by then
        await ws.send(json.dumps(big))
        await recorder(ws, log)

    srv = ws_server(handler)
    run = terminal([srv.url()], width=60)
    run.connected()
    run.pane.type("/compact")
    run.pane.keys("Enter")
    run.pane.type('{"ready":true}')
    run.pane.keys("Enter")
    run.pane.wait_for(r'^< \S+ +\{"type":"hello".*…$')
    assert "the end of it" not in run.pane.screen()
    run.pane.type("/show 2")
    run.pane.keys("Enter")
    run.pane.wait_for(r'"topic": "the end of it"')
    run.pane.keys("C-d")
    assert run.status() == 0


def test_ctrl_c_on_an_empty_line_closes_with_a_status_code(terminal, ws_server):
    """Issue 33 item 10: Ctrl-C closed with no status code (1005 at the
    server) where Ctrl-D sends 1000."""
    srv = ws_server(recorder)
    run = terminal([srv.url()])
    run.connected()
    run.pane.keys("C-c")
    closed = srv.log.until("closed")[-1]
    assert closed[1] in (1000, 1001), closed
    assert run.status() == 130


def test_ctrl_c_closes_with_a_status_code_a_wspipe_server_sees(terminal, spawn):
    server = spawn(["-v", "--listen", "127.0.0.1:0", "--once"], stdin=b"", close_stdin=False)
    port = int(server.wait_stderr(r"listening on \S+:(\d+)").group(1))
    run = terminal([f"ws://127.0.0.1:{port}/"])
    run.connected()
    run.pane.keys("C-c")
    assert run.status() == 130
    closed = server.wait_stderr(r"client 1 closed \((.*?)\)")
    assert closed.group(1) in ("1000", "1001"), server.err.data()
