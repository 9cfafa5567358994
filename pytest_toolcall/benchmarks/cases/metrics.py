"""The ``cases`` metrics block: accuracy per file, per tag and overall, and the gate names over it.

A record is one scored item (a case of a file, or a Python test that used ``assert_tool_calls``) with
``file`` (its path), ``tags`` and ``outcome``. Items whose request errored or that were skipped had no
answer to score: they are counted apart (``errors``, ``skipped``) and in no accuracy, so that a flaky
endpoint lowers no number silently (the gate fails on errors instead). ``cases_block`` adds the
intervals; the gate names and values are derived from the declaration (``benchmark.METRICS``).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from pytest_toolcall.benchmarks.cases.format import Case
from pytest_toolcall.benchmarks.cases.matching import CaseVerdict

PASSED = "passed"
ERROR, SKIPPED = "error", "skipped"


def case_record(case: Case, verdict: CaseVerdict) -> dict[str, Any]:
    """The fields of a case's sample in the JSON report (plain builtins), and what ``cases_metrics`` reads.
    The runner adds its own (nodeid, repeat, latency, usage, output...)."""
    return {
        "benchmark": "cases",
        "category": case.stem,
        "id": case.id,
        "file": case.file,
        "line": case.line,
        "tags": list(case.tags),
        "outcome": PASSED if verdict.passed else "failed",
        "score": 1.0 if verdict.passed else 0.0,
        "failure_kind": verdict.failure_kind,
        "reason": verdict.message,
        "calls": [{**asdict(report), "problems": list(report.problems)} for report in verdict.calls],
    }
