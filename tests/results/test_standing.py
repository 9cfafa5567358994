"""A compared metric's standing is the gate's own decision: the terminal, the JSON report, the HTML
badges and the gate agree row for row, and a plain difference is never badged as a regression."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pytest_toolcall.api import Benchmark, Loaded, Models, Plan, Unit, Verdict
from pytest_toolcall.results.aggregate import aggregate
from pytest_toolcall.results.baseline import compare_run
from pytest_toolcall.results.gate import regressions
from pytest_toolcall.results.html import render_html
from pytest_toolcall.results.standing import standing, standings
from pytest_toolcall.results.summary import comparison_lines


class Tiny(Benchmark):
    """Two categories, every unit weighing alike: the default comparison (McNemar per category and
    overall, overall gated)."""

    name = "tiny"

    def load(self) -> Loaded:
        return Loaded(units=[])

    def plan(self, unit: Unit, models: Models) -> Plan:
        raise NotImplementedError

    def score(self, unit: Unit, answer: Any) -> Verdict:
        raise NotImplementedError


def samples(outcomes: dict[str, list[bool]]) -> list[dict[str, Any]]:
    return [
        {
            "nodeid": f"toolcall::tiny[{category}-{i}]",
            "benchmark": "tiny",
            "category": category,
            "id": f"{category}-{i}",
            "repeat": 1,
            "outcome": "passed" if ok else "failed",
        }
        for category, oks in outcomes.items()
        for i, ok in enumerate(oks)
    ]


def compared(before: dict[str, list[bool]], after: dict[str, list[bool]], **options: str) -> dict[str, Any]:
    benchmarks = {"tiny": Tiny(SimpleNamespace(option=lambda name: None))}  # type: ignore[arg-type]
    base = {"run": {"model": "m"}, "samples": samples(before), "metrics": {}}
    now = samples(after)
    run = {"model": "m", "options": options}
    return compare_run(base, run, now, aggregate(benchmarks, now), benchmarks)


def html_badges(comparison: dict[str, Any]) -> list[str]:
    page = render_html({"run": {}, "samples": [], "metrics": {}, "comparison": comparison})
    rows = page.split('<td class="name">')[1:]
    return sorted(row.split("<", 1)[0] for row in rows if 'class="badge bad">regressed<' in row)


def test_an_improvement_is_never_badged_as_a_regression() -> None:
    # Category a improves 6/10 -> 7/10 with one unit going pass->fail and two fail->pass (p = 1);
    # nothing regresses significantly.
    before = {"a": [True] * 6 + [False] * 4, "b": [True] * 10}
    after = {"a": [False] + [True] * 5 + [True, True, False, False], "b": [True] * 10}
    comparison = compared(before, after)
    assert comparison["metrics"]["tiny.a"]["p_value"] == 1.0 and comparison["metrics"]["tiny.a"]["regressed"] == 1
    assert comparison["alpha"] == 0.05
    assert {n: c["standing"] for n, c in comparison["metrics"].items()} == {
        "tiny.a": "better",
        "tiny.b": "same",
        "tiny.overall": "better",
    }
    assert html_badges(comparison) == []
    assert regressions(comparison, 0.05, []) == []
    table = "\n".join(comparison_lines(comparison, None))
    assert "regressed" not in table.split("regressed (pass->fail)")[0]


def test_the_rows_badged_are_exactly_the_gates() -> None:
    # Category a falls 10/10 -> 0/10 (McNemar exact: p = 2 * 0.5**10 ≈ 0.00195); b stays. Overall is
    # gated by default; a is gated only when a threshold names it.
    before = {"a": [True] * 10, "b": [True] * 10}
    after = {"a": [False] * 10, "b": [True] * 10}
    comparison = compared(before, after, **{"fail-on-regression": "0.05"})
    assert abs(comparison["metrics"]["tiny.a"]["p_value"] - 2 * 0.5**10) < 1e-12
    assert standings(comparison) == {"tiny.a": "worse", "tiny.b": "same", "tiny.overall": "regressed"}
    gate = [line.split(" regressed:")[0] for line in regressions(comparison, 0.05, [])]
    assert html_badges(comparison) == gate == ["tiny.overall"]
    # A threshold naming the category gates it too: both outputs follow.
    named = compared(before, after, **{"fail-on-regression": "0.05", "fail-under": "tiny.a=0.5"})
    gate = [line.split(" regressed:")[0] for line in regressions(named, 0.05, ["tiny.a"])]
    assert html_badges(named) == gate == ["tiny.a", "tiny.overall"]


def test_a_smaller_alpha_decides_anew_for_every_output() -> None:
    # 5 of 5 units fall: McNemar p = 2 * 0.5**5 = 0.0625 (not below 0.05, not below 0.01); 10 of 10:
    # p ≈ 0.00195 (below 0.05, not below 0.001).
    comparison = compared({"a": [True] * 10}, {"a": [False] * 10})
    assert standings(comparison)["tiny.overall"] == "regressed"
    assert standings(comparison, 0.001)["tiny.overall"] == "worse"
    assert regressions(comparison, 0.001, []) == []
    assert "worse" in "\n".join(comparison_lines(comparison, 0.001))
    five = compared({"a": [True] * 5}, {"a": [False] * 5})
    assert standings(five)["tiny.overall"] == "worse"


def test_an_older_report_without_standings_is_decided_the_same_way() -> None:
    change = {"baseline": 1.0, "now": 0.0, "diff": -1.0, "p_value": 0.002, "regressed": 10, "fixed": 0, "gated": True}
    old = {"baseline": {}, "metrics": {"x.overall": change, "x.c": {**change, "gated": False}}}
    assert standings(old) == {"x.overall": "regressed", "x.c": "worse"}
    assert standing("x.c", change | {"gated": False}, 0.05, ["c"]) == "regressed"  # a threshold names it
    assert standing("x.c", {"diff": 0.0}, 0.05) == "same" and standing("x.c", {}, 0.05) == "same"
