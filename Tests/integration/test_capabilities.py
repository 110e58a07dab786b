"""The suite's capability checks (conftest.py, helpers.missing_capability): a
test that needs a tool, /proc or root declares it with
@pytest.mark.needs(...) and is skipped with the reason where it is missing,
instead of failing there (Sources/README.md, Porting)."""

from __future__ import annotations

import sys

import pytest

import helpers

ABSENT = "wspipe-test-no-such-tool"


def test_a_missing_tool_or_capability_is_told_with_its_reason():
    assert ABSENT in helpers.missing_capability(ABSENT)
    assert "Tests/run installs it" in helpers.missing_capability(ABSENT)
    assert helpers.missing_capability("sh") is None
    if sys.platform.startswith("linux"):
        assert helpers.missing_capability("proc") is None


@pytest.mark.needs(ABSENT)
def test_a_test_that_needs_a_missing_tool_is_skipped():
    pytest.fail("ran though a tool it needs is missing")
