"""Fixtures for the wspipe integration suite.

The binary under test comes from $WSPIPE (Tests/run sets it to the release
build). Servers run in this process: a websockets asyncio server in a
background thread (the independent implementation), and a raw-socket peer
(peers/raw_peer.py) for protocol violations.
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# No test reads the developer's own config file or writes TLS secrets to the
# developer's key log: every wspipe the suite starts inherits this
# environment. WSPIPE_CONFIG set and empty reads no default config file (the
# config tests give it, or HOME and XDG_CONFIG_HOME, what they need).
os.environ["WSPIPE_CONFIG"] = ""
os.environ.pop("SSLKEYLOGFILE", None)

import helpers  # noqa: E402
from helpers import LoopThread, WSServer, WsProc, Result  # noqa: E402
from peers.fault_server import FaultServer  # noqa: E402
from peers.raw_peer import RawPeer  # noqa: E402


def pytest_collection_modifyitems(config, items):
    """Tests marked long_test (minutes of waiting: a heartbeat held over
    minutes of silence) run only with WSPIPE_LONG_TESTS=1."""
    if os.environ.get("WSPIPE_LONG_TESTS") == "1":
        return
    skip = pytest.mark.skip(reason="a long test: set WSPIPE_LONG_TESTS=1 to run it")
    for item in items:
        if "long_test" in item.keywords:
            item.add_marker(skip)


def pytest_runtest_setup(item):
    """@pytest.mark.needs("proc", "tmux", ...): the test is skipped, with the
    reason, where a capability or a tool it needs is missing, instead of
    failing there (helpers.missing_capability)."""
    for mark in item.iter_markers("needs"):
        for name in mark.args:
            reason = helpers.missing_capability(name)
            if reason:
                pytest.skip(reason)


@pytest.fixture(scope="session")
def wspipe_bin() -> str:
    path = os.environ.get("WSPIPE", "")
    if not path:
        pytest.fail("WSPIPE is not set: point it at the wspipe binary (Tests/run does)")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail(f"WSPIPE={path} is not an executable file")
    return path


@pytest.fixture
def spawn(wspipe_bin):
    """spawn(args, stdin=b"", close_stdin=True, **kw) -> WsProc.

    With close_stdin=False stdin stays open until the test closes it (or the
    process ends). Every process still running at teardown is killed."""
    procs: list[WsProc] = []

    def _spawn(args, stdin: bytes | None = b"", close_stdin: bool = True, **kw) -> WsProc:
        p = WsProc([wspipe_bin, *args], stdin=stdin, close_stdin=close_stdin, **kw)
        procs.append(p)
        return p

    yield _spawn
    for p in procs:
        p.close_stdin()
        p.kill()


@pytest.fixture
def run(spawn):
    """run(args, stdin=b"", timeout=10) -> Result(code, stdout bytes, stderr text)."""

    def _run(args, stdin: bytes = b"", timeout: float = helpers.RUN_TIMEOUT, **kw) -> Result:
        return spawn(args, stdin=stdin, **kw).finish(timeout)

    return _run


@pytest.fixture
def free_port():
    return helpers.free_port


@pytest.fixture(scope="session")
def loop_thread():
    lt = LoopThread()
    yield lt
    lt.stop()


@pytest.fixture
def ws_server(loop_thread):
    """ws_server(handler, ssl_context=None, **serve_kwargs) -> WSServer.

    handler(ws, log) runs for each connection; log is a thread-safe event
    log (srv.log) the test reads. Defaults: no size limit, no compression,
    no keepalive pings."""
    servers: list[WSServer] = []

    def _make(handler, ssl_context=None, **kwargs) -> WSServer:
        srv = WSServer(loop_thread, handler, ssl_context, **kwargs)
        servers.append(srv)
        return srv

    yield _make
    for s in servers:
        s.close()


@pytest.fixture
def raw_peer():
    """raw_peer() -> RawPeer listening on 127.0.0.1 (closed at teardown)."""
    peers: list[RawPeer] = []

    def _make(timeout: float = 5.0) -> RawPeer:
        p = RawPeer(timeout)
        peers.append(p)
        return p

    yield _make
    for p in peers:
        p.close()


@pytest.fixture
def fault_server():
    """fault_server(behaviours=None, default=None, responder=None, port=0) -> FaultServer
    (peers/fault_server.py) listening on 127.0.0.1; closed at teardown."""
    servers: list[FaultServer] = []

    def _make(*args, **kwargs) -> FaultServer:
        s = FaultServer(*args, **kwargs)
        servers.append(s)
        return s

    yield _make
    for s in servers:
        s.close()


@pytest.fixture(scope="session")
def tls_cert(tmp_path_factory) -> str:
    """Directory with cert.pem/key.pem: self-signed, CN=localhost, SAN localhost + 127.0.0.1."""
    return helpers.make_cert(str(tmp_path_factory.mktemp("tls-localhost")), "localhost")


@pytest.fixture(scope="session")
def tls_cert_other(tmp_path_factory) -> str:
    """Directory with cert.pem/key.pem for CN/SAN other.example (wrong host)."""
    return helpers.make_cert(str(tmp_path_factory.mktemp("tls-other")), "other.example")


@pytest.fixture(scope="session")
def release(wspipe_bin, tmp_path_factory):
    """The release folder packaging/release.sh makes of the binary under test
    (release_folder.py): made once for the packaging and release tests."""
    import release_folder
    missing = release_folder.missing_tools()
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (Tests/run installs them with apt-get when it can)")
    return release_folder.make_release(wspipe_bin, tmp_path_factory.mktemp("release"))
