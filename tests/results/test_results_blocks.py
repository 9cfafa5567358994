"""The protocol's defaults (``core.protocol.blocks``, ``Benchmark``): the default block, the naming rules and
their validator, the default gate names and values, the paired comparison and ``--toolcall-limit``,
against numbers computed here by hand (Wilson's and McNemar's formulas written out)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pytest_toolcall.api import (
    Benchmark,
    BlockError,
    Loaded,
    Metrics,
    Rows,
    Unit,
    Verdict,
    accuracy_block,
    check_blocks,
    gate_names,
)
from pytest_toolcall.results.gate import evaluate, parse_thresholds
from pytest_toolcall.runner.collect import limited


class Toy(Benchmark):
    """The smallest benchmark: everything but load, plan and score is the default."""

    name = "toy"

    def __init__(self) -> None:  # no settings needed by the defaults under test
        self.sizes_by_block = {}

    def load(self) -> Loaded:
        return Loaded(units=[])

    def plan(self, unit: Unit, models: Any) -> Any:
        raise AssertionError("not asked")

    def score(self, unit: Unit, answer: Any) -> Verdict:
        raise AssertionError("not scored")


def record(category: str, i: int, outcome: str, repeat: int = 1) -> dict[str, Any]:
    score = {"passed": 1.0, "failed": 0.0, "error": None, "skipped": None}[outcome]
    return {
        "benchmark": "toy",
        "category": category,
        "id": f"{category}{i}",
        "nodeid": f"toolcall::toy[{category}{i}]",
        "outcome": outcome,
        "score": score,
        "repeat": repeat,
    }


def wilson_by_hand(k: int, n: int) -> list[float]:
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return [max(0.0, centre - half), min(1.0, centre + half)]


def mcnemar_by_hand(b: int, c: int) -> float:
    m = b + c
    return min(1.0, 2 * sum(math.comb(m, i) for i in range(min(b, c) + 1)) / 2**m)


# --- the default block ----------------------------------------------------------------------------


def test_the_default_block_by_hand() -> None:
    rows = [record("a", i, "passed") for i in range(3)] + [record("a", 3, "failed"), record("a", 4, "error")]
    rows += [record("b", 0, "passed"), record("b", 1, "skipped")]
    block = accuracy_block(rows, {"a": 5, "b": 4, "c": 2})
    a, b = block["categories"]["a"], block["categories"]["b"]
    assert (a["n"], a["passed"], a["failed"], a["errors"], a["accuracy"]) == (5, 3, 1, 1, 3 / 5)
    assert a["ci95"] == pytest.approx(wilson_by_hand(3, 5))
    assert "accuracy_official" not in a  # every unit of a ran
    assert (b["n"], b["accuracy"], b["accuracy_official"]) == (1, 1.0, 1 / 4)  # the skipped unit is in no count
    assert (block["n"], block["passed"], block["failed"], block["errors"]) == (6, 4, 1, 1)
    assert block["overall"] == 4 / 6
    assert block["overall_ci95"] == pytest.approx(wilson_by_hand(4, 6))
    assert block["overall_official"] == 4 / (5 + 4 + 2)
    assert (block["partial"], block["missing_categories"], block["short_categories"]) == (True, ["c"], ["b"])
    check_blocks("toy", {"toy": block})


def test_a_category_that_only_errored_measured_nothing() -> None:
    block = accuracy_block([record("a", 0, "error")])
    assert (block["categories"]["a"]["accuracy"], block["categories"]["a"]["ci95"]) == (None, None)
    assert (block["overall"], block["overall_ci95"], block["overall_official"]) == (None, None, None)


def test_repeats_give_pass_hat_k_and_flaky_units() -> None:
    rows = [record("a", 0, "passed", 1), record("a", 0, "failed", 2), record("a", 1, "passed", 1)]
    rows.append(record("a", 1, "passed", 2))
    block = accuracy_block(rows, {"a": 2})
    # unit a0: 1 of 2, unit a1: 2 of 2; pass^1 = (1/2 + 1) / 2, pass^2 = (0 + 1) / 2
    assert block["pass_hat_k"] == {"1": 0.75, "2": 0.5}
    assert block["flaky"] == ["toolcall::toy[a0]"]
    assert block["categories"]["a"]["flaky"] == 1
    assert "accuracy_official" not in block["categories"]["a"]  # 2 units x 2 attempts ran


# --- the naming rules ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ({"overall_ci95": [0.1, 0.2]}, "overall_ci95: an interval of 'overall', which the object does not have"),
        ({"overall": 0.5, "overall_ci95": [0.6, 0.2]}, "overall_ci95: an interval is [lower, upper]"),
        ({"overall": 0.5, "overall_ci95": 0.4}, "overall_ci95: an interval is [lower, upper]"),
        ({"overall": 0.5, "ci95_overall": [0.4, 0.6]}, "ci95_overall: an interval is named <value>_ci95"),
        ({"accuracy": 0.5, "accuracy_ci_95": [0.4, 0.6]}, "accuracy_ci_95: an interval is named"),
        ({"categories": {"x": {"ci95": [0.1, 0.2]}}}, "categories.x.ci95: an interval of 'accuracy'"),
        ({"accuracy": 0.5, "ci95": [0.4, 0.6], "accuracy_ci95": [0.4, 0.6]}, "written once"),
        ({"groups": {"a": 0.5}, "groups_ci95": {"b": [0.1, 0.2]}}, "groups_ci95.b: 'groups' has no key 'b'"),
        ({"groups": {"a": 0.5}, "groups_ci95": [0.1, 0.2]}, "an object with its keys"),
        ({"overall": 0.5, "overall_official": "high"}, "an official value is a number or null"),
        ({"x_official": 0.3}, "x_official: an official value of 'x'"),
    ],
)
def test_a_block_that_breaks_the_rules_is_an_error(block: dict[str, Any], problem: str) -> None:
    with pytest.raises(BlockError) as raised:
        check_blocks("toy", {"toy": block})
    assert problem in str(raised.value)
    assert "block 'toy'" in str(raised.value)


def test_the_block_name_carries_the_benchmark() -> None:
    with pytest.raises(BlockError, match="a block of toy is named 'toy' or 'toy/<part>'"):
        check_blocks("toy", {"other": {}})
    check_blocks("toy", {"toy/en": {"accuracy": 0.5, "accuracy_ci95": [0.4, 0.6]}, "toy/zh": {}})


def test_an_accuracy_interval_named_either_way_is_gated_on_its_lower_bound() -> None:
    # The fourth benchmark: accuracy 0.6 with accuracy_ci95 [0.438, 0.75] passed a lower
    # gate of 0.5 on its point value.
    metrics = {"toy": {"accuracy": 0.6, "accuracy_ci95": [0.438, 0.75]}}
    thresholds = parse_thresholds("toy.accuracy=0.5", [Toy])
    assert evaluate(thresholds, metrics, 0, 0, gate_on="lower") == ["toy.accuracy = 0.4380 < 0.5 (lower 95% bound)"]
    assert evaluate(thresholds, metrics, 0, 0, gate_on="point") == []


# --- gate names ---------------------------------------------------------------------------------------


def test_default_gate_names_and_values() -> None:
    block = accuracy_block([record("a", 0, "passed"), record("b", 0, "failed")], {"a": 1, "b": 2})
    metrics = {"toy": block}
    assert Toy.claims_metric("toy.overall") and Toy.claims_metric("toy.a") and not Toy.claims_metric("other.a")
    assert Toy.gate_values("toy.a", metrics) == [("toy.a", 1.0)]
    assert Toy.gate_values("toy.missing", metrics) == [("toy.missing", None)]
    thresholds = parse_thresholds("toy.overall=0.4", [Toy])
    # Strict: measured 1/2, officially 1/3 (a unit of b did not run).
    assert evaluate(thresholds, metrics, 0, 0) == [
        f"toy.overall = {1 / 3:.4f} < 0.4 (official value: missing units and failed requests count against the model)"
    ]
    two = {"toy/en": block, "toy/zh": {**block, "overall": 0.25}}
    assert Toy.gate_values("toy.overall", two) == [("toy/en.overall", 0.5), ("toy/zh.overall", 0.25)]
    assert Toy.gate_values("toy/zh.overall", two) == [("toy/zh.overall", 0.25)]


def test_declared_rows_refuse_unknown_names_at_start_up() -> None:
    class Named(Toy):
        name = "named"
        metrics = Metrics(rows=(Rows(names=("a",)),))

    assert gate_names(Named) == ("named.overall", "named.a")
    with pytest.raises(ValueError, match=r"unknown metric 'named.f1'; named measures named.overall, named.a"):
        Named.claims_metric("named.f1")


# --- the comparison -----------------------------------------------------------------------------------


def test_the_default_comparison_by_hand() -> None:
    before = [record("a", i, "passed") for i in range(8)] + [record("b", i, "passed") for i in range(4)]
    now = [record("a", i, "failed" if i < 7 else "passed") for i in range(8)]
    now += [record("b", 0, "failed")] + [record("b", i, "passed") for i in range(1, 4)]
    toy = Toy()
    changes = toy.compare(before, {"toy": accuracy_block(before)}, now, {"toy": accuracy_block(now)})
    assert set(changes) == {"toy.a", "toy.b", "toy.overall"}
    overall = changes["toy.overall"]
    assert overall["gated"] and not changes["toy.a"]["gated"]
    assert (overall["baseline"], overall["now"], overall["diff"]) == (1.0, 4 / 12, 4 / 12 - 1.0)
    assert (overall["regressed"], overall["fixed"], overall["paired"]) == (8, 0, 12)
    assert overall["p_value"] == pytest.approx(mcnemar_by_hand(8, 0))
    assert changes["toy.a"]["p_value"] == pytest.approx(mcnemar_by_hand(7, 0))
    assert changes["toy.b"]["p_value"] == pytest.approx(mcnemar_by_hand(1, 0)) == 1.0


def test_units_of_one_run_only_are_not_paired() -> None:
    before = [record("a", 0, "passed"), record("a", 1, "passed")]
    now = [record("a", 0, "failed"), record("a", 2, "failed")]
    changes = Toy().compare(before, {}, now, {})
    assert changes["toy.overall"]["paired"] == 1 and changes["toy.overall"]["regressed"] == 1


# --- the limit --------------------------------------------------------------------------------------------


def test_the_limit_counts_per_part_and_category() -> None:
    def unit(key: str, category: str, lang: str | None = None, stem: str | None = None) -> Unit:
        return Unit("toy", key, category, key, lang=lang, fields={"stem": stem} if stem else {})

    units = [unit(f"en{i}", "x", lang="en") for i in range(3)] + [unit(f"zh{i}", "x", lang="zh") for i in range(3)]
    units += [unit(f"f{i}", "y", stem="file1") for i in range(3)] + [unit("g0", "y", stem="file2")]
    kept = limited(Loaded(units=units, problems=[("p", "m")]), 2)
    assert [u.key for u in kept.units] == ["en0", "en1", "zh0", "zh1", "f0", "f1", "g0"]
    assert kept.problems == [("p", "m")]
    assert limited(Loaded(units=units), None).units == units
