"""BFCL under --toolcall-repeat: every attempt is an item, pass^k and flaky units per category."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set


def test_repeats_of_the_oracle(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--toolcall-model=oracle",
        "--toolcall-bench=bfcl",
        "--toolcall-bfcl-categories=simple_java",
        "--toolcall-limit=70",
        "--toolcall-repeat=2",
        "--toolcall-report=report.json",
        "-p",
        "no:randomly",
    )
    # Among the first 70 simple_java units, 36, 64 and 65 have possible answers the official
    # checker rejects (fc mode): they fail both attempts, the 67 others pass both.
    result.assert_outcomes(passed=2 * 67, xfailed=2 * 3)
    block = json.loads((pytester.path / "report.json").read_text())["metrics"]["bfcl"]
    category = block["categories"]["simple_java"]
    assert (category["n"], category["passed"]) == (140, 134)
    assert category["pass_hat_k"] == pytest.approx({"1": 67 / 70, "2": 67 / 70})
    assert block["flaky"] == []
