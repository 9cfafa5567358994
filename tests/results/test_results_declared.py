"""Metrics declared (``core.protocol.metrics``): every built-in benchmark's names are unique and mean one
thing in the gate, the comparison and JUnit; repeats reduce by a named reducer; an interval under
repeats is never narrower than its units justify (Wilson written out here by hand)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pytest_toolcall.api import MAJORITY, MEAN, PASS_HAT_K, Benchmark, Loaded, Unit, Verdict, accuracy_block
from pytest_toolcall.config.registry import benchmark_classes
from pytest_toolcall.core.protocol.metrics import check_declaration, gate_names
from pytest_toolcall.results.gate import evaluate, parse_thresholds


def wilson_by_hand(k: float, n: float) -> tuple[float, float]:
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


class Toy(Benchmark):
    name = "toy"

    def __init__(self) -> None:
        self.sizes_by_block = {}

    def load(self) -> Loaded:
        return Loaded(units=[])

    def plan(self, unit: Unit, models: Any) -> Any:
        raise AssertionError("not asked")

    def score(self, unit: Unit, answer: Any) -> Verdict:
        raise AssertionError("not scored")


def record(unit: int, repeat: int, passed: bool, category: str = "a") -> dict[str, Any]:
    return {
        "benchmark": "toy",
        "category": category,
        "id": f"u{unit}",
        "nodeid": f"toolcall::toy[u{unit}@{repeat}]",
        "outcome": "passed" if passed else "failed",
        "score": 1.0 if passed else 0.0,
        "repeat": repeat,
    }


# --- repeats: intervals never narrower than the units justify ----------------------------------------


def test_five_all_pass_units_repeated_do_not_pass_a_gate_that_five_units_once_fail() -> None:
    once = accuracy_block([record(u, 1, True) for u in range(5)])
    twice = accuracy_block([record(u, k, True) for u in range(5) for k in (1, 2)])
    lower, upper = wilson_by_hand(5, 5)
    assert (round(lower, 3), upper) == (0.566, 1.0)
    for block in (once, twice):
        assert block["overall"] == 1.0
        assert block["overall_ci95"] == pytest.approx([lower, upper])
        assert block["categories"]["a"]["ci95"] == pytest.approx([lower, upper])
    thresholds = parse_thresholds("toy.overall=0.95", [Toy])
    for block in (once, twice):
        (shortfall,) = evaluate(thresholds, {"toy": block}, 0, 0, gate_on="lower", gate_value="measured")
        assert shortfall == f"toy.overall = {lower:.4f} < 0.95 (lower 95% bound)"


def test_repeats_widen_to_the_units_never_narrow_below_them() -> None:
    # 10 units, each passing 1 of its 2 attempts: every resample of units has the mean 0.5, so the
    # bootstrap alone would say [0.5, 0.5]; 10 units justify Wilson's 5 of 10 at least.
    block = accuracy_block([record(u, k, k == 1) for u in range(10) for k in (1, 2)])
    assert block["overall"] == 0.5
    assert block["overall_ci95"] == pytest.approx(list(wilson_by_hand(5, 10)))
    # Units that disagree keep the bootstrap where it is wider than the floor.
    mixed = accuracy_block([record(u, k, u < 4) for u in range(8) for k in (1, 2)])
    lo, hi = mixed["overall_ci95"]
    floor = wilson_by_hand(4, 8)
    assert lo <= floor[0] and hi >= floor[1]


def test_groups_under_repeats_are_floored_by_their_effective_units() -> None:
    from pytest_toolcall.benchmarks.acebench.metrics import acebench_metrics

    def rows(repeats: int) -> list[dict[str, Any]]:
        return [
            {
                "benchmark": "acebench",
                "lang": "en",
                "category": "special_incomplete",
                "id": f"s{u}",
                "outcome": "passed",
                "score": 1.0,
                "repeat": k,
            }
            for u in range(6)
            for k in range(1, repeats + 1)
        ]

    once = acebench_metrics(rows(1), {})["acebench/en"]
    twice = acebench_metrics(rows(2), {})["acebench/en"]
    # One category of 6 units: the group "special" is its accuracy, from 6 units (Kish: 6).
    assert twice["groups"]["special"] == once["groups"]["special"] == 1.0
    assert twice["groups_ci95"]["special"] == pytest.approx(list(wilson_by_hand(6, 6)))
    assert twice["overall_ci95"][0] <= wilson_by_hand(6, 6)[0]


def test_reducers() -> None:
    assert MEAN.value([1.0, 0.0, 1.0]) == pytest.approx(2 / 3)
    assert PASS_HAT_K.value([1.0, 0.0]) == 0.5  # pass^1: the unit's pass rate
    assert MAJORITY.value([1.0, 0.0]) == 1.0  # a tie passes (general_fc: a tie counts as a call)
    assert MAJORITY.value([0.0, 0.0, 1.0]) == 0.0
    with pytest.raises(ValueError):
        MEAN.value([])


# --- declared names: one meaning each, the same in the gate, the comparison and JUnit ----------------


@pytest.mark.parametrize("name", sorted(benchmark_classes()))
def test_every_built_in_declaration_holds_and_claims_its_names(name: str) -> None:
    benchmark = benchmark_classes()[name]
    check_declaration(benchmark)
    names = gate_names(benchmark)
    assert len(names) == len(set(names))
    for gate_name in names:
        concrete = gate_name.replace("<k>", "2").replace("<", "x").replace(">", "x")
        assert benchmark.claims_metric(concrete), gate_name


def test_a_declaration_with_one_name_for_two_things_is_refused() -> None:
    from pytest_toolcall.api import Metrics, Rows

    class Doubled(Toy):
        name = "doubled"
        metrics = Metrics(rows=(Rows(names=("a",)),), numbers=("a",))

    with pytest.raises(ValueError, match="gate names with two meanings: a"):
        check_declaration(Doubled)


def test_bfcl_irrelevance_is_one_number_everywhere() -> None:
    """The category ``irrelevance`` is ``bfcl.irrelevance`` in the gate, the comparison and JUnit; the
    summary score of that name (which counts live_irrelevance too) is ``bfcl.group.irrelevance``."""
    from pytest_toolcall.benchmarks.bfcl.benchmark import BFCL

    assert "bfcl.irrelevance" in gate_names(BFCL) and "bfcl.group.irrelevance" in gate_names(BFCL)

    def rows(irrelevance: list[bool], live: list[bool]) -> list[dict[str, Any]]:
        return [
            {"benchmark": "bfcl", "category": c, "id": f"{c}_{i}", "outcome": "passed" if p else "failed",
             "score": float(p)}
            for c, passes in (("irrelevance", irrelevance), ("live_irrelevance", live))
            for i, p in enumerate(passes)
        ]  # fmt: skip

    bfcl = BFCL.__new__(BFCL)
    bfcl.sizes_by_block, bfcl.mode = {}, "fc"
    before, now = rows([True] * 4, [True] * 4), rows([True] * 3 + [False], [False] * 4)
    blocks = {"bfcl": bfcl.aggregate(now)["bfcl"]}
    baseline = {"bfcl": bfcl.aggregate(before)["bfcl"]}
    compared = bfcl.compare(before, baseline, now, blocks)
    assert compared["bfcl.irrelevance"]["now"] == BFCL.gate_values("bfcl.irrelevance", blocks)[0][1] == 0.75
    group = BFCL.gate_values("bfcl.group.irrelevance", blocks)[0][1]
    assert compared["bfcl.group.irrelevance"]["now"] == pytest.approx(group) == (0.75 + 0.0) / 2
    properties = dict(bfcl.suite_properties("bfcl", blocks["bfcl"]))
    assert properties["bfcl.irrelevance"] == 0.75 and properties["bfcl.group.irrelevance"] == group


def test_acebench_unprefixed_names_and_aliases_through_the_declaration() -> None:
    from pytest_toolcall.benchmarks.acebench.benchmark import ACEBench

    for name in ("overall", "zh.atom", "atom", "normal_atom", "acebench.overall", "acebench/zh.overall", "en.agent"):
        assert ACEBench.claims_metric(name), name
    assert not ACEBench.claims_metric("tool_call_f1")
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        ACEBench.claims_metric("fr.overall")
    block = {"groups": {"atom": 0.5}, "overall": 0.9}
    assert ACEBench.gate_values("normal_atom", {"acebench/en": block}) == [("acebench/en atom", 0.5)]
    assert ACEBench.gate_values("zh.overall", {"acebench/en": block}) == [("acebench/zh overall", None)]


def test_the_docs_list_every_gate_name_of_every_built_in() -> None:
    """docs/gate-names.md names every metric each built-in benchmark declares, in its own section."""
    from pathlib import Path

    from pytest_toolcall.core.protocol.metrics import metric_names

    text = (Path(__file__).resolve().parents[2] / "docs" / "gate-names.md").read_text(encoding="utf-8")
    sections = {part.split("\n", 1)[0].strip(): part for part in text.split("\n## ")[1:]}
    missing = []
    for name, benchmark in sorted(benchmark_classes().items()):
        section = sections.get(name, "")
        prefix = "" if benchmark.metrics.unprefixed else f"{name}."
        missing += [f"{name}: {m}" for m in metric_names(benchmark.metrics) if f"`{prefix}{m}`" not in section]
    assert not missing, missing


@pytest.mark.slow  # runs pytest inside itself
@pytest.mark.parametrize("repeat", [[], ["--toolcall-repeat=2"]], ids=["once", "twice"])
def test_a_lower_bound_gate_fails_five_all_pass_units_however_often_they_run(
    pytester: pytest.Pytester, repeat: list[str]
) -> None:
    """The issue's case end to end: five ACEBench units the oracle passes, run once or twice each, and
    a lower-bound gate of 0.95 on their category: Wilson(5, 5) = [0.566, 1] both times."""
    args = ["--toolcall-model=oracle", "-p", "no:randomly", "-k", "normal_atom_bool", "--toolcall-limit=5"]
    gate = ["--toolcall-fail-under=acebench/en.normal_atom_bool=0.95", "--toolcall-gate-on=lower"]
    result = pytester.runpytest(*args, *repeat, *gate, "--toolcall-gate-value=measured")
    result.assert_outcomes(passed=5 * (2 if repeat else 1))
    lower = wilson_by_hand(5, 5)[0]
    assert result.ret == 1
    assert f"acebench/en normal_atom_bool = {lower:.4f} < 0.95 (lower 95% bound)" in result.stdout.str()
