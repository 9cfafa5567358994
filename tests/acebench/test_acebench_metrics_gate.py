"""Records (what crosses xdist), the official aggregation (groups, OVERALL, rounding), and the gate."""

from __future__ import annotations

import enum
import pathlib
from typing import Any

import pytest

from pytest_toolcall.benchmarks.acebench.dataset import CATEGORIES, LANGUAGES
from pytest_toolcall.benchmarks.acebench.metrics import acebench_metrics
from pytest_toolcall.results.gate import evaluate, parse_thresholds
from pytest_toolcall.results.records import MAX_TEXT, sanitize


class Level(enum.IntEnum):
    HIGH = 3


def test_sanitize_keeps_only_exact_builtins() -> None:
    value = {
        1: (1, 2),
        None: {"a", "b"} and ["s"],
        (1, 2): Level.HIGH,
        "path": pathlib.Path("x"),
        "nested": [{"k": frozenset({1})}],
        "long": "x" * (MAX_TEXT + 10),
    }
    clean = sanitize(value)
    assert clean["1"] == [1, 2] and clean["None"] == ["s"] and clean["(1, 2)"] == 3
    assert type(clean["(1, 2)"]) is int
    assert clean["path"] == repr(pathlib.Path("x"))
    assert clean["nested"] == [{"k": [1]}]
    assert clean["long"].startswith("x" * MAX_TEXT) and clean["long"].endswith(f"[{MAX_TEXT + 10} characters, cut]")


def records(lang: str, category: str, n: int, passed: int) -> list[dict[str, Any]]:
    return [
        {
            "benchmark": "acebench",
            "lang": lang,
            "category": category,
            "score": 1.0 if i < passed else 0.0,
            "outcome": "passed" if i < passed else "failed",
            "process": None,
            "ceiling": 1.0,
        }
        for i in range(n)
    ]


def test_official_overall_from_rounded_groups() -> None:
    # README of ACEBench, gpt-4o-2024-11-20: normal 0.927, special 0.933, agent 0.715 -> 0.896.
    rows: list[dict[str, Any]] = []
    for category in CATEGORIES:
        passed = {"normal": 927, "special": 933, "agent": 715}[category.split("_")[0]]
        rows += records("en", category, 1000, passed)
    metrics = acebench_metrics(rows, {("en", c): 1000 for c in CATEGORIES})["acebench/en"]
    assert not metrics["partial"]
    assert (metrics["groups"]["normal"], metrics["groups"]["special"], metrics["groups"]["agent"]) == (
        0.927,
        0.933,
        0.715,
    )
    assert metrics["overall"] == metrics["overall_official"] == 0.896


def test_partial_run_is_renormalised_and_keeps_the_official_value() -> None:
    rows = records("zh", "normal_atom_bool", 3, 2) + records("zh", "special_irrelevant", 3, 3)
    metrics = acebench_metrics(rows, {})["acebench/zh"]
    assert metrics["partial"]
    assert metrics["categories"]["special_irrelevant"]["accuracy"] == 1.0
    assert metrics["categories"]["normal_atom_bool"]["accuracy"] == 0.667  # rounded; special ones are not
    assert metrics["overall"] == pytest.approx((0.578 * 0.667 + 0.2676 * 1.0) / (0.578 + 0.2676))
    assert metrics["overall_official"] == round(0.578 * round(0.667 / 12, 3) + 0.2676 * round(1 / 3, 3), 3)
    assert metrics["groups"]["agent"] is None


def test_special_accuracy_is_not_rounded() -> None:
    metrics = acebench_metrics(records("en", "special_incomplete", 3, 1), {})["acebench/en"]
    assert metrics["categories"]["special_incomplete"]["accuracy"] == 1 / 3


def test_errors_count_against_accuracy_and_mark_the_run_partial() -> None:
    rows = records("en", "normal_atom_enum", 4, 3)
    rows[3]["outcome"] = "error"
    metrics = acebench_metrics(rows, {("en", "normal_atom_enum"): 4})["acebench/en"]
    category = metrics["categories"]["normal_atom_enum"]
    assert (category["passed"], category["failed"], category["errors"], category["accuracy"]) == (3, 0, 1, 0.75)
    assert metrics["partial"] and metrics["errors"] == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("overall", "is not METRIC=VALUE"),
        ("overall=x", "is not a number"),
        ("overall=2", "between 0 and 1"),
        ("fr.overall=0.5", "unknown language 'fr'"),
        ("general_fc.f1=0.5", "unknown metric 'general_fc.f1'"),
        ("", "no threshold"),
    ],
)
def test_gate_rejects_bad_thresholds(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_thresholds(text)


def test_gate_checks_every_language_and_names_what_fell_short() -> None:
    metrics = {
        f"acebench/{lang}": {"overall": value, "groups": {"atom": 0.9}, "categories": {}}
        for lang, value in zip(LANGUAGES, (0.85, 0.75), strict=True)
    }
    shortfalls = evaluate(parse_thresholds("overall=0.8,normal_atom=0.95,normal_atom_bool=0.5"), metrics, 0, 0)
    assert shortfalls == [
        "acebench/zh overall = 0.7500 < 0.8",
        "acebench/en atom = 0.9000 < 0.95",
        "acebench/zh atom = 0.9000 < 0.95",
        "acebench/en normal_atom_bool was not measured (required >= 0.5)",
        "acebench/zh normal_atom_bool was not measured (required >= 0.5)",
    ]
    assert evaluate(parse_thresholds("en.overall=0.8"), metrics, 2, 1) == [
        "2 request error(s), more than --toolcall-max-errors=1: the run is incomplete"
    ]
