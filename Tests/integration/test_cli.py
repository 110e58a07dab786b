"""Command line: --version, --help, usage errors (exit 2)."""

from __future__ import annotations

import re

import pytest


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(run, flag):
    res = run([flag])
    assert res.code == 0, res
    assert re.fullmatch(r"wspipe \d+\.\d+\S*\n", res.stdout.decode()), res


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_options(run, flag):
    res = run([flag])
    assert res.code == 0, res
    text = res.stdout.decode()
    for opt in ("--header", "--listen", "--text", "--max-message-size", "--close-timeout"):
        assert opt in text, f"{opt} missing from {flag}"


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
