"""Intervals, percentiles, pass^k and repeats, each checked against an independent computation.

Expected values come from arithmetic written out in comments, from a second formula computed here
(Wilson as the roots of its quadratic, pass^k by enumerating k-subsets), or from numpy run outside
the repository (constants pasted with a comment).
"""

from __future__ import annotations

import itertools
import math
import random

import pytest

from pytest_toolcall.benchmarks.acebench.dataset import CATEGORIES, GROUPS, OVERALL_WEIGHTS
from pytest_toolcall.benchmarks.general_fc.metrics import general_fc_metrics
from pytest_toolcall.core.stats.estimates import (
    RESAMPLES,
    Z95,
    attempt_scores,
    bootstrap_interval,
    grouped_intervals,
    mean_of_means,
    pass_hat_k,
    percentile,
    pooled_mean,
    repeat_summary,
    tool_call_f1,
    unit_key,
    unit_means,
    weighted_groups,
    wilson,
)
from pytest_toolcall.core.stats.intervals import accuracy_interval

# Wilson ------------------------------------------------------------------------------------------


def wilson_by_quadratic(passed: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson bounds are the p where |p̂ - p| = z·√(p(1-p)/n), i.e. the roots of
    (1 + z²/n)·p² - (2p̂ + z²/n)·p + p̂² = 0."""
    phat = passed / n
    a = 1 + z * z / n
    b = -(2 * phat + z * z / n)
    c = phat * phat
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


def test_wilson_by_hand() -> None:
    # 7 of 10: p̂ = 0.7, z² = 3.8416, z²/n = 0.38416, 1 + z²/n = 1.38416
    # centre = (0.7 + 0.19208) / 1.38416 = 0.644492...
    # half = 1.96·√(0.7·0.3/10 + 3.8416/400) / 1.38416 = 1.96·√0.030604 / 1.38416 = 0.247719...
    lo, hi = wilson(7, 10)  # type: ignore[misc]
    assert lo == pytest.approx(0.644492 - 0.247719, abs=2e-6)
    assert hi == pytest.approx(0.644492 + 0.247719, abs=2e-6)


@pytest.mark.parametrize(("passed", "n"), [(1, 1), (3, 7), (50, 100), (99, 100), (1, 2000), (1234, 2000)])
def test_wilson_matches_the_roots_of_its_quadratic(passed: int, n: int) -> None:
    assert wilson(passed, n) == pytest.approx(wilson_by_quadratic(passed, n), abs=1e-12)


def test_wilson_at_the_edges() -> None:
    # 0 of 10: the lower bound is 0, the upper one z²/(n + z²) = 3.8416/13.8416 = 0.277540...
    assert wilson(0, 10) == pytest.approx((0.0, 3.8416 / 13.8416), abs=1e-12)
    # 10 of 10: mirrored, n/(n + z²) = 10/13.8416 = 0.722459...
    assert wilson(10, 10) == pytest.approx((10 / 13.8416, 1.0), abs=1e-12)
    lo, hi = wilson(0, 10)  # type: ignore[misc]
    assert lo == 0.0 and hi < 1.0
    for n in (1, 3, 7, 10, 49, 1000):  # exactly 1.0 and 0.0 at the edges, not 0.9999999999999999
        assert wilson(n, n)[1] == 1.0 and wilson(0, n)[0] == 0.0  # type: ignore[index]
    assert Z95 == 1.96


@pytest.mark.parametrize(
    ("passed", "n", "low", "high"),
    # scipy 1.17.1: binomtest(passed, n).proportion_ci(method="wilson"), which uses z = Φ⁻¹(0.975)
    [
        (7, 10, 0.39677814746114526, 0.892208732593699),
        (0, 10, 0.0, 0.27753279986288926),
        (10, 10, 0.7224672001371109, 1.0),
        (1, 2000, 8.826773070546787e-05, 0.0028268625032662137),
        (1234, 2000, 0.5954902722303789, 0.638061138705808),
        (3, 7, 0.1582198552514697, 0.7495416354723428),
    ],
)
def test_wilson_matches_scipy_at_scipys_z(passed: int, n: int, low: float, high: float) -> None:
    assert wilson(passed, n, z=1.959963984540054) == pytest.approx((low, high), rel=1e-12, abs=1e-15)


def test_wilson_of_nothing_is_none_not_zero() -> None:
    assert wilson(0, 0) is None


@pytest.mark.parametrize(("passed", "n"), [(-1, 5), (6, 5)])
def test_wilson_refuses_impossible_counts(passed: int, n: int) -> None:
    with pytest.raises(ValueError, match="passed"):
        wilson(passed, n)


def test_wilson_covers_about_95_percent() -> None:
    # The exact coverage at p = 0.7, n = 50: Σ over outcomes k of P(k) for the intervals that contain 0.7.
    n, p = 50, 0.7
    coverage = sum(
        math.comb(n, k) * p**k * (1 - p) ** (n - k)
        for k in range(n + 1)
        if wilson(k, n)[0] <= p <= wilson(k, n)[1]  # type: ignore[index]
    )
    assert 0.93 <= coverage <= 0.97


# Percentile --------------------------------------------------------------------------------------


def test_percentile_by_hand() -> None:
    # [1, 2, 3, 4]: p50 at h = 3·0.5 = 1.5 → 2 + 0.5·1 = 2.5; p95 at h = 2.85 → 3 + 0.85·1 = 3.85
    assert percentile([4, 1, 3, 2], 0.5) == pytest.approx(2.5)
    assert percentile([4, 1, 3, 2], 0.95) == pytest.approx(3.85)
    # sorted [0.3, 0.7, 0.9, 1.2, 2.5]: p50 at h = 2 → 0.9; p95 at h = 3.8 → 1.2 + 0.8·1.3 = 2.24
    assert percentile([0.3, 1.2, 0.7, 2.5, 0.9], 0.5) == pytest.approx(0.9)
    assert percentile([0.3, 1.2, 0.7, 2.5, 0.9], 0.95) == pytest.approx(2.24)


def test_percentile_matches_numpy_default() -> None:
    # numpy.percentile(range(1, 21), [50, 95]) printed [10.5, 19.05] (numpy 2, method "linear").
    assert percentile(range(1, 21), 0.5) == pytest.approx(10.5)
    assert percentile(range(1, 21), 0.95) == pytest.approx(19.05)


def test_percentile_edges() -> None:
    assert percentile([], 0.5) is None
    assert percentile([7.0], 0.95) == 7.0
    assert percentile([3, 1, 2], 0.0) == 1
    assert percentile([3, 1, 2], 1.0) == 3
    with pytest.raises(ValueError, match="q"):
        percentile([1.0], 95)


# Bootstrap ---------------------------------------------------------------------------------------


def binary_units(seed: int, sizes: dict[str, tuple[int, float]]) -> dict[str, list[float]]:
    rng = random.Random(seed)
    return {name: [float(rng.random() < p) for _ in range(n)] for name, (n, p) in sizes.items()}


def test_bootstrap_takes_the_percentiles_of_the_resampled_values() -> None:
    # A statistic that returns 0, 1, 2, … 1999 in turn: the interval is the 2.5th and 97.5th percentile
    # of 0..1999, h = 1999·0.025 = 49.975 and h = 1999·0.975 = 1949.025.
    calls = itertools.count()
    interval = bootstrap_interval({"a": [0.0, 1.0]}, lambda _: float(next(calls)), resamples=2000)
    assert interval == pytest.approx((49.975, 1949.025))
    assert next(calls) == 2000  # one call per resample


def test_bootstrap_resamples_within_each_stratum_with_replacement() -> None:
    strata = {"a": [1.0, 2.0, 3.0], "b": [10.0] * 5 + [20.0] * 5, "empty": []}
    seen: dict[str, set[float]] = {"a": set(), "b": set()}
    repeats = []

    def check(sample: dict[str, list[float]]) -> float:
        assert {k: len(v) for k, v in sample.items()} == {"a": 3, "b": 10, "empty": 0}
        for name in ("a", "b"):
            assert set(sample[name]) <= set(strata[name])
            seen[name] |= set(sample[name])
        repeats.append(len(set(sample["a"])) < 3)
        return 0.0

    bootstrap_interval(strata, check, resamples=300)
    assert seen == {"a": {1.0, 2.0, 3.0}, "b": {10.0, 20.0}}
    # With replacement: three draws from three values repeat one 1 - 3!/3³ = 7/9 of the time.
    assert 0.65 < sum(repeats) / len(repeats) < 0.9


def test_bootstrap_is_deterministic_and_ignores_input_order() -> None:
    units = binary_units(1, {"x": (40, 0.6), "y": (25, 0.3)})
    first = bootstrap_interval(units, mean_of_means, seed=7)
    assert bootstrap_interval(units, mean_of_means, seed=7) == first
    shuffled = {name: random.Random(2).sample(values, len(values)) for name, values in reversed(units.items())}
    assert bootstrap_interval(shuffled, mean_of_means, seed=7) == first
    assert bootstrap_interval(units, mean_of_means, seed=8) != first


@pytest.mark.slow
def test_bootstrap_contains_the_estimate_and_agrees_with_wilson_for_a_large_sample() -> None:
    units = [1.0] * 240 + [0.0] * 160  # 0.6 of 400
    lo, hi = bootstrap_interval({"c": units}, pooled_mean)  # type: ignore[misc]
    assert lo < 0.6 < hi
    # Wilson(240, 400) ≈ 0.6 ± 0.048; the bootstrap's percentiles agree to Monte Carlo precision.
    w_lo, w_hi = wilson(240, 400)  # type: ignore[misc]
    assert lo == pytest.approx(w_lo, abs=0.01)
    assert hi == pytest.approx(w_hi, abs=0.01)


def test_bootstrap_edges() -> None:
    assert bootstrap_interval({}, pooled_mean) is None
    assert bootstrap_interval({"a": []}, pooled_mean) is None
    assert bootstrap_interval({"a": [1.0]}, lambda _: None) is None
    assert bootstrap_interval({"a": [1.0] * 9}, pooled_mean) == (1.0, 1.0)
    assert bootstrap_interval({"a": [0.0] * 9}, pooled_mean) == (0.0, 0.0)
    assert RESAMPLES >= 2000
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_interval({"a": [1.0]}, pooled_mean, resamples=0)


@pytest.mark.slow
def test_bootstrap_percentile_interval_covers_the_truth_about_95_percent() -> None:
    # 200 samples of 60 units at p = 0.35: the interval of the mean should contain 0.35 about 95 % of the
    # time (percentile bootstraps run a little short at this n; a broken one is far off).
    rng = random.Random(11)
    hits = 0
    for trial in range(200):
        units = [float(rng.random() < 0.35) for _ in range(60)]
        lo, hi = bootstrap_interval({"c": units}, pooled_mean, seed=trial, resamples=400)  # type: ignore[misc]
        hits += lo <= 0.35 <= hi
    assert 0.88 <= hits / 200 <= 0.99


# Statistics --------------------------------------------------------------------------------------


def test_mean_statistics_by_hand() -> None:
    sample = {"a": [1.0, 0.0], "b": [1.0, 1.0, 1.0, 0.0], "c": [], "d": [0.0, 0.0, 1.0]}
    # pooled: 1 + 3 + 1 = 5 passes of 2 + 4 + 3 = 9 units
    assert pooled_mean(sample) == pytest.approx(5 / 9)
    # mean of means: (0.5 + 0.75 + 1/3) / 3, the empty stratum does not count
    assert mean_of_means(sample) == pytest.approx((0.5 + 0.75 + 1 / 3) / 3)
    assert pooled_mean({"a": []}) is None and mean_of_means({}) is None


def test_weighted_groups_by_hand() -> None:
    groups = {"g1": ["a", "b"], "g2": ["c"]}
    statistic = weighted_groups(groups, {"g1": 0.75, "g2": 0.25})
    sample = {"a": [1.0, 0.0], "b": [1.0, 1.0, 1.0, 0.0], "c": [0.0, 0.0, 1.0]}
    # g1 = (0.5 + 0.75)/2 = 0.625, g2 = 1/3; 0.75·0.625 + 0.25/3 = 0.46875 + 0.083333 = 0.552083
    assert statistic(sample) == pytest.approx(0.46875 + 0.25 / 3)
    # without g2's units: renormalised over g1 alone
    assert statistic({"a": [1.0, 0.0], "b": [1.0, 1.0, 1.0, 0.0], "c": []}) == pytest.approx(0.625)
    assert statistic({}) is None


def test_weighted_groups_is_the_acebench_overall() -> None:
    accuracy = {c: (i % 7) / 7 for i, c in enumerate(CATEGORIES)}
    sample = {c: [1.0] * (i % 7) + [0.0] * (7 - i % 7) for i, c in enumerate(CATEGORIES)}
    group = {g: sum(accuracy[c] for c in members) / len(members) for g, members in GROUPS.items()}
    # OVERALL = 0.578·NORMAL + 0.2676·SPECIAL + 0.1545·AGENT, not divided by the weights' sum 1.0001
    expected = 0.578 * group["normal"] + 0.2676 * group["special"] + 0.1545 * group["agent"]
    assert weighted_groups(GROUPS, OVERALL_WEIGHTS)(sample) == pytest.approx(expected, abs=1e-12)


def test_tool_call_f1_by_hand() -> None:
    tp, fp, fn, tn = (True, True), (True, False), (False, True), (False, False)
    # TP 3, FP 1, FN 2, TN 4: P = 3/4, R = 3/5, F1 = 2·0.45/1.35 = 2/3
    assert tool_call_f1({"a": [tp, tp, fp, tn, tn], "b": [tp, fn, fn, tn, tn]}) == pytest.approx(2 / 3)
    assert tool_call_f1({"a": [fp, fn, tn]}) == 0.0  # no true positive: 0, as the official scorer
    assert tool_call_f1({"a": []}) is None


@pytest.mark.slow
def test_tool_call_f1_agrees_with_the_general_fc_scorer() -> None:
    rng = random.Random(9)
    for _ in range(20):
        units = [(rng.random() < 0.5, rng.random() < 0.6) for _ in range(rng.randint(1, 40))]
        records = [
            {"outcome": "passed", "should_call_tool": actual, "finish_reason": "tool_calls" if predicted else "stop"}
            for predicted, actual in units
        ]
        assert tool_call_f1({"all": units}) == pytest.approx(general_fc_metrics(records)["tool_call_f1"], abs=1e-12)


def test_tool_call_f1_interval_contains_the_estimate() -> None:
    rng = random.Random(10)
    units = {"a": [(rng.random() < 0.5, rng.random() < 0.6) for _ in range(150)], "b": [(True, True)] * 30}
    lo, hi = bootstrap_interval(units, tool_call_f1, resamples=1000)  # type: ignore[misc]
    assert lo < tool_call_f1(units) < hi  # type: ignore[operator]
    assert 0.0 <= lo and hi <= 1.0


@pytest.mark.slow
def test_grouped_intervals_contain_their_estimates() -> None:
    units = binary_units(5, {c: (30, 0.2 + 0.6 * (i % 3) / 2) for i, c in enumerate(CATEGORIES)})
    intervals = grouped_intervals(units, GROUPS, OVERALL_WEIGHTS, resamples=500)
    assert set(intervals) == {*GROUPS, "overall"}
    for group, members in GROUPS.items():
        lo, hi = intervals[group]  # type: ignore[misc]
        assert lo <= mean_of_means({c: units[c] for c in members}) <= hi
    lo, hi = intervals["overall"]  # type: ignore[misc]
    assert lo < weighted_groups(GROUPS, OVERALL_WEIGHTS)(units) < hi  # type: ignore[operator]
    assert grouped_intervals(units, GROUPS, OVERALL_WEIGHTS, resamples=500) == intervals
    assert grouped_intervals({}, GROUPS, OVERALL_WEIGHTS)["overall"] is None


# pass^k and repeats ------------------------------------------------------------------------------


def pass_hat_k_by_enumeration(attempts: list[list[bool]]) -> dict[int, float]:
    """For every k, the share of k-subsets of a unit's attempts that all passed, averaged over units."""
    smallest = min(len(a) for a in attempts)
    result = {}
    for k in range(1, smallest + 1):
        shares = []
        for unit in attempts:
            subsets = list(itertools.combinations(unit, k))
            shares.append(sum(all(s) for s in subsets) / len(subsets))
        result[k] = sum(shares) / len(shares)
    return result


def test_pass_hat_k_by_hand() -> None:
    # units (2 of 3), (3 of 3), (0 of 3):
    # k=1: (2/3 + 1 + 0)/3 = 5/9; k=2: (C(2,2)/C(3,2) + 1 + 0)/3 = (1/3 + 1)/3 = 4/9; k=3: (0 + 1 + 0)/3 = 1/3
    assert pass_hat_k([(2, 3), (3, 3), (0, 3)]) == pytest.approx({1: 5 / 9, 2: 4 / 9, 3: 1 / 3})


def test_pass_hat_k_matches_enumeration_of_subsets() -> None:
    rng = random.Random(3)
    attempts = [[rng.random() < p for _ in range(5)] for p in (0.1, 0.5, 0.5, 0.8, 0.95, 1.0, 0.0, 0.6)]
    counts = [(sum(a), len(a)) for a in attempts]
    assert pass_hat_k(counts) == pytest.approx(pass_hat_k_by_enumeration(attempts), abs=1e-12)


def test_pass_hat_k_with_unequal_attempt_counts_stops_at_the_smallest() -> None:
    # (1 of 1) and (2 of 4): only k = 1 is shared by both; (1 + 2/4)/2 = 0.75
    assert pass_hat_k([(1, 1), (2, 4)]) == pytest.approx({1: 0.75})
    attempts = [[True, False, True], [True, True, True, False], [False, True, True, True, True]]
    assert pass_hat_k([(sum(a), len(a)) for a in attempts]) == pytest.approx(pass_hat_k_by_enumeration(attempts))


def test_pass_hat_k_edges() -> None:
    assert pass_hat_k([]) == {}
    assert pass_hat_k([(0, 0)]) == {}
    assert pass_hat_k([(4, 4), (4, 4)]) == {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0}
    assert pass_hat_k([(0, 2), (0, 2)]) == {1: 0.0, 2: 0.0}
    with pytest.raises(ValueError, match="passes"):
        pass_hat_k([(3, 2)])


def test_repeat_summary_by_hand() -> None:
    summary = repeat_summary({"a": [1.0, 1.0, 1.0], "b": [1.0, 0.0, 1.0], "c": [0.0, 0.0, 0.0], "d": []})
    # 5 passes of 9 attempts; b is the only unit whose attempts disagree
    assert summary["units"] == 3 and summary["attempts"] == 9 and summary["passed"] == 5
    assert summary["accuracy"] == pytest.approx(5 / 9)
    assert summary["flaky"] == ["b"]
    # pass^1 = (1 + 2/3 + 0)/3 = 5/9; pass^2 = (1 + 1/3 + 0)/3 = 4/9; pass^3 = (1 + 0 + 0)/3 = 1/3
    assert summary["pass_hat_k"] == pytest.approx({1: 5 / 9, 2: 4 / 9, 3: 1 / 3})
    assert repeat_summary({})["accuracy"] is None


def sample(id_: str, repeat: int, score: float | None, outcome: str = "passed", **extra: object) -> dict:
    return {"benchmark": "acebench", "lang": "en", "category": "normal_atom_bool", "id": id_, "repeat": repeat,
            "score": score, "outcome": outcome, **extra}  # fmt: skip


def test_unit_key_leaves_the_attempt_out() -> None:
    assert unit_key(sample("normal_atom_bool_3", 2, 1.0)) == "acebench/en/normal_atom_bool/normal_atom_bool_3"
    general = {"benchmark": "general_fc", "part": "k2vv_zh_511", "category": "general_fc", "id": "17"}
    assert unit_key(general) == "general_fc/k2vv_zh_511/general_fc/17"


def test_attempt_scores_orders_attempts_and_leaves_skips_out() -> None:
    samples = [
        sample("x_1", 3, 1.0),
        sample("x_1", 1, 0.0, "failed"),
        sample("x_1", 2, None, "error"),
        sample("x_2", 1, 1.0),
        sample("x_2", 2, None, "skipped"),
        sample("x_3", 1, None, "skipped"),
        sample("x_4", 1, None, "passed"),  # a case file's item: an outcome, no score
    ]
    scores = attempt_scores(samples)
    assert scores == {
        "acebench/en/normal_atom_bool/x_1": [0.0, 0.0, 1.0],
        "acebench/en/normal_atom_bool/x_2": [1.0],
        "acebench/en/normal_atom_bool/x_4": [1.0],
    }
    assert unit_means(scores) == {
        "acebench/en/normal_atom_bool/x_1": pytest.approx(1 / 3),
        "acebench/en/normal_atom_bool/x_2": 1.0,
        "acebench/en/normal_atom_bool/x_4": 1.0,
    }


def test_accuracy_interval_is_wilson_for_single_attempts_and_a_bootstrap_under_repeats() -> None:
    once = {f"u{i}": [1.0 if i < 13 else 0.0] for i in range(20)}
    assert accuracy_interval(once) == wilson(13, 20)
    repeated = {f"u{i}": [1.0, 0.0, 1.0] if i % 2 else [1.0, 1.0, 1.0] for i in range(20)}
    lo, hi = accuracy_interval(repeated)  # type: ignore[misc]
    # mean of unit means = (10·1 + 10·2/3)/20 = 5/6
    assert lo < 5 / 6 < hi and hi <= 1.0
    assert accuracy_interval(repeated) == (lo, hi)
    assert accuracy_interval({}) is None
