"""The block helpers of ``core.stats.intervals`` and the gate's views, against values computed here."""

from __future__ import annotations

import math
import random
import statistics as pystats
from typing import Any

import pytest

from pytest_toolcall.benchmarks.acebench.dataset import CATEGORIES, GROUPS, OVERALL_WEIGHTS
from pytest_toolcall.core.stats import intervals
from pytest_toolcall.core.stats.estimates import bootstrap_interval, grouped_intervals, tool_call_f1
from pytest_toolcall.results.gate import evaluate, parse_thresholds, views


@pytest.mark.slow
@pytest.mark.parametrize(("n", "p"), [(1, 0.3), (7, 0.2), (40, 0.5), (300, 0.9), (1000, 0.07), (5000, 0.4)])
def test_binomial_draws_have_the_binomial_mean_and_variance(n: int, p: float) -> None:
    rng = random.Random(7)
    draws = [intervals.binomial(rng, n, p) for _ in range(20_000)]
    assert all(0 <= d <= n for d in draws)
    # Mean within 5 standard errors; variance within 6 %.
    assert abs(pystats.fmean(draws) - n * p) < 5 * math.sqrt(n * p * (1 - p) / len(draws))
    assert pystats.variance(draws) == pytest.approx(n * p * (1 - p), rel=0.06)


@pytest.mark.slow
def test_binomial_small_case_matches_the_exact_distribution() -> None:
    rng = random.Random(3)
    n, p, draws = 4, 0.35, 60_000
    counts = [0] * (n + 1)
    for _ in range(draws):
        counts[intervals.binomial(rng, n, p)] += 1
    for k in range(n + 1):
        exact = math.comb(n, k) * p**k * (1 - p) ** (n - k)
        assert counts[k] / draws == pytest.approx(exact, abs=0.006)


def test_resampled_counts_keep_the_total_and_the_frequencies() -> None:
    rng = random.Random(1)
    counts = [5, 0, 12, 3]
    draws = [intervals.resampled_counts(rng, counts) for _ in range(5000)]
    assert all(sum(d) == 20 and d[1] == 0 for d in draws)
    for i, count in enumerate(counts):
        assert pystats.fmean(d[i] for d in draws) == pytest.approx(count, abs=0.15)


@pytest.mark.slow
def test_group_intervals_agree_with_the_unit_bootstrap() -> None:
    """The count bootstrap draws the same distribution as redrawing every unit (statistics.py)."""
    rng = random.Random(11)
    by_category = {c: [float(rng.random() < 0.75) for _ in range(30)] for c in CATEGORIES}
    fast = intervals.group_intervals(by_category, GROUPS, OVERALL_WEIGHTS)
    slow = grouped_intervals(by_category, GROUPS, OVERALL_WEIGHTS)
    for name in (*GROUPS, "overall"):
        assert fast[name] == pytest.approx(slow[name], abs=0.02), name


def test_f1_interval_agrees_with_the_unit_bootstrap() -> None:
    rng = random.Random(5)
    units = [(rng.random() < 0.6, rng.random() < 0.7) for _ in range(200)]
    assert intervals.f1_interval(units) == pytest.approx(bootstrap_interval({"all": units}, tool_call_f1), abs=0.02)


def test_f1_interval_resamples_the_attempts_of_a_unit_together() -> None:
    """Three identical attempts per unit: F1 of every resample is the F1 of the same resample of the
    single attempts (all counts triple), so the interval is exactly that of the units run once.
    Taking the 300 attempts as units would make it narrower."""
    rng = random.Random(9)
    once = [(rng.random() < 0.6, rng.random() < 0.7) for _ in range(100)]
    thrice = [(decision,) * 3 for decision in once]
    assert intervals.f1_interval(thrice) == intervals.f1_interval(once)
    as_units = intervals.f1_interval([d for unit in thrice for d in unit])
    assert as_units[1] - as_units[0] < intervals.f1_interval(once)[1] - intervals.f1_interval(once)[0]


def test_intervals_do_not_depend_on_the_order_of_units() -> None:
    units = [float(i % 3 == 0) for i in range(60)]
    shuffled = list(units)
    random.Random(2).shuffle(shuffled)
    categories = {"normal_atom_bool": units, "special_incomplete": units[:20]}
    reordered = {"special_incomplete": shuffled[:0] + units[:20][::-1], "normal_atom_bool": shuffled}
    assert intervals.group_intervals(categories, GROUPS, OVERALL_WEIGHTS) == intervals.group_intervals(
        reordered, GROUPS, OVERALL_WEIGHTS
    )


def test_category_fields_under_repeats() -> None:
    records = [
        {"benchmark": "b", "category": "c", "id": str(unit), "repeat": k, "score": float(k <= passes)}
        for unit, passes in enumerate([2, 1, 0])
        for k in (1, 2)
    ]
    fields = intervals.category_fields(records)
    # pass^1 = (1 + 1/2 + 0) / 3; pass^2 = (1 + 0 + 0) / 3; one flaky unit (1 of 2).
    assert fields["pass_hat_k"] == pytest.approx({"1": 0.5, "2": 1 / 3})
    assert (fields["units"], fields["flaky"]) == (3, 1)
    lo, hi = fields["ci95"]
    assert 0.0 <= lo <= 0.5 <= hi <= 1.0


def test_gate_views_lower_bound_and_official_value() -> None:
    metrics: dict[str, Any] = {
        "acebench/en": {
            "overall": 0.9,
            "overall_ci95": [0.85, 0.95],
            "overall_official": 0.6,
            "groups": {"atom": 0.9},
            "groups_ci95": {"atom": [0.8, 0.97]},
            "groups_official": {"atom": 0.7},
            "categories": {"normal_atom_bool": {"accuracy": 1.0, "ci95": [0.93, 1.0], "accuracy_official": 0.5}},
        }
    }
    (_, lower), (_, official) = views(metrics, "lower", "strict")
    assert lower["acebench/en"]["overall"] == 0.85 and lower["acebench/en"]["groups"]["atom"] == 0.8
    assert lower["acebench/en"]["categories"]["normal_atom_bool"]["accuracy"] == 0.93
    assert official["acebench/en"]["overall"] == 0.6 and official["acebench/en"]["groups"]["atom"] == 0.7
    assert official["acebench/en"]["categories"]["normal_atom_bool"]["accuracy"] == 0.5
    thresholds = parse_thresholds("en.overall=0.8,en.atom=0.75")
    assert evaluate(thresholds, metrics, 0, 0, gate_value="measured") == []
    assert evaluate(thresholds, metrics, 0, 0, gate_on="lower", gate_value="measured") == []
    official_note = "(official value: missing units and failed requests count against the model)"
    assert evaluate(thresholds, metrics, 0, 0) == [
        f"acebench/en overall = 0.6000 < 0.8 {official_note}",
        f"acebench/en atom = 0.7000 < 0.75 {official_note}",
    ]
    assert evaluate(parse_thresholds("en.overall=0.88"), metrics, 0, 0, gate_on="lower", gate_value="measured") == [
        "acebench/en overall = 0.8500 < 0.88 (lower 95% bound)"
    ]
