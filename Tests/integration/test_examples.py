"""The README's first command runs Tests/examples/round-trip.sh: it must keep
working as written (a JSON and a binary message echoed by wspipe's own server)."""

from __future__ import annotations

import os
import subprocess

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def test_round_trip_example(wspipe_bin):
    res = subprocess.run([os.path.join(ROOT, "Tests", "examples", "round-trip.sh")],
                         env={**os.environ, "WSPIPE": wspipe_bin}, stdin=subprocess.DEVNULL,
                         capture_output=True, timeout=30)
    assert res.returncode == 0, res
    assert res.stdout == b'{"type":"hello","text":"round trip"}\n{"$binary":"AAECAw=="}\n', res
