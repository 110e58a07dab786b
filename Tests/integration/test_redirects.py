"""-L/--location, --max-redirs and --location-downgrade (issue 25): a
websockets server that answers some paths with a redirect (its
process_request hook) and upgrades the others, logging every request it
gets with its headers."""

from __future__ import annotations

import pytest

import helpers
from helpers import FAST_BACKOFF, events, server_ssl_context


def redirecting(ws_server, routes: dict, ssl_context=None, on_final=None):
    """A server on 127.0.0.1: a request for a path in `routes` (path ->
    (status, location), location may be a function of the server) gets that
    redirect; any other path is upgraded and echoed. srv.log gets
    ("request", path, headers) for every request."""
    holder = {}

    def process_request(connection, request):
        holder["srv"].log.put("request", request.path, request.headers)
        if request.path in routes:
            status, location = routes[request.path]
            response = connection.respond(status, "moved\n")
            response.headers["Location"] = location(holder["srv"]) if callable(location) else location
            return response
        return None

    async def handler(ws, log):
        if on_final is not None:
            await on_final(ws, log)
            return
        async for message in ws:
            await ws.send(message)

    srv = ws_server(handler, ssl_context=ssl_context, process_request=process_request)
    holder["srv"] = srv
    return srv


def requests(srv, count, timeout=helpers.EVENT_TIMEOUT):
    """The next `count` requests the server logged: [(path, headers)]."""
    out = []
    while len(out) < count:
        item = srv.log.get(timeout)
        if item[0] == "request":
            out.append((item[1], item[2]))
    return out


def no_more_requests(srv):
    leftover = []
    while not srv.log.q.empty():
        item = srv.log.q.get_nowait()
        if item[0] == "request":
            leftover.append(item[1])
    assert leftover == [], f"unexpected requests {leftover}"


LOCATIONS = {
    301: lambda s: f"http://127.0.0.1:{s.port}/final?from=301",   # http:// is ws://
    302: "final?from=302",                                          # relative to /start
    303: "/final?from=303",                                         # absolute path
    307: lambda s: f"ws://127.0.0.1:{s.port}/final?from=307",
    308: lambda s: f"//127.0.0.1:{s.port}/final?from=308",          # scheme-relative
}


@pytest.mark.parametrize("status", sorted(LOCATIONS))
def test_each_redirect_status_is_followed(run, ws_server, status):
    srv = redirecting(ws_server, {"/start": (status, LOCATIONS[status])})
    res = run(["-L", "--events", srv.url("/start")], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    assert res.lines == ['{"n":1}'], res
    assert [path for path, _ in requests(srv, 2)] == ["/start", f"/final?from={status}"]
    redirected = events(res.stderr, "redirected")
    assert redirected == [{"$event": "redirected", "status": status, "from": srv.url("/start"),
                           "to": srv.url(f"/final?from={status}")}], res
    assert events(res.stderr, "connected")[0]["url"] == srv.url(f"/final?from={status}")


def test_without_L_a_redirect_is_reported_with_a_hint(run, ws_server):
    srv = redirecting(ws_server, {"/start": (302, "/final")})
    res = run([srv.url("/start")], stdin=b'{"n":1}\n')
    assert res.code == 4, res
    assert "302" in res.stderr and "-L follows redirects" in res.stderr, res
    assert [path for path, _ in requests(srv, 1)] == ["/start"]
    no_more_requests(srv)


@pytest.mark.parametrize("limit", [None, "0", "3"])
def test_a_loop_stops_past_max_redirs(run, ws_server, limit):
    srv = redirecting(ws_server, {"/loop": (302, "/loop")})
    args = ["-L"] + (["--max-redirs", limit] if limit else [])
    res = run(args + [srv.url("/loop")], stdin=b'{"n":1}\n')
    followed = int(limit) if limit else 10
    assert res.code == 4, res
    assert f"stopped after {followed} redirect(s) (--max-redirs)" in res.stderr, res
    # The request, then one for each redirect followed: never one more.
    assert [path for path, _ in requests(srv, followed + 1)] == ["/loop"] * (followed + 1)
    no_more_requests(srv)


def test_max_redirs_minus_one_sets_no_limit(run, ws_server):
    """curl's -1: a chain of 15 redirects (past the default 10) is followed to the end."""
    routes = {f"/hop{n}": (302, f"/hop{n + 1}") for n in range(15)}
    routes["/hop15"] = (307, "/final")
    srv = redirecting(ws_server, routes)
    res = run(["-L", "--max-redirs", "-1", srv.url("/hop0")], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    assert res.stdout == b'{"n":1}\n', res
    assert [path for path, _ in requests(srv, 17)] == [f"/hop{n}" for n in range(16)] + ["/final"]


def test_a_redirect_from_wss_to_ws_is_refused(run, ws_server, tls_cert):
    plain = redirecting(ws_server, {})
    secure = redirecting(ws_server, {"/start": (302, lambda s: f"ws://127.0.0.1:{plain.port}/final")},
                         ssl_context=server_ssl_context(tls_cert))
    cacert = ["--cacert", f"{tls_cert}/cert.pem"]
    res = run(["-L", *cacert, secure.url("/start")], stdin=b'{"n":1}\n')
    assert res.code == 4, res
    assert "leaves TLS" in res.stderr and "--location-downgrade" in res.stderr, res
    no_more_requests(plain)
    # Asked for, it is followed.
    res = run(["-L", "--location-downgrade", *cacert, secure.url("/start")], stdin=b'{"n":2}\n')
    assert res.code == 0, res
    assert res.lines == ['{"n":2}'], res
    assert [path for path, _ in requests(plain, 1)] == ["/final"]


def test_ws_to_wss_follows_with_tls(run, ws_server, tls_cert):
    secure = redirecting(ws_server, {}, ssl_context=server_ssl_context(tls_cert))
    plain = redirecting(ws_server, {"/start": (301, lambda s: f"https://localhost:{secure.port}/final")})
    res = run(["-L", "--cacert", f"{tls_cert}/cert.pem", plain.url("/start")], stdin=b'{"tls":1}\n')
    assert res.code == 0, res
    assert res.lines == ['{"tls":1}'], res
    assert [path for path, _ in requests(secure, 1)] == ["/final"]


CREDENTIALS = ["-H", "Authorization: Bearer secret", "-H", "X-Keep: yes", "--cookie", "session=abc"]


def test_credentials_are_dropped_when_the_host_changes(run, ws_server):
    # Same port, another name for the same server: only the host differs.
    srv = redirecting(ws_server, {"/start": (307, lambda s: f"ws://localhost:{s.port}/final")})
    res = run(["-L", *CREDENTIALS, srv.url("/start")], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    (first, h1), (second, h2) = requests(srv, 2)
    assert (first, h1["Authorization"], h1["Cookie"], h1["X-Keep"]) == ("/start", "Bearer secret", "session=abc", "yes")
    assert second == "/final"
    assert h2["Host"] == f"localhost:{srv.port}"
    assert h2["X-Keep"] == "yes", "other headers go along"
    assert "Authorization" not in h2 and "Cookie" not in h2, dict(h2)


def test_credentials_stay_on_the_same_host(run, ws_server):
    srv = redirecting(ws_server, {"/start": (302, "/final")})
    res = run(["-L", *CREDENTIALS, srv.url("/start")], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    _, (path, headers) = requests(srv, 2)
    assert (path, headers["Authorization"], headers["Cookie"]) == ("/final", "Bearer secret", "session=abc")


def test_user_goes_to_the_original_host_only(run, ws_server):
    srv = redirecting(ws_server, {"/start": (302, lambda s: f"ws://localhost:{s.port}/final"),
                                  "/same": (302, "/final")})
    res = run(["-L", "--user", "ann:pw", srv.url("/start")], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    (_, h1), (_, h2) = requests(srv, 2)
    assert h1["Authorization"] == "Basic YW5uOnB3"
    assert "Authorization" not in h2
    res = run(["-L", "--user", "ann:pw", srv.url("/same")], stdin=b'{"n":1}\n')
    assert res.code == 0, res
    (_, h1), (_, h2) = requests(srv, 2)
    assert h1["Authorization"] == h2["Authorization"] == "Basic YW5uOnB3"


def test_every_reconnect_starts_from_the_url_given(spawn, ws_server):
    async def restart_once(ws, log):
        log.put("upgraded", ws.request.path)
        await ws.close(1012, "restart")

    srv = redirecting(ws_server, {"/start": (302, "/final")}, on_final=restart_once)
    proc = spawn(["-L", "--events", *FAST_BACKOFF, "--max-retries", "2", srv.url("/start")], close_stdin=False)
    helpers.wait_events(proc, "connected", 2)
    proc.close_stdin()
    proc.finish()
    paths = []
    while not srv.log.q.empty():
        item = srv.log.q.get_nowait()
        if item[0] == "request":
            paths.append(item[1])
    assert paths[:4] == ["/start", "/final", "/start", "/final"], paths


def test_a_redirect_without_location_fails_the_attempt(run, ws_server):
    srv = redirecting(ws_server, {"/start": (302, "")})
    res = run(["-L", srv.url("/start")], stdin=b'{"n":1}\n')
    assert res.code == 4, res
    assert "without a Location header" in res.stderr, res


def test_a_redirect_to_another_scheme_fails_the_attempt(run, ws_server):
    srv = redirecting(ws_server, {"/start": (302, "ftp://127.0.0.1/x")})
    res = run(["-L", srv.url("/start")], stdin=b'{"n":1}\n')
    assert res.code == 4, res
    assert "not a WebSocket or HTTP URL" in res.stderr, res


@pytest.mark.parametrize("args", [
    ["--max-redirs", "3"], ["--location-downgrade"], ["-L", "--max-redirs", "-2"],
    ["-L", "--listen", "127.0.0.1:0"],
], ids=["max-redirs-alone", "downgrade-alone", "negative", "listen"])
def test_usage_errors(run, args):
    res = run(args + ([] if "--listen" in args else ["ws://127.0.0.1:9/"]))
    assert res.code == 2, res


def test_the_route_is_chosen_again_for_the_url_a_redirect_leads_to(spawn, ws_server, free_port):
    """The proxy variables depend on the host (no_proxy): here the URL given
    is reached directly and the redirect's host through http_proxy, a port
    where nothing listens, so that hop fails as a proxy would."""
    srv = redirecting(ws_server, {"/start": (302, lambda s: f"ws://localhost:{s.port}/final")})
    dead_proxy = f"http://127.0.0.1:{free_port()}"
    proc = spawn(["-L", srv.url("/start")], stdin=b'{"n":1}\n', env={"http_proxy": dead_proxy, "no_proxy": "127.0.0.1"})
    res = proc.finish()
    assert res.code == 3, res
    assert f"cannot reach proxy {dead_proxy}" in res.stderr, res
    proc = spawn(["-L", srv.url("/start")], stdin=b'{"n":2}\n',
                 env={"http_proxy": dead_proxy, "no_proxy": "127.0.0.1,localhost"})
    res = proc.finish()
    assert res.code == 0, res
    assert res.lines == ['{"n":2}'], res
