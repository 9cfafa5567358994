"""``$regex`` is matched with ``re.fullmatch``'s verdicts, in bounded time on catastrophic patterns."""

from __future__ import annotations

import re

import pytest

from pytest_toolcall.benchmarks.cases.matching import _matcher_problem
from pytest_toolcall.core.safety import patterns

CASES = [
    (r"\d{3}-\d{4}", "555-1234"),
    (r"\d{3}-\d{4}", "555-12345"),
    (r"a$", "a\n"),  # $ before a final newline: re's rule (fallback path)
    (r"(?i)paris", "PARIS"),
    (r"(\w)\1", "aa"),  # a backreference: re itself (fallback path)
    (r"caf.", "café"),
]


@pytest.mark.parametrize(("pattern", "text"), CASES)
@pytest.mark.slow
def test_verdicts_are_re_fullmatch(pattern: str, text: str) -> None:
    expected = re.fullmatch(pattern, text) is not None
    assert (_matcher_problem({"$regex": pattern}, text) == "") is expected


def test_catastrophic_pattern_is_decided_by_the_linear_engine() -> None:
    # ^(a+)+$ against 40 a's and a "!" backtracks for hours under re; RE2 answers at once.
    pytest.importorskip("re2")
    text = "a" * 40 + "!"
    assert patterns._re2("(a+)+") is not None and patterns._re2_agrees("(a+)+", text)
    assert _matcher_problem({"$regex": "(a+)+"}, text) != ""
    assert _matcher_problem({"$regex": "(a+)+"}, "a" * 40) == ""


@pytest.mark.slow
def test_catastrophic_fallback_pattern_fails_the_match_instead_of_hanging(monkeypatch: pytest.MonkeyPatch) -> None:
    # A backreference keeps the match in re (in the helper process), which is abandoned at the bound.
    monkeypatch.setattr(patterns, "FALLBACK_SECONDS", 0.5)
    problem = _matcher_problem({"$regex": r"(a+)+\1b"}, "a" * 40 + "!")
    assert "not decided" in problem
