"""Routing by message type (wspipe(1): ROUTING): --type-key, --route VALUE=DEST, --route-errors.

Every test has a websockets server send a known list of messages and close
with 1000, so wspipe ends by itself (exit 0 unless a route failed). Each
incoming message must land in exactly one place, in arrival order per
destination. Files and command output are read after wspipe has exited: it
must have flushed its files and waited for its commands by then.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import shutil
import threading
import time

import pytest

import helpers
from helpers import events, vm_rss_kib

needs_jq = pytest.mark.skipif(shutil.which("jq") is None,
                              reason="jq is not installed (Tests/run installs it with apt-get when it can)")


def m(kind, n: int, **extra) -> str:
    """A compact JSON message with a type member (kind None: no type member)."""
    body = {} if kind is None else {"type": kind}
    body["n"] = n
    body.update(extra)
    return json.dumps(body, separators=(",", ":"))


def lines_of(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def read_file(path) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def serve_and_run(spawn, ws_server, messages, args, timeout: float = helpers.RUN_TIMEOUT, **kw) -> helpers.Result:
    """The server sends `messages` (str = text, bytes = binary) then Close 1000;
    wspipe runs with stdin open (so only the server ends the session)."""
    srv = ws_server(helpers.send_then_close(messages))
    return spawn([*args, srv.url()], stdin=b"", close_stdin=False, **kw).finish(timeout)


def json_stderr_lines(stderr: str) -> list[str]:
    """Routed message lines on stderr (everything but 'wspipe: ...' notices)."""
    return [l for l in stderr.split("\n") if l and not l.startswith("wspipe: ")]


# -- stdout, stderr, drop ------------------------------------------------------


def test_stdout_stderr_drop_and_fallback(spawn, ws_server):
    msgs = [m("a", 0), m("b", 1), m("c", 2), m("other", 3), m(None, 4), "[1,2]", m("a", 5),
            m("b", 6), m("c", 7), '"a"', m("a", 8, deep={"type": "b"})]
    res = serve_and_run(spawn, ws_server, msgs, ["--route", "a=stdout", "--route", "b=stderr", "--route", "c=drop"])
    assert res.code == 0, res
    # a -> stdout, and everything without a route (other type, no type, non-objects) -> stdout too.
    assert res.lines == [msgs[i] for i in (0, 3, 4, 5, 6, 9, 10)], res
    assert json_stderr_lines(res.stderr) == [msgs[1], msgs[7]], res
    assert '"type":"c"' not in res.stderr and b'"type":"c"' not in res.stdout, res


def test_star_route_catches_what_nothing_else_did(spawn, ws_server, tmp_path):
    rest = tmp_path / "rest.ndjson"
    msgs = [m("a", 0), m("b", 1), "plain text", b"\x01\x02", m(None, 2), m("a", 3), "17"]
    res = serve_and_run(spawn, ws_server, msgs, ["--route", "a=stdout", "--route", f"*={rest}"])
    assert res.code == 0, res
    assert res.lines == [msgs[0], msgs[5]], res
    # No $text/$binary route: non-JSON text and binary fall back to '*' too.
    assert lines_of(read_file(rest)) == [msgs[1], '{"$text":"plain text"}', '{"$binary":"AQI="}', msgs[4], "17"]


def test_star_drop_keeps_only_routed_types(spawn, ws_server):
    msgs = [m("keep", 0), m("lose", 1), "not json", b"\xff", m("keep", 2), "[]"]
    res = serve_and_run(spawn, ws_server, msgs, ["--route", "*=drop", "--route", "keep=stdout"])
    assert res.code == 0, res
    assert res.lines == [msgs[0], msgs[4]], res
    assert json_stderr_lines(res.stderr) == [], res


# -- fd:N ------------------------------------------------------------------------


def test_fd_destination(spawn, ws_server):
    r, w = os.pipe()
    got = bytearray()
    reader = threading.Thread(target=lambda: _drain(r, got), daemon=True)
    reader.start()
    msgs = [m("side", i) if i % 3 == 0 else m("main", i) for i in range(30)]
    try:
        srv = ws_server(helpers.send_then_close(msgs))
        proc = spawn(["--route", f"side=fd:{w}", srv.url()], stdin=b"", close_stdin=False, pass_fds=(w,))
    finally:
        os.close(w)  # the child has its own copy: EOF comes when wspipe exits
    res = proc.finish()
    reader.join(5)
    assert not reader.is_alive(), "the fd destination was not closed when wspipe exited"
    assert res.code == 0, res
    assert res.lines == [x for x in msgs if '"main"' in x], res
    assert lines_of(got.decode()) == [x for x in msgs if '"side"' in x]


def _drain(fd: int, into: bytearray) -> None:
    try:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            into += chunk
    finally:
        os.close(fd)


# -- files -----------------------------------------------------------------------


def test_file_destination_appends_creates_and_is_shared(spawn, ws_server, tmp_path):
    shared = tmp_path / "shared.ndjson"
    shared.write_text("old line\n")
    fresh = tmp_path / "fresh.ndjson"  # does not exist yet
    msgs = [m("a", 0), m("b", 1), m("c", 2), m("a", 3), m("other", 4), m("b", 5), m("c", 6)]
    res = serve_and_run(spawn, ws_server, msgs,
                        ["--route", f"a={shared}", "--route", f"b={shared}", "--route", f"c={fresh}"])
    assert res.code == 0, res
    assert res.lines == [msgs[4]], res
    # Two routes to one file share one writer: arrival order, appended after what was there.
    assert read_file(shared) == "old line\n" + "".join(msgs[i] + "\n" for i in (0, 1, 3, 5))
    assert read_file(fresh) == msgs[2] + "\n" + msgs[6] + "\n"


def test_file_appended_across_runs(spawn, ws_server, tmp_path):
    log = tmp_path / "log.ndjson"
    for run_no in range(2):
        res = serve_and_run(spawn, ws_server, [m("log", run_no)], ["--route", f"log={log}"])
        assert res.code == 0, res
        assert res.stdout == b"", res
    assert read_file(log) == m("log", 0) + "\n" + m("log", 1) + "\n"


def test_binary_route_to_file(spawn, ws_server, tmp_path):
    bins = tmp_path / "binary.ndjson"
    payloads = [b"\x00\x01\x02\x03", b"", bytes(range(256)), b"\xff" * 1000]
    msgs = [payloads[0], m("t", 0), payloads[1], "text!", payloads[2], payloads[3]]
    res = serve_and_run(spawn, ws_server, msgs, ["--route", f"$binary={bins}"])
    assert res.code == 0, res
    assert res.lines == [m("t", 0), '{"$text":"text!"}'], res
    got = [json.loads(line) for line in lines_of(read_file(bins))]
    assert got == [{"$binary": base64.b64encode(p).decode()} for p in payloads]
    assert all(list(g) == ["$binary"] for g in got)


def test_text_route(spawn, ws_server, tmp_path):
    texts = tmp_path / "text.ndjson"
    msgs = ["hello", m("j", 0), 'quote " and \\ tab\t', b"\x07", "{not json", "ünï 🎉"]
    res = serve_and_run(spawn, ws_server, msgs, ["--route", f"$text={texts}"])
    assert res.code == 0, res
    assert res.lines == [m("j", 0), '{"$binary":"Bw=="}'], res
    got = [json.loads(line) for line in lines_of(read_file(texts))]
    assert got == [{"$text": t} for t in ("hello", 'quote " and \\ tab\t', "{not json", "ünï 🎉")]


def test_event_route_with_events(spawn, ws_server, tmp_path):
    evfile = tmp_path / "events.ndjson"
    res = serve_and_run(spawn, ws_server, [m("x", 0)], ["--events", "--route", f"$event={evfile}"])
    assert res.code == 0, res
    assert res.lines == [m("x", 0)], res
    assert events(res.stderr) == [], f"events were routed to a file, not stderr: {res}"
    evs = [json.loads(line) for line in lines_of(read_file(evfile))]
    kinds = [e["$event"] for e in evs]
    assert kinds[:2] == ["connecting", "connected"], kinds
    assert "disconnected" in kinds, kinds
    assert all(list(e)[0] == "$event" for e in evs), evs


def test_event_route_drop(spawn, ws_server):
    res = serve_and_run(spawn, ws_server, [m("x", 0)], ["--events", "--route", "$event=drop"])
    assert res.code == 0, res
    assert res.lines == [m("x", 0)], res
    assert events(res.stderr) == [] and '"$event"' not in res.stderr, res


# -- dotted type keys --------------------------------------------------------------


def test_dotted_type_key(spawn, ws_server, tmp_path):
    chat = tmp_path / "chat.ndjson"
    msgs = [
        '{"event":{"kind":"chat"},"text":"one"}',       # routed
        '{"event":{"kind":"join"},"user":"ann"}',       # another kind: fallback
        '{"type":"chat","text":"plain type key"}',      # the default key is no longer used
        '{"event":"chat"}',                             # not an object at "event"
        '{"event":{"kind":7}}',                         # not a string
        '{"event":{"other":"chat"}}',                   # key missing
        '{"text":"before","event":{"x":[1,{"kind":"no"}],"kind":"chat"}}',  # routed, nested noise
        '[{"event":{"kind":"chat"}}]',                  # not an object at the top
        '{"event":{"ki\\u006ed":"chat"},"escaped":"key"}',  # keys compare unescaped: routed
    ]
    res = serve_and_run(spawn, ws_server, msgs, ["--type-key", "event.kind", "--route", f"chat={chat}"])
    assert res.code == 0, res
    assert lines_of(read_file(chat)) == [msgs[0], msgs[6], msgs[8]]
    assert res.lines == [msgs[i] for i in (1, 2, 3, 4, 5, 7)], res


def test_type_key_with_pretty_printed_message(spawn, ws_server, tmp_path):
    """A message with line breaks is compacted and still routed by its type."""
    out = tmp_path / "out.ndjson"
    pretty = '{\n  "type": "pretty",\n  "n": [1,\n 2]\n}'
    res = serve_and_run(spawn, ws_server, [pretty, m("x", 1)], ["--route", f"pretty={out}"])
    assert res.code == 0, res
    assert read_file(out) == '{"type":"pretty","n":[1,2]}\n'
    assert res.lines == [m("x", 1)], res


# -- |COMMAND --------------------------------------------------------------------


def test_command_destination_runs_once(spawn, ws_server, tmp_path):
    out, starts = tmp_path / "cmd.out", tmp_path / "starts"
    cmd = f"echo started >> {shlex.quote(str(starts))}; cat > {shlex.quote(str(out))}"
    msgs = [m("c", i) for i in range(5)] + [m("s", 5)]
    res = serve_and_run(spawn, ws_server, msgs, ["--route", f"c=|{cmd}"])
    assert res.code == 0, res
    assert res.lines == [msgs[5]], res
    assert read_file(out) == "".join(x + "\n" for x in msgs[:5])
    assert read_file(starts) == "started\n", "the command must be started once, not once per line"


def test_command_inherits_stdout(spawn, ws_server):
    msgs = [m("up", i, text=f"line {i}") for i in range(3)]
    res = serve_and_run(spawn, ws_server, msgs, ["--route", "up=|tr a-z A-Z", "--route", "*=drop"])
    assert res.code == 0, res
    assert res.lines == [x.upper() for x in msgs], res


@needs_jq
def test_jq_pipeline_destination(spawn, ws_server, tmp_path):
    out = tmp_path / "jq.out"
    msgs = [m("chat", 0, user="ann", text="hi"), m("presence", 1, user="bob"),
            m("chat", 2, user="bob", text="yo"), m("chat", 3, user="ann", text="bye")]
    cmd = f"jq -c '{{u: .user, t: .text}}' | sed 's/^/> /' > {shlex.quote(str(out))}"
    res = serve_and_run(spawn, ws_server, msgs, ["--route", f"chat=|{cmd}"])
    assert res.code == 0, res
    assert res.lines == [msgs[1]], res
    # Read after wspipe exited: it waits for its commands, so the output is complete.
    assert read_file(out) == ('> {"u":"ann","t":"hi"}\n'
                              '> {"u":"bob","t":"yo"}\n'
                              '> {"u":"ann","t":"bye"}\n')


def _dying_command_case(spawn, ws_server, tmp_path, extra):
    first = tmp_path / "first"
    pad = "p" * 300
    # 3000 x ~320 bytes = ~1 MiB for the command, far more than a pipe holds,
    # so writes after `head` has gone must fail (EPIPE).
    msgs = []
    for i in range(3000):
        msgs.append(m("h", i, pad=pad))
        if i % 100 == 0:
            msgs.append(m("keep", i))
    cmd = f"head -n 1 > {shlex.quote(str(first))}"
    res = serve_and_run(spawn, ws_server, msgs, ["--route", f"h=|{cmd}", *extra], timeout=20)
    assert res.lines == [x for x in msgs if '"keep"' in x], f"the other routes lost lines: {res}"
    assert read_file(first) == msgs[0] + "\n"
    return res


def test_destination_command_that_dies_is_reported_once(spawn, ws_server, tmp_path):
    res = _dying_command_case(spawn, ws_server, tmp_path, [])
    assert res.code == 1, res
    reports = [l for l in res.stderr.split("\n") if "head -n 1" in l]
    # One report when it fails, one count at the end (issue 19: a failed route says what it dropped).
    assert len(reports) == 2, f"expected one report naming the command, then its count: {res.stderr[-1500:]!r}"
    assert all(r.startswith("wspipe: ") for r in reports), reports
    assert reports[0].endswith("failed: command exited; its lines are dropped from now on"), reports
    dropped = re.search(r": (\d+) message\(s\) not written \(command exited\)$", reports[1])
    assert dropped and 0 < int(dropped.group(1)) < 3000, reports


def test_destination_command_that_dies_with_route_errors_ignore(spawn, ws_server, tmp_path):
    res = _dying_command_case(spawn, ws_server, tmp_path, ["--route-errors", "ignore"])
    assert res.code == 0, res


# -- back-pressure from a slow command -----------------------------------------------

BIG_COUNT = 1000
BIG_SIZE = 80 << 10            # 1000 x 80 KiB: ~78 MiB in all
RSS_LIMIT_KIB = 64 << 10       # far less than the stream; a correct wspipe stays near 25 MiB


@pytest.mark.needs("proc")
def test_slow_command_gets_back_pressure_without_loss(spawn, ws_server, tmp_path):
    out, go = tmp_path / "slow.out", tmp_path / "go"
    pad = "z" * (BIG_SIZE - 40)
    msgs = [f'{{"type":"big","n":"{i:05d}","pad":"{pad}"}}' for i in range(BIG_COUNT)]
    progress = {"sent": 0}

    async def handler(ws, log):
        for msg in msgs:
            await ws.send(msg)
            progress["sent"] += 1
        await ws.close(1000)
        log.put("closed", ws.close_code, None)

    srv = ws_server(handler)
    # The reader does not read at all until the test creates `go` (at most ~20 s).
    cmd = (f"i=0; while [ ! -e {shlex.quote(str(go))} ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; "
           f"exec cat > {shlex.quote(str(out))}")
    proc = spawn(["--route", f"big=|{cmd}", srv.url()], stdin=b"", close_stdin=False)
    pid = proc.proc.pid

    peak = [0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], vm_rss_kib(pid))
            except (OSError, AssertionError):
                return
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        stalled_at = helpers.wait_until_stalled(lambda: progress["sent"], BIG_COUNT)
        assert stalled_at < BIG_COUNT, (
            f"the server sent all {BIG_COUNT} messages ({BIG_COUNT * BIG_SIZE >> 20} MiB) while the route's "
            "command read nothing: wspipe did not stop reading the socket")
        go.write_text("")
        res = proc.finish(20)
    finally:
        go.write_text("")  # never leave the reader waiting
        stop.set()
        sampler.join(2)
    assert res.code == 0, res
    assert res.stdout == b"", res
    assert peak[0] < RSS_LIMIT_KIB, f"wspipe RSS peaked at {peak[0] >> 10} MiB (limit {RSS_LIMIT_KIB >> 10} MiB)"
    with open(out, "rb") as f:
        data = f.read()
    nlines = data.count(b"\n")
    assert data == "".join(x + "\n" for x in msgs).encode(), (
        f"the slow command's output differs: {len(data)} bytes in {nlines} lines, expected "
        f"{BIG_COUNT} lines in order")


# -- usage errors ------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["--route", "novalue"],
    ["--route", "=stdout"],
    ["--route", "a=fd:x"],
    ["--route", "a=|"],
    ["--route", "a="],
    ["--route-errors", "sometimes"],
], ids=["no-equals", "empty-value", "bad-fd", "empty-command", "empty-destination", "bad-route-errors"])
def test_bad_route_arguments_are_usage_errors(run, args):
    res = run([*args, "ws://127.0.0.1:9/"])
    assert res.code == 2, res
    assert res.stderr.startswith("wspipe: ") and "unknown option" not in res.stderr, res
    assert res.stdout == b"", res
