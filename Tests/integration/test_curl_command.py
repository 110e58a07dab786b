"""wspipe curl (issue 34): DevTools' "Copy as cURL" in every dialect, against
a real server that checks what a browser's copy must carry (cookie, origin,
subprotocol, a header full of shell specials) and that the handshake's own
headers are wspipe's, not the copied ones.

The copies are made here with the browsers' own escaping, ported from their
sources: Chrome DevTools' NetworkLogView (escapeStringPosix /
escapeStringWin, options joined by " \\\n  " or " ^\n  ", the Cookie header
as -b) and Firefox DevTools' curl.js (the same two escapings, with \\xHH for
bytes and \\uHHHH above, all on one line, "curl.exe" for Windows).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess

import pytest

import helpers

BROWSER_KEY = "dGhlIHNhbXBsZSBub25jZQ=="
COOKIE = 'sid=8f2c41; pref="dark&wide"; n=100%PATH%!'
ORIGIN = "https://app.example.com"
PROBE = "it's \"quoted\" & 100%PATH% ^caret! `tick` $HOME \\back"
USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"


# --------------------------------------------------------------------------
# The browsers' escaping


def chrome_posix(s: str) -> str:
    """Chrome DevTools' escapeStringPosix."""
    if re.search(r"[\x00-\x1f\x7f-\x9f!]|'", s):
        body = s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
        body = re.sub(r"[\x00-\x1f\x7f-\x9f!]", lambda m: "\\u%04x" % ord(m.group(0)), body)
        return "$'" + body + "'"
    return "'" + s + "'"


def firefox_posix(s: str) -> str:
    """Firefox DevTools' escapeStringPosix (curl.js)."""
    def escape_character(ch: str) -> str:
        code = ord(ch)
        return "\\x%02x" % code if code < 256 else "\\u%04x" % code
    if re.search(r"[^\x20-\x7e]|'", s):
        body = s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
        body = re.sub(r"[^\x20-\x7e]", lambda m: escape_character(m.group(0)), body)
        return "$'" + body + "'"
    return "'" + s + "'"


def windows(s: str) -> str:
    """escapeStringWin, the same in Chrome and Firefox: for cmd.exe, then the C runtime."""
    s = s.replace("\\", "\\\\").replace('"', '\\"')
    s = re.sub(r"[^a-zA-Z0-9\s_\-:=+~/.',?;()*`]", lambda m: "^" + m.group(0), s)
    s = re.sub(r"%(?=[a-zA-Z0-9_])", "%^", s)
    s = re.sub(r"\r\n|[\n\r]", "^\n\n", s)
    return '^"' + s + '^"'


def chrome_headers(port: int) -> list[tuple[str, str]]:
    """What Chrome sends with a WebSocket upgrade, in its order."""
    return [
        ("Upgrade", "websocket"), ("Origin", ORIGIN), ("Cache-Control", "no-cache"),
        ("Accept-Language", "en-US,en;q=0.9"), ("Pragma", "no-cache"), ("Cookie", COOKIE),
        ("Connection", "Upgrade"), ("Sec-WebSocket-Key", BROWSER_KEY), ("User-Agent", USER_AGENT),
        ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Protocol", "chat, superchat"),
        ("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits"), ("X-Probe", PROBE),
        ("Accept-Encoding", "gzip, deflate, br, zstd"),
    ]


def firefox_headers(port: int) -> list[tuple[str, str]]:
    return [
        ("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"),
        ("Accept", "*/*"), ("Accept-Language", "en-US,en;q=0.5"), ("Accept-Encoding", "gzip, deflate, br, zstd"),
        ("Sec-WebSocket-Version", "13"), ("Origin", ORIGIN), ("Sec-WebSocket-Protocol", "chat"),
        ("Sec-WebSocket-Extensions", "permessage-deflate"), ("Sec-WebSocket-Key", BROWSER_KEY),
        ("Connection", "keep-alive, Upgrade"), ("Cookie", COOKIE), ("Sec-Fetch-Dest", "empty"),
        ("Sec-Fetch-Mode", "websocket"), ("Sec-Fetch-Site", "same-origin"), ("X-Probe", PROBE),
        ("Pragma", "no-cache"), ("Cache-Control", "no-cache"), ("Upgrade", "websocket"),
    ]


def chrome_copy(url: str, headers, escape, joiner: str) -> str:
    """Chrome's generateCurlCommand: Accept-Encoding becomes --compressed, Cookie -b."""
    command = ["curl " + escape(url)]
    compressed = False
    for name, value in headers:
        if name.lower() == "accept-encoding":
            compressed = True
        elif name.lower() == "cookie":
            command.append("-b " + escape(value))
        else:
            command.append("-H " + escape(f"{name}: {value}"))
    if compressed:
        command.append("--compressed")
    return joiner.join(command)


def firefox_copy(url: str, headers, escape, program: str) -> str:
    command = [program, escape(url)]
    for name, value in headers:
        command += ["-H", escape(f"{name}: {value}")]
    return " ".join(command)


DIALECTS = {
    "chrome-bash": lambda url, port: chrome_copy(url, chrome_headers(port), chrome_posix, " \\\n  "),
    "chrome-cmd": lambda url, port: chrome_copy(url, chrome_headers(port), windows, " ^\n  "),
    "firefox-posix": lambda url, port: firefox_copy(url, firefox_headers(port), firefox_posix, "curl"),
    "firefox-windows": lambda url, port: firefox_copy(url, firefox_headers(port), windows, "curl.exe"),
}


# --------------------------------------------------------------------------
# The server that checks


def checking_server(ws_server, protocols=("chat",), **kwargs):
    """A websockets server (permessage-deflate on) that answers the upgrade
    only when the request is what the copy said and the handshake is wspipe's
    own: it then sends {"ok": true, ...}; otherwise it closes with 4400 and
    the reasons. Every request is logged."""

    async def handler(ws, log):
        headers = ws.request.headers
        log.put("request", headers)
        wrong = []

        def one(name):
            values = headers.get_all(name)
            if len(values) != 1:
                wrong.append(f"{name} x{len(values)}")
                return None
            return values[0]

        if one("Cookie") != COOKIE:
            wrong.append("cookie")
        if one("Origin") != ORIGIN:
            wrong.append("origin")
        if ws.subprotocol != "chat":
            wrong.append(f"subprotocol {ws.subprotocol}")
        if one("X-Probe") != PROBE:
            wrong.append("x-probe")
        key = one("Sec-WebSocket-Key")
        if key == BROWSER_KEY or key is None or len(base64.b64decode(key)) != 16:
            wrong.append("key is not wspipe's")
        if one("Sec-WebSocket-Version") != "13":
            wrong.append("version")
        if (one("Upgrade") or "").lower() != "websocket":
            wrong.append("upgrade")
        if (one("Connection") or "").lower() != "upgrade":
            wrong.append("connection")
        if one("Host") != f"127.0.0.1:{ws.local_address[1]}":
            wrong.append("host")
        if headers.get_all("Accept-Encoding"):
            wrong.append("accept-encoding")
        if ws.request.headers.get("Sec-WebSocket-Extensions") and "permessage-deflate" not in (
                ws.response.headers.get("Sec-WebSocket-Extensions") or ""):
            wrong.append("deflate not negotiated")
        if wrong:
            await ws.close(4400, ", ".join(wrong)[:120])
            log.put("closed", 4400, None)
            return
        await ws.send(json.dumps({"ok": True, "ua": headers.get("User-Agent"),
                                  "deflate": "permessage-deflate" in (ws.response.headers.get("Sec-WebSocket-Extensions") or "")}))
        try:
            async for _ in ws:
                pass
        finally:
            log.put("closed", ws.close_code, None)

    return ws_server(handler, subprotocols=list(protocols), compression="deflate", **kwargs)


def _verdict(res) -> dict:
    assert res.code == 0, res
    assert len(res.lines) == 1, res
    verdict = json.loads(res.lines[0])
    assert verdict["ok"] is True, res
    return verdict


def _shell(wspipe_bin: str, text: str, tmp_path, timeout: float = helpers.RUN_TIMEOUT) -> helpers.Result:
    """Runs `text` with bash, as a user pasting it: $WSPIPE is wspipe."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(WSPIPE=wspipe_bin, NO_COLOR="1")
    done = subprocess.run(["bash", "-c", text], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=timeout)
    return helpers.Result(done.returncode, done.stdout, done.stderr.decode(errors="replace"))


# --------------------------------------------------------------------------
# Each dialect, as it comes


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_a_copy_on_stdin(run, ws_server, dialect):
    """wspipe curl - reads the copy as its shell would, whichever wrote it."""
    srv = checking_server(ws_server)
    copy = DIALECTS[dialect](srv.url("/live?room=1"), srv.port)
    if "windows" in dialect or "cmd" in dialect:
        copy = copy.replace("\n", "\r\n")  # a Windows clipboard
        assert "^\"" in copy
    res = run(["curl", "-", "--", "-U", "-1", "--no-reconnect"], stdin=copy.encode() + b"\n")
    verdict = _verdict(res)
    assert verdict["ua"].startswith("Mozilla/5.0"), "the browser's User-Agent, as curl -H would send it"
    assert verdict["deflate"] is True, "Sec-WebSocket-Extensions: permessage-deflate became --compress"


@pytest.mark.parametrize("dialect", ["chrome-bash", "firefox-posix"])
def test_a_copy_pasted_after_wspipe_curl(wspipe_bin, ws_server, dialect, tmp_path):
    """Pasted into bash after "wspipe curl": bash takes the quotes off."""
    srv = checking_server(ws_server)
    copy = DIALECTS[dialect](srv.url("/live"), srv.port)
    res = _shell(wspipe_bin, f'"$WSPIPE" curl {copy} -- -U -1', tmp_path)
    _verdict(res)
    # The copy's own "curl" is optional: "wspipe " then the copy works too.
    _verdict(_shell(wspipe_bin, f'"$WSPIPE" {copy} -- -U -1', tmp_path))
    # And one argument holding the whole copy ("$(xclip -o)").
    quoted = "'" + copy.replace("'", "'\\''") + "'"
    _verdict(_shell(wspipe_bin, f'"$WSPIPE" curl {quoted} -- -U -1', tmp_path))


def test_v_says_what_was_dropped_and_why(run, ws_server):
    srv = checking_server(ws_server)
    copy = DIALECTS["chrome-bash"](srv.url("/"), srv.port)
    res = run(["curl", "-", "--", "-U", "-1", "-v"], stdin=copy.encode())
    _verdict(res)
    for said in ["curl: Sec-WebSocket-Key dropped: wspipe makes a new key for each handshake",
                 "curl: Upgrade dropped: the WebSocket handshake sends its own",
                 "curl: Connection dropped: the WebSocket handshake sends its own",
                 "curl: Sec-WebSocket-Version dropped: the WebSocket handshake sends its own",
                 "curl: --compressed dropped:",
                 "curl: Sec-WebSocket-Extensions: permessage-deflate read as --compress",
                 "curl: Sec-WebSocket-Protocol: chat, superchat read as --protocol"]:
        assert said in res.stderr, (said, res.stderr)
    # Without -v, nothing is said.
    quiet = run(["curl", "-", "--", "-U", "-1"], stdin=copy.encode())
    _verdict(quiet)
    assert "dropped" not in quiet.stderr, quiet


def test_the_rest_of_stdin_is_the_sessions(ws_server, spawn):
    """The command ends at the line that completes it; the lines after it are messages."""
    srv = ws_server(helpers.record)
    copy = f"curl '{srv.url('/in')}' \\\n  -H 'Origin: {ORIGIN}' \\\n  --compressed\n"
    proc = spawn(["curl", "-"], stdin=(copy + '{"n":1}\n{"n":2}\n').encode())
    kind, _, headers, _ = srv.log.get()
    assert kind == "request"
    assert headers.get("Origin") == ORIGIN
    messages, _ = helpers.received_messages(srv.log)
    assert messages == ['{"n":1}', '{"n":2}']
    assert proc.finish().code == 0


# --------------------------------------------------------------------------
# --print


def _request_headers(srv) -> list[tuple[str, str]]:
    kind, headers = srv.log.get()[:2]
    assert kind == "request"
    srv.log.until("closed")
    return sorted((k.lower(), v) for k, v in headers.raw_items() if k.lower() != "sec-websocket-key")


def test_print_round_trip(wspipe_bin, ws_server, tmp_path):
    """The printed command, run, sends the same handshake as wspipe curl; the
    secrets are in a file of mode 0600, not in the command."""
    srv = checking_server(ws_server)
    copy = DIALECTS["chrome-bash"](srv.url("/live"), srv.port)
    direct = _shell(wspipe_bin, f'"$WSPIPE" curl {copy} -- -U -1', tmp_path)
    _verdict(direct)
    sent_directly = _request_headers(srv)

    printed = _shell(wspipe_bin, f'"$WSPIPE" curl --print {copy} -- -U -1', tmp_path)
    assert printed.code == 0, printed
    command = printed.stdout.decode()
    assert command.startswith(f"wspipe {srv.url('/live')} \\\n"), command
    assert "8f2c41" not in command, "the cookie stays out of the command"
    assert "--header-file 127.0.0.1.headers" in command, command
    assert "Sec-WebSocket-Key" not in command and "Upgrade" not in command, command
    secrets = tmp_path / "127.0.0.1.headers"
    assert oct(secrets.stat().st_mode & 0o777) == "0o600"
    assert secrets.read_text() == f"Cookie: {COOKIE}\n"
    assert "wrote with mode 0600: 127.0.0.1.headers (Cookie)" in printed.stderr, printed

    again = _shell(wspipe_bin, command.replace("wspipe ", '"$WSPIPE" ', 1), tmp_path)
    _verdict(again)
    assert _request_headers(srv) == sent_directly


def test_print_moves_user_and_authorization_to_the_file(run, tmp_path):
    env_cwd = tmp_path
    done = subprocess.run([os.environ["WSPIPE"], "curl", "--print", "wss://api.example.com/ws",
                           "-H", "Authorization: Bearer t0k", "-b", "a=1", "-x", "proxy.corp:3128", "-U", "pu:pp"],
                          cwd=env_cwd, capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done
    command = done.stdout.decode()
    assert command == ("wspipe wss://api.example.com/ws \\\n  --proxy http://proxy.corp:3128 \\\n"
                       "  --header-file api.example.com.headers \\\n  --proxy-user-file api.example.com.proxy-user\n")
    assert (tmp_path / "api.example.com.headers").read_text() == "Authorization: Bearer t0k\nCookie: a=1\n"
    assert (tmp_path / "api.example.com.proxy-user").read_text() == "pu:pp\n"
    # -u alone: its credentials as a Basic Authorization header.
    done = subprocess.run([os.environ["WSPIPE"], "curl", "--print", "wss://api.example.com/ws", "-u", "ann:pw"],
                          cwd=env_cwd, capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done
    assert (tmp_path / "api.example.com.headers").read_text() == "Authorization: Basic YW5uOnB3\n"
    assert b"ann:pw" not in done.stdout


# --------------------------------------------------------------------------
# What cannot be honoured


@pytest.mark.parametrize("args, named", [
    (["wss://h.example/", "--data-raw", "{}"], "--data-raw: a WebSocket handshake is a GET without a body"),
    (["wss://h.example/", "-X", "POST"], "-X POST: a WebSocket handshake is a GET"),
    (["wss://h.example/", "--frobnicate"], "unknown option '--frobnicate'"),
    (["wss://h.example/", "-o", "out.json"], "-o: the messages go to stdout"),
    (["wss://h.example/", "-m", "5"], "-m: a session has no fixed length"),
    (["-H", "X-A: 1"], "the command has no URL"),
])
def test_a_curl_option_it_cannot_honour_is_refused(run, args, named):
    res = run(["curl", "curl", *args])
    assert res.code == 2, res
    assert named in res.stderr, res
    assert res.stderr.startswith("wspipe: curl: "), res
    assert "Try 'wspipe curl --help'" in res.stderr
    assert res.stdout == b""


def test_text_it_will_not_run(run):
    for text, said in [("curl \"wss://h/$TOKEN\"\n", "shell variable"),
                       ("curl 'wss://h/' | sh\n", "'|' outside quotes"),
                       ("curl ^\"wss://h/^\" & del x\n", "'&' outside quotes")]:
        res = run(["curl", "-"], stdin=text.encode())
        assert res.code == 2, res
        assert said in res.stderr, res
    # On stdin the command ends with its last line (what follows is the
    # session's); in one argument, a second command is seen.
    res = run(["curl", "curl 'wss://h/'\ncurl 'wss://i/'\n"])
    assert res.code == 2, res
    assert "more than one command" in res.stderr, res


def test_wspipe_flags_after_the_double_dash_are_wspipes(run, ws_server):
    """After --, -b is wspipe's --binary again (curl's -b is a cookie before it)."""
    srv = ws_server(helpers.record)
    res = run(["curl", srv.url("/"), "-b", "k=v", "--", "-b"], stdin=b"raw bytes\n")
    kind, _, headers, _ = srv.log.get()
    assert headers.get("Cookie") == "k=v"
    messages, _ = helpers.received_messages(srv.log)
    assert messages == [b"raw bytes"], messages
    assert res.code == 0, res


def test_help(run):
    res = run(["curl", "--help"])
    assert res.code == 0, res
    text = res.stdout.decode()
    assert text.startswith("Usage: wspipe curl [--print] CURL_ARGUMENTS... [-- OPTIONS]\n")
    assert "-H, --header" in text and "--compressed" in text


def test_pasted_at_a_terminal_then_interactive(ws_server, wspipe_bin, tmp_path):
    """wspipe curl - at a terminal: the command is pasted (two lines, the
    first continued), and once it is whole the interactive mode starts on
    the same terminal."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (Tests/run installs it)")
    from tmux_pane import TmuxPane, shell_command, wait_file
    srv = ws_server(helpers.record)
    status = tmp_path / "status"
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy") and k != "TMUX"}
    env.update(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"), NO_COLOR="1")
    pane = TmuxPane(str(tmp_path), f"{shell_command(wspipe_bin, 'curl', '-')}; echo $? > {shell_command(str(status))}",
                    env)
    try:
        pane.wait_for(r"paste the command")
        pane.type(f"curl '{srv.url('/tty')}' \\")
        pane.keys("Enter")
        pane.type(f"  -H 'Origin: {ORIGIN}' -H 'Sec-WebSocket-Key: {BROWSER_KEY}'")
        pane.keys("Enter")
        pane.wait_for(r"connected to ws://")
        kind, path, headers, _ = srv.log.get()
        assert (kind, path, headers.get("Origin")) == ("request", "/tty", ORIGIN)
        assert headers.get("Sec-WebSocket-Key") != BROWSER_KEY
        pane.type('{"typed":1}')
        pane.keys("Enter")
        assert srv.log.get() == ("msg", '{"typed":1}')
        pane.keys("C-d")
        assert wait_file(str(status)).strip() == "0"
    finally:
        pane.close()
