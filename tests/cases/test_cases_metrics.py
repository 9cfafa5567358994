"""The ``cases`` metrics block (derived from the declaration, ``names.METRICS``) and its gate names;
counts worked out by hand, intervals by Wilson's formula written out."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pytest_toolcall.api import block_metrics, derive_block
from pytest_toolcall.benchmarks.cases.benchmark import Cases
from pytest_toolcall.benchmarks.cases.names import METRICS


def cases_metrics(records: list[dict[str, Any]]) -> dict[str, Any]:
    return derive_block(METRICS, records)


def gate_names(block: dict[str, Any]) -> list[str]:
    """The gate names of a block, as the declaration derives them."""
    return [f"cases.{metric}" for metric in block_metrics(Cases.metrics, block)]


def gate_value(name: str, block: dict[str, Any]) -> float | None:
    """The value a gate reads for a name (None: not the cases', or not measured)."""
    try:
        return Cases.gate_values(name, {"cases": block})[0][1]
    except ValueError:  # a name of the cases that they do not measure
        return None


def wilson(k: int, n: int) -> list[float]:
    z, p = 1.96, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return [max(0.0, centre - half), min(1.0, centre + half)]


def rounded(value: Any) -> Any:
    """A block with its floats rounded to 12 digits (the formula here and the library's may differ
    in the last bits)."""
    if isinstance(value, float):
        return round(value, 12)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def row(n: int, passed: int) -> dict[str, Any]:
    return {"n": n, "passed": passed, "accuracy": passed / n if n else None, "ci95": wilson(passed, n) if n else None}


RECORDS = [
    {"file": "tests/weather.toolcall.yaml", "tags": ["weather", "smoke"], "outcome": "passed"},
    {"file": "tests/weather.toolcall.yaml", "tags": ["weather"], "outcome": "failed"},
    {"file": "tests/weather.toolcall.yaml", "tags": ["weather", "smoke"], "outcome": "passed"},
    {"file": "tests/calendar.toolcall.yml", "tags": ["smoke"], "outcome": "failed"},
    {"file": "tests/calendar.toolcall.yml", "tags": [], "outcome": "error"},
    {"file": "tests/test_agent.py", "tags": [], "outcome": "passed"},
    {"file": "more/weather.toolcall.jsonl", "tags": ["weather", "weather"], "outcome": "passed"},
    {"file": "tests/calendar.toolcall.yml", "tags": ["smoke"], "outcome": "skipped"},
]


def test_block():
    block = cases_metrics(RECORDS)
    assert rounded(block) == rounded(
        {
            "files": {
                "more/weather.toolcall.jsonl": row(1, 1),
                "tests/calendar.toolcall.yml": row(1, 0),
                "tests/test_agent.py": row(1, 1),
                "tests/weather.toolcall.yaml": row(3, 2),
            },
            "tags": {
                "smoke": row(3, 2),
                "weather": row(4, 3),  # a tag repeated on one record counts once
            },
            "overall": 4 / 6,
            "n": 6,
            "passed": 4,
            "overall_ci95": wilson(4, 6),
            "errors": 1,
            "skipped": 1,
            "failure_kinds": {},
        }
    )


def test_empty_block_has_no_accuracy():
    assert cases_metrics([]) == {
        "files": {},
        "tags": {},
        "overall": None,
        "n": 0,
        "passed": 0,
        "overall_ci95": None,
        "errors": 0,
        "skipped": 0,
        "failure_kinds": {},
    }
    errored = cases_metrics([{"file": "a.toolcall.yaml", "tags": [], "outcome": "error"}])
    assert errored["overall"] is None and errored["files"]["a.toolcall.yaml"] == row(0, 0)


def test_gate_names_and_values():
    block = cases_metrics(RECORDS)
    assert gate_names(block) == [
        "cases.overall",
        "cases.file.calendar",
        "cases.file.more/weather",  # two files named weather: a metric each, named by its path
        "cases.file.test_agent",
        "cases.file.tests/weather",
        "cases.tag.smoke",
        "cases.tag.weather",
    ]
    assert gate_value("cases.overall", block) == pytest.approx(4 / 6)
    assert gate_value("cases.file.more/weather", block) == 1.0
    assert gate_value("cases.file.tests/weather", block) == pytest.approx(2 / 3)
    assert gate_value("cases.file.weather", block) == 0.75  # the shared stem still pools both: 3 of 4
    assert gate_value("cases.file.calendar", block) == 0.0
    assert gate_value("cases.tag.smoke", block) == pytest.approx(2 / 3)
    for unknown in ("cases.file.nope", "cases.tag.nope", "cases.nope", "general_fc.tool_call_f1", "overall", "cases."):
        assert gate_value(unknown, block) is None


def test_case_record_feeds_the_block():
    from pytest_toolcall.benchmarks.cases.format import Case
    from pytest_toolcall.benchmarks.cases.metrics import case_record
    from pytest_toolcall.benchmarks.cases.response import judge_case
    from tests.cases.cases_support import TOOLS, answer

    case = Case(
        "t/w.toolcall.yaml",
        7,
        "lyon",
        [],
        TOOLS,
        ("smoke",),
        {},
        {"calls": [{"name": "get_time", "arguments": {"city": "Lyon"}}]},
    )
    record = case_record(case, judge_case(case, answer(("get_time", {"city": "Lyons"}))))
    assert record == {
        "benchmark": "cases",
        "category": "w",
        "id": "lyon",
        "file": "t/w.toolcall.yaml",
        "line": 7,
        "tags": ["smoke"],
        "outcome": "failed",
        "score": 0.0,
        "failure_kind": "wrong_value",
        "reason": record["reason"],
        "calls": [
            {
                "position": 1,
                "name": "get_time",
                "kind": "wrong_value",
                "problems": ["get_time.city: expected 'Lyon', got 'Lyons'"],
            }
        ],
    }
    assert record["reason"].startswith("wrong_value: ")
    passed = case_record(case, judge_case(case, answer(("get_time", {"city": "Lyon"}))))
    assert (passed["outcome"], passed["failure_kind"], passed["reason"]) == ("passed", None, "")
    assert rounded(cases_metrics([record, passed])["files"]) == rounded({"t/w.toolcall.yaml": row(2, 1)})
