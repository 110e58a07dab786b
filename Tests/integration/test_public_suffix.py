"""Issue 33 item 6: a cookie set for a public suffix (`Domain=co.uk`,
`Domain=github.io`) was kept and sent to every other site under it. The
jar now checks the Public Suffix List (a table generated from Debian's
publicsuffix package). The sites are names the URL gives while the
connection goes to a Unix socket (`--unix-socket`: the URL still gives the
Host), where a websockets server redirects the first site to the second."""

from __future__ import annotations

from websockets.asyncio.server import unix_serve

import helpers


def serve_sites(loop_thread, path, first, second, set_cookie):
    """`first` answers 302 to `second` with `set_cookie`; `second` upgrades. Logs (host, Cookie)."""
    log = helpers.Log()

    def process_request(connection, request):
        host = request.headers["Host"]
        log.put("request", host, request.headers.get("Cookie"))
        if host == first:
            response = connection.respond(302, "moved\n")
            response.headers["Location"] = f"ws://{second}/"
            response.headers["Set-Cookie"] = set_cookie
            return response
        return None

    async def handler(ws):
        async for message in ws:
            await ws.send(message)

    async def start():
        return await unix_serve(handler, path, process_request=process_request)

    return loop_thread.run(start()), log


def stop(loop_thread, server):
    async def close():
        server.close()
        await server.wait_closed()
    loop_thread.run(close())


def hop(run, loop_thread, tmp_path, first, second, domain):
    path = str(tmp_path / "sites.sock")
    server, log = serve_sites(loop_thread, path, first, second, f"sid=SECRET; Domain={domain}; Path=/")
    jar = tmp_path / "jar.txt"
    try:
        res = run(["-L", "--unix-socket", path, "-c", str(jar), f"ws://{first}/"], stdin=b'{"n":1}\n')
        assert res.code == 0, res
        assert log.get()[1:] == (first, None)
        return log.get()[1:], jar.read_text() if jar.exists() else ""
    finally:
        stop(loop_thread, server)


def test_a_cookie_for_a_public_suffix_reaches_no_other_site(run, loop_thread, tmp_path):
    (host, cookie), jar = hop(run, loop_thread, tmp_path, "shop.example.co.uk", "evil.co.uk", "co.uk")
    assert (host, cookie) == ("evil.co.uk", None)
    assert "SECRET" not in jar


def test_github_io_is_a_public_suffix_too(run, loop_thread, tmp_path):
    (host, cookie), jar = hop(run, loop_thread, tmp_path, "alice.github.io", "mallory.github.io", ".github.io")
    assert (host, cookie) == ("mallory.github.io", None)


def test_a_cookie_for_a_registered_domain_is_still_shared(run, loop_thread, tmp_path):
    (host, cookie), jar = hop(run, loop_thread, tmp_path, "shop.example.co.uk", "api.example.co.uk", "example.co.uk")
    assert (host, cookie) == ("api.example.co.uk", "sid=SECRET")
    assert ".example.co.uk\tTRUE\t/\tFALSE\t0\tsid\tSECRET" in jar
