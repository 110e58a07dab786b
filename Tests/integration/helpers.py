"""Process, server and logging helpers for the wspipe integration suite.

Everything here has a hard timeout: a hang makes a test fail, it never
blocks the run.
"""

from __future__ import annotations

import asyncio
import os
import queue
import re
import shutil
import signal
import socket
import ssl
import subprocess
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Iterable

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

# Default hard limits (seconds).
RUN_TIMEOUT = 10.0
EVENT_TIMEOUT = 5.0


# --------------------------------------------------------------------------
# Running wspipe


@dataclass
class Result:
    code: int
    stdout: bytes
    stderr: str

    @property
    def lines(self) -> list[str]:
        """stdout split into lines (each must end with a newline)."""
        text = self.stdout.decode("utf-8")
        assert text == "" or text.endswith("\n"), f"stdout does not end with a newline: {text[-80:]!r}"
        return text.split("\n")[:-1]  # not splitlines(): U+2028 etc. are not line ends

    def __str__(self) -> str:  # used in assertion messages
        out = self.stdout[:600]
        return f"exit={self.code} stdout={out!r}{'...' if len(self.stdout) > 600 else ''} stderr={self.stderr[:1500]!r}"


class _Collector(threading.Thread):
    """Drains one pipe of a child into a buffer, with a condition to wait on."""

    def __init__(self, pipe):
        super().__init__(daemon=True)
        self.pipe = pipe
        self.buf = bytearray()
        self.cond = threading.Condition()
        self.eof = False
        self.start()

    def run(self) -> None:
        fd = self.pipe.fileno()
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            with self.cond:
                if not chunk:
                    self.eof = True
                    self.cond.notify_all()
                    return
                self.buf += chunk
                self.cond.notify_all()

    def wait_for(self, predicate: Callable[[bytes], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not predicate(bytes(self.buf)):
                if self.eof:
                    return predicate(bytes(self.buf))
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True

    def data(self) -> bytes:
        with self.cond:
            return bytes(self.buf)


class WsProc:
    """A running wspipe (or stand-in) with its stdout/stderr drained in threads.

    stdin: bytes to write (in a thread, so big inputs cannot deadlock);
    close_stdin: close stdin after writing (EOF) or keep it open.
    stdin_fd/stdout_fd: pass existing descriptors instead (fifo tests).
    pass_fds: more descriptors the child inherits, same numbers (fd:N routes).
    cwd: the directory it runs in.
    """

    def __init__(self, argv: list[str], stdin: bytes | None = b"", close_stdin: bool = True,
                 stdin_fd: int | None = None, stdout_fd: int | None = None, env: dict | None = None,
                 pass_fds: tuple = (), cwd: str | os.PathLike | None = None):
        self.argv = argv
        child_env = dict(os.environ)
        # wspipe reads the proxy variables as curl does: tests set them explicitly.
        for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
            child_env.pop(name, None)
            child_env.pop(name.upper(), None)
        child_env["NO_COLOR"] = "1"
        if env:
            child_env.update(env)
        self.proc = subprocess.Popen(
            argv,
            stdin=stdin_fd if stdin_fd is not None else subprocess.PIPE,
            stdout=stdout_fd if stdout_fd is not None else subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_env,
            pass_fds=tuple(pass_fds),
            cwd=cwd,
        )
        self.out = _Collector(self.proc.stdout) if stdout_fd is None else None
        self.err = _Collector(self.proc.stderr)
        self._writer = None
        self._stdin_lock = threading.Lock()
        if stdin_fd is None:
            if stdin:
                self._writer = threading.Thread(target=self._write_all, args=(stdin, close_stdin), daemon=True)
                self._writer.start()
            elif close_stdin:
                self.close_stdin()

    # stdin -------------------------------------------------------------
    def _write_all(self, data: bytes, close: bool) -> None:
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass
        if close:
            self.close_stdin()

    def write(self, data: bytes) -> None:
        if self._writer is not None:
            self._writer.join(RUN_TIMEOUT)
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def close_stdin(self) -> None:
        # The writer thread and the test may both close stdin; a buffered
        # file closed by two threads at once can raise from the second
        # (seen under load: "PyMemoryView_FromBuffer(): info->buf must not
        # be NULL"), so one close at a time.
        with self._stdin_lock:
            try:
                if self.proc.stdin and not self.proc.stdin.closed:
                    self.proc.stdin.close()
            except (BrokenPipeError, OSError, ValueError):
                pass

    # waiting ------------------------------------------------------------
    def wait_stdout_lines(self, n: int, timeout: float = EVENT_TIMEOUT, sep: bytes = b"\n") -> list[bytes]:
        """Wait until stdout holds at least n complete lines; return them."""
        ok = self.out.wait_for(lambda b: b.count(sep) >= n, timeout)
        data = self.out.data()
        assert ok, f"expected {n} line(s) on stdout within {timeout}s; stdout={data[:500]!r} stderr={self.err.data()[:1500]!r} alive={self.proc.poll() is None}"
        return data.split(sep)[:n]

    def wait_stderr(self, pattern: str, timeout: float = EVENT_TIMEOUT) -> re.Match:
        rx = re.compile(pattern)
        ok = self.err.wait_for(lambda b: rx.search(b.decode("utf-8", "replace")) is not None, timeout)
        text = self.err.data().decode("utf-8", "replace")
        assert ok, f"expected stderr to match {pattern!r} within {timeout}s; stderr={text[:1500]!r} alive={self.proc.poll() is None}"
        return rx.search(text)

    def finish(self, timeout: float = RUN_TIMEOUT) -> Result:
        """Wait for exit (hard timeout: kill and fail)."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            self.out and self.out.join(2)
            self.err.join(2)
            out = self.out.data() if self.out else b""
            raise AssertionError(
                f"{os.path.basename(self.argv[0])} did not exit within {timeout}s "
                f"(args {self.argv[1:]}); stdout={out[:500]!r} stderr={self.err.data()[:1500]!r}")
        finally:
            self.close_stdin()
        if self.out:
            self.out.join(5)
        self.err.join(5)
        return Result(code, self.out.data() if self.out else b"", self.err.data().decode("utf-8", "replace"))

    def signal(self, sig: int = signal.SIGINT) -> None:
        self.proc.send_signal(sig)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass


# --------------------------------------------------------------------------
# Ports


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, host: str = "127.0.0.1", timeout: float = EVENT_TIMEOUT) -> None:
    """Poll-connect until something accepts on host:port."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(f"nothing accepted on {host}:{port} within {timeout}s")
            time.sleep(0.02)


# --------------------------------------------------------------------------
# The websockets server, in a background event loop thread


class Log:
    """A thread-safe event log that server handlers write and tests read."""

    def __init__(self) -> None:
        self.q: queue.Queue = queue.Queue()

    def put(self, *item: Any) -> None:
        self.q.put(item)

    def get(self, timeout: float = EVENT_TIMEOUT) -> tuple:
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"server event expected within {timeout}s, none came") from None

    def until(self, kind: str, timeout: float = EVENT_TIMEOUT) -> list[tuple]:
        """All events up to and including the first one of this kind."""
        deadline = time.monotonic() + timeout
        items = []
        while True:
            left = deadline - time.monotonic()
            try:
                item = self.q.get(timeout=max(left, 0.001))
            except queue.Empty:
                raise AssertionError(f"server event {kind!r} expected within {timeout}s; got so far {_short(items)}") from None
            items.append(item)
            if item[0] == kind:
                return items
            if item[0] == "error":
                raise AssertionError(f"server handler failed: {item[1]}")


def _short(items: list) -> str:
    s = repr(items)
    return s if len(s) < 800 else s[:800] + "..."


class LoopThread:
    """One asyncio event loop in a daemon thread for the whole session."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Awaitable, timeout: float = EVENT_TIMEOUT) -> Any:
        fut = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return fut.result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


Handler = Callable[[Any, Log], Awaitable[None]]


class WSServer:
    """A websockets server on 127.0.0.1, port 0. handler(ws, log)."""

    def __init__(self, loop: LoopThread, handler: Handler, ssl_context: ssl.SSLContext | None = None, **kwargs):
        self.loopt = loop
        self.log = Log()
        self.tls = ssl_context is not None
        kwargs.setdefault("max_size", None)
        kwargs.setdefault("compression", None)
        kwargs.setdefault("ping_interval", None)
        kwargs.setdefault("close_timeout", 3)

        async def wrapped(ws):
            try:
                await handler(ws, self.log)
            except ConnectionClosed as exc:
                self.log.put("closed", exc.rcvd.code if exc.rcvd else None, exc.rcvd_then_sent)
            except Exception:
                self.log.put("error", traceback.format_exc())
                raise

        async def start():
            return await serve(wrapped, "127.0.0.1", 0, ssl=ssl_context, **kwargs)

        self.server = loop.run(start())
        self.port = self.server.sockets[0].getsockname()[1]

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"{'wss' if self.tls else 'ws'}://{host}:{self.port}{path}"

    def close(self) -> None:
        async def stop():
            self.server.close()
            await self.server.wait_closed()
        try:
            self.loopt.run(stop(), timeout=10)
        except Exception:
            pass


# Reusable handlers -----------------------------------------------------------


async def echo(ws, log: Log) -> None:
    log.put("connected", ws.request.path)
    async for msg in ws:
        await ws.send(msg)
    log.put("closed", ws.close_code, None)


async def record(ws, log: Log) -> None:
    """Log the request, every message, and how the connection ended."""
    log.put("request", ws.request.path, ws.request.headers, ws.subprotocol)
    try:
        while True:
            log.put("msg", await ws.recv())
    except ConnectionClosed as exc:
        log.put("closed", exc.rcvd.code if exc.rcvd else None, exc.rcvd_then_sent)


def send_then_close(messages: Iterable, code: int = 1000, reason: str = "") -> Handler:
    async def handler(ws, log: Log) -> None:
        for m in messages:
            await ws.send(m)
        await ws.close(code, reason)
        log.put("closed", ws.close_code, None)
    return handler


def send_then_record(messages: Iterable) -> Handler:
    async def handler(ws, log: Log) -> None:
        for m in messages:
            await ws.send(m)
        await record(ws, log)
    return handler


def received_messages(log: Log, timeout: float = EVENT_TIMEOUT) -> tuple[list, tuple]:
    """Messages a `record` handler saw, and its final ('closed', code, rcvd_then_sent)."""
    items = log.until("closed", timeout)
    return [i[1] for i in items if i[0] == "msg"], items[-1]


def server_ssl_context(certdir) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(certdir, "cert.pem"), os.path.join(certdir, "key.pem"))
    return ctx


def make_cert(directory: str, name: str) -> str:
    """A self-signed certificate made with the openssl CLI; returns the dir."""
    require("openssl")
    os.makedirs(directory, exist_ok=True)
    san = f"subjectAltName=DNS:{name},IP:127.0.0.1" if name == "localhost" else f"subjectAltName=DNS:{name}"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
         "-keyout", os.path.join(directory, "key.pem"), "-out", os.path.join(directory, "cert.pem"),
         "-days", "2", "-subj", f"/CN={name}", "-addext", san],
        check=True, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    return directory


# --------------------------------------------------------------------------
# --events / --stats lines on stderr (mixed with "wspipe: ..." text lines)


# Every event line and the --stats line carry the time they were written:
# RFC 3339, UTC, milliseconds.
RFC3339_MS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def _pop_time(obj: dict, line: str, keep: bool) -> dict:
    """Checks the "time" member of an event or stats object, and removes it
    unless `keep` (so tests compare the rest whole)."""
    time_text = obj.get("time")
    assert isinstance(time_text, str) and RFC3339_MS.match(time_text), f"no RFC 3339 time in {line!r}"
    if not keep:
        del obj["time"]
    return obj


def events(stderr: str | bytes, name: str | None = None, keep_time: bool = False) -> list[dict]:
    """The {"$event":...} lines of a stderr text, parsed, optionally of one
    kind; each line's "time" is checked, and removed unless keep_time."""
    import json
    if isinstance(stderr, bytes):
        stderr = stderr.decode("utf-8", "replace")
    out = []
    for line in stderr.split("\n"):
        if line.startswith('{"$event"'):
            ev = _pop_time(json.loads(line), line, keep_time)
            if name is None or ev["$event"] == name:
                out.append(ev)
    return out


def stats(stderr: str, keep_time: bool = False) -> dict:
    """The one {"$stats":{...}} line of a stderr text (it must be the last
    line); its "time" is checked, and removed unless keep_time."""
    import json
    lines = [l for l in stderr.split("\n") if l.startswith('{"$stats"')]
    assert len(lines) == 1, f"expected exactly one $stats line on stderr: {stderr[-1500:]!r}"
    rest = [l for l in stderr.split("\n") if l.strip()]
    assert rest[-1] == lines[0], f"the $stats line is not the last line of stderr: {stderr[-1500:]!r}"
    return _pop_time(json.loads(lines[0])["$stats"], lines[0], keep_time)


def wait_events(proc: "WsProc", name: str, count: int = 1, timeout: float = EVENT_TIMEOUT) -> list[dict]:
    """Wait until proc's stderr holds at least `count` events of this kind; return
    all events (every kind) seen so far."""
    ok = proc.err.wait_for(lambda b: len(events(b, name)) >= count, timeout)
    text = proc.err.data().decode("utf-8", "replace")
    assert ok, (f"expected {count} {name!r} event(s) within {timeout}s; stderr={text[-2000:]!r} "
                f"alive={proc.proc.poll() is None}")
    return events(text)


# What `@pytest.mark.needs(...)` can name besides a tool on PATH
# (conftest.py: pytest_runtest_setup): a probe, and why a test is skipped
# when it fails. A port without /proc (Sources/README.md, Porting) skips the
# tests that read process trees, memory and descriptors there.
CAPABILITIES = {
    "proc": (lambda: os.path.isfile("/proc/self/status") and os.path.isdir("/proc/self/fd"),
             "needs /proc (Linux): the test reads processes, memory or descriptors there"),
    "root": (lambda: os.geteuid() == 0, "needs root"),
}


def missing_capability(name: str) -> str | None:
    """Why a test that needs `name` cannot run here, or None when it can."""
    if name in CAPABILITIES:
        probe, reason = CAPABILITIES[name]
        return None if probe() else reason
    if shutil.which(name) is None:
        return f"{name} is not installed (Tests/run installs it with apt-get when it can)"
    return None


def require(name: str) -> None:
    """Skips the test (or the fixture's tests) with the reason where `name`
    is missing: for what a helper needs, where a mark cannot say it."""
    reason = missing_capability(name)
    if reason:
        import pytest
        pytest.skip(reason)


def vm_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS in /proc/{pid}/status")


# Small reconnect delays for the reconnect tests: 50, 100, 200, 400, 400 ms...
FAST_BACKOFF = ["--backoff", "50ms:400ms:2", "--jitter", "0"]


def write_lines(proc: "WsProc", *lines) -> None:
    """Write JSON values (or ready-made str lines) to proc's open stdin, one a line."""
    import json
    data = "".join((l if isinstance(l, str) else json.dumps(l, separators=(",", ":"))) + "\n" for l in lines)
    proc.write(data.encode("utf-8"))


def make_ca(directory: str, name: str) -> str:
    """A CA (ca.pem, ca.key) made with the openssl CLI, for client certificates."""
    require("openssl")
    os.makedirs(directory, exist_ok=True)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", os.path.join(directory, "ca.key"), "-out", os.path.join(directory, "ca.pem"),
         "-days", "2", "-subj", f"/CN={name}",
         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"],
        check=True, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    return directory


def make_client_cert(ca_dir: str, directory: str, name: str) -> tuple[str, str]:
    """A client certificate issued by the CA in ca_dir; returns (cert.pem, key.pem)."""
    os.makedirs(directory, exist_ok=True)
    cert, key, csr = (os.path.join(directory, f) for f in ("cert.pem", "key.pem", "req.csr"))
    ext = os.path.join(directory, "ext.cnf")
    with open(ext, "w") as f:
        f.write("keyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n")
    subprocess.run(
        ["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", key, "-out", csr, "-subj", f"/CN={name}"],
        check=True, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    subprocess.run(
        ["openssl", "x509", "-req", "-in", csr, "-CA", os.path.join(ca_dir, "ca.pem"),
         "-CAkey", os.path.join(ca_dir, "ca.key"), "-CAcreateserial", "-out", cert, "-days", "2",
         "-extfile", ext],
        check=True, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    return cert, key


def wait_until_stalled(progress, total: int, quiet: float = 0.5, timeout: float = 15) -> int:
    """Poll progress() until it stops changing for `quiet` seconds or reaches
    total (at most `timeout` s); returns the last value seen. Back-pressure
    tests read it to show a reader that reads nothing holds the writer back."""
    deadline = time.monotonic() + timeout
    last, last_change = -1, time.monotonic()
    while time.monotonic() < deadline:
        now = progress()
        if now != last:
            last, last_change = now, time.monotonic()
        elif time.monotonic() - last_change > quiet or now >= total:
            break
        time.sleep(0.05)
    return progress()
