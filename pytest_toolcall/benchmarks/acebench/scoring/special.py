"""The ACEBench special categories: case-sensitive substring tests on the raw output.

Nothing is decoded or stripped. ``error_param`` never checks the parameter name, only the phrase and
every wrong value; ``irrelevant`` ignores its ground-truth sentence.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.benchmarks.acebench.scoring.verdict import Verdict

MISSING_PHRASE = "Missing necessary parameters"
INCORRECT_PHRASE = "There is incorrect value"
IRRELEVANT_PHRASE = "the limitations of the function"


def check_special(category: str, output: str | None, ground_truth: Any) -> Verdict:
    # A missing output crashes the official scorer; we read it as the empty string (invalid).
    text = output or ""
    # Dispatch by substring of the category name, in the official order.
    if "incomplete" in category:
        return _check_incomplete(text, ground_truth)
    if "error" in category:
        return _check_error_param(text, ground_truth)
    if "irrelevant" in category:
        if IRRELEVANT_PHRASE not in text:
            return Verdict(False, "error_detection", f"the output lacks {IRRELEVANT_PHRASE!r}")
        return Verdict(True)
    raise ValueError(f"not a special category: {category}")


def _check_incomplete(text: str, ground_truth: dict[str, list[str]]) -> Verdict:
    for api, params in ground_truth.items():
        if MISSING_PHRASE not in text:
            return Verdict(False, "error_detection", f"the output lacks {MISSING_PHRASE!r}")
        if api not in text:
            return Verdict(False, "error_correction", f"the output does not name the api {api!r}")
        missing = [param for param in params if param not in text]
        if missing:
            return Verdict(False, "error_correction", f"the output does not name the missing param(s) {missing}")
    return Verdict(True)


def _check_error_param(text: str, ground_truth: dict[str, list[str]]) -> Verdict:
    for _name, values in ground_truth.items():
        if INCORRECT_PHRASE not in text:
            return Verdict(False, "error_detection", f"the output lacks {INCORRECT_PHRASE!r}")
        missing = [value for value in values if value not in text]
        if missing:
            return Verdict(False, "error_correction", f"the output does not quote the wrong value(s) {missing}")
    return Verdict(True)
