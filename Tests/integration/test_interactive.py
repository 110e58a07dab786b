"""The interactive mode (issue 11), driven in a real terminal: wspipe runs in
a tmux pane, keys go in with send-keys, the screen comes back with
capture-pane. The peers are Python websockets servers that record what they
receive, and wspipe --listen.

Each pane runs `stty -a > before; wspipe ...; echo $? > status; stty -a > after`
in sh, so the exit status and the terminal's settings around the run land
in files.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess

import pytest
from websockets.exceptions import ConnectionClosed

import helpers
from tmux_pane import TmuxPane, prompt_line, shell_command, wait_file

TIME = r"\d\d:\d\d:\d\d\.\d\d\d"


@pytest.fixture
def terminal(tmp_path, wspipe_bin):
    """terminal(args, env=None, before="", tag="run", width=None, height=None) -> Run:
    wspipe ARGS in a fresh tmux pane (100x30 unless given), after the shell
    text `before`, with HOME, XDG_STATE_HOME and XDG_CONFIG_HOME in tmp_path
    (the history and the saved messages live there); `tag` names the files
    of the run, for a second run in the same test."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (Tests/run installs it)")
    panes: list[TmuxPane] = []

    def _start(args, env=None, before="", tag="run", width=None, height=None) -> Run:
        run = Run(str(tmp_path), tag)
        child_env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        child_env.update(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"),
                         XDG_CONFIG_HOME=str(tmp_path / "config"), NO_COLOR="1")
        child_env.pop("WSPIPE_PLAIN", None)
        child_env.pop("TMUX", None)
        child_env.update(env or {})
        command = (f"stty -a > {shell_command(run.before_file)}; {before}{shell_command(wspipe_bin, *args)}; "
                   f"echo $? > {shell_command(run.status_file)}; stty -a > {shell_command(run.after_file)}")
        size = {"width": width} if width else {}
        if height:
            size["height"] = height
        run.pane = TmuxPane(str(tmp_path), command, child_env, **size)
        panes.append(run.pane)
        return run

    yield _start
    for pane in panes:
        pane.close()


class Run:
    def __init__(self, directory: str, tag: str):
        self.status_file = os.path.join(directory, f"{tag}.status")
        self.before_file = os.path.join(directory, f"{tag}.stty-before")
        self.after_file = os.path.join(directory, f"{tag}.stty-after")
        self.pane: TmuxPane | None = None

    def status(self) -> int:
        return int(wait_file(self.status_file).strip())

    def stty(self) -> tuple[str, str]:
        self.status()
        return wait_file(self.before_file), wait_file(self.after_file)

    def connected(self) -> None:
        self.pane.wait_for(rf"^- {TIME} connected to ws://")
        self.pane.wait_prompt("")


# Peers ------------------------------------------------------------------------


async def recorder(ws, log: helpers.Log) -> None:
    """Logs each connection, each message, and the Close it got (code and reason)."""
    log.put("connected", ws.request.path)
    try:
        while True:
            log.put("msg", await ws.recv())
    except ConnectionClosed as exc:
        log.put("closed", exc.rcvd.code if exc.rcvd else None, exc.rcvd.reason if exc.rcvd else None)


def messages_until_closed(server) -> tuple[list, tuple]:
    items = server.log.until("closed")
    return [i[1] for i in items if i[0] == "msg"], items[-1]


def next_message(server) -> object:
    item = server.log.get()
    while item[0] == "connected":
        item = server.log.get()
    assert item[0] == "msg", item
    return item[1]


def start_listener(spawn):
    proc = spawn(["--listen", "127.0.0.1:0", "--once"], stdin=b"", close_stdin=False)
    m = proc.wait_stderr(r"wspipe: listening on (\S+):(\d+)")
    return proc, int(m.group(2))


# Typing and sending ------------------------------------------------------------


def test_a_typed_line_is_sent_and_shown(terminal, ws_server):
    srv = ws_server(recorder)
    run = terminal([srv.url()])
    run.connected()
    run.pane.type('{"type":"hello","n":[1,2]}')
    run.pane.keys("Enter")
    assert next_message(srv) == '{"type":"hello","n":[1,2]}'
    # The transcript shows it sent, on one row, and the prompt is empty again.
    run.pane.wait_for(rf'^> {TIME} \{{"type":"hello","n":\[1,2\]\}}$')
    run.pane.wait_prompt("")
    run.pane.keys("C-d")
    assert run.status() == 0
    _, closed = messages_until_closed(srv)
    assert closed == ("closed", 1000, "")


def test_editing_with_the_cursor_keys(terminal, ws_server):
    srv = ws_server(recorder)
    run = terminal([srv.url()])
    run.connected()
    # Left into the middle of a word, Home and End.
    run.pane.type('{"k":"helo"}')
    run.pane.keys("Left", "Left", "Left")
    run.pane.type("l")
    run.pane.keys("Home")
    run.pane.type("[")
    run.pane.keys("End")
    run.pane.type("]")
    run.pane.wait_prompt('[{"k":"hello"}]')
    run.pane.keys("Enter")
    assert next_message(srv) == '[{"k":"hello"}]'
    # Ctrl-W removes the word before the cursor, Backspace a character,
    # Ctrl-A/Ctrl-E/Ctrl-K and Delete edit in place.
    run.pane.type('{"x":1} junk')
    run.pane.keys("C-w", "BSpace")
    run.pane.wait_prompt('{"x":1}')
    run.pane.keys("C-a", "Delete")
    run.pane.type("{")
    run.pane.keys("C-e")
    run.pane.type(',"y":2}')
    run.pane.keys(*["Left"] * 7, "C-k")
    run.pane.wait_prompt('{"x":1}')
    run.pane.keys("Enter")
    assert next_message(srv) == '{"x":1}'
    # Wide characters move as one: three Lefts from the end land before 本.
    run.pane.type('{"w":"日本"}')
    run.pane.keys("Left", "Left", "Left")
    run.pane.type("x")
    run.pane.wait_prompt('{"w":"日x本"}')
    run.pane.keys("Enter")
    assert next_message(srv) == '{"w":"日x本"}'
    run.pane.keys("C-d")
    assert run.status() == 0


def test_ctrl_c_clears_the_line_and_keeps_the_session(terminal, ws_server):
    srv = ws_server(recorder)
    run = terminal([srv.url()])
    run.connected()
    run.pane.type('{"discarded":true}')
    run.pane.wait_prompt('{"discarded":true}')
    run.pane.keys("C-c")
    run.pane.wait_prompt("")
    run.pane.type('{"kept":true}')
    run.pane.keys("Enter")
    assert next_message(srv) == '{"kept":true}'
    run.pane.keys("C-d")
    assert run.status() == 0


# History -------------------------------------------------------------------------


def test_history_is_recalled_in_the_next_run(terminal, ws_server, tmp_path):
    srv = ws_server(recorder)
    first = terminal([srv.url()], tag="first")
    first.connected()
    first.pane.type('{"run":1}')
    first.pane.keys("Enter")
    assert next_message(srv) == '{"run":1}'
    first.pane.type("/ping")
    first.pane.keys("Enter")
    first.pane.wait_for(r"pong in \d+\.\d ms")
    first.pane.keys("C-d")
    assert first.status() == 0
    assert srv.log.until("closed")[-1] == ("closed", 1000, "")
    history = tmp_path / "state" / "wspipe" / "history"
    assert history.read_text() == '{"run":1}\n/ping\n'
    assert history.stat().st_mode & 0o777 == 0o600

    second = terminal([srv.url()], tag="second")
    second.connected()
    second.pane.keys("Up")
    second.pane.wait_prompt("/ping")
    second.pane.keys("Up")
    second.pane.wait_prompt('{"run":1}')
    second.pane.keys("Enter")
    assert next_message(srv) == '{"run":1}'
    second.pane.keys("C-d")
    assert second.status() == 0


def test_ctrl_r_searches_the_history(terminal, ws_server, tmp_path):
    history = tmp_path / "state" / "wspipe" / "history"
    history.parent.mkdir(parents=True)
    history.write_text('{"type":"subscribe","channel":"alpha"}\n{"type":"status"}\n'
                       '{"type":"subscribe","channel":"beta"}\n{"type":"ping"}\n')
    srv = ws_server(recorder)
    run = terminal([srv.url()])
    run.connected()
    run.pane.keys("C-r")
    run.pane.type("subscr")
    run.pane.wait_for(r"^\(reverse-i-search\)`subscr': \{\"type\":\"subscribe\",\"channel\":\"beta\"\}$")
    run.pane.keys("C-r")
    run.pane.wait_for(r"^\(reverse-i-search\)`subscr': \{\"type\":\"subscribe\",\"channel\":\"alpha\"\}$")
    run.pane.keys("Enter")
    assert next_message(srv) == '{"type":"subscribe","channel":"alpha"}'
    run.pane.wait_prompt("")
    run.pane.keys("C-d")
    assert run.status() == 0


# Output above the prompt -----------------------------------------------------------


def test_a_message_arriving_leaves_the_half_typed_line_intact(terminal, spawn):
    listener, port = start_listener(spawn)
    run = terminal([f"ws://127.0.0.1:{port}/"])
    run.connected()
    run.pane.type('{"draft":')
    run.pane.wait_prompt('{"draft":')
    listener.write(b'{"from":"server","n":1}\n{"$binary":"AAEC/w=="}\n')
    screen = run.pane.wait_for(rf'^< {TIME} binary 4 bytes: 00 01 02 ff$').string
    assert re.search(rf'^< {TIME} \{{"from":"server","n":1\}}$', screen, re.M), screen
    # Still the line being typed, below the messages, and still editable.
    assert prompt_line(screen) == '> {"draft":'
    assert screen.index('"from":"server"') < screen.index('> {"draft":')
    run.pane.type("true}")
    run.pane.keys("Enter")
    assert listener.wait_stdout_lines(1) == [b'{"draft":true}']
    run.pane.keys("C-d")
    assert run.status() == 0
    assert listener.finish().code == 0


def test_the_select_fallback_drives_a_session(terminal, spawn, tmp_path):
    """macOS's poll(2) reports POLLNVAL for a terminal, so there the event
    loop waits for character devices with select(2). WSPIPE_SELECT_TTYS=1
    forces that wait here: the session types, receives above the half-typed
    line and ends as with poll, and strace shows the waits were select's
    (nothing else in wspipe calls it)."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (Tests/run installs it with apt-get when it can)")
    probe = subprocess.run([strace, "-e", "trace=none", "true"], capture_output=True, timeout=30,
                           stdin=subprocess.DEVNULL)
    if probe.returncode != 0:
        pytest.skip(f"strace cannot trace here: {probe.stderr.decode(errors='replace')[:200]}")
    trace = tmp_path / "select.trace"
    listener, port = start_listener(spawn)
    run = terminal([f"ws://127.0.0.1:{port}/"], env={"WSPIPE_SELECT_TTYS": "1"},
                   before=f"{shell_command(strace)} -f -e trace=select,pselect6 -o {shell_command(str(trace))} ")
    run.connected()
    run.pane.type('{"draft":')
    run.pane.wait_prompt('{"draft":')
    listener.write(b'{"from":"server","n":1}\n')
    screen = run.pane.wait_for(rf'^< {TIME} \{{"from":"server","n":1\}}$').string
    assert prompt_line(screen) == '> {"draft":', screen
    run.pane.type("true}")
    run.pane.keys("Enter")
    assert listener.wait_stdout_lines(1) == [b'{"draft":true}']
    run.pane.keys("C-d")
    assert run.status() == 0
    assert listener.finish().code == 0
    calls = trace.read_text()
    assert re.search(r"\b(p?select6?)\(", calls), calls[:2000]


def test_an_invalid_line_stays_with_the_cursor_at_the_end(terminal, ws_server):
    """The error shows under the line, and the cursor stays where typing goes
    on: after the last character, so Ctrl-U starts over, as in a shell."""
    srv = ws_server(recorder)
    run = terminal([srv.url()])
    run.connected()
    run.pane.type('{"a":1,}')
    run.pane.keys("Enter")
    screen = run.pane.wait_for(r"^invalid JSON at 1:8: .*not sent").string
    assert prompt_line(screen) == '> {"a":1,}'
    # The cursor is at the end: Backspace removes the "}", typing goes on there.
    run.pane.keys("BSpace")
    run.pane.wait_prompt('{"a":1,')
    run.pane.type('"b":2}')
    run.pane.keys("Enter")
    assert next_message(srv) == '{"a":1,"b":2}', "the invalid line must not have been sent"
    # Ctrl-U after a rejected line clears all of it.
    run.pane.type("not json")
    run.pane.keys("Enter")
    run.pane.wait_for(r"^invalid JSON at 1:2: ")
    run.pane.keys("C-u")
    run.pane.wait_prompt("")
    run.pane.type("[1]")
    run.pane.keys("Enter")
    assert next_message(srv) == "[1]"
    run.pane.keys("C-d")
    assert run.status() == 0


def test_a_pasted_pretty_json_value_is_one_message(terminal, ws_server):
    srv = ws_server(recorder)
    run = terminal([srv.url()])
    run.connected()
    run.pane.paste('{\n  "type": "order",\n  "items": [\n    1,\n    2\n  ]\n}')
    run.pane.wait_for(r'^> \{\n\s+"type": "order",\n\s+"items": \[')
    run.pane.keys("Enter")
    assert next_message(srv) == '{"type":"order","items":[1,2]}'
    run.pane.keys("C-d")
    assert run.status() == 0
    messages, _ = messages_until_closed(srv)
    assert messages == []


# Commands ----------------------------------------------------------------------------


def test_ping_shows_the_round_trip(terminal, ws_server):
    srv = ws_server(recorder)
    run = terminal([srv.url()])
    run.connected()
    run.pane.type("/ping hello")
    run.pane.keys("Enter")
    run.pane.wait_for(rf'^- {TIME} pong "hello" in \d+\.\d ms$')
    run.pane.keys("C-d")
    assert run.status() == 0
    messages, _ = messages_until_closed(srv)
    assert messages == [], "a ping is not a message"


def test_close_sends_the_code_and_reason(terminal, ws_server):
    srv = ws_server(recorder)
    run = terminal([srv.url()])
    run.connected()
    run.pane.type("/close 4000 bye")
    run.pane.keys("Enter")
    _, closed = messages_until_closed(srv)
    assert closed == ("closed", 4000, "bye")
    assert run.status() == 0
    assert re.search(rf'^- {TIME} disconnected: 4000 "bye", closed by the client$', run.pane.screen(), re.M)


def test_text_binary_and_reconnect(terminal, ws_server, tmp_path):
    srv = ws_server(recorder)
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\xfe\xff")
    run = terminal([srv.url()])
    run.connected()
    run.pane.type("/text not json")
    run.pane.keys("Enter")
    assert next_message(srv) == "not json"
    run.pane.type("/binary ~/blob.bin")
    run.pane.keys("Enter")
    assert next_message(srv) == b"\x00\x01\xfe\xff"
    run.pane.wait_for(rf"^> {TIME} binary 4 bytes: 00 01 fe ff$")
    run.pane.type("/reconnect")
    run.pane.keys("Enter")
    assert srv.log.until("closed")[-1] == ("closed", 1000, "")
    assert srv.log.get() == ("connected", "/")
    screen = run.pane.wait(lambda s: len(re.findall(rf"^- {TIME} connected to ws://", s, re.M)) == 2,
                           "a second connection")
    assert re.search(rf"^- {TIME} disconnected: 1000 \(normal closure\), closed by the client\n"
                     rf"- {TIME} connecting to ws://\S+ \(attempt 2\)$", screen, re.M), screen
    run.pane.type('{"after":"reconnect"}')
    run.pane.keys("Enter")
    assert next_message(srv) == '{"after":"reconnect"}'
    run.pane.keys("C-d")
    assert run.status() == 0


# Lifecycle, options, screen ------------------------------------------------------------


def test_the_lifecycle_shows_inline(terminal, ws_server):
    """connected with the subprotocol; disconnected with code, reason and who;
    reconnecting in N s; a line typed meanwhile is queued and sent after."""
    connections = []

    async def handler(ws, log):
        connections.append(ws)
        if len(connections) == 1:
            await ws.recv()
            await ws.close(4001, "go away")
            return
        await recorder(ws, log)

    srv = ws_server(handler, subprotocols=["chat"])
    run = terminal(["--protocol", "chat", "--backoff", "300ms", "--jitter", "0", srv.url()])
    run.pane.wait_for(rf"^- {TIME} connected to ws://\S+ \(HTTP 101, subprotocol chat\)$")
    run.pane.type('{"first":1}')
    run.pane.keys("Enter")
    run.pane.wait_for(rf'^- {TIME} disconnected: 4001 "go away", closed by the server\n'
                      rf"(.*\n)*- {TIME} reconnecting in 0\.3 s \(attempt 2\)$")
    run.pane.wait_for(rf"^- {TIME} connecting to ws://\S+ \(attempt 2\)\n- {TIME} connected to ")
    run.pane.type('{"second":2}')
    run.pane.keys("Enter")
    assert next_message(srv) == '{"second":2}'
    run.pane.keys("C-d")
    assert run.status() == 0


def test_routes_and_events_still_apply(terminal, ws_server, tmp_path):
    """A message routed to a file goes there, not to the transcript; --events
    lines are shown in the transcript instead of breaking the edit area;
    --on-connect messages are sent and shown."""
    async def handler(ws, log):
        await ws.send('{"type":"note","text":"to the file"}')
        await ws.send('{"type":"chat","text":"to the screen"}')
        await recorder(ws, log)

    srv = ws_server(handler)
    notes = tmp_path / "notes.ndjson"
    run = terminal(["--route", f"note={notes}", "--events", "--on-connect", '{"type":"hello"}', srv.url()])
    screen = run.pane.wait_for(rf'^< {TIME} \{{"type":"chat",').string
    assert "to the file" not in screen
    # The --on-connect message went out, and shows as sent.
    assert next_message(srv) == '{"type":"hello"}'
    assert re.search(rf'^> {TIME} \{{"type":"hello"\}}$', screen, re.M), screen
    assert re.search(rf'^- {TIME} \{{"\$event":"connected","time":"[0-9TZ:.-]+","url":"ws://', screen, re.M), screen
    assert notes.read_text() == '{"type":"note","text":"to the file"}\n'
    run.pane.keys("C-d")
    assert run.status() == 0


def test_dash_i_with_stdout_redirected_draws_on_stderr(terminal, ws_server, tmp_path):
    """-i with stdout a file: the editor and transcript on the terminal
    (stderr), the NDJSON lines in the file."""
    async def handler(ws, log):
        await ws.send('{"hello":"there"}')
        await recorder(ws, log)

    srv = ws_server(handler)
    out = tmp_path / "out.ndjson"
    run = terminal(["-i", srv.url()], before="exec >" + shell_command(str(out)) + "; ")
    run.connected()
    run.pane.wait_for(rf'^< {TIME} \{{"hello":"there"\}}$')
    run.pane.type('{"typed":true}')
    run.pane.keys("Enter")
    assert next_message(srv) == '{"typed":true}'
    run.pane.keys("C-d")
    assert run.status() == 0
    assert out.read_text() == '{"hello":"there"}\n'


@pytest.mark.needs("proc")
def test_a_resize_redraws_the_line(terminal, ws_server):
    srv = ws_server(recorder)
    run = terminal([srv.url()])
    run.connected()
    text = '{"long":"' + "abcdefghij" * 8
    run.pane.type(text)
    run.pane.wait_prompt(text)
    # Stopped, wspipe finds the keys typed after the resize and the SIGWINCH
    # that announced it ready at once: the keys must still be drawn at the new width.
    pid = wspipe_pid(run.pane)
    os.kill(pid, signal.SIGSTOP)
    try:
        run.pane.resize(50, 30)
        run.pane.type('"}')
    finally:
        os.kill(pid, signal.SIGCONT)
    # Drawn once, at the new width: the rows join up to the whole line.
    screen = run.pane.wait(lambda s: '"}' in s and s.count('{"long"') == 1 and text + '"}' in s.replace("\n", ""),
                           "the line redrawn once at 50 columns")
    assert all(len(line.rstrip()) <= 50 for line in screen.split("\n")), screen
    run.pane.keys("Enter")
    assert next_message(srv) == text + '"}'
    run.pane.keys("C-d")
    assert run.status() == 0


@pytest.mark.parametrize("no_color", ["", "1"])
def test_colours_unless_no_color(terminal, ws_server, no_color):
    srv = ws_server(recorder)
    run = terminal([srv.url()], env={"NO_COLOR": no_color})
    run.connected()
    run.pane.type('{"a":"b"}')
    run.pane.keys("Enter")
    assert next_message(srv) == '{"a":"b"}'
    run.pane.wait_for(rf"^> {TIME} \{{")
    styled = run.pane.tmux("capture-pane", "-p", "-e", "-t", "t")
    green = "\x1b[32m"   # the connected note
    if no_color:
        assert green not in styled and "\x1b[2m" not in styled, repr(styled[:400])
    else:
        assert green in styled, repr(styled[:400])
    run.pane.keys("C-d")
    assert run.status() == 0


# The terminal is restored ----------------------------------------------------------------


@pytest.mark.needs("proc")
@pytest.mark.parametrize("ending,status", [("ctrl-d", 0), ("ctrl-c", 130), ("sigterm", 143)])
def test_the_terminal_is_restored(terminal, ws_server, ending, status):
    srv = ws_server(recorder)
    run = terminal([srv.url()])
    run.connected()
    run.pane.type('{"half":')
    run.pane.wait_prompt('{"half":')
    if ending == "ctrl-d":
        run.pane.keys("C-u", "C-d")
    elif ending == "ctrl-c":
        run.pane.keys("C-c")
        run.pane.wait_prompt("")
        run.pane.keys("C-c")
    else:
        os.kill(wspipe_pid(run.pane), signal.SIGTERM)
    assert run.status() == status
    before, after = run.stty()
    assert "-icanon" not in before and "-echo " not in before, before
    assert after == before
    _, closed = messages_until_closed(srv)
    assert closed == ("closed", 1000, ""), "every ending closes cleanly"
    # The edit area is gone: no prompt left on the screen.
    assert prompt_line(run.pane.screen()) is None


def wspipe_pid(pane: TmuxPane) -> int:
    """The pane's shell runs wspipe as its child."""
    shell = int(pane.tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip())
    with open(f"/proc/{shell}/task/{shell}/children") as f:
        children = f.read().split()
    assert len(children) == 1, children
    return int(children[0])


# Never in a pipe ---------------------------------------------------------------------------


def test_dash_i_needs_a_terminal_on_stdin(run):
    res = run(["-i", "ws://127.0.0.1:9/"])
    assert res.code == 2, res
    assert "wspipe: --interactive: stdin is not a terminal" in res.stderr
