"""README examples that run (issue 5).

A ```sh block in README.md runs as a test when the line just before it (blank
lines allowed in between) is

    <!-- test: run -->

It runs with `bash -e` in a fresh temporary directory (the current
directory), stdin from /dev/null, `wspipe` first on PATH (a symlink to the
binary under test, also in $WSPIPE), and must exit 0 within BLOCK_TIMEOUT,
with every background process it started stopped: a reader who runs a
recipe twice must not find the first run's server still holding the port.

    <!-- test: output -->

followed by a ```text block gives the exact expected stdout of the runnable
block before it. Blocks without a marker are documentation only. A README
without runnable blocks makes one skipped test; a malformed marker is a
failure, not a skip.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass

import pytest

README = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md"))
BLOCK_TIMEOUT = 30.0
RUN_MARK = "<!-- test: run -->"
OUTPUT_MARK = "<!-- test: output -->"


@dataclass
class Block:
    line: int                    # 1-based line of the opening fence in README.md
    code: str
    expected: str | None = None  # exact stdout, from a following `test: output` block


def _fenced(lines: list[str], start: int, languages: tuple[str, ...], mark: str) -> tuple[int, str]:
    """The fenced block after the marker on line index `start`: (index of its
    opening fence, its text). ValueError when it is not there or not closed."""
    i = start + 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    opening = lines[i].strip() if i < len(lines) else ""
    if not opening.startswith("```") or opening[3:].strip() not in languages:
        want = " or ".join("```" + lang for lang in languages)
        raise ValueError(f"README.md:{start + 1}: {mark} must be followed by a {want} block, found {opening!r}")
    for j in range(i + 1, len(lines)):
        if lines[j].strip() == "```":
            body = lines[i + 1:j]
            return i, "".join(line + "\n" for line in body)
    raise ValueError(f"README.md:{i + 1}: the block after {mark} is not closed")


def parse_readme(text: str) -> list[Block]:
    """The runnable blocks of a README text, each with its expected output."""
    lines = text.split("\n")
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        mark = lines[i].strip()
        if mark == RUN_MARK:
            fence, code = _fenced(lines, i, ("sh", "bash"), RUN_MARK)
            blocks.append(Block(fence + 1, code))
        elif mark == OUTPUT_MARK:
            fence, expected = _fenced(lines, i, ("text",), OUTPUT_MARK)
            if not blocks:
                raise ValueError(f"README.md:{i + 1}: {OUTPUT_MARK} with no runnable block before it")
            if blocks[-1].expected is not None:
                raise ValueError(f"README.md:{i + 1}: a second {OUTPUT_MARK} for the block at line {blocks[-1].line}")
            blocks[-1].expected = expected
        elif mark.startswith("<!-- test:"):
            raise ValueError(f"README.md:{i + 1}: unknown test marker {mark!r} (use {RUN_MARK} or {OUTPUT_MARK})")
        elif mark.startswith("```"):
            # An unmarked block: skip it whole (markers shown inside it are text).
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                i += 1
            i += 1
            continue
        else:
            i += 1
            continue
        # Go on after the closing fence of the block just read.
        i = fence + 1
        while lines[i].strip() != "```":
            i += 1
        i += 1
    return blocks


def run_block(code: str, wspipe_bin: str, tmp_path, timeout: float = BLOCK_TIMEOUT) -> tuple[int | None, str, str, bool]:
    """Run a block as the README test does: (exit status or None on timeout,
    stdout, stderr, whether a process it started was still running)."""
    bindir = tmp_path / "bin"
    work = tmp_path / "work"
    bindir.mkdir(parents=True)
    work.mkdir()
    link = bindir / "wspipe"
    link.symlink_to(os.path.abspath(wspipe_bin))
    script = tmp_path / "block.sh"
    script.write_text(code)
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")}
    env.update(PATH=f"{bindir}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}", WSPIPE=str(link), NO_COLOR="1")
    # A home of its own: a recipe that writes ~/.config/wspipe/config writes
    # there, and no recipe reads the developer's own config file.
    home = tmp_path / "home"
    home.mkdir()
    env["HOME"] = str(home)
    for name in ("WSPIPE_CONFIG", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "SSLKEYLOGFILE"):
        env.pop(name, None)
    # Files, not pipes: a background process the block leaves behind must not
    # keep the test waiting for EOF.
    out_path, err_path = tmp_path / "stdout", tmp_path / "stderr"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(["bash", "-e", str(script)], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True)
        leftover = False
        try:
            code_ = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            code_ = None
        finally:
            # A process of the block's group still running a moment after the
            # block ended is one it left behind (zombies are not: without an
            # init that reaps orphans they linger here once they have exited).
            deadline = time.monotonic() + 1
            while _group_running(proc.pid):
                if time.monotonic() > deadline:
                    leftover = True
                    break
                time.sleep(0.02)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(5)
    return code_, out_path.read_text(errors="replace"), err_path.read_text(errors="replace"), leftover


def _params():
    try:
        with open(README, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return [pytest.param(None, id="no-readme", marks=pytest.mark.skip(reason=f"{README} does not exist"))]
    try:
        blocks = parse_readme(text)
    except ValueError as exc:
        return [pytest.param(exc, id="malformed")]
    if not blocks:
        return [pytest.param(None, id="none", marks=pytest.mark.skip(
            reason=f"README.md has no runnable blocks yet (mark a ```sh block with {RUN_MARK})"))]
    return [pytest.param(b, id=f"line{b.line}") for b in blocks]


@pytest.mark.needs("proc")
@pytest.mark.parametrize("block", _params())
def test_readme_block(block, wspipe_bin, tmp_path):
    if isinstance(block, ValueError):
        pytest.fail(str(block))
    if re.search(r"(^|[\s|;&(`$])jq\b", block.code) and shutil.which("jq") is None:
        pytest.skip("the block uses jq, which is not installed (Tests/run installs it with apt-get when it can)")
    code, out, err, leftover = run_block(block.code, wspipe_bin, tmp_path)
    where = f"README.md:{block.line}"
    assert not leftover, f"{where}: the block left a process running (stop every server it starts)"
    assert code is not None, f"{where}: the block did not finish within {BLOCK_TIMEOUT}s; stdout={out[-1000:]!r} stderr={err[-2000:]!r}"
    assert code == 0, f"{where}: the block exited {code}; stdout={out[-1000:]!r} stderr={err[-2000:]!r}"
    if block.expected is not None:
        assert out == block.expected, f"{where}: stdout differs from the `test: output` block; stderr={err[-2000:]!r}"


# -- the parser and runner themselves ----------------------------------------------------------

SAMPLE = """# Title

```sh
not marked: never runs
```

<!-- test: run -->
```sh
echo one
```

<!-- test: output -->

```text
one
```

Text between.
<!-- test: run -->
```bash
true
```
<!-- test: run -->
```sh
printf 'a\\n\\nb\\n'
```
<!-- test: output -->
```text
a

b
```
"""


def test_parser_pairs_blocks_with_their_output():
    blocks = parse_readme(SAMPLE)
    assert [(b.line, b.code, b.expected) for b in blocks] == [
        (8, "echo one\n", "one\n"),
        (20, "true\n", None),
        (24, "printf 'a\\n\\nb\\n'\n", "a\n\nb\n"),
    ]


@pytest.mark.parametrize("text,message", [
    ("<!-- test: output -->\n```text\nx\n```\n", "no runnable block before it"),
    ("<!-- test: run -->\n```python\nprint(1)\n```\n", "must be followed by a ```sh or ```bash block"),
    ("<!-- test: run -->\n```sh\necho never closed\n", "is not closed"),
    ("<!-- test: run -->\n```sh\necho\n```\n<!-- test: output -->\n```sh\n\n```\n", "```text block"),
    ("<!-- test: run -->\n```sh\necho\n```\n<!-- test: output -->\n```text\n\n```\n"
     "<!-- test: output -->\n```text\n\n```\n", "a second"),
    ("<!-- test: runn -->\n```sh\necho\n```\n", "unknown test marker"),
], ids=["output-first", "not-sh", "unclosed", "output-not-text", "two-outputs", "typo"])
def test_parser_rejects_malformed_markers(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_readme(text)


def test_parser_without_markers():
    assert parse_readme("# wspipe\n\n```sh\nwspipe --help\n```\n") == []
    # A marker shown inside an unmarked block is documentation, not a marker.
    assert parse_readme("```markdown\n<!-- test: run -->\n```sh\n```\n") == []


@pytest.mark.needs("proc")
def test_runner_puts_wspipe_first_on_path(wspipe_bin, tmp_path):
    code, out, err, _ = run_block('command -v wspipe\n[ "$PWD" != / ]\nwspipe --version >/dev/null\n', wspipe_bin, tmp_path)
    assert code == 0, err
    assert out == f"{tmp_path}/bin/wspipe\n"


@pytest.mark.needs("proc")
def test_runner_reports_failure_timeout_and_kills_leftovers(wspipe_bin, tmp_path):
    code, out, err, _ = run_block("echo before\nfalse\necho after\n", wspipe_bin, tmp_path / "a")
    assert (code, out) == (1, "before\n"), "bash -e stops at the first failing command"
    code, _, _, _ = run_block("sleep 30\n", wspipe_bin, tmp_path / "b", timeout=0.5)
    assert code is None
    pidfile = tmp_path / "bg.pid"
    code, out, _, leftover = run_block(f"sleep 60 &\necho $! > {pidfile}\necho bg\n", wspipe_bin, tmp_path / "c")
    assert (code, out, leftover) == (0, "bg\n", True), "the leftover is seen"
    code, _, _, leftover = run_block("sleep 60 & pid=$!\nkill $pid; wait $pid || true\n", wspipe_bin, tmp_path / "d")
    assert (code, leftover) == (0, False), "a process the block stopped is no leftover"
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _running(pid), "a background process of the block survived"


def _group_running(pgid: int) -> bool:
    """Some process of group `pgid` is alive and not a zombie."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _running(pid: int) -> bool:
    """Alive and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
