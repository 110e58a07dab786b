"""-w/--write-out (issue 25): curl's %{name} syntax at exit, %{json} for
everything, and the pongs' round trip in events and --stats."""

from __future__ import annotations

import json

import pytest

import helpers
from helpers import echo, events, server_ssl_context, stats

VARIABLES = ["url", "url_effective", "num_redirects", "http_code", "remote_ip", "remote_port",
             "time_namelookup", "time_connect", "time_appconnect", "time_redirect", "time_upgrade",
             "time_first_message", "time_total", "close_code", "messages_in", "messages_out", "bytes_in",
             "bytes_out", "reconnects", "rtt_last", "time_reply_p50", "time_reply_p90", "time_reply_p99",
             "time_reply_max", "exitcode"]


def test_json_has_every_field_in_order_and_times_in_order(spawn, ws_server, tls_cert):
    srv = ws_server(echo, ssl_context=server_ssl_context(tls_cert))
    url = srv.url(host="localhost")
    proc = spawn(["--cacert", f"{tls_cert}/cert.pem", "--ping-interval", "50ms", "--events", "--stats",
                  "-w", "%{json}\\n", url], close_stdin=False)
    helpers.write_lines(proc, {"n": 1})
    proc.wait_stdout_lines(1)
    helpers.wait_events(proc, "pong")
    proc.close_stdin()
    res = proc.finish()
    assert res.code == 0, res
    assert len(res.lines) == 2, res
    assert res.lines[0] == '{"n":1}'
    line = res.lines[1]
    out = json.loads(line)
    assert list(out) == VARIABLES, line
    assert (out["url"], out["url_effective"], out["num_redirects"]) == (url, url, 0)
    assert (out["http_code"], out["close_code"], out["exitcode"], out["reconnects"]) == (101, 1000, 0, 0)
    assert (out["messages_in"], out["messages_out"], out["bytes_in"], out["bytes_out"]) == (1, 1, 7, 7)
    assert out["remote_ip"] in ("127.0.0.1", "::1") and out["remote_port"] == srv.port
    times = [out[k] for k in ("time_namelookup", "time_connect", "time_appconnect", "time_upgrade",
                              "time_first_message", "time_total")]
    assert all(t > 0 for t in times), line
    assert times == sorted(times), f"not in time order: {line}"
    assert out["time_redirect"] == 0
    assert 0 < out["rtt_last"] < out["time_total"], line
    # Times are written as curl writes them: seconds with six decimals.
    assert '"time_total":' in line and len(line.split('"time_total":')[1].split(",")[0].split(".")[1]) == 6
    pongs = events(res.stderr, "pong")
    assert pongs and all(p["rtt_ms"] > 0 for p in pongs), res
    assert stats(res.stderr)["rtt_last_ms"] == pytest.approx(out["rtt_last"] * 1000, abs=0.002)


def test_variables_streams_and_escapes(run, ws_server):
    srv = ws_server(echo)
    res = run(["-w", "code=%{http_code}\\tin=%{messages_in}%{stderr}total %{time_total}%%\\n", srv.url()],
              stdin=b'{"n":1}\n')
    assert res.code == 0, res
    assert res.stdout == b'{"n":1}\ncode=101\tin=1', res
    assert res.stderr.rstrip("\n").split(" ")[0] == "total" and res.stderr.endswith("%\n"), res


def test_without_a_connection_the_times_are_zero_and_the_status_is_said(run, ws_server):
    async def refuse(ws, log):
        pass

    def process_request(connection, request):
        return connection.respond(403, "no\n")

    srv = ws_server(refuse, process_request=process_request)
    res = run(["-w", "%{http_code} %{exitcode} %{time_connect} %{url_effective}.", srv.url()], stdin=b"")
    assert res.code == 4, res
    assert res.stdout == b"403 4 0.000000 .", res


def test_write_out_from_a_file(run, ws_server, tmp_path):
    srv = ws_server(echo)
    (tmp_path / "fmt").write_text("%{messages_out} out\n")
    res = run(["-w", f"@{tmp_path / 'fmt'}", srv.url()], stdin=b'{"n":1}\n{"n":2}\n')
    assert res.code == 0, res
    assert res.lines[-1] == "2 out", res


@pytest.mark.parametrize("format,message", [
    ("%{nope}", "unknown variable %{nope}"),
    ("%{time_total", "without its '}'"),
    ("@-", "@- would read the format from stdin"),
])
def test_bad_formats_are_usage_errors(run, format, message):
    res = run(["-w", format, "ws://127.0.0.1:9/"])
    assert res.code == 2, res
    assert message in res.stderr, res
