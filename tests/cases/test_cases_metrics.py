"""The ``cases`` metrics block and its gate names; counts worked out by hand."""

from __future__ import annotations

import pytest

from pytest_toolcall.api import block_metrics
from pytest_toolcall.benchmarks.cases.benchmark import Cases
from pytest_toolcall.benchmarks.cases.metrics import cases_metrics


def gate_names(block: dict) -> list[str]:
    """The gate names of a block, as the declaration derives them."""
    return [f"cases.{metric}" for metric in block_metrics(Cases.metrics, block)]


def gate_value(name: str, block: dict) -> float | None:
    """The value a gate reads for a name (None: not the cases', or not measured)."""
    try:
        return Cases.gate_values(name, {"cases": block})[0][1]
    except ValueError:  # a name of the cases that they do not measure
        return None


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
    assert block == {
        "files": {
            "more/weather.toolcall.jsonl": {"n": 1, "passed": 1, "accuracy": 1.0},
            "tests/calendar.toolcall.yml": {"n": 1, "passed": 0, "accuracy": 0.0},
            "tests/test_agent.py": {"n": 1, "passed": 1, "accuracy": 1.0},
            "tests/weather.toolcall.yaml": {"n": 3, "passed": 2, "accuracy": 2 / 3},
        },
        "tags": {
            "smoke": {"n": 3, "passed": 2, "accuracy": 2 / 3},
            "weather": {"n": 4, "passed": 3, "accuracy": 0.75},  # a tag repeated on one record counts once
        },
        "overall": 4 / 6,
        "n": 6,
        "passed": 4,
        "errors": 1,
        "skipped": 1,
    }


def test_empty_block_has_no_accuracy():
    assert cases_metrics([]) == {
        "files": {},
        "tags": {},
        "overall": None,
        "n": 0,
        "passed": 0,
        "errors": 0,
        "skipped": 0,
    }
    assert cases_metrics([{"file": "a.toolcall.yaml", "tags": [], "outcome": "error"}])["overall"] is None


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
    assert cases_metrics([record, passed])["files"] == {"t/w.toolcall.yaml": {"n": 2, "passed": 1, "accuracy": 0.5}}
