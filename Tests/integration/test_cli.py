"""Command line: --version, --help, usage errors (exit 2)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess

import pytest


ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(run, flag):
    res = run([flag])
    assert res.code == 0, res
    match = re.fullmatch(r"wspipe \d+\.\d+\S* \(commit ([0-9a-f]{7,})(-dirty)?\)\n", res.stdout.decode())
    assert match, res
    # Tests/run builds the binary from this checkout: the commit is its HEAD.
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:
        assert head.stdout.startswith(match.group(1)), (res, head.stdout)


def _stamp(tmp_path, root, given=""):
    """What the build plugin's script (Sources/CommitStamp/stamp.sh) writes for `root`."""
    out = tmp_path / "out"
    subprocess.run(["sh", os.path.join(ROOT, "Sources", "CommitStamp", "stamp.sh"), str(out), str(root), given],
                   check=True, capture_output=True, timeout=30)
    text = (out / "GeneratedCommit.swift").read_text()
    return re.search(r'let generatedCommit = "([^"]*)"', text).group(1)


def test_the_commit_stamp_says_where_it_comes_from(tmp_path):
    """A checkout gets its git describe; a tree without .git, even one inside
    another repository, gets nothing (--version then says so) unless
    WSPIPE_COMMIT gives it; nothing else reaches the Swift source."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("the tests do not run from a git checkout")
    assert head.stdout.startswith(_stamp(tmp_path / "a", ROOT).removesuffix("-dirty"))
    plain = tmp_path / "unpacked"
    plain.mkdir()
    assert _stamp(tmp_path / "b", plain) == ""
    outer = tmp_path / "outer"
    (outer / "wspipe-src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(outer)], check=True)
    subprocess.run(["git", "-C", str(outer), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    assert _stamp(tmp_path / "c", outer / "wspipe-src") == ""
    assert _stamp(tmp_path / "d", plain, "v1.2.3-4-gabcdef") == "v1.2.3-4-gabcdef"
    assert _stamp(tmp_path / "e", plain, 'x"; evil()') == ""


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_options(run, flag):
    """The short help fits a screen and names the categories; --help all and
    --help CATEGORY show the rest."""
    res = run([flag])
    assert res.code == 0, res
    text = res.stdout.decode()
    assert len(text.splitlines()) <= 50, text
    for opt in ("--header", "--listen", "--text", "--until", "--config", "wspipe curl"):
        assert opt in text, f"{opt} missing from {flag}"
    for category in ("connection", "tls", "lines", "routing", "ending", "reconnect", "peer", "server", "diagnostics"):
        assert category in text, category
    everything = run([flag, "all"]).stdout.decode()
    for opt in ("--max-message-size", "--close-timeout", "--keylog", "--no-config", "Exit status:"):
        assert opt in everything, f"{opt} missing from {flag} all"
    ending = run([flag, "ending"])
    assert ending.code == 0 and b"--close-timeout" in ending.stdout and b"--exec" not in ending.stdout, ending
    bad = run([flag, "endings"])
    assert bad.code == 2 and "choose one of: connection, tls" in bad.stderr, bad


def test_unknown_option_suggests_closest(run):
    res = run(["--hedaer", "X-A: b", "ws://127.0.0.1:9/"])
    assert res.code == 2, res
    assert "--hedaer" in res.stderr
    assert "--header" in res.stderr
    assert res.stderr.startswith("wspipe: "), res
    assert res.stdout == b""


@pytest.mark.parametrize("args", [
    ["--no-such-flag", "ws://127.0.0.1:9/"],
    ["ws://127.0.0.1:9/", "--listen", "127.0.0.1:0"],
    ["http://127.0.0.1:9/"],
    ["https://127.0.0.1:9/"],
    ["127.0.0.1:9"],
    [],
    ["ws://127.0.0.1:9/", "ws://127.0.0.1:10/"],
    ["--close-timeout", "soon", "ws://127.0.0.1:9/"],
    ["--max-message-size", "12Q", "ws://127.0.0.1:9/"],
    ["-t", "--binary-output", "hex", "ws://127.0.0.1:9/"],
    ["--max-messages", "-3", "ws://127.0.0.1:9/"],
    ["--header"],
], ids=["unknown-flag", "url-and-listen", "http-url", "https-url", "no-scheme", "nothing", "two-urls",
        "bad-duration", "bad-size", "bad-binary-output", "negative-count", "missing-value"])
def test_usage_errors_exit_2(run, args):
    res = run(args)
    assert res.code == 2, res
    assert res.stdout == b""
    assert res.stderr.startswith("wspipe: "), res


def test_missing_header_file(run, tmp_path):
    res = run(["--header-file", str(tmp_path / "absent"), "ws://127.0.0.1:9/"])
    assert res.code in (1, 2), res
    assert res.stderr.startswith("wspipe: "), res
    assert str(tmp_path / "absent") in res.stderr


def test_help_ends_with_five_examples(run):
    text = run(["--help"]).stdout.decode()
    examples = text[text.index("\nExamples:\n") + len("\nExamples:\n"):].splitlines()
    said = [l for l in examples if l.startswith("  ") and not l.startswith("    ")]
    typed = [l.strip() for l in examples if l.startswith("    ")]
    assert len(said) == 5, examples
    assert any(l.startswith("echo ") and "| wspipe wss://" in l for l in typed), "a one-shot"
    assert any("| jq" in l for l in typed), "a stream into jq"
    assert "wspipe wss://chat.example.com/ws" in typed, "interactive"
    assert any("--listen" in l for l in typed), "a mock server"
    assert any("--check" in l for l in typed), "a test in CI"


def test_the_mock_server_example_of_help_works(spawn, run, free_port):
    """The --exec example answers as its description says (with jq)."""
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed (Tests/run installs it with apt-get when it can)")
    text = run(["--help"]).stdout.decode()
    line = next(l.strip() for l in text.splitlines() if l.strip().startswith("wspipe --listen 8080 --exec"))
    port = free_port()
    argv = shlex.split(line.replace("8080", f"127.0.0.1:{port}"))[1:]
    server = spawn(argv)
    server.wait_stderr("listening on")
    res = run(["-n", "--max-messages", "1", f"ws://127.0.0.1:{port}/"], stdin=b'{"type":"order","id":7}\n')
    assert res.code == 0, res
    assert res.lines == ['{"type":"ack","id":7}'], res
