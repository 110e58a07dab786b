"""Config files and profiles (issue 34): the default file and where it is,
-K, WSPIPE_CONFIG, --no-config, [profile] sections chosen by --profile or by
the longest url prefix, precedence file < profile < command line, -v naming
what was read, and a loose file holding a secret refused as ssh refuses a
loose key. Each test gives wspipe a HOME and XDG_CONFIG_HOME of its own (the
suite otherwise runs with WSPIPE_CONFIG set and empty: conftest.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

import helpers


def _home(tmp_path, config: str | None, mode: int = 0o600, xdg: bool = True) -> dict:
    """An environment whose default config file holds `config` (None: no
    file): under XDG_CONFIG_HOME, or ~/.config without it."""
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "WSPIPE_CONFIG": None}
    base = tmp_path / "xdg" if xdg else home / ".config"
    if xdg:
        env["XDG_CONFIG_HOME"] = str(base)
    if config is not None:
        (base / "wspipe").mkdir(parents=True, exist_ok=True)
        path = base / "wspipe" / "config"
        path.write_text(config)
        path.chmod(mode)
    return env


@pytest.fixture
def wspipe_env(wspipe_bin):
    """run(args, env, stdin=b"", cwd=None) -> Result, with variables set to None unset."""
    def _run_env(args, env, stdin=b"", cwd=None, timeout=helpers.RUN_TIMEOUT) -> helpers.Result:
        child = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        for key, value in env.items():
            if value is None:
                child.pop(key, None)
            else:
                child[key] = value
        child["NO_COLOR"] = "1"
        done = subprocess.run([wspipe_bin, *args], input=stdin, env=child, cwd=cwd, capture_output=True,
                              timeout=timeout)
        return helpers.Result(done.returncode, done.stdout, done.stderr.decode(errors="replace"))
    return _run_env


def _request(srv):
    kind, _, headers, _ = srv.log.get()
    assert kind == "request"
    srv.log.until("closed")
    return headers


def test_the_default_file_is_read_and_v_says_so(wspipe_env, ws_server, tmp_path):
    srv = ws_server(helpers.record)
    env = _home(tmp_path, "origin https://from.config\n-H \"X-Config: 1\"\n")
    res = wspipe_env(["-v", srv.url()], env)
    assert res.code == 0, res
    headers = _request(srv)
    assert headers.get("Origin") == "https://from.config"
    assert headers.get("X-Config") == "1"
    assert f"wspipe: read config file {tmp_path}/xdg/wspipe/config\n" in res.stderr, res
    # Without XDG_CONFIG_HOME: ~/.config/wspipe/config.
    env = _home(tmp_path / "b", "origin https://from.home\n", xdg=False)
    res = wspipe_env([srv.url()], env)
    assert res.code == 0, res
    assert _request(srv).get("Origin") == "https://from.home"


def test_wspipe_config_no_config_and_k(wspipe_env, ws_server, tmp_path):
    srv = ws_server(helpers.record)
    env = _home(tmp_path, "origin https://default\n")
    named = tmp_path / "named.conf"
    named.write_text("origin https://named\n")
    extra = tmp_path / "extra.conf"
    extra.write_text("user-agent extra/1\n")
    cases = [
        ({**env, "WSPIPE_CONFIG": str(named)}, [], "https://named"),
        ({**env, "WSPIPE_CONFIG": ""}, [], None),
        (env, ["--no-config"], None),
        (env, ["-K", str(extra)], "https://default"),
        (env, ["--no-config", "--config", str(extra)], None),
    ]
    for case_env, args, origin in cases:
        res = wspipe_env([*args, srv.url()], case_env)
        assert res.code == 0, (args, res)
        headers = _request(srv)
        assert headers.get("Origin") == origin, (args, case_env.get("WSPIPE_CONFIG"))
        assert (headers.get("User-Agent") == "extra/1") == (str(extra) in args), args
    res = wspipe_env([srv.url()], {**env, "WSPIPE_CONFIG": str(tmp_path / "absent")})
    assert res.code == 2, res
    assert f"config file {tmp_path}/absent: No such file or directory" in res.stderr


def test_precedence_file_then_profile_then_command_line(wspipe_env, ws_server, tmp_path):
    srv = ws_server(helpers.record)
    env = _home(tmp_path, f"""
# every run
user-agent file/1
header "X-Layer: file"
origin https://file.example

[staging]
url = {srv.url('/staging')}
header "X-Layer: profile"
origin https://profile.example
""")
    # Outside the profile's prefix: the file alone.
    res = wspipe_env([srv.url("/other")], env)
    assert res.code == 0, res
    h = _request(srv)
    assert (h.get("X-Layer"), h.get("Origin"), h.get("User-Agent")) == ("file", "https://file.example", "file/1")
    # Under it: the profile over the file.
    res = wspipe_env(["-v", srv.url("/staging/ws")], env)
    assert res.code == 0, res
    h = _request(srv)
    assert (h.get_all("X-Layer"), h.get("Origin"), h.get("User-Agent")) == (["profile"], "https://profile.example", "file/1")
    assert f"wspipe: profile [staging] of {tmp_path}/xdg/wspipe/config (url {srv.url('/staging')})" in res.stderr, res
    # The command line over both.
    res = wspipe_env(["-H", "X-Layer: cli", "--origin", "https://cli.example", srv.url("/staging/ws")], env)
    assert res.code == 0, res
    h = _request(srv)
    assert (h.get_all("X-Layer"), h.get("Origin"), h.get("User-Agent")) == (["cli"], "https://cli.example", "file/1")
    # --profile with no URL: the section's URL.
    res = wspipe_env(["--profile", "staging", "-v"], env)
    assert res.code == 0, res
    kind, path, h, _ = srv.log.get()
    srv.log.until("closed")
    assert path == "/staging" and h.get("Origin") == "https://profile.example"
    assert f"URL {srv.url('/staging')} from [staging]" in res.stderr


def test_check_without_a_url_takes_the_profile_of_its_recordings_url(wspipe_env, ws_server, tmp_path):
    """--check connects where the recording did, so that URL picks the
    profile (its token header), as `wspipe URL` would; recordings of two
    servers with different profiles are refused rather than half-applied."""
    srv = ws_server(helpers.record)
    env = _home(tmp_path, f"""
[staging]
url = {srv.url('/staging')}
header "Authorization: Bearer staging-token"
""")

    def recording(name: str, url: str) -> str:
        path = tmp_path / name
        lines = [{"t_ms": 0, "dir": "event", "conn": 1, "msg": {"$event": "connected", "url": url, "attempt": 1}},
                 {"t_ms": 1, "dir": "out", "conn": 1, "msg": {"type": "ping"}}]
        path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
        return str(path)

    login = recording("login.ndjson", srv.url("/staging/ws"))
    res = wspipe_env(["-v", "--check", login, "--check-settle", "10ms"], env)
    assert res.code == 0, res
    kind, path, h, _ = srv.log.get()
    assert (kind, path, h.get("Authorization")) == ("request", "/staging/ws", "Bearer staging-token"), h
    assert srv.log.get() == ("msg", '{"type":"ping"}')
    srv.log.until("closed")
    assert "the recordings' URL)" in res.stderr and res.stderr.splitlines()[-1] == "1 passed, 0 failed", res
    assert f"PASS {login} (1 message, " in res.stderr, res
    other = recording("other.ndjson", srv.url("/other"))
    res = wspipe_env(["--check", login, "--check", other], env)
    assert res.code == 2, res
    assert "--check: the recordings' URLs select different config profiles" in res.stderr, res


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_a_loose_file_with_a_secret_is_refused(wspipe_env, ws_server, tmp_path, mode):
    srv = ws_server(helpers.record)
    env = _home(tmp_path, "backoff 1s\n[api]\nurl = ws://127.0.0.1/\nheader \"Authorization: Bearer s3cret\"\n", mode=mode)
    path = f"{tmp_path}/xdg/wspipe/config"
    res = wspipe_env([srv.url()], env)
    assert res.code == 2, res
    assert (f"wspipe: config file {path}: line 4 holds a header, password or cookie, and others can read the file "
            f"(mode 0{mode:o}); run: chmod 600 {path}\n") in res.stderr, res
    assert "s3cret" not in res.stderr
    with pytest.raises(Exception):
        srv.log.get(timeout=0.3)  # nothing was sent
    os.chmod(path, 0o600)
    res = wspipe_env([srv.url()], env)
    assert res.code == 0, res
    _request(srv)


def test_a_server_and_the_help_read_no_default_file(wspipe_env, spawn, tmp_path, free_port):
    env = _home(tmp_path, "this line is not an option\n")
    res = wspipe_env(["--help"], env)
    assert res.code == 0 and b"Usage: wspipe" in res.stdout, res
    res = wspipe_env(["http://not-a-ws-url"], env)
    assert res.code == 2 and "config:1: unknown option 'this'" in res.stderr, res
    port = free_port()
    proc = spawn(["--listen", f"127.0.0.1:{port}", "--once"], env={k: v for k, v in env.items() if v is not None})
    proc.wait_stderr("listening on")
    proc.kill()


def test_a_k_file_shared_by_client_and_server(wspipe_env, spawn, tmp_path, free_port):
    """A -K file applies to servers too; what a server cannot use is skipped and -v says so."""
    shared = tmp_path / "shared.conf"
    shared.write_text("backoff 100ms\nmax-message-size 1K\norigin https://o.example\n")
    port = free_port()
    server = spawn(["-v", "-K", str(shared), "--listen", f"127.0.0.1:{port}", "--once", "-U"])
    server.wait_stderr("listening on")
    assert f"{shared}:1: --backoff skipped: not used in server mode (--listen)" in server.err.data().decode()
    assert f"{shared}:3: --origin skipped: not used in server mode (--listen)" in server.err.data().decode()
    res = wspipe_env(["-K", str(shared), "--no-reconnect", f"ws://127.0.0.1:{port}/"], {"WSPIPE_CONFIG": ""},
                     stdin=b'{"big":"' + b"x" * 2000 + b'"}\n')
    # The server's --max-message-size 1K, from the file, closed the connection with 1009.
    assert res.code == 7, res
    assert "1009" in res.stderr, res
    assert "message larger than the 1024-byte limit" in server.finish().stderr


def test_an_absent_default_file_costs_one_failed_open(wspipe_bin, tmp_path):
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (Tests/run installs it with apt-get when it can)")
    env = {**{k: v for k, v in os.environ.items() if k != "WSPIPE_CONFIG"}, "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    done = subprocess.run([strace, "-f", "-e", "trace=%file", wspipe_bin, "--no-reconnect", "ws://127.0.0.1:9/"],
                          env=env, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    trace = done.stderr.decode(errors="replace")
    if "ptrace" in trace and "Operation not permitted" in trace:
        pytest.skip("ptrace is not permitted here")
    calls = [line for line in trace.splitlines() if "wspipe/config" in line or str(tmp_path) in line]
    assert len(calls) == 1, calls
    assert "ENOENT" in calls[0], calls
