"""SSLKEYLOGFILE and --keylog (issue 34), proven with real tools: tcpdump
captures a wss:// session on loopback, and tshark, given the key log wspipe
wrote (-o tls.keylog_file:FILE), decrypts it and shows the WebSocket
messages; without the key log it shows none. Client and server mode."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

import pytest

import helpers

MARKER = '{"type":"secret-marker","n":42}'


def _tools():
    missing = [tool for tool in ("tcpdump", "tshark") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed (Tests/run installs them with apt-get when it can)")


class Capture:
    """tcpdump on loopback for one port, writing a pcap file."""

    def __init__(self, path, port: int):
        self.path = path
        self.err = open(str(path) + ".err", "w+b")
        # --immediate-mode and -U: each packet is written as it comes (nothing left
        # in a buffer when tcpdump is stopped); -Z root: the file stays ours to read.
        self.proc = subprocess.Popen(["tcpdump", "-i", "lo", "-U", "--immediate-mode", "-Z", "root",
                                      "-w", str(path), f"tcp port {port}"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.monotonic() + 10
        while True:
            text = self._stderr()
            if "listening on" in text:
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                self.proc.wait(5)
                pytest.skip(f"tcpdump cannot capture on loopback here (capture not permitted?): {text.strip()[:300]}")
            time.sleep(0.02)

    def _stderr(self) -> str:
        self.err.seek(0)
        return self.err.read().decode(errors="replace")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(10)


def _texts(pcap, port: int, keylog=None) -> list[str]:
    """The WebSocket text messages tshark finds in the capture."""
    args = ["tshark", "-r", str(pcap), "-d", f"tcp.port=={port},tls", "-Y", "websocket.opcode == 1",
            "-T", "fields", "-e", "websocket.payload.text"]
    if keylog is not None:
        args[1:1] = ["-o", f"tls.keylog_file:{keylog}"]
    done = subprocess.run(args, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return [line for line in done.stdout.decode().splitlines() if line]


def test_a_client_session_decrypted_with_sslkeylogfile(spawn, ws_server, tls_cert, tmp_path):
    _tools()
    srv = ws_server(helpers.echo, ssl_context=helpers.server_ssl_context(tls_cert))
    capture = Capture(tmp_path / "client.pcap", srv.port)
    keys = tmp_path / "keys.log"
    proc = spawn(["-k", srv.url()], stdin=(MARKER + "\n").encode(), env={"SSLKEYLOGFILE": str(keys)})
    res = proc.finish()
    capture.stop()
    assert res.code == 0, res
    assert res.lines == [MARKER]
    assert res.stderr.count(f"wspipe: TLS secrets are logged to {keys}") == 1, res
    assert oct(keys.stat().st_mode & 0o777) == "0o600"
    lines = keys.read_text().splitlines()
    assert lines and all(len(line.split(" ")) == 3 for line in lines), lines
    assert any(line.startswith(("CLIENT_TRAFFIC_SECRET_0 ", "CLIENT_RANDOM ")) for line in lines), lines
    # Decrypted: the message wspipe sent, and the echo.
    assert _texts(capture.path, srv.port, keys) == [MARKER, MARKER]
    # The capture alone shows nothing.
    assert _texts(capture.path, srv.port) == []


def test_a_server_session_decrypted_with_keylog(spawn, tls_cert, tmp_path, free_port):
    _tools()
    port = free_port()
    capture = Capture(tmp_path / "server.pcap", port)
    keys = tmp_path / "server-keys.log"
    server = spawn(["--listen", f"127.0.0.1:{port}", "--once", "--cert", os.path.join(tls_cert, "cert.pem"),
                    "--key", os.path.join(tls_cert, "key.pem"), "--keylog", str(keys), "-n"],
                   stdin=(MARKER + "\n").encode(), close_stdin=False)
    server.wait_stderr("listening on")
    assert f"TLS secrets are logged to {keys}" in server.err.data().decode()
    # A client without a key log of its own: the secrets come from the server's.
    client = spawn(["-k", "-U", "-1", f"wss://127.0.0.1:{port}/"], env={"SSLKEYLOGFILE": ""})
    res = client.finish()
    assert res.code == 0, res
    assert res.lines == [MARKER]
    assert "TLS secrets" not in res.stderr
    server.close_stdin()
    assert server.finish().code == 0
    capture.stop()
    assert oct(keys.stat().st_mode & 0o777) == "0o600"
    assert _texts(capture.path, port, keys) == [MARKER]
    assert _texts(capture.path, port) == []


def test_appends_and_says_nothing_without_tls(spawn, ws_server, tls_cert, tmp_path):
    """No file and no line for a ws:// run; an existing file is appended to
    and made private; -q keeps the line for itself."""
    plain = ws_server(helpers.echo)
    keys = tmp_path / "keys.log"
    res = spawn([plain.url()], stdin=b'{"a":1}\n', env={"SSLKEYLOGFILE": str(keys)}).finish()
    assert res.code == 0, res
    assert not keys.exists()
    assert "TLS secrets" not in res.stderr
    keys.write_text("CLIENT_RANDOM 00 11\n")
    keys.chmod(0o644)
    tls = ws_server(helpers.echo, ssl_context=helpers.server_ssl_context(tls_cert))
    res = spawn(["-q", "-k", "--keylog", str(keys), tls.url()], stdin=b'{"a":1}\n').finish()
    assert res.code == 0, res
    assert res.stderr == ""
    text = keys.read_text()
    assert text.startswith("CLIENT_RANDOM 00 11\n") and len(text.splitlines()) > 1
    assert oct(keys.stat().st_mode & 0o777) == "0o600"
    res = spawn(["-k", "--keylog", str(tmp_path / "no" / "such" / "dir"), tls.url()], stdin=b"").finish()
    assert res.code == 1, res
    assert "--keylog" in res.stderr and "No such file or directory" in res.stderr
