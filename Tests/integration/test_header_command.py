"""--header-command (wspipe(1): OPTIONS, Connection): run before every
connection attempt, its output lines are headers, so a reconnect carries a
fresh token; a failing command fails that attempt (retried with --wait)."""

from __future__ import annotations

import time

import helpers

# Prints a new token each time it runs: token-1, token-2, ...
TOKEN_COMMAND = ('n=$(cat {count} 2>/dev/null || echo 0); n=$((n + 1)); echo $n >{count}; '
                 'printf "Authorization: Bearer token-%s\\nX-Attempt: %s\\n" "$n" "$n"')


def test_reconnect_carries_a_second_token(run, ws_server, tmp_path):
    seen = []

    async def handler(ws, log):
        token = ws.request.headers.get("Authorization")
        seen.append((token, ws.request.headers.get("X-Fixed"), ws.request.headers.get("X-Attempt")))
        await ws.send('{"token":"%s"}' % token)
        if len(seen) == 1:
            await ws.close(1012, "restarting")   # a server restart: wspipe reconnects
        else:
            await ws.wait_closed()

    srv = ws_server(handler)
    res = run(["-U", "--max-messages", "2", *helpers.FAST_BACKOFF, "-H", "X-Fixed: yes",
               "--header-command", TOKEN_COMMAND.format(count=tmp_path / "count"), srv.url()])
    assert res.code == 0, res
    assert res.lines == ['{"token":"Bearer token-1"}', '{"token":"Bearer token-2"}']
    assert seen == [("Bearer token-1", "yes", "1"), ("Bearer token-2", "yes", "2")]
    assert "token-" not in res.stderr, "header values never go to the log"


def test_failing_command_fails_the_attempt_and_is_retried(run, ws_server, tmp_path):
    count = tmp_path / "count"
    # Fails the first time, prints a header the second.
    command = f'if [ -e {count} ]; then echo "X-Ok: 1"; else touch {count}; echo "no token yet" >&2; exit 1; fi'

    async def handler(ws, log):
        await ws.send('{"ok":"%s"}' % ws.request.headers.get("X-Ok"))
        await ws.wait_closed()

    srv = ws_server(handler)
    res = run(["-U", "-1", "--wait", "--events", *helpers.FAST_BACKOFF, "--header-command", command, srv.url()])
    assert res.code == 0, res
    assert res.lines == ['{"ok":"1"}']
    failed = helpers.events(res.stderr, "connect_failed")
    assert len(failed) == 1 and "--header-command" in failed[0]["error"] and "status 1" in failed[0]["error"], res
    assert "no token yet" in res.stderr, "the command's stderr is wspipe's"


def test_failing_command_without_wait_exits_3(run, ws_server):
    srv = ws_server(helpers.echo)
    res = run(["--header-command", "echo 'not a header'", srv.url()])
    assert res.code == 3, res
    assert "--header-command: line 1: expected 'Name: value'" in res.stderr


def test_slow_command_is_bounded_by_the_connect_timeout(run, ws_server):
    srv = ws_server(helpers.echo)
    start = time.monotonic()
    res = run(["--connect-timeout", "300ms", "--header-command", "sleep 20; echo 'X-A: 1'", srv.url()])
    assert res.code == 3, res
    assert "timed out" in res.stderr, res
    assert time.monotonic() - start < 5
