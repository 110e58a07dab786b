"""A real terminal for the interactive-mode tests: one tmux server per pane,
on its own socket, with one pane running a shell command.

Keys go in with send-keys (literal text with -l, key names otherwise), the
screen comes back with capture-pane, and every wait is for something on the
screen or in a file, with a generous deadline: never a fixed sleep.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
import uuid
from typing import Callable

SCREEN_TIMEOUT = 15.0
WIDTH = 100
HEIGHT = 30

# remain-on-exit keeps the pane (and its last screen) after the command ends;
# no status line, so the pane is the whole 100x30 window.
CONFIG = """\
set -g remain-on-exit on
set -g status off
set -g default-shell /bin/sh
set -g history-limit 10000
"""


class TmuxPane:
    def __init__(self, directory: str, command: str, env: dict[str, str], width: int = WIDTH, height: int = HEIGHT):
        # The server's socket lives in the test's directory: nothing is left in /tmp/tmux-UID.
        self.socket = os.path.join(directory, f"tmux-{uuid.uuid4().hex[:8]}.sock")
        self.env = env
        config = os.path.join(directory, "tmux.conf")
        with open(config, "w") as f:
            f.write(CONFIG)
        self.tmux("-f", config, "new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), command)

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-S", self.socket, *args], env=self.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=10)
        assert done.returncode == 0, f"tmux {' '.join(args)} failed: {done.stderr}"
        return done.stdout

    # input --------------------------------------------------------------
    def type(self, text: str) -> None:
        """Literal text, as typed."""
        self.tmux("send-keys", "-t", "t", "-l", text)

    def keys(self, *names: str) -> None:
        """Named keys: Enter, Left, Up, BSpace, C-r, C-d, ..."""
        self.tmux("send-keys", "-t", "t", *names)

    def paste(self, text: str) -> None:
        """A bracketed paste (the application turned mode 2004 on), line
        breaks sent as CR the way terminals send them."""
        self.tmux("set-buffer", "-b", "p", text)
        self.tmux("paste-buffer", "-p", "-b", "p", "-t", "t")

    def resize(self, width: int, height: int) -> None:
        """The window (and the pane, the only one) becomes width x height: the program gets SIGWINCH."""
        self.tmux("resize-window", "-t", "t", "-x", str(width), "-y", str(height))

    # output -------------------------------------------------------------
    def screen(self, trailing_blanks: bool = False) -> str:
        """The visible screen; with trailing_blanks, each row keeps the blanks at its end (-N)."""
        return self.tmux("capture-pane", "-p", *(["-N"] if trailing_blanks else []), "-t", "t")

    def screen_joined(self) -> str:
        """The visible screen with the rows the terminal wrapped joined again
        (-J): a line longer than the pane is one written wider than it."""
        return self.tmux("capture-pane", "-p", "-J", "-t", "t")

    def everything(self) -> str:
        """The scrollback and the screen, rows the terminal wrapped joined again (-J)."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t")

    def cursor(self) -> tuple[int, int]:
        """Where the terminal's cursor is: (column, row), from 0."""
        x, y = self.tmux("display-message", "-p", "-t", "t", "#{cursor_x} #{cursor_y}").split()
        return int(x), int(y)

    def lines(self) -> list[str]:
        """The screen's lines, trailing blanks removed, without the empty rows below."""
        rows = [line.rstrip() for line in self.screen().split("\n")]
        while rows and not rows[-1]:
            rows.pop()
        return rows

    def wait(self, predicate: Callable[[str], bool], what: str, timeout: float = SCREEN_TIMEOUT) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if predicate(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"screen never showed {what} within {timeout}s; screen:\n{screen}")
            time.sleep(0.05)

    def wait_for(self, pattern: str, timeout: float = SCREEN_TIMEOUT) -> re.Match:
        rx = re.compile(pattern, re.M)
        screen = self.wait(lambda s: rx.search(s) is not None, repr(pattern), timeout)
        return rx.search(screen)

    def wait_prompt(self, text: str, timeout: float = SCREEN_TIMEOUT) -> str:
        """Wait until the edit area's first row (the last "> " row) reads `text`."""
        def shows(screen: str) -> bool:
            return prompt_line(screen) == "> " + text
        return self.wait(shows, f"the prompt {'> ' + text!r}", timeout)

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], env=self.env, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=10)


def prompt_line(screen: str) -> str | None:
    """The last row starting with "> " that is not a sent message (those
    carry a time: "> 12:01:02.123 ...")."""
    found = None
    for line in screen.split("\n"):
        line = line.rstrip()
        if (line == ">" or line.startswith("> ")) and not re.match(r"> \d\d:\d\d:\d\d\.\d\d\d ", line):
            found = line if line != ">" else "> "
    return found


def shell_command(*words: str) -> str:
    return " ".join(shlex.quote(w) for w in words)


def wait_file(path: str, timeout: float = SCREEN_TIMEOUT) -> str:
    """The content of a file a shell command writes last (it ends with a newline)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(path) as f:
                text = f.read()
            if text.endswith("\n"):
                return text
        except FileNotFoundError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} was not written within {timeout}s")
        time.sleep(0.05)
